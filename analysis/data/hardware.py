"""Accelerator specifications from data/hardware.csv (dense peaks; units in column names)."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
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


@dataclass(frozen=True)
class Hardware:
    """One row of data/hardware.csv, typed: a missing figure is NaN, a missing text "", a missing count None."""
    hardware_id: str
    family: str
    vendor: str
    kind: str
    name: str
    release_year: int | None
    memory_gb: float
    memory_mib: float
    mem_bw_tbps: float
    tdp_w: float
    tdp_basis: str
    mean_power_w: float
    mean_power_low_w: float
    mean_power_high_w: float
    peak_fp64_tflops: float
    peak_fp32_tflops: float
    peak_tf32_tflops: float
    peak_bf16_tflops: float
    peak_fp16_tflops: float
    peak_fp8_tflops: float
    peak_int8_tops: float
    interconnect_gb_per_s: float
    scale_up_domain: int | None
    scale_up_source: str
    source: str
    source_url: str
    notes: str

    def figure(self, column: str) -> float:
        """The figure in `column` (e.g. a :data:`PRECISIONS` column); NaN where the table has none."""
        value = getattr(self, column)
        assert isinstance(value, float), column
        return value


def record(hardware_id: str) -> Hardware:
    """Row `hardware_id` of the hardware table as a :class:`Hardware`; KeyError if unknown."""
    row = spec(hardware_id)
    values: dict[str, object] = {}
    for f in fields(Hardware):
        v = row[f.name]
        if f.type == "float":
            values[f.name] = math.nan if pd.isna(v) else float(v)
        elif f.type == "int | None":
            values[f.name] = None if pd.isna(v) else int(v)
        else:
            values[f.name] = "" if pd.isna(v) else str(v)
    return Hardware(**values)  # type: ignore[arg-type]


def peak_tflops(hardware_id: str, precision: str) -> float:
    """Dense peak TFLOP/s (TOP/s for int8) of `hardware_id` at `precision`.

    Raises DataError when the table has no figure for that precision.
    """
    col = PRECISIONS.get(precision.lower())
    if col is None:
        raise ValueError(f"unknown precision {precision!r}; use one of {sorted(PRECISIONS)}")
    return _figure(hardware_id, col)


def _figure(hardware_id: str, column: str) -> float:
    value = record(hardware_id).figure(column)
    if math.isnan(value):
        raise DataError(f"data/hardware.csv: {hardware_id} has no {column} figure")
    return value


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
    return record(hardware_id).memory_mib * 2**20 / 1e9


def mean_power_w(hardware_id: str) -> float:
    """A vendor-published measured mean chip power in W (TPU v3, v4); NaN where there is none."""
    return record(hardware_id).mean_power_w


def mean_power_range_w(hardware_id: str) -> tuple[float, float]:
    """The vendor's measured minimum and maximum chip power in W (NaN, NaN where there are none)."""
    r = record(hardware_id)
    return r.mean_power_low_w, r.mean_power_high_w


def tdp_w(hardware_id: str) -> float:
    """Board power (TDP) in W; DataError if the table has no figure."""
    return _figure(hardware_id, "tdp_w")
