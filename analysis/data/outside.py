"""Works outside the corpus (data/outside-corpus.csv): the coverage gaps.

Landmark papers a reader of a theme would expect and that the 235 seed abstracts do not contain
(vLLM, FlashAttention, GPTQ, Chinchilla, ...). Each is identified like a corpus paper (title,
authors and arXiv ID or DOI as seen on the page in `source_url`), so that chapters can cite it as
context, but it is kept apart from data/papers.csv: nothing here is counted in corpus statistics,
the claims ledger or the audit. references.bib marks these entries (keywords = outside-corpus).
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from analysis.data import schemas, text
from analysis.data.paths import DATA
from analysis.data.tables import fail_rows, read_csv

FILE = "outside-corpus.csv"
KEYWORD = "outside-corpus"  # the BibTeX `keywords` value that marks these entries


def _norm_title(text: object) -> str:
    return " ".join("".join(ch for ch in str(text).lower() if ch.isalnum() or ch.isspace()).split())


def canonical_url(row: pd.Series) -> str:
    """The work's canonical link: the arXiv abstract page, else the DOI, else the page it was seen on
    (for a work that is on neither, the publisher's page, e.g. a USENIX presentation page)."""
    if pd.notna(row["arxiv_id"]):
        return f"https://arxiv.org/abs/{row['arxiv_id']}"
    if pd.notna(row["doi"]):
        return f"https://doi.org/{row['doi']}"
    return str(row["source_url"])


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    from analysis.data import papers

    path = DATA / FILE
    df = read_csv(FILE, schemas.OUTSIDE)
    fail_rows(path, df, df["title"].fillna("").str.contains(text.ANGLE), "title", text.ANGLE_REASON)
    fail_rows(path, df, ~df["theme"].isin(set(papers.themes()["id"])), "theme",
              "unknown theme (see data/themes.yml)")
    # a work already in the corpus is not a gap, and a citekey must name one entry of references.bib
    corpus = papers.load()
    fail_rows(path, df, df["citekey"].isin(set(corpus["citekey"])), "citekey",
              "collides with a citekey of data/papers.csv")
    fail_rows(path, df, df["arxiv_id"].notna() & df["arxiv_id"].isin(set(corpus["arxiv_id"].dropna())), "arxiv_id",
              "this work is in the corpus (data/papers.csv), so it is not a coverage gap")
    fail_rows(path, df, df["doi"].notna() & df["doi"].isin(set(corpus["doi"].dropna())), "doi",
              "this work is in the corpus (data/papers.csv), so it is not a coverage gap")
    fail_rows(path, df, df["title"].map(_norm_title).isin(set(corpus["title"].dropna().map(_norm_title))), "title",
              "a paper of data/papers.csv has this title, so it is not a coverage gap")
    fail_rows(path, df, df["arxiv_id"].notna() & df["arxiv_id"].duplicated(keep=False), "arxiv_id",
              "the same arXiv ID is listed twice")
    # identified: an arXiv ID, a DOI, or (not on either) a named venue whose page is the source
    fail_rows(path, df, df["arxiv_id"].isna() & df["doi"].isna() & df["venue"].isna(), "arxiv_id",
              "no arXiv ID, DOI or venue: the work is not identified")
    new_id = df["arxiv_id"].fillna("").str.match(r"^\d{4}\.")
    posted = 2000 + pd.to_numeric(df["arxiv_id"].where(new_id).str[:2], errors="coerce")
    fail_rows(path, df, new_id & (df["year"] != posted), "year",
              "not the year of the first arXiv posting (the YY of the arXiv ID)")
    kind = df["venue_kind"]
    fail_rows(path, df, (kind != "preprint") & df["venue"].isna(), "venue",
              f"missing for a {'/'.join(schemas.OUTSIDE_VENUE_KINDS[:4])} venue_kind")
    fail_rows(path, df, (kind == "preprint") & df["venue"].notna(), "venue_kind", "preprint, but a venue is given")
    # the version cited: the venue's only with what names it (venue, its year and, for an arXiv work, its DOI)
    published = df["cited_version"] == "published"
    fail_rows(path, df, ~published & df["arxiv_id"].isna(), "cited_version",
              "preprint, but the work has no arXiv ID (a work not on arXiv is cited as published)")
    fail_rows(path, df, published & (kind == "preprint"), "cited_version",
              "published, but venue_kind is preprint")
    fail_rows(path, df, published & df["arxiv_id"].notna() & df["doi"].isna(), "doi",
              "missing for a published version cited instead of the arXiv one (keep the preprint without a DOI)")
    fail_rows(path, df, published & df["arxiv_id"].notna() & df["venue_year"].isna(), "venue_year",
              "missing for a published version cited instead of the arXiv one")
    fail_rows(path, df, ~published & df["venue_year"].notna(), "venue_year",
              "given, but the arXiv version is cited (the label year is the arXiv year)")
    fail_rows(path, df, (df["venue_year"] < df["year"]).fillna(False).astype(bool), "venue_year",
              "earlier than the first arXiv posting")
    fail_rows(path, df, (df["authors_complete"] == "false") & df["notes"].isna(), "notes",
              "an incomplete author list needs a note saying where the list stops")
    df["authors_complete"] = df["authors_complete"] == "true"
    df["url"] = [canonical_url(r) for _, r in df.iterrows()]
    # the year of the version cited, which the author-year label shows
    df["cited_year"] = df["venue_year"].where(published & df["venue_year"].notna(), df["year"]).astype("Int64")
    return df


def load() -> pd.DataFrame:
    """The outside-corpus works (a copy), with the derived canonical `url`; never part of papers.load()."""
    return _load().copy()


def short_authors(authors: str) -> str:
    """"Dao et al.", "Dao and Fu", "Dao": family names as the author-year label shows them."""
    names = [a.strip() for a in str(authors).split(" and ")]
    family = [n.split(",")[0].strip("{} ") for n in names]
    if len(family) == 1:
        return family[0]
    if len(family) == 2:
        return f"{family[0]} and {family[1]}"
    return f"{family[0]} et al."
