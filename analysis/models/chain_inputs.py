"""The book's one set of chain assumptions, per accelerator, from data/hardware.csv and data/assumptions.yml.

Every chapter prices a run with :func:`inputs_for`; the three cases are the book's defaults
(``central``) and the ends of their ranges (``low``, ``high``: every output grows with every
input, so the low end takes all lows). The assumption names of each role are in :data:`ROLES`,
so the Methods page can list them and a test can hold the notebooks' parameter defaults to them.
"""

from __future__ import annotations

import math
from typing import Any

from analysis.data import assumptions, hardware
from analysis.models.chain import ChainInputs, Power
from analysis.models.cost import cluster_factor_from_share

CASES = ("low", "central", "high")

# role -> assumption name for (low, central, high); one name for all three means no range.
ROLES: dict[str, tuple[str, str, str]] = {
    "pue": ("pue_non_hyperscaler",) * 3,  # by operator class: OPERATOR_PUE
    "grid_kg_per_kwh": ("grid_kgco2e_per_kwh_france", "grid_kgco2e_per_kwh_world", "grid_kgco2e_per_kwh_india"),
    "usd_per_kwh": ("electricity_usd_per_kwh",) * 3,
    "amortisation_years": ("hardware_amortization_years",) * 3,
    "server_cost_factor": ("server_cost_factor_chip_to_server",) * 3,
    "interconnect_share": ("cluster_interconnect_fraction_of_hardware_cost",) * 3,
    "embodied_kg_per_device": ("embodied_kgco2e_per_gpu",) * 3,
    "lifetime_years": ("embodied_hardware_lifetime_years_bloom",) * 3,
    "lifetime_utilisation": ("embodied_lifetime_utilisation_bloom",) * 3,
}

UNNAMED_GPU = {"low": "V100", "central": "A100-40GB", "high": "H100-SXM"}
"""The accelerator a GPU-hour claim is priced and powered as when the paper names none (one convention
for every chapter): an A100 40 GB centrally, a V100 and an H100 SXM at the ends of the band."""

OPERATOR_PUE = {"hyperscaler": "pue_hyperscaler", "other": "pue_non_hyperscaler"}
"""PUE by the class of the operator whose data centre ran the job, as Cottier et al. 2024 (App. A.4)
assign it: the hyperscalers' own data centres (Alphabet, Microsoft, Meta, Amazon) 1.1, all others 1.25;
each entry's low/high is its sourced range. A run whose operator is not known is "other"."""

CLAIM_HARDWARE = {"A100": "A100-40GB", "H100": "H100-SXM", "V100": "V100", "L4": "L4", "MI300X": "MI300X"}
"""A GPU as a paper names it (data/claims.csv ``hardware``) -> the data/hardware.csv part the book prices and
powers it as. A bare "A100" does not say 40 or 80 GB, so it is the 40 GB part, the same part as the central
case of :data:`UNNAMED_GPU`; a bare "H100" is the SXM part. One table for every chapter, so two chapters
cannot price one run on two parts."""


def claim_hardware(gpu: str | None, case: str = "central") -> str:
    """The part a paper's GPU name is priced and powered as; a name outside :data:`CLAIM_HARDWARE` (none,
    or a bare "GPU") is the unnamed-GPU convention of `case`."""
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    return CLAIM_HARDWARE.get(gpu, UNNAMED_GPU[case]) if isinstance(gpu, str) else UNNAMED_GPU[case]


DECREASING = {"amortisation_years"}
"""Roles whose larger value lowers the outputs (a longer life spreads the price thinner)."""

_SPECIAL = {"H100-SXM": "h100", "H100-PCIe": "h100_pcie", "TPUv2": "tpu_v2", "TPUv3": "tpu_v3",
            "TPUv4": "tpu_v4", "TPUv5e": "tpu_v5e", "TPUv5p": "tpu_v5p"}


def _stem(hardware_id: str) -> str:
    return _SPECIAL.get(hardware_id, hardware_id.lower().replace("-", "_"))


def price_key(hardware_id: str) -> str:
    """The on-demand price entry of an accelerator (gpu_hour_usd_h100, chip_hour_usd_tpu_v4, ...)."""
    stem = _stem(hardware_id)
    return f"chip_hour_usd_{stem}" if stem.startswith("tpu") else f"gpu_hour_usd_{stem}"


def purchase_key(hardware_id: str) -> str:
    return f"purchase_price_usd_{_stem(hardware_id)}"


def server_power_key(hardware_id: str) -> str:
    """Chip-to-server power factor entry (Epoch AI's per-family values: A100, H100, V100, TPU v2/v3, other)."""
    kind = hardware.spec(hardware_id)["kind"]
    if kind == "tpu":
        stem = _stem(hardware_id)
        own = stem in ("tpu_v2", "tpu_v3")
        return f"chip_to_server_power_factor_{stem}" if own else "chip_to_server_power_factor_tpu"
    for family in ("A100", "H100", "V100"):
        if hardware_id.startswith(family):
            return f"chip_to_server_power_factor_{family.lower()}"
    return "chip_to_server_power_factor_default"


def power_fraction_key(hardware_id: str) -> str:
    return "power_to_tdp_ratio_tpu" if hardware.spec(hardware_id)["kind"] == "tpu" else "power_to_tdp_ratio_gpu"


def fraction_boundary(hardware_id: str) -> str:
    """Where the accelerator's power fraction is defined (analysis.models.chain.FRACTION_BOUNDARIES):
    Cottier et al.'s GPU fraction is of server TDP; the TPU fraction is of chip TDP (measured chip
    averages over TDP, Patterson et al. 2021 Table 4 and Jouppi et al. 2021, per its entry's note)."""
    return "chip" if hardware.spec(hardware_id)["kind"] == "tpu" else "server"


def _pick(name: str, case: str) -> float:
    e = assumptions.entry(name)
    v = {"low": e["low"], "central": e["value"], "high": e["high"]}[case]
    return float(e["value"] if v is None or (isinstance(v, float) and math.isnan(v)) else v)


def role_value(role: str, case: str = "central", operator: str = "other") -> float:
    """The value of a chain role (e.g. ``pue``) in a case; a single name with a range uses its low/high.
    `operator` (a key of :data:`OPERATOR_PUE`) chooses the PUE entry."""
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    if role == "pue":
        if operator not in OPERATOR_PUE:
            raise ValueError(f"operator must be one of {sorted(OPERATOR_PUE)}, got {operator!r}")
        return _pick(OPERATOR_PUE[operator], case)
    names = ROLES[role]
    if len(set(names)) == 1:
        if role in DECREASING:
            case = CASES[2 - CASES.index(case)]
        return _pick(names[0], case)
    return assumptions.get(names[CASES.index(case)])


def device_power(hardware_id: str) -> Power:
    """The accelerator's power and its basis; DataError if the table has no power figure.

    One rule for every accelerator: a vendor-published measured mean chip power (TPU v3, v4) is used
    as it is; otherwise the rated power (TDP), of which the chain takes a fraction."""
    mean = hardware.mean_power_w(hardware_id)
    if not math.isnan(mean):
        return Power(mean, "measured_chip")
    s = hardware.spec(hardware_id)
    basis = s["tdp_basis"]
    if not isinstance(basis, str):
        hardware.tdp_w(hardware_id)  # raises DataError naming the file and the accelerator
        raise ValueError(f"data/hardware.csv: {hardware_id} has tdp_w but no tdp_basis")
    return Power(float(s["tdp_w"]), "rated" if basis == "rated" else "measured_chip")


def inputs_for(hardware_id: str, case: str = "central", **overrides: Any) -> ChainInputs:
    """The chain's inputs for `hardware_id` under the book's defaults (or their low/high ends).

    ``operator=`` (keyword): the class of the data centre's operator (:data:`OPERATOR_PUE`, default
    "other"), which sets the PUE. Other keyword overrides replace a field of :class:`ChainInputs`
    (a notebook's parameters).
    Price fields are NaN where data/assumptions.yml has no price for the accelerator.
    """
    operator = str(overrides.pop("operator", "other"))
    def opt(key: str) -> float:
        try:
            return _pick(key, case)
        except KeyError:
            return math.nan

    power = overrides["power"] if "power" in overrides else device_power(hardware_id)
    fields: dict[str, Any] = {
        "power": power,
        "power_fraction": _pick(power_fraction_key(hardware_id), case) if power.basis == "rated" else 1.0,
        "server_power_factor": assumptions.get(server_power_key(hardware_id)),
        "fraction_at": fraction_boundary(hardware_id),
        "pue": role_value("pue", case, operator),
        "grid_kg_per_kwh": role_value("grid_kg_per_kwh", case),
        "usd_per_device_hour": opt(price_key(hardware_id)),
        "device_price_usd": opt(purchase_key(hardware_id)),
        "amortisation_years": role_value("amortisation_years", case),
        "server_cost_factor": role_value("server_cost_factor", case),
        "cluster_cost_factor": cluster_factor_from_share(role_value("interconnect_share", case)),
        "usd_per_kwh": role_value("usd_per_kwh", case),
        "embodied_kg_per_device": role_value("embodied_kg_per_device", case),
        "lifetime_years": role_value("lifetime_years", case),
        "lifetime_utilisation": role_value("lifetime_utilisation", case),
    }
    unknown = set(overrides) - set(fields)
    if unknown:
        raise TypeError(f"unknown chain inputs: {', '.join(sorted(unknown))}")
    fields.update(overrides)
    return ChainInputs(**fields)


# --- intervals -------------------------------------------------------------------------------------

INTERVAL = (10, 90)
"""The interval every modelled number carries: its 10th and 90th percentiles."""

SAMPLES = 2000
SEED = 20261204

INTERVAL_RULE = ("each assumption with a documented range is drawn from a triangular distribution "
                 "with its ends at the range and its mode at the central value; the interval is the "
                 f"{INTERVAL[0]}th-{INTERVAL[1]}th percentile of {SAMPLES} draws (seeded, so the same "
                 "every build); assumptions without a range stay at their value")


OWNERSHIP_ROLES = {"amortisation_years": "amortisation_years", "server_cost_factor": "server_cost_factor",
                   "cluster_cost_factor": "interconnect_share", "usd_per_kwh": "usd_per_kwh"}
"""Fields of :class:`ChainInputs` that only the ownership cost uses -> their role in :data:`ROLES`; each is
drawn over its documented range (the interconnect share, from which the cluster cost factor follows)."""


def _triangular(rng: Any, name: str, size: int) -> Any:
    import numpy as np

    e = assumptions.entry(name)
    c = float(e["value"])
    lo = c if e["low"] is None or _isnan(e["low"]) else float(e["low"])
    hi = c if e["high"] is None or _isnan(e["high"]) else float(e["high"])
    if hi <= lo:
        return np.full(size, c)
    return rng.triangular(lo, min(max(c, lo), hi), hi, size)


def range_of(name: str) -> tuple[float, float, float]:
    """(low, central, high) of a named assumption; an entry without a range has low = high = central
    (the same as :func:`analysis.models.uncertainty.range_of`, which this module cannot import)."""
    return _pick(name, "low"), _pick(name, "central"), _pick(name, "high")


def named_draws(name: str, n: int = SAMPLES) -> Any:
    """`n` triangular draws of a named assumption, seeded by its name exactly as
    :func:`analysis.models.uncertainty.draws` seeds them, so one assumption draws the same values in the chain
    and in any other model."""
    import zlib

    import numpy as np

    lo, c, hi = range_of(name)
    if hi <= lo:
        return np.full(n, c)
    return np.random.default_rng([SEED, zlib.crc32(name.encode("utf-8"))]).triangular(lo, c, hi, n)


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def sampled_inputs(hardware_id: str, **fixed: Any) -> list[ChainInputs]:
    """:data:`SAMPLES` draws of the chain's inputs for `hardware_id` by :data:`INTERVAL_RULE`; ``operator=``
    as in :func:`inputs_for`; other `fixed` fields (a run's own grid intensity, say) are held at the
    given value in every draw."""
    import numpy as np

    operator = str(fixed.pop("operator", "other"))
    n, seed = SAMPLES, SEED

    if operator not in OPERATOR_PUE:
        raise ValueError(f"operator must be one of {sorted(OPERATOR_PUE)}, got {operator!r}")
    rng = np.random.default_rng(seed)
    base = inputs_for(hardware_id, "central", operator=operator, **fixed)
    draws: dict[str, Any] = {}
    powers = None
    if base.power.basis == "rated" and "power_fraction" not in fixed:
        draws["power_fraction"] = _triangular(rng, power_fraction_key(hardware_id), n)
    elif base.power.basis == "measured_chip" and "power" not in fixed:
        lo, hi = hardware.mean_power_range_w(hardware_id)
        if not (math.isnan(lo) or math.isnan(hi)) and lo < hi:
            powers = rng.triangular(lo, base.power.watts, hi, n)
    if "pue" not in fixed:
        draws["pue"] = _triangular(rng, OPERATOR_PUE[operator], n)
    if "grid_kg_per_kwh" not in fixed:
        g = [assumptions.entry(k) for k in ROLES["grid_kg_per_kwh"]]
        draws["grid_kg_per_kwh"] = rng.triangular(float(g[0]["value"]), float(g[1]["value"]), float(g[2]["value"]), n)
    if "usd_per_device_hour" not in fixed and not math.isnan(base.usd_per_device_hour):
        draws["usd_per_device_hour"] = _triangular(rng, price_key(hardware_id), n)
    # the ownership inputs (amortised purchase plus energy) are drawn by name, as analysis.models.uncertainty
    # draws any assumption, after the draws above (which keep the values they had before these were added)
    for field, role in OWNERSHIP_ROLES.items():
        if field not in fixed:
            d = named_draws(ROLES[role][1], n)
            draws[field] = np.array([cluster_factor_from_share(float(v)) for v in d]) \
                if field == "cluster_cost_factor" else d
    from dataclasses import replace

    out: list[ChainInputs] = [replace(base, **{k: float(v[i]) for k, v in draws.items()}) for i in range(n)]  # type: ignore[arg-type]
    if powers is not None:
        out = [replace(x, power=Power(float(w), base.power.basis)) for x, w in zip(out, powers, strict=True)]
    return out


def interval(values: Any) -> tuple[float, float]:
    """The :data:`INTERVAL` percentiles of sampled values (NaN draws ignored)."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return math.nan, math.nan
    lo, hi = np.percentile(arr, INTERVAL)
    return float(lo), float(hi)


def footprint_draws(device_hours: float, hardware_id: str | list[str], **central_overrides: Any) -> list[Any]:
    """The :data:`SAMPLES` drawn footprints (:class:`analysis.models.chain.RunFootprint`) behind
    :func:`footprint_range`, in draw order, so a statistic of several outputs (rent over ownership cost, say)
    gets its interval from the same draws. Arguments as in :func:`footprint_range`."""
    from analysis.models.chain import run_footprint

    ids = [hardware_id] if isinstance(hardware_id, str) else list(hardware_id)
    overrides = dict(central_overrides)
    operator = str(overrides.pop("operator", "other"))
    draws = []
    for hid in ids:
        default = inputs_for(hid, "central", operator=operator)
        held = {k: v for k, v in overrides.items() if getattr(default, k) != v}
        fps = [run_footprint(device_hours, d) for d in sampled_inputs(hid, operator=operator, **held)]
        draws.extend(fps[: SAMPLES // len(ids)])
    return draws


def footprint_range(device_hours: float, hardware_id: str | list[str], **central_overrides: Any) -> dict[str, Any]:
    """A run's central footprint and the interval of its energy, emissions and rent (:data:`INTERVAL_RULE`).

    ``operator=`` as in :func:`inputs_for`. `central_overrides` replace fields of the central inputs (a
    notebook's parameters); one that differs from the book's value is also held fixed in the draws.
    `hardware_id` may be a list (a run whose GPU is not named): the central case is its first entry,
    and the draws are spread equally over all of them.
    Returns ``{"central": RunFootprint, "facility_mwh": (low, high), "operational_tco2e": (low, high),
    "rental_usd": (low, high), "server_mwh": (low, high), "owned_usd": (low, high)}`` (``owned_usd``: the
    amortised purchase plus energy, NaN where the accelerator has no purchase price).
    """
    from analysis.models.chain import run_footprint

    ids = [hardware_id] if isinstance(hardware_id, str) else list(hardware_id)
    x = inputs_for(ids[0], "central", **central_overrides)
    central = run_footprint(device_hours, x)
    draws = footprint_draws(device_hours, hardware_id, **central_overrides)
    return {"central": central,
            "facility_mwh": interval([f.facility_mwh for f in draws]),
            "operational_tco2e": interval([f.operational_tco2e for f in draws]),
            "rental_usd": interval([f.rental_usd for f in draws]),
            "server_mwh": interval([f.energy.server_kwh / 1000 for f in draws]),
            "owned_usd": interval([f.owned_usd for f in draws])}


QUANTITIES = ("facility_mwh", "server_mwh", "operational_tco2e", "rental_usd", "owned_usd")
"""Outputs of the chain a tornado can be drawn for (attributes of :class:`RunFootprint`, or its server MWh)."""


def ranged_inputs(hardware_id: str, operator: str = "other", held: Any = ()) -> dict[str, Any]:
    """The chain's inputs for `hardware_id` that have a documented range, as
    :func:`analysis.models.uncertainty.tornado_of` takes them: field of :class:`ChainInputs` -> assumption name
    (or a sourced (low, central, high) triple: the grid from France to India, a TPU's measured power range from
    data/hardware.csv); ``cluster_cost_factor`` is ranged as its interconnect share. Fields in `held` are left out."""
    x = inputs_for(hardware_id, "central", operator=operator)
    out: dict[str, Any] = {}
    if x.power.basis == "rated":
        out["power_fraction"] = power_fraction_key(hardware_id)
    else:
        lo, hi = hardware.mean_power_range_w(hardware_id)
        if not (math.isnan(lo) or math.isnan(hi)) and lo < hi:
            out["power_w"] = (lo, x.power.watts, hi)
    out["pue"] = OPERATOR_PUE[operator]
    out["grid_kg_per_kwh"] = tuple(assumptions.get(k) for k in ROLES["grid_kg_per_kwh"])
    if not math.isnan(x.usd_per_device_hour):
        out["usd_per_device_hour"] = price_key(hardware_id)
    for field, role in OWNERSHIP_ROLES.items():
        out["interconnect_share" if field == "cluster_cost_factor" else field] = ROLES[role][1]
    held = set(held)
    return {k: v for k, v in out.items() if k not in held and not (k == "power_w" and "power" in held)
            and not (k == "interconnect_share" and "cluster_cost_factor" in held)}


def footprint_tornado(device_hours: float, hardware_id: str, quantity: str, **central_overrides: Any) -> Any:
    """One-at-a-time sensitivity of one output of a run (:data:`QUANTITIES`) to each chain input with a
    documented range (:func:`ranged_inputs`), between the ends of that range, the others at their central values
    (the rule of :func:`analysis.models.uncertainty.tornado_of`). ``operator=`` and `central_overrides` as in
    :func:`footprint_range`: an override that differs from the book's value is held, not varied. Rows whose
    input does not move the output are left out; column ``assumption`` names each input's source."""
    from dataclasses import replace

    from analysis.models.chain import run_footprint
    from analysis.models.sensitivity import tornado

    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    operator = str(central_overrides.pop("operator", "other"))
    base = inputs_for(hardware_id, "central", operator=operator, **central_overrides)
    default = inputs_for(hardware_id, "central", operator=operator)
    held = {k for k, v in central_overrides.items() if getattr(default, k) != v}
    ranged = ranged_inputs(hardware_id, operator, held)

    def out(**kw: float) -> float:
        fields: dict[str, Any] = dict(kw)
        if "power_w" in fields:
            fields["power"] = Power(fields.pop("power_w"), base.power.basis)
        if "interconnect_share" in fields:
            fields["cluster_cost_factor"] = cluster_factor_from_share(fields.pop("interconnect_share"))
        f = run_footprint(device_hours, replace(base, **fields))
        return float(f.energy.server_kwh / 1000 if quantity == "server_mwh" else getattr(f, quantity))

    ends = {k: (range_of(v) if isinstance(v, str) else tuple(map(float, v))) for k, v in ranged.items()}
    t = tornado(out, {k: e[1] for k, e in ends.items()}, {k: (e[0], e[2]) for k, e in ends.items()})
    t = t[t["swing"] > 1e-12 * max(abs(float(t["out_base"].iloc[0])), 1e-300)].reset_index(drop=True)
    names = {k: (v if isinstance(v, str) else {"power_w": "data/hardware.csv mean_power_low_w/high_w",
                                                "grid_kg_per_kwh": ", ".join(ROLES["grid_kg_per_kwh"])}[k])
             for k, v in ranged.items()}
    return t.assign(assumption=t["parameter"].map(names))
