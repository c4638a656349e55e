"""The one energy, carbon and cost chain, against the publications' own worked figures."""

import dataclasses
import math

import pytest

from analysis.models import ModelError, chain, chain_inputs


def test_gpt3_measured_system_power():
    # Patterson et al. 2021, Table 4: 10,000 V100 x 14.8 days at a measured 330 W per GPU
    # (system average, host included), PUE 1.1 -> 1,287 MWh; x 0.429 kg/kWh -> 552.1 tCO2e.
    e = chain.energy_at_boundaries(10000 * 14.8 * 24, chain.Power(330, "measured_system"), 1.0, 1.0, 1.1)
    assert math.isnan(e.accelerator_kwh)  # a system measurement says nothing about the chip alone
    assert e.facility_kwh / 1e3 == pytest.approx(1287, rel=0.005)
    assert e.facility_kwh * 0.429 / 1e3 == pytest.approx(552.1, rel=0.005)


def test_llama_tdp_times_pue():
    # Touvron et al. 2023 (LLaMA), Table 15: 7B, 82,432 GPU-hours at 400 W, PUE 1.1 -> 36 MWh, 14 tCO2e at 0.385.
    e = chain.energy_at_boundaries(82432, chain.Power(400, "rated"), 1.0, 1.0, 1.1)
    assert e.facility_kwh / 1e3 == pytest.approx(36, rel=0.01)
    assert e.facility_kwh * 0.385 / 1e3 == pytest.approx(14, rel=0.01)


def test_bloom_accelerator_boundary():
    # Luccioni et al. 2022: 1,082,990 GPU-hours x 400 W = 433,196 kWh (no PUE) -> 24.69 t at 57 g/kWh.
    e = chain.energy_at_boundaries(1082990, chain.Power(400, "rated"), 1.0, 1.0, 1.0)
    assert e.accelerator_kwh == pytest.approx(433196)
    assert e.accelerator_kwh * 0.057 / 1e3 == pytest.approx(24.69, abs=0.01)


def test_epoch_h100_chain():
    # Cottier et al. 2024 App. A.4 with Epoch's factors: 700 W x 1.82 (DGX H100) x 0.75 (of server TDP)
    # x 1.25 per GPU-hour, computed by hand: 700 * 1.82 = 1274 W; * 0.75 = 955.5 W; * 1.25 = 1194.4 W;
    # the chip itself at rated power, 700 W
    x = chain_inputs.inputs_for("H100-SXM", "central")
    e = chain.energy_at_boundaries(1000, x.power, x.power_fraction, x.server_power_factor, x.pue, x.fraction_at)
    assert e.accelerator_kwh == pytest.approx(700)
    assert e.server_kwh == pytest.approx(955.5)
    assert e.facility_kwh == pytest.approx(1194.375)


def test_boundaries_nest():
    x = chain_inputs.inputs_for("A100-80GB", "central")
    e = chain.run_footprint(1000, x).energy
    assert e.accelerator_kwh < e.server_kwh < e.facility_kwh
    assert [e.at(b) for b in chain.BOUNDARIES] == [e.accelerator_kwh, e.server_kwh, e.facility_kwh]


def test_tpu_v4_measured_power_is_not_discounted_twice():
    # data/hardware.csv gives TPU v4 Google's measured mean (170 W), not a TDP: the chain must not
    # multiply it again by the TPU power-to-TDP ratio (0.43).
    x = chain_inputs.inputs_for("TPUv4", "central")
    assert x.power == chain.Power(170.0, "measured_chip")
    e = chain.energy_at_boundaries(1, x.power, 0.43, 1.0, 1.0)
    assert e.accelerator_kwh == pytest.approx(0.170)


def test_tpu_server_factor_is_not_the_gpu_one():
    # Epoch's energy.py: TPU v3 system 660 W / chip 450 W = 1.47; other TPUs 1.56; not the GPU default 1.8.
    assert chain_inputs.inputs_for("TPUv3").server_power_factor == pytest.approx(660 / 450, abs=0.01)
    assert chain_inputs.inputs_for("TPUv4").server_power_factor == 1.56
    assert chain_inputs.inputs_for("V100").server_power_factor == pytest.approx(((10 / 16) / 0.3 + (1.5 / 4) / 0.3) / 2,
                                                                              abs=0.01)


def test_owned_cost_uses_cluster_factor_from_share():
    # Cottier et al. 2024 App. A.1: interconnect 19% of hardware cost -> cluster = 1/(1 - 0.19) = 1.235.
    # One device at USD 10,000 over one year (365.25 days) of hours, server factor 1.5:
    # 10,000 * 1.5 * 1.2346 = 18,518.5.
    usd = chain.owned_cost_usd(365.25 * 24, 10_000, 1, 1.5, 1 / (1 - 0.19), 0.0, 0.0)
    assert usd == pytest.approx(10_000 * 1.5 / 0.81)


def test_embodied_bloom():
    # Luccioni et al. 2022: 150 kg per GPU over 6 years at 85% use, 1,082,990 GPU-hours -> 3.64 t.
    x = chain_inputs.inputs_for("A100-80GB")
    assert (x.embodied_kg_per_device, x.lifetime_years, x.lifetime_utilisation) == (150, 6, 0.85)
    assert chain.run_footprint(1082990, x).embodied_tco2e == pytest.approx(3.64, abs=0.01)


def test_ranges_are_ordered():
    for hid in ("V100", "A100-40GB", "H100-SXM", "TPUv3", "RTX-4090"):
        f = [chain.run_footprint(1e5, chain_inputs.inputs_for(hid, c)) for c in chain_inputs.CASES]
        assert f[0].facility_mwh <= f[1].facility_mwh <= f[2].facility_mwh
        assert f[0].operational_tco2e <= f[1].operational_tco2e <= f[2].operational_tco2e
        assert f[0].owned_usd <= f[1].owned_usd <= f[2].owned_usd


def test_impossible_inputs_refused():
    p = chain.Power(400, "rated")
    with pytest.raises(ModelError):
        chain.energy_at_boundaries(1, p, 1.0, 1.0, 0.9)  # PUE below 1
    with pytest.raises(ModelError):
        chain.energy_at_boundaries(1, p, 1.0, 0.5, 1.1)  # server smaller than its accelerator
    with pytest.raises(ModelError):
        chain.energy_at_boundaries(1, chain.Power(400, "nameplate"), 1.0, 1.0, 1.1)
    with pytest.raises(TypeError):
        chain_inputs.inputs_for("H100-SXM", pue_typo=1.2)
    with pytest.raises(ModelError):
        chain.run_footprint(1, dataclasses.replace(chain_inputs.inputs_for("H100-SXM"), power_fraction=2.0))


def test_notebook_defaults_are_the_books():
    """Every notebook's default PUE, grid intensity and power fraction is the chain's central value."""
    import re
    from pathlib import Path

    central = {"pue": chain_inputs.role_value("pue"), "grid_kg_per_kwh": chain_inputs.role_value("grid_kg_per_kwh"),
               "power_to_tdp": 0.75, "pue_central": chain_inputs.role_value("pue"),
               "grid_central": chain_inputs.role_value("grid_kg_per_kwh"),
               "grid_low": chain_inputs.role_value("grid_kg_per_kwh", "low"),
               "grid_high": chain_inputs.role_value("grid_kg_per_kwh", "high")}
    seen = 0
    for nb in sorted(Path(__file__).resolve().parents[1].glob("analysis/notebooks/*.md")):
        for name, value in re.findall(r"^(\w+): float = ([0-9.]+)", nb.read_text(encoding="utf-8"), re.M):
            if name in central:
                seen += 1
                assert float(value) == pytest.approx(central[name]), f"{nb.name}: {name} = {value}"
    assert seen >= 8


def test_the_gpu_fraction_applies_at_the_server_and_the_chip_is_taken_at_rated_power():
    # Cottier et al. 2024, App. A.4: energy = chip TDP x chip-to-server x fraction of server TDP x PUE.
    # 1,000 h of an A100 (400 W, DGX A100 factor 2.03, 0.75, PUE 1.1): server 1000 x 0.4 x 2.03 x 0.75
    # = 609 kWh, facility 669.9 kWh; the chip's own energy at rated power, 400 kWh (an upper bound)
    from analysis.models import chain

    e = chain.energy_at_boundaries(1000, chain.Power(400, "rated"), 0.75, 2.03, 1.1)
    assert e.accelerator_kwh == pytest.approx(400)
    assert e.server_kwh == pytest.approx(609)
    assert e.facility_kwh == pytest.approx(669.9)
    # a fraction defined at the chip (TPUs) applies to the chip, and the server factor on top
    t = chain.energy_at_boundaries(1000, chain.Power(280, "rated"), 0.43, 1.64, 1.1, fraction_at="chip")
    assert t.accelerator_kwh == pytest.approx(280 * 0.43)
    assert t.server_kwh == pytest.approx(280 * 0.43 * 1.64)


def test_tpus_use_the_measured_mean_and_the_operator_sets_the_pue():
    from analysis.models import chain_inputs

    # Google's TPU v3 and v4 pages: measured mean 220 W and 170 W per chip (data/hardware.csv)
    assert chain_inputs.device_power("TPUv3") == chain.Power(220, "measured_chip")
    assert chain_inputs.device_power("TPUv4").watts == 170
    assert chain_inputs.device_power("H100-SXM").basis == "rated"
    # Cottier et al. 2024, App. A.4: 1.1 in a hyperscaler's data centre, 1.25 elsewhere
    assert chain_inputs.inputs_for("A100-80GB", operator="hyperscaler").pue == 1.1
    assert chain_inputs.inputs_for("A100-80GB").pue == 1.25


def test_intervals_are_seeded_and_ordered():
    from analysis.models import chain, chain_inputs

    a = [chain.run_footprint(1000, x).facility_mwh for x in chain_inputs.sampled_inputs("H100-SXM")]
    b = [chain.run_footprint(1000, x).facility_mwh for x in chain_inputs.sampled_inputs("H100-SXM")]
    assert a == b
    lo, hi = chain_inputs.interval(a)
    central = chain.run_footprint(1000, chain_inputs.inputs_for("H100-SXM")).facility_mwh
    assert lo < central < hi


def test_one_table_resolves_a_papers_gpu_name():
    """Issue 31, item 4: a bare "A100" (no memory size) is the 40 GB part for every chapter, the part of the
    unnamed-GPU convention's central case; a name outside the table is that convention in each case."""
    assert chain_inputs.claim_hardware("A100") == "A100-40GB" == chain_inputs.UNNAMED_GPU["central"]
    assert chain_inputs.claim_hardware("H100", "low") == "H100-SXM"  # a named GPU has no low/high part
    assert [chain_inputs.claim_hardware(g, case) for g, case in ((None, "low"), ("GPU", "high"), ("", "central"))] \
        == [chain_inputs.UNNAMED_GPU[c] for c in ("low", "high", "central")]
    with pytest.raises(ValueError):
        chain_inputs.claim_hardware("A100", "median")
    # PixArt-alpha's 675 A100 GPU-days at that part's central price, the median of Epoch's 7 providers (2.93)
    assert 675 * 24 * chain_inputs.inputs_for(chain_inputs.claim_hardware("A100")).usd_per_device_hour == \
        pytest.approx(47_466)


def test_ownership_cost_has_an_interval_over_its_documented_ranges():
    """Issue 31: the amortised ownership cost is drawn like energy and rent (amortisation 3-6 years, server
    factor 1.54-1.69, interconnect share 0.1-0.2, electricity 0.0667-0.0832 USD/kWh, data/assumptions.yml)."""
    from analysis.models import chain_inputs

    r = chain_inputs.footprint_range(10_000, "H100-SXM")
    lo, hi = r["owned_usd"]
    assert lo < r["central"].owned_usd < hi
    # held fields stay out of the draws: with every ownership input and the energy held, the interval is a point
    held = chain_inputs.footprint_range(10_000, "H100-SXM", amortisation_years=4.0, server_cost_factor=1.6,
                                        cluster_cost_factor=1.2, usd_per_kwh=0.0, power_fraction=0.7, pue=1.3)
    assert held["owned_usd"][0] == pytest.approx(held["owned_usd"][1])
    # closed form: 10,000 h of a 31,250 USD H100 x 1.6 x 1.2 over 4 years of 8,760 h
    assert held["central"].owned_usd == pytest.approx(10_000 * 31_250 * 1.6 * 1.2 / (4 * 8760), rel=1e-3)


def test_footprint_tornado_moves_each_input_over_its_documented_range():
    from analysis.models import chain_inputs

    # rent depends on the price alone: H100 SXM on-demand 2.45-12.29 USD/h (Epoch's providers' min and max)
    t = chain_inputs.footprint_tornado(1000, "H100-SXM", "rental_usd")
    assert list(t["parameter"]) == ["usd_per_device_hour"]
    assert (t["out_low"].iloc[0], t["out_high"].iloc[0]) == pytest.approx((2450, 12290))
    # a price the caller sets is held: nothing left to move the rent
    assert chain_inputs.footprint_tornado(1000, "H100-SXM", "rental_usd", usd_per_device_hour=3.0).empty
    # the ownership cost over 3 and 6 years of amortisation (capital part scales as 1/years)
    own = chain_inputs.footprint_tornado(1000, "H100-SXM", "owned_usd", usd_per_kwh=0.0).set_index("parameter")
    assert own.loc["amortisation_years", "out_low"] / own.loc["amortisation_years", "out_high"] == pytest.approx(2.0)
    with pytest.raises(ValueError):
        chain_inputs.footprint_tornado(1000, "H100-SXM", "water_l")


def test_the_chain_draws_an_assumption_as_every_other_model_does():
    """One assumption, one set of draws: the chain's ownership inputs are seeded by name like
    analysis.models.uncertainty.draws (the modules cannot import each other)."""
    import numpy as np

    from analysis.models import chain_inputs, uncertainty

    for name in ("hardware_amortization_years", "electricity_usd_per_kwh", "purchase_price_usd_h100"):
        assert np.array_equal(chain_inputs.named_draws(name), uncertainty.draws(name))
        assert chain_inputs.range_of(name) == uncertainty.range_of(name)
    years = [x.amortisation_years for x in chain_inputs.sampled_inputs("H100-SXM")]
    assert np.array_equal(years, uncertainty.draws("hardware_amortization_years"))
