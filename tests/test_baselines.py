"""The shared baseline classifier and speedup factors (used by the kernels chapter and the synthesis)."""

from __future__ import annotations

import math

import pytest

from analysis.models import baselines as b


@pytest.mark.parametrize(
    "text, kind",
    [
        ("cuBLAS", "vendor library"),
        ("CUTLASS", "vendor library"),
        ("CUB", "vendor library"),
        ("system MPI implementation", "vendor library"),
        ("torch.matmul", "vendor library"),
        ("CUDA PyTorch", "framework (PyTorch)"),
        ("vanilla PyTorch", "naive implementation"),  # 'vanilla' wins over 'pytorch' (rule order)
        ("un-fused implementation", "naive implementation"),
        ("standard attention implementation", "naive implementation"),
        ("general human-written code", "naive implementation"),
        ("FlashAttention-2", "previous paper or system"),
        ("Marlin", "previous paper or system"),
        ("state-of-the-art serving systems", "previous paper or system"),
        ("prior GPU state of the art", "previous paper or system"),
        ("strongest baselines", "previous paper or system"),
        ("third-party libraries", "previous paper or system"),
        ("SciPy", "CPU or other hardware"),
        ("a multi-core CPU", "CPU or other hardware"),
        ("DGX H100", "CPU or other hardware"),
        ("GPU", "CPU or other hardware"),
        ("vLLM without MARLIN (unquantized)", "same system, other setting"),
        ("MobileNetV2", "named model or method"),
        ("", "unstated"),
        ("  ", "unstated"),
        (None, "unstated"),
        (math.nan, "unstated"),
    ],
)
def test_classify(text, kind):
    assert b.classify(text) == kind


def test_every_rule_kind_is_a_known_kind():
    assert {k for k, _ in b.RULES} <= set(b.KINDS)
    assert len(set(b.KINDS)) == len(b.KINDS)


def test_speedup_factor():
    # "64% faster" (peng2023fp8lm) is 1.64x; "+19.2%" is 1.192x; a factor stays as it is.
    assert b.speedup_factor(64, "%") == pytest.approx(1.64)
    assert b.speedup_factor(19.2, "%") == pytest.approx(1.192)
    assert b.speedup_factor(2.84, "x") == 2.84
    with pytest.raises(ValueError):
        b.speedup_factor(2, "GB")
    with pytest.raises(ValueError):
        b.speedup_factor(-1, "x")
