"""Tables of papers for the book: the paper index (the paper explorer) and each chapter's paper table."""

from __future__ import annotations

import re

import pandas as pd

from analysis.data import papers
from analysis.data.markup import html_text, md_text
from analysis.themes import filter_callback


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


# The explorer's columns: (heading, data column of index_table, width, class). The citekey goes under
# the title, linked to the bibliography entry (anchor bibkey-<key>, added by analysis/book/reader.py).
EXPLORER_COLUMNS = [
    ("title", "title", "27%", "col-title"),
    ("year", "year", "4.5em", "col-year"),
    ("theme", "theme", "14%", "col-theme"),
    ("system", "system", "12%", "col-system"),
    ("hardware", "hardware", "13%", "col-hardware"),
    ("headline", "headline", "30%", "col-headline"),
]
# the filters above the table: (column heading, label, how a row matches: "equals" or "lists"); the years
# are listed newest first
EXPLORER_FILTERS = [("theme", "Theme", "equals"), ("year", "Year", "equals"), ("hardware", "Hardware", "lists")]
# the columns a phone (at most 640 px wide) does not show
EXPLORER_NARROW_HIDDEN = ["theme", "system", "hardware"]


def explorer_table() -> pd.DataFrame:
    """index_table() as the explorer shows it: the title cell also links the citekey to the bibliography."""
    df = index_table()
    key_links = [f'<a class="paper-key" href="../chapters/bibliography.html#bibkey-{html_text(k)}">{html_text(k)}</a>'
                 for k in df["citekey"]]
    out = df.assign(title=[f"{t}{k}" for t, k in zip(df["title"], key_links, strict=True)])
    return out[[c for _, c, _, _ in EXPLORER_COLUMNS]].set_axis([h for h, _, _, _ in EXPLORER_COLUMNS], axis=1)


def explorer_options() -> dict[str, object]:
    """itables/DataTables options for the explorer: sorting by a click anywhere on a heading, column
    widths that fit the page, and the filters (:func:`filter_callback`)."""
    names = [h for h, _, _, _ in EXPLORER_COLUMNS]
    return {
        "text_in_header_can_be_selected": False,  # else only the small arrow sorts
        "autoWidth": False,
        "columnDefs": [{"targets": i, "width": w, "className": c} for i, (_, _, w, c) in enumerate(EXPLORER_COLUMNS)],
        "drawCallback": filter_callback(names, EXPLORER_FILTERS, EXPLORER_NARROW_HIDDEN,
                                        bar_class="paper-explorer-filters", aria_label="Filter the papers",
                                        select_prefix="paper-filter-", newest_first={"year"}),
    }


def _cell(text: object) -> str:
    """Data text as a literal MyST table cell (see analysis.data.markup)."""
    return md_text("" if text is None or (isinstance(text, float) and pd.isna(text)) else text)


_HAND_CHECK = re.compile(r"^(?P<verdict>.+) \((?P<id>[^()]*)\)$")


def audit_summary(verdicts: str) -> str | None:
    """A paper's audit verdicts counted, "2 consistent, 1 inconsistent", from the text of
    ``audit.verdicts_by_citekey`` ("consistent (id); inconsistent (id); rules: 1 consistent");
    None if the text is not in that form. Verdicts in the order they first appear."""
    counts: dict[str, int] = {}
    for part in (p.strip() for p in verdicts.split(";")):
        if part.startswith("rules:"):
            for item in part.removeprefix("rules:").split(","):
                n, _, verdict = item.strip().partition(" ")
                if not n.isdigit() or not verdict:
                    return None
                counts[verdict] = counts.get(verdict, 0) + int(n)
        elif m := _HAND_CHECK.match(part):
            counts[m["verdict"]] = counts.get(m["verdict"], 0) + 1
        else:
            return None
    if not counts:
        return None
    return ", ".join(f"{n} {v}" for v, n in counts.items())


def _audit_cell(verdicts: str | None) -> str:
    """The audit column: the verdicts counted, linked to the claims audit (where each check is listed)."""
    if not verdicts:
        return "—"
    summary = audit_summary(verdicts)
    if summary is None:
        return _cell(verdicts)
    return f"{{doc}}`{summary} </notebooks/claims-audit>`"


def new_papers_section(theme: str) -> list[str]:
    """The generated part of a chapter's paper table that cites the theme's papers its prose does not discuss
    yet (:func:`analysis.data.intake.unsynthesised`): honest about what the text covers, and every paper cited."""
    from analysis.data.review_files import NEW_SECTION, unsynthesised

    df = papers.load().sort_values(["year", "citekey"])
    rows = df[df["theme"] == theme]
    new = unsynthesised(theme, list(rows["citekey"]))
    if not new:
        return []
    headline = dict(zip(rows["citekey"], rows["headline"], strict=True))
    items = [f"- {{cite:t}}`{k}`" + (f": {_cell(headline[k])}" if pd.notna(headline[k]) else "") for k in new]
    return [f"```{{admonition}} {NEW_SECTION}", ":class: note",
            f"{len(new)} paper(s) of this theme joined the corpus after this chapter's text was written. They are "
            "in the table below and in every count and figure of the book, but the prose above does not discuss "
            "them yet; the headline is the reviewer's, from the abstract.", "", *items, "```", ""]


def chapter_table_markdown(theme: str, verdicts: dict[str, str], include_secondary: bool = True) -> str:
    """A MyST table of a theme's papers: citation, year, system, hardware, headline, audit verdict.

    Papers whose secondary theme is `theme` are listed too, marked "(secondary)".
    """
    df = papers.load()
    mask = df["theme"] == theme
    if include_secondary:
        mask |= df["secondary_theme"] == theme
    df = df[mask].sort_values(["year", "citekey"])
    lines = [*new_papers_section(theme), "| paper | year | system | hardware | headline result | audit |",
             "|---|---|---|---|---|---|"]
    for _, r in df.iterrows():
        mark = "" if r["theme"] == theme else " (secondary)"
        year = "" if pd.isna(r["year"]) else str(int(r["year"]))
        hardware = str(r["hardware"]).replace(";", ", ") if pd.notna(r["hardware"]) else ""
        lines.append(
            f"| {{cite:t}}`{r['citekey']}`{mark} | {year} | {_cell(r['system_name'])} | "
            f"{_cell(hardware)} | {_cell(r['headline'])} | "
            f"{_audit_cell(verdicts.get(r['citekey']))} |"
        )
    return "\n".join(lines) + "\n"
