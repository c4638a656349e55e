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
    "pue": ("pue_hyperscaler", "pue_non_hyperscaler", "pue_industry_average_uptime"),
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


def _pick(name: str, case: str) -> float:
    e = assumptions.entry(name)
    v = {"low": e["low"], "central": e["value"], "high": e["high"]}[case]
    return float(e["value"] if v is None or (isinstance(v, float) and math.isnan(v)) else v)


def role_value(role: str, case: str = "central") -> float:
    """The value of a chain role (e.g. ``pue``) in a case; a single name with a range uses its low/high."""
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    names = ROLES[role]
    if len(set(names)) == 1:
        if role in DECREASING:
            case = CASES[2 - CASES.index(case)]
        return _pick(names[0], case)
    return assumptions.get(names[CASES.index(case)])


def device_power(hardware_id: str) -> Power:
    """The accelerator's power and its basis; DataError if the table has no power figure."""
    s = hardware.spec(hardware_id)
    basis = s["tdp_basis"]
    if not isinstance(basis, str):
        hardware.tdp_w(hardware_id)  # raises DataError naming the file and the accelerator
        raise ValueError(f"data/hardware.csv: {hardware_id} has tdp_w but no tdp_basis")
    return Power(float(s["tdp_w"]), "rated" if basis == "rated" else "measured_chip")


def inputs_for(hardware_id: str, case: str = "central", **overrides: Any) -> ChainInputs:
    """The chain's inputs for `hardware_id` under the book's defaults (or their low/high ends).

    Keyword overrides replace a field of :class:`ChainInputs` (a notebook's parameters).
    Price fields are NaN where data/assumptions.yml has no price for the accelerator.
    """
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
        "pue": role_value("pue", case),
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
