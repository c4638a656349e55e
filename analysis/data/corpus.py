"""Read the seed "Daily Papers" files, normalise each abstract and merge exact duplicates.

A seed file is UTF-8 text. Its first paragraph is a header ("Daily Papers"); every
later paragraph (separated by a blank line) is one abstract record. Records whose
normalised text is identical are one paper. Records that are similar but not
identical are *flagged* as near-duplicates for a person to judge, never merged.

Nothing here writes abstract text into the repository: callers get the text in
memory, and :func:`paper_records` only exposes file names, paragraph indices and
sha256 fingerprints.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
HEADER = "Daily Papers"


class CorpusError(ValueError):
    """A seed file is malformed; the message names the file and the record."""


@dataclass(frozen=True)
class Record:
    """One paragraph of one seed file."""

    file: str
    index: int  # paragraph index, 1 = first record after the header
    raw: str

    @property
    def ref(self) -> str:
        return f"{self.file}#{self.index}"


@dataclass
class Paper:
    """One distinct abstract, with every record it came from."""

    fingerprint: str
    text: str
    records: list[Record] = field(default_factory=list)

    @property
    def source_records(self) -> str:
        return ";".join(r.ref for r in self.records)


_ACCENTS = {
    "'": "\u0301",  # acute
    "`": "\u0300",  # grave
    '"': "\u0308",  # diaeresis
    "^": "\u0302",  # circumflex
    "~": "\u0303",  # tilde
}


def seeds_dir() -> Path:
    """The seed folder: $SEEDS_DIR if set (a relative path is taken from the checkout, where make
    runs), else ../shared/seeds next to the project."""
    from analysis.data.paths import ROOT

    env = os.environ.get("SEEDS_DIR")
    if not env:
        return DEFAULT_SEEDS
    if len(env) > 1024 or "\x00" in env:
        raise CorpusError(f"SEEDS: a folder name of {len(env):,} characters (at most 1,024): "
                          f"{env[:40]!r}...")
    path = Path(env)
    return path if path.is_absolute() else ROOT / path


def seeds_listing(folder: Path | None = None) -> str:
    """What validation depends on in the seed folder: its path and each file's name, size and time, one per
    line. `make` never sees the file names (a name with a space or a colon is not a make word); it depends on
    a stamp holding this text, rewritten only when it changes: a new, edited or removed file, or another
    folder (``SEEDS=...``), even a missing one, runs validation again."""
    folder = (folder or seeds_dir()).resolve()
    if not folder.is_dir():
        return f"{folder}\t(missing)\n"
    lines = [str(folder)]
    for p in sorted(folder.iterdir()):
        if p.is_file():
            st = p.stat()
            lines.append(f"{p.name!r}\t{st.st_size}\t{st.st_mtime_ns}")
    return "\n".join(lines) + "\n"


def _accent(match: re.Match[str]) -> str:
    mark, letter = match.group(1), match.group(2)
    return unicodedata.normalize("NFC", letter + _ACCENTS[mark])


def normalise(text: str) -> str:
    """Normalise one abstract: whitespace, LaTeX accents and the stripped-macro residue.

    >>> normalise("M\\\\'elange is 1.5-2.0times faster, sim ! 600times fewer, geq 81.3\\\\%")
    'Mélange is 1.5-2.0× faster, ~600× fewer, ≥ 81.3%'
    """
    t = " ".join(text.split())
    t = re.sub(r"\\([\'`\"^~])\{?([A-Za-z])\}?", _accent, t)
    t = t.replace("\\%", "%").replace("\\&", "&").replace("\\times", "×")
    t = re.sub(r"\bsim\s*!?\s*(?=[\d.])", "~", t)
    t = re.sub(r"(\d)\s*times\b", r"\1×", t)
    t = re.sub(r"\bgeq\s*(?=[\d.])", "≥ ", t)
    t = re.sub(r"\bleq\s*(?=[\d.])", "≤ ", t)
    return t


def fingerprint(text: str) -> str:
    """sha256 of the normalised abstract, hex."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


MAX_RECORD_CHARS = 20_000
"""A seed record longer than this is refused: an abstract is a paragraph (the corpus's longest is under 3,000
characters), and a 20 MB record would make the near-duplicate search run for minutes."""


def read_records(path: Path) -> list[Record]:
    """Read one seed file into records, refusing malformed input with file and record named."""
    from analysis.data.paths import record_read

    record_read(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorpusError(f"{path}: line {line}: not valid UTF-8 ({exc.reason})") from exc
    if text.startswith("\ufeff"):
        raise CorpusError(f"{path}: line 1: the file starts with a byte-order mark (U+FEFF); save it as UTF-8 "
                          f"without BOM, starting with the header {HEADER!r}")
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise CorpusError(f"{path}: line {line}: a NUL byte (U+0000): not a text file, or a damaged one")
    text = text.replace("\r\n", "\n")
    paras = re.split(r"\n[ \t]*\n", text.strip("\n"))
    if not paras or paras[0].strip() != HEADER:
        raise CorpusError(f"{path}: line 1: expected header {HEADER!r}")
    out: list[Record] = []
    for i, para in enumerate(paras[1:], 1):
        body = para.strip()
        if not re.search(r"[A-Za-z]{2,}", body):
            raise CorpusError(f"{path}: record {i}: record has no words: {body[:40]!r}")
        if len(body) > MAX_RECORD_CHARS:
            raise CorpusError(f"{path}: record {i}: {len(body):,} characters, more than an abstract can be "
                              f"(at most {MAX_RECORD_CHARS:,}; the corpus's longest is under 3,000)")
        out.append(Record(path.name, i, body))
    if not out:
        raise CorpusError(f"{path}: no records after the header")
    return out


def load_corpus(folder: Path | None = None) -> list[Paper]:
    """All distinct papers of the seed folder, in order of first appearance."""
    folder = folder or seeds_dir()
    files = sorted(folder.glob("*.txt"))
    if not files:
        raise CorpusError(f"{folder}: no seed .txt files found")
    papers: dict[str, Paper] = {}
    for f in files:
        for rec in read_records(f):
            norm = normalise(rec.raw)
            fp = hashlib.sha256(norm.encode("utf-8")).hexdigest()
            papers.setdefault(fp, Paper(fp, norm)).records.append(rec)
    return list(papers.values())


def _shingles(text: str, k: int = 5) -> set[tuple[str, ...]]:
    w = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(w[i : i + k]) for i in range(max(len(w) - k + 1, 1))}


# A shingle found in more than this many papers is boilerplate ("large language models llms have"):
# it proposes no pair. Without the cap, one phrase shared by n papers would propose n²/2 pairs.
COMMON_SHINGLE = 50


def jaccard_pairs(texts: list[str], threshold: float = 0.3,
                  against: int | None = None) -> list[tuple[int, int, float]]:
    """Pairs (i, j), i < j, of `texts` whose 5-word-shingle Jaccard similarity is at least `threshold`.

    An inverted index from shingle to texts proposes the pairs that share a shingle (shingles in
    more than COMMON_SHINGLE texts excepted); only those are compared, so the work grows with the
    number of similar pairs, not with the square of the number of texts. With `against` = n, only
    pairs with j >= n are returned (new texts against the first n, and among themselves).
    """
    # each shingle as its hash (an int): sets of ints are small and need no garbage collection
    sh = [{hash(g) for g in _shingles(t)} for t in texts]
    postings: dict[int, list[int]] = {}
    for i, s in enumerate(sh):
        for g in s:
            postings.setdefault(g, []).append(i)
    candidates: set[tuple[int, int]] = set()
    for docs in postings.values():
        if 1 < len(docs) <= COMMON_SHINGLE:
            for x in range(len(docs)):
                for y in range(x + 1, len(docs)):
                    if against is None or docs[y] >= against:
                        candidates.add((docs[x], docs[y]))
    out = []
    for i, j in sorted(candidates):
        a, b = sh[i], sh[j]
        jac = len(a & b) / len(a | b)
        if jac >= threshold:
            out.append((i, j, round(jac, 3)))
    return out


def near_duplicates(papers: list[Paper], threshold: float = 0.3) -> list[tuple[str, str, float]]:
    """Pairs of distinct papers whose 5-word-shingle Jaccard similarity is at least `threshold`.

    These are flagged for a person to judge (two versions of one paper, or two papers
    from one line of work); they are never merged automatically.
    """
    pairs = jaccard_pairs([p.text for p in papers], threshold)
    return [(papers[i].fingerprint, papers[j].fingerprint, jac) for i, j, jac in pairs]


def first_words(text: str, n: int = 8) -> str:
    """The first `n` words of an abstract, to name a record in a message."""
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


NEXT_STEP = ("next: `make corpus` writes the update to review to _build/corpus/ (new papers scaffolded, "
             "duplicates named); review it, then `make accept` merges the accepted rows into data/ "
             "(docs/adding-papers.md)")


def _ref_key(ref: str) -> tuple[str, int]:
    name, _, n = ref.rpartition("#")
    return name, int(n) if n.isdigit() else 0


def folded(rows: list[tuple[str, str, str]], papers: list[Paper]) -> dict[str, str]:
    """Seed papers folded into another paper's row (`make accept`'s ``merge`` mark: another version of a
    paper in the table): fingerprint -> the citekey whose ``source_records`` list its records."""
    by_ref = {r.ref: p for p in papers for r in p.records}
    out: dict[str, str] = {}
    for key, fp, src in rows:
        for ref in filter(None, src.split(";")):
            paper = by_ref.get(ref)
            if paper is not None and paper.fingerprint != fp:
                out.setdefault(paper.fingerprint, key)
    return out


def expected_sources(fp: str, key: str, papers: list[Paper], merged: dict[str, str]) -> str:
    """The ``source_records`` a row should hold: the records of its own text and of every version folded into
    it, in seed order (file name, then paragraph)."""
    refs = [r.ref for p in papers if p.fingerprint == fp or merged.get(p.fingerprint) == key for r in p.records]
    return ";".join(sorted(refs, key=_ref_key))


def _stale_rows(rows: list[tuple[str, str, str]], papers: list[Paper], table: str) -> list[str]:
    by_fp = {p.fingerprint: p for p in papers}
    merged = folded(rows, papers)
    own = {fp for _, fp, _ in rows}
    stale = []
    for i, (key, fp, src) in enumerate(rows):
        if fp not in by_fp:
            stale.append(f"  {table}: row {i + 2} ({key}): no seed record has its fingerprint "
                         "(a seed file removed or edited?)")
            continue
        want = expected_sources(fp, key, papers, merged)
        twice = [f for f, k in merged.items() if k == key and f in own]
        if twice:
            stale.append(f"  {table}: row {i + 2} ({key}), column source_records: lists records of a paper that "
                         "has its own row")
        elif src != want:
            stale.append(f"  {table}: row {i + 2} ({key}), column source_records: {src!r}, but the seeds "
                         f"hold {want!r}")
    return stale


def coverage_problems(rows: list[tuple[str, str, str]], papers: list[Paper], table: str = "data/papers.csv",
                      limit: int = 40) -> list[str]:
    """Where the paper table and the seed files disagree, as message lines ([] when they agree).

    `rows` are (citekey, fingerprint, source_records) of the paper table in file order. Reported:
    seed records whose paper has no row (file#n and first words; a version folded into another row's
    ``source_records`` has one), rows whose fingerprint no seed record has, and rows whose source_records
    differ from the records the seeds hold (:func:`expected_sources`).
    """
    known = {fp for _, fp, _ in rows} | set(folded(rows, papers))
    missing = [(r, p) for p in papers if p.fingerprint not in known for r in p.records]
    out: list[str] = []
    if missing:
        out.append(f"{len(missing)} seed record(s) have no row in {table}:")
        out += [f"  {r.ref}  \"{first_words(p.text)}\"" for r, p in missing[:limit]]
        if len(missing) > limit:
            out.append(f"  ... and {len(missing) - limit} more (make corpus lists them all)")
    stale = _stale_rows(rows, papers, table)
    if stale:
        out.append(f"{len(stale)} row(s) of {table} do not match the seed records:")
        out += stale[:limit]
        if len(stale) > limit:
            out.append(f"  ... and {len(stale) - limit} more")
    if out:
        out.append(NEXT_STEP)
    return out


def judgements(pairs: list[tuple[str, str, float]], rows: list[tuple[str, str, str]],
               papers: list[Paper]) -> list[str]:
    """The judgement the paper table records for each near-duplicate pair (fingerprints a, b): "same paper,
    merged into <citekey>" when one text is folded into the other's row, "separate papers" when each has a
    row of its own (a reviewer accepted it with the pair shown), else "to judge" (a text still under review)."""
    own = {fp: key for key, fp, _ in rows}
    merged = folded(rows, papers)
    out = []
    for a, b, _ in pairs:
        ka, kb = own.get(a) or merged.get(a), own.get(b) or merged.get(b)
        if ka and ka == kb:
            out.append(f"same paper, merged into {ka}")
        elif a in own and b in own:
            out.append("separate papers")
        else:
            out.append("to judge")
    return out


def check_coverage(rows: list[tuple[str, str, str]], folder: Path | None = None) -> str:
    """Validation: every seed record has its paper row and every row its records (skipped without seeds)."""
    from analysis.data.paths import DataError

    folder = folder or seeds_dir()
    if not folder.is_dir():
        return f"seed records not checked: no seed folder at {folder}"
    papers = load_corpus(folder)
    # `make accept` validates a partial merge: the papers still under review may lack a row there
    pending_file = os.environ.get("ANALYSIS_PENDING_FINGERPRINTS")
    pending = set(Path(pending_file).read_text(encoding="utf-8").split()) if pending_file else set()
    known = {fp for _, fp, _ in rows}
    waiting = {p.fingerprint for p in papers if p.fingerprint in pending and p.fingerprint not in known}
    problems = coverage_problems(rows, [p for p in papers if p.fingerprint not in waiting])
    if problems:
        raise DataError("data/papers.csv and the seed files disagree: " + "\n".join(problems))
    n = sum(len(p.records) for p in papers)
    if waiting:
        return f"{len(waiting)} seed paper(s) still under review, the other seed records have their paper"
    return f"all {n} seed records have their paper"


def ingest(folder: Path | None, out: Path) -> list[str]:
    """Write the record→paper map and the near-duplicate report (no abstract text, with the judgement the
    paper table records for each pair: :func:`judgements`) to `out`.

    records.csv: file, paragraph index, fingerprint and the citekey from data/papers.csv
    (empty when a seed paper has no row there). near-duplicates.csv: pairs to judge by hand.
    Files are written to a temporary name and renamed, so nothing is left half-written.
    """
    import csv

    papers = load_corpus(folder)
    keys: dict[str, str] = {}
    try:
        from analysis.data import papers as paper_data

        pp = paper_data.load()
        rows_t = list(zip(pp["citekey"], pp["fingerprint"], pp["source_records"].fillna(""), strict=True))
        keys = {**folded(rows_t, papers), **dict(zip(pp["fingerprint"], pp["citekey"], strict=True))}
    except Exception:  # noqa: BLE001 - the map is still useful without the paper table
        keys, rows_t = {}, []
    out.mkdir(parents=True, exist_ok=True)
    rows = [(r.file, r.index, p.fingerprint, keys.get(p.fingerprint, "")) for p in papers for r in p.records]
    tmp = out / "records.csv.tmp"
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["file", "paragraph", "fingerprint", "citekey"])
        w.writerows(rows)
    tmp.replace(out / "records.csv")
    pairs = near_duplicates(papers)
    tmp = out / "near-duplicates.csv.tmp"
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["fingerprint_a", "citekey_a", "fingerprint_b", "citekey_b", "jaccard_5gram", "judgement"])
        w.writerows((a, keys.get(a, ""), b, keys.get(b, ""), j, judged)
                    for (a, b, j), judged in zip(pairs, judgements(pairs, rows_t, papers), strict=True))
    tmp.replace(out / "near-duplicates.csv")
    unmapped = sum(1 for r in rows if not r[3])
    return [
        f"{len(rows)} records in {len({r[0] for r in rows})} files -> {len(papers)} distinct papers "
        f"({len(rows) - len(papers)} exact duplicates merged)",
        f"{len(pairs)} near-duplicate pair(s) flagged for review: {out / 'near-duplicates.csv'}",
        f"{unmapped} record(s) without a row in data/papers.csv",
        f"record map: {out / 'records.csv'}",
    ]
