"""Rule ``amdahl``: an end-to-end speedup cannot exceed the speedup of the component it comes from.

Applies to pairs of speedups of one paper on the same hardware (for each end-to-end figure, the
component with the smallest speedup, the tightest bound): a component speedup (its
workload or evidence names a kernel, an operator, attention, a GEMM, checkpointing or
communication) and an end-to-end speedup (its workload or evidence says "end-to-end"). If the
component takes a fraction f of the baseline's time and becomes s times faster, the whole
becomes S = 1 / ((1 − f) + f/s) ≤ s times faster (Amdahl's law), and a stated pair gives
f = (1 − 1/S) / (1 − 1/s), the least share of time the component must take.

An end-to-end figure above the component's is inconsistent only when both are measured against
the same stated baseline with the same statistic; otherwise it holds only if the baselines
differ (named: "different baselines"; one missing: "unstated baseline") or the two figures come
from different runs ("up to" against an average).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from analysis.audit.registry import Result, combined_tolerance, judge_bound, pct
from analysis.audit.rules.base import Candidate, Claim, Ledger, Rule, plausible

COMPONENT = re.compile(r"kernel|operator|\battention\b|gemm|matmul|matrix multiplication|checkpointing|"
                       r"communication|sublayer|linear layer", re.I)
END_TO_END = re.compile(r"end-to-end|end to end", re.I)


def factor(c: Claim, value: float) -> float:
    """A speedup as a factor: '64%' faster is 1.64x."""
    return 1 + value / 100 if c.unit == "%" else value


def is_speedup(c: Claim) -> bool:
    return c.metric == "speedup" and c.unit in ("x", "%") and c.single


def is_end_to_end(c: Claim) -> bool:
    return bool(END_TO_END.search(c.words()))


def is_component(c: Claim) -> bool:
    return not is_end_to_end(c) and bool(COMPONENT.search(c.words()))


class AmdahlRule(Rule):
    name = "amdahl"
    title = "Amdahl feasibility"
    kind = "amdahl"
    covers = frozenset({"amdahl"})
    question = "Is an end-to-end speedup within the speedup of the component it comes from?"

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        for claims in ledger.by_paper.values():
            ends = [c for c in claims if is_speedup(c) and is_end_to_end(c)]
            parts = [c for c in claims if is_speedup(c) and is_component(c)]
            for e in ends:
                same = [p for p in parts if p.hardware == e.hardware]
                if same:  # the tightest bound: the component with the smallest speedup
                    p = min(same, key=lambda p: factor(p, p.upper))
                    yield Candidate((e.claim_id, p.claim_id), e.citekey,
                                    f"end-to-end {e.shown} against the component's {p.shown}",
                                    partial(amdahl, e, p), pair=True)


def _statistic(c: Claim) -> str:
    return "maximum" if c.qualifier == "up to" else ("average" if c.qualifier == "average" else "single figure")


def amdahl(e: Claim, p: Claim) -> Result:
    assert e.value is not None and p.value is not None
    big_s, s = factor(e, e.value), factor(p, p.value)
    tol = combined_tolerance(e.tolerance(), p.tolerance())
    head = f"end-to-end {big_s:.3g}x against component {s:.3g}x"
    if judge_bound(big_s, s, "≤", tol) == "consistent":
        if big_s <= 1 or s <= 1:
            frac = ""
        else:
            f = min(1.0, (1 - 1 / big_s) / (1 - 1 / s))
            frac = f"; f = (1 - 1/{big_s:.3g}) / (1 - 1/{s:.3g}) = {f:.2f}"
        return Result(big_s, s, "x", tol, "consistent", head + frac, relation="≤",
                      explanation=("If both share a baseline, the component takes at least the fraction f of the "
                                   "baseline's time." if frac else "The end-to-end gain is within the component's.")
                      + _baselines(e, p))
    same_stat = _statistic(e) == _statistic(p)
    b_e, b_p = e.baseline.strip().lower(), p.baseline.strip().lower()
    over = f"{head}: the end-to-end figure is {pct(big_s / s - 1)} above the component's"
    if b_e and b_p and b_e == b_p and same_stat:
        return Result(big_s, s, "x", tol, "inconsistent", over, relation="≤",
                      explanation=f"Both are measured against {e.baseline}: by Amdahl's law the whole cannot gain "
                                  "more than the part it speeds up.")
    if b_e and b_p and b_e != b_p:
        return plausible(big_s, s, "x", tol, over, "different baselines",
                         f"the end-to-end figure is measured against {e.baseline} and the component against "
                         f"{p.baseline}, so Amdahl's law does not bound one by the other", relation="≤")
    if not same_stat and b_e == b_p:
        return plausible(big_s, s, "x", tol, over, "different runs or versions",
                         f"the end-to-end figure ({_statistic(e)}) and the component's ({_statistic(p)}) come from "
                         "different runs or configurations", relation="≤")
    missing = "the end-to-end figure" if not b_e else "the component figure"
    return plausible(big_s, s, "x", tol, over, "unstated baseline",
                     f"{missing} is measured against a slower baseline than the other (the ledger gives no "
                     f"baseline for it): over one baseline the end-to-end gain could not exceed {s:.3g}x",
                     relation="≤")


def _baselines(e: Claim, p: Claim) -> str:
    if e.baseline and p.baseline and e.baseline.lower() != p.baseline.lower():
        return f" The stated baselines differ ({e.baseline}; {p.baseline}), so f is indicative only."
    return ""

