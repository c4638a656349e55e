"""Time, cost, energy and carbon of GPU-hours.

Pure functions; units are in the argument names (see analysis.models)."""

from __future__ import annotations

from analysis.models.base import HOURS_PER_YEAR, ModelError, require_non_negative, require_positive


def training_days(flops: float, n_gpus: int, peak_tflops: float, mfu_: float) -> float:
    """Wall-clock days to spend `flops` on `n_gpus` at a given MFU."""
    require_positive(flops=flops, n_gpus=n_gpus, peak_tflops=peak_tflops, mfu_=mfu_)
    if mfu_ > 1:
        raise ModelError("MFU cannot exceed 1")
    return flops / (n_gpus * peak_tflops * 1e12 * mfu_) / 86400


def gpu_hours(n_gpus: float, days: float) -> float:
    require_positive(n_gpus=n_gpus, days=days)
    return n_gpus * days * 24


def rental_cost_usd(gpu_hours_: float, usd_per_gpu_hour: float) -> float:
    """Cloud rental cost: GPU-hours × price per GPU-hour."""
    require_non_negative(gpu_hours_=gpu_hours_, usd_per_gpu_hour=usd_per_gpu_hour)
    return gpu_hours_ * usd_per_gpu_hour


def amortised_cost_usd(gpu_hours_: float, gpu_price_usd: float, amortisation_years: float,
                       server_overhead: float = 0.0, interconnect_overhead: float = 0.0,
                       energy_kwh_: float = 0.0, usd_per_kwh: float = 0.0) -> float:
    """Amortised hardware capital plus energy, after Cottier et al. 2024.

    Capital: the accelerators' price, raised by the server and cluster-interconnect overheads
    (fractions of the accelerator price), depreciated linearly over `amortisation_years`, for
    the GPU-hours used. Energy: kWh × price.
    """
    require_non_negative(gpu_hours_=gpu_hours_, gpu_price_usd=gpu_price_usd, server_overhead=server_overhead,
                  interconnect_overhead=interconnect_overhead, energy_kwh_=energy_kwh_, usd_per_kwh=usd_per_kwh)
    require_positive(amortisation_years=amortisation_years)
    per_hour = gpu_price_usd * (1 + server_overhead + interconnect_overhead) / (amortisation_years * HOURS_PER_YEAR)
    return gpu_hours_ * per_hour + energy_kwh_ * usd_per_kwh


def cluster_factor_from_share(share_of_hardware_cost: float) -> float:
    """Server-to-cluster cost factor from the interconnect's share of all hardware cost.

    If networking is a fraction f of the cluster's hardware cost, the servers are the other
    1 − f, so the cluster costs 1/(1 − f) times its servers (Cottier et al. 2024, App. A.1:
    19% gives 1.23), not 1 + f.
    """
    if not 0 <= share_of_hardware_cost < 1:
        raise ModelError(f"share_of_hardware_cost must be in [0, 1), got {share_of_hardware_cost!r}")
    return 1.0 / (1.0 - share_of_hardware_cost)


def usd_per_million_tokens(tokens_per_s: float, usd_per_hour: float) -> float:
    """Serving cost per 1e6 tokens from a throughput and an hourly price of the serving unit."""
    require_positive(tokens_per_s=tokens_per_s)
    require_non_negative(usd_per_hour=usd_per_hour)
    return usd_per_hour / (tokens_per_s * 3600) * 1e6


def co2e_tonnes(energy_kwh_: float, kg_co2e_per_kwh: float) -> float:
    """Operational emissions in tCO2e: kWh × grid intensity (kgCO2e/kWh) / 1000."""
    require_non_negative(energy_kwh_=energy_kwh_, kg_co2e_per_kwh=kg_co2e_per_kwh)
    return energy_kwh_ * kg_co2e_per_kwh / 1000


def embodied_co2e_tonnes(gpu_hours_: float, embodied_kg_per_gpu: float, lifetime_years: float,
                         utilisation: float = 1.0) -> float:
    """Embodied emissions attributed to a run, in tCO2e: the device's manufacturing emissions spread
    over the hours it is in use during its life, lifetime × utilisation (Luccioni et al. 2022,
    BLOOM: 6 years at 85% use). `gpu_hours_` may be any device-hours (GPU-hours, server-hours)
    with the embodied emissions of that device."""
    require_non_negative(gpu_hours_=gpu_hours_, embodied_kg_per_gpu=embodied_kg_per_gpu)
    require_positive(lifetime_years=lifetime_years)
    if not 0 < utilisation <= 1:
        raise ModelError(f"utilisation must be in (0, 1], got {utilisation!r}")
    return gpu_hours_ * embodied_kg_per_gpu / (lifetime_years * HOURS_PER_YEAR * utilisation) / 1000
