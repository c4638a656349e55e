"""Issue 32, class (c): an extreme the prose states is the extreme of a table, computed, not a row picked by hand.

A sentence of a chapter (or the landing page) that calls a pasted number the lowest, highest, largest,
smallest, fastest, slowest or cheapest, or says values range or run from one number to another, must
paste at least one value glued by :func:`analysis.book.facts.glue_extreme` (``extreme`` in
outputs/numbers.csv). A sentence whose superlative is about something other than its glued numbers
(a typed figure from a paper, a word such as "the largest runs") is listed in
tests/superlatives-allowed.csv with the reason.
"""

from __future__ import annotations

import csv
import re

import pandas as pd
import pytest
from conftest import ROOT
from prose import GLUE, glued_sentences, sentences

from analysis.data.paths import STAGE

SUPERLATIVE = re.compile(r"\b(lowest|highest|largest|smallest|fastest|slowest|cheapest|"
                         r"ranges? from|runs? from|running from)\b", re.I)
ALLOWED = ROOT / "tests" / "superlatives-allowed.csv"


def superlative_sentences() -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [(rel, s, refs) for rel, s, refs in glued_sentences() if SUPERLATIVE.search(s)]


def _allowed() -> list[dict[str, str]]:
    with ALLOWED.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_the_sentence_splitter_keeps_a_superlative_with_its_numbers():
    text = "Among themes the median is\nlowest in {glue:text}`../notebooks/a.ipynb::lo` here. Next one."
    ((rel, s, refs),) = [(r, s, g) for r, s, g in [("x", t, GLUE.findall(t)) for t in sentences(text)]
                         if g and SUPERLATIVE.search(s)]
    assert refs == [("a", "lo")]


def test_every_allowance_names_a_sentence_that_exists_and_says_why():
    found = superlative_sentences()
    for row in _allowed():
        assert row["reason"].strip(), row
        hits = [s for rel, s, _ in found if rel == row["page"] and row["phrase"] in s]
        assert len(hits) == 1, f"{row['page']}: phrase {row['phrase']!r} matches {len(hits)} superlative sentences"


def test_a_superlative_pastes_a_computed_extreme():
    numbers = STAGE / "outputs" / "numbers.csv"
    if not numbers.exists():
        pytest.fail("no outputs/numbers.csv: run make book")
    df = pd.read_csv(numbers, keep_default_na=False)
    extremes = {(nb, name) for nb, name, x in zip(df["notebook"], df["glue_name"], df["extreme"], strict=True) if x}
    allowed = _allowed()
    bad = []
    for rel, s, refs in superlative_sentences():
        if any((nb, name) in extremes for nb, name in refs):
            continue
        if any(a["page"] == rel and a["phrase"] in s for a in allowed):
            continue
        bad.append(f"{rel}: {SUPERLATIVE.search(s).group(0)!r} in: {s[:200]}")  # type: ignore[union-attr]
    assert not bad, "superlatives that paste no computed extreme (glue_extreme) nor are allowed:\n" + "\n".join(bad)
