"""A figure's files beyond what the HTML shows: its PDF and its talk version, made from the kept figure.

A notebook draws each figure once and keeps it (``figure-src/<id>.pickle``, :func:`analysis.plot.figures.keep_source`).
This module loads those kept figures, in a pool of one process per core, and writes

- the book style's PDF (``<figures>/<id>.pdf``) and, for a published build, the 360 px sharing-card
  thumbnail (``<figures>/thumbs/<id>.png``);
- the talk version (``_build/talk-figures/<id>.{svg,png,pdf,json}``): the same drawing on the whole 16:9
  slide (its PNG 1920 × 1080 px), every text scaled by one factor (the talk/book font ratio, or the largest
  smaller one of :data:`SCALES` at which no two texts overlap and none leaves the slide; recorded as
  ``font_scale``), lines and markers by the talk style's ratios, point labels moved apart, legends placed
  in figure coordinates given a band of their own, and the attribution footer in a strip at the bottom.

No notebook runs again, so the talk style costs no kernel. A talk file records the digest of the
figure it was made from (``source_sha256`` in its JSON: of the book SVG and entry) and the book URL
its footer names; staging (:func:`analysis.book.build.stage`) offers a talk version only while both still match, and
:func:`render` skips figures whose files are current. Output is byte-identical across runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from analysis.plot import textfit
from analysis.plot.textfit import OVERLAP_PX, off_canvas, overlaps, text_boxes  # noqa: F401  (this module's API)

STYLES = ("book", "talk")
FORMATS = ("svg", "png", "pdf")


def digest(figures_dir: Path, fig_id: str) -> str:
    """The drawing a figure's files are made from, as one hash: its book SVG and registry entry (both
    byte-reproducible, unlike the kept pickle, and rewritten whenever the notebook draws it again)."""
    h = hashlib.sha256()
    for ext in ("svg", "json"):
        h.update((figures_dir / f"{fig_id}.{ext}").read_bytes())
    return h.hexdigest()


def talk_current(entry: dict[str, Any], figures_dir: Path, url: str) -> bool:
    """Whether a talk entry was made from its figure as `figures_dir` holds it now, for the book URL `url`."""
    fid = entry.get("id", "")
    return bool((figures_dir / f"{fid}.svg").exists() and (figures_dir / f"{fid}.json").exists()
                and entry.get("source_sha256") == digest(figures_dir, fid) and entry.get("book_url", "") == url)


# The talk style scales every text of a book figure by one factor, the talk/book font ratio; a figure whose
# texts would then overlap or leave the slide (a tall figure of many rows, dense point labels) is drawn with
# the next smaller factor of this list, the same for all its texts.
SCALES = (1.0, 0.9, 0.8, 0.7, 0.62, 0.55, 0.5, 0.44)  # fractions of the talk/book ratio


def restyle(fig: Any, k_font: float) -> None:
    """Restyle a drawn book figure in place for a slide: 16:9 at the talk size, every text (titles, labels,
    ticks, legends, annotations) scaled by `k_font`, lines and markers by the talk style's ratios."""
    import matplotlib.text
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D

    from analysis.plot.figures import STYLES as SIZES
    from analysis.plot.figures import TALK_DPI

    book, talk = SIZES["book"], SIZES["talk"]
    k_line, k_marker = talk["line"] / book["line"], talk["marker"] / book["marker"]
    fig.set_size_inches(*talk["figsize"])
    fig.set_dpi(TALK_DPI)
    ticks: set[int] = set()
    for ax in fig.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            for which in ("major", "minor"):
                labels = axis.get_ticklabels(which=which)
                ticks |= {id(t) for t in labels}
                size = labels[0].get_fontsize() if labels else book["font"]
                # tick_params also reaches the ticks matplotlib makes anew at the new size
                ax.tick_params(axis=name, which=which, labelsize=size * k_font)
    for t in fig.findobj(matplotlib.text.Text):
        if id(t) not in ticks:
            t.set_fontsize(t.get_fontsize() * k_font)
    for line in fig.findobj(Line2D):
        line.set_linewidth(line.get_linewidth() * k_line)
        line.set_markersize(line.get_markersize() * k_marker)
    for c in fig.findobj(Collection):
        sizes = c.get_sizes() if hasattr(c, "get_sizes") else None
        if sizes is not None and len(sizes):
            c.set_sizes(sizes * k_marker**2)  # marker area
        widths = c.get_linewidths()
        if len(widths):
            c.set_linewidths([w * k_line for w in widths])
    layout(fig)


def _anchored_to_figure(fig: Any) -> list[tuple[Any, Any]]:
    """The legends placed in figure coordinates (``fig.legend``, or an axes' legend anchored with
    ``bbox_transform=fig.transFigure``), each with its axes (None for a figure legend)."""
    found: list[tuple[Any, Any]] = [(leg, None) for leg in fig.legends]
    for ax in fig.axes:
        leg = ax.get_legend()
        anchor = getattr(leg, "_bbox_to_anchor", None)
        if leg is not None and getattr(anchor, "_transform", None) is fig.transFigure:
            found.append((leg, ax))
    return found


def _shift_legend(fig: Any, leg: Any, dx_px: float, dy_px: float) -> None:
    """Move a figure-anchored legend by (dx, dy) pixels (its anchor, so its own placement rule holds)."""
    box = leg.get_bbox_to_anchor()
    w, h = fig.bbox.width, fig.bbox.height
    x0, y0 = box.x0 / w + dx_px / w, box.y0 / h + dy_px / h
    if box.width or box.height:
        leg.set_bbox_to_anchor((x0, y0, box.width / w, box.height / h), transform=fig.transFigure)
    else:
        leg.set_bbox_to_anchor((x0, y0), transform=fig.transFigure)


def layout(fig: Any) -> None:
    """Lay the figure out on the slide above the footer's strip (its own layout engine if it has one). A
    legend placed in figure coordinates below (or above) the drawing, which a cropped book figure shows
    outside its axes, gets a band of its own at the slide's bottom (top), centred under its axes."""
    import warnings

    from analysis.plot.figures import TALK_FOOTER_IN

    w, h = fig.bbox.width, fig.bbox.height
    bottom, top, pad = TALK_FOOTER_IN * fig.dpi, h, 6.0
    engine = fig.get_layout_engine()

    def lay_out() -> None:
        rect = (0.0, bottom / h, 1.0, top / h)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a figure the layout cannot improve is kept as it is
            if engine is not None and hasattr(engine, "set") and "rect" in engine.get():
                engine.set(rect=rect)
                fig.canvas.draw()
            else:  # run directly: a kept figure may hold a placeholder engine that makes tight_layout a no-op
                from matplotlib.layout_engine import TightLayoutEngine

                TightLayoutEngine(rect=rect, pad=0.5).execute(fig)

    legends = _anchored_to_figure(fig)
    for leg, _ in legends:
        leg.set_in_layout(False)  # placed in a band of its own below, not inside its axes' room
    textfit.release_grid_spacing(fig)
    lay_out()
    if not legends:
        return
    renderer = fig.canvas.get_renderer()
    low: list[tuple[Any, Any, Any]] = []
    high: list[tuple[Any, Any, Any]] = []
    for leg, ax in legends:
        box = leg.get_window_extent(renderer)
        axes_box = (ax or fig.axes[0]).get_position().transformed(fig.transFigure) if fig.axes else fig.bbox
        (low if (box.y0 + box.y1) / 2 < (axes_box.y0 + axes_box.y1) / 2 else high).append((leg, ax, box))
    if low:
        bottom += max(b.height for _, _, b in low) + 2 * pad
    if high:
        top -= max(b.height for _, _, b in high) + 2 * pad
    lay_out()
    for group, edge in ((low, "low"), (high, "high")):
        for leg, ax, _ in group:
            box = leg.get_window_extent(renderer)
            dy = (bottom - pad - box.y1) if edge == "low" else (top + pad - box.y0)
            dx = 0.0
            if ax is not None:
                pos = ax.get_position().transformed(fig.transFigure)
                dx = (pos.x0 + pos.x1) / 2 - (box.x0 + box.x1) / 2
            _shift_legend(fig, leg, dx, dy)
            box = leg.get_window_extent(renderer)
            dx = max(0.0, pad - box.x0) - max(0.0, box.x1 - (w - pad))  # inside the slide's width
            if dx:
                _shift_legend(fig, leg, dx, 0.0)
    fig.canvas.draw()


def _movable(fig: Any) -> set[int]:
    """The texts a layout may move: those placed at a point (ax.text, ax.annotate, fig.text), not the
    titles, axis and tick labels or legends the axes place themselves."""
    from analysis.book.footer import FOOTER_GID

    return {id(t) for t in textfit.placed_texts(fig)
            if t.get_gid() != FOOTER_GID and t is not getattr(fig, "_suptitle", None)}


def _room(fig: Any) -> Any:
    """The slide's drawing area in pixels: the canvas without the footer's strip."""
    from matplotlib.transforms import Bbox

    from analysis.plot.figures import TALK_FOOTER_IN

    return Bbox.from_extents(0, TALK_FOOTER_IN * fig.dpi, fig.bbox.width, fig.bbox.height)


def problems(fig: Any) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """The overlapping pairs of drawn texts and the texts that leave the drawing area."""
    boxes = text_boxes(fig)
    return overlaps(boxes), off_canvas(fig, boxes, _room(fig))


def separate(fig: Any, rounds: int = 4, steps: int = 40) -> None:
    """Move the slide's placed texts apart and inside its drawing area (:func:`analysis.plot.textfit.separate`)."""
    textfit.separate(fig, _room(fig), _movable(fig), rounds, steps)


def to_talk(data: bytes) -> tuple[Any, float]:
    """The kept drawing (pickled bytes) as a slide: the largest scale of :data:`SCALES` at which, after the
    layout and moving the placed labels apart, no text overlaps another or leaves the slide (found by
    bisection; the smallest if none). Returns the figure and the factor its texts were scaled by."""
    import pickle

    import matplotlib.pyplot as plt

    from analysis.plot.figures import STYLES as SIZES
    from analysis.plot.figures import use_style

    use_style()  # the book's settings, which a drawing reads when it is drawn (ticks made anew, say)
    ratio = SIZES["talk"]["font"] / SIZES["book"]["font"]

    def attempt(n: int) -> tuple[Any, bool]:
        fig = pickle.loads(data)
        restyle(fig, ratio * SCALES[n])
        separate(fig)
        clashes, off = problems(fig)
        return fig, not clashes and not off

    fig, ok = attempt(0)
    if ok:
        return fig, ratio * SCALES[0]
    plt.close(fig)
    best: tuple[Any, int] | None = None
    lo, hi = 1, len(SCALES) - 1  # the first scale that works, assuming a smaller one works where a larger does
    while lo <= hi:
        mid = (lo + hi) // 2
        fig, ok = attempt(mid)
        if ok:
            if best is not None:
                plt.close(best[0])
            best, hi = (fig, mid), mid - 1
        else:
            plt.close(fig)
            lo = mid + 1
    if best is None:
        return attempt(len(SCALES) - 1)[0], ratio * SCALES[-1]
    return best[0], ratio * SCALES[best[1]]


def _render_one(job: tuple[str, str, str, str, str, tuple[str, ...]]) -> str:
    """Write one kept figure's files in `style`; returns its id."""
    src_s, entry_s, out_s, style, url, formats = job
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.environ["ANALYSIS_BOOK_URL"] = url  # the talk footer names it
    os.environ["ANALYSIS_STYLE"] = "book"
    from analysis.book import footer
    from analysis.plot import figures

    src, out = Path(src_s), Path(out_s)
    entry = json.loads(Path(entry_s).read_text(encoding="utf-8"))
    figures.use_style()  # the files' settings (hash salt, font types, tight bounding box)
    if style == "talk":
        fig, k_font = to_talk(src.read_bytes())
    else:
        fig = pickle.loads(src.read_bytes())
    try:
        if style == "talk":
            # the old record goes first: a render interrupted after some files leaves no record that
            # calls them current (their footer may name another book URL), so the next run makes them again
            (out / f"{entry['id']}.json").unlink(missing_ok=True)
            talk = {**entry, "style": "talk", "font_scale": round(k_font, 4),
                    "source_sha256": digest(Path(entry_s).parent, entry["id"]),
                    "book_url": url}
            figures.write_files(fig, out, talk, formats, footer=footer.add_footer)
        else:
            figures.write_files(fig, out, entry, formats, write_entry=False)
            if url:  # the sharing card of a published page
                figures.thumbnail(out / f"{entry['id']}.png", out / "thumbs" / f"{entry['id']}.png")
    finally:
        plt.close(fig)
    return str(entry["id"])


def check_style(style: str) -> None:
    """ValueError naming the known styles unless `style` is one of them (or "all")."""
    if style not in (*STYLES, "all"):
        raise ValueError(f"unknown figure style {style!r}; known: {', '.join((*STYLES, 'all'))}")


def render(style: str, figures_dir: Path, talk_dir: Path, url: str, jobs: int | None = None,
           ids: Sequence[str] | None = None, talk_formats: Sequence[str] = FORMATS) -> list[str]:
    """Make the files of `style` ("book": PDFs; "talk": talk versions in `talk_formats`; "all": both) for
    every kept figure of `figures_dir` (or only `ids`) whose files are not current. Returns the ids made."""
    from analysis.plot.figures import registry, source_dir

    check_style(style)
    styles = STYLES if style == "all" else (style,)
    src_dir = source_dir(figures_dir)
    work: list[tuple[str, str, str, str, str, tuple[str, ...]]] = []
    for e in registry(figures_dir):
        fid = e["id"]
        if ids is not None and fid not in ids:
            continue
        src = src_dir / f"{fid}.pickle"
        if not src.exists():
            raise ValueError(f"figure {fid}: no kept drawing at {src}; run its notebook again (make book)")
        entry = str(figures_dir / f"{fid}.json")
        for s in styles:
            if s == "book":
                done = (figures_dir / f"{fid}.pdf").exists() and (
                    not url or (figures_dir / "thumbs" / f"{fid}.png").exists())
                if not done:
                    work.append((str(src), entry, str(figures_dir), "book", url, ("pdf",)))
            else:
                talk_json = talk_dir / f"{fid}.json"
                done = talk_json.exists() and talk_current(json.loads(talk_json.read_text(encoding="utf-8")),
                                                           figures_dir, url) \
                    and all((talk_dir / f"{fid}.{x}").exists() for x in talk_formats)
                if not done:
                    work.append((str(src), entry, str(talk_dir), "talk", url, tuple(talk_formats)))
    if not work:
        return []
    workers = min(len(work), jobs or len(os.sched_getaffinity(0)))
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        made = list(pool.map(_render_one, work))
    except BaseException:
        # an interrupt (or a failed figure) stops the workers at once rather than waiting for the queue
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return made
