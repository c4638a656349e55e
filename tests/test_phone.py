"""The phone rendition of a figure (analysis/plot/phone.py) and how a page offers it (analysis/book/reader.py).

The browser test (tests/test_browser.py: test_every_figure_text_is_at_least_9_px_on_a_phone) measures every
built figure at 390 px; these check the pieces on small drawings made here."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from analysis.book import reader  # noqa: E402
from analysis.plot import figures, phone  # noqa: E402


def _svg_font_sizes(path: Path) -> list[float]:
    return [float(x) for x in re.findall(r"font-size: ?([\d.]+)px", path.read_text(encoding="utf-8"))]


def _row_of_three() -> plt.Figure:
    """A book figure a phone cannot show as it is: three panels in a row sharing a log y axis, a 6 pt note,
    a five-column legend beside the panels."""
    figures.use_style()
    fig, axes = plt.subplots(1, 3, figsize=(8.0, 4.6), sharey=True)
    for i, ax in enumerate(axes):
        for k in range(5):
            ax.plot([1, 10, 100], [k + 1, (k + 2) * 10, (k + 3) * 100], label=f"series number {k}")
        ax.set_yscale("log")
        ax.set_title(f"panel {i}")
        ax.set_xlabel("a fairly long axis label that a phone cannot fit on one line")
    axes[0].text(2, 2, "a 6 pt note", fontsize=6)
    axes[2].legend(ncols=5, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


def test_a_row_of_panels_becomes_a_legible_column(tmp_path: Path):
    fig = phone.to_phone(_row_of_three())
    rows = {ax.get_subplotspec().rowspan.start for ax in fig.axes}
    cols = {ax.get_subplotspec().colspan.start for ax in fig.axes}
    assert (len(rows), cols) == (3, {0}), "the three panels are not stacked in one column"
    assert all(ax.yaxis.get_ticklabels()[0].get_visible() for ax in fig.axes)
    assert phone.problems(fig) == []
    out = tmp_path / "f.svg"
    fig.savefig(out)
    plt.close(fig)
    # every text (ticks' exponents included, drawn at 0.7 of their base) at least the phone minimum
    assert min(_svg_font_sizes(out)) >= phone.MIN_TEXT_PT - 1e-6
    width_pt = float(re.search(r'viewBox="0 0 ([\d.]+)', out.read_text(encoding="utf-8")).group(1))
    assert width_pt <= 72 * phone.CROPPED_MAX_IN
    # the bar, computed by hand: the smallest text at the narrowest phone figure width we measured (330 px)
    assert min(_svg_font_sizes(out)) * 330 / width_pt >= 9.0


def test_a_crowded_rendition_is_not_written_and_a_stale_one_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import cloudpickle

    fig = _row_of_three()
    kept = cloudpickle.dumps(fig)
    plt.close(fig)
    assert figures.write_phone(kept, tmp_path, "row-of-three") == "drawn"
    assert (tmp_path / "phone" / "row-of-three.svg").is_file()
    monkeypatch.setattr(phone, "problems", lambda f: ["'a' overlaps 'b'"])
    assert figures.write_phone(kept, tmp_path, "row-of-three").startswith("not drawn: 'a' overlaps 'b'")
    assert not (tmp_path / "phone" / "row-of-three.svg").exists()


def _app(tmp_path: Path) -> SimpleNamespace:
    (tmp_path / "src" / "figures" / "phone").mkdir(parents=True)
    (tmp_path / "out" / "_images").mkdir(parents=True)
    return SimpleNamespace(srcdir=str(tmp_path / "src"), outdir=str(tmp_path / "out"))


def test_a_page_offers_the_phone_rendition_to_narrow_screens(tmp_path: Path):
    app = _app(tmp_path)
    (tmp_path / "src" / "figures" / "phone" / "a-fig.svg").write_text("<svg/>", encoding="utf-8")
    body = '<p><img alt="x" src="../_images/a-fig.svg" /></p>'
    out = reader.phone_figures(app, body)
    assert out == ('<p><picture><source media="screen and (max-width: 640px)" srcset="../_images/phone/a-fig.svg" '
                   'type="image/svg+xml"><img alt="x" src="../_images/a-fig.svg" /></picture></p>')
    assert (tmp_path / "out" / "_images" / "phone" / "a-fig.svg").read_text(encoding="utf-8") == "<svg/>"


def test_a_figure_without_one_is_panned_at_a_legible_width(tmp_path: Path):
    app = _app(tmp_path)
    svg = ('<svg width="576pt" viewBox="0 0 576 345.6"><text style="font-size: 11px">a</text>'
           '<tspan style="font-size: 7.7px">3</tspan></svg>')
    (tmp_path / "src" / "figures" / "b-fig.svg").write_text(svg, encoding="utf-8")
    out = reader.phone_figures(app, '<img alt="y" src="_images/b-fig.svg">')
    # 9.5 px × 576 / 7.7 = 710.6: at 711 CSS px its 7.7-unit text draws at 9.5 px
    assert 'data-legible-width="711"' in out and "--legible-width: 711px" in out
    assert out.startswith('<span class="figure-pan"') and out.endswith("</span>")


def test_the_gallery_webp_is_panned_even_where_a_phone_rendition_exists(tmp_path: Path):
    """The gallery shows 63 light WebP images; offering each phone SVG there would triple its weight."""
    app = _app(tmp_path)
    (tmp_path / "src" / "figures" / "phone" / "c-fig.svg").write_text("<svg/>", encoding="utf-8")
    (tmp_path / "src" / "figures" / "c-fig.svg").write_text(
        '<svg viewBox="0 0 400 200"><text style="font-size: 10px">a</text></svg>', encoding="utf-8")
    out = reader.phone_figures(app, '<img alt="z" src="../_images/c-fig.webp">')
    assert "<picture>" not in out and 'data-legible-width="380"' in out  # 9.5 × 400 / 10


def test_a_drawing_the_phone_layout_cannot_handle_is_panned_not_fatal(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch):
    import cloudpickle

    fig = _row_of_three()
    kept = cloudpickle.dumps(fig)
    plt.close(fig)

    def broken(f: object) -> None:
        raise IndexError("no panels")

    monkeypatch.setattr(phone, "to_phone", broken)
    verdict = figures.write_phone(kept, tmp_path, "odd")
    assert verdict == "not drawn: the phone layout failed (IndexError: no panels)"
    assert not (tmp_path / "phone" / "odd.svg").exists()


def test_a_label_placed_beside_the_axes_does_not_squeeze_them():
    """A point's label that runs left of the axes (a point at x = 0.2 of 0..10, its label ending there, as a
    scatter's labels do) makes a tight layout shrink the axes to a sliver (16% of the width before this
    rule); on a phone the axes keep their width and the label is moved inside the drawing."""
    figures.use_style()
    fig, ax = plt.subplots(figsize=(8.0, 5.0))
    ax.plot([0, 10], [0, 10], "o")
    ax.set_xlim(0, 10)
    ax.text(0.2, 5, "a long point label that sits left of the axes", ha="right")
    phone.to_phone(fig)
    share = ax.get_window_extent().width / fig.bbox.width
    assert share > 0.6, f"the axes take {share:.0%} of the phone drawing's width"
    assert phone.problems(fig) == []
    plt.close(fig)


def test_upright_category_names_that_still_collide_go_on_one_line():
    figures.use_style()
    fig, ax = plt.subplots(figsize=(8.0, 4.0))
    names = [f"theme {k}\nn = {k} papers ({2 * k} claims)" for k in range(12)]
    ax.bar(range(12), range(1, 13))
    ax.set_xticks(range(12), names, rotation=90)
    phone.to_phone(fig)
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[3] == "theme 3 n = 3 papers (6 claims)"
    assert phone.problems(fig) == []
    plt.close(fig)


def test_boxed_labels_collide_by_their_boxes_not_their_letters():
    """Two labels 0.3 in apart (about 29 px at 96 dpi) whose boxes are padded by 1.5 font sizes each side
    (10 pt: about 20 px a side): the letters are apart, the boxes overlap by about 11 px, a collision."""
    from analysis.plot import textfit

    figures.use_style()
    fig = plt.figure(figsize=(4.0, 2.0), dpi=96)
    box = {"boxstyle": "round,pad=1.5", "facecolor": "white"}
    fig.text(0.5, 0.5, "AB", fontsize=10, ha="center", va="center", bbox=box)
    fig.text(0.5, 0.5 - 0.3 / 2.0, "CD", fontsize=10, ha="center", va="center", bbox=box)
    found = textfit.overlaps(textfit.text_boxes(fig))
    assert [(a.get_text(), b.get_text()) for a, b in found] == [("AB", "CD")]
    plt.close(fig)
