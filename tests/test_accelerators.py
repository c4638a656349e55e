"""Unit tests of analysis.accelerators; expected values worked out by hand from published figures."""

from __future__ import annotations

import math

import pytest

from analysis import accelerators as acc


def test_exact_two_point_growth() -> None:
    # NVLink per GPU: V100 300 GB/s (2018) -> B200 1800 GB/s (2024): 6x in 6 years,
    # so 6 ** (2/6) = 1.817x per two years; two points give no interval.
    f = acc.loglinear_growth([2018, 2024], [300, 1800])
    assert f.per_years(2) == pytest.approx(6 ** (1 / 3), rel=1e-9)
    assert f.bounds(2) == pytest.approx((f.per_years(2), f.per_years(2)))
    assert f.n == 2


def test_perfect_exponential_has_zero_width_interval() -> None:
    # 3.0x per 2 years (memory-wall paper) = sqrt(3) per year; values 1, 3, 9 at years 0, 2, 4.
    f = acc.loglinear_growth([2000, 2002, 2004], [1.0, 3.0, 9.0])
    assert f.per_year == pytest.approx(math.sqrt(3))
    lo, hi = f.bounds(2)
    assert lo == pytest.approx(3.0) and hi == pytest.approx(3.0)
    assert f.predict(2002) == pytest.approx(3.0)


def test_interval_contains_estimate_with_noise() -> None:
    f = acc.loglinear_growth([2016, 2018, 2020, 2022], [1.0, 2.5, 5.0, 15.0])
    lo, hi = f.bounds(2)
    assert lo < f.per_years(2) < hi


def test_growth_needs_two_years() -> None:
    with pytest.raises(ValueError):
        acc.loglinear_growth([2020], [1.0])
    with pytest.raises(ValueError):
        acc.loglinear_growth([2020, 2020], [1.0, 2.0])


def test_t_quantiles() -> None:
    # Student t, 97.5 % quantile: 12.706 (1 dof), 2.228 (10 dof); normal 1.96 beyond the table.
    assert acc.t975(1) == pytest.approx(12.706)
    assert acc.t975(10) == pytest.approx(2.228)
    assert acc.t975(100) == pytest.approx(1.96)


def test_per_two_years_to_per_year() -> None:
    # 1.6x per 2 years (DRAM, memory-wall paper) = sqrt(1.6) = 1.2649 per year
    assert acc.per_two_years_to_per_year(1.6) == pytest.approx(1.264911, rel=1e-6)


def test_headline_peak_uses_16bit_then_fp32() -> None:
    # A100: 312 TFLOP/s dense BF16/FP16 (NVIDIA Ampere blog, Table 1); K80 has only FP32 (8.74, Epoch).
    assert acc.headline_peak("A100-80GB")[0] == pytest.approx(312)
    assert acc.headline_peak("K80") == (pytest.approx(8.74), "fp32")
    assert math.isnan(acc.headline_peak("K80", fp32_fallback=False)[0])


def test_per_watt_and_per_dollar() -> None:
    # H100 SXM: 989.4 TFLOP/s BF16 dense / 700 W = 1.4134 TFLOP/s per W;
    # at 31,250 USD: 989.4 / 31.25 = 31.66 TFLOP/s per 1,000 USD.
    assert acc.per_watt(989.4, 700) == pytest.approx(1.41343, rel=1e-4)
    assert acc.per_kusd(989.4, 31250) == pytest.approx(31.6608, rel=1e-4)
    assert math.isnan(acc.per_watt(1.0, float("nan")))
    assert math.isnan(acc.per_kusd(1.0, 0.0))


def test_gaudi2_against_a100_and_h100_per_watt() -> None:
    # Gaudi 2: 432 BF16, 865 FP8 TFLOP/s at 600 W; A100: 312 at 400 W; H100 SXM: 1978.9 FP8 at 700 W.
    # BF16 per W: (432/600)/(312/400) = 0.72/0.78 = 0.923; FP8 per W: (865/600)/(1978.9/700) = 1.4417/2.827 = 0.510.
    r = acc.datasheet_ratios("Gaudi2", "A100-80GB", "bf16", "energy_efficiency")
    assert r["compute"] == pytest.approx(0.9231, rel=1e-3)
    r8 = acc.datasheet_ratios("Gaudi2", "H100-SXM", "fp8", "energy_efficiency")
    assert r8["compute"] == pytest.approx(0.5100, rel=1e-3)
    # throughput: SN40L 638 / H100 989.4 BF16 = 0.645
    assert acc.datasheet_ratios("SN40L", "H100-SXM", "bf16", "throughput")["compute"] == pytest.approx(0.6448, rel=1e-3)


def test_comparisons_file_validates() -> None:
    df = acc.load_comparisons()
    assert set(df["claim_form"]) <= {"number", "comparable", "higher"}
    assert len(df) >= 5
