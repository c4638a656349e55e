"""Unit tests of analysis.generative. Expected values are worked out by hand from the published figures."""

from __future__ import annotations

import pytest

from analysis import models
from analysis.themes import generative as g


def test_gpu_days_to_hours():
    # PixArt-alpha: 675 A100 GPU-days = 675 × 24 = 16,200 GPU-hours (Chen et al. 2023 abstract).
    assert g.to_gpu_hours(675, "GPU-days") == 16200
    assert g.to_gpu_hours(665000, "GPU-hours") == 665000
    with pytest.raises(models.ModelError):
        g.to_gpu_hours(1, "weeks")


def test_pixart_implied_prices():
    # PixArt-alpha: 26,000 USD for 675 A100 GPU-days → 26,000 / 16,200 = 1.605 USD per GPU-hour;
    # Stable Diffusion v1.5: 320,000 USD for 6,250 GPU-days = 150,000 GPU-hours → 2.133 USD per GPU-hour.
    # The claims audit's check computes them (its details), and the generative chapter reads them from there.
    import analysis.audit.generative  # noqa: F401  (registers the checks)
    from analysis.audit.registry import REGISTRY, Claims
    from analysis.data import claims

    details = REGISTRY["pixart-cost-vs-time"].fn(Claims(claims.load())).details
    assert details["rate_pixart"][0] == pytest.approx(1.605, abs=0.001)
    assert details["rate_sd"][0] == pytest.approx(2.133, abs=0.001)


def test_h100_to_a100_normalisation():
    # Dense BF16 peaks: H100 SXM 989.4, A100 312 TFLOP/s → ratio 3.171.
    # Seaweed-7B's 665,000 H100-hours → 665,000 × 3.171 = 2.109e6 A100-hour equivalents.
    assert g.peak_ratio(989.4, 312) == pytest.approx(3.171, abs=0.001)
    assert g.normalised_gpu_hours(665000, 989.4, 312) == pytest.approx(2.109e6, rel=1e-3)


def test_step_model_through_two_points():
    # 1 step 0.09 s and 4 steps 0.19 s (DMD2 App. Table 3): per step = 0.10/3 = 0.0333 s, fixed = 0.0567 s.
    fixed, per = g.fit_step_model(1, 0.09, 4, 0.19)
    assert per == pytest.approx(0.03333, abs=1e-4)
    assert fixed == pytest.approx(0.05667, abs=1e-4)
    # 50 steps with two evaluations each (CFG): 0.0567 + 100 × 0.0333 = 3.39 s.
    assert g.sampling_latency_s(50, per, fixed, evals_per_step=2) == pytest.approx(3.390, abs=0.001)
    with pytest.raises(models.ModelError):
        g.fit_step_model(4, 0.09, 4, 0.19)
    with pytest.raises(models.ModelError):
        g.fit_step_model(1, 0.5, 4, 0.19)


def test_video_cost_per_thousand_frames():
    # LongLive: 20.7 frames/s on one H100 → 1/20.7 s per frame; at 12.29 USD/h:
    # 1000 × 0.04831 × 12.29 / 3600 = 0.1649 USD per 1,000 frames.
    assert g.usd_per_thousand(1 / 20.7, 1, 12.29) == pytest.approx(0.1649, abs=1e-4)
    # Video-Infinity: 300 s / 2300 frames on 8 GPUs at 0.77 USD/h: 1000 × 0.13043 × 8 × 0.77 / 3600 = 0.2232.
    assert g.usd_per_thousand(300 / 2300, 8, 0.77) == pytest.approx(0.2232, abs=1e-4)


def test_cost_per_thousand_interval_is_the_price_percentiles():
    # gpu_hour_usd_h100 in data/assumptions.yml: 4.395 (2.45-12.29), triangular; 1 s per image on one GPU:
    # 1000/3600 GPU-hours per 1,000 images. The 10th percentile of a triangular (a, c, b) with
    # (c-a)/(b-a) >= 0.1 is a + sqrt(0.1 (b-a)(c-a)); the 90th is b - sqrt(0.1 (b-a)(b-c)).
    import math

    a, c, b = 2.45, 4.395, 12.29
    iv = g.usd_per_thousand_interval(1.0, 1, "gpu_hour_usd_h100")
    assert iv.central == pytest.approx(1000 / 3600 * c)
    assert iv.low == pytest.approx(1000 / 3600 * (a + math.sqrt(0.1 * (b - a) * (c - a))), rel=0.02)
    assert iv.high == pytest.approx(1000 / 3600 * (b - math.sqrt(0.1 * (b - a) * (b - c))), rel=0.02)
    assert not g.has_range("gpu_hour_usd_rtx_6000_ada")  # one provider
