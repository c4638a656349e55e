"""Unit tests of analysis.themes.sustainability. Expected values are worked by hand in the comments."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import models
from analysis.models import chain
from analysis.themes import sustainability as sus


def test_decimal_year():
    # 2020-07-02 is day 184 of a leap year: 2020 + 183/365.25 = 2020.501.
    assert sus.decimal_year(pd.Series(pd.to_datetime(["2020-07-02"])))[0] == pytest.approx(2020.501, abs=1e-3)


def test_owned_cost_by_hand():
    # 1,000 chip-hours of a 10,000 USD chip, factors 1.5 (server) and 1.2 (cluster) -> 18,000 USD of
    # capital over 5 years (43,830 h) = 0.41068 USD/h -> 410.68 USD; energy 1,000 h · 0.4 kW · 0.75 ·
    # 1.8 · 1.1 = 594 kWh at 0.1 USD/kWh = 59.4 USD. Total 470.08 USD.
    x = chain.ChainInputs(chain.Power(400, "rated"), 0.75, 1.8, 1.1, 0.4, device_price_usd=10_000,
                          amortisation_years=5, server_cost_factor=1.5, cluster_cost_factor=1.2, usd_per_kwh=0.1)
    f = chain.run_footprint(1000, x)
    assert f.energy.facility_kwh == pytest.approx(594)
    assert f.owned_usd == pytest.approx(470.08, abs=0.01)
    with pytest.raises(models.ModelError):
        chain.owned_cost_usd(1000, 10_000, 5, 0.9, 1.2, 594, 0.1)


def test_claims_priced_with_the_chain():
    # Seaweed-7B: 665,000 H100-hours; central = 665,000 x 700 W x 0.75 x 1.82 x 1.25 = 794.3 MWh at the facility.
    runs = sus.price_claims(sus.gpu_hour_claims())
    sw = runs[runs.claim_id == "seawead2025seaweed7b-2"].iloc[0]
    assert sw.energy_mwh_central == pytest.approx(665000 * 0.7 * 0.75 * 1.82 * 1.25 / 1000)
    assert (runs.energy_mwh_low <= runs.energy_mwh_central).all()
    assert (runs.energy_mwh_central <= runs.energy_mwh_high).all()


def test_tornado_swings():
    # f = a·b with a=2, b=3: varying a over 1..4 gives 3..12 (swing 9); b over 2..4 gives 4..8 (swing 4).
    t = models.tornado(lambda a, b: a * b, {"a": 2, "b": 3}, {"a": (1, 4), "b": (2, 4)})
    assert list(t.parameter) == ["a", "b"]
    assert list(t.swing) == [9, 4]
    with pytest.raises(models.ModelError):
        models.tornado(lambda a: a, {"a": 1}, {"c": (0, 1)})


def test_epoch_subset_validates():
    df = sus.load_epoch()
    assert len(df) == 82
    assert (df.compute_rank_when_published <= 10).all()


def test_one_runs_sensitivity_uses_the_documented_ranges():
    """Issue 31: the tornado moves each input over its range in data/assumptions.yml (grid: France 0.056 to
    India 0.713 kgCO2e/kWh, Ember/OWID), and the rent-over-ownership ratio takes its interval from the same draws."""
    s = sus.run_sensitivity(10_000, "H100-SXM")
    t = s["tornado_tco2e"].set_index("parameter")
    assert t.index[0] == "grid_kg_per_kwh"
    # emissions scale with the grid, so the ends' ratio is India's intensity over France's: 0.713 / 0.056 = 12.73
    assert t.loc["grid_kg_per_kwh", "out_high"] / t.loc["grid_kg_per_kwh", "out_low"] == pytest.approx(12.73, abs=0.01)
    # the rent's interval lies within the H100's cheapest and dearest listed prices, 2.45-12.29 USD/h
    assert 10_000 * 2.45 <= s["rent"].low < s["rent"].central < s["rent"].high <= 10_000 * 12.29
    assert s["rent_over_own"].central == pytest.approx(s["rent"].central / s["own"].central)
    assert s["rent_over_own"].low < s["rent_over_own"].central < s["rent_over_own"].high
    # a parameter set away from the book's value is held: the ownership tornado no longer moves the amortisation
    held = sus.run_sensitivity(10_000, "H100-SXM", amortisation_years=4.0)["tornado_own"]
    assert "amortisation_years" not in set(held["parameter"])


def test_statistic_interval_takes_the_statistic_draw_by_draw():
    import numpy as np

    # two models whose draws are constant 1 and 3: every draw's median is 2, so is the interval
    iv = sus.statistic_interval(pd.Series([1.0, 3.0]), np.array([[1.0] * 5, [3.0] * 5]), "median")
    assert (iv.central, iv.low, iv.high) == (2.0, 2.0, 2.0)
    iv = sus.statistic_interval(pd.Series([1.0, 3.0]), np.array([[1.0] * 5, [3.0] * 5]), "max")
    assert (iv.central, iv.low, iv.high) == (3.0, 3.0, 3.0)


def test_recompute_epoch_ratios_are_ours_over_epochs():
    ep = sus.load_epoch()
    cmp, draws = sus.recompute_epoch(ep)
    assert (cmp["ratio_amortised"] == cmp["ours_amortised"] / cmp["epoch_amortised"]).all()
    assert draws["ratio_amortised"].shape[0] == len(cmp)


def test_epoch_ratio_tornado_moves_every_model_at_once():
    import statistics

    cmp, _ = sus.recompute_epoch(sus.load_epoch())
    t = sus.epoch_ratio_tornado(cmp)
    assert t["out_base"].iloc[0] == pytest.approx(statistics.median(cmp["ours_amortised"] / cmp["epoch_amortised"]))
    # amortisation over 3-6 years (data/assumptions.yml, Epoch AI's code): the capital part of every model scales
    # as 1/years, so the shortest period gives the highest median
    years = t.set_index("parameter").loc["amortisation_years"]
    assert (years["low"], years["high"]) == (3.0, 6.0) and years["out_low"] > years["out_base"] > years["out_high"]
