"""The corpus update (`make corpus`) and the merge of reviewed rows (`make accept`).

:func:`update` compares the seed folder with data/papers.csv and writes, for a person to review,
into the review folder (default _build/corpus/):

- ``new-records.csv``: every seed record the paper table does not account for: a new paper, an
  exact duplicate of a paper already in the table (its citekey, similarity 1.0), or a near
  duplicate of one (5-word-shingle Jaccard similarity of at least 0.3, its citekey and score);
- ``papers-to-review.csv``: one scaffold row per new paper, in data/papers.csv's columns, with a
  suggested citekey, a theme suggested by a classifier trained on the labelled papers
  (:mod:`analysis.data.classify`) with its confidence and runner-up, the hardware the abstract
  names, the arXiv identification if `python -m analysis identify` found one, and ``review`` =
  ``unreviewed``;
- ``claims-to-review.csv``: candidate claims with units found in each new abstract
  (:mod:`analysis.data.claim_candidates`), in data/claims.csv's columns followed by the codebook's
  typed fields (``statistic``, ``bound``, ``bound_on``, ``baseline_class``; the last a suggestion of
  the keyword classifier), ``review`` = ``unreviewed``;
- ``source-updates.csv``: rows of data/papers.csv whose ``source_records`` the seeds now extend
  (an exact duplicate in a new file), applied by the next accept.

Nothing is written to data/. A person completes the rows (title, authors, summary in their own
words, subtopic, ...), sets ``review`` to ``accept`` (claims: ``accept`` or ``reject``) and runs
:func:`accept`, which merges the accepted rows into a staging copy of data/, runs the same
validation as the build on it (schemas, themes, hardware names, claim evidence in the abstract,
the seed records' coverage) and only then replaces data/papers.csv and data/claims.csv. Rows left
``unreviewed`` stay in the review files; a later `make corpus` keeps the rows already marked.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from analysis.data import claim_candidates, classify, corpus, text, transaction
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
GENERIC = {"GPU", "GPUs", "CPU", "CPUs", "LLM", "LLMs", "AI", "ML", "DNN", "DNNs", "CNN", "CNNs", "NVIDIA",
           "AMD", "TPU", "TPUs", "FPGA", "ASIC", "API", "HPC", "MoE", "NeRF", "SOTA", "SoTA", "IO", "I/O"}


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


# ---------------------------------------------------------------- suggestions

_SYSTEM = re.compile(r"\b(?:propose|present|introduce|develop|design|call|name)[sd]?\s+(?:a |an |the )?"
                     r"(?:new |novel )?(?:system |framework |method |technique |library |accelerator )?"
                     r"(?:called |named )?([A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\+*)")
# a name is kept whole: "FlashDecoding++", "Llama-3-8B"
_NAMEISH = re.compile(r"\b([A-Z][a-z0-9]*[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?:\+\+?|\b))")


def system_name(text: str) -> str:
    """A name the abstract gives its system or method ('We present FlashFoo, ...'), else ''."""
    from analysis.data.claims import UNITS

    for rx in (_SYSTEM, _NAMEISH):
        for m in rx.finditer(text):
            name = m.group(1)
            if name.rstrip("+") in GENERIC or name in UNITS or re.fullmatch(r"[A-Z]\d*", name):
                continue
            if rx is _NAMEISH or re.search(r"[A-Z].*[A-Z0-9]|\d", name):
                return name
    return ""


def _slug(text: str) -> str:
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", ascii_text.lower())


def _title_word(text: str, title: str) -> str:
    if title:
        words = [w for w in re.findall(r"[A-Za-z0-9]+", title) if w.lower() not in {"a", "an", "the", "on", "of"}]
        if words:
            return _slug(words[0])
    return _slug(system_name(text)) or _slug(next((w for w in re.findall(r"[A-Za-z]{4,}", text)
                                                   if w.lower() not in {"this", "that", "with", "from"}), "paper"))


def suggest_citekey(text: str, taken: set[str], year: int | str | None, authors: str = "", title: str = "") -> str:
    """family name of the first author + year + first title word (the table's convention) from identified
    metadata, or 'anon' + the seed file's year (none when its name has no date: never the clock's year) + the
    system's name when the paper is not identified yet; unique among `taken`."""
    family = _slug(authors.split(" and ")[0].split(",")[0]) if authors else ""
    base = f"{family or 'anon'}{year or ''}{_title_word(text, title)}"
    if not re.match(r"^[a-z]", base):
        base = "p" + base
    key, n = base, 0
    while key in taken:
        n += 1
        key = base + "abcdefghijklmnopqrstuvwxyz"[(n - 1) % 26] * ((n - 1) // 26 + 1)
    taken.add(key)
    return key


def seed_year(paper: corpus.Paper) -> int | None:
    """The year in the name of the seed file a paper first appears in ("2025-03-14.txt"), else None."""
    m = re.search(r"(?<!\d)((?:19|20)\d\d)(?:[-_]?(?:0[1-9]|1[0-2]))?(?!\d)", paper.records[0].file)
    return int(m.group(1)) if m else None


def contribution_type(text: str) -> str:
    t = text.lower()
    for word, kind in (("survey", "survey"), ("benchmark", "benchmark"), ("dataset", "dataset"),
                       ("position paper", "position"), ("we argue", "position")):
        if word in t[:400]:
            return kind
    if re.search(r"\b(?:this|our|we|a) (?:\w+ )?(?:study|studies|characteri[sz]\w*|measure\w*|analy[sz]\w*|"
                 r"investigat\w*|quantif\w*|empirical\w*)\b", t[:500]) and not re.search(
                     r"\bwe (?:propose|present|introduce|design|develop)\b", t[:500]):
        return "benchmark"  # a measurement study: the table has no "study" type (schemas.PAPERS)
    return "system" if re.search(r"\bsystem\b|\bframework\b|\blibrary\b|\baccelerator\b", t[:400]) else "method"


VENDOR_FAMILIES = {"GPU": r"(?:NVIDIA|AMD|Intel|Nvidia)(?:\s+(?:and|or|,)\s+(?:NVIDIA|AMD|Intel|Nvidia))*\s+GPUs?",
                   "CPU": r"(?:Intel|AMD|Arm|ARM)(?:\s+(?:and|or|,)\s+(?:Intel|AMD|Arm|ARM))*\s+CPUs?",
                   "TPU": r"(?:Google\s+)?(?:Cloud\s+)?TPUs?"}
"""Vendor families named without a part ("NVIDIA and AMD GPUs"): the table's class of device."""


@lru_cache(maxsize=4)
def _hardware_regex(names: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    spelled = {v: n for n in names for v in (n, n.replace("-", " "))}
    alternatives = "|".join(re.escape(v) for v in sorted(spelled, key=lambda v: (-len(v), v)))
    return re.compile(rf"(?<![\w-])(?:{alternatives})s?(?![\w-])"), spelled


def hardware_names(text: str, names: list[str]) -> str:
    """The hardware ids and families (data/hardware.csv) the abstract names, in order of appearance; a plural
    ("H100s", "GPUs") and a vendor family ("NVIDIA and AMD GPUs": :data:`VENDOR_FAMILIES`) count."""
    rx, spelled = _hardware_regex(tuple(names))
    found = [(m.start(), spelled.get(m.group(0)) or spelled[m.group(0)[:-1]]) for m in rx.finditer(text)]
    found += [(m.start(), cls) for cls, pat in VENDOR_FAMILIES.items() if cls in names
              for m in re.finditer(pat, text)]
    return ";".join(dict.fromkeys(name for _, name in sorted(found)))


def code_url(text: str) -> str:
    m = re.search(r"https?://(?:github\.com|gitlab\.com)/[\w./-]+", text)
    return m.group(0).rstrip(".") if m else ""


# ---------------------------------------------------------------- the update

@dataclass
class Update:
    new_papers: list[corpus.Paper] = field(default_factory=list)
    exact_duplicates: list[tuple[str, str]] = field(default_factory=list)  # (record ref, citekey)
    near_duplicates: list[tuple[str, str, float]] = field(default_factory=list)  # (new ref, other, Jaccard)
    orphans: list[str] = field(default_factory=list)  # citekeys whose fingerprint no seed record has
    source_updates: list[dict[str, str]] = field(default_factory=list)
    scaffold: list[dict[str, str]] = field(default_factory=list)
    claims: list[dict[str, str]] = field(default_factory=list)
    cv: classify.CrossValidation | None = None
    kept: int = 0  # scaffold rows already marked by a reviewer, kept as they were


def _hardware_list(data_dir: Path) -> list[str]:
    _, rows = read_table(data_dir / "hardware.csv")
    names = {r["hardware_id"] for r in rows} | {r["family"] for r in rows}
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


def _duplicates(up: Update, papers: list[corpus.Paper], table: list[dict[str, str]]) -> list[corpus.Paper]:
    """Sort the seed papers into those the table accounts for (returned: a row of their own, or folded into
    a row as another version) and new ones (``up.new_papers``); note exact duplicates and source updates."""
    rows = [(r["citekey"], r["fingerprint"], r["source_records"]) for r in table]
    merged = corpus.folded(rows, papers)
    by_fp = {r["fingerprint"]: r for r in table}
    seed_fps = {p.fingerprint for p in papers}
    up.orphans = [r["citekey"] for r in table if r["fingerprint"] not in seed_fps]
    existing = [p for p in papers if p.fingerprint in by_fp]
    up.new_papers = [p for p in papers if p.fingerprint not in by_fp and p.fingerprint not in merged]
    for p in existing:
        row = by_fp[p.fingerprint]
        want = corpus.expected_sources(p.fingerprint, row["citekey"], papers, merged)
        listed = set(filter(None, row["source_records"].split(";")))
        up.exact_duplicates += [(ref, row["citekey"]) for ref in want.split(";") if ref not in listed]
        if row["source_records"] != want:
            up.source_updates.append({"citekey": row["citekey"], "fingerprint": p.fingerprint,
                                      "source_records_now": row["source_records"], "source_records_seeds": want})
    return existing


def _near(up: Update, existing: list[corpus.Paper], by_fp: dict[str, dict[str, str]]) -> dict[int, tuple[str, float]]:
    """Near duplicates of each new paper, against the table's papers and among the new ones; returns, by the
    new paper's position in ``up.new_papers``, its most similar paper (citekey or record) and the score."""
    texts = [p.text for p in existing] + [p.text for p in up.new_papers]
    names = [by_fp[p.fingerprint]["citekey"] for p in existing] + [p.records[0].ref for p in up.new_papers]
    best: dict[int, tuple[str, float]] = {}
    for i, j, jac in corpus.jaccard_pairs(texts, against=len(existing)):
        up.near_duplicates.append((names[j], names[i], jac))
        for a, b in ((j, i), (i, j)):
            if a >= len(existing) and jac > best.get(a - len(existing), ("", -1.0))[1]:
                best[a - len(existing)] = (names[b], jac)
    return best


def _themes(up: Update, existing: list[corpus.Paper], table: list[dict[str, str]],
            with_cv: bool) -> list[classify.Suggestion]:
    """The classifier's suggestions for the new papers (trained on the labelled ones), and its cross-validation."""
    abstracts = {p.fingerprint: p.text for p in existing}
    x, y = classify.labelled([(r["citekey"], r["fingerprint"], r["theme"]) for r in table], abstracts)
    if len(set(y)) < 2:
        return []
    if with_cv:
        up.cv = classify.cross_validate(x, y)
    return classify.suggest(classify.train(x, y), [p.text for p in up.new_papers]) if up.new_papers else []


TWIN_COLUMNS = ("title", "authors", "year", "venue", "venue_kind", "venue_year", "cited_version", "arxiv_id", "doi",
                "url", "confirmed_url", "authors_source", "version_notes", "theme", "secondary_theme", "subtopic",
                "contribution_type", "system_name", "hardware", "code_url", "headline", "summary")
"""What a scaffold row copies from its near twin in the table (a merge keeps the twin's row; an accept as a
separate paper starts from it)."""


def _identified_fields(ident: dict[str, str]) -> dict[str, str]:
    if ident.get("verdict") != "match":
        return {}
    aid = ident.get("arxiv_id", "")
    link = f"https://arxiv.org/abs/{aid}" if aid else ""
    return {"title": ident.get("title", ""), "authors": ident.get("authors", ""), "year": ident.get("year", ""),
            "arxiv_id": aid, "url": link, "confirmed_url": link, "authors_source": link}


def _scaffold_row(p: corpus.Paper, key: str, header: list[str], hardware: list[str],
                  sug: classify.Suggestion | None, near: tuple[str, float] | None,
                  ident: dict[str, str], twin: dict[str, str] | None) -> dict[str, str]:
    row = {c: "" for c in header}
    row.update({"venue_kind": "preprint", "cited_version": "preprint", "theme": sug.theme if sug else "",
                "contribution_type": contribution_type(p.text), "system_name": system_name(p.text),
                "hardware": hardware_names(p.text, hardware), "code_url": code_url(p.text)})
    if twin:
        row.update({c: twin.get(c, "") for c in TWIN_COLUMNS if twin.get(c)})
    row.update(_identified_fields(ident))
    row.update({"citekey": key, "source_records": p.source_records, "fingerprint": p.fingerprint})
    return {"review": "unreviewed", **row,
            "theme_confidence": f"{sug.confidence:.3f}" if sug else "",
            "theme_runner_up": f"{sug.runner_up} ({sug.runner_up_confidence:.3f})" if sug else "",
            "similar_to": near[0] if near else "", "similarity": f"{near[1]:.3f}" if near else "",
            "identified_similarity": ident.get("similarity", ""), "first_words": corpus.first_words(p.text, 12)}


def plan(papers: list[corpus.Paper], table: list[dict[str, str]], hardware: list[str], year: int | None = None,
         identified: dict[str, dict[str, str]] | None = None, with_cv: bool = True,
         classify_baseline: Callable[[str], str] | None = None) -> Update:
    """Everything the update proposes, from the seed papers and the paper table's rows (no files);
    `classify_baseline` (the book's keyword classifier) suggests each candidate's baseline class. An
    unidentified paper's citekey takes `year`, else its seed file's year (:func:`seed_year`), else none."""
    identified = identified or {}
    up = Update()
    by_fp = {r["fingerprint"]: r for r in table}
    by_key = {r["citekey"]: r for r in table}
    existing = _duplicates(up, papers, table)
    best = _near(up, existing, by_fp)
    suggestions = _themes(up, existing, table, with_cv)
    taken = {r["citekey"] for r in table}
    header = list(table[0]) if table else []
    for k, p in enumerate(up.new_papers):
        ident = identified.get(p.fingerprint, {})
        idf = _identified_fields(ident)
        key = suggest_citekey(p.text, taken, idf.get("year") or year or seed_year(p), idf.get("authors", ""),
                              idf.get("title", ""))
        near = best.get(k)
        row = _scaffold_row(p, key, header, hardware, suggestions[k] if suggestions else None, near, ident,
                            by_key.get(near[0]) if near else None)
        up.scaffold.append(row)
        up.claims += [{"review": "unreviewed", **c}
                      for c in claim_candidates.claim_rows(key, p.text, classify_baseline)]
    return up


def load_identified(review: Path) -> dict[str, dict[str, str]]:
    _, rows = read_table(review / IDENTIFY_FILE)
    return {r["fingerprint"]: r for r in rows}


def update(seeds: Path | None = None, data_dir: Path | None = None, review: Path | None = None,
           year: int | None = None, classify_baseline: Callable[[str], str] | None = None) -> list[str]:
    """Write the update to review (see the module's docstring); returns the lines to print."""
    data_dir = data_dir or DATA
    review = review or REVIEW_DIR
    papers = corpus.load_corpus(seeds)
    header, table = read_table(data_dir / "papers.csv")
    if not header:
        raise DataError(f"{data_dir / 'papers.csv'}: the paper table is missing")
    up = plan(papers, table, _hardware_list(data_dir), year, load_identified(review),
              classify_baseline=classify_baseline)
    # rows a reviewer has already marked are kept as they were, with their claims
    _, old_papers = read_table(review / PAPERS_FILE)
    _, old_claims = read_table(review / CLAIMS_FILE)
    marked = {r["fingerprint"]: r for r in old_papers if r.get("review", "unreviewed") != "unreviewed"}
    new_fps = {p.fingerprint for p in up.new_papers}
    scaffold, claims = [], []
    for row in up.scaffold:
        old = marked.get(row["fingerprint"])
        if old and old["fingerprint"] in new_fps:
            up.kept += 1
            scaffold.append(old)
            claims += [c for c in old_claims if c["citekey"] == old["citekey"]]
        else:
            scaffold.append(row)
            claims += [c for c in up.claims if c["citekey"] == row["citekey"]]
    paper_cols = ["review", *header, *PAPER_EXTRA]
    claims_header, _ = read_table(data_dir / "claims.csv")
    write_table(review / PAPERS_FILE, paper_cols, [{c: r.get(c, "") for c in paper_cols} for r in scaffold])
    # the codebook's typed fields follow the ledger's columns (accept keeps those data/claims.csv has)
    claim_cols = ["review", *claims_header, *[c for c in claim_candidates.TYPED_FIELDS if c not in claims_header]]
    write_table(review / CLAIMS_FILE, claim_cols, [{c: r.get(c, "") for c in claim_cols} for r in claims])
    write_table(review / SOURCES_FILE, SOURCE_COLUMNS, up.source_updates)
    records = []
    near_of: dict[str, tuple[str, float]] = {}
    for a, b, jac in up.near_duplicates:
        near_of.setdefault(a, (b, jac))
    for p, row in zip(up.new_papers, scaffold, strict=True):
        for r in p.records:
            other = near_of.get(p.records[0].ref)
            records.append({"ref": r.ref, "fingerprint": p.fingerprint,
                            "status": "new paper, near duplicate" if other else "new paper",
                            "citekey": row["citekey"] + " (suggested)" + (f"; near {other[0]}" if other else ""),
                            "similarity": f"{other[1]:.3f}" if other else "",
                            "first_words": corpus.first_words(p.text)})
    by_key = {r["citekey"]: r for r in table}
    texts = {p.fingerprint: p.text for p in papers}
    for ref, key in up.exact_duplicates:
        records.append({"ref": ref, "fingerprint": by_key[key]["fingerprint"], "status": "exact duplicate",
                        "citekey": key, "similarity": "1.000",
                        "first_words": corpus.first_words(texts[by_key[key]["fingerprint"]])})
    write_table(review / RECORDS_FILE, RECORD_COLUMNS, records)
    return _summary(up, review, len(papers), len(table))


def _summary(up: Update, review: Path, n_seed: int, n_table: int) -> list[str]:
    rel = os.path.relpath(review, ROOT) if review.is_relative_to(ROOT) else str(review)
    lines = [f"seed folder: {n_seed} distinct papers; data/papers.csv: {n_table} rows"]
    lines.append(f"{len(up.new_papers)} new paper(s):")
    for p, row in zip(up.new_papers, up.scaffold, strict=True):
        lines.append(f"  {p.source_records}  \"{corpus.first_words(p.text)}\" -> {row['citekey']} "
                     f"(theme {row['theme'] or '?'}, confidence {row['theme_confidence'] or '?'}; "
                     f"{sum(1 for c in up.claims if c['citekey'] == row['citekey'])} claim candidates)")
    lines.append(f"{len(up.exact_duplicates)} exact duplicate record(s) of papers in the table:")
    lines += [f"  {ref} = {key} (similarity 1.000)" for ref, key in up.exact_duplicates]
    lines.append(f"{len(up.near_duplicates)} near-duplicate pair(s) with a new paper (5-word-shingle Jaccard >= 0.3):")
    lines += [f"  {a} ~ {b} (similarity {jac:.3f})" for a, b, jac in up.near_duplicates]
    if up.orphans:
        lines.append(f"{len(up.orphans)} row(s) of data/papers.csv match no seed record: {', '.join(up.orphans)}")
    if up.cv:
        lines.append(f"theme classifier: {100 * up.cv.accuracy:.1f}% accuracy in {up.cv.folds}-fold cross-validation "
                     f"on the {up.cv.n_papers} labelled papers ({up.cv.n_themes} themes)")
    if up.kept:
        lines.append(f"{up.kept} scaffold row(s) already marked by a reviewer were kept as they were")
    lines.append(f"to review: {rel}/{PAPERS_FILE}, {rel}/{CLAIMS_FILE} (records: {rel}/{RECORDS_FILE}; "
                 f"source-record updates, applied by accept: {rel}/{SOURCES_FILE})")
    if up.new_papers or up.source_updates:
        lines.append("next: complete each row, set review=accept (claims: accept or reject), then `make accept`")
    else:
        lines.append("nothing to accept: data/papers.csv accounts for every seed record")
    return lines


# ---------------------------------------------------------------- accept

def _check_review(path: Path, rows: list[dict[str, str]], allowed: tuple[str, ...]) -> None:
    bad = [f"{path}: row {i + 2}, column review: {r.get('review', '')!r} (expected one of {', '.join(allowed)})"
           for i, r in enumerate(rows) if r.get("review", "") not in allowed]
    if bad:
        raise DataError("\n".join(bad[:20]))


def _schema_check(review_file: Path, header: list[str], rows: list[tuple[int, dict[str, str]]], schema: object,
                  name: str) -> None:
    """Check the accepted rows against their table's schema, naming the review file's rows."""
    from analysis.data.tables import read_csv

    if not rows:
        return
    with tempfile.TemporaryDirectory(prefix="accept-") as tmp:
        path = Path(tmp) / name
        path.write_text(table_text(header, [r for _, r in rows]), encoding="utf-8")
        try:
            read_csv(name, schema, path=path)
        except DataError as exc:
            lines_at = [i for i, _ in rows]

            def where(m: re.Match[str]) -> str:
                k = int(m.group(1)) - 2
                return f"row {lines_at[k] + 2}" if 0 <= k < len(lines_at) else m.group(0)

            text = re.sub(r"row (\d+)", where, str(exc)).replace(str(path), str(review_file))
            raise DataError(f"accepted rows that do not fit data/{name} (nothing was changed):\n{text}") from None


def _merge(review_file: Path, rp: list[dict[str, str]], p_rows: list[dict[str, str]]) -> list[int]:
    """Fold each row marked ``merge`` into the paper its ``similar_to`` names (another version of it): its
    records join that row's ``source_records`` and its ``version_notes`` replace that row's (they were
    pre-filled from it). Returns the merged rows' positions; refuses naming the review file's row and column."""
    by_key = {r["citekey"]: r for r in p_rows}
    done, bad = [], []
    for i, r in enumerate(rp):
        if r["review"] != "merge":
            continue
        target = by_key.get(r.get("similar_to", ""))
        if target is None:
            bad.append(f"{review_file}: row {i + 2}, column similar_to: {r.get('similar_to', '')!r} is not a citekey "
                       "of data/papers.csv (a merge folds this record into the paper named there)")
        elif not r.get("version_notes", "").strip():
            bad.append(f"{review_file}: row {i + 2}, column version_notes: empty (say how this version differs "
                       f"from the one {target['citekey']} cites)")
        else:
            refs = {*filter(None, target["source_records"].split(";")), *filter(None, r["source_records"].split(";"))}
            target["source_records"] = ";".join(sorted(refs, key=corpus._ref_key))
            target["version_notes"] = r["version_notes"].strip()
            done.append(i)
    if bad:
        raise DataError("\n".join(bad[:20]))
    return done


def _abstracts(seeds: Path) -> tuple[list[corpus.Paper], set[tuple[str, ...]]]:
    papers = corpus.load_corpus(seeds)
    from analysis.data.claims import MAX_EVIDENCE_WORDS

    texts = [r.raw for p in papers for r in p.records] + [p.text for p in papers]
    return papers, text.shared_grams(texts, MAX_EVIDENCE_WORDS)


def _copy_check(review_file: Path, header: list[str], rows: list[tuple[int, dict[str, str]]],
                grams: set[tuple[str, ...]]) -> list[str]:
    """The project's copy check (../shared/tools/verbatim_check.py's rule, :mod:`analysis.data.text`) on each
    accepted row: on every field, and on the row as the checker reads the CSV line."""
    from analysis.data.claims import MAX_EVIDENCE_WORDS

    out = []
    for i, r in rows:
        cols = [c for c in header if text.copied_runs(r.get(c, ""), grams, MAX_EVIDENCE_WORDS)]
        line = table_text(header, [r]).split("\n", 1)[1]
        if cols or text.copied_runs(line, grams, MAX_EVIDENCE_WORDS):
            where = f"column {cols[0]}" if cols else "its fields read together"
            out.append(f"{review_file}: row {i + 2}, {where}: more than {MAX_EVIDENCE_WORDS} words in a row are "
                       "an abstract's (write it in your own words; evidence: at most 12 words)")
    return out


def _claim_checks(review_file: Path, new_c: list[tuple[int, dict[str, str]]], fp_of: dict[str, str],
                  papers: list[corpus.Paper]) -> list[str]:
    """Each accepted claim's id starts with its citekey, and its evidence is words of its paper's abstract."""
    by_fp = {p.fingerprint: p.text for p in papers}
    out = []
    for i, r in new_c:
        if not r["claim_id"].startswith(f"{r['citekey']}-"):
            out.append(f"{review_file}: row {i + 2}, column claim_id: {r['claim_id']!r} does not start with its "
                       f"citekey {r['citekey']!r} (a stale prefix? `python -m analysis rename-citekey` renames both)")
        abstract = by_fp.get(fp_of.get(r["citekey"], ""), "")
        if abstract and " ".join(r["evidence"].split()) not in abstract:
            out.append(f"{review_file}: row {i + 2}, column evidence: not words of the abstract of {r['citekey']} "
                       f"({r['evidence']!r})")
    return out


def _review_rows(message: str, name: str, n_before: int, rows: list[tuple[int, dict[str, str]]],
                 review_file: Path) -> str:
    """Rewrite "data/<name>: row N" of the staged table into the review file's row, for a merged row."""
    def where(m: re.Match[str]) -> str:
        k = int(m.group(1)) - 2 - n_before
        return f"{review_file}: row {rows[k][0] + 2}" if 0 <= k < len(rows) else m.group(0)

    return re.sub(rf"data/{re.escape(name)}: row (\d+)", where, message)


def _validate_staged(staged: Path, seeds: Path, pending: list[str], tmp: Path) -> str:
    """`python -m analysis validate` on the staged data/ ('' if it passes, else its message)."""
    pending_file = tmp / "pending.txt"
    pending_file.write_text("\n".join(pending) + "\n", encoding="utf-8")
    env = {**os.environ, "ANALYSIS_DATA_DIR": str(staged), "SEEDS_DIR": str(seeds), "PYTHONPATH": str(ROOT),
           "ANALYSIS_PENDING_FINGERPRINTS": str(pending_file)}
    env.pop("ANALYSIS_READS_FILE", None)
    proc = subprocess.run([sys.executable, "-m", "analysis", "validate"], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if proc.returncode == 0:
        return ""
    return (proc.stderr.strip() or proc.stdout.strip()).replace(str(staged), "data")


@dataclass
class _Review:
    """The review files and the rows they accept (positions in the review file, rows in data/'s columns)."""

    folder: Path
    rp: list[dict[str, str]]
    rc: list[dict[str, str]]
    rs: list[dict[str, str]]
    new_p: list[tuple[int, dict[str, str]]]
    new_c: list[tuple[int, dict[str, str]]]


def _read_review(review: Path, p_header: list[str], c_header: list[str]) -> _Review:
    _, rp = read_table(review / PAPERS_FILE)
    _, rc = read_table(review / CLAIMS_FILE)
    _, rs = read_table(review / SOURCES_FILE)
    _check_review(review / PAPERS_FILE, rp, PAPER_REVIEW)
    _check_review(review / CLAIMS_FILE, rc, CLAIM_REVIEW)
    new_p = [(i, {c: r.get(c, "") for c in p_header}) for i, r in enumerate(rp) if r["review"] == "accept"]
    new_c = [(i, {c: r.get(c, "") for c in c_header}) for i, r in enumerate(rc) if r["review"] == "accept"]
    return _Review(review, rp, rc, rs, new_p, new_c)


def _checks(rv: _Review, p_header: list[str], c_header: list[str], p_rows: list[dict[str, str]],
            seeds: Path) -> None:
    """Every check CI runs on the accepted rows, before anything is staged: known citekeys, the schemas, claim
    ids and evidence, the copy check; each refusal names the review file, row and column."""
    from analysis.data import claims as claim_data
    from analysis.data import schemas

    known = {r["citekey"] for r in p_rows} | {r["citekey"] for _, r in rv.new_p}
    orphan = [f"{rv.folder / CLAIMS_FILE}: row {i + 2}, column citekey: {r['citekey']!r} is neither in "
              "data/papers.csv nor an accepted paper row" for i, r in rv.new_c if r["citekey"] not in known]
    if orphan:
        raise DataError("\n".join(orphan[:20]))
    _schema_check(rv.folder / PAPERS_FILE, p_header, rv.new_p, schemas.PAPERS, "papers.csv")
    _schema_check(rv.folder / CLAIMS_FILE, c_header, rv.new_c, claim_data.SCHEMA, "claims.csv")
    papers, grams = _abstracts(seeds)
    merges = [(i, {c: r.get(c, "") for c in p_header}) for i, r in enumerate(rv.rp) if r["review"] == "merge"]
    fp_of = {r["citekey"]: r["fingerprint"] for r in p_rows} | {r["citekey"]: r["fingerprint"] for _, r in rv.new_p}
    problems = (_claim_checks(rv.folder / CLAIMS_FILE, rv.new_c, fp_of, papers)
                + _copy_check(rv.folder / PAPERS_FILE, p_header, rv.new_p + merges, grams)
                + _copy_check(rv.folder / CLAIMS_FILE, c_header, rv.new_c, grams))
    if problems:
        raise DataError("the accepted rows fail the checks CI runs (nothing was changed):\n" + "\n".join(problems[:20]))


def _source_updates(rs: list[dict[str, str]], p_rows: list[dict[str, str]]) -> int:
    """Apply the mechanical updates of source_records (an exact duplicate in a new seed file)."""
    applied = 0
    by_fp = {r["fingerprint"]: r for r in p_rows}
    for u in rs:
        row = by_fp.get(u["fingerprint"])
        if row is not None and row["source_records"] == u["source_records_now"]:
            row["source_records"] = u["source_records_seeds"]
            applied += 1
    return applied


def _stage_and_commit(rv: _Review, data_dir: Path, seeds: Path, tables: dict[str, tuple[list[str], list[dict]]],
                      merged: list[int]) -> None:
    """Write the merged tables to a staging copy of data/, validate it, then replace data/'s files and the
    review files in one transaction (:func:`analysis.data.transaction.commit_all_or_none`)."""
    done_p = {i for i, _ in rv.new_p} | set(merged)
    with tempfile.TemporaryDirectory(prefix="accept-") as tmp:
        staged = Path(tmp) / "data"
        shutil.copytree(data_dir, staged)
        for name, (header, rows) in tables.items():
            (staged / name).write_text(table_text(header, rows), encoding="utf-8")
        pending = [r["fingerprint"] for i, r in enumerate(rv.rp) if i not in done_p]
        message = _validate_staged(staged, seeds, pending, Path(tmp))
        if message:
            n_p = len(tables["papers.csv"][1]) - len(rv.new_p)
            n_c = len(tables["claims.csv"][1]) - len(rv.new_c)
            message = _review_rows(message, "papers.csv", n_p, rv.new_p, rv.folder / PAPERS_FILE)
            message = _review_rows(message, "claims.csv", n_c, rv.new_c, rv.folder / CLAIMS_FILE)
            raise DataError("the accepted rows do not validate with the rest of data/ (nothing was changed):\n"
                            + message)
        rev = Path(tmp) / "review"
        rev.mkdir()
        write_table(rev / PAPERS_FILE, list(rv.rp[0].keys()) if rv.rp else ["review"],
                    [r for i, r in enumerate(rv.rp) if i not in done_p])
        write_table(rev / CLAIMS_FILE, list(rv.rc[0].keys()) if rv.rc else ["review"],
                    [r for r in rv.rc if r["review"] == "unreviewed"])
        write_table(rev / SOURCES_FILE, SOURCE_COLUMNS, [])
        transaction.commit_all_or_none([*((staged / n, data_dir / n) for n in tables),
                                        *((rev / n, rv.folder / n) for n in (PAPERS_FILE, CLAIMS_FILE, SOURCES_FILE))],
                                       data_dir / transaction.JOURNAL)


def accept(review: Path | None = None, data_dir: Path | None = None, seeds: Path | None = None) -> list[str]:
    """Merge the accepted rows of the review files into data/ (``accept``: a new row; ``merge``: another
    version folded into the row its ``similar_to`` names), after every check CI runs on them and the build's
    validation of the result; data/ and the review files change together or not at all."""
    review = review or REVIEW_DIR
    data_dir = data_dir or DATA
    if not review.is_dir():
        raise DataError(f"{review}: no review folder (run `make corpus` first, or give --review an existing "
                        "folder)")
    recovered = transaction.recover(data_dir)
    if recovered:
        return [recovered, "nothing else was done: review the files and run `make accept` again"]
    seeds = (seeds or corpus.seeds_dir()).resolve()
    p_header, p_rows = read_table(data_dir / "papers.csv")
    c_header, c_rows = read_table(data_dir / "claims.csv")
    rv = _read_review(review, p_header, c_header)
    _checks(rv, p_header, c_header, p_rows, seeds)
    merged = _merge(review / PAPERS_FILE, rv.rp, p_rows)
    applied = _source_updates(rv.rs, p_rows)
    if not (rv.new_p or rv.new_c or applied or merged):
        return [f"nothing to accept in {review} (no row has review=accept or merge, no source-record update)"]
    tables = {"papers.csv": (p_header, p_rows + [r for _, r in rv.new_p]),
              "claims.csv": (c_header, c_rows + [r for _, r in rv.new_c])}
    _stage_and_commit(rv, data_dir, seeds, tables, merged)
    left = len(rv.rp) - len(rv.new_p) - len(merged)
    rejected = sum(1 for r in rv.rc if r["review"] == "reject")
    return [
        f"accepted {len(rv.new_p)} paper row(s), {len(merged)} version(s) merged into their paper and "
        f"{len(rv.new_c)} claim(s) into {data_dir}; {applied} source-record update(s); {rejected} claim "
        "candidate(s) rejected",
        "checked as CI checks them (schemas, claim ids and evidence, the copy check) and validated like any data "
        "(python -m analysis validate on the merged copy): ok",
        f"{left} paper row(s) still unreviewed in {review / PAPERS_FILE}" if left else "no paper row left to review",
        "next: `make book` (rebuilds what the new rows change)",
    ]


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
    files = [*sorted(data_dir.glob("*.csv")), *sorted((data_dir / "releases").glob("*.csv")),
             *sorted(review.glob("*.csv")), *sorted(chapters.glob("*.md"))]
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
