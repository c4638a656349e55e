"""Tests of analysis.models.datasheet against published ratios and hand computation."""

from __future__ import annotations

import pytest

from analysis.models import datasheet as ds

# data/hardware.csv: H100 SXM 989.4 TFLOP/s BF16 dense, 3.35 TB/s; B200 (HGX, 1000 W) 2250 and 8 TB/s.
H100 = (989.4, 3.35)
B200 = (2250.0, 8.0)


def test_b200_over_h100_bandwidth_and_compute():
    # Per-GPU comparisons of B200 with H100: about 2.4x the memory bandwidth and 2.25x the tensor throughput. A
    # memory-bound workload (1 FLOP/byte) sees the first, a compute-bound one (1e4 FLOP/byte) the second.
    # Sources re-checked (issue 35): no NVIDIA datasheet of B200 or H100 is in the stored corpus, so these stay
    # third-party. Seen: "2.4x the memory and bandwidth of the H100" (awesomeagents.ai/hardware/nvidia-b200); the
    # per-GPU tables of glennklockwood.com (processors/B200, HGX B200 at 1,000 W, citing NVIDIA: BF16 2,250 dense,
    # FP8 9,000 sparse; processors/h100: BF16 989.4 dense, FP8 3,957.8 sparse, 3.35 TB/s), whose ratios are
    # 2,250/989.4 = 9,000/3,957.8 = 2.27, within the tolerance of the 2.25 first quoted from an AIssential summary
    # (not found again). Not settled: a copy of NVIDIA's HGX table (zdszero.github.io) gives 7.7 TB/s per HGX
    # B200 GPU, and pytorch/ao PR 4002 computes 7.67 TB/s from the driver's 7,680-bit bus; data/hardware.csv
    # keeps 8 TB/s (its B200 note says so).
    assert ds.roofline_ratio(1.0, *B200, *H100) == pytest.approx(2.4, rel=0.01)
    assert ds.roofline_ratio(1e4, *B200, *H100) == pytest.approx(2.25, rel=0.02)


def test_between_the_ridges_by_hand():
    # a: 100 TFLOP/s, 1 TB/s (ridge 100); b: 50 TFLOP/s, 2 TB/s (ridge 25). At 50 FLOP/byte a is memory-bound
    # (50 TFLOP/s) and b compute-bound (50 TFLOP/s): ratio 1.
    assert ds.roofline_ratio(50.0, 100.0, 1.0, 50.0, 2.0) == pytest.approx(1.0)
    assert ds.roofline_ratio(10.0, 100.0, 1.0, 50.0, 2.0) == pytest.approx(0.5)


def test_devices_in_domain():
    # 405e9 parameters at 2 bytes = 810 GB: 11 GPUs of 80 GB (more than an 8-GPU domain), 6 of 141 GB.
    assert ds.devices_in_domain(810.0, 80.0, 8) == (11, False)
    assert ds.devices_in_domain(810.0, 141.0, 8) == (6, True)
