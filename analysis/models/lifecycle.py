"""A model's footprint over its life: training plus serving, on the book's one chain.

Serving enters the chain (:mod:`analysis.models.chain`) as device-hours: generating ``tokens`` at a rate of
``tokens_per_s`` on a serving unit of ``devices`` accelerators occupies tokens / rate / 3600 × devices
device-hours, which the chain turns into energy at each boundary and into operational and embodied emissions
exactly as it does a training run's GPU-hours. Because every output of the chain is proportional to the
device-hours for given inputs, the training share of a model's footprint on one kind of hardware in one
facility is the training share of its device-hours, whatever the power, PUE or grid intensity assumed.

Emissions are stated on one of two Scope 2 bases (GHG Protocol Scope 2 Guidance, 2015): location-based,
energy times the average intensity of the grid where it is drawn (the book's convention:
:func:`analysis.models.cost.co2e_tonnes`), and market-based, where the share of the energy covered by
contractual instruments (renewable energy certificates, power purchase agreements) takes the instrument's
intensity, usually zero, and the rest the residual mix. Embodied emissions are the same on both bases.

Pure functions; units are in the argument names.
"""

from __future__ import annotations

from analysis.models.base import ModelError, require_non_negative, require_positive
from analysis.models.cost import co2e_tonnes


def device_hours_for_tokens(tokens: float, tokens_per_s: float, devices: float = 1.0) -> float:
    """Device-hours to generate `tokens` at `tokens_per_s` (the whole serving unit's rate) on `devices`."""
    require_non_negative(tokens=tokens)
    require_positive(tokens_per_s=tokens_per_s, devices=devices)
    return tokens / tokens_per_s / 3600.0 * devices


def market_based_tco2e(facility_kwh: float, matched_share: float, residual_kg_per_kwh: float,
                       instrument_kg_per_kwh: float = 0.0) -> float:
    """Market-based Scope 2 emissions in tCO2e: the `matched_share` of the energy covered by contractual
    instruments at `instrument_kg_per_kwh` (0 for renewable certificates), the rest at the residual mix.
    With `matched_share` = 0 and the residual set to the grid average it equals the location-based figure."""
    require_non_negative(facility_kwh=facility_kwh, residual_kg_per_kwh=residual_kg_per_kwh,
                         instrument_kg_per_kwh=instrument_kg_per_kwh)
    if not 0 <= matched_share <= 1:
        raise ModelError(f"matched_share is a fraction in [0, 1], got {matched_share!r}")
    return (co2e_tonnes(facility_kwh * matched_share, instrument_kg_per_kwh)
            + co2e_tonnes(facility_kwh * (1 - matched_share), residual_kg_per_kwh))


def training_share(training: float, serving: float) -> float:
    """Training's share of a footprint, training / (training + serving), both in one unit (device-hours,
    kWh or tCO2e on one basis)."""
    require_non_negative(training=training, serving=serving)
    if training + serving == 0:
        raise ModelError("training and serving are both zero")
    return training / (training + serving)


def breakeven_tokens(training_device_hours: float, tokens_per_s: float, devices: float = 1.0) -> float:
    """Lifetime tokens served at which serving has used as many device-hours (and so, on the same hardware and
    site, as much energy and carbon) as training: training device-hours × 3600 × rate / devices."""
    require_positive(training_device_hours=training_device_hours, tokens_per_s=tokens_per_s, devices=devices)
    return training_device_hours * 3600.0 * tokens_per_s / devices
