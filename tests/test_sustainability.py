"""Unit tests of analysis.sustainability. Expected values are worked by hand in the comments."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import models
from analysis.themes import sustainability as sus


def test_decimal_year():
    # 2020-07-02 is day 184 of a leap year: 2020 + 183/365.25 = 2020.501.
    assert sus.decimal_year(pd.Series(pd.to_datetime(["2020-07-02"])))[0] == pytest.approx(2020.501, abs=1e-3)


def test_footprint_gpt3_like_run():
    # Patterson et al. 2021 Table 4 (GPT-3): 10,000 V100 for 14.8 days = 3,552,000 GPU-hours, 330 W
    # average per accelerator, PUE 1.1 -> 3,552,000 · 0.330 kW · 1.1 = 1,289 MWh (paper: 1,287 MWh);
    # at 0.429 kgCO2e/kWh -> 553 tCO2e (paper: 552).
    f = models.footprint(3_552_000, 330, 1.0, 1.1, 0.429, 2.0)
    assert f.energy_mwh == pytest.approx(1287, rel=0.005)
    assert f.tco2e == pytest.approx(552, rel=0.005)
    assert f.usd == pytest.approx(7_104_000)  # 3,552,000 h · 2 USD


def test_footprint_range_orders_low_central_high():
    r = models.footprint_range(100, (300, 250, 700), (0.75, 0.5, 1.0), (1.25, 1.1, 1.59), (0.4, 0.05, 0.7),
                            (2.0, 1.0, 4.0))
    # high energy: 100 h · 0.7 kW · 1.0 · 1.59 = 111.3 kWh = 0.1113 MWh
    assert r["high"].energy_mwh == pytest.approx(0.1113)
    assert r["low"].tco2e < r["central"].tco2e < r["high"].tco2e


def test_our_amortised_cost_by_hand():
    # 1,000 chip-hours of a 10,000 USD chip, factors 1.5 (server) and 1.2 (cluster) -> 18,000 USD of
    # capital over 5 years (43,830 h) = 0.41068 USD/h -> 410.68 USD; energy 1,000 h · 0.4 kW · 0.75 ·
    # 1.8 · 1.1 = 594 kWh at 0.1 USD/kWh = 59.4 USD. Total 470.08 USD.
    c = models.our_amortised_cost_usd(1000, 10_000, 5, 1.5, 1.2, 400, 0.75, 1.8, 1.1, 0.1)
    assert c == pytest.approx(470.08, abs=0.01)
    with pytest.raises(models.ModelError):
        models.our_amortised_cost_usd(1000, 10_000, 5, 0.9, 1.2, 400, 0.75, 1.8, 1.1, 0.1)


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
