"""The one rule for text in data/ and in parameters: no control or invisible characters.

Kept apart from :mod:`analysis.data.tables` (which needs pandas and pandera) so that the notebook runner
and the command line can apply it without importing either.
"""

from __future__ import annotations

import re

# Characters no text in data/ may hold: C0 controls (tab and newline included: every field is
# one line), DEL, C1 controls, zero-width and direction-changing characters, the byte-order mark.
FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def forbidden_char(text: str) -> str:
    """'' if `text` is clean, else a description of its first forbidden character."""
    m = FORBIDDEN.search(text)
    if not m:
        return ""
    return (f"control or invisible character U+{ord(m.group()):04X} at character {m.start() + 1}: "
            "remove it (text fields are one line of visible characters)")


# A title becomes a heading or a link text, and Sphinx's search page shows indexed headings through
# innerHTML: angle brackets are refused in titles (issue 38), whatever later escaping does.
ANGLE = re.compile(r"[<>]")
ANGLE_REASON = "'<' or '>' in a title (titles become headings and search results; write 'under', 'over')"


# ---------------------------------------------------------------- words, as the copy check counts them

WORD = re.compile(r"[a-z0-9]+")
"""A word for the project's copy check (../shared/tools/verbatim_check.py, third-party and read-only: its
``words``): a run of ASCII letters and digits after lower-casing. "6.4x" is two words ("6", "4x") and
"state-of-the-art" four. The claim extractor cuts its evidence snippets by this rule, and `make accept`
runs the same check, so a proposed snippet passes the copy check by construction."""


def words(text: str) -> list[str]:
    """The copy check's words of `text` (see :data:`WORD`)."""
    return WORD.findall(text.lower())


def shared_grams(abstracts: list[str], max_words: int) -> set[tuple[str, ...]]:
    """Every run of `max_words` + 1 words of the abstracts: a text sharing one of them copies too much."""
    n = max_words + 1
    grams: set[tuple[str, ...]] = set()
    for abstract in abstracts:
        w = words(abstract)
        grams.update(tuple(w[i:i + n]) for i in range(len(w) - n + 1))
    return grams


def copied_runs(text: str, grams: set[tuple[str, ...]], max_words: int) -> list[str]:
    """The runs of more than `max_words` words of `text` that an abstract holds (the copy check's rule)."""
    n = max_words + 1
    toks = words(text)
    out, i = [], 0
    while i <= len(toks) - n:
        if tuple(toks[i:i + n]) in grams:
            j = i + n
            while j < len(toks) and tuple(toks[j - n + 1:j + 1]) in grams:
                j += 1
            out.append(" ".join(toks[i:j]))
            i = j
        else:
            i += 1
    return out
