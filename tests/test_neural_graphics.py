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
    assert math.isnan(float(ng.device_spec("iPhone")["tdp_w"]))


def test_device_spec_never_mixes_bases() -> None:
    # data/hardware.csv: H100 SXM dense FP16 tensor 989.4, FP32 67; RTX 4090 FP16 (FP32 accumulate) 165.2,
    # FP32 82.6; M1 Pro and Jetson AGX Orin hold FP32 only (5.2 and 5.3), Orin has no bandwidth figure;
    # data/neural-graphics-devices.csv: RTX 3060 FP32 13 TFLOP/s, 0.36 TB/s
    h100 = ng.device_spec("H100-SXM", "fp16")
    assert (h100["peak_tflops"], h100["peak_fp32_tflops"]) == (pytest.approx(989.4), pytest.approx(67))
    assert ng.device_spec("RTX-4090", "fp32")["peak_tflops"] == pytest.approx(82.6)
    for dev, fp32 in (("M1-Pro", 5.2), ("Jetson-Orin", 5.3), ("RTX-3060", 13.0)):
        s = ng.device_spec(dev, "fp16")
        assert math.isnan(float(s["peak_tflops"])), dev  # no FP16 figure: nan, not the FP32 figure
        assert s["precision"] == "fp16"
        assert s["peak_fp32_tflops"] == pytest.approx(fp32)
    assert ng.device_spec("RTX-3060", "fp32")["peak_tflops"] == pytest.approx(13.0)
    assert math.isnan(float(ng.device_spec("Jetson-Orin", "fp32")["mem_bw_tbps"]))


def test_parse_fractions() -> None:
    assert ng.parse_fractions("0,0.5,0.9") == [0.0, 0.5, 0.9]
    assert ng.parse_fractions(" 1 ") == [1.0]
    for bad in ("", "0,1.5", "-0.1"):
        with pytest.raises(ValueError):
            ng.parse_fractions(bad)


def test_machine_balance() -> None:
    # RTX 4090: 165.2 TFLOP/s / 1.008 TB/s = 163.89 FLOP/byte; H100 SXM FP32: 67 / 3.35 = 20.0 FLOP/byte
    assert ng.machine_balance(165.2, 1.008) == pytest.approx(163.889, rel=1e-5)
    assert ng.machine_balance(67, 3.35) == pytest.approx(20.0)
    with pytest.raises(ValueError):
        ng.machine_balance(67, math.nan)


def test_memory_to_compute_gap() -> None:
    # Instant-NGP sample: 19,328 FLOP and 512 bytes of table reads (test_hash_encoding_costs).
    # H100 SXM on FP32 (balance 20 FLOP/B), no reuse: 20 x 512 / 19,328 = 10,240 / 19,328 = 0.5298
    # (the notebook's 4K/60 gaps: memory 16.31 / 3.35 = 4.868x, compute 615.6 / 67 = 9.188x; 4.868 / 9.188 = 0.530)
    assert ng.memory_to_compute_gap(19328, 512, 0.0, 67, 3.35) == pytest.approx(0.52980, rel=1e-4)
    # RTX 4090 on FP16 tensor (163.89 FLOP/B), half the reads from cache: 163.89 x 256 / 19,328 = 2.1707
    assert ng.memory_to_compute_gap(19328, 512, 0.5, 165.2, 1.008) == pytest.approx(2.1707, rel=1e-4)
    # everything from cache: no memory gap at all
    assert ng.memory_to_compute_gap(19328, 512, 1.0, 165.2, 1.008) == 0
    with pytest.raises(ValueError):
        ng.memory_to_compute_gap(19328, 512, 1.2, 165.2, 1.008)


def test_break_even_reuse() -> None:
    # r* = 1 - (F / B) / balance = 1 - F x bandwidth / (B x peak); F / B = 19,328 / 512 = 37.75 FLOP/byte
    # RTX 4090 FP16 tensor: 37.75 x 1.008 / 165.2 = 38.052 / 165.2 = 0.230339 -> r* = 0.769661
    assert ng.break_even_reuse(19328, 512, 165.2, 1.008) == pytest.approx(0.769661, rel=1e-5)
    # RTX 4090 FP32: 38.052 / 82.6 = 0.460678 -> r* = 0.539322
    assert ng.break_even_reuse(19328, 512, 82.6, 1.008) == pytest.approx(0.539322, rel=1e-5)
    # H100 SXM FP16 tensor: 37.75 x 3.35 / 989.4 = 126.4625 / 989.4 = 0.127817 -> r* = 0.872183
    assert ng.break_even_reuse(19328, 512, 989.4, 3.35) == pytest.approx(0.872183, rel=1e-5)
    # H100 SXM FP32: 126.4625 / 67 = 1.8875 > 1, so the compute gap is the larger at any reuse -> 0
    assert ng.break_even_reuse(19328, 512, 67, 3.35) == 0.0
    # at r* the two gaps are equal: 1 - 0.769661 = 0.230339 of 512 bytes = 117.93 bytes;
    # 163.889 x 117.93 / 19,328 = 1.000
    assert ng.memory_to_compute_gap(19328, 512, 0.769661, 165.2, 1.008) == pytest.approx(1.0, rel=1e-5)
    with pytest.raises(ValueError):
        ng.break_even_reuse(19328, 0, 165.2, 1.008)


def test_traffic_interval_is_one_minus_the_reuse_quantiles():
    # traffic = T0 (1 - r) with r triangular on (0, 0.5, 0.9): the 10th percentile of traffic is T0 (1 - the 90th
    # percentile of r) and vice versa. Closed-form triangular quantiles (a=0, c=0.5, b=0.9):
    # q90 = b - sqrt(0.1 (b - a)(b - c)) = 0.9 - sqrt(0.036) = 0.71026; q10 = sqrt(0.1 x 0.9 x 0.5) = 0.21213.
    from analysis.themes import neural_graphics as ng

    r = ng.reuse_range([0.0, 0.5, 0.9], 0.5)
    iv = ng.traffic_interval(10.0, r)
    assert iv.central == pytest.approx(5.0)
    assert iv.low == pytest.approx(10 * (1 - 0.71026), rel=0.03)
    assert iv.high == pytest.approx(10 * (1 - 0.21213), rel=0.03)
    with pytest.raises(ValueError):
        ng.reuse_range([0.0, 0.9], 0.95)
