"""Efficient generative models: training budgets on a common GPU basis, and sampling cost.

Pure functions; units in the argument names. Training budgets come from data/claims.csv;
sampling latencies from data/generative-sampling-latency.csv and video throughputs from
data/generative-video-throughput.csv.
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data.tables import read_csv

SAMPLING_SCHEMA = pa.DataFrameSchema(
    {
        "system": pa.Column(str, unique=True),
        "citekey": pa.Column(str, nullable=True, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*$")),
        "family": pa.Column(str, checks=pa.Check.isin(["teacher", "accelerated diffusion", "GAN"])),
        "steps": pa.Column(int, coerce=True, checks=pa.Check.gt(0)),
        "latency_s": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "resolution_px": pa.Column(int, coerce=True, checks=pa.Check.gt(0)),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
    },
    strict=True,
)

VIDEO_SCHEMA = pa.DataFrameSchema(
    {
        "system": pa.Column(str, unique=True),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*$")),
        "frames": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "seconds": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "n_gpus": pa.Column(int, coerce=True, checks=pa.Check.gt(0)),
        "hardware_id": pa.Column(str),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
    },
    strict=True,
)


def load_sampling() -> pd.DataFrame:
    """data/generative-sampling-latency.csv, validated."""
    return read_csv("generative-sampling-latency.csv", SAMPLING_SCHEMA)


def load_video() -> pd.DataFrame:
    """data/generative-video-throughput.csv, validated."""
    return read_csv("generative-video-throughput.csv", VIDEO_SCHEMA)


def _sampling_summary() -> str:
    return f"{len(load_sampling())} text-to-image sampling latencies"


def _video_summary() -> str:
    return f"{len(load_video())} video-generation throughputs"


DATA_FILES = {
    "generative-sampling-latency.csv": _sampling_summary,
    "generative-video-throughput.csv": _video_summary,
}


# --- training budgets ------------------------------------------------------------------------

def to_gpu_hours(value: float, unit: str) -> float:
    """A reported budget in GPU-hours; `unit` is 'GPU-days' or 'GPU-hours'."""
    models.require_positive(value=value)
    if unit == "GPU-days":
        return value * 24.0
    if unit == "GPU-hours":
        return value
    raise models.ModelError(f"unit must be 'GPU-days' or 'GPU-hours', got {unit!r}")


def peak_ratio(peak_tflops_from: float, peak_tflops_to: float) -> float:
    """Conversion factor from one GPU's hours to another's: ratio of their dense peaks."""
    models.require_positive(peak_tflops_from=peak_tflops_from, peak_tflops_to=peak_tflops_to)
    return peak_tflops_from / peak_tflops_to


def normalised_gpu_hours(gpu_hours: float, peak_tflops_from: float, peak_tflops_to: float) -> float:
    """GPU-hours on the reported GPU expressed as hours of a reference GPU at the same utilisation.

    Assumes both GPUs reach the same fraction of their dense peak, so hours scale with the
    peak ratio. This is a compute equivalence, not a measured speed.
    """
    models.require_positive(gpu_hours=gpu_hours)
    return gpu_hours * peak_ratio(peak_tflops_from, peak_tflops_to)



# --- sampling --------------------------------------------------------------------------------

def fit_step_model(steps_a: int, latency_a_s: float, steps_b: int, latency_b_s: float) -> tuple[float, float]:
    """(fixed_s, per_step_s) of latency = fixed + steps × per_step through two measured points.

    fixed covers the work done once per image (text encoder, VAE decoder, launch overheads).
    """
    models.require_positive(steps_a=steps_a, latency_a_s=latency_a_s, steps_b=steps_b, latency_b_s=latency_b_s)
    if steps_a == steps_b:
        raise models.ModelError("the two points need different step counts")
    per_step = (latency_b_s - latency_a_s) / (steps_b - steps_a)
    fixed = latency_a_s - steps_a * per_step
    if per_step <= 0 or fixed < 0:
        raise models.ModelError(f"points give a non-physical fit (fixed {fixed:.3g} s, per step {per_step:.3g} s)")
    return fixed, per_step


def sampling_latency_s(steps: int, per_step_s: float, fixed_s: float = 0.0, evals_per_step: int = 1) -> float:
    """Latency of one sample: fixed + steps × evaluations per step × time per evaluation."""
    models.require_positive(steps=steps, per_step_s=per_step_s, evals_per_step=evals_per_step)
    models.require_non_negative(fixed_s=fixed_s)
    return fixed_s + steps * evals_per_step * per_step_s


def usd_per_thousand(seconds_per_item: float, n_gpus: int, usd_per_gpu_hour: float) -> float:
    """Rental cost of 1,000 items (images or frames) at `seconds_per_item` on `n_gpus`."""
    models.require_positive(seconds_per_item=seconds_per_item, n_gpus=n_gpus)
    models.require_non_negative(usd_per_gpu_hour=usd_per_gpu_hour)
    return 1000.0 * seconds_per_item * n_gpus * usd_per_gpu_hour / 3600.0


def price_source(price_name: str, usd_per_hour: float | None = None) -> str | tuple[float, float, float]:
    """What a price is drawn from (:func:`analysis.models.uncertainty.propagate`): the named entry of
    data/assumptions.yml, or, when a reader set another central price, that price with the entry's documented
    range scaled by the same factor."""
    import math

    from analysis.models import uncertainty

    lo, c, hi = uncertainty.range_of(price_name)
    if usd_per_hour is None or math.isclose(usd_per_hour, c):
        return price_name
    f = usd_per_hour / c
    return lo * f, usd_per_hour, hi * f


def has_range(price_name: str) -> bool:
    """Whether a price entry has a documented range (an entry with one provider has none)."""
    from analysis.models import uncertainty

    lo, _, hi = uncertainty.range_of(price_name)
    return hi > lo


def usd_per_thousand_interval(seconds_per_item: float, n_gpus: int, price_name: str,
                              usd_per_hour: float | None = None) -> object:
    """:func:`usd_per_thousand` with the GPU-hour price drawn from its documented range by the book's one
    interval rule (an :class:`analysis.models.uncertainty.Interval`, USD per 1,000 items)."""
    import numpy as np

    from analysis.models import uncertainty

    cost = np.vectorize(lambda p: usd_per_thousand(seconds_per_item, n_gpus, float(p)), otypes=[float])
    return uncertainty.propagate(lambda p: cost(p), ranged={"p": price_source(price_name, usd_per_hour)})
