"""Rule ``arithmetic``: two stated numbers and the ratio, percentage or "N× fewer" stated between them.

Applies to a ratio claim R (unit × or %) that names a baseline, with two absolute claims of the
same paper, metric and unit: A, the paper's own figure (its baseline is R's and its workload is
R's, up to a word naming the same quantity such as "time" or "cost"), and B, the baseline's
figure (its workload names R's baseline). The stated form gives the formula:

- "N× faster" for a time (GPU-days, latency): B/A; for a rate (throughput): A/B;
- "N× fewer", "N× smaller": B/A;
- "X% less", "reduces by X%": 100 (1 − A/B);
- "X% faster": 100 (B/A − 1) for a time, 100 (A/B − 1) for a rate;
- "X% of", a share: 100 A/B.

"Up to" makes R a maximum (the recomputed figure must not exceed it), "over" or "at least" a
minimum. A ratio whose claims cannot be matched this way, or match twice, is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from analysis.audit.registry import Result, combined_tolerance, judge_bound
from analysis.audit.rules.base import Candidate, Claim, Ledger, Rule

TIME_UNITS = {"GPU-days": 24.0, "GPU-hours": 1.0, "days": 24.0, "h": 1.0, "min": 1 / 60, "s": 1 / 3600,
              "ms": 1 / 3.6e6}
TIME_METRICS = {"gpu_days", "gpu_hours", "latency", "other"}
SAME_QUANTITY = {"": "", "time": "time", "cost": "cost", "training time": "time", "compute": "time",
                 "parameters": "", "trainable parameters": "", "throughput": "rate", "memory": "", "latency": "time"}


def is_time(c: Claim) -> bool:
    return c.unit in TIME_UNITS and c.metric in TIME_METRICS


def _rest(longer: str, shorter: str) -> str | None:
    """What `longer` adds to `shorter` (None if it does not start with it)."""
    lo, sh = longer.lower().strip(), shorter.lower().strip()
    return lo[len(sh):].strip() if sh and lo.startswith(sh) else None


def same_figure(r: Claim, a: Claim) -> bool:
    """A's workload names what R is a ratio of ('HiPA training' for 'HiPA training'; 'PIXART-alpha
    training' for '... training time', not for '... training cost' when A is in GPU-days)."""
    rest = _rest(r.workload, a.workload)
    if rest is None:
        extra = _rest(a.workload, r.workload)
        return extra is not None and (extra == "" or extra.startswith("("))
    kind = SAME_QUANTITY.get(rest)
    if kind is None:
        return False
    if kind == "time":
        return is_time(a)
    if kind == "cost":
        return a.metric == "cost_usd"
    if kind == "rate":
        return a.metric == "throughput"
    return True


def operands(ledger: Ledger, r: Claim, convertible: bool) -> list[tuple[Claim, Claim]]:
    """(A, B) pairs for the ratio claim `r`: same unit (convertible=False) or two different time
    units (convertible=True)."""
    if not r.baseline or not r.single or r.unit not in ("x", "%"):
        return []
    base = r.baseline.lower()
    claims = [c for c in ledger.paper(r.citekey) if c.single and c.unit not in ("x", "%") and c.claim_id != r.claim_id]
    ours = [a for a in claims if a.baseline.lower() == base and same_figure(r, a)]
    theirs = [b for b in claims if base in b.workload.lower() and b.baseline.lower() != base]
    pairs = []
    for a in ours:
        for b in theirs:
            if a.claim_id == b.claim_id:
                continue
            same_unit = a.unit == b.unit and a.metric == b.metric
            cross = a.unit != b.unit and is_time(a) and is_time(b)
            if (cross if convertible else same_unit):
                pairs.append((a, b))
    return pairs


def ratio_formula(r: Claim, a_value: float, b_value: float, a: Claim) -> tuple[float, str] | None:
    """The stated form's recomputation from A and B (in one unit), or None for a form not covered."""
    rate = a.metric == "throughput"
    q = a_value / b_value
    if r.unit == "x":
        if r.metric == "speedup":
            return (q, "A / B") if rate else (1 / q, "B / A")
        if r.metric in ("reduction", "other"):
            return 1 / q, "B / A"
        return None
    if r.metric == "reduction":
        return 100 * (1 - q), "100 (1 - A / B)"
    if r.metric in ("speedup", "throughput"):
        return (100 * (q - 1), "100 (A / B - 1)") if rate else (100 * (1 / q - 1), "100 (B / A - 1)")
    if r.metric in ("other", "params"):
        return 100 * q, "100 A / B"
    return None


def relation_of(r: Claim) -> str:
    if r.qualifier in ("up to", "at most"):
        return "≥"  # the stated maximum must reach the recomputed figure
    if r.qualifier in ("over", "at least"):
        return "≤"
    return "≈"


def judge_ratio(r: Claim, a: Claim, b: Claim, a_value: float, b_value: float, how: str) -> Result | None:
    rec = ratio_formula(r, a_value, b_value, a)
    if rec is None:
        return None
    value, form = rec
    assert r.value is not None
    tol = combined_tolerance(r.tolerance(), a.tolerance(), b.tolerance())
    rel = relation_of(r)
    verdict = judge_bound(r.value, value, rel, tol)
    return Result(r.value, value, r.unit, tol, verdict,
                  f"A = {a.shown} ({a.claim_id}), B = {b.shown} ({b.claim_id}){how}; {form} = {value:.4g}",
                  relation=rel, explanation=f"Tolerance: the rounding of the three printed figures ({tol:.1%}).")


def _given(res: Result) -> Result:
    return res


class ArithmeticRule(Rule):
    name = "arithmetic"
    title = "Stated arithmetic"
    kind = "ratio"
    covers = frozenset({"ratio", "gpu_time", "unit", "compute", "energy"})
    question = "Does a stated ratio, percentage or saving follow from the two numbers it relates?"
    convertible = False

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        for r in ledger.claims:
            pairs = operands(ledger, r, self.convertible)
            if len(pairs) != 1:
                continue  # no operands, or an ambiguous match: left alone
            a, b = pairs[0]
            res = self.recompute(r, a, b)
            if res is None:
                continue
            yield Candidate((r.claim_id, a.claim_id, b.claim_id), r.citekey,
                            f"{r.shown} against {a.shown} and {b.shown}", partial(_given, res))

    def recompute(self, r: Claim, a: Claim, b: Claim) -> Result | None:
        assert a.value is not None and b.value is not None
        return judge_ratio(r, a, b, a.value, b.value, "")
