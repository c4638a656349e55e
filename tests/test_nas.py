"""Unit tests of analysis.nas. Expected values are worked by hand in the comments."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis import models
from analysis.data import assumptions
from analysis.themes import nas


def test_hat_search_from_reduction_factor():
    # Strubell et al. 2019 Table 3: Evolved Transformer search 274,120 h on 8 P100 = 2,192,960 GPU-hours;
    # HAT (wang2020hat) is 12,041x cheaper: 2,192,960 / 12,041 = 182.1 GPU-hours.
    assert nas.derived_search_gpu_hours(274_120 * 8, 12_041) == pytest.approx(182.1, abs=0.05)
    with pytest.raises(models.ModelError):
        nas.derived_search_gpu_hours(100, 0.5)


def test_speedup_spread_efficientvit():
    # liu2023efficientvit: EfficientViT-M2 vs MobileViT-XXS is 3.7x (CPU), 5.8x (GPU), 7.4x (ONNX):
    # 7.4 / 3.7 = 2.0.
    assert nas.speedup_spread(pd.Series([3.7, 5.8, 7.4])) == pytest.approx(2.0)
    with pytest.raises(models.ModelError):
        nas.speedup_spread(pd.Series([2.0]))


def test_proxy_error_hat():
    # wang2020hat: 3.7x smaller but 3.0x faster than Transformer on a Raspberry Pi 4: 3.0 / 3.7 = 0.811.
    assert nas.proxy_error(3.7, 3.0) == pytest.approx(0.811, abs=1e-3)


def test_price_searches_nasnet():
    # NASNet: 2,000 GPU-days = 48,000 P100-hours at 250 W; with power 1.0 of TDP, no host, PUE 1.0 and
    # 1 kgCO2e/kWh: 48,000 · 0.25 kW = 12,000 kWh = 12 MWh and 12 tCO2e.
    s = nas.load_searches()
    row = s[s.search.str.startswith("NASNet")]
    one = {"power_fraction": 1.0, "server_power_factor": 1.0, "pue": 1.0, "grid_kg_per_kwh": 1.0}
    out = nas.price_searches(row, one).iloc[0]
    assert out.mwh == pytest.approx(12.0)
    assert out.tco2e == pytest.approx(12.0)
    # every chain input held fixed by the overrides: energy and emissions have no spread left
    assert out.mwh_low == pytest.approx(12.0) and out.mwh_high == pytest.approx(12.0)
    assert out.tco2e_low == pytest.approx(12.0) and out.tco2e_high == pytest.approx(12.0)
    # the rent draws the P100 price (gpu_hour_usd_p100 in data/assumptions.yml) only: its 10th-90th percentiles
    lo, c, hi = (float(assumptions.entry("gpu_hour_usd_p100")[k]) for k in ("low", "value", "high"))
    p10 = lo + math.sqrt(0.1 * (hi - lo) * (c - lo)) if (c - lo) / (hi - lo) >= 0.1 else None
    assert out.usd == pytest.approx(48_000 * c)
    if p10 is not None:
        assert out.usd_low == pytest.approx(48_000 * p10, rel=0.02)


def test_emissions_tornado_grid_moves_nasnet_most():
    # NASNet at the book's defaults (P100 250 W): tCO2e is proportional to each input, so each bar's ends are the
    # central tCO2e times (input end / input central); the grid (France 0.056 to India 0.713 around 0.48 in
    # data/assumptions.yml) has the widest relative range
    s = nas.load_searches()
    row = s[s.search.str.startswith("NASNet")].iloc[0]
    t = nas.emissions_tornado(row)
    assert t.parameter.iloc[0] == "grid_kg_per_kwh"
    for r in t.itertuples():
        assert r.out_high / r.out_base == pytest.approx(r.high / r.base)
        assert r.out_low / r.out_base == pytest.approx(r.low / r.base)


def test_data_files_validate():
    assert "searches" in nas.DATA_FILES[nas.SEARCH_FILE]()
    assert len(nas.load_proxies()) >= 3
