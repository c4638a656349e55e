"""Unit tests of analysis.themes.serving. Expected values are worked out by hand from published figures."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.data import claims
from analysis.models import ModelError
from analysis.themes import serving


def test_kv_bytes_per_token_yi34b():
    # Yi-34B (Young et al. 2024, Table 1): 60 layers, 8 KV heads, head dim 128, BF16.
    # 2 × 60 × 8 × 128 × 2 B = 245,760 B = 240 KiB per token.
    assert serving.kv_bytes_per_token(60, 8, 128) == 245_760


def test_kv_mha_vs_gqa_llama():
    # LLaMA-2-7B, MHA: 2 × 32 × 32 × 128 × 2 = 524,288 B; Llama-3.1-8B, GQA (8 KV heads): 131,072 B. Ratio 4.
    assert serving.kv_bytes_per_token(32, 32, 128) / serving.kv_bytes_per_token(32, 8, 128) == 4


def test_fu_running_example_concurrency():
    # 34B model, BF16: 68 GB of weights. 50,000 tokens × 245,760 B = 12.288 GB per request.
    # 4 × A100-80GB = 320 GB; (320 − 68) / 12.288 = 20.5 → 20 requests at full memory use;
    # with 90 % usable: (288 − 68) / 12.288 = 17.9 → 17.
    kv = 50_000 * 245_760
    assert serving.concurrent_requests(34e9, kv, 80, 4, 1.0) == 20
    assert serving.concurrent_requests(34e9, kv, 80, 4, 0.9) == 17
    # One A100-80GB: 80 − 68 = 12 GB < 12.288 GB, so not one request fits.
    assert serving.concurrent_requests(34e9, kv, 80, 1, 1.0) == 0


def test_weights_that_do_not_fit_raise():
    # OPT-175B in BF16 is 350 GB; one 80 GB GPU cannot hold it.
    with pytest.raises(ModelError):
        serving.concurrent_requests(175e9, 1e6, 80, 1)


def test_group_size_for_weights():
    # 70B in BF16 = 140 GB. At 90 %: 1 × 72 < 140, 2 × 72 = 144 >= 140 → 2 A100-80GB.
    assert serving.group_size_for_weights(140, 80, 0.9) == 2
    # 8 × L4 (24 GB) at 90 % = 172.8 GB holds 140 GB; 4 × 24 × 0.9 = 86.4 does not.
    assert serving.group_size_for_weights(140, 24, 0.9) == 8
    with pytest.raises(ModelError):
        serving.group_size_for_weights(810, 80, 1.0)  # Llama-3.1-405B on 8 × 80 GB = 640 GB


def test_moe_params_read_mixtral():
    # Mixtral (Jiang et al. 2024): 47B total, 13B active, 8 experts, top-2.
    # Expert size e = (47 − 13)/(8 − 2) = 5.667B; shared s = 13 − 2e = 1.667B.
    # Batch 1 reads the active 13B; batch 2 touches 8 × (1 − (6/8)²) = 3.5 experts:
    # 1.667 + 3.5 × 5.667 = 21.5B; a large batch reads nearly all 47B.
    assert serving.moe_params_read(47e9, 13e9, 8, 2, 1) == pytest.approx(13e9)
    assert serving.moe_params_read(47e9, 13e9, 8, 2, 2) == pytest.approx(21.5e9)
    assert serving.moe_params_read(47e9, 13e9, 8, 2, 1000) == pytest.approx(47e9, rel=1e-6)


def test_decode_rate_bandwidth_bound_7b_h100():
    # 7B in BF16 on one H100 SXM (3.35 TB/s), batch 1, KV ignored (1 token of context, tiny):
    # 14 GB / 3.35 TB/s = 4.179 ms per token → 239.3 tokens/s.
    m = serving.Model("7B", 7e9, kv_bytes_per_token=0.0)
    assert serving.decode_rate(m, 1, 1, 1, 3.35, 989.4) == pytest.approx(3.35e12 / 14e9)


def test_usd_per_million_output_tokens_by_hand():
    # Same 7B on one H100 at $10/h, batch 1, no prompt, 100 output tokens, no KV:
    # 239.29 tokens/s → 1e6 tokens take 4,179 s = 1.161 h → $11.61 per million tokens.
    m = serving.Model("7B", 7e9, kv_bytes_per_token=0.0)
    w = serving.Workload(prompt_tokens=0, output_tokens=100, batch=1)
    usd = serving.usd_per_million_output_tokens(m, w, 1, 3.35, 989.4, 10.0)
    assert usd == pytest.approx(10.0 * 1e6 / (3.35e12 / 14e9) / 3600)
    # A prompt of 1,000 tokens at peak compute: 2 × 7e9 × 1000 / 989.4e12 = 14.15 ms extra per
    # request of 100 output tokens (0.418 s of decode): cost rises by 14.15 / 417.9 = 3.4 %.
    w2 = serving.Workload(prompt_tokens=1000, output_tokens=100, batch=1)
    usd2 = serving.usd_per_million_output_tokens(m, w2, 1, 3.35, 989.4, 10.0)
    assert usd2 / usd == pytest.approx(1 + (14e12 / 989.4e12) / (100 * 14e9 / 3.35e12), rel=1e-9)


def test_best_group_cost_refuses_batches_that_do_not_fit():
    # 70B BF16 with 0.5 MB/token; 100 requests of 10,000 tokens need 500 GB of KV plus 140 GB of
    # weights = 640 GB > 8 × 80 × 0.9 = 576 GB: nothing fits.
    m = serving.Model("70B", 70e9, kv_bytes_per_token=5e5)
    w = serving.Workload(9_000, 1_000, 100)
    usd, n = serving.best_group_cost(m, w, 80, 3.35, 989.4, 2.0, usable_fraction=0.9)
    assert math.isnan(usd) and n == 0


def test_cost_multipliers():
    # PipeLLM: an 88.2 % throughput drop (OPT-66B) → 1 / 0.118 = 8.47× the cost per token.
    assert serving.cost_multiplier_from_throughput_drop(0.882) == pytest.approx(8.4746, rel=1e-4)
    # Splitwise: 1.4× throughput at 20 % lower cost → 0.8 / 1.4 = 0.5714.
    assert serving.cost_multiplier_from_speedup(1.4, 0.8) == pytest.approx(0.5714, rel=1e-4)
    with pytest.raises(ModelError):
        serving.cost_multiplier_from_throughput_drop(1.0)


def test_priced_claims_from_a_small_ledger():
    ledger = pd.DataFrame([
        {"claim_id": "a-1", "citekey": "a", "value": 52.8, "low": None, "high": None, "unit": "%", "baseline": ""},
        {"claim_id": "b-1", "citekey": "b", "value": 1.4, "low": None, "high": None, "unit": "x", "baseline": ""},
        {"claim_id": "b-2", "citekey": "b", "value": 20.0, "low": None, "high": None, "unit": "%", "baseline": ""},
        {"claim_id": "c-1", "citekey": "c", "value": None, "low": 1.03, "high": 2.4, "unit": "x", "baseline": ""},
    ])
    spec = (("a-1", "drop", "", "A"), ("b-1", "gain", "b-2", "B"), ("c-1", "gain", "", "C"))
    out = serving.priced_claims(ledger, spec).set_index("claim_id")["cost_multiplier"]
    assert out["a-1"] == pytest.approx(1 / 0.472)   # 52.8 % drop → 2.119×
    assert out["b-1"] == pytest.approx(0.8 / 1.4)
    assert out["c-1"] == pytest.approx(1 / 2.4)     # upper end of the range


def test_models_file_loads_and_is_consistent():
    df = serving.load_models()
    assert {"Yi-34B", "Mixtral-8x7B", "LLaMA-2-7B", "Llama-2-70B"} <= set(df.index)
    assert (df.loc[df.attention == "MHA", "kv_heads"] == df.loc[df.attention == "MHA", "heads"]).all()
    assert serving.DATA_FILES["serving-models.csv"]().startswith(f"{len(df)} model")


def test_bad_models_file_names_row_and_column(tmp_path):
    from analysis.data.paths import DATA, DataError

    src = (DATA / "serving-models.csv").read_text(encoding="utf-8").splitlines()
    # Row 2 (LLaMA-2-7B, multi-head attention) made to claim 8 KV heads for its 32 heads.
    assert src[1].startswith("LLaMA-2-7B,MHA,")
    src[1] = src[1].replace(",32,32,128,", ",32,8,128,", 1)
    bad = tmp_path / "serving-models.csv"
    bad.write_text("\n".join(src) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"row 2, column kv_heads"):
        serving.read_models(bad)
    # A non-numeric layer count is caught by the schema, with its row and column.
    src2 = (DATA / "serving-models.csv").read_text(encoding="utf-8").splitlines()
    src2[2] = src2[2].replace(",80,8192,", ",eighty,8192,", 1)
    bad.write_text("\n".join(src2) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"row 3, column layers"):
        serving.read_models(bad)


def test_prefill_rate_uses_the_model_shape():
    # Llama-2-70B in data/serving-models.csv: 80 layers, 64 query heads of 128 (its config.json)
    row = serving.load_models().loc["Llama-2-70B"]
    mdl = serving.Model.from_row(row)
    assert (mdl.layers, mdl.d_attn) == (80, 64 * 128)
    short, long = serving.prefill_rate(mdl, 1, 989), serving.prefill_rate(mdl, 1, 989, prompt_tokens=65536)
    assert short == pytest.approx(989e12 / (2 * 70e9))
    assert short / long == pytest.approx(1 + 2 * 80 * 65536 * 8192 / (2 * 70e9))


def test_no_cost_below_the_floor():
    # A gain measured against a paper's own baseline is never placed on the roofline floor:
    # 0.08x (Punica) on a $4.55 floor would price a system at $0.36, below the physical bound.
    assert math.isnan(serving.overhead_cost_usd(4.55, 0.08))
    # an overhead stays above it: 8.47x (confidential computing, OPT-66B) -> 4.55 * 8.47 = 38.54
    assert serving.overhead_cost_usd(4.55, 8.47) == pytest.approx(38.5385)
    priced = serving.priced_claims(claims.load())
    placed = [serving.overhead_cost_usd(4.55, m) for m in priced["cost_multiplier"]]
    assert all(math.isnan(x) or x >= 4.55 for x in placed)


def test_tensor_parallel_communication_in_decode():
    # Llama-2-70B (80 layers, hidden 8192), batch 64 on 8 GPUs over PCIe Gen4 (32 GB/s per direction):
    # each step all-reduces 64 x 8192 x 2 bytes = 1,048,576 bytes twice per layer; a ring moves 2*7/8 of it:
    # 2 * 80 * 1.75 * 1,048,576 / 32e9 = 9.175 ms per decode step.
    m = serving.Model("x", 70e9, 327680, layers=80, d_attn=8192, hidden=8192)
    assert serving.tp_comm_seconds(m, 64, 8, 32) == pytest.approx(2 * 80 * 1.75 * 1048576 / 32e9)
    assert serving.tp_comm_seconds(m, 64, 1, 32) == 0
    w = serving.Workload(1024, 256, 64)
    ideal = serving.usd_per_million_output_tokens(m, w, 8, 0.864, 362, 1.0)
    pcie = serving.usd_per_million_output_tokens(m, w, 8, 0.864, 362, 1.0, link_gb_per_s_per_direction=32)
    nvlink = serving.usd_per_million_output_tokens(m, w, 8, 0.864, 362, 1.0, link_gb_per_s_per_direction=300)
    assert ideal < nvlink < pcie


def _triangular_quantile(q: float, a: float, c: float, b: float) -> float:
    """Closed-form quantile of the triangular distribution (a <= c <= b), independent of the sampler."""
    f = (c - a) / (b - a)
    return a + math.sqrt(q * (b - a) * (c - a)) if q < f else b - math.sqrt((1 - q) * (b - a) * (b - c))


def test_cost_interval_is_the_unit_cost_times_the_price_quantiles():
    # The cost is linear in the GPU-hour price, so its 10th and 90th percentiles are the unit cost times the
    # price's: for H100-SXM the documented range is 2.45-12.29 USD/h around 4.395 (data/assumptions.yml).
    m = serving.Model("dense-1B", params=1e9, kv_bytes_per_token=1e5)
    w = serving.Workload(128, 64, 4)
    iv, n = serving.cost_interval(m, w, 80, 3.35, 989, "gpu_hour_usd_h100")
    unit, n1 = serving.best_group_cost(m, w, 80, 3.35, 989, 1.0)
    assert n == n1 == 1
    assert iv.central == pytest.approx(unit * 4.395)
    assert iv.low == pytest.approx(unit * _triangular_quantile(0.1, 2.45, 4.395, 12.29), rel=0.03)
    assert iv.high == pytest.approx(unit * _triangular_quantile(0.9, 2.45, 4.395, 12.29), rel=0.03)


def test_price_range_keeps_a_set_price_inside_the_documented_range():
    assert serving.price_range("H100-SXM") == "gpu_hour_usd_h100"
    assert serving.price_range("H100-SXM", 3.0) == (2.45, 3.0, 12.29)
    assert serving.price_range("H100-SXM", 20.0) == (2.45, 20.0, 20.0)


def test_robust_winner_needs_intervals_apart():
    from analysis.models.uncertainty import Interval

    assert serving.robust_winner({"a": Interval(1, 0.9, 1.1), "b": Interval(2, 1.5, 3)}) == ("a", True)
    assert serving.robust_winner({"a": Interval(1, 0.9, 1.6), "b": Interval(2, 1.5, 3)}) == ("a", False)
    assert serving.robust_winner({"a": Interval(math.nan, math.nan, math.nan)}) == ("", False)
