"""Unit tests of analysis.nas. Expected values are worked by hand in the comments."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import models
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
    out = nas.price_searches(row, {c: one for c in ("low", "central", "high")}).iloc[0]
    assert out.mwh == pytest.approx(12.0)
    assert out.tco2e == pytest.approx(12.0)


def test_data_files_validate():
    assert "searches" in nas.DATA_FILES[nas.SEARCH_FILE]()
    assert len(nas.load_proxies()) >= 3
