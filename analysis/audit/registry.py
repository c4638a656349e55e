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

Severity. An ``inconsistent`` verdict carries a severity (:func:`severity`). Let ``off`` be how
far the reported value misses: |recomputed/reported − 1| for ``≈``, reported/bound − 1 for ``≤``
and 1 − reported/bound for ``≥``. The inconsistency is

- ``minor`` when ``off`` is at most twice the check's tolerance, or below 10 %: within about one
  rounding step of the printed figure, or a few per cent, which does not change what the abstract says;
- ``major`` otherwise (a material disagreement).

An ``implausible`` verdict is always ``major``; every other verdict has no severity.

Conditions. A ``plausible only under an assumption`` verdict also names the kind of assumption,
one of :data:`CONDITIONS` (unstated baseline, offload or tiering, price assumption, ...), so
that a reader can scan them; the sentence in ``assumption`` says what exactly must hold.

Two kinds of check share this registry's :class:`Result`. Hand-written checks are functions
decorated with :func:`check` in the module of their theme (``analysis/audit/<theme>.py``).
Generated checks come from the rules of :mod:`analysis.audit.rules`, which select the ledger's
claims by their types and recompute them with the same models; their ids are
``rule-<rule>:<claim id>`` (a second claim id follows for checks of a pair). A rule never judges
a claim that a hand-written check of the same question already reads (see
:mod:`analysis.audit.rules.base`). :mod:`analysis.audit.run` runs both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from analysis.data.paths import DataError

VERDICTS = ["consistent", "inconsistent", "plausible only under an assumption", "implausible", "not checkable"]
KINDS = ["utilization", "aggregate", "gpu_time", "ratio", "unit", "cost_rate", "energy", "compute", "memory",
         "amdahl", "order"]
RELATIONS = ["≈", "≤", "≥"]
PLAUSIBLE = "plausible only under an assumption"
SEVERITIES = ["minor", "major"]
# the kinds of assumption a 'plausible only under an assumption' verdict rests on
CONDITIONS = [
    "unstated baseline",  # a figure is measured against a baseline the abstract does not name
    "different baselines",  # two figures set side by side are measured against different baselines
    "offload or tiering",  # the model fits only with CPU, NVMe or off-package memory behind the device's
    "price assumption",  # a dollar figure holds only at a particular price per GPU-hour
    "unstated hardware or precision",  # the device, its variant or the number format is not stated
    "unstated device count",  # the number of devices is not stated
    "different runs or versions",  # two figures come from different measurements or configurations
    "reading of the abstract",  # a figure holds under one reading of its wording (rounding, order of magnitude)
    "model of the workload",  # the workload behaves as the recomputation models it (bandwidth-bound, ...)
    "unstated input",  # another input the abstract does not give (a cost, a model size) must lie in a range
]


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
    condition: str = ""  # the kind of assumption (one of CONDITIONS) a 'plausible' verdict rests on
    # intermediate values the check computed that the book quotes: glue name -> (value, quantity, unit);
    # the claims-audit notebook glues them, so a chapter's number is the check's own, never recomputed
    details: dict[str, tuple[float, str, str]] = field(default_factory=dict)


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


def miss(reported: float, recomputed: float, relation: str) -> float:
    """How far `reported` misses `recomputed` under `relation`, as a fraction (0 when it holds)."""
    if relation == "≈":
        return abs(recomputed / reported - 1) if reported else (0.0 if recomputed == 0 else float("inf"))
    if relation == "≤":
        return max(0.0, reported / recomputed - 1) if recomputed else float("inf")
    if relation == "≥":
        return max(0.0, 1 - reported / recomputed) if recomputed else 0.0
    raise ValueError(f"unknown relation {relation!r}")


MINOR_FACTOR = 2.0  # an inconsistency within twice the tolerance is minor ...
MINOR_MISS = 0.10  # ... and so is one below 10 %


def severity(verdict: str, reported: float | None, recomputed: float | None, relation: str,
             tolerance: float) -> str:
    """'minor' or 'major' for an inconsistency (thresholds in the module docstring), 'major' for an
    implausible figure, '' for every other verdict."""
    if verdict == "implausible":
        return "major"
    if verdict != "inconsistent":
        return ""
    if reported is None or recomputed is None or reported != reported or recomputed != recomputed:
        return "major"
    off = miss(float(reported), float(recomputed), relation)
    return "minor" if off <= MINOR_FACTOR * tolerance + 1e-12 or off < MINOR_MISS else "major"
