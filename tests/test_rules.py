"""Tests of the audit's rules (analysis/audit/rules/) and of the overrides (data/audit-overrides.csv).

Each rule is tested on worked examples: small ledgers written here, and claims of the real ledger.
Every expected value is worked out by hand in the comments, from the claim values and these
datasheet and price figures (data/hardware.csv, data/assumptions.yml):

- dense 16-bit peaks: H100 SXM 989.4, H100 PCIe 756, A100 (40 and 80 GB) 312, MI250X 383 TFLOP/s;
- memory: A100 40 GB = 40,960 MiB = 42.95e9 bytes, A100 80 GB = 81,920 MiB = 85.90e9 bytes,
  MI250X 128 GB, V100 32 GB, RTX 4090 24 GB, RTX 3090 24 GB (nominal);
- A100 40 GB rental: default $4.10, sourced range $1.10-$4.10 per GPU-hour; A100 80 GB $5.12,
  range $1.50-$5.12.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis import audit
from analysis.audit import overrides, rules
from analysis.audit import run as audit_run
from analysis.audit.registry import PLAUSIBLE, severity
from analysis.audit.rules import base
from analysis.audit.rules.amdahl import AmdahlRule
from analysis.audit.rules.arithmetic import ArithmeticRule
from analysis.audit.rules.conversion import ConversionRule
from analysis.audit.rules.memory import MemoryRule
from analysis.audit.rules.order import OrderRule
from analysis.audit.rules.peak import PeakRule
from analysis.audit.rules.price import PriceRule, price_range
from analysis.data import claims
from analysis.data.paths import DataError

REL = 1e-3
COLUMNS = list(claims.SCHEMA.columns)


def ledger(*rows: dict[str, object]) -> base.Ledger:
    """A small ledger: each row gives the fields that matter; the rest are empty."""
    full = []
    for i, r in enumerate(rows, 1):
        row: dict[str, object] = {c: None for c in COLUMNS}
        row.update({"claim_id": f"toy-{i}", "citekey": "toy", "qualifier": "exact", "evidence": "", "tier": "headline"})
        row.update(r)
        full.append(row)
    return base.Ledger(pd.DataFrame(full, columns=COLUMNS))


def generated(rule: base.Rule, lg: base.Ledger) -> dict[str, base.Generated]:
    return {g.check_id: g for g in rule.run(lg, {}).generated}


@pytest.fixture(scope="module")
def real() -> audit_run.Audit:
    return audit_run.audit()


def row(a: audit_run.Audit, check_id: str) -> pd.Series:
    df = a.results.set_index("check_id")
    assert check_id in df.index, f"{check_id} was not generated"
    return df.loc[check_id]


# --- shared reading of the types ------------------------------------------------------------------------

def test_model_sizes_from_names() -> None:
    assert base.model_params("Llama 3.1 8B training") == 8e9  # "8B" after the family name Llama
    assert base.model_params("LLaMA2-Chat-7B HumanEval") == 7e9  # part of a hyphenated name
    assert base.model_params("20B GPT training") == 20e9  # before "GPT"
    assert base.model_params("1T-parameter LLM training on Frontier") == 1e12
    assert base.model_params("LoRA/QLoRA fine-tuning of Qwen2.5-1.5B-Instruct") == 1.5e9
    assert base.model_params("Mixtral-8x7B inference") is None  # 8x7B is not a 7B model
    assert base.model_params("1B-vector k-NN graph construction") is None  # a billion vectors, not a model
    assert base.model_params("multi-GPU GCN training") is None


def test_devices_resolve_ids_variants_and_classes() -> None:
    assert base.devices("V100").ids == ("V100",)
    assert set(base.devices("A100").ids) == {"A100-40GB", "A100-80GB"}  # one part, two memory sizes (2020)
    assert "class" in base.devices("GPU").problem
    assert "generations" in base.devices("TPU").problem  # TPUv2 (2017) ... TPUv5p (2023)
    assert "several devices" in base.devices("GPU;CPU").problem


# --- rule peak -------------------------------------------------------------------------------------------

def test_peak_flop_rate_below_the_peak() -> None:
    lg = ledger({"metric": "throughput", "value": 500, "unit": "TFLOP/s", "hardware": "H100-SXM", "precision": "FP16",
                 "workload": "attention kernel"})
    g = generated(PeakRule(), lg)["rule-peak:toy-1"]
    # 500 / 989.4 = 0.505: half the dense FP16 peak
    assert g.result.recomputed == pytest.approx(989.4) and g.result.verdict == "consistent"
    assert "50.5%" in g.result.formula


def test_peak_ambiguous_variant_is_plausible_not_implausible() -> None:
    lg = ledger({"metric": "throughput", "value": 800, "unit": "TFLOP/s", "hardware": "H100",
                 "workload": "GEMM"})
    g = generated(PeakRule(), lg)["rule-peak:toy-1"]
    # "H100" is the SXM (989.4) or the PCIe card (756): 800 > 756 x (1 + 0.5/800) = 756.5, but < 989.4
    assert g.result.verdict == PLAUSIBLE and g.result.condition == "unstated hardware or precision"
    assert "H100-SXM" in g.result.assumption


def test_peak_tokens_per_second_through_flop_per_token() -> None:
    lg = ledger({"metric": "throughput", "value": 10_000, "unit": "tokens/s", "hardware": "A100",
                 "workload": "Llama 3.1 8B inference"},
                {"metric": "throughput", "value": 30_000, "unit": "tokens/s", "hardware": "A100",
                 "workload": "Llama 3.1 8B inference"})
    g = generated(PeakRule(), lg)
    # 10,000 tokens/s x 2 x 8e9 FLOP = 1.6e14 FLOP/s = 160 TFLOP/s <= 312 (both A100 variants)
    assert g["rule-peak:toy-1"].result.reported == pytest.approx(160)
    assert g["rule-peak:toy-1"].result.verdict == "consistent"
    # 30,000 x 2 x 8e9 = 480 TFLOP/s > 312, and the A100 has no FP8: perhaps several devices -> not checkable
    assert g["rule-peak:toy-2"].result.verdict == "not checkable"
    assert "aggregate" in g["rule-peak:toy-2"].result.explanation


def test_peak_rates_without_flop_counts_are_not_checkable() -> None:
    lg = ledger({"metric": "throughput", "value": 30, "unit": "FPS", "hardware": "RTX-3090", "workload": "NeRF"},
                {"metric": "throughput", "value": 30, "unit": "FPS", "hardware": "GPU", "workload": "NeRF"})
    g = generated(PeakRule(), lg)
    assert g["rule-peak:toy-1"].result.verdict == "not checkable"  # no FLOP per frame
    assert "class" in g["rule-peak:toy-2"].result.explanation  # "GPU" has no peak


def test_peak_utilisation_share(real: audit_run.Audit) -> None:
    r = row(real, "rule-peak:dash2023optimizing-7")
    # 38.38% <= 100%; as a rate: 0.3838 x 383 = 147.0 TFLOP/s of one MI250X
    assert r["verdict"] == "consistent" and r["relation"] == "≤" and "147 TFLOP/s" in r["formula"]
    lg = ledger({"metric": "utilization", "value": 105, "unit": "%", "workload": "training"})
    # 105% > 100 x (1 + 0.5/105): above every peak
    assert generated(PeakRule(), lg)["rule-peak:toy-1"].result.verdict == "implausible"


# --- rule memory -----------------------------------------------------------------------------------------

def test_memory_training_fits(real: audit_run.Audit) -> None:
    r = row(real, "rule-memory:dash2023optimizing-11")
    # 175e9 x 16 bytes = 2,800 GB of model states; 1,024 x 128 GB = 131,072 GB (2,800 / 131,072 = 2.1%);
    # 2,800 / 128 = 21.9 -> 22 devices would do
    assert r["recomputed"] == 22 and r["verdict"] == "consistent" and "= 2.1%" in r["formula"]
    assert r["claim_ids"] == "dash2023optimizing-11;dash2023optimizing-5"  # the 175B params claim, linked


def test_memory_training_needs_offload(real: audit_run.Audit) -> None:
    r = row(real, "rule-memory:yang2021m6t-2")
    # over 1e12 x 16 bytes = 16,000 GB against 480 x 32 GB = 15,360 GB: 640 GB (4.0%) must live elsewhere;
    # 16,000 / 32 = 500 V100 would be needed
    assert r["recomputed"] == 500 and r["verdict"] == PLAUSIBLE and r["condition"] == "offload or tiering"
    assert "640 GB of the 16,000 GB (4.0%)" in r["assumption"]


def test_memory_one_named_device(real: audit_run.Audit) -> None:
    r = row(real, "rule-memory:liao2024adding-3")
    # 175e9 x 16 = 2,800 GB on "a consumer GPU RTX 4090" (24 GB): 2,776 GB (99.1%) outside;
    # 2,800 / 24 = 116.7 -> 117 cards would be needed
    assert r["recomputed"] == 117 and r["condition"] == "offload or tiering" and "2,776 GB" in r["assumption"]


def test_memory_stated_budget(real: audit_run.Audit) -> None:
    r = row(real, "rule-memory:zhang2024dovetail-2")
    # LLaMA2-Chat-7B: 7e9 x 2 bytes = 14 GB of 16-bit weights in 3 GB of VRAM: 11 GB (78.6%) elsewhere,
    # or 3e9 x 8 / 7e9 = 3.4 bits per weight
    assert r["recomputed"] == pytest.approx(14.0) and r["verdict"] == PLAUSIBLE
    assert "11 GB of the 14 GB (78.6%)" in r["assumption"] and "3.4 bits" in r["assumption"]


def test_memory_variants_and_capacity() -> None:
    lg = ledger({"metric": "params", "value": 34, "unit": "B", "hardware": "A100",
                 "workload": "long-context serving", "evidence": "on a single A100 GPU"},
                {"metric": "memory", "value": 24, "unit": "GB", "hardware": "RTX-3090", "workload": "card memory"},
                {"metric": "gpu_count", "value": 4, "unit": "GPUs", "hardware": "RTX-3090", "workload": "inference"})
    g = generated(MemoryRule(), lg)
    one = g["rule-memory:toy-1"].result
    # 34e9 x 2 = 68 GB: 68 / 42.95 -> 2 A100 40 GB, 68 / 85.9 -> 1 A100 80 GB: the 80 GB card must be meant
    assert one.recomputed == 2 and one.verdict == PLAUSIBLE and "A100-80GB" in one.assumption
    cap = g["rule-memory:toy-2"].result
    assert cap.recomputed == 24 and cap.verdict == "consistent"  # 24 GB <= one RTX 3090's 24 GB
    assert g["rule-memory:toy-3"].result.verdict == "not checkable"  # no model size for the four cards


# --- rule amdahl -----------------------------------------------------------------------------------------

def test_amdahl_implied_fraction(real: audit_run.Audit) -> None:
    r = row(real, "rule-amdahl:maurya2024datastates-3:maurya2024datastates-2")
    # 2.2x end to end, 48x checkpointing: f = (1 - 1/2.2) / (1 - 1/48) = 0.5455 / 0.9792 = 0.557
    assert r["verdict"] == "consistent" and "= 0.56" in r["formula"]


def test_amdahl_unstated_baseline(real: audit_run.Audit) -> None:
    r = row(real, "rule-amdahl:lin2024fastattention-4:lin2024fastattention-3")
    # 1.46 end to end > 1.43 attention: 1.46/1.43 - 1 = 2.1% > 0.005/1.46 + 0.005/1.43 = 0.69%;
    # the end-to-end figure has no baseline in the ledger
    assert r["verdict"] == PLAUSIBLE and r["condition"] == "unstated baseline"


def test_amdahl_same_baseline_is_inconsistent() -> None:
    lg = ledger({"metric": "speedup", "value": 3.5, "unit": "x", "baseline": "PyTorch",
                 "workload": "end-to-end training"},
                {"metric": "speedup", "value": 2.2, "unit": "x", "baseline": "PyTorch", "workload": "attention kernel"},
                {"metric": "speedup", "value": 64, "unit": "%", "baseline": "cuBLAS", "workload": "end-to-end run"})
    g = generated(AmdahlRule(), lg)
    bad = g["rule-amdahl:toy-1:toy-2"].result
    # 3.5 > 2.2 over one baseline: impossible; 3.5/2.2 - 1 = 59% > 10% and > 2 x (0.05/3.5 + 0.05/2.2) = 7.4%
    # -> major
    assert bad.verdict == "inconsistent"
    assert severity(bad.verdict, bad.reported, bad.recomputed, bad.relation, bad.tolerance) == "major"
    other = g["rule-amdahl:toy-3:toy-2"].result
    # "64% faster" = 1.64x <= 2.2x: consistent; f = (1 - 1/1.64) / (1 - 1/2.2) = 0.3902 / 0.5455 = 0.715
    assert other.reported == pytest.approx(1.64) and other.verdict == "consistent" and "= 0.72" in other.formula


def test_amdahl_whole_model_figure_is_end_to_end(real: audit_run.Audit) -> None:
    # ma2024efficient: "up to 6.7x inference acceleration" for LLM inference (no baseline in the ledger) and "up to
    # 2.4x" in matrix multiplication over CUTLASS, both on a GPU. The abstract does not say "end-to-end", but a
    # whole-model inference figure is one: two maxima, compared value with value, 6.7 > 2.4 by
    # 6.7/2.4 - 1 = 179%; with no baseline for the end-to-end figure it holds only under an assumption.
    r = row(real, "rule-amdahl:ma2024efficient-2:ma2024efficient-1")
    assert r["verdict"] == PLAUSIBLE and r["condition"] == "unstated baseline"
    assert r["reported"] == pytest.approx(6.7) and r["recomputed"] == pytest.approx(2.4)
    # FastAttention: Llama-7B inference throughput up to 5.16x (a maximum) against 10.7x for attention (a single
    # figure) on the Ascend NPU: different statistics, so the lowest end-to-end number (5.16) meets the highest
    # component number (10.7): within it; f = (1 - 1/5.16) / (1 - 1/10.7) = 0.8062 / 0.9065 = 0.89
    fa = row(real, "rule-amdahl:lin2024fastattention-2:lin2024fastattention-1")
    assert fa["verdict"] == "consistent" and "= 0.89" in fa["formula"]


def test_amdahl_recognises_whole_model_workloads() -> None:
    from analysis.audit.rules import amdahl as am
    lg = ledger({"metric": "speedup", "value": 64, "unit": "%", "workload": "GPT-175B training"},
                {"metric": "speedup", "value": 1.91, "unit": "x", "workload": "LLM serving throughput"},
                {"metric": "speedup", "value": 6.7, "unit": "x", "workload": "LLM inference",
                 "evidence": "we achieve up to 6.7x inference acceleration"},
                {"metric": "speedup", "low": 1.4, "high": 4.2, "unit": "x", "statistic": "range",
                 "workload": "transformer decoder layer inference"},
                {"metric": "speedup", "value": 2.4, "unit": "x", "workload": "arbitrary-precision matmul"},
                {"metric": "speedup", "value": 8.0, "unit": "x", "workload": "state space models"})
    whole = [c.claim_id for c in lg.claims if am.is_whole_model(c)]
    # the three model figures are whole-model; a decoder layer, a matmul and a model family without a task are not
    assert whole == ["toy-1", "toy-2", "toy-3"]
    assert [c.claim_id for c in lg.claims if am.is_component(c)] == ["toy-5"]


def test_amdahl_compares_like_with_like() -> None:
    # Two ranges over one baseline: top with top. End-to-end 2-6x, kernel 1.5-4x, both over cuBLAS: 6 > 4 by 50%
    # -> inconsistent. A maximum of 6x against a kernel mean of 4x, one baseline: different statistics, so the
    # lowest end-to-end number (6) meets the highest component number (4): over by 50%, but the two come from
    # different runs -> plausible. A range 2-6x end to end against a kernel single 4x: 2 <= 4, consistent.
    lg = ledger({"metric": "speedup", "low": 2, "high": 6, "unit": "x", "statistic": "range", "baseline": "cuBLAS",
                 "workload": "end-to-end inference"},
                {"metric": "speedup", "low": 1.5, "high": 4, "unit": "x", "statistic": "range", "baseline": "cuBLAS",
                 "workload": "GEMM kernel"})
    bad = generated(AmdahlRule(), lg)["rule-amdahl:toy-1:toy-2"].result
    assert bad.verdict == "inconsistent" and (bad.reported, bad.recomputed) == (6, 4)
    lg = ledger({"metric": "speedup", "value": 6, "unit": "x", "statistic": "maximum", "baseline": "cuBLAS",
                 "workload": "end-to-end inference"},
                {"metric": "speedup", "value": 4, "unit": "x", "statistic": "mean", "baseline": "cuBLAS",
                 "workload": "GEMM kernel"},
                {"metric": "speedup", "low": 2, "high": 6, "unit": "x", "statistic": "range", "baseline": "cuBLAS",
                 "workload": "end-to-end serving"})
    g = generated(AmdahlRule(), lg)
    assert g["rule-amdahl:toy-1:toy-2"].result.verdict == PLAUSIBLE
    assert g["rule-amdahl:toy-1:toy-2"].result.condition == "different runs or versions"
    mixed = g["rule-amdahl:toy-3:toy-2"].result
    assert mixed.verdict == "consistent" and mixed.reported == 2


# --- rule arithmetic -------------------------------------------------------------------------------------

def test_arithmetic_speedup_and_reduction() -> None:
    lg = ledger({"metric": "speedup", "value": 10, "unit": "x", "baseline": "Old", "workload": "New training"},
                {"metric": "gpu_days", "value": 5, "unit": "GPU-days", "baseline": "Old", "workload": "New training"},
                {"metric": "gpu_days", "value": 50, "unit": "GPU-days", "workload": "Old training"})
    g = generated(ArithmeticRule(), lg)["rule-arithmetic:toy-1"].result
    assert g.recomputed == pytest.approx(10) and g.verdict == "consistent"  # "10x faster": B / A = 50 / 5
    lg = ledger({"metric": "reduction", "value": 80, "unit": "%", "baseline": "Old", "workload": "New training"},
                {"metric": "gpu_days", "value": 5, "unit": "GPU-days", "baseline": "Old", "workload": "New training"},
                {"metric": "gpu_days", "value": 50, "unit": "GPU-days", "workload": "Old training"})
    r = generated(ArithmeticRule(), lg)["rule-arithmetic:toy-1"].result
    # "reduces by 80%" against 100 (1 - 5/50) = 90%: 90/80 - 1 = 12.5% off, beyond the tolerance
    # 0.5/80 + 0.5/5 + 0.5/50 = 0.625% + 10% + 1% = 11.6%, but within twice it -> minor
    assert r.recomputed == pytest.approx(90) and r.verdict == "inconsistent"
    assert severity(r.verdict, r.reported, r.recomputed, r.relation, r.tolerance) == "minor"


def test_arithmetic_up_to_is_a_maximum() -> None:
    lg = ledger({"metric": "throughput", "value": 25, "unit": "%", "qualifier": "up to", "baseline": "plain optimizer",
                 "workload": "fine-tuning"},
                {"metric": "throughput", "value": 628, "unit": "tokens/s", "baseline": "plain optimizer",
                 "workload": "fine-tuning (paged optimizer)"},
                {"metric": "throughput", "value": 500, "unit": "tokens/s", "workload": "fine-tuning, plain optimizer"})
    r = generated(ArithmeticRule(), lg)["rule-arithmetic:toy-1"].result
    # 100 (628/500 - 1) = 25.6% above the stated maximum 25%: 25 < 25.6 x (1 - 2.18%) = 25.04 -> inconsistent
    assert r.recomputed == pytest.approx(25.6) and r.relation == "≥" and r.verdict == "inconsistent"


def test_arithmetic_reproduces_the_hand_written_checks(real: audit_run.Audit) -> None:
    """Run without the hand-written checks, the rule finds the triples they judge, with their numbers."""
    runs = {r.rule.name: r for r in rules.generate(claims.load(), {})}
    g = {x.check_id: x.result for x in runs["arithmetic"].generated}
    hand = real.results.set_index("check_id")
    # 108.8 / 3.8 = 28.63 (hipa-speedup); 6,250 / 20 = 312.5 (cod-speedup); 675 / 6,250 = 10.8% (pixart-time-share)
    for rule_id, hand_id in [("rule-arithmetic:zhang2023hipa-4", "hipa-speedup"),
                             ("rule-arithmetic:jia2025cod-2", "cod-speedup"),
                             ("rule-arithmetic:chen2023pixart-2", "pixart-time-share"),
                             ("rule-arithmetic:zhang2023hipa-7", "hipa-parameter-share")]:
        assert g[rule_id].recomputed == pytest.approx(hand.loc[hand_id, "recomputed"], rel=REL)
        assert g[rule_id].verdict == hand.loc[hand_id, "verdict"]
    p = {x.check_id: x.result for x in runs["price"].generated}["rule-price:chen2023pixart-6"]
    # $26,000 / (675 x 24 = 16,200 h) = $1.60/h inside $1.10-4.10; at $2.93: 47,466 (as pixart-cost-rate)
    assert p.recomputed == pytest.approx(47_466) and p.verdict == PLAUSIBLE and p.condition == "price assumption"


# --- rule conversion -------------------------------------------------------------------------------------

def test_conversion_devices_times_days() -> None:
    lg = ledger({"metric": "gpu_days", "value": 72, "unit": "GPU-days", "workload": "replication"},
                {"metric": "gpu_count", "value": 4, "unit": "GPUs", "workload": "replication"},
                {"metric": "other", "value": 18, "unit": "days", "workload": "replication"})
    r = generated(ConversionRule(), lg)["rule-conversion:toy-1"].result
    assert r.recomputed == pytest.approx(72) and r.verdict == "consistent"  # 4 x 18 days = 72 GPU-days
    lg = ledger({"metric": "gpu_days", "value": 100, "unit": "GPU-days", "workload": "replication"},
                {"metric": "gpu_count", "value": 4, "unit": "GPUs", "workload": "replication"},
                {"metric": "other", "value": 18, "unit": "days", "workload": "replication"})
    r = generated(ConversionRule(), lg)["rule-conversion:toy-1"].result
    # 72 against 100: 1 - 72/100 = 28% off -> inconsistent; a device count is exact, so the tolerance is
    # 0.5/100 + 0.5/18 = 3.3%, and 28% > 10% and > 2 x 3.3% -> major
    assert r.verdict == "inconsistent"
    assert severity(r.verdict, r.reported, r.recomputed, r.relation, r.tolerance) == "major"


def test_conversion_gpu_days_to_gpu_hours_and_per_item() -> None:
    lg = ledger({"metric": "reduction", "value": 1000, "unit": "x", "qualifier": "about", "baseline": "full run",
                 "workload": "evaluation"},
                {"metric": "gpu_hours", "value": 5, "unit": "GPU-hours", "baseline": "full run",
                 "workload": "evaluation"},
                {"metric": "gpu_days", "value": 180, "unit": "GPU-days", "workload": "full run evaluation"})
    r = generated(ConversionRule(), lg)["rule-conversion:toy-1"].result
    # 180 x 24 = 4,320 GPU-hours / 5 = 864; "about 1000" allows 500/1000 + 0.5/5 + 0.5/180 = 60%
    assert r.recomputed == pytest.approx(864) and r.verdict == "consistent"
    lg = ledger({"metric": "throughput", "value": 40, "unit": "M", "qualifier": "over", "hardware": "K40",
                 "evidence": "over 40 million images a day"},
                {"metric": "latency", "value": 2.5, "unit": "ms", "qualifier": "about", "hardware": "K40"})
    r = generated(ConversionRule(), lg)["rule-conversion:toy-2:toy-1"].result
    # 86,400 s / 40e6 = 2.16 ms per image at most; 2.5 > 2.16 x (1 + 0.02) -> inconsistent (as caffe-images-per-day)
    assert r.recomputed == pytest.approx(2.16) and r.verdict == "inconsistent"


# --- rule price ------------------------------------------------------------------------------------------

def test_price_range_and_verdicts() -> None:
    default, low, high, _ = price_range(("A100-40GB", "A100-80GB"))
    # the 40 GB default (the median of its 7 providers in Epoch's table, tests/test_data.py); the union of the ranges
    assert (default, low, high) == (2.93, 1.1, 5.12)
    lg = ledger({"metric": "cost_usd", "value": 200, "unit": "USD", "workload": "X training cost"},
                {"metric": "gpu_days", "value": 675, "unit": "GPU-days", "hardware": "A100-40GB",
                 "workload": "X training"},
                {"metric": "cost_usd", "value": 5, "unit": "USD", "workload": "agent API cost per kernel"})
    g = generated(PriceRule(), lg)
    # $200 / 16,200 h = $0.012 per GPU-hour, far below $1.10 / 2 -> inconsistent with renting A100s
    assert g["rule-price:toy-1"].result.verdict == "inconsistent"
    assert "API" in g["rule-price:toy-3"].result.explanation and g["rule-price:toy-3"].result.verdict == "not checkable"


# --- rule order ------------------------------------------------------------------------------------------

def test_order(real: audit_run.Audit) -> None:
    r = row(real, "rule-order:okanovic2024high-2:okanovic2024high-1")
    assert r["verdict"] == "consistent" and r["reported"] == 2.6 and r["recomputed"] == 125  # 2.6x average <= 125x
    lg = ledger({"metric": "speedup", "value": 50, "unit": "x", "qualifier": "average", "workload": "kernels"},
                {"metric": "speedup", "value": 40, "unit": "x", "qualifier": "up to", "workload": "kernels"},
                {"metric": "speedup", "value": 45, "unit": "x", "qualifier": "up to", "workload": "kernels, peak"})
    r2 = generated(OrderRule(), lg)["rule-order:toy-1:toy-2"].result  # against the smaller maximum, 40
    # an average of 50 above a maximum of 40: 50/40 - 1 = 25% -> inconsistent, major
    assert r2.verdict == "inconsistent"
    assert severity(r2.verdict, r2.reported, r2.recomputed, r2.relation, r2.tolerance) == "major"


# --- the whole audit ---------------------------------------------------------------------------------------

def test_at_least_150_checks_and_columns(real: audit_run.Audit) -> None:
    res = audit.run_all()
    assert len(res) >= 150
    assert {"rule", "severity", "condition"} <= set(res.columns)
    assert (res.loc[res["rule"] == "", "check_id"].isin(audit.REGISTRY)).all()
    assert set(res["rule"]) - {""} == {r.name for r in rules.RULES if r.name not in ("arithmetic", "conversion")}
    bad = res[res["verdict"].isin(["inconsistent", "implausible"])]
    assert (bad["severity"].isin(["minor", "major"])).all()
    assert (res.loc[~res.index.isin(bad.index), "severity"] == "").all()
    plaus = res[res["verdict"] == PLAUSIBLE]
    assert (plaus["condition"].isin(audit.registry.CONDITIONS)).all()  # every plausible verdict is classified


def test_no_claim_is_judged_twice_for_one_question(real: audit_run.Audit) -> None:
    """A rule never reads a claim that a hand-written check of a kind it covers reads; a rule judges a claim
    (the first of its check's claims) at most once; rules whose covered kinds overlap judge different claims."""
    hand = {}
    for chk in audit.REGISTRY.values():
        for cid in chk.claim_ids:
            hand.setdefault(cid, set()).add(chk.kind)
    judged: dict[tuple[str, str], str] = {}
    for run in real.runs:
        for g in run.generated:
            for cid in g.claim_ids:
                assert not (hand.get(cid, set()) & run.rule.covers), (g.check_id, cid)
            key = (g.claim_ids[0], run.rule.name)
            assert key not in judged, (g.check_id, judged.get(key))
            judged[key] = g.check_id
    for a in rules.RULES:
        for b in rules.RULES:
            if a is not b and a.covers & b.covers:
                first_a = {k for k, r in judged if r == a.name}
                first_b = {k for k, r in judged if r == b.name}
                assert not (first_a & first_b), (a.name, b.name)


def test_coverage(real: audit_run.Audit) -> None:
    cov = audit_run.coverage(real).set_index("rule")
    assert list(cov.index) == [r.name for r in rules.RULES]
    # the rules that find only hand-written triples say so
    assert cov.loc["arithmetic", "generated"] == 0 and cov.loc["arithmetic", "left_to_handwritten"] >= 4
    assert (cov["claims"] >= cov["generated"]).all()
    assert cov["generated"].sum() == (audit.run_all()["rule"] != "").sum()


def test_every_plausible_hand_written_check_has_a_condition(real: audit_run.Audit) -> None:
    hand = real.results[(real.results["rule"] == "") & (real.results["verdict"] == PLAUSIBLE)]
    assert (hand["condition"] != "").all(), hand.loc[hand["condition"] == "", "check_id"].tolist()


# --- overrides -----------------------------------------------------------------------------------------------

def test_overridden_checks_are_listed_separately(real: audit_run.Audit) -> None:
    ov = audit_run.overridden(real)
    assert len(ov) == len(overrides.load()) >= 1
    res = audit.run_all()
    assert not res["check_id"].isin(ov["check_id"]).any()
    assert set(ov["verdict"]) <= set(audit.VERDICTS) and (ov["reason"].str.len() >= 20).all()


def test_bad_override_row_names_file_row_and_column(tmp_path: Path) -> None:
    p = tmp_path / "audit-overrides.csv"
    p.write_text("check_id,reason,source\n"
                 "rule-peak:dash2023optimizing-7,a reason that is long enough to read,a source\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        overrides.load(p)  # the source is shorter than ten characters
    assert str(p) in str(exc.value) and "row 2" in str(exc.value) and "column source" in str(exc.value)
    p.write_text("check_id,reason,source\n"
                 "rule-peak:dash2023optimizing-7,a reason that is long enough to read,the abstract of the paper\n"
                 "fa3-fp16-utilization,a hand-written check cannot be overridden,the abstract of the paper\n",
                 encoding="utf-8")
    with pytest.raises(DataError) as exc:
        overrides.load(p)
    assert "row 3" in str(exc.value) and "column check_id" in str(exc.value)
    p.write_text("check_id,reason,source\n"
                 "rule-peak:nosuchpaper-1,a check that the rules do not generate,the abstract of the paper\n",
                 encoding="utf-8")
    df = overrides.load(p)
    with pytest.raises(DataError) as exc:
        overrides.check_against(df, {"rule-peak:dash2023optimizing-7"}, p)
    assert str(p) in str(exc.value) and "row 2" in str(exc.value) and "column check_id" in str(exc.value)


def test_overrides_file_is_validated_with_the_data() -> None:
    from analysis.book.cli import data_owners
    from analysis.data import validate

    assert "audit-overrides.csv" in validate.all_checks(data_owners())
