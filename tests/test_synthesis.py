"""Unit tests of analysis.synthesis. Expected values are worked by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.themes import synthesis as s


def test_geometric_mean():
    # geomean(2, 8) = sqrt(16) = 4; geomean(1, 10, 100) = 10.
    assert s.geometric_mean(pd.Series([2.0, 8.0])) == pytest.approx(4.0)
    assert s.geometric_mean(pd.Series([1.0, 10.0, 100.0])) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        s.geometric_mean(pd.Series([1.0, 0.0]))


def _claims() -> pd.DataFrame:
    nan = math.nan
    return pd.DataFrame([
        # FlashAttention-3-like range 1.5-2.0x over FlashAttention-2 -> factor 2.0, low 1.5
        ("a-1", "a", "speedup", nan, 1.5, 2.0, "x", "exact", "FlashAttention-2", "H100", "FP16", "headline"),
        ("b-1", "b", "speedup", 64, nan, nan, "%", "exact", "BF16 Megatron-LM", "H100", nan, "headline"),
        ("b-2", "b", "speedup", 10, nan, nan, "x", "up to", nan, "GPU", nan, "headline"),
        ("b-3", "b", "speedup", 3, nan, nan, "x", "exact", nan, nan, nan, "setup"),  # not headline
        ("c-1", "c", "throughput", 100, nan, nan, "TFLOP/s", "exact", nan, "GPU;CPU", nan, "headline"),
    ], columns=["claim_id", "citekey", "metric", "value", "low", "high", "unit", "qualifier", "baseline",
                "hardware", "precision", "tier"])


def _papers() -> pd.DataFrame:
    return pd.DataFrame({"citekey": ["a", "b", "c"], "theme": ["gpu-kernels", "quantization", "serving"],
                         "year": [2024, 2023, 2024]})


def test_headline_speedups_and_summary():
    h = s.headline_speedups(_claims(), _papers())
    assert list(h.claim_id) == ["a-1", "b-1", "b-2"]
    f = h.set_index("claim_id")
    assert f.loc["a-1", "factor"] == 2.0 and f.loc["a-1", "factor_low"] == 1.5
    assert f.loc["b-1", "factor"] == pytest.approx(1.64)
    assert f.loc["b-2", "baseline_kind"] == "unstated"
    summ = s.summarise(h, "theme").set_index("theme")
    # quantization: one paper (b) with factors 1.64 and 10 -> its median (1.64 + 10) / 2 = 5.82 is the
    # theme's one paper value, so median and geometric mean are both 5.82; half of b's claims are 'up to'
    assert summ.loc["quantization", "median_x"] == pytest.approx(5.82)
    assert summ.loc["quantization", "geomean_x"] == pytest.approx(5.82)
    assert summ.loc["quantization", "share_up_to"] == 0.5
    assert (summ.loc["quantization", "papers"], summ.loc["quantization", "claims"]) == (1, 2)
    assert summ.loc["quantization", "n"] == "n = 1 paper (2 claims)"


def test_summary_counts_each_paper_once():
    # Over all headline speedups: paper a's value 2.0 and paper b's median 5.82 (two claims) ->
    # median over papers (2.0 + 5.82) / 2 = 3.91, not the claim median of (1.64, 2.0, 10) = 2.0.
    # 'up to' share, each paper weighing one: a 0 of 1, b 1 of 2 -> (0 + 0.5) / 2 = 0.25 (claims: 1/3).
    allh = s.summarise(s.headline_speedups(_claims(), _papers()))
    assert allh.loc[0, "median_x"] == pytest.approx(3.91)
    assert allh.loc[0, "share_up_to"] == pytest.approx(0.25)
    assert (allh.loc[0, "papers"], allh.loc[0, "claims"]) == (2, 3)


def test_reporting_completeness():
    comp = s.reporting_completeness(_claims(), _papers())
    # quantization headline claims: b-1 (H100, baseline) and b-2 (GPU, no baseline):
    # hardware 2/2, named part 1/2 (GPU is generic), precision 0/2, baseline 1/2.
    q = comp.loc["quantization"]
    assert (q["claims"], q["hardware"], q["named part"], q["precision"], q["baseline"]) == (2, 1.0, 0.5, 0.0, 0.5)
    assert q["papers"] == 1
    assert comp.loc["serving", "named part"] == 0.0  # 'GPU;CPU' names no specific part


def test_reporting_completeness_weighs_each_paper_once():
    # All headline claims in one theme: a-1 (H100, baseline), b-1 (H100, baseline), b-2 (GPU, none),
    # c-1 (GPU;CPU, none). Per paper, baseline named: a 1/1, b 1/2, c 0/1 -> (1 + 0.5 + 0) / 3 = 0.5;
    # named part: a 1, b 1/2, c 0 -> 0.5. Claim by claim both would be 2/4 = 0.5 as well, so the
    # precision column tells them apart: a 1/1, b 0/2, c 0/1 -> 1/3 per paper, against 1/4 per claim.
    comp = s.reporting_completeness(_claims(), _papers().assign(theme="all")).loc["all"]
    assert (comp["papers"], comp["claims"]) == (3, 4)
    assert comp["baseline"] == pytest.approx(0.5)
    assert comp["named part"] == pytest.approx(0.5)
    assert comp["precision"] == pytest.approx(1 / 3)


def test_names_specific_part():
    assert s.names_specific_part("A100;CPU")
    assert not s.names_specific_part("GPU;CPU")
    assert not s.names_specific_part(math.nan)


def test_verdict_counts_lists_every_verdict():
    res = pd.DataFrame({"verdict": ["consistent", "consistent", "implausible"]})
    assert s.verdict_counts(res, ["consistent", "inconsistent", "implausible"]) == {
        "consistent": 2, "inconsistent": 0, "implausible": 1}


def test_compute_budgets_converts_hours():
    c = pd.DataFrame([("x-1", "x", "gpu_hours", 20000.0, math.nan), ("x-2", "x", "gpu_days", 37.0, math.nan)],
                     columns=["claim_id", "citekey", "metric", "value", "high"])
    p = pd.DataFrame({"citekey": ["x"], "theme": ["beyond-ml"]})
    b = s.compute_budgets(c, p, "beyond-ml").set_index("claim_id")
    # 20,000 GPU-hours / 24 = 833.33 GPU-days
    assert b.loc["x-1", "gpu_days"] == pytest.approx(833.333, rel=1e-5)
    assert b.loc["x-2", "gpu_days"] == 37.0
