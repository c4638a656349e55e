"""Unit tests of analysis.accelerators; expected values worked out by hand from published figures."""

from __future__ import annotations

import math

import pytest

from analysis.themes import accelerators as acc


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
