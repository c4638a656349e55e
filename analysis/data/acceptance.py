"""`make accept`: the accepted rows of the review files merged into data/, after every check CI runs on them
(:func:`accept`; the review files: :mod:`analysis.data.review_files`)."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from analysis.data import corpus, text, transaction
from analysis.data.paths import DATA, DataError
from analysis.data.review_files import (
    CLAIM_REVIEW,
    CLAIMS_FILE,
    PAPER_REVIEW,
    PAPERS_FILE,
    REVIEW_DIR,
    SOURCE_COLUMNS,
    SOURCES_FILE,
    read_table,
    table_text,
    write_table,
)

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
    """Validation of the staged data/ in this process, as `python -m analysis validate` would ('' if it
    passes, else its message; the themes' and audit's files as the command line registered them)."""
    from analysis.data import validate

    pending_file = tmp / "pending.txt"
    pending_file.write_text("\n".join(pending) + "\n", encoding="utf-8")
    try:
        validate.validate_folder(staged, seeds=seeds, pending=pending_file)
    except (DataError, ValueError) as exc:
        return f"error: {exc}".replace(str(staged), "data")
    return ""


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
