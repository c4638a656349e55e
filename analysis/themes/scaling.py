"""Scaling laws and test-time compute: published power laws, compute-optimal allocation, cost per query.

Pure functions; units are in the argument names. Constants live in data/scaling-power-laws.csv
(Kaplan et al. 2020, App. A Tables 5-6; Hoffmann et al. 2022, eq. (4) and App. D.2 for Approach 3, Tables 2,
3 and A3 for Approaches 1 and 2, external),
operating points in data/scaling-test-time.csv.
"""

from __future__ import annotations

import math

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data.schemas import opt_float
from analysis.data.tables import read_csv
from analysis.models.scaling_laws import (  # noqa: F401  (the chapter's notebooks call them through this module)
    chinchilla_loss,
    chinchilla_optimal,
    compute_where_optimal_chinchilla,
    inference_aware_optimal,
    lifetime_flop,
    params_exponent,
    tokens_for_loss,
)

PF_DAY_FLOP = 1e15 * 86400.0
"""One petaflop/s-day in FLOP (Kaplan et al. 2020, Sec. 1.3): 8.64e19."""

LAWS_SCHEMA = pa.DataFrameSchema(
    {
        "law": pa.Column(str, checks=pa.Check.isin(["kaplan2020", "hoffmann2022", "hoffmann2022_a1",
                                                     "hoffmann2022_a2", "besiroglu2024"])),
        "symbol": pa.Column(str, checks=pa.Check.str_matches(r"^[A-Za-z_]+$")),
        "value": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "unit": pa.Column(str),
        "meaning": pa.Column(str),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
        "in_corpus": pa.Column(bool, coerce=True),
    },
    strict=True,
    unique=["law", "symbol"],
)

TEST_TIME_SCHEMA = pa.DataFrameSchema(
    {
        "system": pa.Column(str, unique=True),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*$")),
        "benchmark": pa.Column(str),
        "accuracy_pct": pa.Column(float, coerce=True, checks=pa.Check.in_range(0, 100)),
        "params_b": opt_float(pa.Check.gt(0)),
        "thinking_tokens_per_query": opt_float(pa.Check.gt(0)),
        "usd_total_stated": opt_float(pa.Check.gt(0)),
        "problems": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "train_gpu_hours": opt_float(pa.Check.gt(0)),
        "train_hardware": pa.Column(str, nullable=True),
        "pretrain_tokens_t": opt_float(pa.Check.gt(0)),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
    },
    strict=True,
)


def load_laws() -> pd.DataFrame:
    """data/scaling-power-laws.csv, validated."""
    return read_csv("scaling-power-laws.csv", LAWS_SCHEMA)


def constants(law: str) -> dict[str, float]:
    """The fitted constants of one law as {symbol: value}."""
    df = load_laws()
    sub = df[df["law"] == law]
    if sub.empty:
        raise KeyError(f"data/scaling-power-laws.csv has no law {law!r}")
    return {str(s): float(v) for s, v in zip(sub["symbol"], sub["value"], strict=True)}


def load_test_time() -> pd.DataFrame:
    """data/scaling-test-time.csv, validated."""
    return read_csv("scaling-test-time.csv", TEST_TIME_SCHEMA)


def _laws_summary() -> str:
    df = load_laws()
    return f"{len(df)} constants of {df['law'].nunique()} scaling laws"


def _test_time_summary() -> str:
    return f"{len(load_test_time())} test-time operating points"


DATA_FILES = {"scaling-power-laws.csv": _laws_summary, "scaling-test-time.csv": _test_time_summary}


# --- power laws -------------------------------------------------------------------------

def power_law_loss(x: float, x_c: float, alpha: float) -> float:
    """Kaplan-form loss (x_c / x)^alpha in nats per token; x and x_c in the same unit."""
    models.require_positive(x=x, x_c=x_c, alpha=alpha)
    return (x_c / x) ** alpha


def flop_to_pf_days(flop: float) -> float:
    """Training compute in PF-days (1 PF-day = 8.64e19 FLOP)."""
    models.require_positive(flop=flop)
    return flop / PF_DAY_FLOP


def kaplan_optimal(c_flop: float, n_e: float, p_n: float, d_e: float, p_d: float) -> tuple[float, float]:
    """Compute-efficient (parameters, tokens) at C_min = `c_flop`, Kaplan et al. 2020 Table 6.

    N_opt = N_e · C^p_N and D_opt = D_e · C^p_D with C in PF-days.
    """
    c = flop_to_pf_days(c_flop)
    return n_e * c**p_n, d_e * c**p_d


def anchored_optimal(c_flop: float, n_ref: float, d_ref: float, c_ref: float, a: float, b: float
                     ) -> tuple[float, float]:
    """(N_opt, D_opt) at `c_flop` from a power-law frontier through one published point.

    Hoffmann et al. 2022 give Approaches 1 and 2 (training-curve envelopes and IsoFLOP profiles) as
    exponents, N_opt ∝ C^a and D_opt ∝ C^b (Table 2), and as projected rows of parameters, FLOPs and tokens
    (Table 3, Table A3); one row (`n_ref`, `d_ref` at `c_ref`) fixes the scale.
    """
    models.require_positive(c_flop=c_flop, n_ref=n_ref, d_ref=d_ref, c_ref=c_ref, a=a, b=b)
    ratio = c_flop / c_ref
    return n_ref * ratio**a, d_ref * ratio**b


def compute_where_optimal_kaplan(params: float, n_e: float, p_n: float) -> float:
    """Training FLOP at which `params` is Kaplan-compute-efficient (inverse of N_opt = N_e·C^p_N)."""
    models.require_positive(params=params, n_e=n_e, p_n=p_n)
    return (params / n_e) ** (1.0 / p_n) * PF_DAY_FLOP


# --- test-time compute ---------------------------------------------------------------------

def flops_per_query(params: float, generated_tokens: float) -> float:
    """Forward FLOP to generate `generated_tokens` with a dense model: 2·N per token (attention ignored)."""
    models.require_positive(generated_tokens=generated_tokens)
    return models.inference_flops_per_token(params) * generated_tokens


def usd_per_query(generated_tokens: float, tokens_per_s: float, usd_per_hour: float) -> float:
    """Serving cost of one query: tokens × ($/Mtok from throughput and hourly price) / 1e6."""
    models.require_positive(generated_tokens=generated_tokens)
    return models.usd_per_million_tokens(tokens_per_s, usd_per_hour) * generated_tokens / 1e6


def queries_per_training_budget(train_flop: float, query_flop: float) -> float:
    """How many queries cost as much compute as a training run."""
    models.require_positive(train_flop=train_flop, query_flop=query_flop)
    return train_flop / query_flop


def gpu_hours_to_flop(gpu_hours: float, peak_tflops: float, mfu: float = 1.0) -> float:
    """FLOP delivered by `gpu_hours` at a fraction `mfu` of a dense peak (mfu = 1 gives an upper bound)."""
    models.require_positive(gpu_hours=gpu_hours, peak_tflops=peak_tflops, mfu=mfu)
    if mfu > 1:
        raise models.ModelError("MFU cannot exceed 1")
    return gpu_hours * 3600.0 * peak_tflops * 1e12 * mfu


def log_space(lo: float, hi: float, n: int = 60) -> list[float]:
    """`n` log-spaced values from lo to hi inclusive."""
    models.require_positive(lo=lo, hi=hi)
    if n < 2:
        raise models.ModelError("n must be at least 2")
    a, b = math.log10(lo), math.log10(hi)
    return [10 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def price_source(price_name: str, usd_per_hour: float | None = None) -> str | tuple[float, float, float]:
    """What a price is drawn from (:func:`analysis.models.uncertainty.propagate`): the named entry of
    data/assumptions.yml, or, when a reader set another central price, that price with the entry's documented
    range scaled by the same factor."""
    from analysis.models import uncertainty

    lo, c, hi = uncertainty.range_of(price_name)
    if usd_per_hour is None or math.isclose(usd_per_hour, c):
        return price_name
    f = usd_per_hour / c
    return lo * f, usd_per_hour, hi * f


def usd_per_query_interval(generated_tokens: float, tokens_per_s: float, price_name: str,
                           usd_per_hour: float | None = None, per: float = 1.0, over: float | None = None) -> object:
    """:func:`usd_per_query` (times `per`, e.g. the problems of a benchmark) with the GPU-hour price drawn from its
    documented range by the book's one interval rule; with `over`, the interval of `over` divided by it instead
    (a stated cost as a multiple of this one). An :class:`analysis.models.uncertainty.Interval`."""
    import numpy as np

    from analysis.models import uncertainty

    cost = np.vectorize(lambda p: per * usd_per_query(generated_tokens, tokens_per_s, float(p)), otypes=[float])
    fn = (lambda p: cost(p)) if over is None else (lambda p: over / cost(p))
    return uncertainty.propagate(fn, ranged={"p": price_source(price_name, usd_per_hour)})
