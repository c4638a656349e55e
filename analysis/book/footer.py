"""The talk figure's attribution footer: one line below the drawing naming its sources (the papers' author-year
labels as the book prints them, the source note), the licence, the book's short URL ("local build" without a
configured BOOK_URL) and the figure id, so a pasted slide keeps its attribution.

It lives in the book layer because its words come from the bibliography (year suffixes over references.bib)
and the book's citation and URL (:mod:`analysis.book.publish`). The figure helper below the themes
(:mod:`analysis.plot.figures`) draws no footer itself: :mod:`analysis.book.figure_files` passes
:func:`add_footer` to it when it writes a talk version, and importing this module registers
:func:`add_footer` for a script that saves in the talk style directly (``ANALYSIS_STYLE=talk``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from analysis.book import publish
from analysis.data import papers
from analysis.plot import figures

FOOTER_GID = "figure-footer"
FOOTER_POINTS = 11


@lru_cache(maxsize=1)
def _paper_labels() -> dict[str, str]:
    """citekey -> the author-year label the book prints ("Dao et al. 2022", "Wu et al. 2023b")."""
    from analysis.book import sphinx_speedups
    from analysis.book.bibliography import all_suffixes, label_author

    sphinx_speedups.memoise_plugins()  # memoised pybtex plugin look-ups (a minute without)
    df = papers.load()
    # the suffixes of references.bib, assigned over all its entries (outside-corpus works included)
    suffix = all_suffixes()
    return {r["citekey"]: f"{label_author(papers.author_names(r), papers.short_name(r))} {r['year']}"
                          f"{suffix.get(r['citekey'], '')}" for _, r in df.iterrows()}


def _note_parts(note: str) -> list[str]:
    """A source note split at its top-level "; " (not inside parentheses)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(note):
        depth += (ch in "([") - (ch in ")]")
        if ch == ";" and depth == 0:
            parts.append(note[start:i].strip())
            start = i + 1
    parts.append(note[start:].strip())
    return [x for x in parts if x]


def _cut(text: str, length: int) -> str:
    """`text` cut at the last word boundary before `length` characters, with an ellipsis."""
    head = text[: length - 1]
    head = head.rsplit(" ", 1)[0] if " " in head else head
    return head.rstrip(" ,;(") + "…"


def _footer_candidates(labels: list[str], note: str, tail: str) -> Iterator[str]:
    """Footer texts from the fullest to the shortest: fewer papers named first, then fewer parts of
    the source note, then the first part cut short."""
    parts = _note_parts(" ".join(note.split()))
    notes = ["; ".join(parts[:k]) + (" …" if k < len(parts) else "") for k in range(len(parts), 0, -1)] or [""]
    notes += [_cut(notes[-1], cut) for cut in (70, 45) if len(notes[-1]) > cut]
    for short in notes:
        for shown in range(min(3, len(labels)), -1, -1):
            if shown == 0 and labels:
                papers = f"{len(labels)} papers" if len(labels) > 1 else "1 paper"
            else:
                rest = len(labels) - shown
                papers = ", ".join(labels[:shown]) + (f" + {rest} more" if rest else "")
            yield "Sources: " + "; ".join(x for x in (papers, short) if x) + tail


def add_footer(fig: Any, fig_id: str, sources: Sequence[str], source_note: str) -> tuple[str, dict[str, str]]:
    """Draw the talk footer at the bottom of the slide, below the drawing: one line, no wider than the slide.

    Returns the footer text and the attribution metadata (Rights, Source) for the files.
    """
    meta = publish.book_meta()
    known = _paper_labels()
    labels = [known.get(k, k) for k in sources]
    tail = f" · {meta['licence']} · {publish.short_url(meta['url'])} · Figure {fig_id}"
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    w_in, h_in = fig.get_size_inches()
    # in the strip the slide's layout keeps free at its bottom (figures.TALK_FOOTER_IN), one line across the slide
    text = fig.text(0.15 / w_in, 0.12 / h_in, "", ha="left", va="bottom", fontsize=FOOTER_POINTS,
                    color="#444444", gid=FOOTER_GID, parse_math=False)
    room = w_in - 0.3
    for candidate in _footer_candidates(labels, source_note, tail):
        text.set_text(candidate)
        if text.get_window_extent(renderer).width / fig.dpi <= room:
            break
    return text.get_text(), {"Rights": meta["licence"], "Source": meta["url"] or publish.LOCAL}


figures.use_footer(add_footer)
