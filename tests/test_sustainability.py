"""Unit tests of analysis.sustainability. Expected values are worked by hand in the comments."""

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
