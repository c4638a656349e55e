"""The extra inputs a check needs, each with a sentence naming its source: datasheet peaks and
memory (data/hardware.csv), prices (data/assumptions.yml) and published constants
(data/claims-constants.csv, validated here)."""

from __future__ import annotations

from functools import lru_cache

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.audit.registry import PLAUSIBLE, Result
from analysis.data import assumptions, hardware
from analysis.data.paths import DataError
from analysis.data.tables import read_csv


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


def priced_at(inputs: str) -> str | None:
    """The price entry of data/assumptions.yml a check priced at, read back from its inputs sentence (the form
    :func:`price_input` writes: "<name> = $<value>/GPU-hour ..."); None for a check that used no book price."""
    import re

    m = re.match(r"^([a-z0-9_]+) = \$", inputs or "")
    if m is None or m.group(1) not in set(assumptions.load()["name"]):
        return None
    return m.group(1)


def price_interval(value_at_default: float, price_name: str) -> object:
    """A figure that is linear in a book price (a rent at the default), with the price drawn from its documented
    range by the book's one interval rule: an :class:`analysis.models.uncertainty.Interval`."""
    from analysis.models import uncertainty

    default = uncertainty.range_of(price_name)[1]
    return uncertainty.propagate(lambda p: value_at_default * p / default, ranged={"p": price_name})


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




# --- shared by the checks of several themes ---------------------------------------------

def cost_rate(reported_usd: float, gpu_hours_: float, price_name: str, what: str) -> Result:
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


def fits(reported_gpus: float, total_gb: float, per_gpu_gb: float, src: str, formula_head: str) -> Result:
    needed = models.gpus_to_hold(total_gb, per_gpu_gb)
    verdict = "consistent" if reported_gpus >= needed else "implausible"
    return Result(reported_gpus, float(needed), "GPUs", 0.0, verdict,
                  f"{formula_head} = {total_gb:g} GB; / {per_gpu_gb:g} GB -> {needed} GPUs (stated "
                  f"{reported_gpus:g}: {reported_gpus * per_gpu_gb:g} GB)", inputs=src, relation="≥",
                  explanation="Weights alone; the remaining memory holds activations and the KV cache.")
