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

The review files and their format are :mod:`analysis.data.review_files`, the merge :mod:`analysis.data.acceptance`
(both re-exported here: ``intake.accept``, ``intake.read_table``, ...).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from analysis.data import claim_candidates, classify, corpus
from analysis.data.acceptance import accept as accept
from analysis.data.paths import DATA, ROOT, DataError
from analysis.data.review_files import CLAIM_REVIEW as CLAIM_REVIEW
from analysis.data.review_files import CLAIMS_FILE as CLAIMS_FILE
from analysis.data.review_files import IDENTIFY_FILE as IDENTIFY_FILE
from analysis.data.review_files import NEW_SECTION as NEW_SECTION
from analysis.data.review_files import PAPER_EXTRA as PAPER_EXTRA
from analysis.data.review_files import PAPER_REVIEW as PAPER_REVIEW
from analysis.data.review_files import PAPERS_FILE as PAPERS_FILE
from analysis.data.review_files import RECORD_COLUMNS as RECORD_COLUMNS
from analysis.data.review_files import RECORDS_FILE as RECORDS_FILE
from analysis.data.review_files import REVIEW_DIR as REVIEW_DIR
from analysis.data.review_files import SOURCE_COLUMNS as SOURCE_COLUMNS
from analysis.data.review_files import SOURCES_FILE as SOURCES_FILE
from analysis.data.review_files import cited_in as cited_in
from analysis.data.review_files import read_table as read_table
from analysis.data.review_files import rename_citekey as rename_citekey
from analysis.data.review_files import table_text as table_text
from analysis.data.review_files import unsynthesised as unsynthesised
from analysis.data.review_files import write_table as write_table

GENERIC = {"GPU", "GPUs", "CPU", "CPUs", "LLM", "LLMs", "AI", "ML", "DNN", "DNNs", "CNN", "CNNs", "NVIDIA",
           "AMD", "TPU", "TPUs", "FPGA", "ASIC", "API", "HPC", "MoE", "NeRF", "SOTA", "SoTA", "IO", "I/O"}

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
            with_cv: bool, scopes: dict[str, str] | None = None) -> list[classify.Suggestion]:
    """The classifier's suggestions for the new papers (trained on the labelled ones and the taxonomy's
    `scopes`), and its cross-validation."""
    abstracts = {p.fingerprint: p.text for p in existing}
    x, y = classify.labelled([(r["citekey"], r["fingerprint"], r["theme"]) for r in table], abstracts)
    sec = classify.secondaries([(r["citekey"], r["fingerprint"], r.get("secondary_theme", "")) for r in table],
                               abstracts)
    if len(set(y)) < 2:
        return []
    if with_cv:
        up.cv = classify.cross_validate(x, y, secondary=sec, scopes=scopes)
    return classify.suggest(classify.train(x, y, sec, scopes=scopes),
                            [p.text for p in up.new_papers]) if up.new_papers else []


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
         classify_baseline: Callable[[str], str] | None = None, scopes: dict[str, str] | None = None) -> Update:
    """Everything the update proposes, from the seed papers and the paper table's rows (no files);
    `classify_baseline` (the book's keyword classifier) suggests each candidate's baseline class; `scopes` (the
    taxonomy's text per theme, :func:`classify.theme_scopes`) is taught to the theme classifier. An
    unidentified paper's citekey takes `year`, else its seed file's year (:func:`seed_year`), else none."""
    identified = identified or {}
    up = Update()
    by_fp = {r["fingerprint"]: r for r in table}
    by_key = {r["citekey"]: r for r in table}
    existing = _duplicates(up, papers, table)
    best = _near(up, existing, by_fp)
    suggestions = _themes(up, existing, table, with_cv, scopes)
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
              classify_baseline=classify_baseline, scopes=classify.theme_scopes(data_dir))
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
        lines.append(f"theme classifier: the suggestion is right for {100 * up.cv.accuracy:.1f}% and the suggestion "
                     f"or its runner-up for {100 * up.cv.top2:.1f}% of the {up.cv.n_papers} labelled papers "
                     f"({up.cv.n_themes} themes) in {up.cv.folds}-fold cross-validation")
    if up.kept:
        lines.append(f"{up.kept} scaffold row(s) already marked by a reviewer were kept as they were")
    lines.append(f"to review: {rel}/{PAPERS_FILE}, {rel}/{CLAIMS_FILE} (records: {rel}/{RECORDS_FILE}; "
                 f"source-record updates, applied by accept: {rel}/{SOURCES_FILE})")
    if up.new_papers or up.source_updates:
        lines.append("next: complete each row, set review=accept (claims: accept or reject), then `make accept`")
    else:
        lines.append("nothing to accept: data/papers.csv accounts for every seed record")
    return lines
