"""A claim's baseline kind (the coded class, the keyword classifier for rows without one) and speedup factors."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.data import claims
from analysis.models import baselines as b


@pytest.mark.parametrize(
    "text, kind",
    [
        ("cuBLAS", "vendor library"),
        ("CUTLASS", "vendor library"),
        ("CUB", "vendor library"),
        ("system MPI implementation", "vendor library"),
        ("Faster Transformer v4.0", "vendor library"),
        # the codebook's class 5: a framework running its own operators, with or without the vendor's extension
        ("torch.matmul", "framework"),
        ("IPEX (Intel Extension for PyTorch)", "framework"),
        ("CUDA PyTorch", "framework"),
        ("SciPy", "framework"),
        ("third-party libraries", "framework"),
        ("vanilla PyTorch", "naive code"),  # 'vanilla' wins over 'pytorch' (rule order)
        ("un-fused implementation", "naive code"),
        ("standard attention implementation", "naive code"),
        ("general human-written code", "naive code"),
        ("FlashAttention-2", "previous paper or system"),
        ("Marlin", "previous paper or system"),
        ("state-of-the-art serving systems", "previous paper or system"),
        ("prior GPU state of the art", "previous paper or system"),
        ("strongest baselines", "previous paper or system"),
        ("a multi-core CPU", "different hardware"),
        ("DGX H100", "different hardware"),
        ("GPU", "different hardware"),
        ("CUDA PyTorch on H100", "different hardware"),  # class 1 wins: the other side is another GPU
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
    assert b.KINDS == claims.BASELINE_CLASSES  # the codebook's vocabulary, in its order


def test_old_names_map_to_the_codebook():
    assert b.canonical("naive implementation") == "naive code"
    assert b.canonical("CPU or other hardware") == "different hardware"
    assert b.canonical("framework (PyTorch)") == "framework"
    assert b.canonical("vendor library") == "vendor library"
    assert set(b.LEGACY.values()) <= set(b.KINDS)
    with pytest.raises(ValueError, match="unknown baseline kind"):
        b.canonical("a hunch")


def test_the_coded_class_wins_over_the_keyword_suggestion():
    # PyTorch-Direct: the baseline is PyTorch's own CPU-centric data loading on the same machine (a framework,
    # by the codebook), which the keywords read as a CPU
    row = {"baseline": "CPU-centric PyTorch", "baseline_class": "framework"}
    assert b.classify(row["baseline"]) == "different hardware"
    assert b.baseline_class(row) == "framework"
    # a row without a coded class (a candidate of make corpus) gets the suggestion
    assert b.baseline_class({"baseline": "cuBLAS", "baseline_class": math.nan}) == "vendor library"
    assert b.baseline_class({"baseline": "cuBLAS"}) == "vendor library"
    frame = pd.DataFrame({"claim_id": ["a-1", "a-2", "a-3"], "baseline": ["CPU-centric PyTorch", "cuBLAS", None],
                          "baseline_class": ["framework", None, "naive implementation"]}, index=[5, 7, 9])
    assert b.baseline_classes(frame).to_dict() == {5: "framework", 7: "vendor library", 9: "naive code"}
    assert b.suggestion_disagreements(frame)["claim_id"].tolist() == ["a-1", "a-3"]


def test_the_ledger_is_read_through_its_coded_classes():
    d = claims.load()
    comp = d[claims.comparison_mask(d)]
    assert (b.baseline_classes(comp) == comp["baseline_class"]).all()
    # FlashAttention-3 against FlashAttention-2 (the abstract's own comparison)
    fa3 = comp[comp["claim_id"] == "shah2024flashattention3-2"].iloc[0]
    assert b.baseline_class(fa3.to_dict()) == "previous paper or system"


def test_speedup_factor():
    # "64% faster" (peng2023fp8lm) is 1.64x; "+19.2%" is 1.192x; a factor stays as it is.
    assert b.speedup_factor(64, "%") == pytest.approx(1.64)
    assert b.speedup_factor(19.2, "%") == pytest.approx(1.192)
    assert b.speedup_factor(2.84, "x") == 2.84
    with pytest.raises(ValueError):
        b.speedup_factor(2, "GB")
    with pytest.raises(ValueError):
        b.speedup_factor(-1, "x")
