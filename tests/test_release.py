"""Versions of the living review (issue 35): stable bibliography labels, releases and the What changed page,
renaming a citekey everywhere."""

from __future__ import annotations

import datetime as dt
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
    """Every entry of the committed snapshot that is still in the bibliography has its published label (after
    a correction of authors or years, `python -m analysis labels` rewrites the snapshot, on purpose)."""
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
