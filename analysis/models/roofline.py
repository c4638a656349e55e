"""The roofline: ridge point, attainable throughput, decode and prefill rates.

Pure functions; units are in the argument names (see analysis.models)."""

from __future__ import annotations

from analysis.models.base import ModelError, require_non_negative, require_positive
from analysis.models.compute import inference_flops_per_token


def ridge_point(peak_tflops: float, mem_bw_tbps: float) -> float:
    """Arithmetic intensity (FLOP/byte) where the roofline turns from memory- to compute-bound."""
    require_positive(peak_tflops=peak_tflops, mem_bw_tbps=mem_bw_tbps)
    return peak_tflops / mem_bw_tbps


def attainable_tflops(intensity_flop_per_byte: float, peak_tflops: float, mem_bw_tbps: float) -> float:
    """Roofline: min(peak, intensity × bandwidth), in TFLOP/s."""
    require_positive(intensity_flop_per_byte=intensity_flop_per_byte, peak_tflops=peak_tflops, mem_bw_tbps=mem_bw_tbps)
    return min(peak_tflops, intensity_flop_per_byte * mem_bw_tbps)


def decode_step_seconds(params: float, batch: int, mem_bw_tbps: float, peak_tflops: float,
                        weight_bytes: float = 2.0, kv_bytes_per_seq: float = 0.0,
                        active_params: float | None = None) -> float:
    """Time of one decode step for `batch` sequences: the slower of reading memory and computing.

    Memory: all weights once (`params` × `weight_bytes`) plus each sequence's KV cache.
    Compute: 2 × active parameters × batch FLOP. For an MoE model pass `active_params`.
    """
    require_positive(params=params, batch=batch, mem_bw_tbps=mem_bw_tbps, peak_tflops=peak_tflops,
              weight_bytes=weight_bytes)
    require_non_negative(kv_bytes_per_seq=kv_bytes_per_seq)
    active = params if active_params is None else active_params
    mem_s = (params * weight_bytes + batch * kv_bytes_per_seq) / (mem_bw_tbps * 1e12)
    compute_s = 2.0 * active * batch / (peak_tflops * 1e12)
    return max(mem_s, compute_s)


def decode_tokens_per_s(params: float, batch: int, mem_bw_tbps: float, peak_tflops: float, **kw: float) -> float:
    """Upper bound on generated tokens/s for a batch (roofline of one decode step)."""
    return batch / decode_step_seconds(params, batch, mem_bw_tbps, peak_tflops, **kw)


def prefill_tokens_per_s(params: float, peak_tflops: float, mfu_: float = 1.0, layers: int = 0,
                         prompt_tokens: int = 0, d_attn: int = 0) -> float:
    """Compute-bound prefill rate of a `prompt_tokens` prompt: peak × MFU over the FLOP per prompt
    token, 2·N + 2·l·P·d_attn (:func:`inference_flops_per_token` with the prompt as the context:
    Kaplan et al.'s attention count, which averages causal attention over the prompt). Leave
    `layers` at 0 for the weights-only 2·N of short prompts."""
    require_positive(params=params, peak_tflops=peak_tflops, mfu_=mfu_)
    if mfu_ > 1:
        raise ModelError("MFU cannot exceed 1")
    return peak_tflops * 1e12 * mfu_ / inference_flops_per_token(params, layers, prompt_tokens, d_attn)
