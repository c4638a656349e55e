"""Traffic of sharded and expert-parallel training: ZeRO-3/FSDP, MoE all-to-all, ring (context) attention.

Pure functions; units in the argument names (see analysis.models). Bytes are what each device sends per
training step (forward and backward) for the quantity named; ring collectives move (n − 1)/n of their
payload per device per pass (reduce-scatter, all-gather) and all-reduce twice that
(:mod:`analysis.models.communication`).

- Data parallelism: one all-reduce of the gradients, 2(n − 1)/n · Ψ bytes per device (Ψ = parameters ×
  bytes per gradient element).
- ZeRO stage 3 / FSDP (Rajbhandari et al. 2020, Sec. 7): the parameters are all-gathered before the
  forward pass and again before the backward pass, and the gradients are reduce-scattered: 3(n − 1)/n · Ψ,
  1.5 × the data-parallel volume (their "3Ψ against 2Ψ"). Stages 1 and 2 keep the 2Ψ of data parallelism.
- MoE expert parallelism (the GShard/Switch layout): each MoE layer sends every token's hidden vector to
  its k experts and brings the k outputs back (two all-to-alls forward, two backward); with experts spread
  over `ep` devices a share (ep − 1)/ep of the copies leaves the device (uniform routing).
- Ring attention / context parallelism over `cp` devices: each device holds s/cp tokens and passes its K
  and V blocks round the ring, receiving the other (cp − 1) blocks once per layer in the forward pass; the
  backward pass sends K, V and their gradients (twice the forward bytes).
"""

from __future__ import annotations

from analysis.models.base import ModelError, require_positive


def _ring_share(n_devices: int) -> float:
    require_positive(n_devices=n_devices)
    return (n_devices - 1) / n_devices


def dp_bytes_per_device(params: float, n_devices: int, grad_bytes: float = 2.0) -> float:
    """Bytes each device sends per step under plain data parallelism (or ZeRO-1/2): 2(n − 1)/n · P · bytes."""
    require_positive(params=params, grad_bytes=grad_bytes)
    return 2 * _ring_share(n_devices) * params * grad_bytes


def zero_bytes_per_device(params: float, n_devices: int, zero_stage: int, param_bytes: float = 2.0,
                          grad_bytes: float = 2.0) -> float:
    """Bytes each device sends per step under ZeRO stage 0-3 (Rajbhandari et al. 2020, Sec. 7).

    Stages 0-2: the all-reduce (or reduce-scatter + all-gather) of data parallelism, 2(n − 1)/n · Ψ. Stage 3
    (FSDP's full sharding): two all-gathers of the parameters (forward, backward) and one reduce-scatter of
    the gradients, (n − 1)/n · (2 · P · param_bytes + P · grad_bytes).
    """
    require_positive(params=params, param_bytes=param_bytes, grad_bytes=grad_bytes)
    if zero_stage not in (0, 1, 2, 3):
        raise ModelError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    if zero_stage < 3:
        return dp_bytes_per_device(params, n_devices, grad_bytes)
    return _ring_share(n_devices) * params * (2 * param_bytes + grad_bytes)


def moe_alltoall_bytes_per_device(tokens_per_device: int, hidden: int, top_k: int, ep: int, moe_layers: int,
                                  activation_bytes: float = 2.0, backward: bool = True) -> float:
    """Bytes each device sends per step in the all-to-alls of expert parallelism of degree `ep`.

    Per MoE layer and pass: dispatch and combine, each of tokens × k × hidden activations, of which
    (ep − 1)/ep leave the device; the backward pass repeats both for the gradients.
    """
    require_positive(tokens_per_device=tokens_per_device, hidden=hidden, top_k=top_k, moe_layers=moe_layers,
                     activation_bytes=activation_bytes)
    passes = 2 if backward else 1
    per_layer = 2 * tokens_per_device * top_k * hidden * activation_bytes * _ring_share(ep)
    return passes * moe_layers * per_layer


def ring_attention_bytes_per_device(seq_len: int, kv_heads: int, head_dim: int, cp: int, layers: int,
                                    kv_bytes: float = 2.0, backward: bool = True) -> float:
    """Bytes each device sends per step for ring attention over `cp` devices (one sequence of `seq_len`).

    Forward, per layer: the (cp − 1) K and V blocks of s/cp tokens pass through each device,
    (cp − 1)/cp · 2 · s · kv_heads · head_dim · bytes; backward adds K, V and dK, dV (twice as much).
    """
    require_positive(seq_len=seq_len, kv_heads=kv_heads, head_dim=head_dim, layers=layers, kv_bytes=kv_bytes)
    forward = _ring_share(cp) * 2 * seq_len * kv_heads * head_dim * kv_bytes
    return layers * forward * (3 if backward else 1)


def transfer_seconds(bytes_per_device: float, link_gb_per_s_per_direction: float) -> float:
    """Time to send `bytes_per_device` over a link of the given per-direction bandwidth (bandwidth term)."""
    require_positive(link_gb_per_s_per_direction=link_gb_per_s_per_direction)
    if bytes_per_device < 0:
        raise ModelError("bytes cannot be negative")
    return bytes_per_device / (link_gb_per_s_per_direction * 1e9)
