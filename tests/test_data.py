"""The data files: schemas, cross-references, the seed mapping, references.bib, own words."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT

from analysis.book import bibliography
from analysis.data import claims, corpus, hardware, papers, paths, tables
from analysis.data.paths import DataError


def test_all_data_files_validate():
    from analysis.book.cli import data_owners
    from analysis.data import validate

    lines = list(validate.validate_all(data_owners()))
    assert len(lines) >= 5


def test_validate_imports_no_plotting():
    """Issue 37: `python -m analysis validate` finds the modules that own data files by reading them, and
    imports neither matplotlib nor seaborn (nor the figure helper) to check data."""
    code = ("import sys\nfrom analysis.book import cli\nrc = cli.main(['validate'])\n"
            "print('MODULES', rc, sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'seaborn'}), "
            "'analysis.plot' in sys.modules, 'analysis.themes.serving' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    last = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0 and "ok  data/papers.csv" in proc.stdout, proc.stdout + proc.stderr
    # the data still is validated in full: a theme's own data file (serving's) is among the checks
    assert last == "MODULES 0 [] False True", last
    assert "ok  data/serving-models.csv" in proc.stdout


def test_a_data_folder_is_validated_in_process_and_everything_is_put_back(tmp_path: Path):
    """Issue 37: the data layer validates a given folder (make accept's staged copy) without the command line,
    naming that folder's file and row; afterwards every loader reads data/ again, from a fresh cache."""
    from analysis.book.cli import data_owners
    from analysis.data import validate

    staged = tmp_path / "data"
    shutil.copytree(paths.DATA, staged)
    lines = validate.validate_folder(staged, data_owners())
    assert any(line.startswith("ok  data/serving-models.csv") for line in lines) and "cross-file" in lines[-1]
    _edit_csv(staged / "papers.csv", 3, "year", "twenty")
    with pytest.raises(DataError, match=rf"{staged / 'papers.csv'}: row 5, column year"):
        validate.validate_folder(staged, data_owners())
    assert paths.DATA == papers.DATA == claims.DATA == ROOT / "data"
    assert "ANALYSIS_DATA_DIR" not in os.environ or os.environ["ANALYSIS_DATA_DIR"] != str(staged)
    assert papers.load()["year"].notna().all()  # read from data/, not the broken copy
    with pytest.raises(ValueError, match="use_owners"):
        validate.validate_folder(staged, [])


def test_papers_unique_keys_and_themes():
    df = papers.load()
    assert df["citekey"].is_unique and df["fingerprint"].is_unique
    assert set(df["theme"]) <= set(papers.themes()["id"])
    # every theme of the taxonomy is used
    assert set(papers.themes()["id"]) == set(df["theme"])


def test_identification_rate():
    df = papers.load()
    identified = (df["arxiv_id"].notna() | df["doi"].notna()).mean()
    assert identified >= 0.95
    # an unidentified paper must say why
    missing = df[df["arxiv_id"].isna() & df["doi"].isna()]
    assert missing["notes"].notna().all()


def test_every_seed_record_maps_to_exactly_one_paper(seeds: Path):
    """Each seed record has one paper: the row of its text, or (issue 35: `make accept`'s merge) the row whose
    source_records list it as another version of that paper."""
    df = papers.load()
    by_fp = dict(zip(df["fingerprint"], df["citekey"], strict=True))
    listed_by = {ref: key for key, refs in zip(df["citekey"], df["source_records"], strict=True)
                 for ref in refs.split(";")}
    seen: dict[str, str] = {}
    texts = corpus.load_corpus(seeds)
    for p in texts:
        key = by_fp.get(p.fingerprint) or listed_by.get(p.records[0].ref)
        assert key, f"seed paper {p.source_records} has no row in data/papers.csv"
        for r in p.records:
            assert r.ref not in seen
            assert listed_by.get(r.ref) == key, f"{r.ref} is not listed by {key}"
            seen[r.ref] = key
    assert set(listed_by) == set(seen), "source_records in papers.csv differ from the seed files"
    versions = sum(1 for p in texts if p.fingerprint not in by_fp)
    assert len(df) == len({p.fingerprint for p in texts}) - versions


def test_references_bib_has_one_entry_per_paper(tmp_path: Path):
    import pybtex.database

    out = tmp_path / "references.bib"
    bibliography.write_bib(out)
    bib = pybtex.database.parse_file(str(out))
    corpus = set(papers.load()["citekey"])
    # one entry per paper, plus the works outside the corpus (marked, see tests/test_outside.py)
    assert {k for k, e in bib.entries.items() if e.fields.get("keywords") != "outside-corpus"} == corpus
    e = bib.entries["shah2024flashattention3"]
    assert e.type == "inproceedings" and "NeurIPS 2024" in e.fields["booktitle"]
    assert e.fields["eprint"] == "2407.08608" and e.fields["archiveprefix"] == "arXiv"


def test_latex_escaping():
    assert bibliography.latex_escape("$100K & 50% of #1_x") == r"\$100K \& 50\% of \#1\_x"


def test_claim_evidence_occurs_in_the_abstracts(seeds: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SEEDS_DIR", str(seeds))
    assert claims.check_evidence() == "evidence found in the abstracts"


def test_claims_reference_known_papers_and_hardware():
    df = claims.load()
    assert len(df) >= 700
    assert set(df["citekey"]) <= set(papers.load()["citekey"])
    names = hardware.names()
    for hw in df["hardware"].dropna():
        assert set(hw.split(";")) <= names


def test_no_text_copied_from_the_abstracts(seeds: Path):
    tool = ROOT.parent / "shared" / "tools" / "verbatim_check.py"
    if not tool.exists():
        pytest.skip(f"{tool} not present")
    proc = subprocess.run([sys.executable, str(tool), "--repo", str(ROOT), "--seeds", str(seeds)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]


# --- bad input: each corruption names file, row and column -----------------------------------

@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(paths.DATA, dst)
    monkeypatch.setattr(paths, "DATA", dst)
    monkeypatch.setattr(papers, "DATA", dst)
    monkeypatch.setattr(claims, "DATA", dst)
    for mod in (papers, hardware, claims):
        for name in ("_load", "themes"):
            fn = getattr(mod, name, None)
            if fn is not None and hasattr(fn, "cache_clear"):
                fn.cache_clear()
    yield dst
    for mod in (papers, hardware, claims):
        for name in ("_load", "themes"):
            fn = getattr(mod, name, None)
            if fn is not None and hasattr(fn, "cache_clear"):
                fn.cache_clear()


def _edit_csv(path: Path, row: int, column: str, value: str) -> None:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.loc[row, column] = value
    df.to_csv(path, index=False)


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("theme", "quantum-vibes", "papers.csv: row 5, column theme: unknown theme"),
        ("arxiv_id", "24o7.0860", "papers.csv: row 5, column arxiv_id"),
        ("year", "twenty", "papers.csv: row 5, column year"),
        ("hardware", "A100;Warp-Drive-9000", "papers.csv: row 5, column hardware"),
    ],
)
def test_bad_paper_rows_are_named(data_copy: Path, column: str, value: str, message: str):
    _edit_csv(data_copy / "papers.csv", 3, column, value)
    with pytest.raises(DataError, match=message):
        papers.load()


def test_duplicated_citekey_is_named(data_copy: Path):
    df = pd.read_csv(data_copy / "papers.csv", dtype=str, keep_default_na=False)
    df.loc[7, "citekey"] = df.loc[2, "citekey"]
    df.to_csv(data_copy / "papers.csv", index=False)
    with pytest.raises(DataError, match=r"papers.csv: row (4|9), column citekey"):
        papers.load()


def test_missing_column_is_named(data_copy: Path):
    df = pd.read_csv(data_copy / "hardware.csv", dtype=str, keep_default_na=False)
    df.drop(columns=["mem_bw_tbps"]).to_csv(data_copy / "hardware.csv", index=False)
    with pytest.raises(DataError, match="hardware.csv: header, column mem_bw_tbps: required column is missing"):
        hardware.load()


def test_non_numeric_hardware_value_is_named(data_copy: Path):
    _edit_csv(data_copy / "hardware.csv", 0, "peak_bf16_tflops", "fast")
    with pytest.raises(DataError, match="hardware.csv: row 2, column peak_bf16_tflops"):
        hardware.load()


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("citekey", "nobody2099", "claims.csv: row 3, column citekey: unknown citekey"),
        ("unit", "furlongs", "claims.csv: row 3, column unit"),
        ("hardware", "Warp-Drive-9000", "claims.csv: row 3, column hardware"),
        ("evidence", "one two three four five six seven eight nine ten eleven twelve thirteen",
         "claims.csv: row 3, column evidence: evidence longer than 12 words"),
    ],
)
def test_bad_claim_rows_are_named(data_copy: Path, column: str, value: str, message: str):
    _edit_csv(data_copy / "claims.csv", 1, column, value)
    with pytest.raises(DataError, match=message):
        claims.load()


def test_claim_evidence_not_in_abstract_is_named(data_copy: Path, seeds: Path, monkeypatch):
    monkeypatch.setenv("SEEDS_DIR", str(seeds))
    _edit_csv(data_copy / "claims.csv", 1, "evidence", "a sentence that no abstract contains 42")
    with pytest.raises(DataError, match="claims.csv: row 3, column evidence: not found in the abstract"):
        claims.check_evidence()


def test_malformed_csv_is_named(data_copy: Path):
    (data_copy / "hardware.csv").write_bytes(b"hardware_id,family\n\"unclosed,quote\n")
    with pytest.raises(DataError, match="hardware.csv"):
        tables.read_csv("hardware.csv", hardware.schemas.HARDWARE)


def test_comparison_rows_are_short_enough_to_scan():
    from analysis.themes import comparison

    df = comparison.load()
    long = df[(df["technique"].str.len() > comparison.TECHNIQUE_MAX)
              | (df["note"].fillna("").str.len() > comparison.NOTE_MAX)]
    assert long.empty, f"data/comparisons.csv rows too long for the table: {list(long['citekey'])}"


def test_default_prices_are_the_median_of_providers_computed_from_epochs_table():
    # independent of data/assumptions.yml: Epoch AI's Hardware_prices.csv itself, each vendor's most
    # recent on-demand H100 SXM price (the lowest on that date), and their median
    import pandas as pd

    from analysis.data import assumptions

    df = pd.read_csv(ROOT.parent / "shared" / "data" / "epoch" / "Hardware_prices.csv", encoding="utf-8-sig")
    h = df[(df["Hardware model"] == "NVIDIA H100 SXM5 80GB") & df["Price per chip-hour (on-demand)"].notna()]
    h = h.assign(d=pd.to_datetime(h["Price date"]))
    last = h.groupby("Vendor")["d"].transform("max")
    per_vendor = h[h["d"] == last].groupby("Vendor")["Price per chip-hour (on-demand)"].min()
    e = assumptions.entry("gpu_hour_usd_h100")
    assert e["value"] == pytest.approx(per_vendor.median())
    assert (e["low"], e["high"]) == pytest.approx((per_vendor.min(), per_vendor.max()))
    assumptions.check_price_rule()  # every accelerator by the same rule


@pytest.mark.parametrize("text, where", [
    ("a: [1, 2\nb: \x01\n", "line 2, column 4"),  # a character YAML's reader refuses: only an offset in the error
    ("a: 1\n  b: [2\n", "line 2, column 4"),  # a parser error: its own mark
])
def test_malformed_yaml_names_line_and_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, where: str):
    (tmp_path / "bad.yml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(paths, "DATA", tmp_path)
    with pytest.raises(DataError, match=f"bad.yml: {where}: malformed YAML"):
        tables.read_yaml("bad.yml")


def test_a_hardware_row_is_a_typed_frozen_record():
    import dataclasses
    import math

    from analysis.data import hardware
    # NVIDIA H100 datasheet, SXM column: 80 GB HBM3, 3.35 TB/s, up to 700 W; released 2022
    r = hardware.record("H100-SXM")
    assert (r.memory_gb, r.mem_bw_tbps, r.tdp_w, r.release_year, r.vendor) == (80.0, 3.35, 700.0, 2022, "NVIDIA")
    assert r.figure("tdp_w") == hardware.tdp_w("H100-SXM")
    assert math.isnan(r.mean_power_w)  # NVIDIA publishes no measured mean power: NaN, not 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.tdp_w = 1.0  # type: ignore[misc]
    with pytest.raises(KeyError):
        hardware.record("no-such-chip")
