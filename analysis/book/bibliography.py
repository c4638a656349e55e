"""references.bib, generated from the paper table (`python -m analysis bib`).

Each paper row becomes one BibTeX entry; `yearsuffix` tells apart papers whose author–year label
would repeat, computed with the label rendering of the Sphinx extension (analysis/book/bibstyle.py).

The works outside the corpus (data/outside-corpus.csv, analysis.data.outside) are emitted too, so
that chapters can cite them as context; their entries carry ``keywords = {outside-corpus}`` and a
note saying so, which lets the bibliography page list them apart
(``:filter: keywords % "outside-corpus"``). They are never part of papers.load(), so no corpus
count, table or audit sees them; they share only the label space (year suffixes are assigned over
all entries, so that every label in the book is unique)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.data import outside, papers
from analysis.data.papers import LATEX_SPECIALS, arxiv_eprint, author_names, cited_year, short_name
from analysis.data.paths import DATA, DataError, record_read

OUTSIDE_NOTE = "Outside the corpus: cited as context, not one of the reviewed papers"


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters (non-ASCII letters are kept as UTF-8)."""
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


def label_author(authors: str | None, key: str) -> str:
    """The author part of an author–year label, as sphinxcontrib-bibtex renders it (plain text).

    One author: "Family"; two: "A and B"; three or more: "A et al."; none: the `key` field.
    """
    from analysis.book.bibstyle import author_label_text

    return author_label_text(authors, key)


PUBLISHED_LABELS = DATA / "releases" / "published-labels.csv"
"""The author–year label of every entry as last released (citekey,label; `make release` rewrites it with
:func:`write_published_labels`): a published label never changes when papers are added (issue 35)."""

LABEL_CHANGES = "label-changes.csv"
"""Beside the snapshot (data/releases/label-changes.csv): every change of a published label, one row each, with
its date, reason and source (:func:`label_changes`). A published label changes only through a row of it."""


def label_base(row: pd.Series) -> str:
    """The label without its suffix, as the bibliography renders it: "Li et al. 2024", "Foo n.d."."""
    cited = cited_year(row)
    year = str(cited) if cited is not None else "n.d."
    return f"{label_author(author_names(row), short_name(row))} {year}"


def snapshot_labels(path: Path | None = None) -> dict[str, str]:
    """citekey -> label as the snapshot file holds it ({} without a snapshot); a malformed file is refused,
    naming its row."""
    import csv

    path = path or PUBLISHED_LABELS
    if not path.is_file():
        return {}
    record_read(path)
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for i, r in enumerate(rows):
        if not r.get("citekey") or not r.get("label"):
            raise DataError(f"{path}: row {i + 2}: expected the columns citekey,label, both filled")
    return {r["citekey"]: r["label"] for r in rows}


def label_changes(snapshot: Path | None = None) -> pd.DataFrame:
    """The recorded label changes (schema :data:`analysis.data.schemas.LABEL_CHANGES`) kept beside the snapshot
    `snapshot` (default :data:`PUBLISHED_LABELS`), in the file's order, which is the order they happened in;
    an empty table without the file. Refused, naming file, row and column: a row whose new label is its old one,
    or a date earlier than the row before it."""
    from analysis.data import schemas
    from analysis.data.tables import fail_rows, read_csv

    path = (snapshot or PUBLISHED_LABELS).parent / LABEL_CHANGES
    if not path.is_file():
        return pd.DataFrame(columns=list(schemas.LABEL_CHANGES.columns))
    df = read_csv(LABEL_CHANGES, schemas.LABEL_CHANGES, path=path)
    fail_rows(path, df, df["old_label"] == df["new_label"], "new_label", "the same as old_label: nothing changed")
    fail_rows(path, df, df["date"] < df["date"].shift(1).fillna(""), "date",
              "earlier than the row before it (rows are kept in the order the labels changed)")
    return df


def _carried(snapshot: dict[str, str],
             changes: pd.DataFrame) -> tuple[dict[str, str], list[tuple[int, Any, str | None]]]:
    """The snapshot's labels with each recorded change that starts from the entry's label so far applied, in
    order; and the (row number in the file, row, the entry's label so far) of the changes that did not."""
    labels, skipped = dict(snapshot), []
    for i, (_, r) in enumerate(changes.iterrows()):
        if labels.get(r["citekey"]) == r["old_label"]:
            labels[r["citekey"]] = r["new_label"]
        else:
            skipped.append((i + 2, r, labels.get(r["citekey"])))
    return labels, skipped


def published_labels(path: Path | None = None, changes: pd.DataFrame | None = None) -> dict[str, str]:
    """citekey -> published label: the snapshot's (`path`, default :data:`PUBLISHED_LABELS`), with each recorded
    change (`changes`, default :func:`label_changes` beside the snapshot) that starts from the label so far
    applied in order ({} without a snapshot)."""
    return _carried(snapshot_labels(path), label_changes(path) if changes is None else changes)[0]


def labels_now(df: pd.DataFrame | None = None, published: dict[str, str] | None = None) -> dict[str, str]:
    """citekey -> the label the bibliography prints for every entry of `df` (default :func:`bib_frame`), the
    published labels `published` (default :func:`published_labels`) kept."""
    df = bib_frame() if df is None else df
    suffixes = year_suffixes(df, published)
    return {r["citekey"]: f"{label_base(r)}{suffixes.get(r['citekey'], '')}" for _, r in df.iterrows()}


def unexplained_labels(now: dict[str, str], path: Path | None = None,
                       changes: pd.DataFrame | None = None) -> list[str]:
    """The stable-label rule, checked: one line per entry of the snapshot (`path`) whose label `now` is not its
    snapshot label carried through the recorded changes (`changes`, default the file beside the snapshot), and
    per unreleased recorded change that does not start from the entry's label so far (a wrong old_label).
    Empty when the snapshot and the recorded changes explain every current label."""
    where = (path or PUBLISHED_LABELS).parent / LABEL_CHANGES
    labels, skipped = _carried(snapshot_labels(path), label_changes(path) if changes is None else changes)
    out = [f"{where}: row {row}: {r['citekey']} is published as {so_far!r}, not as the old_label {r['old_label']!r}"
           for row, r, so_far in skipped if pd.isna(r["released_in"]) and so_far != r["new_label"]]
    for key in sorted(now.keys() & labels.keys()):
        if now[key] != labels[key]:
            out.append(f"{key}: published as {labels[key]!r}, printed now as {now[key]!r}, and no row of {where} "
                       "records the change (add one: citekey,old_label,new_label,date,reason,source)")
    return out


def _kept_suffix(label: str | None, base: str) -> str | None:
    """The suffix a published `label` gives an entry whose label is now `base` ("" for none), or None when the
    entry was not published under this base (new, or its authors or year were corrected since)."""
    if label is None or not label.startswith(base):
        return None
    rest = label[len(base):]
    return rest if re.fullmatch(r"[a-z]*", rest) else None


def year_suffixes(df: pd.DataFrame, published: dict[str, str] | None = None) -> dict[str, str]:
    """citekey -> "a", "b", ... for entries whose author–year label would otherwise repeat.

    A label in `published` (default: the release snapshot, :func:`published_labels`) is kept as it was; the
    other entries of a group take the next free suffixes, in the bibliography's order (authors, year, title).
    """
    published = published_labels() if published is None else published
    bases = {r["citekey"]: label_base(r) for _, r in df.iterrows()}
    groups: dict[str, list[pd.Series]] = {}
    for _, r in df.iterrows():
        groups.setdefault(bases[r["citekey"]], []).append(r)
    out: dict[str, str] = {}
    for base, rows in groups.items():
        kept = {r["citekey"]: k for r in rows if (k := _kept_suffix(published.get(r["citekey"]), base)) is not None}
        if len(rows) == 1 and not kept.get(rows[0]["citekey"]):
            continue
        used = set(kept.values())
        free = (s for s in map(suffix_letters, range(len(rows) + len(used) + 1)) if s not in used)
        for r in sorted(rows, key=_order):
            key = r["citekey"]
            suffix = kept[key] if key in kept else next(free)
            if suffix:
                out[key] = suffix
    return out


def _order(r: pd.Series) -> tuple:
    from pybtex.bibtex.utils import split_name_list
    from pybtex.database import Entry, Person

    from analysis.book.bibstyle import sorting_key

    names = author_names(r)
    persons = {"author": [Person(s) for s in split_name_list(names)]} if names else {}
    fields = {"year": str(cited_year(r)), "title": "{" + latex_escape(str(r["title"])) + "}"}
    return (sorting_key(Entry("misc", fields=fields, persons=persons)), r["citekey"])


def write_published_labels(path: Path | None = None, fresh: bool = False) -> int:
    """Snapshot every entry's current label (`make release`, which keeps every published label); with `fresh`
    (`python -m analysis labels --fresh`) the suffixes are assigned anew, in the bibliography's order, as if
    nothing had been published. Either way a published label that would change without a recorded row of
    data/releases/label-changes.csv (:func:`unexplained_labels`) is refused, naming the entry. Returns the number
    of entries."""
    path = path or PUBLISHED_LABELS
    df = bib_frame().sort_values("citekey")
    now = labels_now(df, published={} if fresh else published_labels(path))
    problems = unexplained_labels(now, path)
    if problems:
        raise DataError("a published bibliography label would change without a recorded reason:\n"
                        + "\n".join(problems))
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["citekey", "label"])
    w.writerows((r["citekey"], now[r["citekey"]]) for _, r in df.iterrows())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return len(df)


def suffix_letters(i: int) -> str:
    """The `i`-th year suffix, from 0: a … z, then aa, ab, … (a group may hold more than 26 entries)."""
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[r] + letters
    return letters


def _later_version_note(row: pd.Series) -> str | None:
    """For an arXiv version cited while a published version exists (with its DOI when known: the DOI
    names that later version, so it is not the entry's own `doi` field)."""
    if row["cited_version"] != "preprint":
        return None
    doi = f", https://doi.org/{latex_escape(str(row['doi']))}" if pd.notna(row["doi"]) else ""
    if row["venue_kind"] == "preprint":
        return f"A later version: https://doi.org/{latex_escape(str(row['doi']))}" if doi else None
    shown = pd.notna(row["venue_year"]) and str(int(row["venue_year"])) not in str(row["venue"])
    year = f" ({int(row['venue_year'])})" if shown else ""
    return f"A later version appeared in {latex_escape(str(row['venue']))}{year}{doi}"


def _pinned_version_note(row: pd.Series) -> str | None:
    """For an arXiv version pinned because a later version differs: which one is cited, and how the later differs."""
    if pd.isna(row.get("arxiv_version")):
        return None
    read = "the version read" if row["cited_version"] == "published" else "the version cited"
    return (f"arXiv {arxiv_eprint(row)} is {read}, whose text and figures the book quotes. "
            f"{latex_escape(str(row['later_version']))}")


def outside_rows() -> pd.DataFrame:
    """The outside-corpus works in the columns of the paper table that :func:`bib_entry` reads.

    The version cited is the row's `cited_version`: the arXiv version (with a note naming a later venue),
    or the published one (@article, @inproceedings or @techreport, by its `venue_kind`, with its DOI and the venue's
    year; the arXiv ID stays as eprint), which is also how a work not on arXiv is cited.
    """
    df = outside.load()
    return pd.DataFrame({
        "citekey": df["citekey"],
        "title": df["title"],
        "authors": df["authors"],
        "year": df["year"],
        "venue": df["venue"],
        "venue_kind": df["venue_kind"],
        "venue_year": df["venue_year"],
        "cited_version": df["cited_version"],
        "arxiv_id": df["arxiv_id"],
        "arxiv_version": pd.array([pd.NA] * len(df), dtype="string"),
        "later_version": pd.array([pd.NA] * len(df), dtype="string"),
        "volume": df["volume"],
        "number": df["number"],
        "pages": df["pages"],
        "doi": df["doi"],
        "url": df["url"],
        "system_name": pd.array([pd.NA] * len(df), dtype="string"),
        "subtopic": df["concept"],
        "authors_complete": df["authors_complete"],
    }).reset_index(drop=True)


def bib_frame() -> pd.DataFrame:
    """Every entry of references.bib: the corpus papers, then the outside-corpus works (`outside` true)."""
    corpus = papers.load().assign(outside=False, authors_complete=True)
    extra = outside_rows().assign(outside=True)
    return pd.concat([corpus, extra], ignore_index=True)


def all_suffixes() -> dict[str, str]:
    """citekey -> year suffix over every entry of references.bib (corpus and outside works)."""
    return year_suffixes(bib_frame())


def bib_entry(row: pd.Series, suffix: str = "") -> str:
    """One BibTeX entry for a paper row.

    The entry type follows the version cited: @inproceedings (booktitle) for a conference or
    workshop, @article (journal) for a journal, @techreport (institution) for a report or specification of an
    organisation (an outside-corpus work only), @misc with eprint/archivePrefix for an arXiv
    version (pinned, e.g. 2401.09670v1, when a later version differs). `year` is the cited version's
    year (the venue's when the published version is cited); `yearsuffix` tells apart entries whose
    author–year label would repeat. A DOI is the entry's `doi` only when it names the cited version.
    """
    key = row["citekey"]
    fields: list[tuple[str, str]] = []
    names = author_names(row)
    if names:
        fields.append(("author", names))
    else:
        # no confirmed authors: no placeholder person; the label uses the paper's short name
        fields.append(("key", latex_escape(short_name(row))))
    title = row["title"] if pd.notna(row["title"]) else None
    fields.append(("title", f"{{{latex_escape(title)}}}" if title else
                   f"{{Unidentified paper ({latex_escape(str(row['subtopic']))})}}"))
    published = row["cited_version"] == "published" and names is not None
    kind = "misc"
    if published and row["venue_kind"] in ("conference", "workshop"):
        kind = "inproceedings"
        fields.append(("booktitle", latex_escape(str(row["venue"]))))
    elif published and row["venue_kind"] == "journal":
        kind = "article"
        fields.append(("journal", latex_escape(str(row["venue"]))))
    elif published and row["venue_kind"] == "report":
        kind = "techreport"  # a report or specification, published by the organisation named as its venue
        fields.append(("institution", latex_escape(str(row["venue"]))))
    year = cited_year(row)
    if year is not None:
        fields.append(("year", str(year)))
    if suffix:
        fields.append(("yearsuffix", suffix))
    arxiv = arxiv_eprint(row)
    if arxiv:
        fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
    if published:
        for col in ("volume", "number", "pages"):
            if pd.notna(row.get(col)):
                fields.append((col, str(row[col])))  # the schema allows only word characters, spaces, "." and "-"
    if pd.notna(row["doi"]) and row["cited_version"] == "published":
        fields.append(("doi", row["doi"]))
    if pd.notna(row["url"]):
        fields.append(("url", row["url"]))
    if bool(row.get("outside", False)):
        fields.append(("keywords", outside.KEYWORD))
    notes = _entry_notes(row, names, published)
    if notes:
        fields.append(("note", ". ".join(notes)))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def _entry_notes(row: pd.Series, names: str | None, published: bool) -> list[str]:
    """The entry's note: outside the corpus, author list unconfirmed or incomplete, first arXiv year of a
    published version, and the pinned or later version."""
    notes = [OUTSIDE_NOTE] if bool(row.get("outside", False)) else []
    if names is None:
        notes.append("Author list not confirmed")
    elif not bool(row.get("authors_complete", True)):
        notes.append("Author list incomplete (as shown on the page read)")
    if (published and pd.notna(row["venue_year"]) and pd.notna(row["year"])
            and int(row["venue_year"]) != int(row["year"])):
        notes.append(f"First posted on arXiv in {int(row['year'])}")
    return notes + [n for n in (_pinned_version_note(row), _later_version_note(row)) if n]


def write_bib(path: Path) -> None:
    """Write references.bib from the paper table and the outside-corpus works (only if its content
    changed). Entries are in citekey order; outside works are marked (see the module docstring)."""
    df = bib_frame().sort_values("citekey")
    suffixes = year_suffixes(df)
    text = ("% Generated from data/papers.csv and data/outside-corpus.csv by `python -m analysis bib`. "
            "Do not edit.\n\n")
    text += "\n".join(bib_entry(r, suffixes.get(r["citekey"], "")) for _, r in df.iterrows())
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
