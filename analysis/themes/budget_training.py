"""Training on a budget: GPU-days, their ratios to the baselines the papers compare with, and dollars.

The data are the budgets in ``data/budget-training-budgets.csv``: one row per training run, either
the cheap run a paper reports (``role = budget``) or the original run it compares with
(``role = baseline``), grouped by ``case``. A budget is given either as GPUs × days, as GPU-days,
or, for FuseMix, only as a reduction factor against its baseline (``reduction_x``), from which the
implied GPU-days follow.

Units: GPU-days are accelerator-days (TPU chips count as accelerators); prices are USD per
accelerator-hour; peaks are dense TFLOP/s.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data import hardware
from analysis.data.paths import DataError
from analysis.data.schemas import opt_float
from analysis.data.tables import fail_rows, read_csv

FILE = "budget-training-budgets.csv"
ROLES = ["budget", "baseline"]
HARDWARE_CLASSES = ["datacentre", "workstation", "consumer", "unstated"]

SCHEMA = pa.DataFrameSchema(
    {
        "row_id": pa.Column(str, pa.Check.str_matches(r"^[a-z0-9]+(-[a-z0-9]+)*$"), unique=True),
        "case": pa.Column(str),
        "citekey": pa.Column(str),
        "role": pa.Column(str, pa.Check.isin(ROLES)),
        "model": pa.Column(str),
        "n_gpus": opt_float(pa.Check.gt(0)),
        "days": opt_float(pa.Check.gt(0)),
        "gpu_days": opt_float(pa.Check.gt(0)),
        "reduction_x": opt_float(pa.Check.gt(0)),
        "hardware_id": pa.Column(str, nullable=True),
        "hardware_class": pa.Column(str, pa.Check.isin(HARDWARE_CLASSES)),
        "train_flop": opt_float(pa.Check.gt(0)),
        "quality_metric": pa.Column(str, nullable=True),
        "quality_value": opt_float(),
        "source": pa.Column(str, pa.Check.str_length(min_value=5)),
    },
    strict=True,
)


def load_budgets() -> pd.DataFrame:
    """The validated budgets table, with a `gpu_days_stated` column (GPUs × days or GPU-days)."""
    from analysis.data import papers

    df = read_csv(FILE, SCHEMA)
    path = f"data/{FILE}"
    keys = set(papers.load()["citekey"])
    fail_rows(path, df, ~df["citekey"].isin(keys), "citekey", "not a citekey of data/papers.csv")  # type: ignore[arg-type]
    hw = set(hardware.load().index)
    fail_rows(path, df, df["hardware_id"].notna() & ~df["hardware_id"].isin(hw), "hardware_id",  # type: ignore[arg-type]
              "not a hardware_id of data/hardware.csv")
    has_product = df["n_gpus"].notna() & df["days"].notna()
    has_budget = has_product | df["gpu_days"].notna() | df["reduction_x"].notna()
    fail_rows(path, df, ~has_budget, "gpu_days", "give n_gpus and days, gpu_days, or reduction_x")  # type: ignore[arg-type]
    both = has_product & df["gpu_days"].notna()
    fail_rows(path, df, both, "gpu_days", "give either n_gpus × days or gpu_days, not both")  # type: ignore[arg-type]
    df = df.copy()
    df["gpu_days_stated"] = [
        gpu_days(r["n_gpus"], r["days"]) if _is_number(r["n_gpus"]) and _is_number(r["days"]) else r["gpu_days"]
        for r in _records(df)
    ]
    return df


def _describe() -> str:
    df = load_budgets()
    return f"{len(df)} training budgets in {df['case'].nunique()} cases"


DATA_FILES = {FILE: _describe}


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()} for r in df.to_dict("records")]


def _is_number(v: Any) -> bool:
    """True for a number that is not NaN."""
    return isinstance(v, (int, float)) and not math.isnan(v)


# --- pure functions ---------------------------------------------------------------------------

def gpu_days(n_gpus: float, days: float) -> float:
    """Accelerator-days of a run: number of accelerators × wall-clock days."""
    if not (n_gpus > 0 and days > 0):
        raise models.ModelError(f"n_gpus and days must be positive, got {n_gpus!r}, {days!r}")
    return n_gpus * days


def implied_gpu_days(baseline_gpu_days: float, reduction_x: float) -> float:
    """The GPU-days a run used when it reports `reduction_x`-fold fewer than a baseline."""
    if not (baseline_gpu_days > 0 and reduction_x > 0):
        raise models.ModelError("baseline GPU-days and the reduction factor must be positive")
    return baseline_gpu_days / reduction_x


def reduction(baseline: float, budget: float) -> float:
    """How many times fewer resources the budget run used than the baseline (dimensionless)."""
    if not (baseline > 0 and budget > 0):
        raise models.ModelError("baseline and budget must be positive")
    return baseline / budget


def peak_equivalent_gpu_days(gpu_days_: float, peak_tflops: float, ref_peak_tflops: float) -> float:
    """GPU-days re-expressed as days of a reference accelerator with the same dense peak work.

    gpu_days × peak / ref_peak: a day on an A100 (312 TFLOP/s BF16 dense) counts as 312/125 ≈ 2.5
    V100-days (125 TFLOP/s FP16). This assumes the same fraction of peak on both, which is the
    crudest possible normalisation, but a better one than counting a GPU-day as a GPU-day.
    """
    if not (gpu_days_ > 0 and peak_tflops > 0 and ref_peak_tflops > 0):
        raise models.ModelError("GPU-days and peaks must be positive")
    return gpu_days_ * peak_tflops / ref_peak_tflops


def rental_usd(gpu_days_: float, usd_per_gpu_hour: float) -> float:
    """Cloud rental cost in USD of `gpu_days_` accelerator-days at an hourly price."""
    return models.rental_cost_usd(gpu_days_ * 24.0, usd_per_gpu_hour)


def price_source(price_name: str, usd_per_hour: float | None = None) -> str | tuple[float, float, float]:
    """What a price is drawn from (:func:`analysis.models.uncertainty.propagate`): the named assumption of
    data/assumptions.yml, or, when a reader set another central price, that price with the assumption's
    documented range scaled by the same factor."""
    from analysis.models import uncertainty

    lo, c, hi = uncertainty.range_of(price_name)
    if usd_per_hour is None or math.isclose(usd_per_hour, c):
        return price_name
    f = usd_per_hour / c
    return lo * f, usd_per_hour, hi * f


def has_range(price_name: str) -> bool:
    """Whether a price entry of data/assumptions.yml has a documented range (one provider gives none)."""
    from analysis.models import uncertainty

    lo, _, hi = uncertainty.range_of(price_name)
    return hi > lo


def rental_interval(gpu_days_: float, price_name: str, usd_per_hour: float | None = None) -> Any:
    """Rent of `gpu_days_` accelerator-days with the price drawn from its documented range by the book's one
    interval rule (:data:`analysis.models.chain_inputs.INTERVAL_RULE`): an
    :class:`analysis.models.uncertainty.Interval` in USD."""
    import numpy as np

    from analysis.models import uncertainty

    rent = np.vectorize(lambda p: rental_usd(gpu_days_, float(p)), otypes=[float])
    return uncertainty.propagate(lambda p: rent(p), ranged={"p": price_source(price_name, usd_per_hour)})


def rental_interval_unnamed(gpu_days_: float, usd_per_hour: float | None = None) -> Any:
    """Rent of a run on an unnamed data-centre GPU by the book's convention for one
    (:data:`analysis.models.chain_inputs.UNNAMED_GPU`: an A100 40 GB centrally, its draws spread over the V100,
    A100 and H100 parts and their price ranges, as :func:`analysis.models.chain_inputs.footprint_range` spreads
    them); a reader's central price other than the A100's is held fixed in the draws."""
    from analysis.models import chain_inputs, uncertainty

    parts = [chain_inputs.UNNAMED_GPU[c] for c in ("central", "low", "high")]
    default = chain_inputs.inputs_for(parts[0]).usd_per_device_hour
    # the book's own price is not passed on: footprint_range would hold it fixed for the other two parts
    reader = usd_per_hour is not None and not math.isclose(usd_per_hour, default)
    over = {"usd_per_device_hour": usd_per_hour} if reader else {}
    r = chain_inputs.footprint_range(gpu_days_ * 24.0, parts, **over)
    lo, hi = r["rental_usd"]
    return uncertainty.Interval(float(r["central"].rental_usd), float(lo), float(hi))


def fraction_of_peak(achieved_tflops: float, peak_tflops: float) -> float:
    """Achieved throughput as a fraction of the dense peak (no cap at 1: a value above 1 is a finding)."""
    if not (achieved_tflops >= 0 and peak_tflops > 0):
        raise models.ModelError("achieved must be >= 0 and peak > 0")
    return achieved_tflops / peak_tflops


def hours_for_tokens(tokens: float, tokens_per_s: float) -> float:
    """Wall-clock hours to process `tokens` at a steady `tokens_per_s`."""
    if not (tokens >= 0 and tokens_per_s > 0):
        raise models.ModelError("tokens must be >= 0 and throughput > 0")
    return tokens / tokens_per_s / 3600.0


# --- tables -----------------------------------------------------------------------------------

def with_implied(df: pd.DataFrame) -> pd.DataFrame:
    """Add `gpu_days_used`: the stated GPU-days, or those implied by `reduction_x` and the case's
    baseline when a run states only a reduction factor. `implied` marks the latter."""
    out = df.copy()
    used: list[float] = []
    implied: list[bool] = []
    for r in _records(out):
        if _is_number(r["gpu_days_stated"]):
            used.append(float(r["gpu_days_stated"]))
            implied.append(False)
            continue
        base = out[(out["case"] == r["case"]) & (out["role"] == "baseline")]["gpu_days_stated"].dropna()
        if len(base) != 1:
            raise DataError(f"data/{FILE}: row {r['row_id']}: a reduction factor needs exactly one baseline in "
                            f"case {r['case']!r}, found {len(base)}")
        used.append(implied_gpu_days(float(base.iloc[0]), float(r["reduction_x"])))
        implied.append(True)
    out["gpu_days_used"] = used
    out["implied"] = implied
    return out


def pairs(df: pd.DataFrame, precision: str = "fp16") -> pd.DataFrame:
    """One row per (budget run, baseline of its case): GPU-days on both sides, their ratio, the
    paper's stated factor, and the ratio after scaling both sides by dense peak (when both
    accelerators are named and in data/hardware.csv)."""
    d = with_implied(df)
    rows = []
    for case, g in d.groupby("case", sort=False):
        bases = _records(g[g["role"] == "baseline"])
        for b in _records(g[g["role"] == "budget"]):
            for a in bases:
                ratio = reduction(a["gpu_days_used"], b["gpu_days_used"])
                peak_ratio = math.nan
                if isinstance(a["hardware_id"], str) and isinstance(b["hardware_id"], str):
                    pa_ = _peak(a["hardware_id"], precision)
                    pb_ = _peak(b["hardware_id"], precision)
                    peak_ratio = reduction(a["gpu_days_used"] * pa_, b["gpu_days_used"] * pb_)
                flop_ratio = (reduction(a["train_flop"], b["train_flop"])
                              if _is_number(a["train_flop"]) and _is_number(b["train_flop"]) else math.nan)
                rows.append({
                    "case": case, "budget_row": b["row_id"], "budget_model": b["model"],
                    "budget_citekey": b["citekey"], "baseline_row": a["row_id"], "baseline_model": a["model"],
                    "budget_gpu_days": b["gpu_days_used"], "baseline_gpu_days": a["gpu_days_used"],
                    "implied": b["implied"], "ratio_gpu_days": ratio, "ratio_stated": b["reduction_x"],
                    "ratio_peak_work": peak_ratio, "ratio_flop": flop_ratio,
                    "budget_quality": b["quality_value"], "baseline_quality": a["quality_value"],
                    "quality_metric": b["quality_metric"],
                })
    return pd.DataFrame(rows)


# runs outside the corpus that the tables compare with: the CLIP baseline is Radford et al. 2021, a reference run
REF_RUNS = {"clip-vitl14": "ref:clip-vitl14"}


def run_citekey(runs: pd.DataFrame, row_id: str) -> str:
    """The fact citekey of run `row_id` of `runs` (a budgets table with ``row_id`` and ``citekey``): its paper,
    with ``:<row_id>`` when the paper has several runs in `runs`; a reference run (:data:`REF_RUNS`) keeps its own."""
    if row_id in REF_RUNS:
        return REF_RUNS[row_id]
    cite = str(runs.set_index("row_id").at[row_id, "citekey"])
    return f"{cite}:{row_id}" if (runs["citekey"] == cite).sum() > 1 else cite


def _peak(hardware_id: str, precision: str) -> float:
    """Dense peak at `precision`, falling back to BF16 for chips (TPU) that list no FP16 peak."""
    try:
        return hardware.peak_tflops(hardware_id, precision)
    except (KeyError, ValueError, DataError):
        return hardware.peak_tflops(hardware_id, "bf16")


def priced(df: pd.DataFrame, prices: dict[str, float], class_prices: dict[str, float]) -> pd.DataFrame:
    """USD of every run: at its own accelerator's hourly price when the accelerator is named and
    `prices` has it (keyed by hardware_id), else at the price for its hardware class."""
    d = with_implied(df)
    usd, basis = [], []
    for r in _records(d):
        hw = r["hardware_id"]
        if isinstance(hw, str) and hw in prices:
            p, how = prices[hw], hw
        else:
            p, how = class_prices[str(r["hardware_class"])], f"{r['hardware_class']} class"
        usd.append(rental_usd(float(r["gpu_days_used"]), p))
        basis.append(how)
    d["usd"] = usd
    d["price_basis"] = basis
    return d
