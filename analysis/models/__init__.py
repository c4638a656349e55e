"""The cost models: pure formulas, one file per quantity.

compute (FLOP counts, MFU), memory (bytes per parameter, activations, KV cache), roofline
(attainable throughput, decode and prefill), cost (time, rent, amortised purchase, energy,
carbon), chain (the one chain from device-hours to energy at each boundary, emissions and cost)
with chain_inputs (the book's one set of its assumptions), sensitivity (tornado), trends
(growth fits) and baselines (classification of the baselines papers compare against).
Units are in the argument names (``_tflops`` = 1e12 FLOP/s, ``_tbps`` = 1e12 bytes/s, ``_gb`` =
1e9 bytes); a function raises :class:`ModelError` on impossible input instead of returning a
meaningless number. This layer may import ``analysis.data`` at most and does no file I/O. The
formulas are re-exported here, so ``from analysis import models; models.mfu(...)`` works.
"""

from analysis.models.base import HOURS_PER_YEAR, ModelError, require_non_negative, require_positive
from analysis.models.compute import (
    inference_flops_per_token,
    megatron_flops_per_iteration,
    megatron_training_seconds,
    mfu,
    mfu_from_aggregate,
    mfu_from_tokens,
    mfu_with_attention,
    training_flops_6nd,
    training_flops_with_attention,
)
from analysis.models.cost import (
    amortised_cost_usd,
    cluster_factor_from_share,
    co2e_tonnes,
    embodied_co2e_tonnes,
    gpu_hours,
    rental_cost_usd,
    training_days,
    usd_per_million_tokens,
)
from analysis.models.memory import (
    activation_bytes_per_layer,
    bytes_per_element,
    gpus_to_hold,
    kv_cache_bytes,
    max_concurrent_requests,
    training_bytes_per_param,
    weights_gb,
)
from analysis.models.roofline import (
    attainable_tflops,
    decode_step_seconds,
    decode_tokens_per_s,
    prefill_tokens_per_s,
    ridge_point,
)
from analysis.models.sensitivity import tornado

__all__ = [
    "HOURS_PER_YEAR",
    "ModelError",
    "require_non_negative",
    "require_positive",
    "training_flops_6nd",
    "training_flops_with_attention",
    "megatron_flops_per_iteration",
    "megatron_training_seconds",
    "inference_flops_per_token",
    "mfu",
    "mfu_from_aggregate",
    "mfu_from_tokens",
    "mfu_with_attention",
    "bytes_per_element",
    "training_bytes_per_param",
    "activation_bytes_per_layer",
    "weights_gb",
    "kv_cache_bytes",
    "max_concurrent_requests",
    "gpus_to_hold",
    "ridge_point",
    "attainable_tflops",
    "decode_step_seconds",
    "decode_tokens_per_s",
    "prefill_tokens_per_s",
    "training_days",
    "gpu_hours",
    "rental_cost_usd",
    "amortised_cost_usd",
    "cluster_factor_from_share",
    "usd_per_million_tokens",
    "co2e_tonnes",
    "embodied_co2e_tonnes",
    "tornado",
]
