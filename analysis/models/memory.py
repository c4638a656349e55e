"""Memory: bytes per element and per parameter, activations, weights, KV cache, GPUs to hold a model.

Pure functions; units are in the argument names (see analysis.models)."""

from __future__ import annotations

import math

from analysis.models.base import ModelError, require_non_negative, require_positive

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
    require_positive(n_gpus=n_gpus)
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
                               tensor_parallel: int = 1, sequence_parallel: bool = False) -> float:
    """Activation memory of one transformer layer in bytes (Korthikanti et al. 2022, Table 2, 16-bit).

    No parallelism: s·b·h·(34 + 5·a·s/h). Tensor parallelism over t GPUs alone splits only the
    attention and MLP blocks: s·b·h·(10 + 24/t + 5·a·s/(h·t)). With sequence parallelism the
    layer norms and dropouts are split too: s·b·h·(34 + 5·a·s/h)/t. With full recomputation only
    the layer input is kept: 2·s·b·h (divided by t under sequence parallelism).
    """
    require_positive(seq_len=seq_len, batch=batch, hidden=hidden, heads=heads, tensor_parallel=tensor_parallel)
    t = tensor_parallel
    sbh = seq_len * batch * hidden
    if recompute:
        return 2.0 * sbh / (t if sequence_parallel else 1)
    attention = 5 * heads * seq_len / hidden
    if sequence_parallel:
        return sbh * (34 + attention) / t
    return sbh * (10 + 24 / t + attention / t)


def weights_gb(params: float, precision: str = "bf16") -> float:
    """Memory of the weights alone, in GB (1e9 bytes)."""
    require_positive(params=params)
    return params * bytes_per_element(precision) / 1e9


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1,
                   bytes_per_elem: float = 2.0) -> float:
    """KV-cache size in bytes: 2 (K and V) × layers × kv_heads × head_dim × tokens × batch × bytes."""
    require_positive(layers=layers, kv_heads=kv_heads, head_dim=head_dim, tokens=tokens, batch=batch,
              bytes_per_elem=bytes_per_elem)
    return 2.0 * layers * kv_heads * head_dim * tokens * batch * bytes_per_elem


def max_concurrent_requests(memory_gb: float, weights_gb_: float, kv_bytes_per_request: float,
                            reserve_fraction: float = 0.0) -> int:
    """How many requests' KV caches fit beside the weights. Raises if the weights do not fit."""
    require_positive(memory_gb=memory_gb, kv_bytes_per_request=kv_bytes_per_request)
    require_non_negative(weights_gb_=weights_gb_, reserve_fraction=reserve_fraction)
    free = memory_gb * (1 - reserve_fraction) - weights_gb_
    if free < 0:
        raise ModelError(f"weights ({weights_gb_:.1f} GB) do not fit in {memory_gb:.1f} GB")
    return int(free * 1e9 // kv_bytes_per_request)


def gpus_to_hold(total_gb: float, memory_gb: float, usable_fraction: float = 1.0) -> int:
    """Smallest number of accelerators of `memory_gb` that hold `total_gb`."""
    require_positive(total_gb=total_gb, memory_gb=memory_gb, usable_fraction=usable_fraction)
    if usable_fraction > 1:
        raise ModelError("usable_fraction cannot exceed 1")
    return math.ceil(total_gb / (memory_gb * usable_fraction) - 1e-9)
