"""Sphinx extension: what the HTML book gives a reader beyond the theme's defaults (issue 21).

- **MathJax only on pages with maths of their own.** Sphinx 7 adds MathJax to a page that has
  maths *or whose toctree includes such a page* (``MathDomain.has_equations`` follows
  ``toctree_includes``), so the landing page and the chapters loaded 1.2 MB of MathJax for
  nothing. After ``sphinx.ext.mathjax`` has added its scripts, they are taken off again on a page
  whose own doctree holds no maths.
- **Named navigation toggles.** The sidebar's ``<summary>`` elements hold only a chevron icon;
  each gets ``aria-label="Pages in <chapter>"`` (axe-core: ``summary-name``).
- **Citation links named with their authors.** A textual citation ``Huang et al. [2024]`` links
  only the year, so a screen reader's list of links read "2024" dozens of times; the link gets
  ``aria-label="Huang et al. 2024"`` (the visible text stays in the name).
- **Bibliography entries as list items.** docutils marks each entry ``role="doc-biblioentry"``
  inside a ``role="list"``: a deprecated role, and a list without items (axe-core:
  ``aria-required-children``, critical). They become ``role="listitem"``.
- **Figures that open full size.** An image inside a download link (the gallery's, which links each
  figure to its full-size PNG) loses the link's ``download`` attribute, so a tap opens the image
  rather than saving it; every image in a page's body is loaded lazily.
- **Bibliography anchors by citekey.** Each entry on a bibliography page also carries the anchor
  ``bibkey-<citekey>``, so generated HTML (the paper explorer's rows, which load after the page and
  are never seen by Sphinx) links to ``…/bibliography.html#bibkey-<citekey>``. tests/test_bibliography.py
  checks that every paper has its anchor.
- **The table library cached.** itables' offline mode writes its table library (968 KB) into each page
  with an interactive table; it goes to ``_static/itables-bundle.js`` once, loaded by each such page
  (:func:`cached_table_library`).
- **No source maps shipped.** The theme's ``*.map`` files and the comments naming them are dropped from
  ``_static`` once the build has finished (:func:`drop_source_maps`).
"""

from __future__ import annotations

import html
import posixpath
import re
from typing import Any

from sphinx.application import Sphinx

_CITATION = re.compile(r'(<span class="bibtex-citation"[^>]*>)(.*?)(</span>)', re.S)
_LINK = re.compile(r"<a (?P<attrs>[^>]*)>(?P<text>[^<]*)</a>")
_YEAR = re.compile(r"^\s*(\d{4}[a-z]?|n\.d\.)\s*$")
_TAG = re.compile(r"<[^>]+>")
_IMAGE_DOWNLOAD = re.compile(r'<a class="reference download internal" download="" (href="[^"]*")>'
                             r'(\s*(?:<span class="xref download myst">)?\s*<img )')
_EAGER_IMG = re.compile(r"<img (?![^>]*\bloading=)")


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def name_citations(body: str) -> str:
    """Give every year-only citation link an aria-label with the authors written before it."""

    def one(m: re.Match[str]) -> str:
        inner, out, last = m.group(2), [], 0
        for a in _LINK.finditer(inner):
            before = inner[last:a.start()]
            out.append(before)
            last = a.end()
            text = a.group("text")
            label = _plain(before).rsplit("]", 1)[-1].strip(" ,;[(")
            if "aria-label=" in a.group("attrs") or not label or not _YEAR.match(html.unescape(text)):
                out.append(a.group(0))
                continue
            name = html.escape(f"{label} {html.unescape(text).strip()}", quote=True)
            out.append(f'<a aria-label="{name}" {a.group("attrs")}>{text}</a>')
        out.append(inner[last:])
        return m.group(1) + "".join(out) + m.group(3)

    return _CITATION.sub(one, body)


def add_bibkey_anchors(app: Sphinx, doctree: Any, docname: str) -> None:
    """Give each bibliography entry of `docname` the extra anchor ``bibkey-<citekey>``."""
    from docutils import nodes

    domain: Any = app.env.get_domain("cite")
    keys = {c.citation_id: c.key for c in domain.citations if c.bibliography_key.docname == docname}
    if not keys:
        return
    for cit in doctree.findall(nodes.citation):
        key = next((keys[i] for i in cit["ids"] if i in keys), None)
        if key is not None and f"bibkey-{key}" not in cit["ids"]:
            cit["ids"].append(f"bibkey-{key}")


def _summary_names(soup: Any) -> Any:
    for summary in soup.select("summary"):
        if summary.get_text(strip=True) or summary.get("aria-label"):
            continue
        li = summary.find_parent("li")
        link = li.find("a", recursive=False) if li is not None else None
        title = " ".join(link.get_text().split()) if link is not None else ""
        summary["aria-label"] = f"Pages in {title}" if title else "Pages in this section"
    return soup


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                  doctree: Any) -> None:
    if "body" in context:
        body = name_citations(context["body"])
        body = body.replace('role="doc-biblioentry"', 'role="listitem"')
        body = _IMAGE_DOWNLOAD.sub(r'<a class="reference internal image-reference" \1>\2', body)
        body = _EAGER_IMG.sub('<img loading="lazy" ', body)
        body = phone_figures(app, body)
        context["body"] = cached_table_library(app, body, context["pathto"](ITABLES_BUNDLE, 1)) \
            if "pathto" in context else body

    original = context.get("generate_toctree_html")
    if original is not None:
        # the arguments go on exactly as given: the theme caches this function by its arguments,
        # and its check for empty sidebar templates has already called it with keywords, so
        # passing `kind` by position would miss that cache and build the whole tree again
        def generate_toctree_html(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            kind = kwargs["kind"] if "kind" in kwargs else (args[0] if args else None)
            return _summary_names(result) if kind == "sidebar" else result

        context["generate_toctree_html"] = generate_toctree_html

    # MathJax: sphinx.ext.mathjax (priority 500) also adds it to pages that only *include* a page
    # with maths in their toctree; keep it only where this page's own doctree has maths (the one-page
    # build for the PDF, whose assets policy is "always", keeps it)
    domain: Any = app.env.get_domain("math")
    if app.registry.html_assets_policy != "always" and not domain.data["has_equations"].get(pagename, False):
        # the builder files a local script under _static/ (so "_static/../mathjax/tex-chtml.js")
        paths = {app.config.mathjax_path, posixpath.join("_static", app.config.mathjax_path)}
        scripts = context.get("script_files")
        if isinstance(scripts, list):
            scripts[:] = [js for js in scripts
                          if str(getattr(js, "filename", js)) not in paths
                          and not str(getattr(js, "attributes", {}).get("body", "")).startswith("window.MathJax")]


def escape_search_titles(index: dict[str, Any]) -> dict[str, Any]:
    """The search index with its page and section titles HTML-escaped.

    Sphinx stores heading text as plain text in ``searchindex.js``, and its ``searchtools.js`` (7.4) shows a
    result by assigning the title to ``innerHTML``: a heading made from data holding ``<img onerror=...>``
    would run as script on ``search.html?q=...``. Escaped, the title is shown as the text it is.
    """
    out = dict(index)
    out["titles"] = tuple(html.escape(t, quote=False) for t in index.get("titles", ()))
    out["alltitles"] = {html.escape(t, quote=False): v for t, v in index.get("alltitles", {}).items()}
    return out


def _escape_search_index() -> None:
    from sphinx.search import IndexBuilder

    freeze = IndexBuilder.freeze
    if getattr(freeze, "_escapes_titles", False):
        return

    def escaped_freeze(self: Any) -> dict[str, Any]:
        return escape_search_titles(freeze(self))

    escaped_freeze._escapes_titles = True  # type: ignore[attr-defined]
    IndexBuilder.freeze = escaped_freeze  # type: ignore[method-assign]


# A figure's <img> as Sphinx writes it: the book SVG copied to _images/<id>.svg (the gallery's: its WebP)
_FIGURE_IMG = re.compile(r'<img (?P<attrs>[^>]*?)src="(?P<prefix>(?:\.\./)*)_images/'
                         r'(?P<id>[a-z0-9]+(?:-[a-z0-9]+)*)\.(?P<ext>svg|webp)"(?P<rest>[^>]*)>')
PHONE_MEDIA = "screen and (max-width: 640px)"  # reader.css's phone width; print keeps the book figure
LEGIBLE_PX = 9.5  # the smallest text a phone draws, in CSS pixels (the bar is 9; half a pixel to spare)


def _svg_text_extent(svg: Any) -> tuple[float, float] | None:
    """(width of the SVG's view box, its smallest font size), both in the SVG's user units, or None."""
    text = svg.read_text(encoding="utf-8") if svg.is_file() else ""
    box = re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+) ', text)
    sizes = [float(x) for x in re.findall(r"font-size: ?([\d.]+)px", text)]
    return (float(box.group(1)), min(sizes)) if box and sizes else None


def phone_figures(app: Any, body: str) -> str:
    """Every figure legible on a phone (issue 34). Where the figure (not the gallery's WebP) has a phone rendition
    (``figures/phone/<id>.svg``, :func:`analysis.plot.figures.write_phone`) the page offers it to narrow
    screens in a ``<picture>``; otherwise, on a phone, the book figure is shown at the width at which its
    smallest text is :data:`LEGIBLE_PX` in a box the reader pans sideways (reader.css ``.figure-pan``)."""
    import shutil
    from pathlib import Path

    src, out = Path(app.srcdir) / "figures", Path(app.outdir) / "_images"

    def one(m: re.Match[str]) -> str:
        fid, prefix = m.group("id"), m.group("prefix")
        phone = src / "phone" / f"{fid}.svg"
        if phone.is_file() and m.group("ext") == "svg":  # the gallery's light WebP is panned (page weight)
            (out / "phone").mkdir(parents=True, exist_ok=True)
            target = out / "phone" / f"{fid}.svg"
            if not target.exists() or target.read_bytes() != phone.read_bytes():
                shutil.copyfile(phone, target)
            return (f'<picture><source media="{PHONE_MEDIA}" srcset="{prefix}_images/phone/{fid}.svg" '
                    f'type="image/svg+xml">{m.group(0)}</picture>')
        extent = _svg_text_extent(src / f"{fid}.svg")  # the gallery's WebP is the same drawing, cropped alike
        if extent is None:
            return m.group(0)
        width = int(-(-LEGIBLE_PX * extent[0] // extent[1]))  # CSS px at which its smallest text is legible
        return (f'<span class="figure-pan" data-legible-width="{width}" style="--legible-width: {width}px">'
                f'{m.group(0)}</span>')

    return _FIGURE_IMG.sub(one, body)


# itables' offline mode writes its 968 KB table library (DataTables, as base64 JavaScript and CSS) into every
# page that shows an interactive table; it goes to one file of _static, which a browser loads once and caches
ITABLES_BUNDLE = "_static/itables-bundle.js"
_ITABLES_INLINE = re.compile(r'(<script>\s*function injectCSS\(base64CSS\).*?)injectCSS\("([A-Za-z0-9+/=]+)"\);'
                             r'(\s*window\._itables_\w+ = )injectModule\("([A-Za-z0-9+/=]+)"\)', re.S)


def cached_table_library(app: Any, body: str, src: str) -> str:
    """`body` with itables' inline library replaced by a script element loading :data:`ITABLES_BUNDLE`
    (`src`, relative to the page): a classic script (allowed under file://, unlike a module's import)
    that sets ``window.__itablesBundle`` to the same base64 texts, which itables' own loader then injects
    as before. The file is written with the first such page (:func:`write_table_library`)."""
    found = _ITABLES_INLINE.search(body)
    if not found:
        return body
    write_table_library(app.outdir, found.group(4), found.group(2))
    script = f'<script src="{html.escape(src, quote=True)}"></script>'
    return (body[:found.start()] + script + found.group(1) + "injectCSS(window.__itablesBundle.css);" + found.group(3)
            + "injectModule(window.__itablesBundle.js)" + body[found.end():])


def write_table_library(outdir: str | Any, js: str, css: str) -> None:
    """``<outdir>/_static/itables-bundle.js``: the library's base64 texts as ``window.__itablesBundle``
    (written when they differ from the file's, so every page of a build agrees on one file)."""
    import json
    from pathlib import Path

    path = Path(outdir) / ITABLES_BUNDLE
    text = f"window.__itablesBundle = {json.dumps({'js': js, 'css': css})};\n"
    if not path.exists() or path.read_text(encoding="ascii") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="ascii")
        tmp.replace(path)


_SOURCE_MAP = re.compile(rb"\n?/[*/]# sourceMappingURL=[^\s*]+(?: ?\*/)?[ \t]*(?=\n|$)")


def drop_source_maps(outdir: str | Any) -> int:
    """No source maps shipped (issue 34): the theme's ``*.map`` files (3.5 MB, for its developers'
    debuggers) are removed from ``_static`` and the comments naming them from its scripts and style
    sheets. Returns the number of files changed or removed."""
    from pathlib import Path

    static = Path(outdir) / "_static"
    changed = 0
    for path in sorted(static.rglob("*")) if static.is_dir() else []:
        if path.suffix == ".map" and path.is_file():
            path.unlink()
            changed += 1
        elif path.suffix in (".js", ".css") and path.is_file():
            data = path.read_bytes()
            if b"sourceMappingURL=" in data:
                stripped = _SOURCE_MAP.sub(b"", data)
                if stripped != data:
                    path.write_bytes(stripped)
                    changed += 1
    return changed


def _build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        drop_source_maps(app.outdir)


def setup(app: Sphinx) -> dict[str, Any]:
    _escape_search_index()
    app.connect("html-page-context", _page_context, priority=600)
    app.connect("build-finished", _build_finished)
    app.connect("doctree-resolved", add_bibkey_anchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
