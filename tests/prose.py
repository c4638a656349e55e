"""The book's prose as sentences, and the glued numbers each sentence pastes (for the tests of issue 32)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

GLUE = re.compile(r"\{glue(?::\w+)?\}`(?:\.\./)?notebooks/([A-Za-z0-9_.-]+)\.ipynb::([A-Za-z0-9_-]+)")


def pages() -> list[Path]:
    """The chapters and the landing page."""
    return sorted((ROOT / "chapters").glob("*.md")) + [ROOT / "intro.md"]


def sentences(text: str) -> list[str]:
    """Prose sentences, joined across line breaks; fenced blocks (code, figures, includes) dropped."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = " ".join(text.split())
    return re.split(r"(?<=[.!?])\s+(?=[A-Z*({])", text)


def glued_sentences() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(page, sentence, [(notebook, glue name), ...]) for every sentence that pastes a glued value."""
    out = []
    for page in pages():
        rel = page.relative_to(ROOT).as_posix()
        for s in sentences(page.read_text(encoding="utf-8")):
            refs = GLUE.findall(s)
            if refs:
                out.append((rel, s, refs))
    return out
