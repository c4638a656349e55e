"""The built book in a real browser (Debian's chromium, driven by Playwright), fully offline.

Every request that is not to the loopback server is blocked, so a page that needs a CDN fails.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.skipif(not (HTML / ".built").exists(), reason="the book has not been built: run `make book`"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed (make test installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()


def _pages() -> list[str]:
    return sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html") if "_static" not in p.parts)


def _open(browser, server: str, rel: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []

    def route(r):
        if r.request.url.startswith(server):
            r.continue_()
        else:
            problems.append(f"blocked external request {r.request.url}")
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("requestfailed", lambda r: problems.append(f"failed request {r.url}"))
    page.on("pageerror", lambda e: problems.append(f"page error {e}"))
    resp = page.goto(f"{server}/{rel}", wait_until="networkidle")
    if resp is None or resp.status != 200:
        problems.append(f"HTTP status {resp.status if resp else 'none'}")
    return page, problems


def test_every_page_renders_offline(browser, server: str):
    pages = _pages()
    assert len(pages) >= 5
    failures: dict[str, list[str]] = {}
    for rel in pages:
        page, problems = _open(browser, server, rel)
        if rel not in ("genindex.html", "search.html"):
            if page.locator("nav.bd-docs-nav").count() == 0:
                problems.append("left-hand table of contents missing")
        # lazy images (the gallery's thumbnails) load only when scrolled to: load them all first
        page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
        page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=60_000)
        broken = page.evaluate(
            "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        problems += [f"image not loaded: {src}" for src in broken]
        if page.locator(".math").count():
            page.wait_for_selector("mjx-container", timeout=10_000)
            raw = page.evaluate("Array.from(document.querySelectorAll('.math')).filter("
                                "e => !e.querySelector('mjx-container')).length")
            if raw:
                problems.append(f"{raw} math element(s) not rendered by MathJax")
        if problems:
            failures[rel] = problems
        page.close()
    (ROOT / "_build" / "browser-pages.txt").write_text("\n".join(pages) + "\n")
    assert not failures, failures


def test_paper_index_search_filters_rows(browser, server: str):
    page, problems = _open(browser, server, "notebooks/paper-index.html")
    page.wait_for_selector("table.dataTable tbody tr")
    box = page.locator(".dt-search input, .dataTables_filter input").first
    box.fill("NanoFlow")
    page.wait_for_timeout(500)
    rows = page.locator("table.dataTable tbody tr")
    texts = rows.all_inner_texts()
    assert len(texts) >= 1 and all("NanoFlow" in t for t in texts), texts
    box.fill("")
    page.wait_for_timeout(300)
    assert page.locator("table.dataTable tbody tr").count() > len(texts)
    assert not problems, problems


def test_screenshots(browser, server: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for rel, name in (("intro.html", "home"), ("chapters/corpus.html", "chapter"),
                      ("notebooks/paper-index.html", "paper-index")):
        page, problems = _open(browser, server, rel)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000
        assert not problems, problems
        page.close()
