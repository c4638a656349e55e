"""Unit tests of analysis.neural_graphics; expected values worked out by hand from published figures."""

from __future__ import annotations

import math

import pytest

from analysis.themes import neural_graphics as ng


def test_instant_ngp_mlp_macs() -> None:
    # Mueller et al. 2022 Sec. 5.4: density MLP 32->64->16, colour MLP 32->64->64->3
    # 32*64 + 64*16 = 2048 + 1024 = 3072; 32*64 + 64*64 + 64*3 = 2048 + 4096 + 192 = 6336; sum 9408
    assert ng.mlp_macs(ng.parse_layers("32x64;64x16;32x64;64x64;64x3")) == 9408


def test_hash_encoding_costs() -> None:
    # 16 levels x 8 trilinear corners x 2 features x 2 bytes (half precision) = 512 bytes per sample;
    # interpolation 16 x 8 x 2 multiply-adds = 256 MAC = 512 FLOP
    assert ng.encoding_bytes(16, 2, 8, 2) == 512
    assert ng.encoding_bytes(16, 2, 8, 2, cache_hit_fraction=0.75) == 128
    assert ng.encoding_flops(16, 2, 8) == 512
    with pytest.raises(ValueError):
        ng.encoding_bytes(16, 2, 8, 2, cache_hit_fraction=1.5)


def test_original_nerf_macs() -> None:
    # Mildenhall et al. 2020 Fig. 7: 60*256 + 6*256*256 + 316*256 + 256*1 + 256*256 + 280*128 + 128*3
    # = 15360 + 393216 + 80896 + 256 + 65536 + 35840 + 384 = 591488 MAC
    costs = ng.load_network_costs()
    flops, nbytes = ng.sample_cost(costs.loc["nerf-original"])
    assert flops == 2 * 591488
    assert nbytes == 0


def test_frame_demand_4k60() -> None:
    # 3840 x 2160 x 60 = 497,664,000 px/s; x 64 samples x 19,328 FLOP = 6.156e14 FLOP/s
    f, b = ng.frame_demand(3840, 2160, 60, 64, 19328, 512)
    assert f == pytest.approx(497_664_000 * 64 * 19328)
    assert b == pytest.approx(497_664_000 * 64 * 512)
    # stereo doubles the pixel rate
    assert ng.pixel_rate(1832, 1920, 90, views=2) == 1832 * 1920 * 90 * 2


def test_gap() -> None:
    # 615.6 TFLOP/s needed against a 165.2 TFLOP/s peak: 3.73x; at 50 % utilisation 7.45x
    assert ng.gap(615.6, 165.2) == pytest.approx(3.7264, rel=1e-4)
    assert ng.gap(615.6, 165.2, 0.5) == pytest.approx(7.4528, rel=1e-4)
    with pytest.raises(ValueError):
        ng.gap(1.0, 0.0)


def test_claims_to_megapixels() -> None:
    # MobileR2L: 18.04 ms per 1008x756 frame -> 55.43 FPS -> 55.43 * 0.762048 MP = 42.24 Mpx/s
    fps = ng.fps_from(18.04, "ms")
    assert fps == pytest.approx(55.4324, rel=1e-4)
    assert ng.megapixels_per_s(fps, 1008, 756) == pytest.approx(42.2422, rel=1e-4)
    # City-on-Web: 32 FPS at 1920x1080 = 66.355 Mpx/s; HyperReel 18 FPS at 1 MP = 18 Mpx/s
    assert ng.megapixels_per_s(32, 1920, 1080) == pytest.approx(66.3552)
    assert ng.megapixels_per_s(18, megapixels=1.0) == 18
    assert math.isnan(ng.megapixels_per_s(200))
    with pytest.raises(ValueError):
        ng.fps_from(1, "parsecs")


def test_ceiling() -> None:
    # 165.2 TFLOP/s / (64 x 19,328 FLOP) = 133.5 Mpx/s
    assert ng.max_megapixels_per_s(165.2e12, 64, 19328) == pytest.approx(133.55, rel=1e-3)


def test_data_files_validate() -> None:
    claims = ng.load_rendering_claims()
    assert claims["value"].notna().all()
    assert ng.device_spec("RTX-3060")["tdp_w"] == 170
    assert ng.device_spec("H100-SXM", "fp16")["peak_tflops"] == pytest.approx(989.4)
    assert math.isnan(ng.device_spec("iPhone")["tdp_w"])
