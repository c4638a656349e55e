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
from analysis.data.schemas import CITEKEY, opt_float
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
        "tdp_w": opt_float(pa.Check.gt(0)),
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
        "proxy_ratio": opt_float(pa.Check.gt(0)),
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


def price_searches(df: pd.DataFrame, central: dict[str, float] | None = None) -> pd.DataFrame:
    """Add energy at the facility meter (MWh), tCO2e and rental USD to each search row, each with the book's one
    interval (:data:`analysis.models.chain_inputs.INTERVAL_RULE`): columns ``mwh``, ``mwh_low``, ``mwh_high``
    and the same for ``tco2e`` and ``usd``.

    Every figure comes from the book's one chain (:func:`analysis.models.chain.run_footprint`) with the inputs of
    :func:`analysis.models.chain_inputs.inputs_for` for the row's hardware and its own TDP where the row gives one.
    The interval draws the chain's ranged inputs with its own sampler
    (:func:`analysis.models.chain_inputs.sampled_inputs`: power fraction, PUE, grid) as
    :func:`analysis.models.chain_inputs.footprint_range` does, holding fixed the `central` overrides (a notebook's
    parameters) that differ from the book's value; the rent draws the price of the row's own price entry (a K40
    search is priced as a K80, which the chain's sampler does not know), so it uses
    :func:`analysis.models.uncertainty.propagate` over that entry.
    """
    from analysis.models import chain, chain_inputs, uncertainty

    central = dict(central or {})
    rows = []
    for _, r in df.iterrows():
        gh, hid = float(r["gpu_hours"]), str(r["hardware_id"])
        power = chain.Power(tdp_of(r), "rated")
        price = price_range(str(r["price_key"]))[0]
        x = chain_inputs.inputs_for(hid, "central", power=power, usd_per_device_hour=price, **central)
        f = chain.run_footprint(gh, x)
        default = chain_inputs.inputs_for(hid, "central", power=power, usd_per_device_hour=price)
        held = {k: v for k, v in central.items() if getattr(default, k) != v}
        fps = [chain.run_footprint(gh, d)
               for d in chain_inputs.sampled_inputs(hid, power=power, usd_per_device_hour=price, **held)]
        mwh = chain_inputs.interval([d.facility_mwh for d in fps])
        t = chain_inputs.interval([d.operational_tco2e for d in fps])
        usd = uncertainty.propagate(lambda p, gh=gh: gh * p, ranged={"p": str(r["price_key"])})
        base: dict[str, object] = {str(k): v for k, v in r.items()}
        rows.append({**base, "tdp_used_w": power.watts,
                     "mwh": f.facility_mwh, "mwh_low": mwh[0], "mwh_high": mwh[1],
                     "tco2e": f.operational_tco2e, "tco2e_low": t[0], "tco2e_high": t[1],
                     "usd": f.rental_usd, "usd_low": usd.low, "usd_high": usd.high})
    return pd.DataFrame(rows)


def emissions_tornado(row: pd.Series, central: dict[str, float] | None = None) -> pd.DataFrame:
    """One-at-a-time tornado of a search's operational tCO2e over the documented ranges of the chain's inputs
    (power fraction of TDP, PUE, grid intensity France-world-India), each input's central value being the
    notebook's where it set one (:func:`analysis.models.uncertainty.tornado_of`)."""
    from dataclasses import replace

    from analysis.models import chain, chain_inputs, uncertainty

    central = dict(central or {})
    hid = str(row["hardware_id"])
    x = chain_inputs.inputs_for(hid, "central", power=chain.Power(tdp_of(row), "rated"), **central)
    grid = tuple(float(assumptions.entry(k)["value"]) for k in chain_inputs.ROLES["grid_kg_per_kwh"])
    sources = {"power_fraction": uncertainty.range_of(chain_inputs.power_fraction_key(hid)),
               "pue": uncertainty.range_of(chain_inputs.OPERATOR_PUE["other"]), "grid_kg_per_kwh": grid}
    ranged = {k: (min(lo, getattr(x, k)), getattr(x, k), max(hi, getattr(x, k))) for k, (lo, _, hi) in sources.items()}

    def tco2e(power_fraction: float, pue: float, grid_kg_per_kwh: float) -> float:
        y = replace(x, power_fraction=power_fraction, pue=pue, grid_kg_per_kwh=grid_kg_per_kwh)
        return chain.run_footprint(float(row["gpu_hours"]), y).operational_tco2e

    return uncertainty.tornado_of(tco2e, ranged)


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
