"""What a reported speedup is measured against: one classifier for the whole book.

The `baseline` column of data/claims.csv holds the abstract's own words for what a claim
compares with. :func:`classify` sorts that text into one of :data:`KINDS` with an ordered list
of keyword rules (first match wins); the GPU-kernel chapter and the synthesis both use it, so a
claim has the same kind everywhere in the book.
"""

from __future__ import annotations

import math
import re

from analysis import models

# Ordered: the first kind whose pattern matches the lower-cased baseline text wins.
RULES: list[tuple[str, str]] = [
    # the same system measured in another setting (higher precision, smaller batch, one environment)
    ("same system, other setting", r"unquantized|full.precision|\bfp32\b|data-parallel|small-batch|non-paged"
                                   r"|single environment|baseline configurations|no llc"),
    # an unoptimised or textbook version of the same computation
    ("naive implementation", r"naive|vanilla|\bstandard\b|un-?fused|human-written|unoptimi[sz]ed|baseline transformer"
                             r"|cpu-centric|publicly available code|conventional"),
    # the baseline runs on other hardware: a CPU, or another GPU or system named as the comparison
    ("CPU or other hardware", r"\bcpu\b|scipy|numpy|mpmath|^gpu$|current gpus|data-center gpu|nvidia a100"
                              r"|dgx [ah]100|fpga baseline|pcie a100"),
    # a library shipped by the hardware vendor or the platform
    ("vendor library", r"\bcub\b|cublas|cutlass|cudnn|cusparse|curand|tensorrt|\bipex\b|intel extension"
                       r"|faster ?transformer|torch\.matmul|transformer engine|mpi implementation"
                       r"|traditional gpu libraries"),
    # eager framework code
    ("framework (PyTorch)", r"pytorch"),
    # the best published kernel or system the authors compare with
    ("previous paper or system", r"flashattention|xformers|triton|marlin|ladder|quantllm|magicube|dasp|\bflat\b"
                                 r"|cuda implementation|megatron|zero\+\+|zero-infinity|vllm|state.of.(the.)?art"
                                 r"|\bsota\b|prior|existing|previous|strongest|optimi[sz]ed baselines"
                                 r"|relevant benchmark|current designs|current tree-search|speculative inference"
                                 r"|hybrid moe|checkpointing|offloading|dataflow accelerators|sequential accelerators"
                                 r"|third-party libraries"),
]
KINDS: list[str] = [k for k, _ in RULES] + ["named model or method", "unstated"]


def classify(text: object) -> str:
    """The kind of baseline a claim's `baseline` text describes (one of KINDS).

    Empty text is 'unstated'; text that matches no rule names a specific model or method
    (MobileNetV2, Stable Diffusion) and is 'named model or method'.
    """
    if text is None or (isinstance(text, float) and math.isnan(text)) or not str(text).strip():
        return "unstated"
    t = str(text).strip().lower()
    for kind, pattern in RULES:
        if re.search(pattern, t):
            return kind
    return "named model or method"


def speedup_factor(value: float, unit: str) -> float:
    """A speedup as a factor: 'x' values as they are, '%' values as 1 + p/100 (64% faster = 1.64x)."""
    models.require_non_negative(value=value)
    if unit == "x":
        f = float(value)
    elif unit == "%":
        f = 1.0 + float(value) / 100.0
    else:
        raise models.ModelError(f"a speedup's unit must be 'x' or '%', got {unit!r}")
    if not f > 0:
        raise models.ModelError(f"a speedup factor must be positive, got {f!r}")
    return f
