"""Communication models against the published relations they implement (hand-worked in the comments)."""

import pytest

from analysis.models import ModelError
from analysis.models import communication as comm


def test_ring_allreduce_volume():
    # Patarasuk & Yuan 2009 / NCCL ring: each of n devices moves 2(n-1)/n of the payload.
    # 8 GPUs, 1 GB of gradients: 2 * 7/8 * 1e9 = 1.75e9 bytes; at 300 GB/s per direction 5.83 ms.
    assert comm.ring_allreduce_bytes_per_device(8, 1e9) == pytest.approx(1.75e9)
    assert comm.allreduce_seconds(8, 1e9, 300) == pytest.approx(1.75e9 / 300e9)
    assert comm.ring_allreduce_bytes_per_device(1, 1e9) == 0


def test_megatron_four_allreduces_per_layer():
    # Shoeybi et al. 2019, Sec. 3: two all-reduces forward, two backward, each of b*s*h activations.
    # 2048 tokens x 12288 hidden x 2 bytes = 50.3 MB; tp = 8: 2*7/8 per all-reduce -> 4 * 1.75 * 50.33e6.
    payload = 2048 * 12288 * 2
    assert comm.tensor_parallel_bytes_per_layer(2048, 12288, 8) == pytest.approx(4 * 1.75 * payload)
    assert comm.tensor_parallel_bytes_per_layer(2048, 12288, 8, backward=False) == pytest.approx(2 * 1.75 * payload)
    assert comm.tensor_parallel_bytes_per_layer(2048, 12288, 1) == 0


def test_pipeline_bubble():
    # Narayanan et al. 2021, Sec. 2.2.1: bubble time fraction (p-1)/m of the ideal time; as a share of the
    # whole step (p-1)/(m+p-1). p = 8 stages, m = 32 micro-batches: 7/32 = 0.219 and 7/39 = 0.179.
    assert comm.pipeline_bubble_over_ideal(8, 32) == pytest.approx(7 / 32)
    assert comm.pipeline_bubble_fraction(8, 32) == pytest.approx(7 / 39)
    x = comm.pipeline_bubble_over_ideal(8, 32)
    assert comm.pipeline_bubble_fraction(8, 32) == pytest.approx(x / (1 + x))
    assert comm.pipeline_bubble_fraction(1, 4) == 0


def test_data_parallel_critical_batch():
    # "How to Scale Your Model" ch. 5: pure data parallelism is compute-bound when the per-device batch
    # exceeds C/W. A100: 312e12 FLOP/s over 300e9 bytes/s per direction (NVLink 3, 600 GB/s total) = 1,040 tokens.
    assert comm.data_parallel_critical_tokens(312, 300) == pytest.approx(1040)
    # FP32 gradients double the traffic and the threshold
    assert comm.data_parallel_critical_tokens(312, 300, grad_bytes=4) == pytest.approx(2080)


def test_tensor_parallel_critical_hidden():
    # Per token and layer: 24 h^2 / tp FLOP against 2 all-reduces of 2(tp-1)/tp * h * 2 bytes:
    # compute-bound when h >= (tp-1) C / (3 W). A100 over NVLink, tp = 8: 7 * 1040 / 3 = 2,426.7.
    assert comm.tensor_parallel_critical_hidden(312, 300, 8) == pytest.approx(7 * 1040 / 3)
    # over a 32 GB/s link the same split needs h >= 7 * 9750 / 3 = 22,750: GPT-3's 12,288 would be comm-bound
    assert comm.tensor_parallel_critical_hidden(312, 32, 8) == pytest.approx(22750)


def test_overlap_and_refusals():
    assert comm.exposed_seconds(2.0, 1.0) == 2.0
    assert comm.exposed_seconds(2.0, 1.0, overlap=False) == 3.0
    with pytest.raises(ModelError):
        comm.allreduce_seconds(8, 1e9, 0)
    with pytest.raises(ModelError):
        comm.exposed_seconds(-1, 1)
