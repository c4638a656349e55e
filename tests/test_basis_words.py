"""Issue 32, class (e), where it can be mechanical: one fact, described on two pages, on one basis.

A fact glued under one key (outputs/numbers.csv) and pasted by sentences on two or more pages must not be
described with two different number formats: one sentence calling it a BF16 figure and another an FP16 one
is the contradiction a reader meets when the same run is quoted twice. Sentences that name no format, or
several (a comparison across formats), say nothing about the basis and pass.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pandas as pd
import pytest
from prose import glued_sentences

from analysis.data.paths import STAGE

FORMATS = {
    "FP64": r"\bFP64\b", "FP32": r"\bFP32\b", "TF32": r"\bTF32\b", "BF16": r"\b(?:BF16|bfloat16)\b",
    "FP16": r"\bFP16\b", "FP8": r"\bFP8\b", "INT8": r"\bINT8\b", "INT4": r"\bINT4\b", "FP4": r"\bFP4\b",
}


def formats_named(sentence: str) -> frozenset[str]:
    return frozenset(f for f, pat in FORMATS.items() if re.search(pat, sentence, re.I))


def test_formats_are_read_from_a_sentence():
    assert formats_named("52.4% of the A100's FP16 peak") == {"FP16"}
    assert formats_named("bfloat16 against FP8") == {"BF16", "FP8"}
    assert formats_named("a speedup of 2x") == frozenset()


def conflicts(uses: dict[str, list[tuple[str, frozenset[str], str]]]) -> list[str]:
    """Keys described on two or more pages by sentences that each name one format, not all the same."""
    bad = []
    for key, found in uses.items():
        single = {(page, next(iter(f)), s[:160]) for page, f, s in found if len(f) == 1}
        if len({page for page, _, _ in single}) > 1 and len({f for _, f, _ in single}) > 1:
            bad.append(f"{key}: " + " | ".join(f"{p} says {f}: {s}" for p, f, s in sorted(single)))
    return bad


def test_a_fact_called_bf16_on_one_page_and_fp16_on_another_is_found():
    one = "Megatron kept 52.4% of the A100's BF16 peak"
    two = "Megatron kept 52.4% of the A100's FP16 peak"
    uses = {"narayanan2021efficient|mfu": [("chapters/a.md", formats_named(one), one),
                                             ("chapters/b.md", formats_named(two), two)]}
    assert conflicts(uses)
    same = {"k": [("chapters/a.md", formats_named(two), two), ("chapters/b.md", formats_named(two), two)]}
    assert not conflicts(same)


def test_one_fact_is_described_with_one_number_format_on_every_page():
    numbers = STAGE / "outputs" / "numbers.csv"
    if not numbers.exists():
        pytest.fail("no outputs/numbers.csv: run make book")
    df = pd.read_csv(numbers, keep_default_na=False)
    key_of = {(nb, name): key for nb, name, key in zip(df["notebook"], df["glue_name"], df["key"], strict=True) if key}
    uses: dict[str, list[tuple[str, frozenset[str], str]]] = defaultdict(list)
    for page, sentence, refs in glued_sentences():
        for ref in refs:
            if ref in key_of:
                uses[key_of[ref]].append((page, formats_named(sentence), sentence))
    bad = conflicts(uses)
    assert not bad, "one fact described with different number formats:\n" + "\n".join(bad)
