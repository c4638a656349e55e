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
- **Bibliography links by citekey.** Generated HTML (the paper explorer's table) links to
  ``…/bibliography.html#bibkey-<citekey>``; the fragment is replaced here by the anchor that
  sphinxcontrib-bibtex gave that entry. An unknown citekey is a warning (an error in the strict
  build).
"""

from __future__ import annotations

import html
import posixpath
import re
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_CITATION = re.compile(r'(<span class="bibtex-citation"[^>]*>)(.*?)(</span>)', re.S)
_LINK = re.compile(r"<a (?P<attrs>[^>]*)>(?P<text>[^<]*)</a>")
_YEAR = re.compile(r"^\s*(\d{4}[a-z]?|n\.d\.)\s*$")
_TAG = re.compile(r"<[^>]+>")
_IMAGE_DOWNLOAD = re.compile(r'<a class="reference download internal" download="" (href="[^"]*")>'
                             r'(\s*(?:<span class="xref download myst">)?\s*<img )')
_EAGER_IMG = re.compile(r"<img (?![^>]*\bloading=)")
_BIBKEY = re.compile(r"#bibkey-(?P<key>[A-Za-z0-9_.:+-]+)")


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


def _bib_anchors(app: Sphinx) -> dict[str, str]:
    """citekey -> the id of its entry on the bibliography page (memoised for the build)."""
    cached = getattr(app, "_reader_bib_anchors", None)
    if cached is None:
        domain: Any = app.env.get_domain("cite")
        cached = {c.key: c.citation_id for c in domain.citations}
        app._reader_bib_anchors = cached  # type: ignore[attr-defined]
    return cached


def link_bibkeys(app: Sphinx, pagename: str, body: str) -> str:
    anchors = _bib_anchors(app)

    def one(m: re.Match[str]) -> str:
        key = m.group("key")
        if key not in anchors:
            logger.warning(f"{pagename}: a link to the bibliography entry of {key!r}, which has none",
                           location=pagename)
            return m.group(0)
        return "#" + anchors[key]

    return _BIBKEY.sub(one, body)


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
        body = link_bibkeys(app, pagename, name_citations(context["body"]))
        body = body.replace('role="doc-biblioentry"', 'role="listitem"')
        body = _IMAGE_DOWNLOAD.sub(r'<a class="reference internal image-reference" \1>\2', body)
        context["body"] = _EAGER_IMG.sub('<img loading="lazy" ', body)

    original = context.get("generate_toctree_html")
    if original is not None:
        def generate_toctree_html(kind: str, *args: Any, **kwargs: Any) -> Any:
            result = original(kind, *args, **kwargs)
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


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _page_context, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
