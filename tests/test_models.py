"""Cost models: unit behaviour, and reproduction of published figures.

Every expected value below is taken from the publication named in the comment, never
from running this code. Tolerances are the rounding the publication uses.
"""

from __future__ import annotations

import math

import pytest

from analysis import models as m
from analysis.models import chain


def test_6nd_reproduces_gpt3_compute():
    # Brown et al. 2020 (GPT-3), Table D.1: 175B parameters, 300B tokens, 3.14e23 training FLOP.
    assert m.training_flops_6nd(175e9, 300e9) == pytest.approx(3.14e23, rel=0.01)


def test_megatron_training_time_gpt3_175b():
    # Narayanan et al. 2021 (Megatron-LM), Sec. 5.1: end-to-end time ≈ 8·T·P/(n·X) with
    # activation recomputation; GPT-3 175B, T = 300B tokens, n = 1024 A100s, X = 140 TFLOP/s
    # per GPU gives about 34 days.
    days = m.training_days(8 * 300e9 * 175e9, 1024, 140, 1.0)
    assert days == pytest.approx(34, abs=0.5)


def test_megatron_training_time_1t():
    # Same paper: the 1T model (1008B parameters), T = 450B tokens, 3072 GPUs at 163 TFLOP/s → about 84 days.
    assert m.training_days(8 * 450e9 * 1008e9, 3072, 163, 1.0) == pytest.approx(84, abs=0.5)


def test_megatron_per_iteration_formula_matches_8tp_approximation():
    # Narayanan et al. 2021 derive 8·T·P from eq. (3) when h ≫ s and 12·l·h² ≈ P.
    # For their 1T configuration (l=128, h=25600, s=2048, V=51200, B=3072) the exact
    # formula is within a few percent of 8·B·s·P with P = 12·l·h².
    B, s, n_layers, h, V = 3072, 2048, 128, 25600, 51200
    exact = m.megatron_flops_per_iteration(B, s, n_layers, h, V)
    approx = 8 * B * s * 12 * n_layers * h**2
    assert exact / approx == pytest.approx(1 + s / (6 * h) + V / (16 * n_layers * h))
    assert 1.0 < exact / approx < 1.05


def test_megatron_per_iteration_without_recomputation():
    # Without recomputation the layers cost 72·B·s·l·h²·(1 + s/(6h)) (3 passes instead of 4) and the
    # logit layer still 6·B·s·h·V (forward 2·B·s·h·V, backward 4·B·s·h·V), Korthikanti et al. 2022.
    B, s, n_layers, h, V = 8, 2048, 96, 12288, 51200
    by_hand = 72 * B * s * n_layers * h**2 + 12 * B * s**2 * n_layers * h + 6 * B * s * h * V
    assert m.megatron_flops_per_iteration(B, s, n_layers, h, V, recompute=False) == pytest.approx(by_hand, rel=1e-12)
    with_recompute = 96 * B * s * n_layers * h**2 + 16 * B * s**2 * n_layers * h + 6 * B * s * h * V
    assert m.megatron_flops_per_iteration(B, s, n_layers, h, V) == pytest.approx(with_recompute, rel=1e-12)


def test_megatron_end_to_end_time_eq4():
    # Narayanan et al. 2021, Sec. 5.1: GPT-3 (175B) on 300B tokens with 1024 A100s at 140 TFLOP/s
    # per GPU takes about 34 days; the 1T model on 450B tokens with 3072 GPUs at 163 TFLOP/s about 84.
    day = 86400
    assert m.megatron_training_seconds(300e9, 175e9, 1024, 140) / day == pytest.approx(34, abs=0.5)
    assert m.megatron_training_seconds(450e9, 1008e9, 3072, 163) / day == pytest.approx(84, abs=0.5)
    assert m.megatron_training_seconds(300e9, 175e9, 1024, 140, recompute=False) == pytest.approx(
        0.75 * m.megatron_training_seconds(300e9, 175e9, 1024, 140))


def test_mfu_with_attention_palm_540b():
    # Chowdhery et al. 2022 (PaLM), appendix B: 540B parameters (L = 118, H = 48, Q = 256),
    # T = 2048, 238.3K tokens/s on 6144 TPU v4 chips (275 TFLOP/s peak) is 46.2% MFU.
    assert m.mfu_with_attention(238.3e3, 540.35e9, 118, 48, 256, 2048, 6144, 275) == pytest.approx(0.462, abs=0.0005)


def test_inference_flops_per_token():
    assert m.inference_flops_per_token(7e9) == 14e9
    assert m.inference_flops_per_token(1e9, layers=10, context=100, d_attn=1000) == 2e9 + 2e6


def test_bytes_per_param_zero_stages():
    # Rajbhandari et al. 2020 (ZeRO), Sec. 3/5: mixed-precision Adam needs 2+2+12 = 16 bytes per
    # parameter; with N_d = 64 devices the per-device figures are 4 + 12/64 (P_os),
    # 2 + 14/64 (P_os+g) and 16/64 (P_os+g+p).
    assert m.training_bytes_per_param(0) == 16
    assert m.training_bytes_per_param(1, 64) == pytest.approx(4 + 12 / 64)
    assert m.training_bytes_per_param(2, 64) == pytest.approx(2 + 14 / 64)
    assert m.training_bytes_per_param(3, 64) == pytest.approx(16 / 64)


def test_zero_paper_7_5b_example():
    # ZeRO paper, Figure 1: a 7.5B model needs 120 GB per device for model states without ZeRO,
    # 31.4 GB with P_os, 16.6 GB with P_os+g and 1.9 GB with P_os+g+p, on N_d = 64.
    p = 7.5e9
    assert p * m.training_bytes_per_param(0) / 1e9 == pytest.approx(120)
    assert p * m.training_bytes_per_param(1, 64) / 1e9 == pytest.approx(31.4, abs=0.05)
    assert p * m.training_bytes_per_param(2, 64) / 1e9 == pytest.approx(16.6, abs=0.05)
    assert p * m.training_bytes_per_param(3, 64) / 1e9 == pytest.approx(1.9, abs=0.05)


def test_activation_memory_korthikanti():
    # Korthikanti et al. 2022, eq. (2): s·b·h·(34 + 5·a·s/h) bytes per layer; with full recomputation 2·s·b·h.
    assert m.activation_bytes_per_layer(2048, 1, 12288, 96) == 2048 * 12288 * (34 + 5 * 96 * 2048 / 12288)
    assert m.activation_bytes_per_layer(2048, 1, 12288, 96, recompute=True) == 2 * 2048 * 12288


def test_activation_memory_tensor_and_sequence_parallel():
    # Korthikanti et al. 2022, Table 2: tensor parallelism alone s·b·h·(10 + 24/t + 5·a·s/(h·t));
    # with sequence parallelism s·b·h·(34 + 5·a·s/h)/t. GPT-3 175B shape, t = 8.
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    assert m.activation_bytes_per_layer(s, b, h, a, tensor_parallel=t) == pytest.approx(
        s * b * h * (10 + 24 / t + 5 * a * s / (h * t)))
    assert m.activation_bytes_per_layer(s, b, h, a, tensor_parallel=t, sequence_parallel=True) == pytest.approx(
        s * b * h * (34 + 5 * a * s / h) / t)
    # sequence parallelism saves the 10·s·b·h·(1 − 1/t) that tensor parallelism leaves replicated
    saved = (m.activation_bytes_per_layer(s, b, h, a, tensor_parallel=t)
             - m.activation_bytes_per_layer(s, b, h, a, tensor_parallel=t, sequence_parallel=True))
    assert saved == pytest.approx(10 * s * b * h * (1 - 1 / t))


def test_kv_cache_opt_13b():
    # Kwon et al. 2023 (vLLM), Sec. 3: for OPT-13B (40 layers, hidden size 5120 = 40 heads × 128, FP16)
    # one token's KV cache takes 2 (K,V) × 5120 × 40 × 2 bytes = 800 KB (819,200 bytes).
    assert m.kv_cache_bytes(40, 40, 128, 1) == 819200
    assert m.kv_cache_bytes(40, 40, 128, 2048, batch=2) == 819200 * 2048 * 2


def test_roofline():
    assert m.ridge_point(312, 2.0) == 156
    assert m.attainable_tflops(10, 312, 2.0) == 20
    assert m.attainable_tflops(1000, 312, 2.0) == 312


def test_decode_bound_is_bandwidth_limited_at_batch_1():
    # 7e9 params × 2 bytes = 14 GB read per step at 2 TB/s → 7 ms per token, 142.9 tokens/s.
    assert m.decode_tokens_per_s(7e9, 1, 2.0, 312) == pytest.approx(2e12 / 14e9)
    # At a huge batch the compute bound takes over: 2·N·B FLOP per step.
    b = 100_000
    assert m.decode_tokens_per_s(7e9, b, 2.0, 312) == pytest.approx(312e12 / 14e9)


def test_costs_and_energy():
    assert m.rental_cost_usd(1000, 2.5) == 2500
    assert m.usd_per_million_tokens(1000, 3.6) == pytest.approx(1.0)
    # 1,000 device-hours at a measured 400 W average, PUE 1.5: 400 kWh at the accelerator, 600 at the meter
    e = chain.energy_at_boundaries(1000, chain.Power(400, "measured_chip"), 1.0, 1.0, 1.5)
    assert (e.accelerator_kwh, e.facility_kwh) == (400, 600)
    assert m.co2e_tonnes(1000, 0.4) == pytest.approx(0.4)
    # amortised: a $10,000 GPU over 1 year of hours costs 10,000 for a year's GPU-hours.
    assert m.amortised_cost_usd(m.HOURS_PER_YEAR, 10_000, 1) == pytest.approx(10_000)
    assert m.amortised_cost_usd(m.HOURS_PER_YEAR, 10_000, 1, server_overhead=0.2) == pytest.approx(12_000)


def test_gpt3_energy_patterson():
    # Patterson et al. 2021, Table 4 (GPT-3): 10,000 V100s for 14.8 days at 330 W average per
    # processor, datacentre PUE 1.10 → 1,287 MWh; at 0.429 kgCO2e/kWh → 552 tCO2e.
    power = chain.Power(330, "measured_system")
    kwh = chain.energy_at_boundaries(m.gpu_hours(10_000, 14.8), power, 1.0, 1.0, 1.10).facility_kwh
    assert kwh / 1000 == pytest.approx(1287, rel=0.005)
    assert m.co2e_tonnes(kwh, 0.429) == pytest.approx(552, rel=0.005)


@pytest.mark.parametrize(
    "call",
    [
        lambda: m.training_flops_6nd(-1, 10),
        lambda: m.training_flops_6nd(1, math.nan),
        lambda: chain.energy_at_boundaries(10, chain.Power(300), 1.0, 1.0, 0.9),
        lambda: m.training_bytes_per_param(4),
        lambda: m.max_concurrent_requests(80, 140, 1e6),
        lambda: m.bytes_per_element("fp3.5"),
        lambda: m.prefill_tokens_per_s(7e9, 312, 1.5),
        lambda: m.gpus_to_hold(100, 80, 1.2),
    ],
)
def test_impossible_input_is_refused(call):
    with pytest.raises(m.ModelError):
        call()


def test_gpus_to_hold():
    assert m.gpus_to_hold(160, 80) == 2
    assert m.gpus_to_hold(161, 80) == 3
    assert m.max_concurrent_requests(80, 14, 1e9) == 66


# --- validation against published utilisation and energy, with peaks from data/hardware.csv ---

def test_megatron_1t_mfu_against_a100_peak():
    # Narayanan et al. 2021 abstract: 502 petaFLOP/s on 3072 GPUs, "52% of theoretical peak".
    # A100 dense BF16/FP16 tensor peak 312 TFLOP/s (NVIDIA A100 datasheet, data/hardware.csv).
    # By hand: 502e3 / 3072 / 312 = 0.5238.
    from analysis.data import hardware

    peak = hardware.peak_tflops("A100-80GB", "bf16")
    assert peak == 312
    assert m.mfu_from_aggregate(502, 3072, peak) == pytest.approx(0.52, abs=0.005)


def test_zero_infinity_mfu_against_v100_peak():
    # Rajbhandari et al. 2021 (ZeRO-Infinity) abstract: over 25 petaflops on 512 V100s, "40% of peak".
    # V100 dense FP16 tensor peak 125 TFLOP/s: 25e3 / 512 / 125 = 0.39, i.e. about 40%.
    from analysis.data import hardware

    peak = hardware.peak_tflops("V100", "fp16")
    assert peak == 125
    assert m.mfu_from_aggregate(25, 512, peak) == pytest.approx(0.40, abs=0.015)


def test_gpt3_energy_from_sourced_assumptions():
    # Patterson et al. 2021, Table 4, entered in data/assumptions.yml with its source:
    # 10,000 V100 × 14.8 days × 24 h × 330 W × PUE 1.10 = 1,289 MWh against the published 1,287 MWh.
    from analysis.data import assumptions as a

    kwh = chain.energy_at_boundaries(
        m.gpu_hours(a.get("patterson2021_gpt3_num_v100"), a.get("patterson2021_gpt3_training_days")),
        chain.Power(a.get("patterson2021_gpt3_avg_power_per_accelerator_w"), "measured_system"), 1.0, 1.0,
        a.get("patterson2021_gpt3_pue"),
    ).facility_kwh
    assert kwh / 1000 == pytest.approx(a.get("patterson2021_gpt3_energy_mwh"), rel=0.005)
    assert m.co2e_tonnes(kwh, a.get("patterson2021_gpt3_kgco2e_per_kwh")) == pytest.approx(
        a.get("patterson2021_gpt3_tco2e"), rel=0.005)


def test_gpt3_compute_against_patterson():
    # Patterson et al. 2021 Table 4 gives 3.14e23 FLOP for GPT-3 (175B parameters, 300B tokens).
    from analysis.data import assumptions as a

    assert m.training_flops_6nd(175e9, 300e9) == pytest.approx(a.get("patterson2021_gpt3_total_flop"), rel=0.01)


def test_cluster_factor_from_interconnect_share():
    # Cottier et al. 2024, App. A.1: networking at 19% of hardware cost is a 1.23x server-to-cluster
    # factor (1/(1 - 0.19) = 1.2346), not 1.19.
    assert m.cluster_factor_from_share(0.19) == pytest.approx(1.23, abs=0.005)
    assert m.cluster_factor_from_share(0.0) == 1.0
    with pytest.raises(m.ModelError):
        m.cluster_factor_from_share(1.0)


def test_embodied_emissions_bloom():
    # Luccioni et al. 2022 (BLOOM), Sec. 5.1: 1,082,990 A100 GPU-hours; 150 kgCO2e per GPU and
    # 2,500 kgCO2e per 8-GPU server, spread over a 6-year life at 85% use: 3.64 t for the GPUs and
    # 7.57 t for the servers, 11.2 t in all.
    gpus = m.embodied_co2e_tonnes(1_082_990, 150, 6, utilisation=0.85)
    servers = m.embodied_co2e_tonnes(1_082_990 / 8, 2500, 6, utilisation=0.85)
    assert gpus == pytest.approx(3.64, abs=0.01)
    assert servers == pytest.approx(7.57, abs=0.01)
    assert gpus + servers == pytest.approx(11.2, abs=0.05)
    # without the use rate the share would be 15% lower
    assert m.embodied_co2e_tonnes(1_082_990, 150, 6) == pytest.approx(0.85 * gpus)


def test_prefill_counts_attention_over_the_prompt():
    # Llama-2-70B shape (80 layers, 64 query heads x 128 = 8192): at a 65,536-token prompt the
    # attention adds 2 x 80 x 65,536 x 8,192 = 8.59e10 FLOP per token to the weights' 2 x 70e9 = 1.4e11,
    # so prefill is 1.61x slower than the weights-only bound (by hand).
    weights_only = m.prefill_tokens_per_s(70e9, 989)
    with_attention = m.prefill_tokens_per_s(70e9, 989, 1.0, layers=80, prompt_tokens=65536, d_attn=8192)
    assert weights_only == pytest.approx(989e12 / 1.4e11)
    assert weights_only / with_attention == pytest.approx((1.4e11 + 2 * 80 * 65536 * 8192) / 1.4e11)
    assert 1.6 < weights_only / with_attention < 1.62


def test_training_flops_with_the_attention_term():
    # Kaplan et al. 2020, Eq. 2.2: per token, training = 6N + 6 l ctx d_attn. Llama-2-7B (Touvron et al.
    # 2023: 6.74e9 parameters, 32 layers, d_model 4096, 4,096-token context): the attention term is
    # 6 x 32 x 4096 x 4096 = 3.22e9 per token against 6N = 4.04e10, 8.0 % more than 6ND
    from analysis import models

    c = models.training_flops_with_attention(6.74e9, 2e12, 32, 4096, 4096)
    assert c == pytest.approx((6 * 6.74e9 + 6 * 32 * 4096 * 4096) * 2e12)
    assert c / models.training_flops_6nd(6.74e9, 2e12) == pytest.approx(1.0796, abs=1e-3)
