"""Issue 19: a number typed in a sentence about one paper comes from that paper (or is glued)."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT

from analysis.book import prose_guard

CHAPTERS = sorted(p for p in (ROOT / "chapters").glob("*.md") if p.name != "bibliography.md")


def test_guard_catches_a_typed_number_the_paper_does_not_hold(tmp_path: Path):
    known = {"a2024x": {740.0, 75.0}}
    page = tmp_path / "c.md"
    page.write_text("X reaches 740 TFLOP/s, 75% of the peak of 989.4 TFLOP/s on an RTX 4090 in 2024 "
                    "{cite:p}`a2024x`.\n\n"
                    "Y is {glue:text}`../notebooks/n.ipynb::v:.1f`× faster {cite:p}`a2024x`.\n\n"
                    "Two papers report 3 and 4 {cite:p}`a2024x,b2023y`.\n")
    hits = prose_guard.hits([page], known)
    assert [h.number for h in hits] == ["989.4"]  # not 740/75 (the paper's), 4090 (a name), 2024 (a year)


def test_no_typed_number_outside_its_paper():
    hits = prose_guard.hits(CHAPTERS)
    assert not hits, f"{len(hits)} typed numbers not in the cited paper's abstract or claims (glue them):\n" + \
        "\n".join(str(h) for h in hits)
