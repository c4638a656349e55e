"""Which datasheet number predicts which result: the roofline ratio of two accelerators for a workload's
arithmetic intensity, and whether a model's weights fit in one scale-up domain.

The ratio of attainable throughputs (:func:`analysis.models.roofline.attainable_tflops`; Williams et al. 2009)
of two accelerators at a workload's intensity is their bandwidth ratio for a memory-bound workload (decode at
small batch, about 1 FLOP per byte of 16-bit weights at batch 1) and their peak ratio for a compute-bound one
(training, prefill), with the ridge points deciding between the two. A workload bound by capacity instead
needs enough devices to hold its bytes (:func:`analysis.models.memory.gpus_to_hold`); it is served at the speed
of the scale-up fabric (NVLink, ICI) only while those devices fit in one scale-up domain.

Pure functions; units are in the argument names.
"""

from __future__ import annotations

from analysis.models.base import require_positive
from analysis.models.memory import gpus_to_hold
from analysis.models.roofline import attainable_tflops


def roofline_ratio(intensity_flop_per_byte: float, peak_a_tflops: float, bw_a_tbps: float,
                   peak_b_tflops: float, bw_b_tbps: float) -> float:
    """Attainable throughput of accelerator a over accelerator b at one arithmetic intensity."""
    require_positive(intensity_flop_per_byte=intensity_flop_per_byte)
    return (attainable_tflops(intensity_flop_per_byte, peak_a_tflops, bw_a_tbps)
            / attainable_tflops(intensity_flop_per_byte, peak_b_tflops, bw_b_tbps))


def devices_in_domain(weights_gb: float, memory_gb: float, domain_size: int) -> tuple[int, bool]:
    """(devices needed to hold `weights_gb`, whether they fit in one scale-up domain of `domain_size`)."""
    require_positive(domain_size=domain_size)
    n = gpus_to_hold(weights_gb, memory_gb)
    return n, n <= domain_size
