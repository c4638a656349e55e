"""The review folder of the corpus update (`make corpus`, `make accept`): its files, their CSV format, the
papers a chapter's prose does not discuss yet, and renaming a citekey everywhere (issue 35)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from analysis.data.paths import BUILD, DATA, ROOT, DataError

REVIEW_DIR = BUILD / "corpus"
PAPERS_FILE = "papers-to-review.csv"
CLAIMS_FILE = "claims-to-review.csv"
RECORDS_FILE = "new-records.csv"
SOURCES_FILE = "source-updates.csv"
IDENTIFY_FILE = "identify.csv"
PAPER_EXTRA = ["theme_confidence", "theme_runner_up", "similar_to", "similarity", "identified_similarity",
               "first_words"]
PAPER_REVIEW = ("unreviewed", "accept", "merge")
CLAIM_REVIEW = ("unreviewed", "accept", "reject")
RECORD_COLUMNS = ["ref", "fingerprint", "status", "citekey", "similarity", "first_words"]
SOURCE_COLUMNS = ["citekey", "fingerprint", "source_records_now", "source_records_seeds"]
# ---------------------------------------------------------------- CSV helpers (the tables' own format)

def read_table(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a CSV as strings ('' for empty); a missing file is an empty table."""
    if not path.exists():
        return [], []
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        raise DataError(f"{path}: line 1: the file starts with a byte-order mark (U+FEFF); save it as UTF-8 "
                        "without BOM (a spreadsheet's 'CSV UTF-8' adds one)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(f"{path}: line {line}: not valid UTF-8 ({exc.reason}); save it as UTF-8") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = [{k: (v or "") for k, v in r.items()} for r in reader]
    return list(reader.fieldnames or []), rows


def table_text(header: list[str], rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=header, lineterminator="\n", extrasaction="raise")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def write_table(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    """Write a CSV atomically (temporary name, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(table_text(header, rows), encoding="utf-8")
    tmp.replace(path)

# ---------------------------------------------------------------- new papers not yet synthesised

CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
NEW_SECTION = "New in this version, not yet synthesised"
"""The title of the generated part of a chapter that cites its accepted papers the chapter's prose does not yet
discuss (chapters/<theme>.md): they are in its table and every count, until a person cites them in the prose."""


def cited_in(text: str) -> set[str]:
    """The citekeys a chapter's source cites ({cite}, {cite:t}, {cite:p}, ...)."""
    return {k.strip() for group in CITE.findall(text) for k in group.split(",")}


def unsynthesised(theme: str, citekeys: list[str], chapters: Path | None = None) -> list[str]:
    """The papers of `theme` (its primary theme: `citekeys`) that chapters/<theme>.md does not cite in its
    prose, in the order given: new in this version, not yet synthesised. The chapter is recorded as read
    (a notebook that asks runs again when the prose changes)."""
    from analysis.data.paths import record_read

    path = (chapters or ROOT / "chapters") / f"{theme}.md"
    if not path.is_file():
        return list(citekeys)
    record_read(path)
    prose = cited_in(path.read_text(encoding="utf-8"))
    return [k for k in citekeys if k not in prose]

# ---------------------------------------------------------------- renaming a citekey everywhere

def _key_pattern(key: str) -> re.Pattern[str]:
    # the key as a whole word: "li2024foo" in "li2024foo-3" (a claim id) or "{cite:t}`li2024foo`", never
    # inside "li2024foobar"
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])")


def rename_citekey(old: str, new: str, data_dir: Path | None = None, review: Path | None = None,
                   chapters: Path | None = None) -> list[str]:
    """Rename a citekey in every file that names it: the tables of data/ (citekey columns, claim ids
    ``<citekey>-n``), the published labels (data/releases/), the review files and the chapters' citations.
    Refused when `old` is unknown, `new` taken or not a citekey; files are edited as text (nothing else moves)."""
    data_dir = data_dir or DATA
    review = review or REVIEW_DIR
    chapters = chapters or ROOT / "chapters"
    _, rows = read_table(data_dir / "papers.csv")
    _, review_rows = read_table(review / PAPERS_FILE)
    keys = {r["citekey"] for r in rows} | {r["citekey"] for r in review_rows}
    _, outside_rows = read_table(data_dir / "outside-corpus.csv")
    if old not in keys:
        raise DataError(f"rename-citekey: {old!r} is neither in {data_dir / 'papers.csv'} nor in the review files")
    if new in keys or new in {r["citekey"] for r in outside_rows}:
        raise DataError(f"rename-citekey: {new!r} is already a citekey")
    if not re.fullmatch(r"[a-z][a-z0-9]*", new):
        raise DataError(f"rename-citekey: {new!r}: a citekey is lower-case letters and digits, starting with a letter")
    rx = _key_pattern(old)
    # a release's numbers and paper list name the paper by its key too: the rename keeps them the same paper
    # (the What changed page, the second coding's population)
    releases = [f for f in sorted((data_dir / "releases").rglob("*")) if f.suffix in (".csv", ".txt")]
    files = [*sorted(data_dir.glob("*.csv")), *releases, *sorted(review.glob("*.csv")), *sorted(chapters.glob("*.md")),
             *sorted((chapters.parent / "analysis" / "notebooks").glob("*.md"))]
    changed = []
    for path in files:
        before = path.read_text(encoding="utf-8")
        after = rx.sub(new, before)
        if after != before:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(after, encoding="utf-8")
            tmp.replace(path)
            changed.append(f"  {path}: {len(rx.findall(before))} occurrence(s)")
    return [f"renamed {old} -> {new} in {len(changed)} file(s):", *changed]
