"""Rule ``conversion``: figures that differ only by a unit or a rate must agree once converted.

Applies to three forms:

- a stated ratio between two GPU-time figures in different units (GPU-days against GPU-hours),
  matched as in the stated-arithmetic rule and converted at 24 hours a day;
- a GPU-time figure (GPU-days, GPU-hours) and, for the same workload, a device count and a
  wall-clock time: GPU-time = devices × time;
- a rate per day and a time per item for the same hardware: seconds per item = 86,400 / items
  per day.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from analysis.audit.registry import Result, combined_tolerance, judge_bound
from analysis.audit.rules.arithmetic import TIME_UNITS, ArithmeticRule, judge_ratio
from analysis.audit.rules.base import SCALE, Candidate, Claim, Ledger

PER_ITEM_S = {"ms": 1e-3, "s": 1.0, "min": 60.0}


def _hours(c: Claim) -> float:
    assert c.value is not None
    return c.value * TIME_UNITS[c.unit]


def _same_run(a: Claim, b: Claim) -> bool:
    wa, wb = a.workload.lower(), b.workload.lower()
    return bool(wa) and (wa.startswith(wb) or wb.startswith(wa))


class ConversionRule(ArithmeticRule):
    name = "conversion"
    title = "Unit and rate conversions"
    kind = "unit"
    covers = frozenset({"unit", "gpu_time", "ratio"})
    question = ("Do figures that differ by a unit or a rate (GPU-days and GPU-hours, devices x time, per day and "
                "per item) agree?")
    convertible = True

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        yield from super().candidates(ledger)
        for claims in ledger.by_paper.values():
            for g in claims:
                if not (g.metric in ("gpu_days", "gpu_hours") and g.single):
                    continue
                counts = [n for n in claims if n.metric == "gpu_count" and n.single and _same_run(n, g)]
                times = [t for t in claims if t.metric in ("other", "latency") and t.unit in TIME_UNITS
                         and t.single and not t.unit.startswith("GPU") and _same_run(t, g)]
                if len(counts) == 1 and len(times) == 1:
                    n, t = counts[0], times[0]
                    yield Candidate((g.claim_id, n.claim_id, t.claim_id), g.citekey,
                                    f"{g.shown} against {n.shown} x {t.shown}", partial(device_time, g, n, t))
            for p in claims:
                if p.metric == "throughput" and p.unit in SCALE and p.single and "day" in p.words():
                    for item in claims:
                        if item.unit in PER_ITEM_S and item.single and item.metric == "latency" \
                                and item.hardware == p.hardware:
                            yield Candidate((item.claim_id, p.claim_id), p.citekey,
                                            f"{item.shown} per item against {p.shown} a day",
                                            partial(per_item, item, p), pair=True)

    def recompute(self, r: Claim, a: Claim, b: Claim) -> Result | None:
        return judge_ratio(r, a, b, _hours(a), _hours(b),
                           f"; in hours {_hours(a):g} and {_hours(b):g}")


def device_time(g: Claim, n: Claim, t: Claim) -> Result:
    assert g.value is not None and n.value is not None and t.value is not None
    hours = n.value * _hours(t)
    rec = hours / TIME_UNITS[g.unit]
    tol = combined_tolerance(g.tolerance(), n.tolerance(), t.tolerance())
    # 'in under 5 days' caps the GPU-time; 'over 5 days' floors it
    rel = "≤" if t.qualifier in ("at most", "up to") else ("≥" if t.qualifier in ("over", "at least") else "≈")
    return Result(g.value, rec, g.unit, tol, judge_bound(g.value, rec, rel, tol),
                  f"{n.value:g} devices x {t.shown} = {hours:,.4g} device-hours = {rec:,.4g} {g.unit}", relation=rel)


def per_item(item: Claim, p: Claim) -> Result:
    assert item.value is not None and p.value is not None
    per_day = p.value * SCALE[p.unit]
    seconds = 86400 / per_day
    rec = seconds / PER_ITEM_S[item.unit]
    tol = combined_tolerance(item.tolerance(), p.tolerance())
    rel = "≤" if p.qualifier in ("over", "at least") else "≈"
    return Result(item.value, rec, item.unit, tol, judge_bound(item.value, rec, rel, tol),
                  f"86,400 s / {per_day:,.0f} = {rec:.3g} {item.unit} per item", relation=rel)
