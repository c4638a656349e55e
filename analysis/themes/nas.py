"""Neural architecture search: what searches cost, and how well size proxies predict speed.

Data: ``data/nas-search-costs.csv`` (one row per search: GPU-hours as reported, the hardware
the source names or the one assumed, the price entry of data/assumptions.yml) and
``data/nas-proxy-latency.csv`` (model pairs with a size proxy ratio and a measured speedup).
Costs are computed with the book's one chain, :func:`analysis.models.chain.run_footprint`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data import assumptions, hardware
from analysis.data.schemas import CITEKEY
from analysis.data.tables import read_csv

SEARCH_FILE = "nas-search-costs.csv"
PROXY_FILE = "nas-proxy-latency.csv"

SEARCH_SCHEMA = pa.DataFrameSchema(
    {
        "search": pa.Column(str, unique=True),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(CITEKEY)),
        "year": pa.Column(int, coerce=True, checks=pa.Check.in_range(2010, 2030)),
        "gpu_hours": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "hardware_named": pa.Column(str),
        "hardware_id": pa.Column(str),
        "tdp_w": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "price_key": pa.Column(str, checks=pa.Check.str_startswith("gpu_hour_usd_")),
        "method_class": pa.Column(str),
        "source": pa.Column(str),
    },
    strict=True,
)

PROXY_SCHEMA = pa.DataFrameSchema(
    {
        "model": pa.Column(str),
        "baseline": pa.Column(str),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(CITEKEY)),
        "hardware": pa.Column(str),
        "proxy": pa.Column(str, nullable=True),
        "proxy_ratio": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "speedup": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "qualifier": pa.Column(str, checks=pa.Check.isin(["exact", "up to", "about"])),
        "source": pa.Column(str),
    },
    strict=True,
)


def load_searches() -> pd.DataFrame:
    """Search costs as reported (GPU-hours), with hardware and price assumptions."""
    return read_csv(SEARCH_FILE, SEARCH_SCHEMA)


def load_proxies() -> pd.DataFrame:
    """Model pairs: size-proxy ratio (baseline / model) and measured speedup on named hardware."""
    return read_csv(PROXY_FILE, PROXY_SCHEMA)


def _describe_searches() -> str:
    df = load_searches()
    for _, r in df.iterrows():
        assumptions.get(str(r["price_key"]))  # raises on an unknown assumption name
        tdp_of(r)  # raises if neither the row nor hardware.csv has a TDP
    return f"{len(df)} architecture searches with GPU-hours"


def _describe_proxies() -> str:
    return f"{len(load_proxies())} model pairs with measured speedups"


DATA_FILES: dict[str, Callable[[], str]] = {SEARCH_FILE: _describe_searches, PROXY_FILE: _describe_proxies}


def derived_search_gpu_hours(baseline_gpu_hours: float, reduction_factor: float) -> float:
    """GPU-hours of a search reported only as `reduction_factor`× cheaper than a baseline."""
    if not baseline_gpu_hours > 0 or not reduction_factor >= 1:
        raise models.ModelError("baseline must be positive and the reduction factor at least 1")
    return baseline_gpu_hours / reduction_factor


def tdp_of(row: pd.Series) -> float:
    """TDP in W: the row's own figure (with its source) or data/hardware.csv."""
    return float(row["tdp_w"]) if pd.notna(row["tdp_w"]) else hardware.tdp_w(str(row["hardware_id"]))


def price_range(key: str) -> tuple[float, float, float]:
    """(central, low, high) USD per GPU-hour of a price entry; a missing bound is the central value."""
    e = assumptions.entry(key)
    v = float(e["value"])
    lo = float(e["low"]) if pd.notna(e["low"]) else v
    hi = float(e["high"]) if pd.notna(e["high"]) else v
    return v, min(lo, v), max(hi, v)


def price_searches(df: pd.DataFrame, overrides: dict[str, dict[str, float]] | None = None) -> pd.DataFrame:
    """Add central/low/high energy at the facility meter (MWh), tCO2e and rental USD to each search row.

    Every figure comes from the book's one chain (:func:`analysis.models.chain.run_footprint`) with
    the inputs of :func:`analysis.models.chain_inputs.inputs_for` for the row's hardware, its own
    TDP where the row gives one, its price entry's range, and `overrides` per case.
    """
    from analysis.models import chain, chain_inputs

    overrides = overrides or {}
    rows = []
    for _, r in df.iterrows():
        tdp = tdp_of(r)
        price = price_range(str(r["price_key"]))
        out: dict[str, float] = {}
        for case, k, i in (("central", "", 0), ("low", "_low", 1), ("high", "_high", 2)):
            x = chain_inputs.inputs_for(str(r["hardware_id"]), case, power=chain.Power(tdp, "rated"),
                                        usd_per_device_hour=price[i], **overrides.get(case, {}))
            f = chain.run_footprint(float(r["gpu_hours"]), x)
            out[f"mwh{k}"] = f.facility_mwh
            out[f"tco2e{k}"] = f.operational_tco2e
            out[f"usd{k}"] = f.rental_usd
        base: dict[str, object] = {str(k): v for k, v in r.items()}
        rows.append({**base, "tdp_used_w": tdp, **out})
    return pd.DataFrame(rows)


def speedup_spread(speedups: pd.Series) -> float:
    """Largest over smallest speedup of one model pair across hardware (1 = the same everywhere)."""
    s = np.asarray(speedups, dtype=float)
    if len(s) < 2 or np.any(s <= 0):
        raise models.ModelError("need at least two positive speedups")
    return float(s.max() / s.min())


def proxy_error(proxy_ratio: float, speedup: float) -> float:
    """How far a size proxy misses the measured speedup: speedup / proxy ratio (1 = exact)."""
    if not proxy_ratio > 0 or not speedup > 0:
        raise models.ModelError("ratios must be positive")
    return speedup / proxy_ratio
