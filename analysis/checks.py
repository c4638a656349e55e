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

Add a check by writing a function decorated with :func:`check`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import pandas as pd
import pandera.pandas as pa

from analysis import assumptions, hardware, models
from analysis import claims as claims_data
from analysis.paths import DataError
from analysis.tables import read_csv

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


def peak_input(hw: str, precision: str) -> tuple[float, str]:
    """A dense peak and a sentence naming its source."""
    peak = hardware.peak_tflops(hw, precision)
    return peak, f"{hw} dense {precision.upper()} peak {peak:g} TFLOP/s ({hardware.spec(hw)['source']})"


def memory_input(hw: str) -> tuple[float, str]:
    """Memory per accelerator in GB and a sentence naming its source."""
    gb = hardware.memory_gb(hw)
    return gb, f"{hw} memory {gb:g} GB (data/hardware.csv: {hardware.spec(hw)['source']})"


def price_input(name: str) -> tuple[float, float, float, str]:
    """A price assumption: default, low, high and a sentence naming its source."""
    e = assumptions.entry(name)
    value = float(e["value"])
    low = value if pd.isna(e["low"]) else float(e["low"])
    high = value if pd.isna(e["high"]) else float(e["high"])
    return value, low, high, f"{name} = ${value:g}/GPU-hour (range ${low:g}-${high:g}; {e['source']})"


# --- published constants used by the checks (data/claims-constants.csv) --------------------

CONSTANTS_SCHEMA = pa.DataFrameSchema(
    {
        "name": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z0-9_]+$")),
        "value": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "unit": pa.Column(str),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
        "note": pa.Column(str, nullable=True),
    },
    strict=True,
)


@lru_cache(maxsize=1)
def _constants() -> pd.DataFrame:
    return read_csv("claims-constants.csv", CONSTANTS_SCHEMA).set_index("name", drop=False)


def constant(name: str) -> tuple[float, str]:
    """A published constant (model configuration, system size) and its source."""
    df = _constants()
    if name not in df.index:
        raise DataError(f"data/claims-constants.csv: no constant {name!r}")
    row = df.loc[name].to_dict()
    value = float(row["value"])
    return value, f"{name} = {value:g} {row['unit']} ({row['source']})"


def _describe_constants() -> str:
    return f"{len(_constants())} published constants for the claims audit"


DATA_FILES = {"claims-constants.csv": _describe_constants}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


# --- utilisation against the datasheet peak -------------------------------------------------

@check("fa3-fp16-utilization", "shah2024flashattention3", ["shah2024flashattention3-3", "shah2024flashattention3-4"],
       "utilization", "FlashAttention-3: 740 TFLOP/s FP16 stated as 75% utilisation of an H100")
def _fa3_util(c: Claims) -> Result:
    achieved = c.value("shah2024flashattention3-3")
    reported = c.value("shah2024flashattention3-4")
    peak, src = peak_input("H100-SXM", "fp16")
    recomputed = models.mfu(achieved, peak) * 100
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(achieved))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{achieved:g} / {peak:g} = {recomputed / 100:.3f}", inputs=src,
                  explanation="Against the dense FP16 peak of the H100 SXM5; the sparse peak would halve it.")


@check("fa3-fp8-peak", "shah2024flashattention3", ["shah2024flashattention3-5"], "utilization",
       "FlashAttention-3: close to 1.2 PFLOP/s in FP8 against the H100's dense FP8 peak")
def _fa3_fp8(c: Claims) -> Result:
    achieved = c.value("shah2024flashattention3-5") * 1000  # PFLOP/s -> TFLOP/s
    peak, src = peak_input("H100-SXM", "fp8")
    util = models.mfu(achieved, peak)
    tol = significant_tolerance(c.value("shah2024flashattention3-5"))
    verdict = judge_bound(achieved, peak, "≤", 0.0)
    if verdict != "consistent":
        verdict = "implausible"
    return Result(achieved, peak, "TFLOP/s", tol, verdict,
                  f"{achieved:g} / {peak:g} = {util:.3f} of the dense FP8 peak", inputs=src, relation="≤",
                  explanation=f"{_pct(util)} of the dense FP8 peak: below it, so physically possible. "
                              "The FP16 run reaches 75%; FP8 reaches a lower fraction of a twice-higher peak.")


@check("fa3-speedup-vs-fa2", "shah2024flashattention3",
       ["shah2024flashattention3-1", "shah2024flashattention3-2", "shah2024flashattention3-4"], "ratio",
       "FlashAttention-3: 1.5-2.0x speedup over FlashAttention-2 against the utilisations 75% and 35%")
def _fa3_vs_fa2(c: Claims) -> Result:
    fa2 = c.value("shah2024flashattention3-1")
    fa3 = c.value("shah2024flashattention3-4")
    low, high = c.range("shah2024flashattention3-2")
    peak, src = peak_input("H100-SXM", "fp16")
    # the same peak cancels: speedup = (fa3 * peak) / (fa2 * peak)
    ratio = models.mfu(fa3 * peak / 100, peak) / models.mfu(fa2 * peak / 100, peak)
    # the abstract prints "2.0x": half a unit of the first decimal, 0.05 / 2.0
    tol = combined_tolerance(0.05 / high, rounding_tolerance(fa3), rounding_tolerance(fa2))
    ok = judge(high, ratio, tol) == "consistent" or low <= ratio <= high
    return Result(high, ratio, "x", tol, "consistent" if ok else PLAUSIBLE,
                  f"{fa3:g}% / {fa2:g}% = {ratio:.2f} (stated range {low:g}-{high:g}x)", inputs=src,
                  assumption="" if ok else "the 35% of FlashAttention-2 was measured in other settings (head "
                  "dimension, sequence length, forward vs backward) than the 740 TFLOP/s of FlashAttention-3",
                  explanation="The best-case utilisations imply a 2.14x ratio, above the stated 1.5-2.0x; the "
                              "two utilisations cannot both describe the same configuration.")


@check("megatron-aggregate", "narayanan2021efficient",
       ["narayanan2021efficient-3", "narayanan2021efficient-4", "narayanan2021efficient-5"], "aggregate",
       "Megatron-LM: 502 PFLOP/s over 3072 GPUs stated as 52% of the per-GPU peak")
def _megatron(c: Claims) -> Result:
    agg = c.value("narayanan2021efficient-3")
    n = int(c.value("narayanan2021efficient-4"))
    reported = c.value("narayanan2021efficient-5")
    peak, src = peak_input("A100-80GB", "bf16")
    recomputed = models.mfu_from_aggregate(agg, n, peak) * 100
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(agg))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{agg:g}e3 / {n} = {agg * 1e3 / n:.1f} TFLOP/s per GPU; / {peak:g} = {recomputed / 100:.3f}",
                  inputs=src + "; GPU type from the paper's evaluation section (80-GB A100 GPUs on Selene), "
                               "not stated in the abstract",
                  explanation="The abstract says only 'GPUs'. On a V100 (125 TFLOP/s) the same per-GPU rate "
                              "would exceed the peak, so the figure itself implies an Ampere-class GPU.")


@check("zero-infinity-aggregate", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-9", "rajbhandari2021zeroinfinity-10", "rajbhandari2021zeroinfinity-11"],
       "aggregate", "ZeRO-Infinity: over 25 PFLOP/s on 512 V100 GPUs stated as 40% of peak")
def _zero_inf(c: Claims) -> Result:
    agg = c.value("rajbhandari2021zeroinfinity-9")
    n = int(c.value("rajbhandari2021zeroinfinity-10"))
    share = c.value("rajbhandari2021zeroinfinity-11") / 100
    peak, src = peak_input("V100", "fp16")
    implied = share * peak * n / 1e3  # PFLOP/s that 40% of the peak gives
    util_from_agg = models.mfu_from_aggregate(agg, n, peak)
    tol = rounding_tolerance(c.value("rajbhandari2021zeroinfinity-11"))
    return Result(agg, implied, "PFLOP/s", tol, judge_bound(agg, implied, "≤", tol),
                  f"{share:g} x {peak:g} x {n} = {implied:.1f} PFLOP/s; {agg:g}e3 / {n} / {peak:g} = "
                  f"{util_from_agg:.3f}", inputs=src, relation="≤",
                  explanation="'Over 25 petaflops' is a lower bound; 40% of the aggregate V100 peak is 25.6 "
                              "PFLOP/s, which satisfies it (25 PFLOP/s alone would be 39.1%).")


@check("fuyou-utilization", "liao2024adding", ["liao2024adding-5"], "utilization",
       "Fuyou: 156 TFLOPS when training GPT-3 13B on one RTX 4090")
def _fuyou(c: Claims) -> Result:
    achieved = c.value("liao2024adding-5")
    peak, src = peak_input("RTX-4090", "fp16")
    util = models.mfu(achieved, peak)
    tol = rounding_tolerance(achieved)
    if achieved > peak * (1 + tol):
        verdict, assumption = "implausible", ""
    else:
        verdict = PLAUSIBLE
        assumption = ("the TFLOPS count FP16 tensor-core work with FP16 accumulation (dense peak 330.3 TFLOP/s, "
                      "47%) rather than the FP32-accumulate mode of mixed-precision training")
    return Result(achieved, peak, "TFLOP/s", tol, verdict, f"{achieved:g} / {peak:g} = {util:.3f}",
                  assumption=assumption, inputs=src, relation="≤",
                  explanation=f"{_pct(util)} of the dense FP16 (FP32-accumulate) peak of a GeForce RTX 4090, "
                              "while swapping to SSD: far above the 30-55% typical of large training runs.")


@check("fuyou-zero-infinity-utilization", "liao2024adding", ["liao2024adding-6"], "utilization",
       "Fuyou paper: ZeRO-Infinity reaches 45 TFLOPS on the same RTX 4090")
def _fuyou_zero(c: Claims) -> Result:
    achieved = c.value("liao2024adding-6")
    peak, src = peak_input("RTX-4090", "fp16")
    util = models.mfu(achieved, peak)
    tol = rounding_tolerance(achieved)
    return Result(achieved, peak, "TFLOP/s", tol, judge_bound(achieved, peak, "≤", tol),
                  f"{achieved:g} / {peak:g} = {util:.3f}", inputs=src, relation="≤",
                  explanation=f"{_pct(util)} of the dense FP16 peak: below it.")


# --- GPU-time arithmetic ----------------------------------------------------------------------

@check("pythia-gpu-days", "khandelwal2024100k",
       ["khandelwal2024100k-2", "khandelwal2024100k-3", "khandelwal2024100k-4", "khandelwal2024100k-5",
        "khandelwal2024100k-6"],
       "gpu_time", "Pythia-1B replication: 64 GPUs × 3 days against 4 GPUs × 18 days, stated as 3× fewer GPU-days")
def _pythia(c: Claims) -> Result:
    orig = models.gpu_hours(c.value("khandelwal2024100k-2"), c.value("khandelwal2024100k-3")) / 24
    ours = models.gpu_hours(c.value("khandelwal2024100k-5"), c.value("khandelwal2024100k-6")) / 24
    reported = c.value("khandelwal2024100k-4")
    ratio = orig / ours
    tol = rounding_tolerance(reported)  # "3x" allows 2.5–3.5
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"({orig:g} GPU-days) / ({ours:g} GPU-days) = {ratio:.2f}",
                  explanation="The ratio rounds to 3 at one significant figure.")


@check("pythia-budget", "khandelwal2024100k",
       ["khandelwal2024100k-1", "khandelwal2024100k-5", "khandelwal2024100k-6"], "gpu_time",
       "Pythia-1B replication (4 GPUs × 18 days) against the 2,000 GPU-hours spent on all experiments")
def _pythia_budget(c: Claims) -> Result:
    budget = c.value("khandelwal2024100k-1")
    run = models.gpu_hours(c.value("khandelwal2024100k-5"), c.value("khandelwal2024100k-6"))
    tol = rounding_tolerance(budget)
    ok = judge_bound(budget, run, "≥", tol) == "consistent"
    return Result(budget, run, "GPU-hours", tol, PLAUSIBLE if ok else "inconsistent",
                  f"4 x 18 days x 24 h = {run:g} GPU-hours = {run / budget:.0%} of {budget:g}", relation="≥",
                  assumption="the 18-day figure is extrapolated from a partial run on the benchmark, not a "
                             "complete replication (which alone would use 86% of the budget)" if ok else "",
                  explanation="A full replication fits in the stated budget only if it took nearly all of it, "
                              "while the budget also covered 'a range of models and academic GPUs'.")


@check("pixart-time-share", "chen2023pixart", ["chen2023pixart-2", "chen2023pixart-3", "chen2023pixart-4"],
       "gpu_time", "PixArt-α: 675 vs 6,250 A100 GPU-days stated as 10.8% of Stable Diffusion's training time")
def _pixart_share(c: Claims) -> Result:
    ours, sd = c.value("chen2023pixart-3"), c.value("chen2023pixart-4")
    reported = c.value("chen2023pixart-2")
    recomputed = 100 * models.gpu_hours(ours, 1) / models.gpu_hours(sd, 1)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{ours:g} / {sd:g} = {recomputed / 100:.4f}")


@check("hipa-speedup", "zhang2023hipa", ["zhang2023hipa-4", "zhang2023hipa-5", "zhang2023hipa-6"], "gpu_time",
       "HiPA: 108.8 → 3.8 A100 GPU-days stated as a 28.6x training speed-up")
def _hipa(c: Claims) -> Result:
    before, after = c.value("zhang2023hipa-5"), c.value("zhang2023hipa-6")
    reported = c.value("zhang2023hipa-4")
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(before), rounding_tolerance(after))
    return x_fold(reported, before, after, tol,
                  explanation="Tolerance adds the rounding of all three printed numbers (3.8 dominates).")


@check("cod-speedup", "jia2025cod", ["jia2025cod-2", "jia2025cod-3", "jia2025cod-4"], "gpu_time",
       "CoD: ~20 vs ~6,250 A100 GPU-days stated as 300x faster training than Stable Diffusion")
def _cod(c: Claims) -> Result:
    ours, sd = c.value("jia2025cod-3"), c.value("jia2025cod-4")
    reported = c.value("jia2025cod-2")
    tol = combined_tolerance(significant_tolerance(reported), significant_tolerance(ours),
                             significant_tolerance(sd))
    return x_fold(reported, sd, ours, tol, fmt=".1f",
                  explanation="Both GPU-day figures carry '~', so trailing zeros are read as not significant.")


@check("lifelong-reduction", "prabhu2024lifelong",
       ["prabhu2024lifelong-4", "prabhu2024lifelong-5", "prabhu2024lifelong-6"], "unit",
       "Sort & Search: 180 GPU-days down to 5 GPU-hours stated as a 1000x reduction")
def _lifelong(c: Claims) -> Result:
    before_h = models.gpu_hours(1, c.value("prabhu2024lifelong-4"))
    after_h = c.value("prabhu2024lifelong-5")
    reported = c.value("prabhu2024lifelong-6")
    ratio = before_h / after_h
    tol = combined_tolerance(significant_tolerance(reported), rounding_tolerance(after_h))
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"180 GPU-days x 24 = {before_h:g} GPU-hours; / {after_h:g} = {ratio:.0f}",
                  explanation="864x, which '1000x' states to one significant figure (an order of magnitude).")


# --- percentages and x-fold statements from two stated numbers ----------------------------------

@check("hipa-parameter-share", "zhang2023hipa", ["zhang2023hipa-7", "zhang2023hipa-8", "zhang2023hipa-9"], "ratio",
       "HiPA: 7,740 million → 3.3 million trained parameters stated as 0.04%")
def _hipa_params(c: Claims) -> Result:
    full, ours = c.value("zhang2023hipa-8"), c.value("zhang2023hipa-9")
    reported = c.value("zhang2023hipa-7")
    recomputed = 100 * ours / full
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(ours))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{ours:g} / {full:g} = {recomputed / 100:.6f}")


@check("pixart-savings", "chen2023pixart", ["chen2023pixart-5", "chen2023pixart-6", "chen2023pixart-7"], "ratio",
       "PixArt-α: $26,000 vs $320,000 stated as saving nearly $300,000")
def _pixart_savings(c: Claims) -> Result:
    reported = c.value("chen2023pixart-5")
    saving = c.value("chen2023pixart-7") - c.value("chen2023pixart-6")
    tol = significant_tolerance(reported)
    verdict = judge(reported, saving, tol)
    return Result(reported, saving, "USD", tol, verdict, f"320,000 - 26,000 = {saving:,.0f}",
                  explanation="'Nearly $300,000' is a round figure (one significant figure); $294,000 is just "
                              "below it, as 'nearly' says.")


@check("pixart-cost-vs-time", "chen2023pixart",
       ["chen2023pixart-3", "chen2023pixart-4", "chen2023pixart-6", "chen2023pixart-7"], "cost_rate",
       "PixArt-α: the two dollar figures against the two GPU-day figures at one A100 price")
def _pixart_cost_ratio(c: Claims) -> Result:
    ours_h = models.gpu_hours(1, c.value("chen2023pixart-3"))
    sd_h = models.gpu_hours(1, c.value("chen2023pixart-4"))
    ours_usd, sd_usd = c.value("chen2023pixart-6"), c.value("chen2023pixart-7")
    sd_rate = sd_usd / sd_h
    recomputed = models.rental_cost_usd(ours_h, sd_rate)
    tol = combined_tolerance(rounding_tolerance(ours_usd), rounding_tolerance(sd_usd))
    return Result(ours_usd, recomputed, "USD", tol, judge(ours_usd, recomputed, tol),
                  f"SD: {sd_usd:,.0f} / {sd_h:,.0f} GPU-h = ${sd_rate:.3f}/GPU-h; PixArt at that price: "
                  f"{ours_h:,.0f} x {sd_rate:.3f} = {recomputed:,.0f}",
                  explanation=f"The dollar figures imply ${ours_usd / ours_h:.2f} per A100-hour for PixArt-α and "
                              f"${sd_rate:.2f} for Stable Diffusion: the cost ratio "
                              f"({ours_usd / sd_usd:.1%}) is not the GPU-time ratio ({ours_h / sd_h:.1%}).")


@check("falk-mfu-reduction", "falk2025from", ["falk2025from-5", "falk2025from-6", "falk2025from-7"], "ratio",
       "Material footprint of GPT-4: MFU from 20% to 60% stated to lower GPU needs by 67%")
def _falk_mfu(c: Claims) -> Result:
    lo, hi = c.value("falk2025from-5") / 100, c.value("falk2025from-6") / 100
    reported = c.value("falk2025from-7")
    flops, peak = 1e25, hardware.peak_tflops("A100-40GB", "bf16")  # any budget: it cancels
    recomputed = 100 * (1 - models.training_days(flops, 1, peak, hi) / models.training_days(flops, 1, peak, lo))
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"1 - {lo:g}/{hi:g} = {recomputed / 100:.4f}",
                  explanation="GPUs needed for a fixed budget and duration scale as 1/MFU.")


@check("falk-combined-reduction", "falk2025from",
       ["falk2025from-3", "falk2025from-5", "falk2025from-6", "falk2025from-8", "falk2025from-9"], "ratio",
       "Material footprint of GPT-4: MFU 20→60% and lifespan 1→3 years together stated to cut GPU needs by up to 93%")
def _falk_both(c: Claims) -> Result:
    lo, hi = c.value("falk2025from-5"), c.value("falk2025from-6")
    life_lo, life_hi = c.range("falk2025from-8")
    gpus_lo, gpus_hi = c.range("falk2025from-3")
    reported = c.value("falk2025from-9")
    recomputed = 100 * (1 - (lo / hi) * (life_lo / life_hi))
    span = 100 * (1 - gpus_lo / gpus_hi)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"1 - ({lo:g}/{hi:g}) x ({life_lo:g}/{life_hi:g}) = {recomputed / 100:.3f}; stated span "
                  f"1 - {gpus_lo:,.0f}/{gpus_hi:,.0f} = {span / 100:.3f}",
                  explanation="Two threefold levers give 88.9%, and the abstract's own range of GPU counts "
                              "(1,174-8,800) gives 86.7%. A 93% cut needs a 14-15-fold lever, e.g. a 5-year "
                              "lifespan with 60% MFU (1 - 1/15 = 93.3%), which the abstract does not state.")


@check("zero-infinity-memory-growth", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-2", "rajbhandari2021zeroinfinity-3", "rajbhandari2021zeroinfinity-4"], "ratio",
       "ZeRO-Infinity: GPU memory 16 GB → 80 GB stated as 5x growth")
def _zero_growth(c: Claims) -> Result:
    a, b = c.value("rajbhandari2021zeroinfinity-3"), c.value("rajbhandari2021zeroinfinity-4")
    reported = c.value("rajbhandari2021zeroinfinity-2")
    return x_fold(reported, b, a, rounding_tolerance(reported), fmt="g",
                  explanation="16 GB (V100 16 GB, 2017) to 80 GB (A100 80 GB, 2020).")


@check("avinash-paged-throughput", "avinash2025profiling",
       ["avinash2025profiling-3", "avinash2025profiling-4", "avinash2025profiling-5"], "ratio",
       "LoRA on an RTX 4060: 628 vs 500 tok/s stated as up to 25% more throughput")
def _avinash(c: Claims) -> Result:
    new, base = c.value("avinash2025profiling-4"), c.value("avinash2025profiling-5")
    reported = c.value("avinash2025profiling-3")
    recomputed = 100 * (new / base - 1)
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(new), rounding_tolerance(base))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{new:g} / {base:g} - 1 = {recomputed / 100:.3f}",
                  explanation="628/500 is a 25.6% gain, which rounds to 26%, and exceeds the stated maximum "
                              "('up to 25%'): the percentage looks truncated, or the baseline was not exactly 500.")


@check("pipo-utilization", "liu2025pipo", ["liu2025pipo-1", "liu2025pipo-2", "liu2025pipo-3"], "ratio",
       "PIPO: GPU utilisation from below 40% to over 90% against up to 3.1x throughput")
def _pipo(c: Claims) -> Result:
    before, after = c.value("liu2025pipo-1"), c.value("liu2025pipo-2")
    speedup = c.value("liu2025pipo-3")
    implied_before = after / speedup  # if throughput is proportional to utilisation
    tol = rounding_tolerance(speedup)
    return Result(before, implied_before, "%", tol, judge_bound(before, implied_before, "≥", tol),
                  f"{after:g}% / {speedup:g} = {implied_before:.1f}% baseline utilisation (stated: below "
                  f"{before:g}%); utilisation ratio at least {after:g}/{before:g} = {after / before:.2f}",
                  relation="≥",
                  explanation="If throughput scales with utilisation, 3.1x at 90% implies a 29% baseline, "
                              "inside the stated 'below 40%'.")


@check("onesweep-traffic-ratio", "adinets2022onesweep",
       ["adinets2022onesweep-1", "adinets2022onesweep-2", "adinets2022onesweep-6"], "ratio",
       "Onesweep: ~2n vs ~3n global memory operations per pass against the ~1.5x speedup over CUB")
def _onesweep_ratio(c: Claims) -> Result:
    ours, cub = c.value("adinets2022onesweep-1"), c.value("adinets2022onesweep-2")
    reported = c.value("adinets2022onesweep-6")
    ratio = cub / ours
    tol = significant_tolerance(reported)
    verdict = judge(reported, ratio, tol)
    return Result(reported, ratio, "x", tol, PLAUSIBLE if verdict == "consistent" else verdict,
                  f"{cub:g}n / {ours:g}n = {ratio:g}",
                  assumption="both sorts are bound by global-memory traffic, so time scales with memory "
                             "operations" if verdict == "consistent" else "",
                  explanation="The measured speedup equals the ratio of memory operations, as a bandwidth-bound "
                              "sort would show.")


@check("sequence-parallel-27x", "li2021sequence", ["li2021sequence-4", "li2021sequence-5"], "ratio",
       "Sequence parallelism: over 114K tokens stated as over 27x longer than sparse-attention works")
def _seqpar(c: Claims) -> Result:
    tokens = c.value("li2021sequence-4") * 1000
    reported = c.value("li2021sequence-5")
    baseline = 4096  # assumed: the usual 4,096-token limit of sparse-attention models
    ratio = tokens / baseline
    tol = rounding_tolerance(reported)
    ok = judge_bound(reported, ratio, "≤", tol) == "consistent"
    return Result(reported, ratio, "x", tol, PLAUSIBLE if ok else "inconsistent",
                  f"{tokens:,.0f} / {baseline} = {ratio:.1f}", relation="≤",
                  assumption="the sparse-attention baseline holds 4,096 tokens on one device" if ok else "",
                  explanation="The abstract does not give the baseline length; 114K / 27 = 4.2K tokens.")


@check("marlin-4x", "frantar2024marlin", ["frantar2024marlin-1", "frantar2024marlin-3"], "ratio",
       "MARLIN: 4-bit weights and the 'maximum (4x)' speedup of memory-bound inference")
def _marlin(c: Claims) -> Result:
    bits = c.value("frantar2024marlin-1")
    reported = c.value("frantar2024marlin-3")
    ratio = models.bytes_per_element("fp16") / (bits / 8)
    tol = rounding_tolerance(reported)
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"16 bits / {bits:g} bits = {ratio:g}",
                  explanation="A memory-bound layer reads 4x fewer weight bytes than in FP16.")


@check("cottier-billion-2027", "cottier2024rising", ["cottier2024rising-1", "cottier2024rising-6"], "ratio",
       "Rising training costs: 2.4x per year stated to reach more than $1 billion by 2027")
def _cottier(c: Claims) -> Result:
    growth = c.value("cottier2024rising-1")
    reported = c.value("cottier2024rising-6") * 1e9
    years = 2027 - 2023
    base_low = 2 * 10e6  # chips and staff "each costing tens of millions": at least $10M each
    projected = base_low * growth**years
    needed = reported / growth**years
    return Result(reported, projected, "USD", rounding_tolerance(growth), PLAUSIBLE,
                  f"{growth:g}^{years} = {growth**years:.1f}; $1B / {growth**years:.1f} = ${needed / 1e6:.0f}M "
                  f"needed in 2023; the stated lower bound $20M x {growth**years:.1f} = ${projected / 1e6:.0f}M",
                  assumption=f"the largest 2023 training run (GPT-4, Gemini) cost at least ${needed / 1e6:.0f}M "
                             "amortised, i.e. more than the two 'tens of millions' items alone guarantee",
                  relation="≥",
                  explanation="Four years of 2.4x growth multiply the cost by 33; the projection holds if the "
                              "2023 frontier cost is above $30M.")


# --- unit conversions ---------------------------------------------------------------------------

@check("caffe-images-per-day", "jia2014caffe", ["jia2014caffe-1", "jia2014caffe-2"], "unit",
       "Caffe: over 40 million images a day stated as about 2.5 ms per image")
def _caffe(c: Claims) -> Result:
    per_day = c.value("jia2014caffe-1") * 1e6
    reported = c.value("jia2014caffe-2")
    ms = 86400 / per_day * 1000
    tol = significant_tolerance(reported)
    verdict = judge_bound(reported, ms, "≤", tol)
    return Result(reported, ms, "ms", tol, verdict,
                  f"86,400 s / {per_day:,.0f} = {ms:.2f} ms per image; 2.5 ms gives "
                  f"{86400 / (reported / 1000) / 1e6:.1f} million a day", relation="≤",
                  explanation="'Over 40 million a day' means at most 2.16 ms per image; 2.5 ms per image gives "
                              "34.6 million. The two figures probably come from different measurements "
                              "(e.g. K40 vs Titan, or with and without data loading).")


@check("nas-conventional-cost", "cai2018proxylessnas",
       ["cai2018proxylessnas-1", "termritthikun2021eeeanet-3", "termritthikun2021eeeanet-4"], "unit",
       "ProxylessNAS's '10^4 GPU hours' for conventional NAS against NASNet and AmoebaNet as cited by EEEA-Net")
def _nas_cost(c: Claims) -> Result:
    reported = c.value("cai2018proxylessnas-1")
    nasnet = models.gpu_hours(1, c.value("termritthikun2021eeeanet-4"))
    amoeba = models.gpu_hours(1, c.value("termritthikun2021eeeanet-3"))
    same_decade = all(math.floor(math.log10(v)) == math.floor(math.log10(reported)) for v in (nasnet, amoeba))
    return Result(reported, nasnet, "GPU-hours", 0.0, PLAUSIBLE if same_decade else "inconsistent",
                  f"NASNet 2,000 GPU-days x 24 = {nasnet:,.0f}; AmoebaNet 3,150 x 24 = {amoeba:,.0f} GPU-hours",
                  assumption="'10^4 GPU hours' is an order of magnitude (tens of thousands), not ten thousand"
                  if same_decade else "",
                  explanation="The two searches EEEA-Net cites cost 4.8-7.6 x 10^4 GPU-hours: the same decade "
                              "as ProxylessNAS's example, five to eight times its literal value.")


# --- cost per GPU-hour implied by a dollar figure ----------------------------------------------

def _cost_rate(reported_usd: float, gpu_hours_: float, price_name: str, what: str) -> Result:
    default, low, high, src = price_input(price_name)
    implied = reported_usd / gpu_hours_
    at_default = models.rental_cost_usd(gpu_hours_, default)
    inside = low <= implied <= high
    return Result(reported_usd, at_default, "USD", 0.0, PLAUSIBLE if inside else "inconsistent",
                  f"{reported_usd:,.0f} / {gpu_hours_:,.0f} GPU-hours = ${implied:.2f}/GPU-hour; at the default "
                  f"${default:g}: {gpu_hours_:,.0f} x {default:g} = {at_default:,.0f}",
                  assumption=f"{what} rented at about ${implied:.2f} per GPU-hour, inside the sourced range "
                             f"${low:g}-${high:g} ({price_name})" if inside else "",
                  inputs=src,
                  explanation=f"The implied price is {'inside' if inside else 'outside'} the range of sourced "
                              "cloud prices; at the on-demand default the figure would be "
                              f"{at_default / reported_usd:.1f}x higher.")


@check("pixart-cost-rate", "chen2023pixart", ["chen2023pixart-3", "chen2023pixart-6"], "cost_rate",
       "PixArt-α: $26,000 for 675 A100 GPU-days")
def _pixart_rate(c: Claims) -> Result:
    return _cost_rate(c.value("chen2023pixart-6"), models.gpu_hours(1, c.value("chen2023pixart-3")),
                      "gpu_hour_usd_a100_40gb", "A100 GPUs")


@check("pixart-sd-cost-rate", "chen2023pixart", ["chen2023pixart-4", "chen2023pixart-7"], "cost_rate",
       "PixArt-α's figure for Stable Diffusion v1.5: $320,000 for 6,250 A100 GPU-days")
def _sd_rate(c: Claims) -> Result:
    return _cost_rate(c.value("chen2023pixart-7"), models.gpu_hours(1, c.value("chen2023pixart-4")),
                      "gpu_hour_usd_a100_40gb", "A100 GPUs")


@check("harmony-cost-rate", "luo2024adaptive", ["luo2024adaptive-3", "luo2024adaptive-4"], "cost_rate",
       "HARMONY: over 35,000 GPU-hours saved stated as $100K+ in cost reduction")
def _harmony(c: Claims) -> Result:
    r = _cost_rate(c.value("luo2024adaptive-4") * 1e3, c.value("luo2024adaptive-3"), "gpu_hour_usd_a100_40gb",
                   "the cluster's GPUs (type not stated)")
    r.explanation += " Both figures are lower bounds, so the price is only indicative."
    return r


# --- energy and CO2 implied by GPU-hours ---------------------------------------------------------

@check("pixart-co2", "chen2023pixart", ["chen2023pixart-3", "chen2023pixart-4", "chen2023pixart-8"], "energy",
       "PixArt-α: 675 vs 6,250 A100 GPU-days stated as a 90% cut in CO2 emissions")
def _pixart_co2(c: Claims) -> Result:
    tdp = hardware.tdp_w("A100-40GB")
    ratio_p = assumptions.get("power_to_tdp_ratio_gpu")
    pue = assumptions.get("pue_non_hyperscaler")
    grid = assumptions.get("grid_kgco2e_per_kwh_world")
    co2 = []
    for cid in ("chen2023pixart-3", "chen2023pixart-4"):
        kwh = models.energy_kwh(models.gpu_hours(1, c.value(cid)), tdp * ratio_p, pue)
        co2.append(models.co2e_tonnes(kwh, grid))
    reported = c.value("chen2023pixart-8")
    recomputed = 100 * (1 - co2[0] / co2[1])
    tol = significant_tolerance(reported)
    ok = judge(reported, recomputed, tol) == "consistent"
    return Result(reported, recomputed, "%", tol, PLAUSIBLE if ok else "inconsistent",
                  f"{co2[0]:.1f} tCO2e vs {co2[1]:.1f} tCO2e: 1 - {co2[0]:.1f}/{co2[1]:.1f} = {recomputed / 100:.3f}",
                  assumption="both models were trained on the same hardware at the same average power, PUE and "
                             "grid carbon intensity, so emissions scale with GPU-days" if ok else "",
                  inputs=f"A100 TDP {tdp:g} W (data/hardware.csv); power_to_tdp_ratio_gpu = {ratio_p:g}; "
                         f"pue_non_hyperscaler = {pue:g}; grid_kgco2e_per_kwh_world = {grid:g} "
                         "(data/assumptions.yml)",
                  explanation="The absolute tonnes depend on the assumptions; their ratio does not. 89.2% is "
                              "'90%' at one significant figure.")


@check("fireflyer-energy", "an2024fireflyer", ["an2024fireflyer-1", "an2024fireflyer-3"], "energy",
       "Fire-Flyer 2: 10,000 PCIe A100 GPUs stated to use 40% less energy than DGX-A100")
def _fireflyer(c: Claims) -> Result:
    reported = c.value("an2024fireflyer-3")
    try:
        pcie = hardware.tdp_w("A100-PCIe")
    except KeyError:  # the check reports 'not checkable' with this reason
        raise DataError("data/hardware.csv has no A100-PCIe row (the PCIe A100's power is needed); the "
                        "DGX-A100 comparison also needs its CPUs, NVSwitches and network") from None
    sxm = hardware.tdp_w("A100-40GB")
    recomputed = 100 * (1 - pcie / sxm)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol), f"1 - {pcie:g}/{sxm:g}")


# --- compute implied by parameters and tokens ------------------------------------------------------

@check("frontier-6nd", "dash2023optimizing", ["dash2023optimizing-1", "dash2023optimizing-2", "dash2023optimizing-3"],
       "compute", "Frontier LLM training: 1T parameters on 20T tokens stated as 120 million exaflops")
def _frontier(c: Claims) -> Result:
    n = c.value("dash2023optimizing-1") * 1e12
    d = c.value("dash2023optimizing-2") * 1e12
    reported = c.value("dash2023optimizing-3")
    recomputed = models.training_flops_6nd(n, d)
    tol = rounding_tolerance(reported / 1e24)  # "120 million exaflops" = 120e24 FLOP
    return Result(reported, recomputed, "FLOP", tol, judge(reported, recomputed, tol),
                  f"6 x {n:.0e} x {d:.0e} = {recomputed:.2e} FLOP = {recomputed / 1e24:g} million EFLOP")


@check("curie-6nd", "rucinski2024efficient", ["rucinski2024efficient-2", "rucinski2024efficient-8"], "compute",
       "Curie-7B: 276 million tokens of language-adaptive pre-training in under five days on a consumer GPU")
def _curie(c: Claims) -> Result:
    tokens = c.value("rucinski2024efficient-2") * 1e6
    days = c.value("rucinski2024efficient-8")
    params = 7e9  # from the model name Curie-7B
    flops = models.training_flops_6nd(params, tokens)
    peak, src = peak_input("RTX-4090", "fp16")
    min_days = models.training_days(flops, 1, peak, 1.0)
    need = min_days / days
    need_3090 = models.training_days(flops, 1, hardware.peak_tflops("RTX-3090", "fp16"), 1.0) / days
    return Result(days, min_days, "days", rounding_tolerance(days), PLAUSIBLE,
                  f"6 x 7e9 x {tokens:.3g} = {flops:.3g} FLOP; at 100% of {peak:g} TFLOP/s: {min_days:.2f} days; "
                  f"under {days:g} days needs MFU >= {need:.0%}", relation="≥",
                  assumption=f"the consumer GPU is an RTX 4090 (not named) running one pass over the tokens at "
                             f"{need:.0%} MFU or more (an RTX 3090 would need "
                             f"{need_3090:.0%})",
                  inputs=src,
                  explanation="6ND is an upper bound here: with LoRA (1.2% of parameters trained) the backward "
                              "pass skips most weight gradients.")


# --- memory ---------------------------------------------------------------------------------------

def _fits(reported_gpus: float, total_gb: float, per_gpu_gb: float, src: str, formula_head: str) -> Result:
    needed = models.gpus_to_hold(total_gb, per_gpu_gb)
    verdict = "consistent" if reported_gpus >= needed else "implausible"
    return Result(reported_gpus, float(needed), "GPUs", 0.0, verdict,
                  f"{formula_head} = {total_gb:g} GB; / {per_gpu_gb:g} GB -> {needed} GPUs (stated "
                  f"{reported_gpus:g}: {reported_gpus * per_gpu_gb:g} GB)", inputs=src, relation="≥",
                  explanation="Weights alone; the remaining memory holds activations and the KV cache.")


@check("glm130b-int4-rtx3090", "zeng2022glm130b", ["zeng2022glm130b-1", "zeng2022glm130b-3"], "memory",
       "GLM-130B: INT4 inference on 4 RTX 3090 (24 GB)")
def _glm_3090(c: Claims) -> Result:
    return _glm_int4_fits(c, "RTX-3090", "zeng2022glm130b-3")


@check("glm130b-int4-rtx2080ti", "zeng2022glm130b", ["zeng2022glm130b-1", "zeng2022glm130b-5"], "memory",
       "GLM-130B: INT4 inference on 8 RTX 2080 Ti (11 GB)")
def _glm_2080(c: Claims) -> Result:
    return _glm_int4_fits(c, "RTX-2080Ti", "zeng2022glm130b-5")


def _glm_int4_fits(c: Claims, hardware_id: str, gpus_claim: str) -> Result:
    """GLM-130B's INT4 weights against the stated number of `hardware_id` GPUs."""
    gb, src = memory_input(hardware_id)
    params = c.value("zeng2022glm130b-1") * 1e9
    w = models.weights_gb(params, "int4")
    return _fits(c.value(gpus_claim), w, gb, src, f"{params:.3g} x {models.bytes_per_element('int4'):g} bytes")


@check("qmoe-bf16-memory", "frantar2023qmoe", ["frantar2023qmoe-1", "frantar2023qmoe-2"], "memory",
       "QMoE: 1.6 trillion parameters stated to need 3.2 TB")
def _qmoe_bf16(c: Claims) -> Result:
    params = c.value("frantar2023qmoe-1") * 1e12
    reported = c.value("frantar2023qmoe-2")
    recomputed = models.weights_gb(params, "bf16") / 1000
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(c.value("frantar2023qmoe-1")))
    return Result(reported, recomputed, "TB", tol, judge(reported, recomputed, tol),
                  f"1.6e12 x 2 bytes = {recomputed:g} TB", explanation="16-bit weights (BF16).")


@check("qmoe-compressed-size", "frantar2023qmoe", ["frantar2023qmoe-1", "frantar2023qmoe-4", "frantar2023qmoe-6"],
       "memory", "QMoE: 0.8 bits per parameter stated as less than 160 GB")
def _qmoe_size(c: Claims) -> Result:
    params = c.value("frantar2023qmoe-1") * 1e12
    bits = c.value("frantar2023qmoe-6")
    reported = c.value("frantar2023qmoe-4")
    recomputed = params * bits / 8 / 1e9
    tol = combined_tolerance(rounding_tolerance(bits), rounding_tolerance(c.value("frantar2023qmoe-1")))
    return Result(reported, recomputed, "GB", tol, judge_bound(recomputed, reported, "≤", tol),
                  f"1.6e12 x {bits:g} / 8 = {recomputed:g} GB", relation="≈",
                  explanation="0.8 bits is rounded (0.75-0.85 gives 150-170 GB), so 'less than 160 GB' fits.")


@check("qmoe-compression-ratio", "frantar2023qmoe", ["frantar2023qmoe-5", "frantar2023qmoe-6"], "ratio",
       "QMoE: 0.8 bits per parameter stated as 20x compression")
def _qmoe_ratio(c: Claims) -> Result:
    bits = c.value("frantar2023qmoe-6")
    reported = c.value("frantar2023qmoe-5")
    ratio = models.bytes_per_element("bf16") * 8 / bits
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(bits))
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol), f"16 bits / {bits:g} bits = {ratio:g}")


@check("qmoe-4xa6000", "frantar2023qmoe", ["frantar2023qmoe-4", "frantar2023qmoe-9"], "memory",
       "QMoE: the compressed 160 GB model on 4 A6000 (48 GB)")
def _qmoe_a6000(c: Claims) -> Result:
    gb, src = memory_input("A6000")
    return _fits(c.value("frantar2023qmoe-9"), c.value("frantar2023qmoe-4"), gb, src, "compressed model")


@check("qmoe-8xrtx3090", "frantar2023qmoe", ["frantar2023qmoe-4", "frantar2023qmoe-10"], "memory",
       "QMoE: the compressed 160 GB model on 8 RTX 3090 (24 GB)")
def _qmoe_3090(c: Claims) -> Result:
    gb, src = memory_input("RTX-3090")
    return _fits(c.value("frantar2023qmoe-10"), c.value("frantar2023qmoe-4"), gb, src, "compressed model")


@check("nemotron-fp8-dgx", "nvidia2024nemotron4", ["nvidia2024nemotron4-1", "nvidia2024nemotron4-3"], "memory",
       "Nemotron-4 340B: sized to fit one DGX H100 (8 GPUs) in FP8")
def _nemotron(c: Claims) -> Result:
    gb, src = memory_input("H100-SXM")
    w = models.weights_gb(c.value("nvidia2024nemotron4-3") * 1e9, "fp8")
    return _fits(c.value("nvidia2024nemotron4-1"), w, gb, src, "340e9 x 1 byte")


@check("kurtail-spinquant-70b", "akhondzadeh2025kurtail", ["akhondzadeh2025kurtail-6"], "memory",
       "KurTail paper: SpinQuant on Llama3-70B needs at least four H100 80GB")
def _kurtail(c: Claims) -> Result:
    gb, src = memory_input("H100-SXM")
    w = models.weights_gb(70e9, "bf16")  # 70B from the model name
    return _fits(c.value("akhondzadeh2025kurtail-6"), w, gb, src, "70e9 x 2 bytes")


@check("zero-infinity-800-v100", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-5", "rajbhandari2021zeroinfinity-6"], "memory",
       "ZeRO-Infinity: 800 V100 GPUs stated as needed just to fit a trillion-parameter model for training")
def _zero_800(c: Claims) -> Result:
    gb, src = memory_input("V100")
    params = c.value("rajbhandari2021zeroinfinity-6") * 1e12
    bpp = models.training_bytes_per_param(zero_stage=0)
    total_gb = params * bpp / 1e9
    needed = models.gpus_to_hold(total_gb, gb)
    reported = c.value("rajbhandari2021zeroinfinity-5")
    ok = reported >= needed
    return Result(reported, float(needed), "GPUs", 0.0, PLAUSIBLE if ok else "implausible",
                  f"1e12 x {bpp:g} bytes = {total_gb:,.0f} GB; / {gb:g} GB -> {needed} GPUs; 800 x {gb:g} GB = "
                  f"{reported * gb / params * 1e9:.1f} bytes per parameter", inputs=src, relation="≥",
                  assumption="about 10 bytes per parameter beyond the 16 of mixed-precision Adam states go to "
                             "activations, buffers and fragmentation" if ok else "",
                  explanation="Model states alone (16 bytes per parameter) fill 500 V100 32 GB.")


@check("zero-infinity-dgx2", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-7", "rajbhandari2021zeroinfinity-8"], "memory",
       "ZeRO-Infinity: fine-tuning a trillion-parameter model on one DGX-2 node")
def _zero_dgx2(c: Claims) -> Result:
    gb, src = memory_input("V100")
    per_node, src2 = constant("dgx2_gpus")
    params = c.value("rajbhandari2021zeroinfinity-7") * 1e12
    total_gb = params * models.training_bytes_per_param(zero_stage=0) / 1e9
    needed_gpus = models.gpus_to_hold(total_gb, gb)
    nodes = needed_gpus / per_node
    return Result(c.value("rajbhandari2021zeroinfinity-8"), nodes, "nodes", 0.0, PLAUSIBLE,
                  f"{total_gb:,.0f} GB of model states / ({per_node:g} x {gb:g} GB) = {nodes:.1f} DGX-2 nodes "
                  f"of GPU memory; one node holds {per_node * gb / total_gb:.1%}",
                  assumption="the model states live in CPU and NVMe memory and stream through the GPUs "
                             "(the offload that ZeRO-Infinity introduces)",
                  inputs=f"{src}; {src2}", relation="≥",
                  explanation="GPU memory alone would need 32 nodes; the claim rests on NVMe offload.")


@check("hift-7b-a6000", "liu2024hift", ["liu2024hift-1", "liu2024hift-2", "liu2024hift-3", "liu2024hift-4"],
       "memory", "HiFT: full FP32 AdamW fine-tuning of a 7B model on one 48 GB A6000 with >60% memory saved")
def _hift(c: Claims) -> Result:
    gb, src = memory_input("A6000")
    params = c.value("liu2024hift-2") * 1e9
    saving = c.value("liu2024hift-1") / 100
    bpp = models.training_bytes_per_param(weight_bytes=4, grad_bytes=4, optimizer_bytes=8)
    full = params * bpp / 1e9
    after = full * (1 - saving)
    ok = after <= gb
    return Result(gb, after, "GB", 0.0, PLAUSIBLE if ok else "implausible",
                  f"7e9 x {bpp:g} bytes = {full:g} GB for standard FP32 AdamW; x (1 - {saving:g}) = {after:.1f} GB",
                  assumption="the >60% saving applies to the full footprint and activations stay small "
                             f"(at most {gb - after:.1f} GB)" if ok else "",
                  inputs=src, relation="≥",
                  explanation="FP32 weights, gradients and Adam moments need 16 bytes per parameter (112 GB); a "
                              "60% cut leaves 44.8 GB, just under 48 GB.")


@check("locret-128k-rtx4090", "huang2024locret",
       ["huang2024locret-2", "huang2024locret-3", "huang2024locret-4"], "memory",
       "Locret: 128K-token inference of Llama-3.1-8B on one RTX 4090 with 8x KV-cache compression")
def _locret(c: Claims) -> Result:
    gb, src = memory_input("RTX-4090")
    layers, s1 = constant("llama31_8b_layers")
    kv_heads, s2 = constant("llama31_8b_kv_heads")
    head_dim, s3 = constant("llama31_8b_head_dim")
    tokens = int(c.value("huang2024locret-4") * 1024)
    compression = c.value("huang2024locret-2")
    w = models.weights_gb(8e9, "bf16")  # 8B from the model name
    kv_full = models.kv_cache_bytes(int(layers), int(kv_heads), int(head_dim), tokens)
    fits = models.max_concurrent_requests(gb, w, kv_full / compression)
    per_token = models.kv_cache_bytes(int(layers), int(kv_heads), int(head_dim), 1) / compression
    capacity_k = (gb - w) * 1e9 / per_token / 1024
    verdict = "consistent" if fits >= 1 else "implausible"
    return Result(c.value("huang2024locret-4"), capacity_k, "K tokens", 0.0, verdict,
                  f"weights 8e9 x 2 = {w:g} GB; KV at {tokens:,} tokens = {kv_full / 1e9:.2f} GB "
                  f"({w + kv_full / 1e9:.1f} GB in all, > {gb:g}); / {compression:g} = "
                  f"{kv_full / compression / 1e9:.2f} GB -> fits; capacity {capacity_k:.0f}K tokens",
                  inputs=f"{src}; {s1}; {s2}; {s3}", relation="≤",
                  explanation="Uncompressed, weights and cache need 33 GB; with the stated 8x compression "
                              "they need 18 GB.")


@check("fiddler-mixtral-size", "kamahori2024fiddler", ["kamahori2024fiddler-1", "kamahori2024fiddler-4"], "memory",
       "Fiddler: uncompressed Mixtral-8x7B stated to exceed 90 GB of parameters")
def _fiddler(c: Claims) -> Result:
    params_b, src = constant("mixtral_8x7b_params_b")
    w = models.weights_gb(params_b * 1e9, "bf16")
    reported = c.value("kamahori2024fiddler-1")
    gpu_gb = c.value("kamahori2024fiddler-4")
    return Result(reported, w, "GB", 0.0, judge_bound(reported, w, "≤", 0.0),
                  f"{params_b:g}e9 x 2 bytes = {w:g} GB (> {reported:g} GB; {w / gpu_gb:.1f}x the {gpu_gb:g} GB GPU)",
                  inputs=src, relation="≤",
                  explanation="16-bit weights; the GPU holds about a quarter, so the rest must stay on the CPU.")


@check("samba-coe-memory", "prabhakar2024sambanova",
       ["prabhakar2024sambanova-2", "prabhakar2024sambanova-4"], "memory",
       "Samba-CoE: a trillion parameters served from eight SN40L sockets")
def _samba(c: Claims) -> Result:
    gb, src = memory_input("SN40L")
    w = models.weights_gb(c.value("prabhakar2024sambanova-2") * 1e12, "bf16")
    needed = models.gpus_to_hold(w, gb)
    sockets = c.value("prabhakar2024sambanova-4")
    return Result(sockets, float(needed), "sockets", 0.0, PLAUSIBLE,
                  f"1e12 x 2 bytes = {w:,.0f} GB; / {gb:g} GB HBM -> {needed} sockets; 8 sockets hold "
                  f"{sockets * gb / w:.0%} in HBM",
                  assumption="three quarters of the experts sit in the off-package DDR tier (up to 1.5 TB per "
                             "socket per the hardware notes) and only active experts are copied into HBM",
                  inputs=src, relation="≥",
                  explanation="HBM alone would need 32 sockets; the claim rests on the DDR tier the abstract "
                              "describes.")


@check("onesweep-bandwidth", "adinets2022onesweep",
       ["adinets2022onesweep-1", "adinets2022onesweep-3", "adinets2022onesweep-5"], "memory",
       "Onesweep: 29.4 GKey/s on 32-bit keys against the A100's memory bandwidth")
def _onesweep_bw(c: Claims) -> Result:
    rate = c.value("adinets2022onesweep-3")  # billion keys per second
    ops = c.value("adinets2022onesweep-1")
    key_bytes = c.value("adinets2022onesweep-5") / 8
    passes = 4  # assumed 8-bit digits: four digit-binning passes for 32-bit keys
    bytes_per_key = passes * ops * key_bytes
    bw = hardware.mem_bw_tbps("A100-40GB") * 1000  # GB/s
    bound = bw / bytes_per_key
    verdict = judge_bound(rate, bound, "≤", 0.0)
    return Result(rate, bound, "GKey/s", 0.0, PLAUSIBLE if verdict == "consistent" else "implausible",
                  f"{passes} passes x {ops:g} x {key_bytes:g} bytes = {bytes_per_key:g} bytes per key; "
                  f"{rate:g} x {bytes_per_key:g} = {rate * bytes_per_key:.0f} GB/s = "
                  f"{rate * bytes_per_key / bw:.0%} of {bw:g} GB/s", relation="≤",
                  assumption="8-bit digits (four passes over 32-bit keys) on an A100 40 GB" if verdict ==
                  "consistent" else "",
                  inputs=f"A100-40GB memory bandwidth {bw:g} GB/s (data/hardware.csv)",
                  explanation="61% of the memory bandwidth: attainable for a streaming sort.")


# --- papers whose abstract gives too little -------------------------------------------------------

@check("fusemix-gpu-days", "vouitsis2023data", ["vouitsis2023data-1"], "gpu_time",
       "FuseMix: ~600x fewer GPU-days than CLIP")
def _fusemix(c: Claims) -> Result:
    reported = c.value("vouitsis2023data-1")
    raise DataError(f"the abstract gives only the ratio ({reported:g}x), neither FuseMix's nor CLIP's GPU-days")


# --- running -------------------------------------------------------------------------------

def run_all() -> pd.DataFrame:
    """Run every registered check; a missing input gives 'not checkable' with the reason."""
    c = Claims(claims_data.load())
    rows = []
    for chk in REGISTRY.values():
        try:
            r = chk.fn(c)
        except (DataError, KeyError, models.ModelError) as exc:
            reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            r = Result(None, None, "", 0.0, "not checkable", "", explanation=f"missing input: {reason}")
        if r.verdict not in VERDICTS:
            raise ValueError(f"check {chk.check_id}: unknown verdict {r.verdict!r}")
        if r.verdict == PLAUSIBLE and not r.assumption:
            raise ValueError(f"check {chk.check_id}: a '{PLAUSIBLE}' verdict must name its assumption")
        if r.relation not in RELATIONS:
            raise ValueError(f"check {chk.check_id}: unknown relation {r.relation!r}")
        rows.append({
            "check_id": chk.check_id, "citekey": chk.citekey, "claim_ids": ";".join(chk.claim_ids),
            "kind": chk.kind, "description": chk.description, "reported": r.reported,
            "recomputed": r.recomputed, "unit": r.unit, "relation": r.relation, "tolerance": r.tolerance,
            "verdict": r.verdict, "formula": r.formula, "assumption": r.assumption, "inputs": r.inputs,
            "explanation": r.explanation,
        })
    return _in_book_order(pd.DataFrame(rows))


def _in_book_order(df: pd.DataFrame) -> pd.DataFrame:
    """Rows grouped by the theme of the paper checked, themes in book order, then by check id
    (an order that does not depend on where the checks are defined)."""
    from analysis import papers

    rank = {t: i for i, t in enumerate(papers.themes()["id"])}
    theme = papers.load().set_index("citekey")["theme"]
    key = df["citekey"].map(lambda k: rank.get(theme.get(k), len(rank)))
    order = sorted(range(len(df)), key=lambda i: (key.iloc[i], df["check_id"].iloc[i]))
    return df.iloc[order].reset_index(drop=True)


def verdicts_by_citekey(results: pd.DataFrame | None = None) -> dict[str, str]:
    """For the chapter paper tables: each paper's check verdicts, joined."""
    df = run_all() if results is None else results
    out: dict[str, str] = {}
    for key, g in df.groupby("citekey"):
        out[str(key)] = "; ".join(f"{v} ({i})" for i, v in zip(g["check_id"], g["verdict"], strict=True))
    return out
