"""The footprint of a run (energy, emissions, rental cost) and its amortised cost after Cottier et al."""

from __future__ import annotations

from dataclasses import dataclass

from analysis.models.base import ModelError
from analysis.models.cost import amortised_cost_usd, co2e_tonnes, energy_kwh, rental_cost_usd

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
        raise ModelError(f"power_to_tdp must be in (0, 1.5], got {power_to_tdp!r}")
    kwh = energy_kwh(gpu_hours, tdp_w * power_to_tdp, pue)
    return Footprint(kwh / 1000, co2e_tonnes(kwh, grid_kg_per_kwh),
                     rental_cost_usd(gpu_hours, usd_per_gpu_hour))


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
        raise ModelError("server_factor and cluster_factor are multipliers of at least 1")
    overhead_total = server_factor * cluster_factor - 1
    kwh = energy_kwh(chip_hours, tdp_w * power_to_tdp * server_power_factor, pue)
    return amortised_cost_usd(chip_hours, chip_price_usd, amortisation_years,
                                     server_overhead=server_factor - 1,
                                     interconnect_overhead=overhead_total - (server_factor - 1),
                                     energy_kwh_=kwh, usd_per_kwh=usd_per_kwh)
