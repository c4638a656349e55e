"""Training-cost trends and the footprint of training runs (chapter: sustainability).

Pure functions with units in the argument names:
- :func:`growth_rate` fits log10(cost) against the decimal year and bootstraps the slope
  (a factor per year, after Cottier et al. 2024);
- :func:`footprint` prices a run given in GPU-hours: facility energy, operational tCO2e and
  rental dollars, with :func:`footprint_range` giving the low/high ends from assumption ranges;
- :func:`our_amortised_cost_usd` re-computes an amortised hardware-plus-energy cost from
  chip-hours with :func:`analysis.models.amortised_cost_usd`;
- :func:`tornado` moves one assumption at a time and records the output.
Data: ``data/sustainability-epoch-models.csv`` (Epoch AI, CC BY 4.0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.tables import read_csv

EPOCH_FILE = "sustainability-epoch-models.csv"
EPOCH_COMMIT = "263c40a159307e917213d1dc433c617e47d55bfe"

# Epoch hardware names -> (our hardware id, purchase-price key, rental-price key, power-to-TDP key)
EPOCH_HARDWARE: dict[str, tuple[str, str, str, str]] = {
    "NVIDIA A100 SXM4 80 GB": ("A100-80GB", "purchase_price_usd_a100_80gb", "gpu_hour_usd_a100_80gb",
                               "power_to_tdp_ratio_gpu"),
    "NVIDIA A100 SXM4 40 GB": ("A100-40GB", "purchase_price_usd_a100_40gb", "gpu_hour_usd_a100_40gb",
                               "power_to_tdp_ratio_gpu"),
    "NVIDIA Tesla V100 DGXS 32 GB": ("V100", "purchase_price_usd_v100", "gpu_hour_usd_v100",
                                     "power_to_tdp_ratio_gpu"),
    "NVIDIA Tesla K80": ("K80", "purchase_price_usd_k80", "gpu_hour_usd_k80", "power_to_tdp_ratio_gpu"),
    "NVIDIA P100": ("P100", "purchase_price_usd_p100", "gpu_hour_usd_p100", "power_to_tdp_ratio_gpu"),
    "Google TPU v3": ("TPUv3", "purchase_price_usd_tpu_v3", "chip_hour_usd_tpu_v3", "power_to_tdp_ratio_tpu"),
    "Google TPU v4": ("TPUv4", "purchase_price_usd_tpu_v4", "chip_hour_usd_tpu_v4", "power_to_tdp_ratio_tpu"),
}

EPOCH_SCHEMA = pa.DataFrameSchema(
    {
        "model": pa.Column(str, unique=True),
        "publication_date": pa.Column("datetime64[ns]", coerce=True),
        "training_compute_flop": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "training_hardware": pa.Column(str, nullable=True),
        "hardware_quantity": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "training_chip_hours": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "training_time_hours": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "compute_rank_when_published": pa.Column("Int64", coerce=True, checks=pa.Check.in_range(1, 10)),
        "epoch_cloud_cost_usd2023": pa.Column(float, nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "epoch_hardware_acquisition_cost_usd2023": pa.Column(float, nullable=True, coerce=True,
                                                             checks=pa.Check.gt(0)),
        "epoch_amortised_cost_usd2023": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "source": pa.Column(str, checks=pa.Check.str_contains(EPOCH_COMMIT)),
    },
    strict=True,
)


def load_epoch() -> pd.DataFrame:
    """Epoch AI's priced frontier models (82 rows; costs in 2023 USD)."""
    return read_csv(EPOCH_FILE, EPOCH_SCHEMA)


def _describe_epoch() -> str:
    df = load_epoch()
    return f"{len(df)} Epoch AI frontier models with cost estimates"


DATA_FILES: dict[str, Callable[[], str]] = {EPOCH_FILE: _describe_epoch}


# --- trend ---------------------------------------------------------------------------------

def decimal_year(dates: pd.Series) -> np.ndarray:
    """Dates as decimal years (2020-07-02 -> about 2020.5)."""
    d = pd.to_datetime(dates)
    return np.asarray(d.dt.year + (d.dt.day_of_year - 1) / 365.25, dtype=float)


# --- footprint of a run --------------------------------------------------------------------

@dataclass(frozen=True)
class Footprint:
    energy_mwh: float
    tco2e: float
    usd: float


def footprint(gpu_hours: float, tdp_w: float, power_to_tdp: float, pue: float, grid_kg_per_kwh: float,
              usd_per_gpu_hour: float) -> Footprint:
    """Facility energy (MWh), operational emissions (tCO2e) and rental cost (USD) of a run.

    energy = GPU-hours × TDP × power_to_tdp × PUE; tCO2e = kWh × grid / 1000; USD = GPU-hours × price.
    """
    if not 0 < power_to_tdp <= 1.5:
        raise models.ModelError(f"power_to_tdp must be in (0, 1.5], got {power_to_tdp!r}")
    kwh = models.energy_kwh(gpu_hours, tdp_w * power_to_tdp, pue)
    return Footprint(kwh / 1000, models.co2e_tonnes(kwh, grid_kg_per_kwh),
                     models.rental_cost_usd(gpu_hours, usd_per_gpu_hour))


def footprint_range(gpu_hours: float, tdp_w: tuple[float, float, float], power_to_tdp: tuple[float, float, float],
                    pue: tuple[float, float, float], grid: tuple[float, float, float],
                    price: tuple[float, float, float]) -> dict[str, Footprint]:
    """Central, low and high footprints from (central, low, high) triples of each assumption.

    Every output grows with every input, so the low end takes all lows and the high end all highs.
    """
    out = {}
    for k, i in (("central", 0), ("low", 1), ("high", 2)):
        out[k] = footprint(gpu_hours, tdp_w[i], power_to_tdp[i], pue[i], grid[i], price[i])
    return out


# --- amortised cost after Cottier et al. ------------------------------------------------------

def our_amortised_cost_usd(chip_hours: float, chip_price_usd: float, amortisation_years: float,
                           server_factor: float, cluster_factor: float, tdp_w: float, power_to_tdp: float,
                           server_power_factor: float, pue: float, usd_per_kwh: float) -> float:
    """Amortised hardware capital plus energy for `chip_hours`, in USD.

    Capital: chip price × server factor (chip -> server) × cluster factor (server -> cluster),
    depreciated linearly over `amortisation_years`. Energy: chip-hours × TDP × power_to_tdp ×
    server_power_factor (chip -> server power) × PUE, priced at `usd_per_kwh`.
    """
    if server_factor < 1 or cluster_factor < 1:
        raise models.ModelError("server_factor and cluster_factor are multipliers of at least 1")
    overhead_total = server_factor * cluster_factor - 1
    kwh = models.energy_kwh(chip_hours, tdp_w * power_to_tdp * server_power_factor, pue)
    return models.amortised_cost_usd(chip_hours, chip_price_usd, amortisation_years,
                                     server_overhead=server_factor - 1,
                                     interconnect_overhead=overhead_total - (server_factor - 1),
                                     energy_kwh_=kwh, usd_per_kwh=usd_per_kwh)


# --- sensitivity ---------------------------------------------------------------------------

def tornado(fn: Callable[..., float], base: Mapping[str, float],
            ranges: Mapping[str, tuple[float, float]]) -> pd.DataFrame:
    """Output of `fn(**params)` with one parameter at a time set to its low and high value.

    Returns one row per varied parameter: low and high input, output at each, and the swing
    |out_high - out_low|, sorted by swing (largest first). `base` holds every parameter.
    """
    missing = set(ranges) - set(base)
    if missing:
        raise models.ModelError(f"ranges for unknown parameters: {sorted(missing)}")
    ref = fn(**base)
    rows = []
    for name, (lo, hi) in ranges.items():
        out_lo = fn(**{**base, name: lo})
        out_hi = fn(**{**base, name: hi})
        rows.append({"parameter": name, "low": lo, "high": hi, "base": base[name], "out_low": out_lo,
                     "out_high": out_hi, "out_base": ref, "swing": abs(out_hi - out_lo)})
    return pd.DataFrame(rows).sort_values("swing", ascending=False).reset_index(drop=True)
