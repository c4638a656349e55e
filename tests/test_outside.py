"""Works outside the corpus (data/outside-corpus.csv): schema, separation from the corpus, bibliography
entries and the coverage-gaps table."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pybtex.database
import pytest

from analysis.book import bibliography
from analysis.data import claims, corpus, outside, papers, paths
from analysis.data.paths import DataError
from analysis.themes import outside_table

FILE = "outside-corpus.csv"


def _clear_caches() -> None:
    for fn in (papers._load, papers.themes, outside._load, claims._load):
        fn.cache_clear()


@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(paths.DATA, dst)
    for mod in (paths, papers, outside, claims):
        monkeypatch.setattr(mod, "DATA", dst)
    _clear_caches()
    yield dst
    _clear_caches()


def _edit(path: Path, row: int, column: str, value: str) -> None:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.loc[row, column] = value
    df.to_csv(path, index=False)


# --- the schema and cross-checks name file, row and column -----------------------------------------

@pytest.mark.parametrize(
    "column, value, message",
    [
        ("theme", "quantum-vibes", "row 5, column theme: unknown theme"),
        ("arxiv_id", "24o7.0860", "row 5, column arxiv_id"),
        ("year", "twenty", "row 5, column year"),
        ("authors", "Dao, Tri, and, Fu", "row 5, column authors"),
        ("authors_complete", "maybe", "row 5, column authors_complete"),
        ("source_url", "somewhere on the web", "row 5, column source_url"),
        ("venue_kind", "blog", "row 5, column venue_kind"),
        ("citekey", "kaplan2020scaling", "row 5, column citekey: collides with a citekey of data/papers.csv"),
        ("arxiv_id", "2001.08361", "row 5, column arxiv_id: this work is in the corpus"),
        ("title", "Scaling Laws for Neural Language Models", "row 5, column title: a paper of data/papers.csv"),
        ("year", "2019", "row 5, column year: not the year of the first arXiv posting"),
        ("cited_version", "maybe", "row 5, column cited_version"),
        # GPTQ (ICLR 2023) has no DOI: its published version cannot be cited with what names it
        ("cited_version", "published", "row 5, column doi: missing for a published version"),
        ("venue_year", "2023", "row 5, column venue_year: given, but the arXiv version is cited"),
    ],
)
def test_bad_rows_are_named(data_copy: Path, column: str, value: str, message: str):
    path = data_copy / FILE
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert df.loc[3, "arxiv_id"], "row 5 of the file should be an arXiv-identified work"
    _edit(path, 3, column, value)
    with pytest.raises(DataError, match=re.escape(f"{FILE}: ") + message):
        outside.load()


def test_unidentified_work_is_named(data_copy: Path):
    path = data_copy / FILE
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.loc[3, ["arxiv_id", "doi", "venue"]] = ""
    df.loc[3, "venue_kind"] = "preprint"
    df.to_csv(path, index=False)
    with pytest.raises(DataError, match=f"{FILE}: row 5, column arxiv_id: no arXiv ID, DOI or venue"):
        outside.load()


def test_missing_column_is_named(data_copy: Path):
    path = data_copy / FILE
    pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns=["why_expected"]).to_csv(path, index=False)
    with pytest.raises(DataError, match=f"{FILE}: header, column why_expected: required column is missing"):
        outside.load()


def test_the_file_is_validated_with_the_rest_of_data():
    from analysis.book.cli import data_owners
    from analysis.data import validate

    lines = list(validate.validate_all(data_owners()))
    assert any(line.startswith(f"ok  data/{FILE}:") for line in lines)


# --- the real file ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def works() -> pd.DataFrame:
    return outside.load()


def test_no_citekey_or_work_collides_with_the_corpus(works):
    corpus_df = papers.load()
    assert works["citekey"].is_unique
    assert not set(works["citekey"]) & set(corpus_df["citekey"])
    assert not set(works["arxiv_id"].dropna()) & set(corpus_df["arxiv_id"].dropna())
    assert not set(works["doi"].dropna()) & set(corpus_df["doi"].dropna())


def test_size_and_coverage(works):
    # a short list of landmarks, not a second corpus (issue 32 added four; issue 36 five the prose names;
    # issue 33 one, Muennighoff et al. 2023 for data-constrained scaling; issue 35's re-check three that chapter
    # prose already named without an entry: the OCP MX specification, NVIDIA's NVFP4 report and the Llama 2
    # report, whose numbers the quantization and sustainability chapters use)
    assert 20 <= len(works) <= 49
    # at least one gap per theme of the taxonomy
    assert set(papers.themes()["id"]) == set(works["theme"])


def test_every_work_is_identified_and_canonically_linked(works):
    for _, r in works.iterrows():
        if pd.notna(r["arxiv_id"]):
            assert r["url"] == f"https://arxiv.org/abs/{r['arxiv_id']}", r["citekey"]
        elif pd.notna(r["doi"]):
            assert r["url"] == f"https://doi.org/{r['doi']}", r["citekey"]
        else:
            assert pd.notna(r["venue"]) and r["url"] == r["source_url"], r["citekey"]


# --- never counted as corpus papers ----------------------------------------------------------------

def test_corpus_counts_are_unchanged(works, seeds: Path):
    # the corpus is what the seed files hold: one paper per distinct abstract fingerprint
    n_seed_papers = len({p.fingerprint for p in corpus.load_corpus(seeds)})
    df = papers.load()
    assert len(df) == n_seed_papers
    assert not set(works["citekey"]) & set(df["citekey"])


def test_outside_works_are_not_in_the_ledger_audit_or_paper_tables(works):
    from analysis.themes import paper_table

    keys = set(works["citekey"])
    assert not keys & set(claims.load()["citekey"])  # the claims ledger, which the audit checks
    assert not keys & set(paper_table.index_table()["citekey"])  # the paper index
    for theme in papers.themes()["id"]:
        text = paper_table.chapter_table_markdown(theme, {})
        assert not any(f"`{k}`" in text for k in keys), theme


# --- references.bib --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bib(tmp_path_factory: pytest.TempPathFactory) -> pybtex.database.BibliographyData:
    out = tmp_path_factory.mktemp("bib") / "references.bib"
    bibliography.write_bib(out)
    return pybtex.database.parse_file(str(out))


def test_outside_works_are_in_the_bibliography_and_marked(bib, works):
    corpus_keys = set(papers.load()["citekey"])
    outside_keys = set(works["citekey"])
    assert set(bib.entries) == corpus_keys | outside_keys
    for key, e in bib.entries.items():
        marked = e.fields.get("keywords") == outside.KEYWORD
        assert marked == (key in outside_keys), key
        assert ("Outside the corpus" in e.fields.get("note", "")) == marked, key


def test_outside_entry_types_follow_the_version_cited(bib, works):
    want = {"journal": "article", "conference": "inproceedings", "workshop": "inproceedings", "report": "techreport"}
    for _, r in works.iterrows():
        e = bib.entries[r["citekey"]]
        if r["cited_version"] == "preprint":
            assert e.type == "misc" and e.fields["eprint"] == r["arxiv_id"], r["citekey"]
            assert "doi" not in e.fields, r["citekey"]  # a DOI names the published version, not the one cited
        else:
            assert e.type == want[r["venue_kind"]], r["citekey"]
            if pd.notna(r["arxiv_id"]):
                assert e.fields["eprint"] == r["arxiv_id"], r["citekey"]  # the arXiv copy stays findable
        assert e.fields["url"] == r["url"]
    assert bib.entries["yu2022orca"].fields["booktitle"] == \
        "USENIX Symposium on Operating Systems Design and Implementation (OSDI 2022)"
    assert bib.entries["williams2009roofline"].fields["doi"] == "10.1145/1498765.1498785"
    # a specification that is not a paper: the OCP MX specification v1.0 (2023), published by the Open Compute
    # Project, with no arXiv ID or DOI, is a report of that organisation
    ocp = bib.entries["ocp2023microscaling"]
    assert (ocp.type, ocp.fields["institution"], ocp.fields["year"]) == ("techreport", "Open Compute Project", "2023")
    assert "eprint" not in ocp.fields and "doi" not in ocp.fields


def test_a_published_outside_version_carries_venue_year_and_doi(bib, works):
    # an outside work cited as its published version (issue 36: its DOI prints) names that version: venue, the
    # venue's year (the label year, its first arXiv year in a note) and DOI; its link stays the open arXiv copy
    published = works[works["cited_version"] == "published"]
    assert len(published[published["arxiv_id"].notna()]) >= 10
    for _, r in published.iterrows():
        e = bib.entries[r["citekey"]]
        assert (pd.notna(r["venue"]) and pd.notna(r["doi"])) or pd.isna(r["arxiv_id"]), r["citekey"]
        if pd.notna(r["doi"]):
            assert e.fields["doi"] == r["doi"], r["citekey"]
        if pd.notna(r["arxiv_id"]):
            assert e.fields["year"] == str(r["venue_year"]) and int(r["venue_year"]) >= int(r["year"]), r["citekey"]
            assert r["url"] == f"https://arxiv.org/abs/{r['arxiv_id']}", r["citekey"]
            first = f"First posted on arXiv in {r['year']}"
            assert (first in e.fields["note"]) == (r["venue_year"] != r["year"]), r["citekey"]
    # expected versions from the publications: ZeRO is the SC20 paper (IEEE, DOI 10.1109/SC41405.2020.00024),
    # Instant-NGP the ACM ToG 41(4) article (DOI 10.1145/3528223.3530127); vLLM appeared at SOSP 2023
    zero = bib.entries["rajbhandari2019zero"]
    want_zero = ("inproceedings", "2020", "10.1109/SC41405.2020.00024")
    assert (zero.type, zero.fields["year"], zero.fields["doi"]) == want_zero
    assert "First posted on arXiv in 2019" in zero.fields["note"]
    ngp = bib.entries["muller2022instant"]
    assert (ngp.type, ngp.fields["year"], ngp.fields["doi"]) == ("article", "2022", "10.1145/3528223.3530127")
    assert "SOSP 2023" in bib.entries["kwon2023efficient"].fields["booktitle"]
    # GraphCast as published in Science (PubMed 37962497: Science 382(6677):1416-1421, 2023), retitled
    cast = bib.entries["lam2022graphcast"].fields
    assert (cast["volume"], cast["number"], cast["pages"], cast["year"]) == ("382", "6677", "1416--1421", "2023")
    assert not cast["title"].startswith("{GraphCast")
    # where the arXiv version is cited, no volume or pages of another version print
    for _, r in works[works["cited_version"] == "preprint"].iterrows():
        assert not {"volume", "number", "pages"} & set(bib.entries[r["citekey"]].fields), r["citekey"]


def test_published_version_year_is_the_label_year():
    # the label shows the cited version's year (SC 2020 for ZeRO, first posted on arXiv in 2019), and the
    # published-label snapshot records that year (a corrected year takes its new label, issue 35)
    frame = bibliography.bib_frame().set_index("citekey")
    assert bibliography.label_base(frame.loc["rajbhandari2019zero"]) == "Rajbhandari et al. 2020"
    assert bibliography.published_labels()["rajbhandari2019zero"] == "Rajbhandari et al. 2020"


def test_published_row_rules_are_named(data_copy: Path):
    path = data_copy / FILE
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    i = df.index[df["citekey"] == "rajbhandari2019zero"][0]
    df.loc[i, "venue_year"] = ""
    df.to_csv(path, index=False)
    with pytest.raises(DataError, match=f"{FILE}: row {i + 2}, column venue_year: missing for a published"):
        outside.load()
    df.loc[i, ["venue_year", "cited_version"]] = ["2020", "preprint"]
    df.loc[i, "arxiv_id"] = ""
    df.to_csv(path, index=False)
    with pytest.raises(DataError, match=f"{FILE}: row {i + 2}, column cited_version: preprint, but the work has no"):
        outside.load()


def test_figure_labels_use_the_bibliography_suffixes():
    # a corpus label shared with an outside work gets a suffix in the text, the bibliography and
    # the figure footers alike
    from analysis.book import footer

    footer._paper_labels.cache_clear()
    labels = footer._paper_labels()
    suffixes = bibliography.all_suffixes()
    for key, label in labels.items():
        assert label.endswith(suffixes.get(key, "")), key


# --- the coverage-gaps table -----------------------------------------------------------------------

def test_gaps_table_lists_every_work_once_under_its_theme(works):
    text = outside_table.gaps_markdown()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    titles = list(papers.themes()["title"])
    assert len(sections) == len(titles)
    for theme_id, section in zip(papers.themes()["id"], sections, strict=True):
        own = works[works["theme"] == theme_id]
        for _, r in own.iterrows():
            assert section.count(f"]({r['url']})") == 1, r["citekey"]
        rows = [ln for ln in section.splitlines() if ln.startswith("| ") and not ln.startswith("| work")]
        assert len(rows) == len(own), theme_id
    assert "{cite" not in text
    # the version cited is named: ZeRO's row links its SC20 DOI beside the open arXiv copy
    assert ("[arXiv:1910\\.02054](https://arxiv.org/abs/1910.02054) · "
            "[DOI](https://doi.org/10.1109/SC41405.2020.00024)") in text
    assert "{cite:t}`dao2022flashattention`" in outside_table.gaps_markdown(cite=True)


def test_gaps_table_escapes_data_text():
    text = outside_table.gaps_markdown()
    assert "LLM\\.int8\\(\\)\\:" in text  # punctuation from the data is literal, not markup
    assert outside_table.counts_by_theme().sum() == len(outside.load())


def test_concepts_are_short():
    df = outside.load()
    long = df[(df["concept"].str.split().str.len() > 15) | (df["why_expected"].str.split().str.len() > 20)]
    assert long.empty, ("data/outside-corpus.csv: concept over 15 or why_expected over 20 words: "
                        f"{list(long['citekey'])}")
