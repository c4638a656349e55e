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
    """The seed folder: $SEEDS_DIR if set, else ../shared/seeds next to the project."""
    env = os.environ.get("SEEDS_DIR")
    return Path(env) if env else DEFAULT_SEEDS


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
    text = text.replace("\r\n", "\n")
    paras = re.split(r"\n[ \t]*\n", text.strip("\n"))
    if not paras or paras[0].strip() != HEADER:
        raise CorpusError(f"{path}: line 1: expected header {HEADER!r}")
    out: list[Record] = []
    for i, para in enumerate(paras[1:], 1):
        body = para.strip()
        if not re.search(r"[A-Za-z]{2,}", body):
            raise CorpusError(f"{path}: record {i}: record has no words: {body[:40]!r}")
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


def near_duplicates(papers: list[Paper], threshold: float = 0.3) -> list[tuple[str, str, float]]:
    """Pairs of distinct papers whose 5-word-shingle Jaccard similarity is at least `threshold`.

    These are flagged for a person to judge (two versions of one paper, or two papers
    from one line of work); they are never merged automatically.
    """
    sh = [(p.fingerprint, _shingles(p.text)) for p in papers]
    out = []
    for i in range(len(sh)):
        for j in range(i + 1, len(sh)):
            a, b = sh[i][1], sh[j][1]
            jac = len(a & b) / len(a | b)
            if jac >= threshold:
                out.append((sh[i][0], sh[j][0], round(jac, 3)))
    return out


def ingest(folder: Path | None, out: Path) -> list[str]:
    """Write the record→paper map and the near-duplicate report (no abstract text) to `out`.

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
        keys = dict(zip(pp["fingerprint"], pp["citekey"], strict=True))
    except Exception:  # noqa: BLE001 - the map is still useful without the paper table
        keys = {}
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
        w.writerow(["fingerprint_a", "citekey_a", "fingerprint_b", "citekey_b", "jaccard_5gram"])
        w.writerows((a, keys.get(a, ""), b, keys.get(b, ""), j) for a, b, j in pairs)
    tmp.replace(out / "near-duplicates.csv")
    unmapped = sum(1 for r in rows if not r[3])
    return [
        f"{len(rows)} records in {len({r[0] for r in rows})} files -> {len(papers)} distinct papers "
        f"({len(rows) - len(papers)} exact duplicates merged)",
        f"{len(pairs)} near-duplicate pair(s) flagged for review: {out / 'near-duplicates.csv'}",
        f"{unmapped} record(s) without a row in data/papers.csv",
        f"record map: {out / 'records.csv'}",
    ]
