"""The paper table (data/papers.csv), the taxonomy (data/themes.yml) and references.bib."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from analysis import schemas
from analysis.paths import DATA, DataError
from analysis.tables import fail_rows, read_csv, read_yaml


@lru_cache(maxsize=1)
def themes() -> pd.DataFrame:
    """The taxonomy: id, title, chapter, scope (in book order)."""
    raw: Any = read_yaml("themes.yml")
    rows = raw.get("themes") if isinstance(raw, dict) else None
    if not isinstance(rows, list):
        raise DataError(f"{DATA / 'themes.yml'}: expected a top-level 'themes' list")
    for i, row in enumerate(rows, 1):
        for key in ("id", "title", "chapter", "scope"):
            if not isinstance(row, dict) or not row.get(key):
                raise DataError(f"{DATA / 'themes.yml'}: theme {i}, field {key}: missing")
    df = pd.DataFrame(rows)
    dup = df["id"].duplicated()
    if dup.any():
        raise DataError(f"{DATA / 'themes.yml'}: duplicated theme id {df['id'][dup].iloc[0]!r}")
    return df


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    from analysis import hardware

    path = DATA / "papers.csv"
    df = read_csv("papers.csv", schemas.PAPERS)
    ids = set(themes()["id"])
    fail_rows(path, df, ~df["theme"].isin(ids), "theme", "unknown theme (see data/themes.yml)")
    sec = df["secondary_theme"]
    fail_rows(path, df, sec.notna() & ~sec.isin(ids), "secondary_theme", "unknown theme")
    hardware.check_names(path, df)
    kind = df["venue_kind"]
    fail_rows(path, df, (kind != "preprint") & df["venue"].isna(), "venue", f"missing for a {'/'.join(schemas.VENUE_KINDS[:3])} venue_kind")
    fail_rows(path, df, (kind == "preprint") & df["venue"].notna(), "venue_kind", "preprint, but a venue is given")
    fail_rows(path, df, (df["cited_version"] == "preprint") & df["arxiv_id"].isna(), "cited_version",
              "preprint cited but no arxiv_id")
    fail_rows(path, df, (df["cited_version"] == "published") & (kind == "preprint"), "cited_version",
              "published version cited but venue_kind is preprint")
    return df


def load() -> pd.DataFrame:
    """The paper table (a copy)."""
    return _load().copy()


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters (non-ASCII letters are kept as UTF-8)."""
    return "".join(_LATEX.get(ch, ch) for ch in text)


def bib_entry(row: pd.Series) -> str:
    """One BibTeX entry for a paper row."""
    key = row["citekey"]
    fields: list[tuple[str, str]] = []
    title = row["title"] if pd.notna(row["title"]) else None
    if title is None:
        fields.append(("title", f"{{Unidentified paper ({latex_escape(str(row['subtopic']))})}}"))
        fields.append(("note", "Title and authors not identified; see the paper index"))
    else:
        fields.append(("title", f"{{{latex_escape(title)}}}"))
    if pd.notna(row["authors"]):
        fields.append(("author", latex_escape(row["authors"])))
    else:
        fields.append(("author", "{Authors not identified}"))
    if pd.notna(row["year"]):
        fields.append(("year", str(int(row["year"]))))
    arxiv = row["arxiv_id"] if pd.notna(row["arxiv_id"]) else None
    venue = row["venue"] if pd.notna(row["venue"]) else None
    if venue:
        fields.append(("journal", latex_escape(venue)))
    elif arxiv:
        fields.append(("journal", f"arXiv preprint arXiv:{arxiv}"))
    if arxiv:
        fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
    if pd.notna(row["doi"]):
        fields.append(("doi", row["doi"]))
    if arxiv:
        fields.append(("url", f"https://arxiv.org/abs/{arxiv}"))
    elif pd.notna(row["doi"]):
        fields.append(("url", f"https://doi.org/{row['doi']}"))
    elif pd.notna(row["url"]):
        fields.append(("url", row["url"]))
    kind = "article" if (venue or arxiv) and title else "misc"
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def write_bib(path: Path) -> None:
    """Write references.bib from the paper table (only if its content changed)."""
    df = load().sort_values("citekey")
    text = "% Generated from data/papers.csv by `python -m analysis bib`. Do not edit.\n\n"
    text += "\n".join(bib_entry(r) for _, r in df.iterrows())
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
