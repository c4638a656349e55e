"""The claims audit: a registry of recomputations of the numbers the papers report.

Each check names the claims it uses (ids of data/claims.csv), the extra inputs it needs
(hardware peaks, prices) with their sources, and a formula that calls the cost models.
It returns a :class:`Result` with the reported and recomputed values, the tolerance that
the abstract's rounding allows, and a verdict:

- ``consistent``: the recomputation agrees within the tolerance;
- ``inconsistent``: it does not;
- ``plausible only under an assumption``: it agrees only if an unstated assumption holds (named);
- ``implausible``: physically impossible or beyond the hardware's peak;
- ``not checkable``: an input is missing (the reason is given); never a silent pass.

Tolerances. A number printed in an abstract stands for an interval: "52%" for 51.5-52.5%.
:func:`rounding_tolerance` gives that half-unit of the last printed decimal as a fraction of
the value. Where an abstract marks a number as approximate ("~20", "nearly $300,000",
"close to 1.2") or gives a round figure, :func:`significant_tolerance` reads trailing zeros
of an integer as not significant (300 → ±50). When a recomputation combines several
rounded numbers, their relative tolerances add (first-order propagation for products and
quotients, :func:`combined_tolerance`). Each check says which rule it uses.

Bounds. A claim such as "over 25 petaflops" or "requires at least four GPUs" is a bound,
not a value. :attr:`Result.relation` says how the reported value must relate to the
recomputed one: ``≈`` (equal within the tolerance), ``≤`` (the reported value must not
exceed the recomputed bound, e.g. a throughput below the datasheet peak) or ``≥`` (the
reported value must reach the recomputed bound, e.g. enough GPUs to hold the weights).

Add a check by writing a function decorated with :func:`check` in the module of its theme
(``analysis/audit/<theme>.py``); :mod:`analysis.audit.run` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from analysis.data.paths import DataError

VERDICTS = ["consistent", "inconsistent", "plausible only under an assumption", "implausible", "not checkable"]
KINDS = ["utilization", "aggregate", "gpu_time", "ratio", "unit", "cost_rate", "energy", "compute", "memory"]
RELATIONS = ["≈", "≤", "≥"]
PLAUSIBLE = "plausible only under an assumption"


@dataclass
class Result:
    reported: float | None
    recomputed: float | None
    unit: str
    tolerance: float  # relative tolerance the abstract's rounding allows
    verdict: str
    formula: str  # the recomputation, shown with its numbers
    assumption: str = ""  # the assumption a "plausible only under an assumption" verdict needs
    inputs: str = ""  # the extra inputs and their sources
    explanation: str = ""
    relation: str = "≈"  # how `reported` must relate to `recomputed` (see the module docstring)


@dataclass(frozen=True)
class Check:
    check_id: str
    citekey: str
    claim_ids: tuple[str, ...]
    kind: str
    description: str
    fn: Callable[[Claims], Result] = field(compare=False)


REGISTRY: dict[str, Check] = {}


def check(check_id: str, citekey: str, claim_ids: list[str], kind: str, description: str
          ) -> Callable[[Callable[[Claims], Result]], Callable[[Claims], Result]]:
    """Register a recomputation."""
    if kind not in KINDS:
        raise ValueError(f"check {check_id}: unknown kind {kind!r}")

    def wrap(fn: Callable[[Claims], Result]) -> Callable[[Claims], Result]:
        if check_id in REGISTRY:
            raise ValueError(f"duplicate check id {check_id}")
        REGISTRY[check_id] = Check(check_id, citekey, tuple(claim_ids), kind, description, fn)
        return fn

    return wrap


class Claims:
    """Look-up of claim values by claim id."""

    def __init__(self, df: pd.DataFrame):
        self.df = df.set_index("claim_id", drop=False)

    def row(self, claim_id: str) -> pd.Series:
        if claim_id not in self.df.index:
            raise DataError(f"data/claims.csv: no claim {claim_id!r}")
        r = self.df.loc[claim_id]
        if not isinstance(r, pd.Series):
            raise DataError(f"data/claims.csv: claim id {claim_id!r} is not unique")
        return r

    def value(self, claim_id: str) -> float:
        r = self.row(claim_id)
        if pd.isna(r["value"]):
            raise DataError(f"data/claims.csv: claim {claim_id} has a range, not a single value")
        return float(r["value"])

    def range(self, claim_id: str) -> tuple[float, float]:
        r = self.row(claim_id)
        if pd.notna(r["value"]):
            return float(r["value"]), float(r["value"])
        return float(r["low"]), float(r["high"])


def rounding_tolerance(value: float) -> float:
    """Relative half-unit of the last significant digit as printed, e.g. 52 → 0.5/52, 1.2 → 0.05/1.2."""
    text = f"{value:g}"
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** (-decimals) / abs(value) if value else 0.0


def significant_tolerance(value: float) -> float:
    """Like :func:`rounding_tolerance`, but trailing zeros of an integer are not significant.

    For round or approximate figures: 300 → 50/300, 90 → 5/90, 1000 → 500/1000, 2.5 → 0.05/2.5.
    """
    if not value:
        return 0.0
    if float(value).is_integer():
        n = abs(int(value))
        unit = 1
        while n % 10 == 0:
            n //= 10
            unit *= 10
        return 0.5 * unit / abs(value)
    return rounding_tolerance(value)


def combined_tolerance(*tolerances: float) -> float:
    """Relative tolerance of a product or quotient of rounded numbers: the sum (first order)."""
    return float(sum(tolerances))


def judge(reported: float, recomputed: float, tolerance: float) -> str:
    """consistent when |recomputed/reported − 1| ≤ tolerance, else inconsistent."""
    if reported == 0:
        return "consistent" if recomputed == 0 else "inconsistent"
    return "consistent" if abs(recomputed / reported - 1) <= tolerance + 1e-12 else "inconsistent"


def judge_bound(reported: float, bound: float, relation: str, tolerance: float) -> str:
    """consistent when `reported relation bound` holds within the tolerance, else inconsistent.

    ``≤``: reported ≤ bound·(1 + tolerance); ``≥``: reported ≥ bound·(1 − tolerance).
    """
    if relation == "≤":
        return "consistent" if reported <= bound * (1 + tolerance) + 1e-12 else "inconsistent"
    if relation == "≥":
        return "consistent" if reported >= bound * (1 - tolerance) - 1e-12 else "inconsistent"
    if relation == "≈":
        return judge(reported, bound, tolerance)
    raise ValueError(f"unknown relation {relation!r}")


def x_fold(reported: float, numerator: float, denominator: float, tol: float, *, fmt: str = ".2f",
           explanation: str = "") -> Result:
    """A stated 'N-fold' claim against the ratio of two stated numbers."""
    ratio = numerator / denominator
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"{numerator:g} / {denominator:g} = {ratio:{fmt}}", explanation=explanation)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"
