"""A figure's PDF and talk version, made from the drawing its notebook kept (analysis/book/figure_files.py):
what staging and the gallery offer, and that every figure of the book can be made for slides."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import PY, ROOT

from analysis.book import build, figure_files, gallery
from analysis.plot import figures

STAGE = ROOT / "_build" / "book"
BUILT = ROOT / "_build" / "html" / ".built"

SCRIPT = """
import sys
from analysis.plot import figures

fig, ax = figures.new()
ax.plot([1, 2, 3], [1, 4, float(sys.argv[1])], label="a")
ax.set_xlabel("x (unit)")
ax.legend()
figures.save(fig, "ff-test", title="t", caption="c", alt="a", chapter="methods", source_note="test")
"""


def _save(folder: Path, last: float) -> None:
    env = {**os.environ, "ANALYSIS_FIGURES_DIR": str(folder / "figures")}
    subprocess.run([str(PY), "-c", SCRIPT, str(last)], cwd=ROOT, env=env, check=True)


def _stage_talk(tmp: Path, monkeypatch: pytest.MonkeyPatch, url: str = "") -> set[str]:
    monkeypatch.setattr(build, "STAGE", tmp)
    monkeypatch.setattr(build, "TALK", tmp / "talk-figures")
    monkeypatch.setenv("ANALYSIS_BOOK_URL", url)
    build._talk_figures()
    folder = tmp / "figures" / "talk"
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def test_staging_offers_a_talk_version_only_while_it_matches_the_drawing(tmp_path: Path, monkeypatch):
    _save(tmp_path, 9)
    assert _stage_talk(tmp_path, monkeypatch) == set(), "nothing is offered before it is made"
    figure_files.render("talk", tmp_path / "figures", tmp_path / "talk-figures", url="")
    assert _stage_talk(tmp_path, monkeypatch) == {"ff-test-talk.png", "ff-test-talk.svg", "ff-test-talk.pdf"}
    # another book URL: the footer names the old one, so the version is not offered
    assert _stage_talk(tmp_path, monkeypatch, url="https://someone.github.io/review/") == set()
    assert _stage_talk(tmp_path, monkeypatch) == {"ff-test-talk.png", "ff-test-talk.svg", "ff-test-talk.pdf"}
    # the notebook draws the figure again with other data: the talk version made before is stale
    _save(tmp_path, 5)
    assert _stage_talk(tmp_path, monkeypatch) == set()
    # and `render` makes it again (only what is out of date), after which it is offered again
    assert figure_files.render("talk", tmp_path / "figures", tmp_path / "talk-figures", url="") == ["ff-test"]
    assert figure_files.render("talk", tmp_path / "figures", tmp_path / "talk-figures", url="") == []
    assert len(_stage_talk(tmp_path, monkeypatch)) == 3


def test_an_interrupted_talk_render_is_made_again_with_the_right_footer(tmp_path: Path, monkeypatch):
    """A talk render for another book URL that stops after writing the SVG (an interrupt) must not leave the
    earlier record calling the files current: the next render for the first URL writes them again."""
    _save(tmp_path, 9)
    figs, talk = tmp_path / "figures", tmp_path / "talk-figures"
    figure_files.render("talk", figs, talk, url="")
    real = figures.write_files

    def interrupted(fig, out, entry, formats, write_entry=True, **kw):
        real(fig, out, entry, ("svg",), write_entry=False, **kw)  # the SVG (new footer) lands, then the interrupt
        raise KeyboardInterrupt

    monkeypatch.setattr(figures, "write_files", interrupted)
    src = figures.source_dir(figs) / "ff-test.pickle"
    job = (str(src), str(figs / "ff-test.json"), str(talk), "talk", "https://someone.github.io/review/", ("svg",))
    with pytest.raises(KeyboardInterrupt):
        figure_files._render_one(job)
    assert "someone.github.io" in (talk / "ff-test.svg").read_text(encoding="utf-8")
    monkeypatch.setattr(figures, "write_files", real)
    assert figure_files.render("talk", figs, talk, url="") == ["ff-test"], "the interrupted files were kept as current"
    assert "someone.github.io" not in (talk / "ff-test.svg").read_text(encoding="utf-8")


def test_a_new_drawing_removes_the_pdf_made_from_the_old_one(tmp_path: Path):
    _save(tmp_path, 9)
    figure_files.render("book", tmp_path / "figures", tmp_path / "talk-figures", url="")
    pdf = tmp_path / "figures" / "ff-test.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    _save(tmp_path, 5)
    assert not pdf.exists(), "a PDF of the earlier drawing was left beside the new SVG"


def test_gallery_offers_the_pdf_and_talk_files_where_made(tmp_path: Path, monkeypatch):
    _save(tmp_path, 9)
    page = tmp_path / "figures.md"
    gallery.write_page(page, tmp_path / "figures")
    text = page.read_text(encoding="utf-8")
    assert "ff-test.svg" in text and "ff-test.png" in text
    assert "ff-test.pdf" not in text and "-talk." not in text
    figure_files.render("all", tmp_path / "figures", tmp_path / "talk-figures", url="")
    _stage_talk(tmp_path, monkeypatch)
    gallery.write_page(page, tmp_path / "figures")
    text = page.read_text(encoding="utf-8")
    assert "<../figures/ff-test.pdf>" in text
    for ext in ("png", "svg", "pdf"):
        assert f"<../figures/talk/ff-test-talk.{ext}>" in text


def test_an_unknown_style_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown figure style 'slides'"):
        figure_files.render("slides", tmp_path, tmp_path, url="")


CLASH = """
import sys
from analysis.plot import figures

fig, axes = figures.new(1, 2, figsize=(8, 4.8))
for ax in axes:
    ax.plot([1, 2, 3], [1, 4, 9], label="a line with a long label")
    ax.text(2, 4, "label one", fontsize=10)
    ax.text(2.02, 4.05, "label two", fontsize=10)  # drawn on top of the first
    ax.annotate("an annotation", (3, 9), xytext=(3, 9))
fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
figures.save(fig, "ff-clash", title="t", caption="c", alt="a", chapter="methods", source_note="test")
"""


def test_a_talk_figure_is_16_9_at_1920_by_1080_with_no_text_overlapping_or_off_the_slide(tmp_path: Path):
    """Two labels drawn on top of each other, an annotation at the plot's corner and a figure legend below
    the axes (off a fixed canvas): the talk version is the whole 16:9 slide, its labels moved apart, the
    legend in a band above the footer, every text scaled by one factor."""
    import pickle

    from PIL import Image

    env = {**os.environ, "ANALYSIS_FIGURES_DIR": str(tmp_path / "figures")}
    subprocess.run([str(PY), "-c", CLASH], cwd=ROOT, env=env, check=True)
    data = (tmp_path / figures.SOURCE_DIR / "ff-clash.pickle").read_bytes()
    book = pickle.loads(data)
    figure_files.restyle(book, 1.0)  # at slide size without moving anything: the checks see the clash
    clashes, _ = figure_files.problems(book)
    assert {(a.get_text(), b.get_text()) for a, b in clashes} >= {("label one", "label two")}
    figure_files.render("talk", tmp_path / "figures", tmp_path / "talk", url="")
    with Image.open(tmp_path / "talk" / "ff-clash.png") as im:
        assert im.size == (1920, 1080)
    talk = json.loads((tmp_path / "talk" / "ff-clash.json").read_text(encoding="utf-8"))
    fig, k = figure_files.to_talk(data)
    assert talk["font_scale"] == round(k, 4)
    clashes, off = figure_files.problems(fig)
    assert not clashes and not off, (clashes, off)
    book_sizes = sorted(t.get_fontsize() for t, _ in figure_files.text_boxes(pickle.loads(data)))
    talk_sizes = sorted(t.get_fontsize() for t, _ in figure_files.text_boxes(fig))
    assert talk_sizes == pytest.approx([b * k for b in book_sizes]), "one factor for every text"


@pytest.mark.slow
@pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book` first")
def test_every_figure_of_the_book_makes_its_talk_version(tmp_path: Path):
    """Every kept drawing of the built book restyles for a slide (issue 34): its PNG 16:9 within 1 % (1920 ×
    1080), every text scaled by one factor, no two text boxes overlapping and none off the slide, with its
    footer (SVG and PNG; the PDF is written by the same code, tested above). About 4 minutes on 2 cores."""
    from PIL import Image

    folder = tmp_path / "figures"
    shutil.copytree(STAGE / "figures", folder, ignore=shutil.ignore_patterns("talk", "gallery", "thumbs", "*.pdf"))
    shutil.copytree(STAGE / figures.SOURCE_DIR, tmp_path / figures.SOURCE_DIR)
    made = figure_files.render("talk", folder, tmp_path / "talk", url="", talk_formats=("svg", "png"))
    entries = figures.registry(folder)
    assert sorted(made) == sorted(e["id"] for e in entries)
    bad = []
    for e in entries:
        svg = (tmp_path / "talk" / f"{e['id']}.svg").read_text(encoding="utf-8")
        assert 'id="figure-footer"' in svg, e["id"]
        talk = json.loads((tmp_path / "talk" / f"{e['id']}.json").read_text(encoding="utf-8"))
        assert talk["footer"].endswith(f"Figure {e['id']}"), e["id"]
        with Image.open(tmp_path / "talk" / f"{e['id']}.png") as im:
            assert abs(im.width / im.height / (16 / 9) - 1) < 0.01, (e["id"], im.size)
        book = {float(x) for x in re.findall(r"font-size: ([0-9.]+)px", (folder / f"{e['id']}.svg").read_text())}
        sizes = {float(x) for x in re.findall(r"font-size: ([0-9.]+)px", svg)}
        ratio = talk["font_scale"]
        unscaled = [b for b in book if not any(abs(t - b * ratio) < 0.05 for t in sizes)]
        assert not unscaled, f"{e['id']}: text sizes {unscaled} not scaled by its one factor {ratio}"
        fig, _ = figure_files.to_talk((tmp_path / figures.SOURCE_DIR / f"{e['id']}.pickle").read_bytes())
        clashes, off = figure_files.problems(fig)
        figures.plt.close(fig)
        if clashes or off:
            bad.append((e["id"], [(a.get_text(), b.get_text()) for a, b in clashes][:3],
                        [t.get_text() for t in off][:3]))
    assert not bad, bad
