"""Seed ingest: normalisation, de-duplication, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.data import corpus


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("1.5-2.0times faster", "1.5-2.0× faster"),
        ("with sim ! 600times fewer GPU days", "with ~600× fewer GPU days"),
        ("sim 80times", "~80×"),
        ("M\\'elange serves", "Mélange serves"),
        ("accuracy geq 81.3\\%", "accuracy ≥ 81.3%"),
        ("a  b\n c", "a b c"),
        ("the times we live in", "the times we live in"),
        ("simulation", "simulation"),
    ],
)
def test_normalise(raw: str, expected: str):
    assert corpus.normalise(raw) == expected


def test_fingerprint_ignores_whitespace():
    assert corpus.fingerprint("a  b\nc") == corpus.fingerprint("a b c")


def _write(folder: Path, name: str, data: bytes) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data)


def test_exact_duplicates_are_merged_and_sources_kept(tmp_path: Path):
    _write(tmp_path, "a.txt", b"Daily Papers\n\nFirst abstract here.\n\nSecond  abstract.\n")
    _write(tmp_path, "b.txt", b"Daily Papers\n\nSecond abstract.\n")
    papers = corpus.load_corpus(tmp_path)
    assert len(papers) == 2
    assert papers[1].source_records == "a.txt#2;b.txt#1"


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"Daily Papers\n\nGood text.\n\n 12 34 \n", "b.txt: record 2: record has no words"),
        (b"Daily Papers\n\nGood \xff text.\n", "b.txt: line 3: not valid UTF-8"),
        (b"Weekly Papers\n\nGood text.\n", "b.txt: line 1: expected header"),
        (b"Daily Papers\n", "b.txt: no records"),
        # issue 38: a byte-order mark, a NUL byte, a record no abstract could be
        (b"\xef\xbb\xbfDaily Papers\n\nGood text.\n", "b.txt: line 1: the file starts with a byte-order mark"),
        (b"Daily Papers\n\nGood text.\n\nHalf a rec\x00ord.\n", "b.txt: line 5: a NUL byte"),
        pytest.param(b"Daily Papers\n\n" + b"word " * 5000 + b"\n", "b.txt: record 1: 24,999 characters",
                     id="a-record-no-abstract-could-be"),
    ],
)
def test_broken_seed_files_are_named(tmp_path: Path, data: bytes, fragment: str):
    _write(tmp_path, "b.txt", data)
    with pytest.raises(corpus.CorpusError, match=fragment.replace(".", r"\.")):
        corpus.load_corpus(tmp_path)


def test_real_corpus_agrees_with_the_paper_table(seeds: Path):
    """Every seed record maps to exactly one row of data/papers.csv and back (counts from the data)."""
    import csv

    papers = corpus.load_corpus(seeds)
    assert len({p.fingerprint for p in papers}) == len(papers)
    with (Path(__file__).resolve().parent.parent / "data" / "papers.csv").open(encoding="utf-8", newline="") as fh:
        rows = [(r["citekey"], r["fingerprint"], r["source_records"]) for r in csv.DictReader(fh)]
    assert corpus.coverage_problems(rows, papers) == []
    assert sum(len(p.records) for p in papers) == sum(len(src.split(";")) for _, _, src in rows)


def test_coverage_names_each_unmatched_record_and_stale_row():
    a = corpus.Paper("fa", "first abstract about kernels", [corpus.Record("x.txt", 1, "")])
    b = corpus.Paper("fb", "second abstract about serving many models", [corpus.Record("y.txt", 2, "")])
    rows = [("keya", "fa", "x.txt#1;z.txt#3"), ("gone", "f0", "w.txt#1")]
    lines = corpus.coverage_problems(rows, [a, b])
    text = "\n".join(lines)
    assert '1 seed record(s) have no row in data/papers.csv:\n  y.txt#2  "second abstract about serving many models"' \
        in text
    assert "row 2 (keya), column source_records: 'x.txt#1;z.txt#3', but the seeds hold 'x.txt#1'" in text
    assert "row 3 (gone): no seed record has its fingerprint" in text
    assert lines[-1].startswith("next: `make corpus`") and "make accept" in lines[-1]


def test_near_duplicates_are_flagged_not_merged():
    a = corpus.Paper("a", "we present a fast kernel for attention on gpus that is fast and small " * 3)
    b = corpus.Paper("b", "we present a fast kernel for attention on gpus that is fast and large " * 3)
    c = corpus.Paper("c", "an unrelated abstract about carbon emissions of training " * 3)
    pairs = corpus.near_duplicates([a, b, c])
    assert [(x, y) for x, y, _ in pairs] == [("a", "b")]


def test_the_seed_listing_changes_with_a_file_or_the_folder_and_names_odd_names(tmp_path: Path):
    """make depends on this listing (a stamp), never on the file names: a name with a space or a colon is a
    line of text here, and another folder, even a missing one, is another listing."""
    _write(tmp_path / "a", "Daily Papers: 2025 12.txt", b"Daily Papers\n\nFirst abstract here.\n")
    one = corpus.seeds_listing(tmp_path / "a")
    assert "'Daily Papers: 2025 12.txt'" in one
    _write(tmp_path / "a", "more.txt", b"Daily Papers\n\nSecond abstract here.\n")
    assert corpus.seeds_listing(tmp_path / "a") != one
    assert corpus.seeds_listing(tmp_path / "missing").endswith("(missing)\n")


def test_a_seed_folder_name_too_long_for_the_file_system_is_refused_with_a_message(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SEEDS_DIR", "x" * 100_000)
    with pytest.raises(corpus.CorpusError, match="a folder name of 100,000 characters"):
        corpus.seeds_dir()
