"""Figures as reusable files: the registry, the gallery page, and re-running with other parameters."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from conftest import PY, ROOT

from analysis.plot import figures

STAGE = ROOT / "_build" / "book"
BUILT = ROOT / "_build" / "html" / ".built"

pytestmark = pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book`")


def test_registry_and_files_agree():
    entries = figures.registry(STAGE / "figures")
    assert len(entries) >= 5
    for e in entries:
        for ext in ("svg", "png"):  # what a notebook writes (the PDF is made on request: test_figure_files)
            assert (STAGE / "figures" / f"{e['id']}.{ext}").stat().st_size > 0, (e["id"], ext)
        assert (STAGE / "figure-src" / f"{e['id']}.pickle").stat().st_size > 0, (e["id"], "kept drawing")
        for field in ("title", "caption", "alt", "chapter", "notebook"):
            assert e[field].strip(), (e["id"], field)
        assert e["sources"] or e["source_note"], e["id"]
    svgs = {p.stem for p in (STAGE / "figures").glob("*.svg")}
    assert svgs == {e["id"] for e in entries}, "a figure file without a registry entry (or the reverse)"


def test_each_notebook_page_shows_the_figures_it_saved():
    html = ROOT / "_build" / "html"
    for e in figures.registry(STAGE / "figures"):
        page = html / "notebooks" / f"{Path(e['notebook']).stem}.html"
        text = page.read_text(encoding="utf-8")
        assert f'src="../_images/{e["id"]}.svg"' in text, f"{page.name} does not show {e['id']}"
        assert f'alt="{e["alt"].split()[0]}' in text, f"{page.name}: {e['id']} without its alt text"


def test_no_page_names_the_build_machine_path():
    hits = [p.name for p in (ROOT / "_build" / "html").rglob("*.html") if str(ROOT) in p.read_text(encoding="utf-8")]
    assert not hits, f"pages showing an absolute path of this checkout: {hits}"


def test_png_is_300_dpi():
    from PIL import Image

    for e in figures.registry(STAGE / "figures")[:3]:
        with Image.open(STAGE / "figures" / f"{e['id']}.png") as im:
            dpi = im.info.get("dpi", (0, 0))
            assert round(dpi[0]) == 300, e["id"]


def test_gallery_lists_every_figure_with_downloads_and_citation():
    html = (ROOT / "_build" / "html" / "reference" / "figures.html").read_text(encoding="utf-8")
    for e in figures.registry(STAGE / "figures"):
        assert f'id="gallery-{e["id"]}"' in html, e["id"]
        for ext in ("svg", "png"):
            assert f"{e['id']}.{ext}" in html, (e["id"], ext)
        # the PDF is offered exactly when it has been made
        assert (f"{e['id']}.pdf" in html) == (STAGE / "figures" / f"{e['id']}.pdf").exists(), (e["id"], "pdf")
    assert "Cite this figure" in html and "howpublished" in html


def test_gallery_cite_blocks_name_every_field_and_no_placeholder_host():
    """Each figure's cite block: authors, title, figure id and caption, version, year, URL with the
    figure's anchor (or "local build"), licence; the BibTeX has the same fields."""
    from analysis.book import publish

    page = (STAGE / "reference" / "figures.md").read_text(encoding="utf-8")
    url = ""
    stamp = ROOT / "_build" / "book-url"
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() != publish.LOCAL:
        url = stamp.read_text(encoding="utf-8").strip()
    meta = publish.book_meta(url=url)
    assert "example.org" not in page
    blocks = page.split("````{dropdown} Cite this figure")[1:]
    entries = figures.registry(STAGE / "figures")
    assert len(blocks) == len(entries)
    for e in entries:
        block = next(b for b in blocks if f"Figure {e['id']}:" in b)
        text, bib = block.split("```bibtex")
        for part in (text, bib):
            for value in (meta["authors"], meta["title"], meta["version"], meta["year"], e["id"], "CC BY 4.0",
                          " ".join(e["caption"].split()[:3]).replace("`", "'")):
                assert value in part or publish.bib_text(value) in part, (e["id"], value)
        where = f"{url}reference/figures.html#gallery-{e['id']}" if url else "local build"
        assert where in text and where in bib, e["id"]
    html = (ROOT / "_build" / "html" / "reference" / "figures.html").read_text(encoding="utf-8")
    assert html.count("CC BY 4.0") >= len(entries)


def test_every_book_figure_is_used_in_the_book_or_gallery():
    chapters = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "chapters").glob("*.md"))
    unused = [e["id"] for e in figures.registry(STAGE / "figures") if f"figures/{e['id']}.svg" not in chapters]
    assert not unused, f"figures not shown in any chapter: {unused}"


def _glued(nb: Path, key: str) -> str:
    data = json.loads(nb.read_text(encoding="utf-8"))
    for cell in data["cells"]:
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook", {})
            if meta.get("name") == key:
                mime = meta.get("mime_prefix", "") + "text/plain"
                return "".join(out["data"][mime])
    raise KeyError(key)


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_rerun_with_other_parameters_changes_outputs_not_the_book(tmp_path: Path):
    before = _tree(ROOT / "_build" / "book")
    out = tmp_path / "run"
    proc = subprocess.run(
        [str(PY), "-m", "analysis", "run", "methods-roofline", "-p", "accelerators", "A100-80GB,H100-SXM",
         "-p", "gpu_hour_usd", "2.5", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    nb_new = out / "methods-roofline.ipynb"
    nb_book = STAGE / "notebooks" / "methods-roofline.ipynb"
    assert _glued(nb_new, "ex_usd_per_mtok_b1") != _glued(nb_book, "ex_usd_per_mtok_b1")
    new_fig = (out / "figures" / "methods-roofline.svg").read_bytes()
    assert new_fig != (STAGE / "figures" / "methods-roofline.svg").read_bytes()
    params = json.loads((out / "figures" / "methods-roofline.json").read_text())["parameters"]
    assert params["accelerators"] == "A100-80GB,H100-SXM"
    assert _tree(ROOT / "_build" / "book") == before, "a re-run must not touch the book's build folder"


def test_rerun_refuses_out_of_range_value(tmp_path: Path):
    proc = subprocess.run(
        [str(PY), "-m", "analysis", "run", "methods-roofline", "-p", "pue", "0.8", "--out", str(tmp_path / "x")],
        cwd=ROOT, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert "pue" in proc.stderr and "out of range" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_a_figure_from_many_papers_counts_them_and_links_its_metadata():
    # a figure drawn from the whole ledger would otherwise cite every paper on the Figures page, which
    # grows with the corpus (bench/book_scale.py found 4.4 MB at ten times today's)
    from analysis.book.gallery import MAX_CITED_SOURCES, paper_list

    few = {"id": "f", "sources": ["a2024x", "b2023y"]}
    assert paper_list(few) == "{cite:t}`a2024x`, {cite:t}`b2023y`"
    many = {"id": "claims-speedup-spread", "sources": [f"p{i}" for i in range(MAX_CITED_SOURCES + 1)]}
    text = paper_list(many)
    assert "{cite" not in text and f"{MAX_CITED_SOURCES + 1} papers" in text
    assert "{download}`JSON <../figures/claims-speedup-spread.json>`" in text
    assert paper_list({"id": "g", "sources": []}) == "none"
