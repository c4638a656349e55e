"""Accelerator specifications from data/hardware.csv (dense peaks; units in column names)."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import pandas as pd

from analysis.data import schemas
from analysis.data.paths import DataError
from analysis.data.tables import fail_rows, read_csv

PRECISIONS = {
    "fp64": "peak_fp64_tflops",
    "fp32": "peak_fp32_tflops",
    "tf32": "peak_tf32_tflops",
    "bf16": "peak_bf16_tflops",
    "fp16": "peak_fp16_tflops",
    "fp8": "peak_fp8_tflops",
    "int8": "peak_int8_tops",
}


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    return read_csv("hardware.csv", schemas.HARDWARE)


def load() -> pd.DataFrame:
    """The hardware table, indexed by hardware_id (a copy; safe to modify)."""
    return _load().set_index("hardware_id", drop=False).copy()


def names() -> set[str]:
    """Every name a paper or claim may use: hardware ids and family names."""
    df = _load()
    return set(df["hardware_id"]) | set(df["family"])


def check_names(path: Path, df: pd.DataFrame, column: str = "hardware") -> None:
    """Fail (naming file, row and column) where a ';'-separated list names unknown hardware."""
    known = names()
    bad = df[column].fillna("").map(lambda s: any(h and h not in known for h in s.split(";")))
    fail_rows(path, df, bad, column, "names hardware that data/hardware.csv does not have")


def spec(hardware_id: str) -> pd.Series:
    df = load()
    if hardware_id not in df.index:
        raise KeyError(f"unknown hardware {hardware_id!r}; known: {', '.join(sorted(df.index))}")
    row = df.loc[hardware_id]
    assert isinstance(row, pd.Series)
    return row


def peak_tflops(hardware_id: str, precision: str) -> float:
    """Dense peak TFLOP/s (TOP/s for int8) of `hardware_id` at `precision`.

    Raises DataError when the table has no figure for that precision.
    """
    col = PRECISIONS.get(precision.lower())
    if col is None:
        raise ValueError(f"unknown precision {precision!r}; use one of {sorted(PRECISIONS)}")
    return _figure(hardware_id, col)


def _figure(hardware_id: str, column: str) -> float:
    value = spec(hardware_id)[column]
    if pd.isna(value):
        raise DataError(f"data/hardware.csv: {hardware_id} has no {column} figure")
    return float(value)


def mem_bw_tbps(hardware_id: str) -> float:
    """Memory bandwidth in TB/s; DataError if the table has no figure."""
    return _figure(hardware_id, "mem_bw_tbps")


def memory_gb(hardware_id: str) -> float:
    """Memory capacity in 10**9 bytes: the vendor's nominal figure ("80" for an "80 GB" H100), the one
    basis every capacity in the book is used on; DataError if the table has no figure.

    One basis for every part (issue 31): the driver's total in binary units (``memory_mib``, e.g.
    nvidia-smi's 81,559 MiB = 85.5 x 10**9 bytes for an H100 SXM) is known only for some parts, and
    mixing it with nominal figures made ratios wrong (H200/H100 1.65 instead of 141/80 = 1.76). The
    nominal figure taken as 10**9 bytes undercounts a part whose "GB" is in fact binary by up to 7.4 %,
    so a fit on this basis is slightly conservative. :func:`driver_memory_gb` keeps the other figure.
    """
    return _figure(hardware_id, "memory_gb")


def nominal_memory_gb(hardware_id: str) -> float:
    """The vendor's nominal capacity figure (the same as :func:`memory_gb`)."""
    return memory_gb(hardware_id)


def driver_memory_gb(hardware_id: str) -> float:
    """The driver's total (``memory_mib``, binary units) in 10**9 bytes; NaN where the table has none."""
    mib = spec(hardware_id)["memory_mib"]
    return math.nan if pd.isna(mib) else float(mib) * 2**20 / 1e9


def mean_power_w(hardware_id: str) -> float:
    """A vendor-published measured mean chip power in W (TPU v3, v4); NaN where there is none."""
    v = spec(hardware_id)["mean_power_w"]
    return math.nan if pd.isna(v) else float(v)


def mean_power_range_w(hardware_id: str) -> tuple[float, float]:
    """The vendor's measured minimum and maximum chip power in W (NaN, NaN where there are none)."""
    s = spec(hardware_id)
    lo, hi = s["mean_power_low_w"], s["mean_power_high_w"]
    return (math.nan if pd.isna(lo) else float(lo), math.nan if pd.isna(hi) else float(hi))


def tdp_w(hardware_id: str) -> float:
    """Board power (TDP) in W; DataError if the table has no figure."""
    return _figure(hardware_id, "tdp_w")
