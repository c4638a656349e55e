"""The whole book as one PDF (`make pdf`), for archiving and offline reading.

The staged book is built once more with Sphinx's ``singlehtml`` builder (every chapter,
notebook and the bibliography on one page, ``_build/singlehtml``) and printed by Debian's
chromium (``/usr/bin/chromium``, never a downloaded browser) driven by Playwright, from a
loopback server with every other request blocked. Before printing, lazy images are loaded,
MathJax has typeset, and the interactive tables show their largest page (all rows of the paper
index and the claims ledger); each figure is printed once (where it first appears; a later place names
it), and the first page after the title is the book's contents, its chapters in order. The PDF has a
bookmark outline of the headings.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analysis.data.paths import BUILD

PDF = BUILD / "pdf" / "book.pdf"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGE_TIMEOUT_MS = 600_000

# every DataTables length menu (itables) set to "all" (-1), so all rows are printed
_ALL_ROWS_JS = """() => {
  for (const sel of document.querySelectorAll('.dt-length select, .dataTables_length select')) {
    if (!Array.from(sel.options).some(o => o.value === '-1')) sel.add(new Option('All', '-1'));
    sel.value = '-1';
    sel.dispatchEvent(new Event('change', {bubbles: true}));
  }
  for (const img of document.querySelectorAll('img[loading="lazy"]')) img.loading = 'eager';
}"""
# Each figure prints once (issue 34): a chapter shows it, its notebook's output shows it again and the gallery
# a third time; the first keeps the image and each later one becomes a line naming the figure.
_FIGURES_ONCE_JS = """() => {
  const seen = new Set();
  let dropped = 0;
  for (const img of Array.from(document.querySelectorAll('.bd-article img'))) {
    const src = (img.getAttribute('src') || '').split(/[?#]/)[0];
    const m = src.match(/([a-z0-9]+(?:-[a-z0-9]+)+)\\.(svg|png|webp)$/);
    if (!m) continue;
    const id = m[1];
    if (!seen.has(id)) { seen.add(id); continue; }
    const note = document.createElement('p');
    note.className = 'pdf-figure-again';
    note.textContent = 'Figure ' + id + ' (printed where it first appears).';
    (img.closest('a') || img).replaceWith(note);
    dropped += 1;
  }
  return dropped;
}"""
# The contents page is the book's (issue 34): the theme's print-only contents (#jb-print-toc) listed only the
# first page's first section; it gets every page of the book in order (each starts at a "document-" anchor
# of the one-page HTML), indented by its heading's level, linked to where it starts, and a page of its own.
_CONTENTS_JS = """() => {
  const article = document.querySelector('.bd-article') || document.body;
  const items = [];
  for (const span of Array.from(article.querySelectorAll('span[id^="document-"]'))) {
    const sec = span.nextElementSibling;
    if (!sec || sec.tagName !== 'SECTION') continue;
    const h = sec.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4');
    if (!h) continue;
    const item = document.createElement('li');
    item.style.marginLeft = (Math.max(0, Number(h.tagName[1]) - 2) * 1.5) + 'em';
    const link = document.createElement('a');
    link.href = '#' + span.id;
    link.textContent = h.textContent.replace(/#\\s*$/, '').trim();
    item.append(link);
    items.push(item);
  }
  let list = document.querySelector('#jb-print-toc ul');
  if (!list) {
    const nav = document.createElement('nav');
    nav.setAttribute('aria-label', 'Contents');
    nav.innerHTML = '<h2>Contents</h2><ul></ul>';
    article.prepend(nav);
    list = nav.querySelector('ul');
  }
  list.replaceChildren(...items);
  const body = document.getElementById('jb-print-docs-body') || list.closest('nav');
  if (body) body.style.breakAfter = 'page';
  return items.length;
}"""
_READY_JS = "() => Array.from(document.images).every(i => i.complete)"
# itables builds its tables from an inline module some seconds after the page has loaded
_TABLES_JS = "() => !document.querySelector('table[id^=\"itables_\"]:not(.dataTable)')"
_MATHJAX_JS = "async () => { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; }"


class PdfError(ValueError):
    """The PDF cannot be made here (the message says why)."""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _serve(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def print_pdf(site: Path, out: Path = PDF) -> Path:
    """Print `site`/index.html to `out` (written whole or not at all)."""
    if not Path(CHROMIUM).exists():
        raise PdfError("chromium is not installed: `make browser-deps` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with _serve(site) as server, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(server) else r.abort())
            root = "intro.html" if (site / "intro.html").exists() else "index.html"  # the book's root page
            page.goto(f"{server}/{root}", wait_until="networkidle")
            page.wait_for_function(_TABLES_JS)
            page.evaluate(_ALL_ROWS_JS)
            page.evaluate(_FIGURES_ONCE_JS)
            page.evaluate(_CONTENTS_JS)
            page.wait_for_function(_READY_JS)
            page.evaluate(_MATHJAX_JS)
            page.wait_for_load_state("networkidle")
            page.emulate_media(media="print")
            page.pdf(path=str(tmp), format="A4", print_background=True, outline=True, tagged=True,
                     margin={"top": "15mm", "bottom": "15mm", "left": "12mm", "right": "12mm"})
        finally:
            browser.close()
    tmp.replace(out)
    return out


def make_pdf() -> int:
    """Build the one-page HTML book, then print it: _build/pdf/book.pdf."""
    from analysis.book import build

    code = build.build("singlehtml", build.SINGLEHTML)
    if code:
        return code
    out = print_pdf(build.SINGLEHTML)
    print(f"wrote {out.relative_to(BUILD.parent)} ({out.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return 0
