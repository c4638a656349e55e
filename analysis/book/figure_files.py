"""A figure's files beyond what the HTML shows: its PDF and its talk version, made from the kept figure.

A notebook draws each figure once and keeps it (``figure-src/<id>.pickle``, :func:`analysis.plot.figures.keep_source`).
This module loads those kept figures, in a pool of one process per core, and writes

- the book style's PDF (``<figures>/<id>.pdf``) and, for a published build, the 360 px sharing-card
  thumbnail (``<figures>/thumbs/<id>.png``);
- the talk version (``_build/talk-figures/<id>.{svg,png,pdf,json}``): the same drawing at slide size
  (16:9), every text, line and marker scaled by the talk style's factors, with the attribution footer.

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


def to_talk(fig: Any) -> None:
    """Restyle a drawn book figure in place for a slide: 16:9 at the talk size, every text (titles,
    labels, ticks, legends, annotations) scaled by the talk/book font ratio, lines and markers by
    theirs, then laid out again."""
    import matplotlib.text
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D

    from analysis.plot.figures import STYLES as SIZES

    book, talk = SIZES["book"], SIZES["talk"]
    k_font, k_line, k_marker = talk["font"] / book["font"], talk["line"] / book["line"], talk["marker"] / book["marker"]
    fig.set_size_inches(*talk["figsize"])
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
    if fig.get_layout_engine() is None:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a figure tight_layout cannot improve is saved as it is
            fig.tight_layout()


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
    fig = pickle.loads(src.read_bytes())
    try:
        if style == "talk":
            # the old record goes first: a render interrupted after some files leaves no record that
            # calls them current (their footer may name another book URL), so the next run makes them again
            (out / f"{entry['id']}.json").unlink(missing_ok=True)
            to_talk(fig)
            talk = {**entry, "style": "talk", "source_sha256": digest(Path(entry_s).parent, entry["id"]),
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
