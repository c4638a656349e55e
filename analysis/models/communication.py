"""Communication of parallel training and serving: ring all-reduce, tensor and pipeline parallelism.

Pure functions; units in the argument names. Link bandwidths are per direction (the vendors'
NVLink and ICI figures in data/hardware.csv are bidirectional totals: halve them first).

- Ring all-reduce: each of n devices sends and receives 2(n − 1)/n of the payload (reduce-scatter
  then all-gather; Patarasuk & Yuan 2009, the cost model of NCCL's ring and of "How to Scale Your
  Model", ch. 3).
- Megatron tensor parallelism: two all-reduces of the layer's activations (b·s·h elements) per
  transformer layer in the forward pass and two in the backward pass (Shoeybi et al. 2019, Sec. 3;
  Narayanan et al. 2021, Sec. 2.3).
- Pipeline bubble: with p stages and m micro-batches, (p − 1) of the m + p − 1 slots of a GPipe or
  1F1B schedule are idle, i.e. (p − 1)/m of the ideal time (Narayanan et al. 2021, Sec. 2.2.1).
"""

from __future__ import annotations

from analysis.models.base import ModelError, require_positive


def ring_allreduce_bytes_per_device(n_devices: int, payload_bytes: float) -> float:
    """Bytes each device sends (and receives) in a ring all-reduce of `payload_bytes`: 2(n − 1)/n × payload."""
    require_positive(n_devices=n_devices, payload_bytes=payload_bytes)
    return 2 * (n_devices - 1) / n_devices * payload_bytes


def allreduce_seconds(n_devices: int, payload_bytes: float, link_gb_per_s_per_direction: float) -> float:
    """Bandwidth time of a ring all-reduce (no latency term): bytes per device / link bandwidth."""
    require_positive(link_gb_per_s_per_direction=link_gb_per_s_per_direction)
    return ring_allreduce_bytes_per_device(n_devices, payload_bytes) / (link_gb_per_s_per_direction * 1e9)


def data_parallel_critical_tokens(peak_tflops: float, link_gb_per_s_per_direction: float,
                                  grad_bytes: float = 2.0) -> float:
    """Tokens per device per step above which data parallelism is compute-bound (gradients overlapped).

    Backward FLOP of one step on one device: 4·P·B (B tokens); its gradient all-reduce moves about
    2·grad_bytes·P bytes per device (2(n − 1)/n → 2 for large n). The all-reduce hides behind the
    backward pass when 4PB/C ≥ 2·grad_bytes·P/W, i.e. B ≥ (grad_bytes/2)·C/W: with BF16
    gradients, B ≥ C/W, the peak FLOP/s over the link's bytes/s ("How to Scale Your Model", ch. 5).
    """
    require_positive(peak_tflops=peak_tflops, link_gb_per_s_per_direction=link_gb_per_s_per_direction,
                     grad_bytes=grad_bytes)
    return grad_bytes / 2 * peak_tflops * 1e12 / (link_gb_per_s_per_direction * 1e9)


def tensor_parallel_bytes_per_layer(tokens: int, hidden: int, tp: int, bytes_per_elem: float = 2.0,
                                    backward: bool = True) -> float:
    """Bytes each device sends per transformer layer under Megatron tensor parallelism of degree `tp`.

    Two all-reduces of tokens × hidden elements in the forward pass, two more in the backward pass.
    """
    require_positive(tokens=tokens, hidden=hidden, tp=tp, bytes_per_elem=bytes_per_elem)
    if tp == 1:
        return 0.0
    n = 4 if backward else 2
    return n * ring_allreduce_bytes_per_device(tp, tokens * hidden * bytes_per_elem)


def tensor_parallel_critical_hidden(peak_tflops: float, link_gb_per_s_per_direction: float, tp: int,
                                    bytes_per_elem: float = 2.0) -> float:
    """Hidden size above which a tensor-parallel layer computes longer than it communicates (no overlap).

    Per layer and token, the dense matmuls cost 24·h² FLOP forward (Megatron's 24Bsh², attention
    scores left out), split over tp devices; the two forward all-reduces move
    2·2(tp − 1)/tp·h·bytes per token. Compute ≥ communication when
    h ≥ (C/W)·(tp − 1)·bytes_per_elem/6 (with BF16, (tp − 1)·C/(3W)); the backward pass doubles both.
    """
    require_positive(peak_tflops=peak_tflops, link_gb_per_s_per_direction=link_gb_per_s_per_direction, tp=tp)
    if tp == 1:
        return 0.0
    ratio = peak_tflops * 1e12 / (link_gb_per_s_per_direction * 1e9)
    return ratio * (tp - 1) * bytes_per_elem / 6


def pipeline_bubble_fraction(stages: int, micro_batches: int) -> float:
    """Share of a pipeline step that is bubble: (p − 1)/(m + p − 1)."""
    require_positive(stages=stages, micro_batches=micro_batches)
    return (stages - 1) / (micro_batches + stages - 1)


def pipeline_bubble_over_ideal(stages: int, micro_batches: int) -> float:
    """Bubble time over ideal compute time, (p − 1)/m (Narayanan et al. 2021, Sec. 2.2.1)."""
    require_positive(stages=stages, micro_batches=micro_batches)
    return (stages - 1) / micro_batches


def exposed_seconds(compute_s: float, comm_s: float, overlap: bool = True) -> float:
    """Step time with communication overlapped (max of the two) or serialised (their sum)."""
    if compute_s < 0 or comm_s < 0:
        raise ModelError("times cannot be negative")
    return max(compute_s, comm_s) if overlap else compute_s + comm_s
