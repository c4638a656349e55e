"""The energy and carbon chain against published measurements (Methods page).

``data/validation-runs.csv`` holds, one row per published quantity, what a published training
run reports (energy or emissions, at its boundary) and the inputs it discloses. :func:`table`
runs the book's one chain (:mod:`analysis.models.chain`) on those inputs and compares; it also
runs the chain at the book's own defaults (:func:`analysis.models.chain_inputs.inputs_for`) with
the run's grid intensity, so a reader sees how far the book's conventions sit from each paper's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import pandera.pandas as pa

from analysis.data.schemas import opt_float
from analysis.data.tables import read_csv
from analysis.models import chain, chain_inputs, co2e_tonnes, embodied_co2e_tonnes

RUNS_FILE = "validation-runs.csv"
TOLERANCE = 0.05
"""Agreement required where the chain runs on the paper's own inputs (issue 17: within 5 %)."""

ROUNDING = 0.01
"""How far outside the book's interval a published figure may sit and still count as inside it: the
published figures are rounded (LLaMA's energies to whole MWh: 36 for 36.27)."""

QUANTITIES = ["energy_mwh", "tco2e_operational", "tco2e_idle", "tco2e_embodied", "tco2e_total"]
ACCELERATORS_PUE = "facility, accelerators only"
"""A published figure of accelerator energy times PUE, with no host share (LLaMA, Llama 2, BLOOM's
PUE-adjusted figure): the book's estimate at the same boundary is its accelerator energy times its PUE."""
BOUNDARIES = [*chain.BOUNDARIES, ACCELERATORS_PUE, "embodied", "life cycle"]


SCHEMA = pa.DataFrameSchema(
    {
        "run_id": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z0-9-]+$")),
        "run": pa.Column(str),
        "quantity": pa.Column(str, checks=pa.Check.isin(QUANTITIES)),
        "boundary": pa.Column(str, checks=pa.Check.isin(BOUNDARIES)),
        "published": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "unit": pa.Column(str, checks=pa.Check.isin(["MWh", "tCO2e"])),
        "hardware_id": pa.Column(str, nullable=True),
        "device_hours": opt_float(pa.Check.gt(0)),
        "power_w": opt_float(pa.Check.gt(0)),
        "power_basis": pa.Column(str, nullable=True, checks=pa.Check.isin(list(chain.POWER_BASES))),
        # the class of the operator of the data centre (our classification, by Cottier et al.'s rule:
        # hyperscalers' own data centres, or other): it sets the book's default PUE
        "operator_class": pa.Column(str, checks=pa.Check.isin(sorted(chain_inputs.OPERATOR_PUE))),
        "pue": opt_float(pa.Check.ge(1)),
        "grid_kg_per_kwh": opt_float(pa.Check.gt(0)),
        "measured_kwh": opt_float(pa.Check.gt(0)),
        "embodied_kg_per_device": opt_float(pa.Check.gt(0)),
        "lifetime_years": opt_float(pa.Check.gt(0)),
        "lifetime_utilisation": opt_float(pa.Check.in_range(0, 1)),
        "sum_of": pa.Column(str, nullable=True, checks=pa.Check.str_matches(r"^[a-z0-9-]+(;[a-z0-9-]+)*$")),
        "convention": pa.Column(str),
        "source": pa.Column(str),
        "source_url": pa.Column(str, checks=pa.Check.str_startswith("https://")),
        "seen_text": pa.Column(str),
    },
    strict=True,
)


def load() -> pd.DataFrame:
    return read_csv(RUNS_FILE, SCHEMA)


def _describe() -> str:
    df = load()
    table(df, intervals=False)  # raises if a row's inputs do not give a model value
    return f"{len(df)} published quantities from {df['source'].nunique()} publications"


DATA_FILES: dict[str, Callable[[], str]] = {RUNS_FILE: _describe}


def _f(x: Any) -> float:
    return float(x) if x is not None and not pd.isna(x) else math.nan


def _at(e: chain.Energy, boundary: str, pue: float) -> float:
    """Energy at a validation boundary, in kWh (the accelerator-only facility figure included)."""
    return e.accelerator_kwh * pue if boundary == ACCELERATORS_PUE else e.at(boundary)


def _energy_kwh(r: pd.Series) -> float:
    """Energy at the row's boundary from the paper's own inputs (fraction 1, no server factor: their convention)."""
    power = chain.Power(_f(r["power_w"]), str(r["power_basis"]))
    pue = _f(r["pue"]) if not math.isnan(_f(r["pue"])) else 1.0
    e = chain.energy_at_boundaries(_f(r["device_hours"]), power, 1.0, 1.0, pue)
    return _at(e, str(r["boundary"]), pue)


def model_value(r: pd.Series, by_id: dict[str, float]) -> float:
    """The chain's value for one published row (MWh or tCO2e), on the paper's own inputs."""
    if isinstance(r["sum_of"], str):
        parts = r["sum_of"].split(";")
        missing = [p for p in parts if p not in by_id]
        if missing:
            raise KeyError(f"data/{RUNS_FILE}: run {r['run_id']}: sum_of names {', '.join(missing)}, not (yet) defined")
        return sum(by_id[p] for p in parts)
    q = r["quantity"]
    if q == "energy_mwh":
        return _energy_kwh(r) / 1000
    if q == "tco2e_operational":
        return co2e_tonnes(_energy_kwh(r), _f(r["grid_kg_per_kwh"]))
    if q == "tco2e_idle":
        return co2e_tonnes(_f(r["measured_kwh"]), _f(r["grid_kg_per_kwh"]))
    if q == "tco2e_embodied":
        return embodied_co2e_tonnes(_f(r["device_hours"]), _f(r["embodied_kg_per_device"]),
                                    _f(r["lifetime_years"]), _f(r["lifetime_utilisation"]))
    raise ValueError(f"data/{RUNS_FILE}: run {r['run_id']}: quantity {q} needs sum_of")


def _book_quantity(r: pd.Series | dict[str, Any], x: chain.ChainInputs) -> float:
    f = chain.run_footprint(_f(r["device_hours"]), x)
    kwh = _at(f.energy, str(r["boundary"]), x.pue)
    return kwh / 1000 if r["quantity"] == "energy_mwh" else co2e_tonnes(kwh, x.grid_kg_per_kwh)


def _defaults_apply(r: pd.Series) -> bool:
    return r["quantity"] in ("energy_mwh", "tco2e_operational") and isinstance(r["hardware_id"], str) \
        and not pd.isna(r["device_hours"])


def _fixed(r: pd.Series) -> dict[str, float]:
    """What the book takes from the run itself: its grid intensity where the paper states one."""
    return {} if pd.isna(r["grid_kg_per_kwh"]) else {"grid_kg_per_kwh": _f(r["grid_kg_per_kwh"])}


def book_default_value(r: pd.Series) -> float:
    """The same quantity at the book's central defaults (power, fraction, server factor, the operator
    class's PUE) at the row's own boundary, with the run's grid."""
    if not _defaults_apply(r):
        return math.nan
    x = chain_inputs.inputs_for(r["hardware_id"], "central", operator=str(r["operator_class"]), **_fixed(r))
    return _book_quantity(r, x)


def book_default_draws(r: pd.Series) -> Any:
    """The book default's value in each draw of :func:`analysis.models.chain_inputs.sampled_inputs` (an array of
    :data:`analysis.models.chain_inputs.SAMPLES`; None where the defaults do not apply). The draws of one
    assumption are the same for every run, so a statistic over runs has its interval draw by draw."""
    import numpy as np

    if not _defaults_apply(r):
        return None
    draws = chain_inputs.sampled_inputs(r["hardware_id"], operator=str(r["operator_class"]), **_fixed(r))
    row = {k: r[k] for k in ("device_hours", "boundary", "quantity")}  # plain values, read once per draw
    return np.array([_book_quantity(row, x) for x in draws])


def book_default_interval(r: pd.Series) -> tuple[float, float]:
    """The book default's interval (:data:`analysis.models.chain_inputs.INTERVAL_RULE`)."""
    d = book_default_draws(r)
    return (math.nan, math.nan) if d is None else chain_inputs.interval(d)


def ratio_statistic(t: pd.DataFrame, stat: str) -> Any:
    """A statistic (``median``, ``min``, ``max``) over the rows of :func:`table` (with intervals) of the
    book default's ratio to the published figure, as an :class:`analysis.models.uncertainty.Interval`: the
    statistic of the central ratios, and the book's interval of the statistic taken draw by draw."""
    import numpy as np

    from analysis.models.uncertainty import Interval

    fn: Any = {"median": np.median, "min": np.min, "max": np.max}[stat]
    rows = t[t["book_defaults"].notna()]
    draws = np.vstack([d / p for d, p in zip(rows["book_defaults_draws"], rows["published"], strict=True)])
    lo, hi = chain_inputs.interval(fn(draws, axis=0))
    return Interval(float(fn(rows["ratio_book_defaults"].to_numpy(dtype=float))), lo, hi)


def _inputs(r: pd.Series) -> str:
    bits = []
    if not pd.isna(r["device_hours"]):
        bits.append(f"{r['device_hours']:,.0f} device-h")
    if not pd.isna(r["power_w"]):
        bits.append(f"{r['power_w']:g} W {str(r['power_basis']).replace('_', ' ')}")
    if not pd.isna(r["pue"]):
        bits.append(f"PUE {r['pue']:g}")
    if not pd.isna(r["grid_kg_per_kwh"]):
        bits.append(f"{r['grid_kg_per_kwh']:g} kg/kWh")
    if not pd.isna(r["measured_kwh"]):
        bits.append(f"{r['measured_kwh']:,.0f} kWh measured")
    if not pd.isna(r["embodied_kg_per_device"]):
        bits.append(f"{r['embodied_kg_per_device']:g} kg/device, {r['lifetime_years']:g} y at "
                    f"{100 * r['lifetime_utilisation']:.0f}%")
    if isinstance(r["sum_of"], str):
        bits.append("sum of " + ", ".join(r["sum_of"].split(";")))
    return "; ".join(bits)


def table(df: pd.DataFrame | None = None, intervals: bool = True) -> pd.DataFrame:
    """One row per published quantity: run, quantity, boundary, published, model, ratio, inputs, source, ..."""
    df = load() if df is None else df
    by_id: dict[str, float] = {}
    out = []
    for _, r in df.iterrows():
        m = model_value(r, by_id)
        if r["quantity"] != "energy_mwh":  # sum_of adds emissions of the runs it names
            by_id[str(r["run_id"])] = m
        b = book_default_value(r)
        draws = book_default_draws(r) if intervals else None
        b_lo, b_hi = chain_inputs.interval(draws) if draws is not None else (math.nan, math.nan)
        out.append({"run": r["run"], "run_id": r["run_id"], "quantity": r["quantity"], "boundary": r["boundary"],
                    "unit": r["unit"], "published": float(r["published"]), "model": m,
                    "ratio": m / float(r["published"]), "inputs": _inputs(r),
                    "book_defaults": b, "book_defaults_low": b_lo, "book_defaults_high": b_hi,
                    "book_defaults_draws": draws,
                    "ratio_book_defaults": b / float(r["published"]),
                    "published_inside": (b_lo * (1 - ROUNDING) <= float(r["published"]) <= b_hi * (1 + ROUNDING))
                    if not math.isnan(b_lo) else pd.NA,
                    "operator_class": r["operator_class"],
                    "convention": r["convention"], "source": r["source"], "source_url": r["source_url"]})
    t = pd.DataFrame(out)
    t["within_tolerance"] = (t["ratio"] - 1).abs() <= TOLERANCE
    return t
