"""The book's one figure style, its palette, and deterministic figure files.

Every figure is made with :func:`new` and saved with :func:`save`. A notebook writes what the HTML
book shows: ``<id>.svg``, ``<id>.png`` (300 dpi) and ``<id>.json`` (the figure's registry entry:
title, caption, alt text, sources, notebook, parameters, data files) into
:func:`analysis.data.paths.figures_dir`, and keeps the drawn figure (``figure-src/<id>.pickle``). The
PDF and the talk version are made from that kept figure on request (:mod:`analysis.book.figure_files`;
``make figures``, ``make publish``). Files are byte-reproducible: fixed ``svg.hashsalt``, no dates or
software tags in the metadata.

The talk style (16:9, larger type, thicker lines, same palette) carries a one-line footer inside the
image (SVG text with id ``figure-footer``, also in the files' metadata and the registry entry's
``footer``): its sources, the licence, the book's short URL and the figure id. Its words come from the
book layer (:mod:`analysis.book.footer`), which this module does not import: the caller passes the
footer maker to :func:`write_files`, or importing :mod:`analysis.book.footer` registers it
(:func:`use_footer`) for ``ANALYSIS_STYLE=talk``, which makes :func:`new` and :func:`save` draw and write a
figure in that style directly.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.text  # noqa: E402
from cycler import cycler  # noqa: E402

from analysis.data.markup import md_text  # noqa: E402
from analysis.data.paths import figures_dir  # noqa: E402

FIG_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# Paul Tol's colour-blind-safe "muted" scheme plus two of his "vibrant" colours and grey.
PALETTE: list[str] = [
    "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77",
    "#CC6677", "#882255", "#AA4499", "#EE7733", "#0077BB", "#BBBBBB",
]

# One colour per theme, used in every figure. Keys are the ids of data/themes.yml.
THEME_COLOURS: dict[str, str] = {
    "gpu-kernels": "#332288",
    "quantization": "#88CCEE",
    "accelerators": "#44AA99",
    "serving": "#117733",
    "training-at-scale": "#999933",
    "neural-graphics": "#DDCC77",
    "nas": "#CC6677",
    "sustainability": "#882255",
    "scaling": "#AA4499",
    "generative": "#EE7733",
    "budget-training": "#0077BB",
    "beyond-ml": "#BBBBBB",
}

# A talk figure fills the slide's whole canvas (13.333 × 7.5 in; its PNG 1920 × 1080 px), with a strip this
# high at its bottom left free for the footer.
TALK_DPI = 144
TALK_FOOTER_IN = 0.42


STYLES: dict[str, dict[str, Any]] = {
    "book": {"figsize": (8.0, 4.8), "font": 11, "line": 1.8, "marker": 6},
    "talk": {"figsize": (1920 / TALK_DPI, 1080 / TALK_DPI), "font": 20, "line": 3.2, "marker": 11},
}


def style_name() -> str:
    name = os.environ.get("ANALYSIS_STYLE", "book")
    if name not in STYLES:
        raise ValueError(f"ANALYSIS_STYLE={name!r}: expected one of {sorted(STYLES)}")
    return name


# seaborn's theme as `sns.set_theme(style="whitegrid", palette=PALETTE, font="DejaVu Sans")` sets it, written
# out: importing seaborn imports scipy.stats, about a second of every notebook's start, and the book only
# needs its theme here (tests/test_figures.py checks these equal what seaborn sets; seaborn's default
# colormap, which no figure uses, is left out). A notebook that plots with seaborn imports it itself.
SEABORN_WHITEGRID: dict[str, Any] = {
    'axes.axisbelow': True,
    'axes.edgecolor': '.8',
    'axes.facecolor': 'white',
    'axes.grid': True,
    'axes.labelcolor': '.15',
    'axes.labelsize': 12.0,
    'axes.linewidth': 1.25,
    'axes.spines.bottom': True,
    'axes.spines.left': True,
    'axes.spines.right': True,
    'axes.spines.top': True,
    'axes.titlesize': 12.0,
    'figure.facecolor': 'white',
    'font.family': ['DejaVu Sans'],
    'font.sans-serif': ['Arial', 'DejaVu Sans', 'Liberation Sans', 'Bitstream Vera Sans', 'sans-serif'],
    'font.size': 12.0,
    'grid.color': '.8',
    'grid.linestyle': '-',
    'grid.linewidth': 1.0,
    'legend.fontsize': 11.0,
    'legend.title_fontsize': 12.0,
    'lines.linewidth': 1.5,
    'lines.markersize': 6.0,
    'lines.solid_capstyle': 'round',
    'patch.edgecolor': 'w',
    'patch.force_edgecolor': True,
    'patch.linewidth': 1.0,
    'text.color': '.15',
    'xtick.bottom': False,
    'xtick.color': '.15',
    'xtick.direction': 'out',
    'xtick.labelsize': 11.0,
    'xtick.major.size': 6.0,
    'xtick.major.width': 1.25,
    'xtick.minor.size': 4.0,
    'xtick.minor.width': 1.0,
    'xtick.top': False,
    'ytick.color': '.15',
    'ytick.direction': 'out',
    'ytick.labelsize': 11.0,
    'ytick.left': False,
    'ytick.major.size': 6.0,
    'ytick.major.width': 1.25,
    'ytick.minor.size': 4.0,
    'ytick.minor.width': 1.0,
    'ytick.right': False,
}


class Math(str):
    """Text meant as mathtext ("$10^{3}$"): the book's figures leave its dollar signs alone."""


_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")
_matplotlib_set_text = matplotlib.text.Text.set_text


def _set_text_literal_dollars(self: Any, s: Any) -> None:
    """Every figure text's "$" is a dollar sign, as in the data it comes from (a price, a paper's title), never
    the start of mathtext: "$\\frac{size$" in a data label would otherwise stop the notebook with a mathtext
    error. Left as they are: :class:`Math`, and the tick labels matplotlib's formatters write as
    ``$\\mathdefault{...}$`` (log axes)."""
    if isinstance(s, str) and "$" in s and not isinstance(s, Math) and "\\mathdefault" not in s:
        s = _UNESCAPED_DOLLAR.sub(r"\\$", s)
    _matplotlib_set_text(self, s)


matplotlib.text.Text.set_text = _set_text_literal_dollars  # type: ignore[method-assign]


# (figure, figure id, citekeys, source note) -> (the footer's text, the files' attribution metadata: Rights, Source)
FooterMaker = Callable[[Any, str, Sequence[str], str], tuple[str, dict[str, str]]]
_footer: list[FooterMaker] = []


def use_footer(make: FooterMaker) -> None:
    """Register the talk footer's maker (:func:`analysis.book.footer.add_footer` registers itself on import)."""
    _footer[:] = [make]


def use_style() -> None:
    """Apply the book style (or the talk style): seaborn's whitegrid theme, the palette, the sizes."""
    s = STYLES[style_name()]
    plt.rcParams.update(SEABORN_WHITEGRID)  # type: ignore[arg-type]  # rcParams' keys are typed literals
    plt.rcParams["axes.prop_cycle"] = cycler(color=[matplotlib.colors.to_rgb(c) for c in PALETTE])
    plt.rcParams["font.sans-serif"] = ["DejaVu Sans", "Bitstream Vera Sans", "Arial", "Helvetica", "sans-serif"]
    plt.rcParams.update(
        {
            "figure.figsize": s["figsize"],
            "font.size": s["font"],
            "axes.titlesize": s["font"] + 1,
            "axes.labelsize": s["font"],
            "xtick.labelsize": s["font"],
            "ytick.labelsize": s["font"],
            "legend.fontsize": s["font"] - 0.5 if s["font"] > 11 else s["font"],
            "legend.title_fontsize": s["font"],
            "lines.linewidth": s["line"],
            "lines.markersize": s["marker"],
            "svg.hashsalt": "ml-hardware-review",
            "svg.fonttype": "none",  # text stays text: small files, selectable and editable in slides
            "pdf.fonttype": 42,
            "savefig.bbox": "tight",
            "figure.dpi": 100,
        }
    )


def new(nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[plt.Figure, Any]:
    """A figure in the current style. A `figsize` applies to the book style only: the talk
    style is always 16:9 at slide size."""
    use_style()
    size = kw.pop("figsize", STYLES["book"]["figsize"])
    if style_name() != "book":
        size = STYLES[style_name()]["figsize"]
    return plt.subplots(nrows, ncols, figsize=size, **kw)


def _check(fig_id: str, *, title: str, caption: str, alt: str, sourced: bool) -> None:
    """ValueError unless the figure's id is well formed, its title, caption and alt text are given, and its
    sources are named."""
    if not FIG_ID.match(fig_id):
        raise ValueError(f"figure id {fig_id!r}: use lowercase words joined by '-'")
    for field, value in (("title", title), ("caption", caption), ("alt", alt)):
        if not value.strip():
            raise ValueError(f"figure {fig_id}: {field} is empty")
    if not sourced:
        raise ValueError(f"figure {fig_id}: give its sources (citekeys or a source_note)")


def save(
    fig: plt.Figure,
    fig_id: str,
    *,
    title: str,
    caption: str,
    alt: str,
    chapter: str,
    sources: Sequence[str] = (),
    data_files: Sequence[str] = (),
    source_note: str = "",
) -> Path:
    """Write the figure's files for the HTML book plus its registry entry. Returns the SVG path.

    In the book style (the default) a notebook writes what the HTML shows: ``<id>.svg`` (the page's
    image), ``<id>.png`` (300 dpi: the gallery's full-size link and its thumbnail) and ``<id>.json``,
    and keeps the drawn figure itself (``figure-src/<id>.pickle`` beside the figures folder). The
    figure's other files, the PDF and the talk version, are made from that saved figure by
    :mod:`analysis.book.figure_files` on request (``make figures``, ``make publish``), in parallel
    and without running the notebook again (any such file left from an earlier run is removed here); the
    phone rendition (``phone/<id>.svg``) here, from the kept drawing (:func:`write_phone`).
    With ``ANALYSIS_STYLE=talk`` every file (SVG, PNG, PDF, with the footer) is written at once.

    `sources` are citekeys of the papers the data came from; `data_files` are the
    files of data/ it read; `source_note` names non-paper sources (datasheets, Epoch AI).
    In a notebook the saved SVG is shown where it is saved (see :func:`show`).
    """
    _check(fig_id, title=title, caption=caption, alt=alt, sourced=bool(sources or source_note))
    out = figures_dir()
    out.mkdir(parents=True, exist_ok=True)
    entry = {
        "id": fig_id,
        "title": title,
        "caption": caption,
        "alt": alt,
        "chapter": chapter,
        "sources": list(sources),
        "source_note": source_note,
        "data_files": sorted(set(data_files)),
        "notebook": os.environ.get("ANALYSIS_NOTEBOOK", ""),
        "parameters": json.loads(os.environ.get("ANALYSIS_PARAMETERS", "{}")),
        "style": style_name(),
    }
    if style_name() == "book":
        kept = keep_source(fig, fig_id, out)
        (out / f"{fig_id}.pdf").unlink(missing_ok=True)  # made from an earlier drawing of this figure
        (out / "thumbs" / f"{fig_id}.png").unlink(missing_ok=True)
        entry["phone"] = write_phone(kept.read_bytes(), out, fig_id)
        write_files(fig, out, entry, ("svg", "png"))
        gallery_image(out / f"{fig_id}.png", out / "gallery" / f"{fig_id}.webp")
    else:
        fig.tight_layout(rect=(0, TALK_FOOTER_IN / fig.get_size_inches()[1], 1, 1))  # the slide, above its footer
        write_files(fig, out, entry, ("svg", "png", "pdf"))
    svg = out / f"{fig_id}.svg"
    show(svg, fig_id, title, alt)
    return svg


SOURCE_DIR = "figure-src"


def source_dir(figures: Path | None = None) -> Path:
    """Where the drawn figures are kept (pickles), beside the figures folder, never published with it."""
    return (figures or figures_dir()).parent / SOURCE_DIR


def keep_source(fig: plt.Figure, fig_id: str, figures: Path) -> Path:
    """Keep the drawn figure (a pickle) so its PDF and talk version can be made without the notebook."""
    import pickle

    import cloudpickle  # functions defined in the notebook (tick formatters, a secondary axis's) by value

    folder = source_dir(figures)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        data = cloudpickle.dumps(fig, protocol=5)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise ValueError(f"figure {fig_id} cannot be kept for its PDF and talk version ({exc}): something "
                         "in the figure cannot be pickled (an open file or a generator, say); keep only data "
                         "and functions in it") from None
    path = folder / f"{fig_id}.pickle"
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def write_files(fig: plt.Figure, out: Path, entry: dict[str, Any], formats: Sequence[str],
                write_entry: bool = True, footer: FooterMaker | None = None) -> None:
    """Write `fig` as `formats` (svg, png at 300 dpi, pdf) plus its registry entry into `out`, in the
    style `entry["style"]` names (a talk figure gets its footer first, drawn by `footer` or the registered
    maker, see :func:`use_footer`). Byte-reproducible; each file is written under a temporary name and
    renamed, so an interrupted write leaves no half-written file."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    fig_id, title = entry["id"], entry["title"]
    svg_meta: dict[str, Any] = {"Date": None, "Creator": None}
    png_meta: dict[str, Any] = {"Software": None}
    pdf_meta: dict[str, Any] = {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}
    entry = dict(entry)
    if entry["style"] == "talk":
        make = footer or (_footer[0] if _footer else None)
        if make is None:
            raise ValueError(f"figure {fig_id}: a talk figure carries its attribution footer, whose words come "
                             "from the book: import analysis.book.footer first (make figures STYLE=talk does)")
        text, attribution = make(fig, fig_id, entry["sources"], entry["source_note"])
        svg_meta.update({"Title": title, "Description": text, "Identifier": fig_id, **attribution})
        png_meta.update({"Title": title, "Description": text, "Copyright": attribution["Rights"],
                         "Source": attribution["Source"]})
        pdf_meta.update({"Title": title, "Subject": text})
        entry["footer"] = text
    out.mkdir(parents=True, exist_ok=True)
    talk = entry["style"] == "talk"  # the whole 16:9 canvas (no tight crop), its PNG at 1920 × 1080
    options: dict[str, dict[str, Any]] = {"svg": {"metadata": svg_meta},
                                           "png": {"dpi": TALK_DPI if talk else 300, "metadata": png_meta},
                                           "pdf": {"metadata": pdf_meta}}
    for fmt in formats:
        path = out / f"{fig_id}.{fmt}"
        tmp = path.with_name(f".{path.name}.tmp")
        with plt.rc_context({"savefig.bbox": "standard"} if talk else {}):
            fig.savefig(tmp, format=fmt, **options[fmt])
        tmp.replace(path)
    if write_entry:
        path = out / f"{fig_id}.json"
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(entry, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)


PHONE_DIR = "phone"


def write_phone(kept: bytes, out: Path, fig_id: str) -> str:
    """Write the figure's phone rendition, ``<out>/phone/<id>.svg``, from the kept drawing (:mod:`analysis.plot.phone`),
    when it lays out cleanly; otherwise (texts that overlap, too wide, or a drawing the layout cannot handle, which
    never stops the notebook) remove any earlier one: the page then lets a phone pan the book figure at a legible
    size (analysis/book/reader.py). Returns what the registry records: "drawn", or why not."""
    import pickle

    from analysis.plot import phone

    path = out / PHONE_DIR / f"{fig_id}.svg"
    fig = pickle.loads(kept)
    try:
        try:
            phone.to_phone(fig)
            found = phone.problems(fig)
        except Exception as exc:  # noqa: BLE001  a drawing the phone layout cannot handle is panned, never fatal
            found = [f"the phone layout failed ({type(exc).__name__}: {exc})"]
        if found:
            path.unlink(missing_ok=True)
            return "not drawn: " + "; ".join(found[:3])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
        tmp.replace(path)
        return "drawn"
    finally:
        plt.close(fig)


def show(svg: Path, fig_id: str, title: str, alt: str) -> None:
    """Show a saved figure in the running notebook: the SVG file with its alt text, id and title.

    The image is referenced relative to the executed notebook ($ANALYSIS_NOTEBOOK_DIR, set by
    the runner), so the output names no machine-specific path. Outside IPython: nothing.
    """
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return
    if get_ipython() is None:
        return
    base = os.environ.get("ANALYSIS_NOTEBOOK_DIR")
    src = os.path.relpath(svg, base) if base else svg.as_posix()
    # alt text is rendered as a plain attribute value (escapes would be dropped from it): only the
    # characters that could end the image syntax or open markup are replaced
    text = re.sub(r"[\[\]<>`\\\s]+", " ", alt).strip()
    markdown = f"![{text}]({src})\n\nFigure `{fig_id}`: {md_text(title)}"
    display({"text/markdown": markdown, "text/plain": f"figure {fig_id}: {title}"}, raw=True)


GALLERY_WIDTH_PX = 640


def gallery_image(png: Path, out: Path, width: int = GALLERY_WIDTH_PX) -> None:
    """The figure `width` pixels wide as WebP (quality 80: a fifth of a PNG's bytes, text still crisp;
    46 figures make 1.1 MB); rewritten only if changed. A notebook makes it when it saves the figure (in the
    build's parallel step: decoding the 300-dpi PNG is most of its cost, 0.2 s a figure)."""
    from PIL import Image

    with Image.open(png) as im:
        h = round(im.height * width / im.width)
        small = im.convert("RGB").resize((width, h), Image.Resampling.LANCZOS)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp" + out.suffix)
    small.save(tmp, format="WEBP", quality=80, method=6)
    if out.exists() and out.read_bytes() == tmp.read_bytes():
        tmp.unlink()
        out.touch()  # up to date with its source (the bytes, and so the HTML build, unchanged)
    else:
        tmp.replace(out)


THUMB_WIDTH_PX = 360


def thumbnail(png: Path, out: Path) -> None:
    """A small PNG of a figure for the gallery (keeps the page light); rewritten only if changed."""
    from PIL import Image

    with Image.open(png) as im:
        h = round(im.height * THUMB_WIDTH_PX / im.width)
        small = im.convert("RGB").resize((THUMB_WIDTH_PX, h), Image.Resampling.LANCZOS)
        # 64 colours are plenty for a flat chart and keep the gallery page light
        small = small.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.png")
    small.save(tmp, format="PNG", optimize=True)
    if out.exists() and out.read_bytes() == tmp.read_bytes():
        tmp.unlink()
    else:
        tmp.replace(out)


def registry(folder: Path | None = None) -> list[dict[str, Any]]:
    """All figure registry entries in `folder` (default: the figures folder), sorted by id."""
    folder = folder or figures_dir()
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def wrap_ticklabels(ax: Any, axis: str = "y", width: int = 28) -> None:
    """Wrap the current tick labels of `axis` ("x" or "y") onto lines of at most `width` characters,
    so long category names keep a figure readable at page width."""
    import textwrap

    labels = ax.get_yticklabels() if axis == "y" else ax.get_xticklabels()
    ticks = ax.get_yticks() if axis == "y" else ax.get_xticks()
    wrapped = ["\n".join(textwrap.wrap(t.get_text(), width)) or t.get_text() for t in labels]
    (ax.set_yticks if axis == "y" else ax.set_xticks)(ticks, wrapped)
