"""Bibliography lint: references.bib (as generated from data/papers.csv) and the citation columns.

The expectations are written out here (field lists, patterns, hosts, known labels), not taken
from the generator, so a generator bug shows up as a failure.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import pandas as pd
import pybtex.database
import pytest
from conftest import ROOT
from pybtex.database import Person

from analysis.book import bibliography

REQUIRED = {
    "article": {"author", "title", "journal", "year", "url"},
    "inproceedings": {"author", "title", "booktitle", "year", "url"},
    "misc": {"title", "year", "url", "eprint", "archiveprefix"},  # arXiv versions
}
# canonical hosts, and the primary publishers' pages allowed when there is no arXiv id or DOI
CANONICAL_HOSTS = {"arxiv.org", "doi.org"}
PUBLISHER_HOSTS = {"www.usenix.org", "proceedings.mlr.press", "aclanthology.org", "openreview.net",
                   "proceedings.neurips.cc", "openaccess.thecvf.com", "proceedings.mlsys.org",
                   "dl.acm.org", "ieeexplore.ieee.org", "link.springer.com", "www.jmlr.org", "jmlr.org"}
ARXIV_NEW = re.compile(r"^(\d{2})(0[1-9]|1[0-2])\.\d{4,5}$")  # YYMM.NNNNN (no version suffix)
ARXIV_OLD = re.compile(r"^[a-z\-]+(\.[A-Z]{2})?/\d{7}$")
DOI = re.compile(r"^10\.\d{4,9}/[-._;()/:A-Za-z0-9<>\[\]]+$")
PLACEHOLDER = re.compile(r"not identified|unknown|anonymous|\banon\b|et al|\bothers\b|placeholder|n/a", re.I)


@pytest.fixture(scope="module")
def bib_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bib") / "references.bib"
    bibliography.write_bib(out)
    return out


@pytest.fixture(scope="module")
def bib(bib_path: Path) -> pybtex.database.BibliographyData:
    return pybtex.database.parse_file(str(bib_path))


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return pd.read_csv(ROOT / "data" / "papers.csv", dtype=str, keep_default_na=False)


def test_checked_in_bib_is_current(bib_path: Path):
    checked_in = ROOT / "references.bib"
    if not checked_in.exists():
        pytest.skip("references.bib not generated yet (make book writes it)")
    assert checked_in.read_text(encoding="utf-8") == bib_path.read_text(encoding="utf-8")


def test_required_fields_per_entry_type(bib):
    assert set(e.type for e in bib.entries.values()) <= set(REQUIRED)
    for key, e in bib.entries.items():
        have = set(e.fields) | set(e.persons)
        missing = REQUIRED[e.type] - have
        assert not missing, f"{key} (@{e.type}) lacks {sorted(missing)}"
        if e.type == "misc":
            assert e.fields["archiveprefix"] == "arXiv"
            assert "author" in e.persons or e.fields.get("key"), f"{key}: neither author nor key"
        assert re.fullmatch(r"(19|20)\d\d", e.fields["year"]), key
        assert re.fullmatch(r"[a-z]?", e.fields.get("yearsuffix", "")), key


def test_venue_fields_match_the_venue_kind(bib, rows):
    for _, r in rows.iterrows():
        e = bib.entries[r["citekey"]]
        if r["cited_version"] == "published" and r["authors"]:
            want = {"conference": "inproceedings", "workshop": "inproceedings", "journal": "article"}
            assert e.type == want[r["venue_kind"]], r["citekey"]
        else:
            assert e.type == "misc", r["citekey"]
        # a conference name never sits in `journal`
        if "journal" in e.fields:
            assert r["venue_kind"] == "journal", r["citekey"]


def test_no_placeholder_or_duplicate_authors(bib):
    for key, e in bib.entries.items():
        people = e.persons.get("author", [])
        for p in people:
            assert not PLACEHOLDER.search(str(p)), f"{key}: placeholder author {p}"
            assert p.last_names, f"{key}: author without family name: {p}"
        names = [str(p).lower() for p in people]
        dup = [n for n, c in Counter(names).items() if c > 1]
        assert not dup, f"{key}: duplicated author {dup}"
    assert "Authors not identified" not in "".join(e.fields.get("note", "") for e in bib.entries.values())


def _family(p: Person) -> str:
    # the family name as the author-year label shows it: particles ("von") included
    return " ".join(p.prelast_names + p.last_names).replace("{", "").replace("}", "")


def _label(e: pybtex.database.Entry) -> str:
    people = e.persons.get("author", [])
    if not people:
        who = e.fields["key"]
    elif len(people) == 1:
        who = _family(people[0])
    elif len(people) == 2:
        who = f"{_family(people[0])} and {_family(people[1])}"
    else:
        who = f"{_family(people[0])} et al."
    return f"{who} {e.fields['year']}{e.fields.get('yearsuffix', '')}"


def test_rendered_labels_are_unique_and_suffixed_only_when_needed(bib):
    labels = {k: _label(e) for k, e in bib.entries.items()}
    dup = [lab for lab, n in Counter(labels.values()).items() if n > 1]
    assert not dup, f"labels shared by several entries: {dup}"
    # a suffix only where the unsuffixed label is shared, and then a, b, c... without gaps
    base = Counter(lab.rstrip("abcdefghij") for lab in labels.values())
    for k, e in bib.entries.items():
        stem = labels[k][: len(labels[k]) - len(e.fields.get("yearsuffix", ""))]
        assert (base[stem] > 1) == bool(e.fields.get("yearsuffix")), k
    groups: dict[str, list[str]] = {}
    for k, e in bib.entries.items():
        if e.fields.get("yearsuffix"):
            groups.setdefault(labels[k][:-1], []).append(e.fields["yearsuffix"])
    for stem, sufs in groups.items():
        assert sorted(sufs) == list("abcdefghij"[: len(sufs)]), stem


def test_known_labels(bib):
    labels = {k: _label(e) for k, e in bib.entries.items()}
    assert labels["goyal2017accurate"] == "Goyal et al. 2017"
    assert {labels["zhong2024distserve"], labels["zhong2024zigzagkv"]} == {"Zhong et al. 2024a", "Zhong et al. 2024b"}
    assert labels["nvidia2024nemotron4"] == "NVIDIA 2024"
    assert labels["lamypoirier2022breadthfirst"] == "Lamy-Poirier 2022"


def test_the_book_style_renders_the_same_labels(bib):
    from analysis.book.bibstyle import AuthorYearStyle

    formatted = list(AuthorYearStyle().format_entries(bib.entries.values()))
    assert {f.key: f.label for f in formatted} == {k: _label(e) for k, e in bib.entries.items()}


def test_identifiers_are_well_formed(bib, rows):
    for _, r in rows.iterrows():
        if r["arxiv_id"]:
            assert ARXIV_NEW.match(r["arxiv_id"]) or ARXIV_OLD.match(r["arxiv_id"]), r["citekey"]
        if r["doi"]:
            assert DOI.match(r["doi"]), r["citekey"]
    for key, e in bib.entries.items():
        if "doi" in e.fields:
            assert DOI.match(e.fields["doi"]), key
        if "eprint" in e.fields:
            assert ARXIV_NEW.match(e.fields["eprint"]) or ARXIV_OLD.match(e.fields["eprint"]), key


def test_urls_are_canonical(bib, rows):
    for _, r in rows.iterrows():
        host = urlparse(r["url"]).hostname
        if r["arxiv_id"]:
            assert r["url"] == f"https://arxiv.org/abs/{r['arxiv_id']}", r["citekey"]
        elif r["doi"]:
            assert r["url"] == f"https://doi.org/{r['doi']}", r["citekey"]
        else:
            assert host in PUBLISHER_HOSTS, f"{r['citekey']}: {r['url']}"
        for col in ("confirmed_url", "authors_source"):
            if r[col]:
                h = urlparse(r[col]).hostname or ""
                assert h and not h.endswith("."), f"{r['citekey']}: {col} host {h!r}"
    for key, e in bib.entries.items():
        host = urlparse(e.fields["url"]).hostname
        assert urlparse(e.fields["url"]).scheme == "https", key
        assert host in CANONICAL_HOSTS | PUBLISHER_HOSTS, f"{key}: {e.fields['url']}"


def test_year_policy_columns(rows):
    kinds = {"conference", "workshop", "journal", "preprint"}
    assert set(rows["venue_kind"]) <= kinds
    for _, r in rows.iterrows():
        assert bool(r["venue"]) == (r["venue_kind"] != "preprint"), r["citekey"]
        if r["venue_year"]:
            assert int(r["venue_year"]) >= int(r["year"]) - 1, r["citekey"]
        assert r["cited_version"] in {"published", "preprint"}
        if r["venue_kind"] == "preprint":
            assert r["cited_version"] == "preprint", r["citekey"]


def _bad_chars(text: str) -> list[str]:
    bad = []
    for ch in text:
        cat = unicodedata.category(ch)
        if (cat == "Cc" and ch not in "\n\t") or cat in ("Cf", "Co", "Cs", "Zl", "Zp") or ch in "\u00a0\u2007\u202f":
            bad.append(f"U+{ord(ch):04X}")
    return bad


def test_no_invisible_or_control_characters(bib_path: Path):
    for path in (bib_path, ROOT / "data" / "papers.csv"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not _bad_chars(line), f"{path.name}:{n}: {_bad_chars(line)}"


def test_authors_column_is_bibtex_form(rows):
    for _, r in rows.iterrows():
        if not r["authors"]:
            continue
        for name in r["authors"].split(" and "):
            name = name.strip()
            assert name == name.strip() and "  " not in name, r["citekey"]
            assert name.startswith("{") or name.count(",") <= 1, f"{r['citekey']}: {name!r}"
        # a source page, or a note saying the list could not be confirmed
        assert r["authors_source"] or re.search(r"not (re-)?confirmed|not verified", r["notes"]), \
            f"{r['citekey']}: author list without a source"


def test_year_suffixes_go_past_z():
    # a group of entries sharing an author-year label may hold more than 26 (found by bench/book_scale.py
    # at ten times the corpus): after z come aa, ab, ... as in spreadsheet column names
    from analysis.book.bibliography import suffix_letters

    assert [suffix_letters(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == \
        ["a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"]


def test_the_rendered_bibliography_shows_no_latex_escape():
    """Issue 36: no "\\$" (nor another LaTeX escape of references.bib) on the built bibliography page."""
    page = ROOT / "_build" / "html" / "chapters" / "bibliography.html"
    if not page.exists():
        pytest.fail("the book has not been built: run `make book`")
    text = page.read_text(encoding="utf-8")
    for escape in ("\\$", "\\&amp;", "\\%", "\\#", "\\_", "\\textbackslash"):
        assert escape not in text, escape
    assert "$100K or 100 Days" in text
