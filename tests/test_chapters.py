"""The chapter standard (../shared/docs/chapter-standard.md), checked on the chapter sources."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from analysis.data import papers

CHAPTERS = ROOT / "chapters"
NOTEBOOKS = ROOT / "analysis" / "notebooks"
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
FIGURE = re.compile(r"```\{figure\}\s+\.\./figures/([a-z0-9-]+)\.svg\s*\n:name:\s*(fig-[a-z0-9-]+)")
MARKETING = ["remarkable", "groundbreaking", "revolutionary", "unprecedented", "game-changing", "cutting-edge",
             "astonishing", "stunning", "incredible"]
THEMES = list(papers.themes()["id"])


def cited(text: str) -> set[str]:
    return {k.strip() for group in CITE.findall(text) for k in group.split(",")}


def prose_words(text: str) -> int:
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\{[a-z:]+\}`[^`]*`", " x ", text)
    return len(re.findall(r"[A-Za-z][A-Za-z'-]*", text))


def _text(chapter: str) -> str:
    return (CHAPTERS / f"{chapter}.md").read_text(encoding="utf-8")


def _new_section_cites(theme: str) -> set[str]:
    """The papers the generated "New in this version, not yet synthesised" part of a chapter cites."""
    from analysis.themes import paper_table

    return cited("\n".join(paper_table.new_papers_section(theme)))


def test_every_paper_is_cited_in_some_chapter_prose_or_listed_as_new():
    """Issue 35: a paper is either synthesised (cited in some chapter's prose) or new in this version and
    cited by its chapter's generated section; the two are told apart, never both."""
    all_cited = set().union(*(cited(p.read_text(encoding="utf-8")) for p in CHAPTERS.glob("*.md")))
    new = set().union(*(_new_section_cites(t) for t in THEMES))
    assert not new & cited(_text("serving")) & set(papers.load().query("theme == 'serving'")["citekey"])
    missing = sorted(set(papers.load()["citekey"]) - all_cited - new)
    assert not missing, f"{len(missing)} papers are cited in no chapter: {missing[:20]}"


def test_citations_resolve():
    from analysis.data import outside

    # a corpus paper, or a work outside the corpus cited as context (data/outside-corpus.csv)
    keys = set(papers.load()["citekey"]) | set(outside.load()["citekey"])
    for p in CHAPTERS.glob("*.md"):
        unknown = cited(p.read_text(encoding="utf-8")) - keys
        assert not unknown, f"{p.name}: unknown citekeys {unknown}"


@pytest.mark.parametrize("theme", THEMES)
def test_chapter_cites_every_paper_of_its_theme(theme: str):
    df = papers.load()
    own = set(df.loc[df["theme"] == theme, "citekey"])
    missing = own - cited(_text(theme))
    # the papers the prose does not discuss yet are exactly those of the generated section (issue 35)
    assert _new_section_cites(theme) == missing, f"chapters/{theme}.md: not yet synthesised {sorted(missing)}"


def test_the_new_section_lists_a_paper_until_the_prose_cites_it(tmp_path):
    """The generated section's rule on a chapter written for the test: cited in prose means synthesised."""
    from analysis.data.intake import unsynthesised

    (tmp_path / "serving.md").write_text("Prose on {cite:t}`a2024x` and {cite:p}`b2025y,c2025z`.\n"
                                         "```{include} ../outputs/papers-serving.md\n```\n", encoding="utf-8")
    assert unsynthesised("serving", ["a2024x", "d2026new", "c2025z", "e2026new"], tmp_path) == ["d2026new",
                                                                                               "e2026new"]


@pytest.mark.parametrize("theme", THEMES)
def test_chapter_shape(theme: str):
    text = _text(theme)
    n_papers = int((papers.load()["theme"] == theme).sum())
    words = prose_words(text)
    # "computing beyond ML" is a short, honest chapter by design (issue: not a review theme)
    large = n_papers >= 15 and theme != "beyond-ml"
    assert words >= (1500 if large else 800), f"{theme}: {words} words"
    assert re.search(r"\{admonition\}\s*Key findings", text), f"{theme}: no Key findings box"
    assert "{include} ../outputs/papers-" in text, f"{theme}: no paper table"
    assert re.search(r"^#+ .*(Open problems|open problems)", text, flags=re.M), f"{theme}: no open-problems section"
    lowered = text.lower()
    assert not [w for w in MARKETING if re.search(rf"\b{w}\b", lowered)], f"{theme}: marketing adjectives"


@pytest.mark.parametrize("theme", [t for t in THEMES if t != "beyond-ml"])
def test_chapter_has_two_analyses_with_referenced_figures(theme: str):
    text = _text(theme)
    notebooks = sorted(NOTEBOOKS.glob(f"{theme}-*.md"))
    assert len(notebooks) >= 2, f"{theme}: {len(notebooks)} analysis notebook(s)"
    figs = FIGURE.findall(text)
    assert len(figs) >= 2, f"{theme}: {len(figs)} figure(s)"
    for fig_id, name in figs:
        assert name == f"fig-{fig_id}"
        assert f"{{numref}}`{name}`" in text, f"{theme}: figure {name} is never referred to"


def test_glue_references_name_a_format():
    bad = []
    for p in CHAPTERS.glob("*.md"):
        for m in re.finditer(r"\{glue:text\}`([^`]+)`", p.read_text(encoding="utf-8")):
            ref = m.group(1)
            if "::" in ref and ":" not in ref.split("::", 1)[1]:
                bad.append(f"{p.name}: {ref}")
    assert not bad, f"cross-page glue needs a format spec (path::key:fmt): {bad}"


def test_synthesis_and_audit_chapters_exist():
    for name in ("synthesis", "claims", "methods", "corpus"):
        assert prose_words(_text(name)) >= 400, name


ENERGY_FIGURE = re.compile(r"(\{glue:text\}`[^`]*`|\d[\d,.]*)\s*(MWh|GWh|kWh|tCO2e|kgCO2e)\b")
BOUNDARY = re.compile(r"facility|accelerator|server|meter|boundar", re.I)


def _sentences(text: str) -> list[str]:
    out = []
    for para in re.split(r"\n\s*\n", text):
        flat = " ".join(para.split())
        out += re.split(r"(?<=[.!?])\s+(?=[A-Z{(*])", flat)
    return out


def test_energy_and_carbon_figures_name_their_boundary():
    """Issue 17: a sentence that gives an energy or carbon figure says where it is measured
    (at the accelerator, the server, the facility meter)."""
    bad = [f"{p.name}: {s[:160]}" for p in sorted(CHAPTERS.glob("*.md")) if p.name != "bibliography.md"
           for s in _sentences(p.read_text(encoding="utf-8"))
           if ENERGY_FIGURE.search(s) and not BOUNDARY.search(s)]
    assert not bad, "energy or carbon figures without a boundary:\n" + "\n".join(bad)


def test_boundary_check_catches_a_bare_figure():
    s = "The run used {glue:text}`../notebooks/x.ipynb::e:.0f` MWh in all."
    assert ENERGY_FIGURE.search(s) and not BOUNDARY.search(s)


GRADES = ("consistent across papers", "several papers, mixed bases", "one paper", "model output")
"""The evidence vocabulary of chapters/methods.md, "How findings are graded" (issue 31)."""


def test_landing_page_opens_with_its_findings_and_grades_each_one():
    """The landing page's first paragraph (at most 150 words, each pasted number counted as one) states the
    findings; every finding under "What the book finds" carries a grade in the Methods vocabulary."""
    text = (ROOT / "intro.md").read_text(encoding="utf-8")
    body = text.split("\n", 1)[1].lstrip("\n")
    first = body.split("\n\n", 1)[0]
    assert 60 <= prose_words(first) <= 150, prose_words(first)
    methods = (CHAPTERS / "methods.md").read_text(encoding="utf-8").lower()
    assert all(f"**{g}:**" in methods for g in GRADES), "the Methods page defines the vocabulary"
    findings = text.split("## What the book finds", 1)[1].split("\n## ", 1)[0]
    items = re.split(r"\n- \*\*", findings)[1:]
    assert len(items) >= 10
    for item in items:
        name = item.split("**", 1)[0]
        grade = re.search(r"\*Evidence: ([^*]+)\*", item)
        assert grade, f"finding {name!r} has no grade"
        assert any(g in grade.group(1).lower() for g in GRADES), f"finding {name!r}: {grade.group(1)!r}"
