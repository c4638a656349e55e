"""Unit tests of analysis.quantization. Expected values are worked out by hand in the comments."""

from __future__ import annotations

import pytest

from analysis import models
from analysis.themes import quantization as q

# A100 SXM4 80 GB: 312 TFLOP/s FP16 dense, 2.039 TB/s (NVIDIA A100 datasheet) → ridge 153.0 FLOP/byte.
A100 = {"mem_bw_tbps": 2.039, "peak_tflops": 312.0}
# H100 SXM5: 989.4 TFLOP/s FP16 dense, 3.35 TB/s (NVIDIA H100 datasheet) → ridge 295.3 FLOP/byte.
H100 = {"mem_bw_tbps": 3.35, "peak_tflops": 989.4}


def test_bytes_and_weights():
    # 4 bits = 0.5 bytes; GLM-130B at INT4: 130e9 · 0.5 = 65 GB; QMoE's 1.6T at 0.8 bits:
    # 1.6e12 · 0.1 = 160 GB (the abstract's "less than 160GB"), and at 16 bits 3.2 TB (its "3.2TB").
    assert q.bytes_per_weight(4) == 0.5
    assert q.weights_gb_bits(130e9, 4) == pytest.approx(65.0)
    assert q.weights_gb_bits(1.6e12, 0.8) == pytest.approx(160.0)
    assert q.weights_gb_bits(1.6e12, 16) == pytest.approx(3200.0)
    # agrees with models.weights_gb for the named precisions
    assert q.weights_gb_bits(70e9, 8) == pytest.approx(models.weights_gb(70e9, "int8"))


def test_decode_bound_is_16_over_bits_when_memory_bound():
    # At batch 1 both steps are memory-bound: speedup = 16/4 = 4, 16/3 = 5.33, 16/2 = 8.
    assert q.decode_speedup_bound(1, 4, **A100) == pytest.approx(4.0)
    assert q.decode_speedup_bound(1, 3, **A100) == pytest.approx(16 / 3)
    assert q.decode_speedup_bound(16, 2, **H100) == pytest.approx(8.0)


def test_compute_bound_batch_sizes():
    # b* = ridge · bytes / 2. A100: 153.0 · 2 / 2 = 153.0 at 16 bits; 153.0 · 0.5 / 2 = 38.3 at 4 bits.
    # H100: 295.3 · 0.5 / 2 = 73.8 at 4 bits.
    assert q.compute_bound_batch(16, **A100) == pytest.approx(153.0, abs=0.1)
    assert q.compute_bound_batch(4, **A100) == pytest.approx(38.26, abs=0.05)
    assert q.compute_bound_batch(4, **H100) == pytest.approx(73.8, abs=0.1)


def test_decode_bound_falls_past_the_compute_bound_batch():
    # A100, 4-bit, batch 64: the 16-bit step is memory-bound (2N/bw), the 4-bit step compute-bound
    # (2N·64/peak). Ratio = (2/2.039e12) / (128/312e12) = 312/(2.039·64) = 2.391.
    assert q.decode_speedup_bound(64, 4, **A100) == pytest.approx(2.391, abs=0.002)
    # batch 128: 312/(2.039·128) = 1.195; batch 256: both compute-bound → 1.
    assert q.decode_speedup_bound(128, 4, **A100) == pytest.approx(1.195, abs=0.002)
    assert q.decode_speedup_bound(256, 4, **A100) == pytest.approx(1.0)


def test_kv_cache_erodes_the_bound():
    # 70B weights: 140 GB at 16 bits, 35 GB at 4 bits; a KV cache of 1.342 GB per sequence
    # (80 layers · 8 KV heads · 128 · 4096 tokens · 2 (K,V) · 2 bytes = 1,342,177,280 B). At batch 16
    # (both memory-bound): (140 + 16·1.342) / (35 + 16·1.342) = 161.47 / 56.47 = 2.859.
    kv = 2 * 80 * 8 * 128 * 4096 * 2
    assert kv == 1_342_177_280
    assert q.decode_speedup_bound(16, 4, params=70e9, kv_bytes_per_seq=kv, **H100) == pytest.approx(2.859, abs=0.002)


def test_bits_implied():
    # A 6.7x speedup from memory traffic alone needs weights of at most 16/6.7 = 2.39 bits.
    assert q.bits_implied(6.7) == pytest.approx(2.388, abs=0.001)


def test_gpus_needed_and_fill():
    # GLM-130B INT4 (65 GB) on 4 × 24 GB RTX 3090: 65/96 = 0.677 full; at least ceil(65/24) = 3 cards.
    assert q.fill_fraction(130e9, 4, 4, 24) == pytest.approx(0.677, abs=0.001)
    assert q.gpus_needed(130e9, 4, 24) == 3
    # Nemotron-4 340B: FP8 340 GB on 8 × 80 GB = 0.531 full; BF16 680 GB > 640 GB needs 9 GPUs.
    assert q.fill_fraction(340e9, 8, 8, 80) == pytest.approx(0.531, abs=0.001)
    assert q.gpus_needed(340e9, 16, 80) == 9
    assert q.fit_verdict(q.fill_fraction(340e9, 16, 8, 80)) == "does not fit"
    assert q.fit_verdict(0.95) == "tight"
    assert q.fit_verdict(0.5) == "fits"


def test_invalid_input_is_refused():
    with pytest.raises(models.ModelError):
        q.bytes_per_weight(0)
    with pytest.raises(models.ModelError):
        q.bits_implied(-1)


def test_data_files_validate():
    assert q._describe_models() == "4 models"
    assert q._describe_fits() == "6 fit statements"
