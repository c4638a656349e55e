"""The paper table (data/papers.csv), the taxonomy (data/themes.yml) and references.bib."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.data import schemas, text
from analysis.data.paths import DATA, DataError
from analysis.data.tables import fail_rows, read_csv, read_yaml


@lru_cache(maxsize=4)
def themes(folder: Path | None = None) -> pd.DataFrame:
    """The taxonomy: id, title, chapter, scope (in book order), from ``themes.yml`` of `folder` (default: the data
    folder, :data:`DATA`; `make corpus` may read a staged copy). The one place the taxonomy is parsed and
    validated: a malformed file is refused naming the file, the theme (its row) and the field."""
    folder = DATA if folder is None else Path(folder)
    if folder.is_file():
        raise DataError(f"{folder}: expected the folder holding themes.yml, not a file")
    path = folder / "themes.yml"
    raw: Any = read_yaml("themes.yml", path=path)
    rows = raw.get("themes") if isinstance(raw, dict) else None
    if not isinstance(rows, list):
        raise DataError(f"{path}: expected a top-level 'themes' list")
    for i, row in enumerate(rows, 1):
        for key in ("id", "title", "chapter", "scope"):
            if not isinstance(row, dict) or not row.get(key):
                raise DataError(f"{path}: theme {i}, field {key}: missing")
        if text.ANGLE.search(str(row["title"])):
            raise DataError(f"{path}: theme {i}, field title: {text.ANGLE_REASON}")
    df = pd.DataFrame(rows)
    dup = df["id"].duplicated()
    if dup.any():
        raise DataError(f"{path}: duplicated theme id {df['id'][dup].iloc[0]!r}")
    return df


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    from analysis.data import hardware

    path = DATA / "papers.csv"
    df = read_csv("papers.csv", schemas.PAPERS)
    ids = set(themes()["id"])
    fail_rows(path, df, ~df["theme"].isin(ids), "theme", "unknown theme (see data/themes.yml)")
    fail_rows(path, df, df["title"].fillna("").str.contains(text.ANGLE), "title", text.ANGLE_REASON)
    sec = df["secondary_theme"]
    fail_rows(path, df, sec.notna() & ~sec.isin(ids), "secondary_theme", "unknown theme")
    hardware.check_names(path, df)
    kind = df["venue_kind"]
    fail_rows(path, df, (kind != "preprint") & df["venue"].isna(), "venue",
              f"missing for a {'/'.join(schemas.VENUE_KINDS[:3])} venue_kind")
    fail_rows(path, df, (kind == "preprint") & df["venue"].notna(), "venue_kind", "preprint, but a venue is given")
    fail_rows(path, df, (df["cited_version"] == "preprint") & df["arxiv_id"].isna(), "cited_version",
              "preprint cited but no arxiv_id")
    fail_rows(path, df, (df["cited_version"] == "published") & (kind == "preprint"), "cited_version",
              "published version cited but venue_kind is preprint")
    pinned = df["arxiv_version"].notna()
    fail_rows(path, df, pinned & df["arxiv_id"].isna(), "arxiv_version", "an arXiv version without an arxiv_id")
    fail_rows(path, df, df["later_version"].notna() & ~pinned, "later_version",
              "a later version differs, so the version read must be pinned (arxiv_version)")
    fail_rows(path, df, pinned & df["later_version"].isna(), "arxiv_version",
              "pinned without saying which later version differs (later_version)")
    return df


def load() -> pd.DataFrame:
    """The paper table (a copy)."""
    return _load().copy()


LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def author_names(row: pd.Series) -> str | None:
    """The author field: already in BibTeX form; only LaTeX specials other than braces are escaped."""
    if pd.isna(row["authors"]):
        return None
    return "".join(LATEX_SPECIALS.get(ch, ch) if ch not in "{}" else ch for ch in row["authors"])


def cited_year(row: pd.Series) -> int | None:
    """The year of the version the bibliography cites: the venue's year when the published version is
    cited (and known), else the year of the arXiv version read (`year`)."""
    if row["cited_version"] == "published" and pd.notna(row.get("venue_year")):
        return int(row["venue_year"])
    return int(row["year"]) if pd.notna(row["year"]) else None


def arxiv_eprint(row: pd.Series) -> str | None:
    """The arXiv identifier the bibliography cites: pinned to `arxiv_version` when a later version differs."""
    if pd.isna(row["arxiv_id"]):
        return None
    version = row.get("arxiv_version")
    return str(row["arxiv_id"]) + (str(version) if pd.notna(version) else "")


def short_name(row: pd.Series) -> str:
    """What labels an entry without confirmed authors: the system name, else the title's first words."""
    if pd.notna(row["system_name"]):
        return str(row["system_name"])
    title = str(row["title"]) if pd.notna(row["title"]) else str(row["citekey"])
    return title.split(":")[0]
