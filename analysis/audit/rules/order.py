"""Rule ``order``: an average or a median cannot exceed the maximum of the same measurements.

Applies to pairs of claims of one paper with the same metric, unit, baseline and hardware, whose
workloads are the same (or one extends the other, as "KernelBench CUDA kernels (CUDA-L1)" and
"..., peak"): one is a maximum (qualifier "up to", or notes naming a maximum or peak), the other a
typical value (qualifier "average", or notes naming a mean, median or geometric mean). The
typical value must not exceed the maximum beyond the rounding of both (checked against the smallest
such maximum, the tightest bound).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from analysis.audit.registry import Result, combined_tolerance, judge_bound
from analysis.audit.rules.base import Candidate, Claim, Ledger, Rule

TYPICAL = re.compile(r"\b(?:median|mean|average|geomean|geometric mean)\b", re.I)
MAXIMUM = re.compile(r"\b(?:max|maximum|peak)\b", re.I)


def is_maximum(c: Claim) -> bool:
    return c.qualifier == "up to" or (c.qualifier == "exact" and bool(MAXIMUM.search(c.notes)))


def is_typical(c: Claim) -> bool:
    return c.qualifier == "average" or (c.qualifier == "exact" and bool(TYPICAL.search(c.notes))
                                        and not MAXIMUM.search(c.notes))


def same_measurements(a: Claim, b: Claim) -> bool:
    wa, wb = a.workload.lower(), b.workload.lower()
    return (a.metric == b.metric and a.unit == b.unit and a.baseline.lower() == b.baseline.lower()
            and a.hardware == b.hardware and bool(wa) and (wa.startswith(wb) or wb.startswith(wa)))


class OrderRule(Rule):
    name = "order"
    title = "Average within the maximum"
    kind = "order"
    covers = frozenset({"order"})
    question = "Is a stated average or median at most the stated maximum of the same measurements?"

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        for claims in ledger.by_paper.values():
            typical = [c for c in claims if c.single and is_typical(c)]
            maxima = [c for c in claims if c.single and is_maximum(c)]
            for t in typical:
                same = [m for m in maxima if m.claim_id != t.claim_id and same_measurements(t, m)]
                if same:  # the tightest bound: the smallest maximum
                    m = min(same, key=lambda m: m.upper)
                    yield Candidate((t.claim_id, m.claim_id), t.citekey,
                                    f"typical {t.shown} against the maximum {m.shown} ({t.workload})",
                                    partial(order, t, m), pair=True)


def order(t: Claim, m: Claim) -> Result:
    assert t.value is not None and m.value is not None
    tol = combined_tolerance(t.tolerance(), m.tolerance())
    verdict = judge_bound(t.value, m.value, "≤", tol)
    return Result(t.value, m.value, t.unit, tol, verdict, f"{t.value:g} <= {m.value:g} {t.unit}", relation="≤",
                  explanation=("The typical value lies below the maximum, as it must." if verdict == "consistent"
                               else "A typical value above the maximum of the same measurements is impossible; "
                                    "the two figures cannot describe the same set."))
