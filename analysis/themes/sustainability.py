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

from collections.abc import Callable

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis.data.tables import read_csv

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
