"""Tables of papers for the book: the paper index and each chapter's paper table."""

from __future__ import annotations

import pandas as pd

from analysis.data import papers
from analysis.data.markup import html_text, md_text


def paper_link(row: pd.Series) -> str:
    """The paper's canonical URL (data/papers.csv `url`: arXiv abstract page, else DOI, else publisher)."""
    return str(row["url"]) if pd.notna(row["url"]) else ""


def index_table() -> pd.DataFrame:
    """One row per paper with HTML-escaped text and a link on the title."""
    df = papers.load()
    titles = dict(zip(papers.themes()["id"], papers.themes()["title"], strict=True))
    out = pd.DataFrame({
        "citekey": df["citekey"],
        "title": [
            (f'<a href="{html_text(paper_link(r))}">{html_text(r["title"])}</a>' if pd.notna(r["title"])
             else "<em>(title not identified)</em>")
            for _, r in df.iterrows()
        ],
        "year": df["year"].astype("string").fillna(""),
        "theme": df["theme"].map(titles).map(html_text),
        "system": df["system_name"].fillna("").map(html_text),
        "hardware": df["hardware"].fillna("").str.replace(";", ", ").map(html_text),
        "headline": df["headline"].fillna("").map(html_text),
    })
    return out.sort_values(["theme", "citekey"]).reset_index(drop=True)


def _cell(text: object) -> str:
    """Data text as a literal MyST table cell (see analysis.markup)."""
    return md_text("" if text is None or (isinstance(text, float) and pd.isna(text)) else text)


def chapter_table_markdown(theme: str, verdicts: dict[str, str], include_secondary: bool = True) -> str:
    """A MyST table of a theme's papers: citation, year, system, hardware, headline, audit verdict.

    Papers whose secondary theme is `theme` are listed too, marked "(secondary)".
    """
    df = papers.load()
    mask = df["theme"] == theme
    if include_secondary:
        mask |= df["secondary_theme"] == theme
    df = df[mask].sort_values(["year", "citekey"])
    lines = ["| paper | year | system | hardware | headline result | audit |", "|---|---|---|---|---|---|"]
    for _, r in df.iterrows():
        mark = "" if r["theme"] == theme else " (secondary)"
        year = "" if pd.isna(r["year"]) else str(int(r["year"]))
        hardware = str(r["hardware"]).replace(";", ", ") if pd.notna(r["hardware"]) else ""
        lines.append(
            f"| {{cite:t}}`{r['citekey']}`{mark} | {year} | {_cell(r['system_name'])} | "
            f"{_cell(hardware)} | {_cell(r['headline'])} | "
            f"{_cell(verdicts.get(r['citekey'], '—'))} |"
        )
    return "\n".join(lines) + "\n"
