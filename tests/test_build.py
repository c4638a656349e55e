"""The build pipeline end to end, on scratch copies of the project, and the data checks that stop it.

The end-to-end tests need the book built once (``make test`` builds it before running pytest). The
bad-data cases run the validation ``make book`` starts with (``python -m analysis validate``) on a
corrupted copy of data/, in this process; one of them also goes through a whole ``make book``, for
what only the build shows: the same message, no notebook run after it, the last good HTML kept.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FAILING_NB, ROOT, SEEDS, make, tree_hash

BUILT = ROOT / "_build" / "html" / ".built"
needs_book = pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book` first")


def end_to_end(test):  # type: ignore[no-untyped-def]
    """A whole `make book` in a copy of the project that holds the current build."""
    return needs_book(pytest.mark.slow(pytest.mark.e2e(test)))


_tree_hash = tree_hash


@end_to_end
def test_failing_notebook_stops_build_and_keeps_old_html(scratch: Path):
    (scratch / "analysis" / "notebooks" / "zz-fail.md").write_text(FAILING_NB)
    before = _tree_hash(scratch / "_build" / "html")
    proc = make(scratch, "book")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "notebook analysis/notebooks/zz-fail.md failed in code cell 2" in out
    assert "ZeroDivisionError" in out
    assert _tree_hash(scratch / "_build" / "html") == before


def _replace(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def _csv_cell(path: Path, row: int, column: str, value: str | None) -> None:
    """Set one cell (row = data row, 0-based); value None drops the column."""
    import pandas as pd

    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if value is None:
        df = df.drop(columns=[column])
    else:
        df.loc[row, column] = value
    df.to_csv(path, index=False)


def _dup_key(path: Path) -> None:
    import pandas as pd

    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.loc[5, "citekey"] = df.loc[1, "citekey"]
    df.to_csv(path, index=False)


# name: (corruption, text the error must contain)
CORRUPTIONS = {
    "themes-missing-field": (lambda d: _replace(d / "data/themes.yml", "    scope: Fused kernels", "    scop: x"),
                             "themes.yml: theme 1, field scope: missing"),
    "hardware-non-numeric": (lambda d: _csv_cell(d / "data/hardware.csv", 2, "mem_bw_tbps", "fast"),
                             "hardware.csv: row 4, column mem_bw_tbps"),
    "hardware-missing-column": (lambda d: _csv_cell(d / "data/hardware.csv", 0, "tdp_w", None),
                                "hardware.csv: header, column tdp_w: required column is missing"),
    "papers-duplicate-key": (lambda d: _dup_key(d / "data/papers.csv"), "papers.csv: row 7, column citekey"),
    "papers-unknown-hardware": (lambda d: _csv_cell(d / "data/papers.csv", 10, "hardware", "Warp-Drive-9000"),
                                "papers.csv: row 12, column hardware"),
    "claims-non-numeric": (lambda d: _csv_cell(d / "data/claims.csv", 3, "value", "lots"),
                           "claims.csv: row 5, column value"),
    "hardware-empty-file": (lambda d: (d / "data/hardware.csv").write_text(""),
                            "hardware.csv: the file is empty"),
    "papers-bidi-title": (lambda d: _csv_cell(d / "data/papers.csv", 3, "title", "Fast \u202eredivider"),
                          "papers.csv: row 5, column title: control or invisible character U+202E"),
    "papers-zero-width-headline": (lambda d: _csv_cell(d / "data/papers.csv", 0, "headline", "2\u200bx faster"),
                                   "papers.csv: row 2, column headline: control or invisible character U+200B"),
    "themes-zero-width": (lambda d: _replace(d / "data/themes.yml", "    scope: Fused kernels",
                                             "    scope: Fused\u200b kernels"),
                          "themes.yml: line"),
    "assumptions-non-numeric": (lambda d: _replace(d / "data/assumptions.yml", "  value: 1.1\n", "  value: high\n"),
                                "assumptions.yml: entry pue_hyperscaler, field value"),
    # issue 38: numbers that are not finite, impossible values, silent duplicates, alias bombs, late references
    "hardware-inf": (lambda d: _csv_cell(d / "data/hardware.csv", 2, "mem_bw_tbps", "inf"),
                     "hardware.csv: row 4, column mem_bw_tbps: not a finite number"),
    "hardware-overflow": (lambda d: _csv_cell(d / "data/hardware.csv", 2, "mem_bw_tbps", "1e400"),
                          "hardware.csv: row 4, column mem_bw_tbps: not a finite number"),
    "hardware-nan-written-out": (lambda d: _csv_cell(d / "data/hardware.csv", 2, "tdp_w", "NaN"),
                                 "hardware.csv: row 4, column tdp_w: not a finite number"),
    "assumptions-inf": (lambda d: _replace(d / "data/assumptions.yml", "  value: 1.1\n", "  value: .inf\n"),
                        "not a finite number ('.inf')"),
    "assumptions-negative-pue": (lambda d: _replace(d / "data/assumptions.yml", "  value: 1.1\n", "  value: -1.1\n"),
                                 "assumptions.yml: entry pue_hyperscaler, field value: negative"),
    "assumptions-pue-below-one": (lambda d: _replace(d / "data/assumptions.yml", "  value: 1.1\n", "  value: 0.9\n"),
                                  "assumptions.yml: entry pue_hyperscaler: a PUE below 1"),
    "assumptions-duplicate-key": (lambda d: _replace(d / "data/assumptions.yml", "  value: 1.1\n",
                                                     "  value: 1.1\n  value: 1.2\n"),
                                  "key 'value' given twice"),
    "assumptions-alias-bomb": (lambda d: _append(d / "data/assumptions.yml", ALIAS_BOMB), "refused: an alias bomb"),
    "assumptions-recursive-alias": (lambda d: _append(d / "data/assumptions.yml", "\nloop: &loop [1, *loop]\n"),
                                    "contains itself through an alias"),
    "papers-bibtex-field-in-url": (lambda d: _csv_cell(d / "data/papers.csv", 0, "url",
                                                      "https://arxiv.org/abs/1}, howpublished = {x"),
                                   "papers.csv: row 2, column url: a link with a space, a brace"),
    "hardware-paren-in-source-url": (lambda d: _csv_cell(d / "data/hardware.csv", 0, "source_url",
                                                        "https://a.org/x)(javascript:alert(1)"),
                                     "hardware.csv: row 2, column source_url: a link with"),
    "theme-unknown-citekey": (lambda d: _csv_cell(d / "data/nas-search-costs.csv", 0, "citekey", "nobody2099ghost"),
                              "nas-search-costs.csv: row 2, column citekey"),
    # titles become headings and search results (searchtools.js shows them through innerHTML)
    "papers-angle-title": (lambda d: _csv_cell(d / "data/papers.csv", 3, "title", "Fast <img src=x onerror=alert(1)>"),
                           "papers.csv: row 5, column title: '<' or '>' in a title"),
    "outside-angle-title": (lambda d: _csv_cell(d / "data/outside-corpus.csv", 0, "title", "Under <b>1 ms</b>"),
                            "outside-corpus.csv: row 2, column title: '<' or '>' in a title"),
    "themes-angle-title": (lambda d: _replace(d / "data/themes.yml", "title: GPU kernels and hardware",
                                              "title: GPU <img src=x onerror=alert(1)> kernels and hardware"),
                           "themes.yml: theme 1, field title: '<' or '>' in a title"),
    "theme-header-only": (lambda d: _header_only(d / "data/nas-proxy-latency.csv"),
                          "nas-proxy-latency.csv: the table has a header but no rows"),
}

# nine levels of nine references: 9**9 strings when constructed (the classic "billion laughs" in YAML)
ALIAS_BOMB = "\nbomb0: &b0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"bomb{i}: &b{i} [{', '.join([f'*b{i - 1}'] * 9)}]\n" for i in range(1, 9))


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _header_only(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")


def _validate(data: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What `python -m analysis validate` (analysis/book/cli.py) prints for the data folder `data`
    (its ANALYSIS_DATA_DIR), run in this process: one line per file, "error: ..." where it stops."""
    from analysis.book.cli import data_owners
    from analysis.data import paths, validate

    validate.import_loaders(data_owners())  # before DATA moves
    lines = []
    with paths.data_folder(data, SEEDS_DIR=str(SEEDS)):
        try:
            for line in validate.validate_all(data_owners()):
                lines.append(line)
        except ValueError as exc:  # DataError is one; the command line prints each as "error: ..." and exits 2
            lines.append(f"error: {exc}")
    return "\n".join(lines)


def _corrupted(tmp_path: Path, case: str) -> tuple[Path, str]:
    corrupt, expected = CORRUPTIONS[case]
    shutil.copytree(ROOT / "data", tmp_path / "data")
    corrupt(tmp_path)
    return tmp_path / "data", expected


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_bad_data_fails_validation_naming_file_row_and_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              case: str):
    data, expected = _corrupted(tmp_path, case)
    out = _validate(data, monkeypatch)
    assert "\nerror: " in "\n" + out, out[-2000:]
    assert expected in out.rsplit("error: ", 1)[1], out[-2000:]
    assert "header, column" not in out or "header" in expected, "a cell's coercion error is reported once"


@end_to_end
def test_bad_data_stops_build_before_notebooks(scratch: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """One corruption through a whole `make book`: the message of the validation above, no notebook
    run after it, the last good HTML unchanged."""
    case = "papers-duplicate-key"
    corrupt, expected = CORRUPTIONS[case]
    corrupt(scratch)
    assert expected in _validate(scratch / "data", monkeypatch)
    (scratch / "analysis" / "notebooks" / "zz-fail.md").write_text(FAILING_NB)
    before = _tree_hash(scratch / "_build" / "html")
    proc = make(scratch, "book")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert expected in out, out[-2000:]
    assert "header, column" not in out or "header" in expected, "a cell's coercion error is reported once"
    assert "zz-fail" not in out, "no notebook may run after a validation failure"
    assert _tree_hash(scratch / "_build" / "html") == before


@end_to_end
def test_malformed_bibtex_stops_build_and_keeps_old_html(scratch: Path):
    bib = scratch / "references.bib"
    bib.write_text(bib.read_text() + "\n@article{broken,\n  title = {unclosed,\n")
    # a hand-edited bib newer than the data it is generated from is not regenerated by make
    import os
    import time

    future = time.time() + 3600
    os.utime(bib, (future, future))
    before = _tree_hash(scratch / "_build" / "html")
    proc = make(scratch, "book")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "references.bib: line" in out and "malformed BibTeX entry" in out, out[-2000:]
    assert _tree_hash(scratch / "_build" / "html") == before


def _make_variable(*args: str) -> str:
    """STYLE as make's database holds it (make -p, with -q: no recipe runs)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("STYLE", "MAKEFLAGS", "MAKELEVEL")}
    out = subprocess.run(["make", "-pq", "--no-print-directory", "venv", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60).stdout
    values = [line.split("=", 1)[1].strip() for line in out.splitlines()
              if line.startswith("STYLE ") and "=" in line]
    assert len(values) == 1, values
    return values[0]


def test_make_figures_style_defaults_to_talk():
    # `unexport STYLE` defined STYLE empty before `STYLE ?= talk`, so `make figures` alone failed
    # with "unknown figure style ''" (bench/build.sh, the figures row)
    assert _make_variable() == "talk"
    assert _make_variable("STYLE=book") == "book"


@end_to_end
def test_seed_files_with_odd_names_and_a_switched_seed_folder(scratch_sources: Path, tmp_path: Path):
    """Issue 38: seed file names with a space or a colon never reach make as words; switching SEEDS to another
    folder validates again, so a folder with a record that has no paper stops the build; switching back
    validates again and passes."""
    scratch = scratch_sources
    odd = tmp_path / "seed files: a copy"  # a folder name with a space and a colon
    shutil.copytree(SEEDS, odd)
    proc = make(scratch, "validate", f"SEEDS={odd}")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-2000:]
    (odd / "new: one record.txt").write_text("Daily Papers\n\nA record that no row of the paper table covers, "
                                            "about a kernel that is fast.\n", encoding="utf-8")
    proc = make(scratch, "validate", f"SEEDS={odd}")
    assert proc.returncode != 0 and "new: one record.txt#1" in proc.stderr, (proc.stdout + proc.stderr)[-2000:]
    assert "No rule to make target" not in proc.stderr and "multiple target patterns" not in proc.stderr
    proc = make(scratch, "validate")
    assert proc.returncode == 0 and "ok  data/papers.csv" in proc.stdout, (proc.stdout + proc.stderr)[-2000:]
