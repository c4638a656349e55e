"""Hardware-cost models: compute, utilisation, memory, roofline, cost, energy and carbon.

Pure functions. Units are in the argument names (``_tflops`` = 1e12 FLOP/s, ``_tbps`` =
1e12 bytes/s, ``_gb`` = 1e9 bytes). Every function raises :class:`ModelError` on
impossible input instead of returning a meaningless number.
"""

from __future__ import annotations

import math

HOURS_PER_YEAR = 365.25 * 24


class ModelError(ValueError):
    """Impossible input to a cost model (a negative count, a model that does not fit, ...)."""


def _positive(**values: float) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, float)) or math.isnan(v) or v <= 0:
            raise ModelError(f"{name} must be a positive number, got {v!r}")


def _non_negative(**values: float) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, float)) or math.isnan(v) or v < 0:
            raise ModelError(f"{name} must be zero or positive, got {v!r}")


# --- compute -----------------------------------------------------------------------------

def training_flops_6nd(params: float, tokens: float) -> float:
    """Training compute C ≈ 6·N·D in FLOP (forward 2ND + backward 4ND), Kaplan et al. 2020."""
    _positive(params=params, tokens=tokens)
    return 6.0 * params * tokens


def megatron_flops_per_iteration(
    batch: int, seq_len: int, layers: int, hidden: int, vocab: int, recompute: bool = True
) -> float:
    """FLOP per iteration of a GPT model, Narayanan et al. 2021 (Megatron-LM), eq. (3).

    F = k·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)), k = 96 with full activation recomputation
    (one extra forward pass), 72 without.
    """
    _positive(batch=batch, seq_len=seq_len, layers=layers, hidden=hidden, vocab=vocab)
    k = 96.0 if recompute else 72.0
    return k * batch * seq_len * layers * hidden**2 * (1 + seq_len / (6 * hidden) + vocab / (16 * layers * hidden))


def inference_flops_per_token(params: float, layers: int = 0, context: int = 0, d_attn: int = 0) -> float:
    """Forward FLOP per generated token: 2·N plus attention over the context, 2·l·ctx·d_attn (Kaplan 2020)."""
    _positive(params=params)
    _non_negative(layers=layers, context=context, d_attn=d_attn)
    return 2.0 * params + 2.0 * layers * context * d_attn


# --- utilisation -------------------------------------------------------------------------

def mfu(achieved_tflops_per_gpu: float, peak_tflops: float) -> float:
    """Model FLOPs utilisation: achieved model FLOP/s over the hardware's peak (a fraction)."""
    _non_negative(achieved_tflops_per_gpu=achieved_tflops_per_gpu)
    _positive(peak_tflops=peak_tflops)
    return achieved_tflops_per_gpu / peak_tflops


def mfu_from_aggregate(aggregate_pflops: float, n_gpus: int, peak_tflops: float) -> float:
    """MFU from an aggregate throughput in PFLOP/s over `n_gpus` accelerators."""
    _positive(n_gpus=n_gpus)
    return mfu(aggregate_pflops * 1e3 / n_gpus, peak_tflops)


def mfu_from_tokens(tokens_per_s: float, params: float, n_gpus: int, peak_tflops: float) -> float:
    """MFU from training throughput in tokens/s, using 6·N FLOP per token."""
    _positive(tokens_per_s=tokens_per_s, params=params, n_gpus=n_gpus)
    return mfu(6.0 * params * tokens_per_s / n_gpus / 1e12, peak_tflops)


# --- memory ------------------------------------------------------------------------------

BYTES = {"fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5,
         "int4": 0.5, "int3": 0.375, "int2": 0.25}


def bytes_per_element(precision: str) -> float:
    try:
        return BYTES[precision.lower()]
    except KeyError:
        raise ModelError(f"unknown precision {precision!r}; known: {sorted(BYTES)}") from None


def training_bytes_per_param(zero_stage: int = 0, n_gpus: int = 1, weight_bytes: float = 2.0,
                             grad_bytes: float = 2.0, optimizer_bytes: float = 12.0) -> float:
    """Bytes per parameter per GPU for mixed-precision Adam (Rajbhandari et al. 2020, ZeRO).

    Defaults: BF16/FP16 weights (2) and gradients (2), FP32 master weights, momentum and
    variance (12): 16 bytes in all. ZeRO stage 1 shards the optimizer states over `n_gpus`,
    stage 2 also the gradients, stage 3 also the weights.
    """
    _positive(n_gpus=n_gpus)
    if zero_stage not in (0, 1, 2, 3):
        raise ModelError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    w, g, o = weight_bytes, grad_bytes, optimizer_bytes
    if zero_stage >= 1:
        o /= n_gpus
    if zero_stage >= 2:
        g /= n_gpus
    if zero_stage >= 3:
        w /= n_gpus
    return w + g + o


def activation_bytes_per_layer(seq_len: int, batch: int, hidden: int, heads: int, recompute: bool = False,
                               tensor_parallel: int = 1) -> float:
    """Activation memory of one transformer layer in bytes (Korthikanti et al. 2022, 16-bit).

    Without recomputation: s·b·h·(34 + 5·a·s/h) / t; with full recomputation only the layer
    input is kept: 2·s·b·h.
    """
    _positive(seq_len=seq_len, batch=batch, hidden=hidden, heads=heads, tensor_parallel=tensor_parallel)
    if recompute:
        return 2.0 * seq_len * batch * hidden
    return seq_len * batch * hidden * (34 + 5 * heads * seq_len / hidden) / tensor_parallel


def weights_gb(params: float, precision: str = "bf16") -> float:
    """Memory of the weights alone, in GB (1e9 bytes)."""
    _positive(params=params)
    return params * bytes_per_element(precision) / 1e9


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1,
                   bytes_per_elem: float = 2.0) -> float:
    """KV-cache size in bytes: 2 (K and V) × layers × kv_heads × head_dim × tokens × batch × bytes."""
    _positive(layers=layers, kv_heads=kv_heads, head_dim=head_dim, tokens=tokens, batch=batch,
              bytes_per_elem=bytes_per_elem)
    return 2.0 * layers * kv_heads * head_dim * tokens * batch * bytes_per_elem


def max_concurrent_requests(memory_gb: float, weights_gb_: float, kv_bytes_per_request: float,
                            reserve_fraction: float = 0.0) -> int:
    """How many requests' KV caches fit beside the weights. Raises if the weights do not fit."""
    _positive(memory_gb=memory_gb, kv_bytes_per_request=kv_bytes_per_request)
    _non_negative(weights_gb_=weights_gb_, reserve_fraction=reserve_fraction)
    free = memory_gb * (1 - reserve_fraction) - weights_gb_
    if free < 0:
        raise ModelError(f"weights ({weights_gb_:.1f} GB) do not fit in {memory_gb:.1f} GB")
    return int(free * 1e9 // kv_bytes_per_request)


def gpus_to_hold(total_gb: float, memory_gb: float, usable_fraction: float = 1.0) -> int:
    """Smallest number of accelerators of `memory_gb` that hold `total_gb`."""
    _positive(total_gb=total_gb, memory_gb=memory_gb, usable_fraction=usable_fraction)
    if usable_fraction > 1:
        raise ModelError("usable_fraction cannot exceed 1")
    return math.ceil(total_gb / (memory_gb * usable_fraction) - 1e-9)


# --- roofline ----------------------------------------------------------------------------

def ridge_point(peak_tflops: float, mem_bw_tbps: float) -> float:
    """Arithmetic intensity (FLOP/byte) where the roofline turns from memory- to compute-bound."""
    _positive(peak_tflops=peak_tflops, mem_bw_tbps=mem_bw_tbps)
    return peak_tflops / mem_bw_tbps


def attainable_tflops(intensity_flop_per_byte: float, peak_tflops: float, mem_bw_tbps: float) -> float:
    """Roofline: min(peak, intensity × bandwidth), in TFLOP/s."""
    _positive(intensity_flop_per_byte=intensity_flop_per_byte, peak_tflops=peak_tflops, mem_bw_tbps=mem_bw_tbps)
    return min(peak_tflops, intensity_flop_per_byte * mem_bw_tbps)


def decode_step_seconds(params: float, batch: int, mem_bw_tbps: float, peak_tflops: float,
                        weight_bytes: float = 2.0, kv_bytes_per_seq: float = 0.0,
                        active_params: float | None = None) -> float:
    """Time of one decode step for `batch` sequences: the slower of reading memory and computing.

    Memory: all weights once (`params` × `weight_bytes`) plus each sequence's KV cache.
    Compute: 2 × active parameters × batch FLOP. For an MoE model pass `active_params`.
    """
    _positive(params=params, batch=batch, mem_bw_tbps=mem_bw_tbps, peak_tflops=peak_tflops,
              weight_bytes=weight_bytes)
    _non_negative(kv_bytes_per_seq=kv_bytes_per_seq)
    active = params if active_params is None else active_params
    mem_s = (params * weight_bytes + batch * kv_bytes_per_seq) / (mem_bw_tbps * 1e12)
    compute_s = 2.0 * active * batch / (peak_tflops * 1e12)
    return max(mem_s, compute_s)


def decode_tokens_per_s(params: float, batch: int, mem_bw_tbps: float, peak_tflops: float, **kw: float) -> float:
    """Upper bound on generated tokens/s for a batch (roofline of one decode step)."""
    return batch / decode_step_seconds(params, batch, mem_bw_tbps, peak_tflops, **kw)


def prefill_tokens_per_s(params: float, peak_tflops: float, mfu_: float = 1.0) -> float:
    """Compute-bound prefill rate: peak × MFU / (2·N) tokens/s."""
    _positive(params=params, peak_tflops=peak_tflops, mfu_=mfu_)
    if mfu_ > 1:
        raise ModelError("MFU cannot exceed 1")
    return peak_tflops * 1e12 * mfu_ / (2.0 * params)


# --- time, cost, energy, carbon ------------------------------------------------------------

def training_days(flops: float, n_gpus: int, peak_tflops: float, mfu_: float) -> float:
    """Wall-clock days to spend `flops` on `n_gpus` at a given MFU."""
    _positive(flops=flops, n_gpus=n_gpus, peak_tflops=peak_tflops, mfu_=mfu_)
    if mfu_ > 1:
        raise ModelError("MFU cannot exceed 1")
    return flops / (n_gpus * peak_tflops * 1e12 * mfu_) / 86400


def gpu_hours(n_gpus: float, days: float) -> float:
    _positive(n_gpus=n_gpus, days=days)
    return n_gpus * days * 24


def rental_cost_usd(gpu_hours_: float, usd_per_gpu_hour: float) -> float:
    """Cloud rental cost: GPU-hours × price per GPU-hour."""
    _non_negative(gpu_hours_=gpu_hours_, usd_per_gpu_hour=usd_per_gpu_hour)
    return gpu_hours_ * usd_per_gpu_hour


def amortised_cost_usd(gpu_hours_: float, gpu_price_usd: float, amortisation_years: float,
                       server_overhead: float = 0.0, interconnect_overhead: float = 0.0,
                       energy_kwh_: float = 0.0, usd_per_kwh: float = 0.0) -> float:
    """Amortised hardware capital plus energy, after Cottier et al. 2024.

    Capital: the accelerators' price, raised by the server and cluster-interconnect overheads
    (fractions of the accelerator price), depreciated linearly over `amortisation_years`, for
    the GPU-hours used. Energy: kWh × price.
    """
    _non_negative(gpu_hours_=gpu_hours_, gpu_price_usd=gpu_price_usd, server_overhead=server_overhead,
                  interconnect_overhead=interconnect_overhead, energy_kwh_=energy_kwh_, usd_per_kwh=usd_per_kwh)
    _positive(amortisation_years=amortisation_years)
    per_hour = gpu_price_usd * (1 + server_overhead + interconnect_overhead) / (amortisation_years * HOURS_PER_YEAR)
    return gpu_hours_ * per_hour + energy_kwh_ * usd_per_kwh


def usd_per_million_tokens(tokens_per_s: float, usd_per_hour: float) -> float:
    """Serving cost per 1e6 tokens from a throughput and an hourly price of the serving unit."""
    _positive(tokens_per_s=tokens_per_s)
    _non_negative(usd_per_hour=usd_per_hour)
    return usd_per_hour / (tokens_per_s * 3600) * 1e6


def energy_kwh(gpu_hours_: float, avg_power_w: float, pue: float = 1.0) -> float:
    """Facility energy: GPU-hours × average power per GPU × PUE, in kWh.

    Use measured average power where a source gives it; TDP gives an upper bound.
    """
    _non_negative(gpu_hours_=gpu_hours_, avg_power_w=avg_power_w)
    if not pue >= 1:
        raise ModelError(f"PUE must be at least 1, got {pue!r}")
    return gpu_hours_ * avg_power_w / 1000 * pue


def co2e_tonnes(energy_kwh_: float, kg_co2e_per_kwh: float) -> float:
    """Operational emissions in tCO2e: kWh × grid intensity (kgCO2e/kWh) / 1000."""
    _non_negative(energy_kwh_=energy_kwh_, kg_co2e_per_kwh=kg_co2e_per_kwh)
    return energy_kwh_ * kg_co2e_per_kwh / 1000


def embodied_co2e_tonnes(gpu_hours_: float, embodied_kg_per_gpu: float, lifetime_years: float) -> float:
    """Embodied emissions attributed to a run: the accelerator's embodied CO2e, amortised linearly."""
    _non_negative(gpu_hours_=gpu_hours_, embodied_kg_per_gpu=embodied_kg_per_gpu)
    _positive(lifetime_years=lifetime_years)
    return gpu_hours_ * embodied_kg_per_gpu / (lifetime_years * HOURS_PER_YEAR) / 1000
