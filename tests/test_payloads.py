"""Text from data/ never runs as script in the built book.

A scratch copy of the project gets a script payload appended to every free-text field of every
data file (titles, authors, headlines, summaries, notes, sources, names, theme titles and
scopes, assumption notes; titles get one without angle brackets, which validation refuses there) and a
script to one authored heading (the search page), the whole book is built from it, and every page is opened in
Debian's chromium: no payload may run, and no element the payload describes may exist.
"""

from __future__ import annotations

import csv
import functools
import http.server
import io
import json
import re
import subprocess
import threading
import urllib.parse
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_env
from test_browser import CHROMIUM, _QuietHandler

pytestmark = pytest.mark.skipif(not (ROOT / "_build" / "html" / ".built").exists(),
                                reason="the book has not been built: run `make book`")

PAYLOAD = (' <img src=x class=xss-probe onerror="window.__xss=(window.__xss||0)+1">'
           '<script>window.__xss=(window.__xss||0)+1</script>'
           '{raw}`html`<b class=xss-probe>` $x$ [link](javascript:window.__xss=1)')
# titles refuse '<' and '>' at validation (tests/test_build.py, *-angle-title): what is left to try there
TITLE_PAYLOAD = ' {raw}`html`x` $x$ [link](javascript:window.__xss=1) &lt;b class=xss-probe&gt; &#60;i&#62;'
# an authored heading, indexed by Sphinx's search as raw text: the search page must not run it
HEADING_PAYLOAD = ('\n\n## Probe `<img src=x class=xss-probe onerror="window.__xss=(window.__xss||0)+1">`\n\n'
                   'A heading whose code text is a script, for the search page.\n')
# author lists are structured ("Family, Given and …", no braces or extra commas): the payload is
# one more author whose given name is the script
AUTHOR_PAYLOAD = (' and Probe, <img src=x class=xss-probe onerror="window.__xss=(window.__xss||0)+1">'
                  '<script>window.__xss=(window.__xss||0)+1</script>')
# free text in any CSV: appended where the field is not empty
CSV_TEXT = {"title", "authors", "venue", "version_notes", "later_version", "system_name", "headline", "summary",
            "notes", "note", "source", "name", "description", "meaning", "run_name", "subtopic", "technique", "concept",
            "why_expected", "reason"}
# free text in the YAML files: themes.yml title/scope, assumptions.yml source/note/unit
YAML_TEXT = {"title", "scope", "source", "note"}


def _inject_csv(path: Path) -> int:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    if not rows:
        return 0
    fields = list(rows[0].keys())
    # a column whose every value looks like an identifier is a key (e.g. claims-constants.csv name)
    keys = {c for c in fields if all(re.fullmatch(r"[A-Za-z0-9_.:-]*", r[c]) for r in rows)}
    n = 0
    for row in rows:
        for col in fields:
            if col in CSV_TEXT and col not in keys and row[col]:
                row[col] += AUTHOR_PAYLOAD if col == "authors" else TITLE_PAYLOAD if col == "title" else PAYLOAD
                n += 1
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return n


def _inject_yaml(path: Path) -> int:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    n = 0

    def walk(node: object) -> None:
        nonlocal n
        if isinstance(node, dict):
            for k, v in node.items():
                if k in YAML_TEXT and isinstance(v, str) and v:
                    node[k] = v + (TITLE_PAYLOAD if k == "title" else PAYLOAD)
                    n += 1
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000), encoding="utf-8")
    return n


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.xdist_group("payloads")  # a whole rebuild and a browser sweep: a worker of its own
def test_script_payloads_in_every_data_file_never_run(scratch: Path):
    injected = {}
    for path in sorted((scratch / "data").iterdir()):
        if path.suffix == ".csv":
            injected[path.name] = _inject_csv(path)
        elif path.suffix == ".yml":
            injected[path.name] = _inject_yaml(path)
    assert injected["papers.csv"] > 1000 and injected["themes.yml"] >= 20, injected
    chapter = scratch / "chapters" / "nas.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + HEADING_PAYLOAD, encoding="utf-8")
    proc = subprocess.run(["make", "--no-print-directory", "book"], cwd=scratch, env=make_env(), capture_output=True,
                          text=True, timeout=3000)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    html = scratch / "_build" / "html"
    pages = sorted(str(p.relative_to(html)) for p in html.rglob("*.html") if "_static" not in p.parts)
    assert len(pages) > 40

    handler = functools.partial(_QuietHandler, directory=str(html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    server = f"http://127.0.0.1:{httpd.server_address[1]}"
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    ran: dict[str, object] = {}
    probes: dict[str, int] = {}
    seen_text = 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            page = browser.new_page()
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(server) else r.abort())
            def probe(expr: str) -> object:
                # a page that redirects (index.html) replaces its context: read the new one
                for _ in range(5):
                    try:
                        return page.evaluate(expr)
                    except PlaywrightError:
                        page.wait_for_load_state("load")
                        page.wait_for_timeout(200)
                return page.evaluate(expr)

            for rel in pages:
                page.goto(f"{server}/{rel}", wait_until="load")
                page.wait_for_timeout(50)
                if probe("document.querySelectorAll('table[id^=itables]').length"):
                    # the large tables load their rows after the page (analysis/book/lazy.py): wait for them
                    page.wait_for_load_state("networkidle")
                    page.wait_for_selector("table.dataTable tbody tr td:not(.dt-empty)", timeout=30_000)
                value = probe("window.__xss")
                if value is not None:
                    ran[rel] = value
                count = probe("document.querySelectorAll('.xss-probe').length")
                if count:
                    probes[rel] = count
                seen_text += int(probe("document.body.innerText.split('window.__xss').length - 1"))  # type: ignore
            # the search page: Sphinx shows a matching title through innerHTML (searchtools.js); query each
            # indexed title that holds a payload, as the index stores it, so that it matches and is shown
            index = json.loads(re.sub(r"^Search\.setIndex\(|\)$", "", (html / "searchindex.js").read_text().strip()))
            titles = sorted(t for t in index["alltitles"] if "xss-probe" in t)
            assert titles, "no indexed heading holds a payload: the search check would test nothing"
            shown = 0
            for title in titles[:5]:
                page.goto(f"{server}/search.html?q={urllib.parse.quote(title)}", wait_until="load")
                page.wait_for_selector("#search-results ul li, #search-results p", timeout=30_000)
                page.wait_for_timeout(300)
                value = probe("window.__xss")
                if value is not None:
                    ran[f"search.html?q={title[:40]}"] = value
                if probe("document.querySelectorAll('.xss-probe').length"):
                    probes[f"search.html?q={title[:40]}"] = 1
                shown += int(probe("[...document.querySelectorAll('#search-results li a')]"
                                   ".some(a => a.textContent.includes('xss-probe'))"))  # type: ignore
            assert shown, "the payload titles were not found by the search page"
            browser.close()
    finally:
        httpd.shutdown()
    assert not ran, f"payloads ran on: {ran}"
    assert not probes, f"payload elements were created on: {probes}"
    assert seen_text > 100, "the payload text should be shown as text on the pages that list the data"


def test_search_index_titles_are_escaped_for_the_search_page():
    """searchtools.js shows a result's title with innerHTML: the index holds it escaped (analysis/book/reader.py)."""
    from analysis.book.reader import escape_search_titles

    out = escape_search_titles({"titles": ("Kernels <img src=x onerror=alert(1)> & more",),
                                "alltitles": {"A <b>bold</b> heading": [[0, "a-bold-heading"]]}, "terms": {}})
    assert out["titles"] == ("Kernels &lt;img src=x onerror=alert(1)&gt; &amp; more",)
    assert list(out["alltitles"]) == ["A &lt;b&gt;bold&lt;/b&gt; heading"]
    assert out["terms"] == {}
