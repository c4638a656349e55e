"""Every work the prose names by author and year is a citation (issue 36).

A reader who meets "Patterson et al. (2021)" in plain text has no link to the work and no entry to
check it against; the bibliography page never lists it as cited. So an author-year mention ("X et al.
2021", "X et al. (2021, Table 4)", "X and Y (2020)") in the prose of the chapters, the landing page or
a notebook's Markdown is an error: it should be a ``{cite}`` role, which renders the same label and
links it. Mentions are found with the citation roles, inline code, fenced blocks of notebooks and
quoted label examples ("Zhong et al. 2024" written as an example of a label) taken out.

A figure's source note (the ``source_note=`` of a notebook's figure call) is plain text by design: it
travels with the figure's files. There, an author-year mention must be one of the bibliography's
labels, so the reader finds the entry ("Liu et al. 2019" for a work the bibliography labels
"Liu et al. 2018" is an error).
"""

from __future__ import annotations

import re
from pathlib import Path

import pybtex.database
import pytest
from conftest import ROOT

from analysis.book import bibliography

SURNAME = r"(?:(?:van|von|de|der|den|du|di|da|dos|le|la)\s+)?[A-Z][\w'’-]*\w"
YEAR = r"(?:19|20)\d\d[a-z]?"
# "X et al. 2021", "X et al. (2021", "X et al., 2021"; "X and Y (2020)", "X & Y 2020"
MENTION = re.compile(
    rf"(?<![\w`])(?P<who>{SURNAME}(?:\s+et\s+al\.?|\s+(?:and|&)\s+{SURNAME}))\s*,?\s*\(?\s*(?P<year>{YEAR})\b")
QUOTED = re.compile(r'"[^"\n]{0,80}"|“[^”\n]{0,80}”')
INLINE = re.compile(r"\{[\w:-]+\}`[^`]*`|``[^`]*``|`[^`]*`")
NOT_NAMES = {"Table", "Section", "Figure", "Fig", "Appendix", "App", "Eq", "Sec", "In", "The", "And", "Between", "From",
             "Since", "Until", "Before", "After", "By", "Of", "To", "For", "With", "On", "At", "Q1", "Q2", "Q3", "Q4",
             "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December"}


def mentions(text: str) -> list[str]:
    """The author-year mentions of a Markdown text that are not citations."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"```\{code-cell\}.*?```", " ", text, flags=re.S)
    text = re.sub(r"^\s*(```|~~~|:::).*$", " ", text, flags=re.M)  # fences of figures and admonitions: their text stays
    text = re.sub(r"^:[\w-]+:.*$", " ", text, flags=re.M)  # directive options
    text = INLINE.sub(" ", text)
    text = QUOTED.sub(" ", text)
    text = " ".join(text.split())
    out = []
    for m in MENTION.finditer(text):
        first = m.group("who").split()[0]
        names = re.findall(rf"{SURNAME}", m.group("who"))
        if first in NOT_NAMES or any(n in NOT_NAMES for n in names):
            continue
        out.append(f"{' '.join(m.group('who').split())} {m.group('year')}")
    return out


def prose_pages() -> list[Path]:
    return (sorted((ROOT / "chapters").glob("*.md")) + [ROOT / "intro.md"]
            + sorted((ROOT / "analysis" / "notebooks").glob("*.md")))


def test_mentions_are_found_and_citations_are_not():
    text = """Patterson et al. (2021, Table 4) report it; so did Strubell et al. 2019 and Kaplan and
    McCandlish (2020). {cite:t}`patterson2021carbon` is a citation; labels such as "Zhong et al. 2024" are
    examples. `Liu et al. 2019` is code, and so is Table 2020. Mildenhall et
    al. (2020) breaks a line.

    ```{code-cell} ipython3
    x = "Hoffmann et al. 2022"
    ```
    """
    assert mentions(text) == ["Patterson et al. 2021", "Strubell et al. 2019", "Kaplan and McCandlish 2020",
                              "Mildenhall et al. 2020"]


def test_every_author_year_mention_in_the_prose_is_a_citation():
    found = []
    for page in prose_pages():
        found += [f"{page.relative_to(ROOT)}: {m}" for m in mentions(page.read_text(encoding="utf-8"))]
    assert not found, "author-year mentions that are not {cite} roles:\n" + "\n".join(found)


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    from analysis.book.bibstyle import entry_label

    out = tmp_path_factory.mktemp("bib") / "references.bib"
    bibliography.write_bib(out)
    bib = pybtex.database.parse_file(str(out))
    return {str(entry_label(e)) for e in bib.entries.values()}


SOURCE_NOTE = re.compile(r"source_note\s*=\s*((?:\s*(?:f?\"[^\"\n]*\"|f?'[^'\n]*'))+)")


def test_figure_source_notes_use_the_bibliographys_labels(labels):
    wrong = []
    for nb in sorted((ROOT / "analysis" / "notebooks").glob("*.md")):
        for m in SOURCE_NOTE.finditer(nb.read_text(encoding="utf-8")):
            note = "".join(re.findall(r"f?[\"']([^\"'\n]*)[\"']", m.group(1)))
            for mention in mentions(note):
                if mention not in labels:
                    wrong.append(f"{nb.name}: {mention!r}")
    assert not wrong, "figure sources whose author-year is no bibliography label:\n" + "\n".join(wrong)
