"""Unit tests of analysis.gpu_kernels. Expected values are worked out by hand in the comments."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis import models
from analysis.themes import gpu_kernels as gk


def test_attention_flops_flashattention_convention():
    # FlashAttention-2 (Dao 2023, Sec. 4.1): 4 · seqlen² · head_dim · heads.
    # seqlen 2048, head_dim 128, 16 heads, batch 8: 4 · 4,194,304 · 16,384 = 2.749e11 FLOP.
    assert gk.attention_flops(2048, 128, heads=16, batch=8) == pytest.approx(4 * 2048**2 * 128 * 16 * 8)
    assert gk.attention_flops(2048, 128, heads=16, batch=8) == pytest.approx(2.749e11, rel=1e-3)
    # causal masking halves it
    assert gk.attention_flops(1024, 64, causal=True) == pytest.approx(0.5 * 4 * 1024**2 * 64)


def test_fused_attention_intensity_is_seq_len_over_bytes():
    # 4N²d / (4Nd·B) = N/B: N = 16384 at FP16 (2 bytes) gives 8192 FLOP/byte; FP8 gives 16384.
    assert gk.attention_intensity(16384, 128, 2.0) == pytest.approx(8192)
    assert gk.attention_intensity(16384, 256, 1.0) == pytest.approx(16384)


def test_materialised_attention_intensity_tends_to_head_dim_over_bytes():
    # 4N²d / ((4Nd + 4N²)·B) = N·d / ((d + N)·B). N = 16384, d = 128, B = 2:
    # 16384·128 / (16512·2) = 2097152 / 33024 = 63.50 FLOP/byte (≈ d/B = 64).
    assert gk.attention_intensity(16384, 128, 2.0, fused=False) == pytest.approx(63.50, abs=0.01)


def test_compute_bound_seq_len_on_h100():
    # H100 SXM FP16 dense 989.4 TFLOP/s over 3.35 TB/s: ridge 295.3 FLOP/byte; with 2-byte
    # elements fused attention reaches it at N = 295.3 · 2 = 590.7 tokens (1181 if causal).
    assert gk.compute_bound_seq_len(989.4, 3.35, 2.0) == pytest.approx(590.7, abs=0.1)
    assert gk.compute_bound_seq_len(989.4, 3.35, 2.0, causal=True) == pytest.approx(1181.4, abs=0.2)


def test_units_and_utilisation():
    # FlashAttention-3's "close to 1.2 PFLOP/s" is 1200 TFLOP/s; FlashAttention-2's 35% of the
    # 989.4 TFLOP/s FP16 peak is 0.35 · 989.4 = 346.3 TFLOP/s.
    assert gk.to_tflops(1.2, "PFLOP/s") == pytest.approx(1200)
    assert gk.to_tflops(740, "TFLOP/s") == 740
    assert gk.achieved_from_utilisation(35, 989.4) == pytest.approx(346.29)
    with pytest.raises(models.ModelError):
        gk.to_tflops(1.0, "tokens/s")


def test_speedup_factor_and_ceiling():
    # CUDA-L2: +19.2% over cuBLAS is a factor 1.192; the baseline then ran at ≤ 1/1.192 = 83.9% of
    # the attainable peak. CUDA-L1's 449x leaves its baseline at ≤ 1/449 = 0.223%.
    assert gk.speedup_factor(19.2, "%") == pytest.approx(1.192)
    assert gk.speedup_factor(2.84, "x") == 2.84
    assert gk.baseline_ceiling(1.192) == pytest.approx(0.8389, abs=1e-4)
    assert gk.baseline_ceiling(449) == pytest.approx(0.002227, abs=1e-6)
    assert gk.baseline_ceiling(0.5) == 1.0  # a slowdown says nothing beyond "at most peak"
    with pytest.raises(models.ModelError):
        gk.speedup_factor(2.0, "ms")


def test_headline_value_prefers_value_then_top_of_range():
    assert gk.headline_value(2.0, math.nan, math.nan) == 2.0
    assert gk.headline_value(math.nan, 1.5, 2.0) == 2.0
    with pytest.raises(models.ModelError):
        gk.headline_value(math.nan, math.nan, math.nan)


def test_speedup_summary_counts_each_paper_once():
    # CUDA-L1-like: one paper states a mean speedup on each of six GPUs (17.7, 17.8, 19.0, 16.5, 14.7,
    # 13.9), with no baseline; two other papers state 1.46 and 6.7, also without one. The paper's
    # median of its means is (16.5 + 17.7) / 2 = 17.1; over the three papers the median is 6.7 (claim by
    # claim it would be (14.7 + 16.5) / 2 = 15.6). Above 10x, each paper weighing one: 1, 0, 0 -> 1/3.
    # A vendor-library group of one paper with means of +19.2% and +26%: median (1.192 + 1.26) / 2 = 1.226.
    nan = math.nan
    rows = [(f"l1-{i}", "l1", v, "mean", "unstated") for i, v in enumerate([17.7, 17.8, 19.0, 16.5, 14.7, 13.9], 1)]
    rows += [("fa-1", "fa", 1.46, "single", "unstated"), ("ma-1", "ma", 6.7, "maximum", "unstated"),
             ("l2-1", "l2", 19.2, "mean", "vendor library"), ("l2-2", "l2", 26.0, "mean", "vendor library")]
    claims = pd.DataFrame([(cid, ck, "speedup", v, nan, nan, "x" if ck != "l2" else "%", st, nan, cls)
                           for cid, ck, v, st, cls in rows],
                          columns=["claim_id", "citekey", "metric", "value", "low", "high", "unit", "statistic",
                                   "bound", "baseline_class"])
    summ = gk.summarise_speedups(gk.classify_speedups(claims))
    assert list(summ.index) == ["vendor library", "unstated"]  # the order of BASELINE_CLASSES
    u = summ.loc["unstated"]
    assert u["median"] == pytest.approx(6.7)
    assert (u["papers"], u["claims"], u["n"]) == (3, 8, "n = 3 papers (8 claims)")
    assert u["share_over_10x"] == pytest.approx(1 / 3)
    assert summ.loc["vendor library", "median"] == pytest.approx(1.226)


def test_speedup_summary_never_mixes_an_average_and_a_maximum():
    # SMaT as the ledger codes it: a maximum of 125x and an average of 2.6x over one baseline. The old
    # per-paper median made it (125 + 2.6) / 2 = 63.8, a number the abstract does not state; the headline
    # rule keeps the average, 2.6. FKL's "2x to more than 1000x", a range bounded on its top end, enters as
    # its geometric midpoint sqrt(2 * 1000) = 44.72, flagged as resting on a bound. Over the two papers:
    # (2.6 + 44.72) / 2 = 23.66.
    nan = math.nan
    claims = pd.DataFrame([
        ("okanovic2024high-1", "okanovic2024high", "speedup", 125.0, nan, nan, "x", "maximum", nan, "vendor library"),
        ("okanovic2024high-2", "okanovic2024high", "speedup", 2.6, nan, nan, "x", "mean", nan, "vendor library"),
        ("amoros2025fused-1", "amoros2025fused", "speedup", nan, 2.0, 1000.0, "x", "range", "lower", "vendor library"),
    ], columns=["claim_id", "citekey", "metric", "value", "low", "high", "unit", "statistic", "bound",
                "baseline_class"])
    sp = gk.classify_speedups(claims).set_index("claim_id")
    assert sp.loc["amoros2025fused-1", "factor"] == 1000.0  # the figure still draws the range's top
    assert sp.loc["amoros2025fused-1", "value_x"] == pytest.approx(math.sqrt(2000))
    v = gk.summarise_speedups(sp.reset_index()).loc["vendor library"]
    assert v["median"] == pytest.approx((2.6 + math.sqrt(2000)) / 2)
    assert (v["papers"], v["claims"], v["bounded_papers"], v["range_papers"]) == (2, 3, 1, 1)


def test_points_file_validates():
    assert "3 kernel throughput points" == gk._describe_points()
