"""The coverage-gaps table: landmark works outside the corpus, grouped by theme (for the corpus page).

The works come from data/outside-corpus.csv (analysis.data.outside). They are context, not
reviewed papers: this table is the only place they are listed, apart from the bibliography.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.data import outside, papers
from analysis.data.markup import md_text


def _link(row: pd.Series) -> str:
    """The identifier as a link: the arXiv ID (and the DOI when the published version is cited), else "DOI",
    else the venue's page."""
    url = str(row["url"])
    if pd.notna(row["arxiv_id"]):
        doi = (f" · [DOI](https://doi.org/{row['doi']})"
               if row["cited_version"] == "published" and pd.notna(row["doi"]) else "")
        return f"[arXiv:{md_text(row['arxiv_id'])}]({url}){doi}"
    if pd.notna(row["doi"]):
        return f"[DOI]({url})"
    return f"[{md_text(row['venue'])}]({url})"


def gaps_markdown(heading_level: int = 3, cite: bool = False) -> str:
    """The gaps table as MyST markdown: one heading per theme (book order), then a table of its works
    (work, authors, year of the version cited, identifier link, the concept a chapter would cite it for).

    With `cite`, the authors cell is a ``{cite:t}`` reference to the work's entry in references.bib
    instead of plain text (the bibliography then links back to the page that includes the table).
    """
    df = outside.load()
    lines: list[str] = []
    for _, theme in papers.themes().iterrows():
        works = df[df["theme"] == theme["id"]].sort_values(["cited_year", "citekey"])
        lines += [f"{'#' * heading_level} {md_text(theme['title'])}", ""]
        if works.empty:
            lines += ["No gap recorded for this theme.", ""]
            continue
        lines += ["| work | authors | year | identifier | what a chapter would cite it for |",
                  "|---|---|---|---|---|"]
        for _, r in works.iterrows():
            who = f"{{cite:t}}`{r['citekey']}`" if cite else md_text(outside.short_authors(r["authors"]))
            if not cite and not r["authors_complete"]:
                who += " (list incomplete)"
            lines.append(f"| {md_text(r['title'])} | {who} | {int(r['cited_year'])} | {_link(r)} | "
                         f"{md_text(r['concept'])} |")
        lines.append("")
    return "\n".join(lines)


def counts_by_theme() -> pd.Series:
    """Number of outside-corpus works per theme id, in book order (0 where none)."""
    ids = list(papers.themes()["id"])
    return outside.load()["theme"].value_counts().reindex(ids, fill_value=0)


def write(path: Path, heading_level: int = 3, cite: bool = False) -> None:
    """Write the gaps table to `path` (only if its content changed)."""
    text = gaps_markdown(heading_level, cite)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
