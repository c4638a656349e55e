"""What a reported speedup is measured against: one source of truth for the whole book.

A comparison claim of data/claims.csv is coded by chapters/codebook.md: its `baseline_class` column holds
one of :data:`KINDS` (the codebook's vocabulary), decided from the abstract. :func:`baseline_class` and
:func:`baseline_classes` return that coded class, and the chapters read a claim's kind through them, so a
claim has the same kind everywhere in the book.

:func:`classify` is the fallback for a row without a coded class (a candidate of `make corpus` before
review): an ordered list of keyword rules over the free-text `baseline` column (first match wins), which
suggests a class in the same vocabulary. It is a suggestion, not a coding: where the two disagree, the
coded class is the one the book uses. :data:`LEGACY` maps the names the classifier used before the
codebook to the codebook's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import pandas as pd

from analysis import models
from analysis.data.claims import BASELINE_CLASSES

# Ordered as the codebook decides (the first kind whose pattern matches the lower-cased baseline text wins),
# except that the same system's other setting is tried first: its words ('FP32', 'unquantized') would
# otherwise read as a naive version.
RULES: list[tuple[str, str]] = [
    # the same system measured in another setting (higher precision, smaller batch, one environment)
    ("same system, other setting", r"unquantized|full.precision|\bfp32\b|data-parallel|small-batch|non-paged"
                                   r"|single environment|baseline configurations|no llc|uncompressed|full kv"),
    # the baseline runs on other hardware: a CPU, or another GPU or system named as the comparison
    ("different hardware", r"\bcpu\b|cpu-only|^gpus?$|current gpus|data-center gpu|nvidia a100|nvidia v100"
                           r"|dgx [ah]100|pcie a100|on h100"),
    # an unoptimised or textbook version of the same computation
    ("naive code", r"naive|vanilla|\bstandard\b|un-?fused|human-written|unoptimi[sz]ed"
                   r"|publicly available code|conventional"),
    # a library shipped by the hardware vendor
    ("vendor library", r"\bcub\b|cublas|cutlass|cudnn|cusparse|curand|tensorrt|onednn"
                       r"|faster ?transformer|transformer engine|mpi implementation"),
    # a general-purpose framework or numerical library running its own operators (with or without the
    # vendor's extension for it)
    ("framework", r"pytorch|torch\.matmul|\bipex\b|intel extension|tensorflow|\bjax\b|scipy|numpy|mpmath"
                  r"|third-party libraries"),
    # the best published kernel or system the authors compare with
    ("previous paper or system", r"flashattention|xformers|triton|marlin|ladder|quantllm|magicube|dasp|\bflat\b"
                                 r"|cuda implementation|megatron|zero\+\+|zero-infinity|vllm|state.of.(the.)?art"
                                 r"|\bsota\b|prior|existing|previous|strongest|optimi[sz]ed baselines"
                                 r"|relevant benchmark|current designs|current tree-search|speculative inference"
                                 r"|hybrid moe|checkpointing|offloading|dataflow accelerators|sequential accelerators"),
]
KINDS: list[str] = list(BASELINE_CLASSES)  # the codebook's order (chapters/codebook.md)
# the classifier's names before the codebook, and the codebook's name for each
LEGACY: dict[str, str] = {"naive implementation": "naive code", "CPU or other hardware": "different hardware",
                          "framework (PyTorch)": "framework"}


def canonical(kind: str) -> str:
    """A kind in the codebook's vocabulary: an old classifier name mapped by :data:`LEGACY`, else unchanged.

    Raises ValueError for a name that is in neither vocabulary.
    """
    k = LEGACY.get(kind, kind)
    if k not in KINDS:
        raise ValueError(f"unknown baseline kind {kind!r}; the codebook's kinds are {KINDS}")
    return k


def _empty(v: object) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or not str(v).strip()


def baseline_class(row: Mapping[str, object]) -> str:
    """A claim's baseline kind: its coded `baseline_class` (chapters/codebook.md) where the row has one,
    else the keyword classifier's suggestion from its `baseline` text (a row not yet coded)."""
    coded = row.get("baseline_class")
    if not _empty(coded):
        return canonical(str(coded))
    return classify(row.get("baseline"))


def baseline_classes(claims: pd.DataFrame) -> pd.Series:
    """:func:`baseline_class` of every row of `claims` (a frame with data/claims.csv's columns), on its index."""
    coded = claims["baseline_class"] if "baseline_class" in claims.columns else pd.Series(None, index=claims.index)
    return pd.Series([canonical(str(c)) if not _empty(c) else classify(b)
                      for c, b in zip(coded, claims["baseline"], strict=True)], index=claims.index, dtype=object)


def suggestion_disagreements(claims: pd.DataFrame) -> pd.DataFrame:
    """Coded rows whose keyword suggestion differs from the coded class: claim_id, baseline, coded, suggested."""
    coded = claims[claims["baseline_class"].notna()] if "baseline_class" in claims.columns else claims.iloc[:0]
    out = pd.DataFrame({"claim_id": coded["claim_id"], "baseline": coded["baseline"],
                        "coded": coded["baseline_class"], "suggested": [classify(b) for b in coded["baseline"]]})
    return out[out["coded"] != out["suggested"]].reset_index(drop=True)


def classify(text: object) -> str:
    """The keyword classifier's suggested kind (one of KINDS) for a `baseline` text.

    Empty text is 'unstated'; text that matches no rule names a specific model or method
    (MobileNetV2, Stable Diffusion) and is 'named model or method'. The book uses a claim's coded
    `baseline_class` (:func:`baseline_class`); this is for rows without one.
    """
    if _empty(text):
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
