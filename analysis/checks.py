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

Add a check by writing a function decorated with :func:`check`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from analysis import claims as claims_data
from analysis import hardware, models
from analysis.paths import DataError

VERDICTS = ["consistent", "inconsistent", "plausible only under an assumption", "implausible", "not checkable"]
KINDS = ["utilization", "aggregate", "gpu_time", "ratio", "unit", "cost_rate", "energy", "compute", "memory"]


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
        r: pd.Series = self.df.loc[claim_id]
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


def judge(reported: float, recomputed: float, tolerance: float) -> str:
    """consistent when |recomputed/reported − 1| ≤ tolerance, else inconsistent."""
    if reported == 0:
        return "consistent" if recomputed == 0 else "inconsistent"
    return "consistent" if abs(recomputed / reported - 1) <= tolerance + 1e-12 else "inconsistent"


def peak_input(hw: str, precision: str) -> tuple[float, str]:
    """A dense peak and a sentence naming its source."""
    peak = hardware.peak_tflops(hw, precision)
    return peak, f"{hw} dense {precision.upper()} peak {peak:g} TFLOP/s ({hardware.spec(hw)['source']})"


# --- checks ------------------------------------------------------------------------------

@check("fa3-fp16-utilization", "shah2024flashattention3", ["shah2024flashattention3-3", "shah2024flashattention3-4"],
       "utilization", "FlashAttention-3: 740 TFLOP/s FP16 stated as 75% utilisation of an H100")
def _fa3_util(c: Claims) -> Result:
    achieved = c.value("shah2024flashattention3-3")
    reported = c.value("shah2024flashattention3-4") / 100
    peak, src = peak_input("H100-SXM", "fp16")
    recomputed = models.mfu(achieved, peak)
    tol = rounding_tolerance(c.value("shah2024flashattention3-4"))
    return Result(reported * 100, recomputed * 100, "%", tol, judge(reported, recomputed, tol),
                  f"{achieved:g} / {peak:g} = {recomputed:.3f}", inputs=src)


@check("pythia-gpu-days", "khandelwal2024100k",
       ["khandelwal2024100k-2", "khandelwal2024100k-3", "khandelwal2024100k-4", "khandelwal2024100k-5",
        "khandelwal2024100k-6"],
       "gpu_time", "Pythia-1B replication: 64 GPUs × 3 days against 4 GPUs × 18 days, stated as 3× fewer GPU-days")
def _pythia(c: Claims) -> Result:
    orig = c.value("khandelwal2024100k-2") * c.value("khandelwal2024100k-3")
    ours = c.value("khandelwal2024100k-5") * c.value("khandelwal2024100k-6")
    reported = c.value("khandelwal2024100k-4")
    ratio = orig / ours
    tol = rounding_tolerance(reported)  # "3x" allows 2.5–3.5
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"({orig:g} GPU-days) / ({ours:g} GPU-days) = {ratio:.2f}",
                  explanation="The ratio rounds to 3 at one significant figure.")


# --- running -------------------------------------------------------------------------------

def run_all() -> pd.DataFrame:
    """Run every registered check; a missing input gives 'not checkable' with the reason."""
    c = Claims(claims_data.load())
    rows = []
    for chk in REGISTRY.values():
        try:
            r = chk.fn(c)
        except (DataError, KeyError, models.ModelError) as exc:
            r = Result(None, None, "", 0.0, "not checkable", "", explanation=f"missing input: {exc}")
        if r.verdict not in VERDICTS:
            raise ValueError(f"check {chk.check_id}: unknown verdict {r.verdict!r}")
        rows.append({
            "check_id": chk.check_id, "citekey": chk.citekey, "claim_ids": ";".join(chk.claim_ids),
            "kind": chk.kind, "description": chk.description, "reported": r.reported,
            "recomputed": r.recomputed, "unit": r.unit, "tolerance": r.tolerance, "verdict": r.verdict,
            "formula": r.formula, "assumption": r.assumption, "inputs": r.inputs, "explanation": r.explanation,
        })
    return pd.DataFrame(rows)


def verdicts_by_citekey(results: pd.DataFrame | None = None) -> dict[str, str]:
    """For the chapter paper tables: each paper's check verdicts, joined."""
    df = run_all() if results is None else results
    out: dict[str, str] = {}
    for key, g in df.groupby("citekey"):
        out[str(key)] = "; ".join(f"{v} ({i})" for i, v in zip(g["check_id"], g["verdict"], strict=True))
    return out
