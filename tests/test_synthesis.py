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
        ("a-1", "a", "speedup", nan, 1.5, 2.0, "x", "range", "FlashAttention-2", "H100", "FP16", "headline",
         "range", nan, "previous paper or system"),
        ("b-1", "b", "speedup", 64, nan, nan, "%", "exact", "BF16 Megatron-LM", "H100", nan, "headline",
         "single", nan, "previous paper or system"),
        ("b-2", "b", "speedup", 10, nan, nan, "x", "up to", nan, "GPU", nan, "headline", "maximum", nan, "unstated"),
        ("b-3", "b", "speedup", 3, nan, nan, "x", "exact", nan, nan, nan, "setup", "single", nan, "unstated"),
        ("c-1", "c", "throughput", 100, nan, nan, "TFLOP/s", "exact", nan, "GPU;CPU", nan, "headline", nan, nan, nan),
    ], columns=["claim_id", "citekey", "metric", "value", "low", "high", "unit", "qualifier", "baseline",
                "hardware", "precision", "tier", "statistic", "bound", "baseline_class"])


def _papers() -> pd.DataFrame:
    return pd.DataFrame({"citekey": ["a", "b", "c"], "theme": ["gpu-kernels", "quantization", "serving"],
                         "year": [2024, 2023, 2024]})


def test_headline_speedups_and_summary():
    h = s.headline_speedups(_claims(), _papers())
    assert list(h.claim_id) == ["a-1", "b-1", "b-2"]
    f = h.set_index("claim_id")
    assert f.loc["a-1", "factor"] == 2.0 and f.loc["a-1", "factor_low"] == 1.5
    # a range enters as its geometric midpoint: sqrt(1.5 * 2.0) = sqrt(3) = 1.7321
    assert f.loc["a-1", "value_x"] == pytest.approx(3 ** 0.5)
    assert f.loc["b-1", "factor"] == pytest.approx(1.64)
    assert f.loc["b-2", "baseline_kind"] == "unstated"  # the coded baseline_class
    summ = s.summarise(h, "theme").set_index("theme")
    # quantization: one paper (b) with a single 1.64x and a maximum of 10x. The headline rule keeps the
    # single value: 1.64 (the old median of both, (1.64 + 10) / 2 = 5.82, mixed two statistics).
    assert summ.loc["quantization", "median_x"] == pytest.approx(1.64)
    assert summ.loc["quantization", "geomean_x"] == pytest.approx(1.64)
    assert summ.loc["quantization", "share_up_to"] == 0.5  # half of b's claims are maxima
    assert (summ.loc["quantization", "papers"], summ.loc["quantization", "claims"]) == (1, 2)
    assert summ.loc["quantization", "n"] == "n = 1 paper (2 claims)"
    assert summ.loc["gpu-kernels", "range_papers"] == 1 and summ.loc["gpu-kernels", "bounded_papers"] == 0


def test_summary_counts_each_paper_once():
    # Over all headline speedups: paper a's value sqrt(3) = 1.7321 and paper b's 1.64 (its single value) ->
    # median over papers (1.7321 + 1.64) / 2 = 1.6860.
    # 'up to' share, each paper weighing one: a 0 of 1, b 1 of 2 -> (0 + 0.5) / 2 = 0.25 (claims: 1/3).
    allh = s.summarise(s.headline_speedups(_claims(), _papers()))
    assert allh.loc[0, "median_x"] == pytest.approx((3 ** 0.5 + 1.64) / 2)
    assert allh.loc[0, "share_up_to"] == pytest.approx(0.25)
    assert (allh.loc[0, "papers"], allh.loc[0, "claims"]) == (2, 3)


def test_headline_speedups_refuse_uncoded_claims():
    c = _claims()
    c.loc[1, "baseline_class"] = math.nan
    with pytest.raises(ValueError, match="b-1"):
        s.headline_speedups(c, _papers())


def test_energy_claims_on_real_ledger_rows():
    # Rows as data/claims.csv holds them: Fire-Flyer's 40% energy reduction (its workload names energy),
    # FuseMax's 79% of the energy (metric energy), the 13 W of the MatMul-free LM (unit W), InTAR's power
    # efficiency (workload), and three that mention energy but are no energy figure: GPPerf-like counts of
    # DNNs and GPUs, and Splitwise's 2.35x throughput "with the same cost and power" (a speedup).
    nan = math.nan
    rows = [
        ("an2024fireflyer-3", "an2024fireflyer", "reduction", 40, "%", "A100", "Fire-Flyer 2 DL training energy",
         "energy consumption by 40%"),
        ("nayak2024fusemax-3", "nayak2024fusemax", "energy", 79, "%", nan, "attention, iso-area",
         "while using 79% of the energy"),
        ("zhu2024scalable-4", "zhu2024scalable", "power", 13, "W", "FPGA", "MatMul-free LM inference on custom FPGA",
         "billion-parameter scale models at 13W"),
        ("he2025intar-5", "he2025intar", "efficiency", nan, "x", "FPGA;GPU", "GPT-2 medium on FPGA (power efficiency)",
         "demonstrates 1.66 ~7.17x better power efficiency than GPUs"),
        ("jha2020modeling-1", "jha2020modeling", "count", 25, "count", "GPU",
         "DNN data-reuse / energy-efficiency modelling", "evaluate our model on 25 state-of-the-art DNNs"),
        ("jha2020modeling-2", "jha2020modeling", "gpu_count", 2, "GPUs", "GPU",
         "DNN data-reuse / energy-efficiency modelling", "25 state-of-the-art DNNs on two GPUs"),
        ("patel2023splitwise-3", "patel2023splitwise", "speedup", 2.35, "x", "GPU", "LLM inference cluster (Splitwise)",
         "achieve 2.35x more throughput with the same cost and power"),
    ]
    c = pd.DataFrame(rows, columns=["claim_id", "citekey", "metric", "value", "unit", "hardware", "workload",
                                    "evidence"])
    e = s.energy_claims(c).set_index("claim_id")
    assert sorted(e.index) == ["an2024fireflyer-3", "he2025intar-5", "nayak2024fusemax-3", "zhu2024scalable-4"]
    # none is energy per unit of work (J, TOPS/W, GFLOPS/W); three are relative (% or x); only the A100 is a part
    assert not e["per_work"].any() and int(e["relative"].sum()) == 3
    assert e["named_part"].to_dict() == {"an2024fireflyer-3": True, "nayak2024fusemax-3": False,
                                         "zhu2024scalable-4": False, "he2025intar-5": False}


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


def test_headline_rule_on_the_real_ledger():
    from analysis.data import claims, papers
    from analysis.models import paper_stats
    h = s.headline_speedups(claims.load(), papers.load())
    pv = paper_stats.headline_values(h, "value_x", "baseline_kind").set_index(["baseline_kind", "citekey"])
    # no paper value mixes two ranks of statistic (single, mean and median are one rank)
    for used in pv["statistic_used"]:
        assert len({paper_stats.STATISTIC_ORDER[x] for x in used.split("+")}) == 1, used
    # SMaT: "by up to 125x (on average 2.6x)" over DASP, cuSPARSE and Magicube -> its average, 2.6 (was 63.8)
    smat = pv.xs("okanovic2024high", level="citekey")
    assert list(smat["value_x"]) == [2.6] and list(smat["claims"]) == [2]
    # FKL: "in the range of 2x to more than 1000x", its top a lower bound -> sqrt(2 * 1000) = 44.72, bounded
    fkl = pv.xs("amoros2025fused", level="citekey").iloc[0]
    assert fkl["value_x"] == pytest.approx(44.72, abs=0.01) and bool(fkl["bounded"]) and bool(fkl["range_midpoint"])
    # EET: "an average of 1.40-4.20x" over FasterTransformer -> sqrt(1.4 * 4.2) = 2.425, a range's midpoint
    eet = pv.xs("li2021easy", level="citekey").iloc[0]
    assert eet["value_x"] == pytest.approx(2.425, abs=0.001) and bool(eet["range_midpoint"])
