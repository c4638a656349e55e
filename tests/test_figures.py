"""The figure helper: deterministic files, registry entries, style and palette."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import PY, ROOT

from analysis.plot import figures

SCRIPT = """
from analysis.plot import figures

fig, ax = figures.new()
ax.plot([1, 2, 3], [1, 4, 9], label="a")
ax.scatter([1, 2], [3, 1])
ax.set_xlabel("x (unit)")
ax.legend()
figures.save(fig, "det-test", title="t", caption="c", alt="a", chapter="methods", source_note="test")
"""


def _render(folder: Path, seed: str, files: bool = False) -> dict[str, str]:
    """Save the test figure into `folder/figures` (as a notebook does); with `files`, then make its PDF and
    talk version from the kept drawing (as make figures does, in another process)."""
    env = {**os.environ, "ANALYSIS_FIGURES_DIR": str(folder / "figures"), "PYTHONHASHSEED": seed}
    subprocess.run([str(PY), "-c", SCRIPT], cwd=ROOT, env=env, check=True)
    if files:
        subprocess.run([str(PY), "-m", "analysis", "figures", "--style", "all", "--figures", str(folder / "figures"),
                        "--out", str(folder / "talk")], cwd=ROOT, env={**env, "ANALYSIS_BOOK_URL": ""},
                       check=True, capture_output=True)
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.parent.name != figures.SOURCE_DIR}


def test_a_notebook_writes_what_the_html_shows_and_keeps_the_drawing(tmp_path: Path):
    a = _render(tmp_path, "1")
    # the page's SVG, its phone rendition, the full-size PNG, the gallery's 640-px WebP and the registry entry
    assert set(a) == {"figures/det-test.svg", "figures/phone/det-test.svg", "figures/det-test.png",
                      "figures/gallery/det-test.webp", "figures/det-test.json"}
    assert (tmp_path / figures.SOURCE_DIR / "det-test.pickle").stat().st_size > 0


def test_figure_files_are_byte_identical_across_runs(tmp_path: Path):
    a = _render(tmp_path / "a", "1", files=True)
    b = _render(tmp_path / "b", "2", files=True)
    assert set(a) == {"figures/det-test.svg", "figures/det-test.png", "figures/det-test.pdf", "figures/det-test.json",
                      "figures/gallery/det-test.webp", "figures/phone/det-test.svg",
                      "talk/det-test.svg", "talk/det-test.png", "talk/det-test.pdf",
                      "talk/det-test.json"}
    assert a == b


def test_talk_version_is_the_same_drawing_at_slide_size_with_its_footer(tmp_path: Path):
    from PIL import Image

    _render(tmp_path, "0", files=True)
    book = json.loads((tmp_path / "figures" / "det-test.json").read_text())
    talk = json.loads((tmp_path / "talk" / "det-test.json").read_text())
    assert talk["style"] == "talk" and book["style"] == "book"
    assert talk["footer"].startswith("Sources: test") and talk["footer"].endswith("Figure det-test")
    svg_and_entry = b"".join((tmp_path / "figures" / f"det-test.{x}").read_bytes() for x in ("svg", "json"))
    assert talk["source_sha256"] == hashlib.sha256(svg_and_entry).hexdigest()
    with Image.open(tmp_path / "talk" / "det-test.png") as t:
        assert t.size == (1920, 1080), "the talk version is the whole 16:9 slide"
    # every text is scaled by the talk style's font ratio (tick labels, axis label, legend): this sparse
    # figure needs no smaller factor
    svg = (tmp_path / "talk" / "det-test.svg").read_text()
    ratio = figures.STYLES["talk"]["font"] / figures.STYLES["book"]["font"]
    assert talk["font_scale"] == round(ratio, 4)
    sizes = {float(x) for x in __import__("re").findall(r"font-size: ([0-9.]+)px", svg)}
    book_sizes = {float(x) for x in __import__("re").findall(
        r"font-size: ([0-9.]+)px", (tmp_path / "figures" / "det-test.svg").read_text())}
    assert book_sizes and all(any(abs(t - b * ratio) < 0.05 for t in sizes) for b in book_sizes), (book_sizes, sizes)


def test_a_figure_with_notebook_functions_is_kept_and_made_elsewhere(tmp_path: Path):
    """Tick formatters and secondary axes defined in the notebook (lambdas in __main__) travel with
    the kept drawing, so another process makes its PDF and talk version."""
    script = SCRIPT.replace('ax.legend()', 'ax.legend()\nk = 3.0\nimport matplotlib.ticker as t\n'
                            'ax.xaxis.set_major_formatter(t.FuncFormatter(lambda v, _: f"{v:g}"))\n'
                            'ax.secondary_xaxis("top", functions=(lambda x: x * k, lambda y: y / k))')
    env = {**os.environ, "ANALYSIS_FIGURES_DIR": str(tmp_path / "figures")}
    subprocess.run([str(PY), "-c", script], cwd=ROOT, env=env, check=True)
    subprocess.run([str(PY), "-m", "analysis", "figures", "--style", "all", "--figures", str(tmp_path / "figures"),
                    "--out", str(tmp_path / "talk")], cwd=ROOT, env={**env, "ANALYSIS_BOOK_URL": ""}, check=True,
                   capture_output=True)
    assert (tmp_path / "figures" / "det-test.pdf").stat().st_size > 0
    assert (tmp_path / "talk" / "det-test.svg").stat().st_size > 0


def test_a_figure_that_cannot_be_kept_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANALYSIS_FIGURES_DIR", str(tmp_path / "figures"))
    fig, ax = figures.new()
    ax.plot([1, 2], [1, 2])
    fig.held = (x for x in range(3))  # a generator cannot be pickled
    with pytest.raises(ValueError, match="figure gen cannot be kept for its PDF and talk version"):
        figures.save(fig, "gen", title="t", caption="c", alt="a", chapter="c", source_note="s")


def test_registry_entry_and_metadata(tmp_path: Path):
    _render(tmp_path, "0")
    entry = json.loads((tmp_path / "figures" / "det-test.json").read_text())
    assert entry["id"] == "det-test" and entry["caption"] == "c" and entry["alt"] == "a"
    svg = (tmp_path / "figures" / "det-test.svg").read_text()
    assert "<dc:date>" not in svg
    png = (tmp_path / "figures" / "det-test.png").read_bytes()
    assert b"Software" not in png and b"matplotlib" not in png.lower()


def test_save_refuses_missing_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANALYSIS_FIGURES_DIR", str(tmp_path))
    fig, _ = figures.new()
    with pytest.raises(ValueError, match="caption"):
        figures.save(fig, "x", title="t", caption=" ", alt="a", chapter="c", source_note="s")
    with pytest.raises(ValueError, match="sources"):
        figures.save(fig, "x", title="t", caption="c", alt="a", chapter="c")
    with pytest.raises(ValueError, match="figure id"):
        figures.save(fig, "Bad Id", title="t", caption="c", alt="a", chapter="c", source_note="s")


def test_a_talk_figure_without_its_footer_maker_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The figure helper imports nothing of the book, so the talk footer's words come from the caller (or
    analysis.book.footer, registered on import); without them a talk figure is refused, never written bare."""
    monkeypatch.setattr(figures, "_footer", [])
    fig, _ = figures.new()
    entry = {"id": "t", "title": "t", "sources": [], "source_note": "s", "style": "talk"}
    with pytest.raises(ValueError, match="analysis.book.footer"):
        figures.write_files(fig, tmp_path, entry, ("svg",))
    calls = []

    def footer(f, fid, sources, note):
        calls.append((fid, note))
        return "Sources: s · Figure t", {"Rights": "CC BY 4.0", "Source": "local build"}

    figures.write_files(fig, tmp_path, entry, ("svg",), footer=footer)
    assert calls == [("t", "s")]
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["footer"] == "Sources: s · Figure t"


def test_every_theme_has_one_colour():
    from analysis.data import papers

    ids = set(papers.themes()["id"])
    assert ids == set(figures.THEME_COLOURS)
    assert len(set(figures.THEME_COLOURS.values())) == len(figures.THEME_COLOURS)
    assert set(figures.THEME_COLOURS.values()) <= set(figures.PALETTE)


def test_talk_style_is_larger(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANALYSIS_STYLE", "talk")
    fig, _ = figures.new()
    w, h = fig.get_size_inches()
    assert abs(w / h - 16 / 9) < 0.01
    assert figures.STYLES["talk"]["font"] > figures.STYLES["book"]["font"] >= 11


def test_the_written_out_theme_is_what_seaborn_sets():
    """figures.use_style applies seaborn's whitegrid theme without importing seaborn: the same rcParams."""
    import matplotlib as mpl
    import seaborn as sns

    mpl.rcdefaults()
    sns.set_theme(style="whitegrid", palette=figures.PALETTE, font="DejaVu Sans")
    want = dict(mpl.rcParams)
    mpl.rcdefaults()
    mpl.rcParams.update(figures.SEABORN_WHITEGRID)
    mpl.rcParams["axes.prop_cycle"] = mpl.cycler(color=[mpl.colors.to_rgb(c) for c in figures.PALETTE])
    got = dict(mpl.rcParams)
    mpl.rcdefaults()
    differ = {k: (got[k], want[k]) for k in want if got[k] != want[k] and k != "image.cmap"}
    assert not differ, differ


def test_a_dollar_sign_from_the_data_is_text_not_mathtext():
    """Issue 38: a data label holding "$\\frac{size$" (two dollar signs, broken mathtext) is drawn as the text it
    is instead of stopping the notebook; a price label keeps its one dollar sign; log-axis ticks and text
    marked figures.Math stay mathtext."""
    import io

    fig, ax = figures.new()
    ax.plot([1, 10, 100], [1, 2, 3], label="H100 ($2.45/h)")
    ax.set_xscale("log")
    title = ax.set_title("$\\frac{size$ of a paper's system")
    ax.text(0.5, 0.5, figures.Math("$10^{3}$"))
    ax.legend()
    fig.savefig(io.BytesIO(), format="svg")  # raised a mathtext ValueError before
    assert title.get_text() == "\\$\\frac{size\\$ of a paper's system"
    assert title._preprocess_math(title.get_text()) == ("$\\frac{size$ of a paper's system", False)
    label = ax.get_legend().get_texts()[0]
    assert label._preprocess_math(label.get_text()) == ("H100 ($2.45/h)", False)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert any("\\mathdefault" in t for t in ticks)
    assert ax.texts[0].get_text() == "$10^{3}$"
    figures.plt.close(fig)
