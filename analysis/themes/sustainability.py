"""Training-cost trends and the footprint of training runs (chapter: sustainability).

- :func:`load_epoch` reads Epoch AI's priced frontier models and :func:`decimal_year` turns their
  dates into the x of the cost trend (fitted with :func:`analysis.models.trends.growth_fit`);
- :func:`gpu_hour_claims` and :func:`price_claims` price every GPU-hour claim of the corpus with
  the book's one chain (:mod:`analysis.models.chain`): energy at the facility meter, operational
  tCO2e and rental dollars, each with its low/high range.
Data: ``data/sustainability-epoch-models.csv`` (Epoch AI, CC BY 4.0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis.data.schemas import opt_float
from analysis.data.tables import read_csv
from analysis.models import chain_inputs

EPOCH_FILE = "sustainability-epoch-models.csv"
EPOCH_COMMIT = "263c40a159307e917213d1dc433c617e47d55bfe"

# Epoch hardware names -> our hardware ids (prices and power come from analysis.models.chain_inputs)
EPOCH_HARDWARE: dict[str, str] = {
    "NVIDIA A100 SXM4 80 GB": "A100-80GB",
    "NVIDIA A100 SXM4 40 GB": "A100-40GB",
    "NVIDIA Tesla V100 DGXS 32 GB": "V100",
    "NVIDIA Tesla K80": "K80",
    "NVIDIA P100": "P100",
    "Google TPU v3": "TPUv3",
    "Google TPU v4": "TPUv4",
}

EPOCH_SCHEMA = pa.DataFrameSchema(
    {
        "model": pa.Column(str, unique=True),
        "publication_date": pa.Column("datetime64[ns]", coerce=True),
        "training_compute_flop": opt_float(pa.Check.gt(0)),
        "training_hardware": pa.Column(str, nullable=True),
        "hardware_quantity": opt_float(pa.Check.gt(0)),
        "training_chip_hours": opt_float(pa.Check.gt(0)),
        "training_time_hours": opt_float(pa.Check.gt(0)),
        "compute_rank_when_published": pa.Column("Int64", coerce=True, checks=pa.Check.in_range(1, 10)),
        "epoch_cloud_cost_usd2023": opt_float(pa.Check.gt(0)),
        "epoch_hardware_acquisition_cost_usd2023": opt_float(pa.Check.gt(0)),
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


# --- the corpus's GPU-hour claims, priced with the book's one chain ----------------------------

# The hardware names claims use -> data/hardware.csv ids, the book's one table (a bare "A100" is the 40 GB
# part). A claim naming no GPU is priced as an A100 40 GB in the central case and spans a V100 (low) to an
# H100 SXM (high).
CLAIM_HARDWARE = chain_inputs.CLAIM_HARDWARE
UNNAMED = chain_inputs.UNNAMED_GPU


def gpu_hour_claims() -> pd.DataFrame:
    """Every claim of metric gpu_hours or gpu_days, in GPU-hours (a named-GPU figure quoted twice counts once)."""
    from analysis.data import claims

    c = claims.load()
    c = c[c.metric.isin(["gpu_hours", "gpu_days"])].copy()
    c["v"] = c.value.where(c.value.notna(), (c.low + c.high) / 2)
    c["gpu_hours"] = np.where(c.metric == "gpu_days", c.v * 24, c.v)
    named = c.hardware.isin(list(CLAIM_HARDWARE))
    return pd.concat([c[named].drop_duplicates(subset=["v", "unit", "hardware"]), c[~named]]).sort_values("gpu_hours")


def price_claims(c: pd.DataFrame, overrides: dict[str, dict[str, float]] | None = None) -> pd.DataFrame:
    """Energy at the facility meter (MWh), operational tCO2e and rental USD of each claim, per case.

    Columns ``{energy_mwh,tco2e,usd}_{low,central,high}``; every figure from
    :func:`analysis.models.chain_inputs.footprint_range` (central inputs plus `overrides["central"]`; low
    and high the interval of the book's one rule; a claim that names no GPU is an A100 40 GB at the
    centre and spread over V100, A100 40 GB and H100 SXM in the interval).
    """

    overrides = overrides or {}
    rows = []
    for r in c.to_dict("records"):
        hw = r["hardware"] if isinstance(r["hardware"], str) else ""
        named = hw in CLAIM_HARDWARE
        gh = float(r["gpu_hours"])
        row = {"claim_id": r["claim_id"], "citekey": r["citekey"], "workload": r["workload"],
               "hardware": CLAIM_HARDWARE[hw] if named else "unnamed GPU", "gpu_hours": gh}
        if named:
            ids: str | list[str] = chain_inputs.claim_hardware(hw)
        else:
            ids = [chain_inputs.claim_hardware(hw, c) for c in ("central", "low", "high")]
        rng = chain_inputs.footprint_range(gh, ids, **overrides.get("central", {}))
        f = rng["central"]
        for case, i in (("low", 0), ("high", 1)):
            row.update({f"energy_mwh_{case}": rng["facility_mwh"][i], f"tco2e_{case}": rng["operational_tco2e"][i],
                        f"usd_{case}": rng["rental_usd"][i]})
        row.update({"energy_mwh_central": f.facility_mwh, "tco2e_central": f.operational_tco2e,
                    "usd_central": f.rental_usd})
        rows.append(row)
    out = pd.DataFrame(rows)
    out["priced"] = out["usd_central"].notna()
    return out


# --- what the assumptions do: tornado panels ----------------------------------------------------

TORNADO_LABELS = {
    "power_fraction": "GPU power\n(fraction of TDP)", "power_w": "chip power\n(W, measured range)", "pue": "PUE",
    "grid_kg_per_kwh": "grid intensity\n(kgCO2e/kWh)", "usd_per_device_hour": "on-demand price\n(USD/GPU-hour)",
    "amortisation_years": "amortisation\n(years)", "server_cost_factor": "server cost factor",
    "interconnect_share": "interconnect share\nof hardware cost", "usd_per_kwh": "electricity price\n(USD/kWh)",
}
"""Axis labels of the chain's ranged inputs (:func:`analysis.models.chain_inputs.ranged_inputs`)."""


def draw_tornado(ax: Any, t: pd.DataFrame, scale: float = 1.0, unit: str = "",
                 labels: dict[str, str] | None = None) -> None:
    """One tornado panel on `ax` from a :func:`analysis.models.chain_inputs.footprint_tornado` (or
    :func:`analysis.models.uncertainty.tornado_of`) table: the largest swing on top, a light bar for an input at
    the low end of its range and a dark one at its high end, each end labelled with the input's value."""
    names = {**TORNADO_LABELS, **(labels or {})}
    rows: list[dict[Any, Any]] = t.iloc[::-1].to_dict("records")
    if not rows:  # every input of this output is held at a value the caller set: nothing moves it
        ax.text(0.5, 0.5, "no ranged input: held at the value set", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_yticks([])
        ax.set_xlabel(unit)
        return
    base = float(rows[0]["out_base"]) / scale
    for i, r in enumerate(rows):
        lo, hi = float(r["out_low"]) / scale, float(r["out_high"]) / scale
        ax.barh(i, lo - base, left=base, color="#88CCEE", height=0.6)
        ax.barh(i, hi - base, left=base, color="#882255", height=0.6)
        for val, x in ((r["low"], lo), (r["high"], hi)):
            if pd.isna(val) or val == r["base"]:
                continue  # no one value (ranges differ by accelerator), or the default is at this end
            right = x >= base
            ax.annotate(f"{val:.3g}", (x, i), xytext=(4 if right else -4, 0), textcoords="offset points",
                        ha="left" if right else "right", va="center", fontsize=10)
    ax.axvline(base, color="#333333", lw=1.2)
    ax.set_yticks(range(len(rows)), [names.get(str(r["parameter"]), str(r["parameter"])) for r in rows])
    ax.set_xlabel(unit)
    xmin, xmax = ax.get_xlim()
    ax.set_xlim(xmin - 0.25 * (xmax - xmin), xmax + 0.25 * (xmax - xmin))


def ranges_note(t: pd.DataFrame) -> str:
    """The ranges a tornado moved its inputs over, for a caption: "PUE 1.2-1.6 (pue_non_hyperscaler), ..."."""
    rows: list[dict[Any, Any]] = t.to_dict("records")
    def one(r: dict[Any, Any]) -> str:
        label = TORNADO_LABELS.get(str(r["parameter"]), str(r["parameter"])).replace("\n", " ")
        span = "per accelerator" if pd.isna(r["low"]) else f"{r['low']:.3g}–{r['high']:.3g}"
        return f"{label} {span} ({r['assumption']})"

    return "; ".join(one(r) for r in rows)


def run_sensitivity(gpu_hours: float, hardware_id: str, **central: float) -> dict[str, object]:
    """What the assumptions do to one run: its central footprint, the intervals of its emissions, rent,
    ownership cost and rent-over-ownership ratio (all from the same draws of
    :func:`analysis.models.chain_inputs.footprint_draws`), and the tornados of its emissions and ownership cost
    (:func:`analysis.models.chain_inputs.footprint_tornado`). `central` holds the notebook's parameters (fields
    of :class:`analysis.models.chain.ChainInputs`); one that differs from the book's value is held fixed."""
    from analysis.models.uncertainty import Interval

    fp = chain_inputs.footprint_range(gpu_hours, hardware_id, **central)
    c = fp["central"]
    draws = chain_inputs.footprint_draws(gpu_hours, hardware_id, **central)
    ratio = chain_inputs.interval([d.rental_usd / d.owned_usd for d in draws])
    return {
        "central": c,
        "tco2e": Interval(c.operational_tco2e, *fp["operational_tco2e"]),
        "rent": Interval(c.rental_usd, *fp["rental_usd"]),
        "own": Interval(c.owned_usd, *fp["owned_usd"]),
        "rent_over_own": Interval(c.rental_usd / c.owned_usd, *ratio),
        "tornado_tco2e": chain_inputs.footprint_tornado(gpu_hours, hardware_id, "operational_tco2e", **central),
        "tornado_own": chain_inputs.footprint_tornado(gpu_hours, hardware_id, "owned_usd", **central),
    }


def claim_interval(row: pd.Series | dict[str, object], quantity: str) -> object:
    """A :func:`price_claims` row's modelled number (``energy_mwh``, ``tco2e``, ``usd``) as an
    :class:`analysis.models.uncertainty.Interval` (central, and the ends of the book's interval)."""
    from analysis.models.uncertainty import Interval

    return Interval(float(row[f"{quantity}_central"]), float(row[f"{quantity}_low"]),  # type: ignore[arg-type]
                    float(row[f"{quantity}_high"]))  # type: ignore[arg-type]


# --- the book's chain on Epoch's chip-hours --------------------------------------------------------

def recompute_epoch(ep: pd.DataFrame, **central: float) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Epoch's priced models whose hardware the book knows, re-costed with the book's one chain on Epoch's
    chip-hours: a table (model, hardware, chip_hours, ours_amortised, epoch_amortised, ours_rental,
    epoch_cloud and the two ratios ours/Epoch, at the central inputs plus `central`) and the draws behind the
    intervals (``{"ours_amortised", "ratio_amortised", "ratio_rental"}``: arrays of models x
    :data:`chain_inputs.SAMPLES`, one column per draw of :func:`analysis.models.chain_inputs.footprint_draws`;
    the draws of one assumption are the same for every model, so a statistic over the models has its interval
    column by column)."""
    rows, own, amort, rent = [], [], [], []
    records: list[dict[Any, Any]] = ep.dropna(subset=["training_chip_hours"]).to_dict("records")
    for r in records:
        if r["training_hardware"] not in EPOCH_HARDWARE:
            continue
        hid = EPOCH_HARDWARE[str(r["training_hardware"])]
        hours, epoch_own, epoch_cloud = (float(r[k]) for k in ("training_chip_hours", "epoch_amortised_cost_usd2023",
                                                                "epoch_cloud_cost_usd2023"))
        f = chain_inputs.footprint_range(hours, hid, **central)["central"]
        draws = chain_inputs.footprint_draws(hours, hid, **central)
        rows.append({"model": r["model"], "hardware": hid, "chip_hours": hours, "ours_amortised": f.owned_usd,
                     "epoch_amortised": epoch_own, "ours_rental": f.rental_usd, "epoch_cloud": epoch_cloud})
        own.append(np.array([d.owned_usd for d in draws]))
        amort.append(own[-1] / epoch_own)
        rent.append(np.array([d.rental_usd for d in draws]) / epoch_cloud)  # NaN where Epoch has no cloud cost
    cmp = pd.DataFrame(rows)
    cmp["ratio_amortised"] = cmp.ours_amortised / cmp.epoch_amortised
    cmp["ratio_rental"] = cmp.ours_rental / cmp.epoch_cloud
    return cmp, {"ours_amortised": np.vstack(own), "ratio_amortised": np.vstack(amort), "ratio_rental": np.vstack(rent)}


def statistic_interval(central: pd.Series, draws: np.ndarray, stat: str) -> object:
    """A statistic over models (``median``, ``min``, ``max``, NaNs left out) of a modelled column, with its
    interval by the book's rule: the statistic of each draw's column, then the 10th-90th percentile."""
    from analysis.models.uncertainty import Interval

    fn: Any = {"median": np.nanmedian, "min": np.nanmin, "max": np.nanmax}[stat]
    lo, hi = chain_inputs.interval(fn(draws, axis=0))
    return Interval(float(fn(central.to_numpy(dtype=float))), lo, hi)


def epoch_ratio_tornado(cmp: pd.DataFrame, quantity: str = "owned_usd", stat: str = "median",
                        **central: float) -> pd.DataFrame:
    """One-at-a-time sensitivity of a statistic over models (the median of ours/Epoch, say) to each chain input
    with a documented range: for each input, every model's cost at the ends of that input's range (the others
    central; :func:`analysis.models.chain_inputs.footprint_tornado`, a model that does not use the input keeps its
    central cost), over Epoch's estimate, then the statistic. `cmp` is :func:`recompute_epoch`'s table; rows as
    :func:`analysis.models.sensitivity.tornado` gives them (``low``/``high``/``base``: the input's range; NaN
    where the models' ranges differ), sorted by swing, with the ``assumption`` each input is drawn from."""
    fn: Any = {"median": np.nanmedian, "min": np.nanmin, "max": np.nanmax}[stat]
    epoch = cmp["epoch_amortised" if quantity == "owned_usd" else "epoch_cloud"].to_numpy(dtype=float)
    base = cmp["ours_amortised" if quantity == "owned_usd" else "ours_rental"].to_numpy(dtype=float)
    per_model = [chain_inputs.footprint_tornado(float(h), str(hw), quantity, **central).set_index("parameter")
                 for h, hw in zip(cmp["chip_hours"], cmp["hardware"], strict=True)]
    params = sorted({p for t in per_model for p in t.index})
    rows = []
    for p in params:
        ends = {}
        for end in ("low", "high"):
            vals = np.array([float(t.at[p, f"out_{end}"]) if p in t.index else b
                             for t, b in zip(per_model, base, strict=True)])
            ends[end] = float(fn(vals / epoch))
        used = [t.loc[p] for t in per_model if p in t.index]
        same = len({(float(u["low"]), float(u["high"])) for u in used}) == 1
        rows.append({"parameter": p, "low": float(used[0]["low"]) if same else np.nan,
                     "high": float(used[0]["high"]) if same else np.nan,
                     "base": float(used[0]["base"]) if same else np.nan,
                     "out_low": ends["low"], "out_high": ends["high"], "out_base": float(fn(base / epoch)),
                     "swing": abs(ends["high"] - ends["low"]),
                     "assumption": "; ".join(sorted({str(u["assumption"]) for u in used}))})
    return pd.DataFrame(rows).sort_values("swing", ascending=False).reset_index(drop=True)


def top_input(t: pd.DataFrame) -> str:
    """The input that moves a tornado's output most, in words for the prose ("grid intensity"); "no input"
    when every ranged input is held at a value the caller set."""
    if t.empty:
        return "no input"
    return TORNADO_LABELS.get(str(t["parameter"].iloc[0]), str(t["parameter"].iloc[0])).split("\n")[0]
