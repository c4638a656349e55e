"""Latency of serving on the roofline: time to first token (TTFT), time per output token (TPOT), the
all-reduce's latency term, memory-bandwidth utilisation (MBU), speculative decoding and prefix reuse.

Pure functions; units in the argument names (see analysis.models).

- All-reduce with a latency term: the alpha-beta cost of a ring, 2(n − 1)·α + 2(n − 1)/n · bytes / bandwidth
  (each of the 2(n − 1) ring steps pays a start-up latency α; Patarasuk & Yuan 2009, Thakur et al. 2005).
  :mod:`analysis.models.communication` has the bandwidth term alone.
- TPOT: one decode step of a tensor-parallel group of `tp` GPUs is the roofline step
  (:func:`analysis.models.roofline.decode_step_seconds`, weights and KV caches split over the group) plus
  the two all-reduces per layer of Megatron tensor parallelism (Shoeybi et al. 2019, Sec. 3), on the
  critical path because each sits between two matmuls.
- TTFT: the prefill of the batch's prompts at `mfu` of the group's peak plus its all-reduces; the first
  token's own decode step is left out (it is one TPOT).
- MBU: bytes a decode step must read over its time, divided by the peak bandwidth (the serving
  counterpart of MFU; defined in Databricks' "LLM Inference Performance Engineering: Best Practices", 2023).
- Speculative decoding (Leviathan et al. 2023, Sec. 3): with acceptance rate α and γ drafted tokens, one
  target step yields (1 − α^(γ+1))/(1 − α) tokens on average; with a draft step costing c target steps,
  walltime improves by (1 − α^(γ+1)) / ((1 − α)(γc + 1)) (their expected-tokens equation and walltime
  theorem; we did not check the equation numbers against the paper, the formulas are as restated on
  subhadipmitra.com/instruments/speculative-decoding).
- Prefix reuse: a cached prefix of p tokens removes p of the P prompt tokens from prefill; requests that
  share it store its KV cache once.
"""

from __future__ import annotations

from analysis.models.base import ModelError, require_non_negative, require_positive
from analysis.models.communication import ring_allreduce_bytes_per_device
from analysis.models.compute import inference_flops_per_token
from analysis.models.roofline import decode_step_seconds


def ring_allreduce_seconds(n_devices: int, payload_bytes: float, link_gb_per_s_per_direction: float,
                           step_latency_us: float = 0.0) -> float:
    """Alpha-beta time of a ring all-reduce: 2(n − 1) steps of latency `step_latency_us` each, plus the
    bandwidth term 2(n − 1)/n × payload / link bandwidth. Zero for one device."""
    require_positive(n_devices=n_devices, link_gb_per_s_per_direction=link_gb_per_s_per_direction)
    require_non_negative(payload_bytes=payload_bytes, step_latency_us=step_latency_us)
    if n_devices == 1 or payload_bytes == 0:
        return 0.0
    latency = 2 * (n_devices - 1) * step_latency_us * 1e-6
    return latency + ring_allreduce_bytes_per_device(n_devices, payload_bytes) / (link_gb_per_s_per_direction * 1e9)


def tp_allreduces_seconds(tokens: float, hidden: int, layers: int, tp: int, link_gb_per_s_per_direction: float,
                          step_latency_us: float = 0.0, activation_bytes: float = 2.0) -> float:
    """The 2 × layers all-reduces of one forward pass over `tokens` tokens under tensor parallelism of
    degree `tp` (Megatron: one after attention, one after the MLP), each of tokens × hidden activations."""
    require_non_negative(tokens=tokens, layers=layers)
    require_positive(hidden=hidden, tp=tp)
    if tp == 1 or tokens == 0:
        return 0.0
    one = ring_allreduce_seconds(tp, tokens * hidden * activation_bytes, link_gb_per_s_per_direction,
                                 step_latency_us)
    return 2 * layers * one


def tpot_seconds(params_read: float, batch: int, kv_bytes_per_seq: float, tp: int, mem_bw_tbps: float,
                 peak_tflops: float, hidden: int, layers: int, link_gb_per_s_per_direction: float,
                 step_latency_us: float = 0.0, weight_bytes: float = 2.0, active_params: float | None = None,
                 activation_bytes: float = 2.0) -> float:
    """Time per output token of a batch decoded on `tp` GPUs (per GPU: `mem_bw_tbps`, `peak_tflops`): the
    roofline step over the group's summed bandwidth and peak plus the step's tensor-parallel all-reduces."""
    require_positive(tp=tp)
    step = decode_step_seconds(params_read, batch, tp * mem_bw_tbps, tp * peak_tflops, weight_bytes=weight_bytes,
                               kv_bytes_per_seq=kv_bytes_per_seq, active_params=active_params)
    return step + tp_allreduces_seconds(batch, hidden, layers, tp, link_gb_per_s_per_direction, step_latency_us,
                                        activation_bytes)


def ttft_seconds(params: float, prompt_tokens: int, batch: int, tp: int, peak_tflops: float, hidden: int,
                 layers: int, d_attn: int, link_gb_per_s_per_direction: float, step_latency_us: float = 0.0,
                 mfu_: float = 1.0, activation_bytes: float = 2.0) -> float:
    """Time to first token when `batch` prompts of `prompt_tokens` are prefilled together on `tp` GPUs:
    batch × P × (2N + 2·l·P·d_attn) FLOP at `mfu_` of the group's peak, plus the all-reduces of the pass."""
    require_positive(prompt_tokens=prompt_tokens, batch=batch, tp=tp, peak_tflops=peak_tflops, mfu_=mfu_)
    if mfu_ > 1:
        raise ModelError("MFU cannot exceed 1")
    flops = batch * prompt_tokens * inference_flops_per_token(params, layers, prompt_tokens, d_attn)
    compute = flops / (tp * peak_tflops * 1e12 * mfu_)
    return compute + tp_allreduces_seconds(batch * prompt_tokens, hidden, layers, tp, link_gb_per_s_per_direction,
                                           step_latency_us, activation_bytes)


def mbu(bytes_per_step: float, step_seconds: float, mem_bw_tbps: float, n_gpus: int = 1) -> float:
    """Memory-bandwidth utilisation: (bytes read per decode step / step time) / (n_gpus × peak bandwidth).

    Bytes per step are the weights read plus the batch's KV caches; 1 means the step ran at the datasheet
    bandwidth, the roofline's assumption."""
    require_positive(bytes_per_step=bytes_per_step, step_seconds=step_seconds, mem_bw_tbps=mem_bw_tbps,
                     n_gpus=n_gpus)
    return bytes_per_step / step_seconds / (n_gpus * mem_bw_tbps * 1e12)


# --- speculative decoding ----------------------------------------------------------------------------

def _check_alpha(acceptance_rate: float, draft_tokens: int) -> None:
    if not 0 <= acceptance_rate <= 1:
        raise ModelError(f"acceptance_rate must be in [0, 1], got {acceptance_rate!r}")
    if not isinstance(draft_tokens, int) or draft_tokens < 0:
        raise ModelError(f"draft_tokens must be a whole number >= 0, got {draft_tokens!r}")


def speculative_tokens_per_step(acceptance_rate: float, draft_tokens: int) -> float:
    """Expected tokens per target-model step, (1 − α^(γ+1))/(1 − α) (Leviathan et al. 2023, Sec. 3);
    γ + 1 when every draft is accepted (α = 1)."""
    _check_alpha(acceptance_rate, draft_tokens)
    a, g = acceptance_rate, draft_tokens
    if a == 1:
        return float(g + 1)
    return (1 - a ** (g + 1)) / (1 - a)


def speculative_speedup(acceptance_rate: float, draft_tokens: int, draft_cost_ratio: float) -> float:
    """Expected walltime improvement over plain decoding, (1 − α^(γ+1)) / ((1 − α)(γc + 1)) (Leviathan et al.
    2023, Sec. 3): tokens per step over the step's cost, γ draft steps of c target steps plus one
    target step. Assumes the target step's time does not grow with the γ + 1 tokens it verifies (decode is
    bandwidth-bound; see :func:`analysis.models.roofline.decode_step_seconds`)."""
    require_non_negative(draft_cost_ratio=draft_cost_ratio)
    return speculative_tokens_per_step(acceptance_rate, draft_tokens) / (draft_tokens * draft_cost_ratio + 1)


def best_draft_tokens(acceptance_rate: float, draft_cost_ratio: float, max_draft_tokens: int = 16) -> int:
    """The γ in 0..max_draft_tokens with the largest :func:`speculative_speedup` (0: do not speculate)."""
    require_positive(max_draft_tokens=max_draft_tokens)
    return max(range(max_draft_tokens + 1),
               key=lambda g: (speculative_speedup(acceptance_rate, g, draft_cost_ratio), -g))


# --- prefix / KV-cache reuse -------------------------------------------------------------------------

def prefix_prefill_tokens(prompt_tokens: int, cached_prefix_tokens: int) -> int:
    """Prompt tokens that still need prefill when the first `cached_prefix_tokens` are in the KV cache."""
    require_positive(prompt_tokens=prompt_tokens)
    require_non_negative(cached_prefix_tokens=cached_prefix_tokens)
    if cached_prefix_tokens > prompt_tokens:
        raise ModelError("the cached prefix cannot be longer than the prompt")
    return prompt_tokens - cached_prefix_tokens


def shared_prefix_kv_bytes(kv_bytes_per_token: float, prefix_tokens: int, unique_tokens: int, requests: int,
                           shared: bool = True) -> float:
    """KV-cache bytes of `requests` requests that each hold `prefix_tokens` common tokens and `unique_tokens`
    of their own: kv × (p + n·u) when the prefix is stored once, kv × n·(p + u) when each request keeps a copy."""
    require_positive(kv_bytes_per_token=kv_bytes_per_token, requests=requests)
    require_non_negative(prefix_tokens=prefix_tokens, unique_tokens=unique_tokens)
    if shared:
        return kv_bytes_per_token * (prefix_tokens + requests * unique_tokens)
    return kv_bytes_per_token * requests * (prefix_tokens + unique_tokens)
