"""Tests of analysis.models.lifecycle against published figures (named with their table) and hand computation."""

from __future__ import annotations

import pytest

from analysis.models import ModelError, chain, chain_inputs
from analysis.models import lifecycle as lc


def test_market_based_llama31_model_card():
    # Meta's Llama 3.1 model card (Hugging Face, "Training Greenhouse Gas Emissions"): location-based emissions of
    # training 11,390 tCO2eq; Meta matched 100% of its electricity use with renewable energy, so the market-based
    # emissions were 0 tCO2eq. Whatever the residual mix, a fully matched load is zero on the market basis.
    assert lc.market_based_tco2e(27.5e6, matched_share=1.0, residual_kg_per_kwh=0.6) == 0.0
    # Unmatched, the market basis with the grid average as the residual equals the location basis: the
    # 11,390 t of 39.3M H100-hours are 11,390 t at the intensity they imply.
    kwh = 39.3e6 * 0.7
    implied = 11_390 * 1000 / kwh
    assert lc.market_based_tco2e(kwh, 0.0, implied) == pytest.approx(11_390)


def test_share_is_the_device_hour_share_llama2_table2():
    # Touvron et al. 2023 (Llama 2), Table 2: 7B 184,320 A100-80GB hours and 31.22 tCO2eq, 13B 368,640 hours and
    # 62.44 tCO2eq, both at 400 W in the same clusters: the emission share equals the GPU-hour share (1/3).
    assert lc.training_share(184_320, 368_640) == pytest.approx(1 / 3)
    assert lc.training_share(31.22, 62.44) == pytest.approx(lc.training_share(184_320, 368_640), rel=1e-3)


def test_chain_is_linear_in_device_hours():
    # The module's premise: for given inputs every output of the chain scales with the device-hours.
    x = chain_inputs.inputs_for("A100-80GB")
    a, b = chain.run_footprint(1000.0, x), chain.run_footprint(3000.0, x)
    assert b.energy.facility_kwh == pytest.approx(3 * a.energy.facility_kwh)
    assert b.operational_tco2e + b.embodied_tco2e == pytest.approx(3 * (a.operational_tco2e + a.embodied_tco2e))


def test_device_hours_and_breakeven_by_hand():
    # 3.6e6 tokens at 1,000 tokens/s on 2 GPUs: 3,600 s = 1 h on each, 2 device-hours.
    assert lc.device_hours_for_tokens(3.6e6, 1000.0, devices=2) == pytest.approx(2.0)
    # 184,320 GPU-hours of training against one GPU serving 1,000 tokens/s: 184,320 × 3,600 × 1,000 tokens.
    assert lc.breakeven_tokens(184_320, 1000.0) == pytest.approx(6.63552e11)
    assert lc.device_hours_for_tokens(lc.breakeven_tokens(184_320, 1000.0), 1000.0) == pytest.approx(184_320)


def test_refusals():
    with pytest.raises(ModelError):
        lc.market_based_tco2e(1.0, 1.5, 0.4)
    with pytest.raises(ModelError):
        lc.training_share(0.0, 0.0)
