"""One chain from device-hours to energy, carbon and dollars, with named boundaries.

    accelerator  device-hours × accelerator power: a measured average where one is known, else the
                 rated power (TDP), the convention of Luccioni et al. 2022 and Touvron et al. 2023,
                 an upper bound on the chip's draw; a fraction known at the chip (TPUs) applies here
    server       device-hours × rated power × server power per accelerator / accelerator power
                 × average fraction of server TDP drawn (Cottier et al.'s 0.75 for NVIDIA GPUs is
                 a fraction of *server* TDP, so it applies here, not to the chip)
    facility     server energy × PUE (cooling, power conversion: what the facility meter sees)
    operational  facility energy × grid carbon intensity
    embodied     manufacturing emissions spread over the hours of the device's life in use
    cost         rent (device-hours × price), or amortised purchase (device price × chip-to-server
                 × server-to-cluster cost factors over the amortisation years) plus facility energy

After Cottier et al. 2024 (arXiv 2405.21015), App. A.4 (energy: chip TDP × chip-to-server power
× fraction of server TDP × PUE) and A.1 (cluster factor 1/(1 − interconnect share)), Patterson
et al. 2021 (arXiv 2104.10350) Eq. 1-2 (energy × PUE × grid), and Luccioni et al. 2022
(arXiv 2211.02001) Sec. 4.1 (embodied emissions over lifetime × use).

Every chapter and notebook that turns device-hours into kWh, tCO2e or dollars goes through
:func:`run_footprint` (or its parts below), so one run has one number per boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from analysis.models.base import ModelError, require_non_negative, require_positive
from analysis.models.cost import amortised_cost_usd, co2e_tonnes, embodied_co2e_tonnes

BOUNDARIES = ("accelerator", "server", "facility")
"""Where an energy figure stands, from the chip outwards."""

POWER_BASES = ("rated", "measured_chip", "measured_system")
"""How a device's power is known: a rated figure (TDP) of which a fraction is drawn on average;
a measured average at the chip; a measured average per device of the whole server (host share
included, as Patterson et al. 2021 report for GPT-3)."""


@dataclass(frozen=True)
class Power:
    """A device's power and how it is known (see :data:`POWER_BASES`)."""

    watts: float
    basis: str = "rated"


@dataclass(frozen=True)
class Energy:
    """Energy of a run at each boundary, in kWh (accelerator is NaN when only system power is known)."""

    accelerator_kwh: float
    server_kwh: float
    facility_kwh: float

    def at(self, boundary: str) -> float:
        if boundary not in BOUNDARIES:
            raise ModelError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}")
        return float(getattr(self, f"{boundary}_kwh"))


FRACTION_BOUNDARIES = ("server", "chip")
"""Where an average-to-rated power fraction is defined: of the server's TDP (Cottier et al. 2024,
App. A.4, for NVIDIA GPUs) or of the chip's TDP (measured chip averages over TDP, TPUs)."""


def energy_at_boundaries(device_hours: float, power: Power, power_fraction: float,
                         server_power_factor: float, pue: float, fraction_at: str = "server") -> Energy:
    """Energy at the accelerator, the server and the facility meter, in kWh.

    `power_fraction` (average / rated) applies only to a rated power, at the boundary it is defined
    at (`fraction_at`, see :data:`FRACTION_BOUNDARIES`); a measured average is used as it is.
    With a server fraction, the accelerator's own energy is taken at rated power (an upper bound).
    `server_power_factor` (server power per accelerator over accelerator power) does not apply to a
    measured system power, which already includes the host.
    """
    if fraction_at not in FRACTION_BOUNDARIES:
        raise ModelError(f"fraction_at must be one of {FRACTION_BOUNDARIES}, got {fraction_at!r}")
    require_non_negative(device_hours=device_hours)
    require_positive(watts=power.watts, server_power_factor=server_power_factor)
    if power.basis not in POWER_BASES:
        raise ModelError(f"power basis must be one of {POWER_BASES}, got {power.basis!r}")
    if not 0 < power_fraction <= 1.5:
        raise ModelError(f"power_fraction must be in (0, 1.5], got {power_fraction!r}")
    if server_power_factor < 1:
        raise ModelError(f"server_power_factor is a multiplier of at least 1, got {server_power_factor!r}")
    if not pue >= 1:
        raise ModelError(f"PUE must be at least 1, got {pue!r}")
    if power.basis == "measured_system":
        accelerator = math.nan
        server = device_hours * power.watts / 1000
    elif power.basis == "rated" and fraction_at == "server":
        accelerator = device_hours * power.watts / 1000
        server = accelerator * server_power_factor * power_fraction
    else:
        avg_w = power.watts * (power_fraction if power.basis == "rated" else 1.0)
        accelerator = device_hours * avg_w / 1000
        server = accelerator * server_power_factor
    return Energy(accelerator, server, server * pue)


def owned_cost_usd(device_hours: float, device_price_usd: float, amortisation_years: float,
                   server_cost_factor: float, cluster_cost_factor: float, facility_kwh: float,
                   usd_per_kwh: float) -> float:
    """Amortised purchase plus energy (Cottier et al. 2024, App. A.1 and A.4).

    Capital: device price × server cost factor (chip -> server) × cluster cost factor
    (server -> cluster, 1/(1 − interconnect share)), depreciated linearly; energy: facility kWh × price.
    """
    if server_cost_factor < 1 or cluster_cost_factor < 1:
        raise ModelError("server_cost_factor and cluster_cost_factor are multipliers of at least 1")
    overhead = server_cost_factor * cluster_cost_factor - 1
    return amortised_cost_usd(device_hours, device_price_usd, amortisation_years,
                              server_overhead=server_cost_factor - 1,
                              interconnect_overhead=overhead - (server_cost_factor - 1),
                              energy_kwh_=facility_kwh, usd_per_kwh=usd_per_kwh)


@dataclass(frozen=True)
class ChainInputs:
    """Everything the chain needs besides the device-hours. NaN price or embodied: not computed."""

    power: Power
    power_fraction: float
    server_power_factor: float
    pue: float
    grid_kg_per_kwh: float
    usd_per_device_hour: float = math.nan
    device_price_usd: float = math.nan
    amortisation_years: float = 5.0
    server_cost_factor: float = 1.0
    cluster_cost_factor: float = 1.0
    usd_per_kwh: float = 0.0
    embodied_kg_per_device: float = math.nan
    lifetime_years: float = 6.0
    lifetime_utilisation: float = 1.0
    fraction_at: str = "server"


@dataclass(frozen=True)
class RunFootprint:
    energy: Energy
    operational_tco2e: float
    embodied_tco2e: float
    rental_usd: float
    owned_usd: float

    @property
    def facility_mwh(self) -> float:
        return self.energy.facility_kwh / 1000


def run_footprint(device_hours: float, x: ChainInputs) -> RunFootprint:
    """The whole chain for one run: energy at each boundary, operational and embodied tCO2e, rent and ownership."""
    e = energy_at_boundaries(device_hours, x.power, x.power_fraction, x.server_power_factor, x.pue, x.fraction_at)
    op = co2e_tonnes(e.facility_kwh, x.grid_kg_per_kwh)
    emb = math.nan
    if not math.isnan(x.embodied_kg_per_device):
        emb = embodied_co2e_tonnes(device_hours, x.embodied_kg_per_device, x.lifetime_years, x.lifetime_utilisation)
    rent = math.nan if math.isnan(x.usd_per_device_hour) else device_hours * x.usd_per_device_hour
    own = math.nan
    if not math.isnan(x.device_price_usd):
        own = owned_cost_usd(device_hours, x.device_price_usd, x.amortisation_years, x.server_cost_factor,
                             x.cluster_cost_factor, e.facility_kwh, x.usd_per_kwh)
    return RunFootprint(e, op, emb, rent, own)
