"""A figure's phone rendition: the same drawing laid out for a phone's width, so its smallest text stays legible.

A book figure is drawn about 8 in wide (768 CSS px at its natural size); a 390 px phone shows it about
340 px wide, which scales its 10-11 pt texts to 6-7 px. The phone rendition, ``<figures>/phone/<id>.svg``,
is the same drawing (the kept figure, loaded again) with

- its panels in one column (a row of two or three panels becomes a stack, each panel's axis labels shown);
- every text at least :data:`MIN_TEXT_PT` (smaller texts raised to it, larger ones kept);
- drawn :data:`WIDTH_IN` wide (axis labels, titles and category names wrapped to fit, crowded ticks thinned,
  legends beside or over the drawing moved under it, wide legends given fewer columns), and shown only if no
  two texts overlap and the cropped drawing is at most :data:`CROPPED_MAX_IN` wide (:func:`problems`).

The page offers it to narrow screens (``<picture>``, :mod:`analysis.book.reader`), so a 340 px wide image of a
drawing at most 302 pt wide draws an 8.5 pt text at 8.5 × 340 / 302 ≈ 9.6 px; a figure without a clean phone
rendition is panned at a legible width instead. The browser test measures every figure at 390 px
(tests/test_browser.py). Desktops and print keep the book figure.
"""

from __future__ import annotations

import warnings
from typing import Any

from analysis.plot import textfit

WIDTH_IN = 4.0  # the drawing's width before cropping: 288 pt
CROPPED_MAX_IN = 4.2  # the cropped drawing at most this wide (texts beyond the canvas widen it): 8.5 pt then
#                       draws at 8.5 × 330 / 302 = 9.3 px on the narrowest phone page (a notebook's output)
MIN_TEXT_PT = 8.5  # every text at least this: 9.7 px on a 330 px wide image of a 288 pt drawing
ROW_IN = (2.4, 9.0)  # a stacked panel's height: the book panel's height × ROW_SCALE, within these bounds
ROW_SCALE = 0.85


def _panels(fig: Any) -> list[tuple[tuple[int, int, int, int], list[Any]]]:
    """The figure's panels in reading order (row, then column), each with its axes (twins share a panel)."""
    panels: dict[tuple[int, int, int, int], list[Any]] = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        key = (spec.rowspan.start, spec.colspan.start, spec.rowspan.stop, spec.colspan.stop)
        panels.setdefault(key, []).append(ax)
    return sorted(panels.items())


def one_column(fig: Any) -> int:
    """Stack a figure's panels in one column (a one-column figure is left as it is). Returns the number
    of rows of panels in the figure as it now is."""
    panels = _panels(fig)
    grid = panels[0][1][0].get_subplotspec().get_gridspec() if panels else None
    if grid is None or grid.ncols == 1:
        return grid.nrows if grid is not None else 1
    rows = [stop - start for (start, _, stop, _), _ in panels]
    stacked = fig.add_gridspec(len(panels), 1, height_ratios=rows)
    for i, (_, axes) in enumerate(panels):
        for ax in axes:
            ax.set_subplotspec(stacked[i, 0])
            if ax.yaxis.get_label_position() == "left":  # not a twin's right axis: its row's shared y labels
                ax.tick_params(axis="y", labelleft=True)
    return len(panels)


SCRIPT_SHRINK = 0.7  # mathtext draws a superscript (the 3 of 10^3 on a log axis) at 0.7 of its base size


def floor_text(fig: Any, minimum_pt: float = MIN_TEXT_PT) -> None:
    """Raise every text of the figure (ticks included, as matplotlib makes them anew) to `minimum_pt`; tick
    labels with exponents (10^3) so high that the exponent reaches it."""
    import matplotlib.text

    fig.canvas.draw()  # the tick labels as they are drawn
    for ax in fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            for which in ("major", "minor"):
                labels = axis.get_ticklabels(which=which)
                scripted = any("^" in t.get_text() and "$" in t.get_text() for t in labels)
                least = minimum_pt / SCRIPT_SHRINK if scripted else minimum_pt
                if labels and labels[0].get_fontsize() < least:
                    ax.tick_params(axis=name, which=which, labelsize=least)
    for t in fig.findobj(matplotlib.text.Text):
        least = minimum_pt / SCRIPT_SHRINK if "^" in t.get_text() and "$" in t.get_text() else minimum_pt
        if t.get_fontsize() < least:
            t.set_fontsize(least)


LABEL_SHARE = 0.45  # category labels may take this share of the width; longer ones are wrapped again


def rewrap_labels(fig: Any, share: float = LABEL_SHARE) -> None:
    """Wrap an axis's category names (tick labels that are words) onto shorter lines where they would take
    more than `share` of the figure's width."""
    import textwrap

    renderer = fig.canvas.get_renderer()
    room = share * fig.bbox.width
    for ax in fig.axes:
        ticks = ax.get_yticks()
        texts = [" ".join(str(t).split()) for t in ax.yaxis.get_major_formatter().format_ticks(ticks)]
        if not any(any(c.isalpha() for c in t) and "$" not in t for t in texts):
            continue  # numbers
        widest = max((t.get_window_extent(renderer).width for t in ax.get_yticklabels() if t.get_text()),
                     default=0.0)
        width, limits = max((len(t) for t in texts), default=0), ax.get_ylim()
        while widest > room and width > 12:
            width = max(12, int(width * room / widest))
            ax.set_yticks(ticks, ["\n".join(textwrap.wrap(t, width)) or t for t in texts])
            ax.set_ylim(limits)
            fig.canvas.draw()
            widest = max((t.get_window_extent(renderer).width for t in ax.get_yticklabels() if t.get_text()),
                         default=0.0)


def _narrow_legends(fig: Any, width_px: float) -> None:
    """Give a legend wider than `width_px` fewer columns (made again with the same entries and placement)."""
    renderer = fig.canvas.get_renderer()
    for leg in _legends(fig):
        owner = fig if leg in fig.legends else leg.axes
        ncols = getattr(leg, "_ncols", 1)
        if ncols <= 1 or owner is None or leg.get_window_extent(renderer).width <= width_px:
            continue
        anchor = getattr(leg, "_bbox_to_anchor", None)  # kept in its own coordinates, as it was given
        where = {"loc": leg._loc, "bbox_to_anchor": getattr(anchor, "_bbox", None),
                 "bbox_transform": getattr(anchor, "_transform", None)}
        for n in range(ncols - 1, 0, -1):
            leg.remove()
            if leg in fig.legends:
                fig.legends.remove(leg)
            leg._ncols = n
            leg = _remake(owner, leg, **where)
            if leg.get_window_extent(renderer).width <= width_px:
                break


def _legends(fig: Any) -> list[Any]:
    from matplotlib.legend import Legend

    return [leg for leg in fig.findobj(Legend) if leg.get_visible()]


def _outside(fig: Any, leg: Any, renderer: Any) -> bool:
    """Whether a legend goes under the drawing on a phone: every legend but a small one inside its axes
    (beside the drawing, or wider than :data:`SMALL_LEGEND` of its axes' width or height)."""
    box = leg.get_window_extent(renderer)
    owner = leg.axes if getattr(leg, "axes", None) is not None else None
    panels = [ax.get_window_extent(renderer) for ax in fig.axes if ax.get_visible()]
    if not panels:
        return False
    if owner is None:
        return True
    area = owner.get_window_extent(renderer)
    inside = box.x0 >= area.x0 - 2 and box.x1 <= area.x1 + 2 and box.y0 >= area.y0 - 2 and box.y1 <= area.y1 + 2
    return not (inside and box.width <= SMALL_LEGEND * area.width and box.height <= SMALL_LEGEND * area.height)


SMALL_LEGEND = 0.5  # a legend inside its axes stays there on a phone if no wider or taller than this share


def _wrap(t: Any, extent: float, room: float) -> None:
    """Wrap a text whose longest line is `extent` pixels onto lines that fit `room` pixels."""
    import textwrap

    lines = t.get_text().split("\n")
    chars = max(len(line) for line in lines)
    words = " ".join(t.get_text().split())
    t.set_text("\n".join(textwrap.wrap(words, max(12, int(chars * room / extent) - 1))))


def wrap_long_texts(fig: Any) -> None:
    """Axis labels longer than their axes, titles and legend entries wider than the figure, wrapped onto
    more lines (mathematics left whole)."""
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    texts: list[tuple[Any, float]] = []
    for ax in fig.axes:
        area = ax.get_window_extent(renderer)
        centred = 0.96 * 2 * min((area.x0 + area.x1) / 2, width - (area.x0 + area.x1) / 2)  # centred on the axes
        texts += [(ax.xaxis.label, centred), (ax.yaxis.label, area.height * 1.05)]
        texts += [(t, centred) for t in (ax.title, ax._left_title, ax._right_title)]
    texts += [(t, 0.95 * width) for t in (getattr(fig, "_suptitle", None), getattr(fig, "_supxlabel", None))
              if t is not None]
    texts += [(t, 0.8 * width) for leg in _legends(fig) for t in leg.get_texts()]
    for t, room in texts:
        if not t.get_text() or "$" in t.get_text() or not t.get_visible():
            continue
        for _ in range(3):  # a proportional guess, checked
            size = t.get_window_extent(renderer)
            extent = size.height if t.get_rotation() % 180 else size.width
            if extent <= room:
                break
            _wrap(t, extent, room)


def room_for_categories(fig: Any, spacing: float = 1.2) -> None:
    """A figure made taller where an axis's category names (wrapped onto more lines) no longer fit its
    height: the names are evenly spaced, so each is given `spacing` times the tallest one's height."""
    renderer = fig.canvas.get_renderer()
    extra = 0.0
    for ax in fig.axes:
        labels = [t for t in ax.get_yticklabels() if t.get_text().strip() and t.get_visible()]
        if not labels or not any(c.isalpha() for t in labels for c in t.get_text()):
            continue
        needed = spacing * len(labels) * max(t.get_window_extent(renderer).height for t in labels)  # evenly spaced
        height = ax.get_window_extent(renderer).height
        extra = max(extra, (needed - height) * fig.bbox.height / height)  # the axes grow with their share
    if extra > 0:
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, min(h + extra / fig.dpi, ROW_IN[1] * 2))


def thin_ticks(fig: Any) -> None:
    """Tick labels that run into each other: fewer ticks on a number axis, category names turned upright."""
    from matplotlib.ticker import FixedLocator, LogLocator, MaxNLocator

    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for _ in range(3):
                boxes = [(t, t.get_window_extent(renderer)) for t in axis.get_ticklabels() if t.get_text()]
                if not textfit.overlaps(boxes):
                    break
                n = max(2, len(boxes) // 2)
                upright = axis is ax.xaxis and ax.xaxis.get_ticklabels()[0].get_rotation() == 90
                if isinstance(axis.get_major_locator(), FixedLocator) and axis is ax.xaxis and not upright:
                    ax.tick_params(axis="x", labelrotation=90)
                elif upright and any("\n" in t.get_text() for t, _ in boxes):  # upright names on one line each
                    axis.set_ticklabels([" ".join(t.get_text().split()) for t in axis.get_ticklabels()])
                elif axis.get_scale() == "log":
                    axis.set_major_locator(LogLocator(base=10, numticks=n + 1))
                elif not isinstance(axis.get_major_locator(), FixedLocator):
                    axis.set_major_locator(MaxNLocator(nbins=n))
                else:
                    break
                fig.canvas.draw()


def _remake(owner: Any, leg: Any, **where: Any) -> Any:
    """The legend `leg` made again by `owner` (a figure or axes) with the same entries and look at `where`."""
    texts = leg.get_texts()
    new = owner.legend(leg.legend_handles, [t.get_text() for t in texts], ncols=getattr(leg, "_ncols", 1),
                       frameon=leg.get_frame_on(), fontsize=texts[0].get_fontsize() if texts else None,
                       title=leg.get_title().get_text() or None, **where)
    if leg.get_title().get_text():
        new.get_title().set_fontsize(leg.get_title().get_fontsize())
    return new


def legends_below(fig: Any, pad_px: float = 6.0) -> float:
    """Legends placed beside the drawing (or too big to sit on it) made again as figure legends under it,
    one under another, centred; the figure made taller by their height. Returns the band's height (px)."""
    renderer = fig.canvas.get_renderer()
    moved = [leg for leg in _legends(fig) if _outside(fig, leg, renderer)]
    if not moved:
        return 0.0
    heights = [leg.get_window_extent(renderer).height + pad_px for leg in moved]
    band = sum(heights) + pad_px
    w, h = fig.get_size_inches()
    fig.set_size_inches(w, h + band / fig.dpi)
    top = band
    for leg, height in zip(moved, heights, strict=True):
        leg.remove()
        if leg in fig.legends:
            fig.legends.remove(leg)
        _remake(fig, leg, loc="upper center", bbox_to_anchor=(0.5, top / fig.bbox.height),
                bbox_transform=fig.transFigure)
        top -= height
    return band


def lay_out(fig: Any, band_px: float = 0.0) -> None:
    """Tight layout of the whole drawing above a band of `band_px` pixels (the figure's own engine is
    replaced: its spacing was for the book)."""
    from matplotlib.layout_engine import TightLayoutEngine

    textfit.release_grid_spacing(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a figure the layout cannot improve is kept as it is
        fig.set_layout_engine(None)
        TightLayoutEngine(pad=0.4, rect=(0, band_px / fig.bbox.height, 1, 1)).execute(fig)
    fig.canvas.draw()


def cropped_width_in(fig: Any) -> float:
    """The drawing's width once saved with the book's tight crop (``savefig.bbox: tight``), in inches."""
    return float(fig.get_tightbbox(fig.canvas.get_renderer()).width)


def wrap_wide_notes(fig: Any) -> None:
    """Texts placed at a point (labels, notes) that leave the canvas and are wider than half of it, wrapped onto
    more lines; moving them back inside the canvas is :func:`analysis.plot.textfit.separate`'s."""
    renderer = fig.canvas.get_renderer()
    room = 0.5 * fig.bbox.width
    for t in textfit.placed_texts(fig):
        if t.get_visible() and t.get_text().strip() and "$" not in t.get_text():
            box = t.get_window_extent(renderer)
            if box.width > room and (box.x0 < 0 or box.x1 > fig.bbox.width):
                _wrap(t, box.width, room)
    fig.canvas.draw()


def to_phone(fig: Any) -> Any:
    """Turn a drawn book figure (changed in place) into its phone rendition; returns it."""
    panels = _panels(fig)
    rows_before = panels[0][1][0].get_subplotspec().get_gridspec().nrows if panels else 1
    height_in = fig.get_size_inches()[1]
    rows = one_column(fig)
    for ax in fig.axes:  # texts placed at a point do not squeeze the axes; textfit.separate keeps them inside
        for t in ax.texts:
            t.set_in_layout(False)
    row_in = min(max(height_in / rows_before * ROW_SCALE, ROW_IN[0]), ROW_IN[1])
    fig.set_size_inches(WIDTH_IN, row_in * rows + 0.3)
    floor_text(fig)
    rewrap_labels(fig)
    _narrow_legends(fig, 0.96 * fig.bbox.width)
    lay_out(fig)
    wrap_long_texts(fig)
    thin_ticks(fig)
    room_for_categories(fig)
    lay_out(fig)
    band = legends_below(fig)
    lay_out(fig, band)
    wrap_wide_notes(fig)
    textfit.separate(fig, fig.bbox, {id(t) for t in textfit.placed_texts(fig)})
    return fig


def problems(fig: Any) -> list[str]:
    """What keeps a phone rendition from being shown: texts that overlap, a cropped drawing wider than
    :data:`CROPPED_MAX_IN` (a text beyond the canvas widens the crop), each named by its text."""
    found = [f"{a.get_text()[:30]!r} overlaps {b.get_text()[:30]!r}"
             for a, b in textfit.overlaps(textfit.text_boxes(fig))]
    if cropped_width_in(fig) > CROPPED_MAX_IN:
        found.append(f"the drawing is {cropped_width_in(fig):.2f} in wide")
    return found
