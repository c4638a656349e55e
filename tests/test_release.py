"""Versions of the living review (issue 35): stable bibliography labels, releases and the What changed page,
renaming a citekey everywhere."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pandas as pd
from conftest import ROOT

from analysis.book import bibliography, release


def _frame() -> pd.DataFrame:
    return bibliography.bib_frame()


def _labels(df: pd.DataFrame, published: dict[str, str]) -> dict[str, str]:
    suffixes = bibliography.year_suffixes(df, published)
    return {r["citekey"]: bibliography.label_base(r) + suffixes.get(r["citekey"], "") for _, r in df.iterrows()}


def test_every_published_label_is_the_label_now():
    """Every entry of the committed snapshot that is still in the bibliography has its published label (the
    snapshot's, carried through the recorded changes of data/releases/label-changes.csv)."""
    published = bibliography.published_labels()
    assert published
    now = _labels(_frame(), published)
    assert {k: v for k, v in now.items() if k in published} == {k: v for k, v in published.items() if k in now}


def test_a_new_paper_never_relabels_a_published_entry():
    """Issue 35: adding papers turned "Li et al. 2024" into "2024a" in prose and slides. With the snapshot, an
    unsuffixed published label stays unsuffixed and a lettered one keeps its letter; newcomers take the next
    free letter, whatever their place in the bibliography's order."""
    df = _frame()
    published = _labels(df, {})
    suffixes = bibliography.year_suffixes(df, {})
    single = next(r for _, r in df.iterrows() if r["citekey"] not in suffixes and r["authors"] == r["authors"])
    lettered = next(r for _, r in df.iterrows() if suffixes.get(r["citekey"]) == "b")
    newcomers = []
    for n, twin in enumerate((single, lettered)):
        row = twin.copy()
        row["citekey"], row["title"] = f"zznew{n}", "AAA first in the bibliography's order"
        newcomers.append(row)
    grown = pd.concat([df, pd.DataFrame(newcomers)], ignore_index=True)
    after = _labels(grown, published)
    assert {k: after[k] for k in published} == published
    assert after["zznew0"] == bibliography.label_base(single) + "a"
    group = [k for k, v in published.items() if v.startswith(bibliography.label_base(lettered))]
    assert after["zznew1"] == bibliography.label_base(lettered) + "abcdefghijklmnopqrstuvwxyz"[len(group)]
    # without the snapshot the old rule would have relabelled the unsuffixed entry
    assert _labels(grown, {})[single["citekey"]] != published[single["citekey"]]


def test_a_corrected_year_takes_a_label_for_its_new_year():
    """An entry whose year was corrected after release is labelled for its new year (its old label is not
    kept: it names the wrong year), without moving any other published label."""
    df = _frame()
    published = _labels(df, {})
    key = df["citekey"].iloc[0]
    df.loc[0, "year"] = 1999
    after = _labels(df, published)
    assert after[key].startswith(bibliography.label_base(df.iloc[0]))
    assert all(after[k] == v for k, v in published.items() if k != key)


# The three label-year corrections made when entries switched to their published versions, with the labels as
# the snapshot printed them before (git history of data/releases/published-labels.csv: commits e66d15b, f3d2fdf
# and 50fefc5 edited these rows in place) and the published versions' years (SC 2020; Science, 2023; CVPR 2023).
CORRECTIONS = {"rajbhandari2019zero": ("Rajbhandari et al. 2019", "Rajbhandari et al. 2020"),
               "lam2022graphcast": ("Lam et al. 2022", "Lam et al. 2023"),
               "zielonka2022instant": ("Zielonka et al. 2022", "Zielonka et al. 2023")}


def test_the_stable_label_rule_holds():
    """An entry's published label never changes except through a recorded row: the snapshot plus the recorded
    changes explain every label the bibliography prints now; the three year corrections are recorded, from the
    labels as first published, with a reason and a source."""
    assert bibliography.unexplained_labels(bibliography.labels_now()) == []
    snapshot = bibliography.snapshot_labels()
    changes = bibliography.label_changes()
    now = bibliography.labels_now()
    for key, (old, new) in CORRECTIONS.items():
        assert snapshot[key] == old and now[key] == new
        row = changes[changes["citekey"] == key].iloc[-1]
        assert (row["old_label"], row["new_label"]) == (old, new) and row["reason"] and row["source"]


def test_an_unrecorded_label_change_is_named(tmp_path: Path):
    """A corrected year changes a published label: without a row of label-changes.csv the rule names the entry
    (and `make release` refuses, as write_published_labels does); with a row it is explained; a row whose
    old_label is not the published one is named too."""
    df = _frame()
    published = _labels(df, {})
    folder = tmp_path / "releases"
    folder.mkdir()
    snapshot = folder / "published-labels.csv"
    snapshot.write_text("citekey,label\n" + "".join(f"{k},{v}\n" for k, v in published.items()), encoding="utf-8")
    key = df["citekey"].iloc[0]
    df.loc[0, "year"] = 1999
    now = _labels(df, bibliography.published_labels(snapshot))
    assert now[key] != published[key]
    problems = bibliography.unexplained_labels(now, snapshot)
    assert len(problems) == 1 and problems[0].startswith(f"{key}: published as {published[key]!r}")
    header = "citekey,old_label,new_label,date,reason,source,released_in\n"
    row = f"{key},{published[key]},{now[key]},2027-01-02,a corrected first-posting year for a test,a test,\n"
    (folder / "label-changes.csv").write_text(header + row, encoding="utf-8")
    assert bibliography.unexplained_labels(now, snapshot) == []
    wrong = row.replace(f"{key},{published[key]},", f"{key},Nobody 1900,", 1)
    (folder / "label-changes.csv").write_text(header + wrong, encoding="utf-8")
    problems = bibliography.unexplained_labels(now, snapshot)
    assert any("label-changes.csv: row 2: " in p and "'Nobody 1900'" in p for p in problems), problems


def test_a_malformed_label_change_is_refused_naming_row_and_column(tmp_path: Path):
    import pytest

    from analysis.data.paths import DataError

    header = "citekey,old_label,new_label,date,reason,source,released_in\n"
    path = tmp_path / "label-changes.csv"
    for row, column in [("abc2020x,A 2020,A 2021,5 Jan 2027,a reason long enough here,a source,\n", "date"),
                        ("abc2020x,A 2020,A 2020,2027-01-05,a reason long enough here,a source,\n", "new_label"),
                        ("abc2020x,A 2020,A 2021,2027-01-05,a reason long enough here,a source,v1\n", "released_in")]:
        path.write_text(header + row, encoding="utf-8")
        with pytest.raises(DataError, match=re.escape(f"{path}: row 2, column {column}")):
            bibliography.label_changes(tmp_path / "published-labels.csv")


def test_what_changed_lists_the_recorded_label_changes(tmp_path: Path):
    """The page lists each recorded label change not yet in the release it compares with, old -> new with its
    reason; a change first released in that release (or before) is not listed; `make release` stamps the
    unreleased rows with its version."""
    rows = release.relabelled("1.0.0")
    assert {r["citekey"]: (r["old_label"], r["new_label"]) for r in rows} == CORRECTIONS
    text = release.changes_markdown({}, {}, [], [], "1.0.0", "1.0.0", rows)
    assert "**Bibliography labels changed (3).**" in text
    for key, (old, new) in CORRECTIONS.items():
        line = next(x for x in text.splitlines() if x.startswith(f"| {key} |"))
        assert f"| {release._cell(old)} | {release._cell(new)} | The bibliography now cites" in line
    folder = tmp_path / "releases"
    folder.mkdir()
    header = "citekey,old_label,new_label,date,reason,source,released_in\n"
    (folder / "label-changes.csv").write_text(
        header + "a2020x,A 2020,A 2021,2027-01-02,an earlier correction of a year,a source,1.1.0\n"
        "b2020x,B 2020,B 2021,2027-02-03,a later correction of a year,a source,\n", encoding="utf-8")
    assert [r["citekey"] for r in release.relabelled("1.1.0", folder)] == ["b2020x"]
    assert [r["citekey"] for r in release.relabelled("1.0.0", folder)] == ["a2020x", "b2020x"]
    assert release.stamp_label_changes("1.2.0", folder) == 1
    assert release.relabelled("1.2.0", folder) == [] and len(release.relabelled("1.1.0", folder)) == 1
    assert "Bibliography labels changed (0).** A published" in release.changes_markdown({}, {}, [], [], "1", "1")


def test_what_changed_lists_new_papers_and_moved_findings():
    """The issue's example: after an update the median headline speedup went 4.8 -> 4.0 and the kernel median
    4.2 -> 3.5; an unchanged finding and a new key are not listed."""
    def num(key: str, value: str, pages: str) -> dict[str, str]:
        return {"key": key, "value": value, "low": "", "high": "", "unit": "x", "pages": pages}

    old = {k: num(k, v, p) for k, v, p in [("speedup_median", "4.8", "chapters/synthesis.md"),
                                           ("kernel_median", "4.2", "chapters/gpu-kernels.md"),
                                           ("same", "2.0", "chapters/serving.md")]}
    new = {k: num(k, v, p) for k, v, p in [("speedup_median", "4.0", "chapters/synthesis.md"),
                                           ("kernel_median", "3.5", "chapters/gpu-kernels.md"),
                                           ("same", "2.0000000000001", "chapters/serving.md"),
                                           ("brand_new", "1", "chapters/serving.md")]}
    assert release.moved(old, new) == [("kernel_median", "4.2 x", "3.5 x", "chapters/gpu-kernels.md"),
                                       ("speedup_median", "4.8 x", "4 x", "chapters/synthesis.md")]
    text = release.changes_markdown(old, new, ["a2024x"], ["a2024x", "b2026y"], "1.0.0", "1.1.0")
    assert "{cite:t}`b2026y`" in text and "a2024x" not in text
    row = next(line for line in text.splitlines() if "kernel" in line)
    cells = [c.strip().replace("\\", "") for c in row.strip("|").split("|")]
    assert cells == ["kernel_median", "4.2 x", "3.5 x", "{doc}`gpu-kernels <../chapters/gpu-kernels>`"]


def _numbers(path: Path, rows: list[tuple[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("key,citekey,quantity,value,low,high,unit,pages\n"
                    + "".join(f"{k},corpus,q,{v},,,x,chapters/synthesis.md\n" for k, v in rows), encoding="utf-8")


def test_the_page_compares_with_the_newest_release_or_shows_the_release_itself(tmp_path: Path):
    """Between releases: this build against the newest kept release. A build that is that release (nothing
    added, nothing moved): that release against the one before it."""
    from analysis.data import papers

    current = release.citation_version()
    listed = "\n".join(papers.load()["citekey"]) + "\n"
    folder, book = tmp_path / "releases", tmp_path / "book"
    for version, value in (("0.0.1", "4.8"), (current, "4.0")):
        _numbers(folder / version / "numbers.csv", [("speedup_median", value)])
        (folder / version / "papers.txt").write_text(listed, encoding="utf-8")
    _numbers(book / "outputs" / "numbers.csv", [("speedup_median", "4.0")])
    text = release.write_changes(book, folder).read_text(encoding="utf-8")
    assert "Compared with release 0.0.1" in text and "4\\.8 x | 4 x" in text
    _numbers(book / "outputs" / "numbers.csv", [("speedup_median", "3.5")])
    text = release.write_changes(book, folder).read_text(encoding="utf-8")
    assert f"Compared with release {current}" in text and "4 x | 3\\.5 x" in text
    assert release.releases() and (release.RELEASES / release.releases()[-1] / "papers.txt").is_file()


def test_bump_citation(tmp_path: Path):
    cff = tmp_path / "CITATION.cff"
    shutil.copy(ROOT / "CITATION.cff", cff)
    release.bump_citation("1.1.0", dt.date(2027, 1, 2), cff)
    text = cff.read_text(encoding="utf-8")
    assert 'version: "1.1.0"' in text and 'date-released: "2027-01-02"' in text
    assert release.citation_version(cff) == "1.1.0"


def test_rename_citekey_everywhere(tmp_path: Path):
    from analysis.data import intake

    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    chapters = tmp_path / "chapters"
    shutil.copytree(ROOT / "chapters", chapters)
    claims = intake.read_table(data / "claims.csv")[1]
    old = claims[0]["citekey"]
    lines = intake.rename_citekey(old, "renamedkey2024", data, tmp_path / "review", chapters)
    assert lines[0].startswith(f"renamed {old} -> renamedkey2024")
    after = intake.read_table(data / "claims.csv")[1]
    assert after[0]["citekey"] == "renamedkey2024" and after[0]["claim_id"].startswith("renamedkey2024-")
    assert "renamedkey2024" in {r["citekey"] for r in intake.read_table(data / "papers.csv")[1]}
    assert not any(old in p.read_text(encoding="utf-8") for p in [*data.glob("*.csv"), *chapters.glob("*.md")])


def test_a_finding_whose_key_was_reworded_is_followed():
    """A fact key holds the assumptions' wording: a reworded key with the same citekey, quantity and unit is the
    same finding, and its move is listed (the classifier's accuracy, reworded in this update, for example)."""
    def num(key: str, value: str) -> dict[str, str]:
        return {"key": key, "citekey": "book", "quantity": "acc", "value": value, "low": "", "high": "",
                "unit": "%", "pages": "chapters/corpus.md"}

    assert release.moved({"book|acc||old words": num("book|acc||old words", "68.5")},
                         {"book|acc||new words": num("book|acc||new words", "72.3")}) == [
        ("book|acc||new words", "68.5 %", "72.3 %", "chapters/corpus.md")]
