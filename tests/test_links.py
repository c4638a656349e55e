"""Links in the built HTML: internal links and anchors resolve, external links are well formed.

One checker (``link_check``) reads every URL that LinkChecker 10.6 reads (its LinkTags: href, src,
srcset, data, media sources, meta refresh and icons, GET form actions, url() in style attributes
and in the style sheets the pages load, @import too) on every page of the book, and checks each
internal one: its file exists inside the book, and its anchor exists on the page it names.
LinkChecker itself is no longer run: it checked a subset of these files (468 of 469 for the book
of December 2026, crawling from index.html), and no anchors, in about 20 s.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from conftest import ROOT

HTML = ROOT / "_build" / "html"

pytestmark = pytest.mark.skipif(not (HTML / ".built").exists(), reason="the book has not been built: run `make book`")

# the attributes that hold URLs, per tag (linkcheck/htmlutil/linkparse.py, LinkTags, LinkChecker 10.6);
# "style" (url() in CSS) on any tag
URL_ATTRS = {
    "a": ("href",), "applet": ("archive", "src"), "area": ("href",), "audio": ("src",), "bgsound": ("src",),
    "blockquote": ("cite",), "body": ("background",), "button": ("formaction",), "del": ("cite",),
    "embed": ("pluginspage", "src"), "form": ("action",), "frame": ("src", "longdesc"), "head": ("profile",),
    "html": ("manifest",), "iframe": ("src", "longdesc"), "ilayer": ("background",),
    "img": ("src", "lowsrc", "longdesc", "usemap", "srcset"), "input": ("src", "usemap", "formaction"),
    "ins": ("cite",), "isindex": ("action",), "layer": ("background", "src"), "link": ("href",),
    "meta": ("content", "href"), "object": ("classid", "data", "archive", "usemap", "codebase"), "q": ("cite",),
    "script": ("src",), "source": ("src", "srcset"), "table": ("background",), "td": ("background",),
    "th": ("background",), "tr": ("background",), "track": ("src",), "video": ("src", "poster"), "xmp": ("href",),
}
CSS_URL = re.compile(r"""url\(\s*('[^']+'|"[^"]+"|[^)\s]+)\s*\)""")
CSS_IMPORT = re.compile(r"""@import\s+(?:'([^']+)'|"([^"]+)")""")
REFRESH = re.compile(r"(?i)^\d+;\s*url=(.+)$")


def _srcset(value: str) -> list[str]:
    """The URLs of a srcset attribute (each candidate: a URL, then optional descriptors)."""
    return [part.split()[0] for part in re.split(r",\s+|,(?=\S)(?![^()]*\))", value.strip()) if part.split()]


def _unquote_css(url: str) -> str:
    url = url.strip()
    return url[1:-1] if url[:1] in "'\"" and url[-1:] == url[:1] else url


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v for k, v in attrs if v is not None}
        if d.get("id"):
            self.ids.add(d["id"])
        if tag == "a" and d.get("name"):
            self.ids.add(d["name"])
        for key in URL_ATTRS.get(tag, ()):
            value = d.get(key)
            if not value:
                continue
            if tag == "meta":
                refresh = REFRESH.match(value)
                if key == "content" and d.get("http-equiv", "").lower() == "refresh" and refresh:
                    self.hrefs.append(refresh.group(1).strip())
                elif key == "href" and d.get("rel", "").lower() in ("icon", "shortcut icon"):
                    self.hrefs.append(value)
            elif tag == "form" and d.get("method", "").lower() == "post":
                continue
            elif key == "srcset":
                self.hrefs += _srcset(value)
            elif key == "archive":
                self.hrefs += [v.strip() for v in value.split(",") if v.strip()]
            elif tag == "link" and any(r in d.get("rel", "").lower() for r in ("dns-prefetch", "preconnect")):
                continue  # a host name to resolve early, not a document
            else:
                self.hrefs.append(value)
        if d.get("style"):
            self.hrefs += [_unquote_css(m.group(1)) for m in CSS_URL.finditer(d["style"])]


def _parse(root: Path) -> dict[Path, _Links]:
    out = {}
    for page in sorted(root.rglob("*.html")):
        if "_static" in page.parts:
            continue
        p = _Links()
        p.feed(page.read_text(encoding="utf-8"))
        out[page] = p
    return out


def _css_urls(sheet: Path) -> list[str]:
    text = re.sub(r"/\*.*?\*/", "", sheet.read_text(encoding="utf-8", errors="replace"), flags=re.S)
    return ([_unquote_css(m.group(1)) for m in CSS_URL.finditer(text)]
            + [a or b for a, b in CSS_IMPORT.findall(text)])


def link_check(root: Path) -> tuple[list[str], int]:
    """(problems, number of internal links checked): internal links (pages, and the style sheets they
    load) whose file does not exist inside `root` or whose anchor is not on the page; external links
    that are malformed."""
    root = root.resolve()
    pages = _parse(root)
    problems: list[str] = []
    checked = 0
    sheets: dict[Path, str] = {}  # style sheet -> the first page that loads it
    queue: list[tuple[Path, str, list[str]]] = [(page, "page", links.hrefs) for page, links in pages.items()]
    while queue:
        source, kind, hrefs = queue.pop(0)
        where = source.relative_to(root)
        for href in hrefs:
            u = urlparse(href)
            if u.scheme in ("http", "https"):
                if not u.netloc or " " in href:
                    problems.append(f"{where}: malformed URL {href!r}")
                continue
            if u.scheme == "mailto":
                if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", unquote(u.path)):
                    problems.append(f"{where}: malformed address {href!r}")
                continue
            if u.scheme or href.startswith("//") or (href.startswith("#") and not u.fragment):
                continue  # data:, javascript:, other schemes; a bare "#"
            checked += 1
            target = source if not u.path else (source.parent / unquote(u.path)).resolve()
            if not target.is_relative_to(root):
                problems.append(f"{where}: link leaves the book {href!r}")
                continue
            if not target.exists():
                problems.append(f"{where}: missing file {href!r}")
                continue
            if target.is_dir() and not (target / "index.html").exists():
                continue  # a folder (LinkChecker lists it)
            if target.suffix == ".css" and target not in sheets:
                sheets[target] = str(where)
                queue.append((target, "style sheet", _css_urls(target)))
            if u.fragment and target.suffix == ".html" and kind == "page":
                ids = pages[target].ids if target in pages else _parse_one(target)
                if unquote(u.fragment) not in ids:
                    problems.append(f"{where}: missing anchor {href!r}")
    return problems, checked


def broken_links(root: Path) -> list[str]:
    return link_check(root)[0]


def _parse_one(path: Path) -> set[str]:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p.ids


def test_internal_links_and_anchors_resolve():
    problems, checked = link_check(HTML)
    assert problems == []
    assert checked > 100, f"only {checked} internal links checked: the checker found no links"


def test_link_check_catches_a_broken_link(tmp_path: Path):
    (tmp_path / "a.html").write_text('<p id="x"><a href="b.html">b</a> <a href="a.html#nope">n</a> '
                                     '<a href="#x">ok</a> <a href="http:/bad">bad</a></p>')
    problems = broken_links(tmp_path)
    assert len(problems) == 3, problems


def test_link_check_reads_every_kind_of_link(tmp_path: Path):
    """What LinkChecker also read: srcset, media sources, meta refresh and icons, GET forms, url() in
    style attributes and style sheets (comments left out); and a link out of the book is broken."""
    (tmp_path / "ok.png").write_bytes(b"")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "s.css").write_text('/* url(commented.png) */ .a { background: url("../ok.png") }\n'
                                            '.b { background: url(gone-from-css.png) } @import "gone.css";\n'
                                            '.c { background: url(data:image/png;base64,AAAA) }')
    (tmp_path / "a.html").write_text(
        '<meta http-equiv="refresh" content="0; url=gone-refresh.html">'
        '<link rel="icon" href="gone-icon.png"><link rel="stylesheet" href="sub/s.css">'
        '<link rel="preconnect" href="https://fonts.example.com">'
        '<img src="ok.png" srcset="ok.png 1x, gone-2x.png 2x">'
        '<video src="gone.mp4" poster="ok.png"><source src="gone.webm"></video>'
        '<form action="gone-search.html"></form><form method="post" action="post-only"></form>'
        '<div style="background: url(\'gone-style.png\')"></div>'
        '<a href="../outside.html">out</a> <a href="mailto:nobody">m</a> <a href="mailto:a@b.org">ok</a>')
    problems = broken_links(tmp_path)
    named = {p.split("'")[1] for p in problems}
    assert named == {"gone-refresh.html", "gone-icon.png", "gone-2x.png", "gone.mp4", "gone.webm",
                     "gone-search.html", "gone-style.png", "gone-from-css.png", "gone.css", "../outside.html",
                     "mailto:nobody"}, problems


def page_weights(root: Path) -> list[tuple[str, int]]:
    """Bytes of each page with the local files it loads (scripts, styles, images, downloads excluded)."""
    out = []
    for page, links in _parse(root).items():
        files = {page}
        for href in links.hrefs:
            u = urlparse(href)
            if u.scheme or not u.path or "_downloads" in u.path:
                continue
            target = (page.parent / unquote(u.path)).resolve()
            if target.is_file() and target.suffix != ".html":
                files.add(target)
                if target.suffix == ".css":  # web fonts the style sheet pulls in
                    for ref in re.findall(r"url\(['\"]?([^'\")?#]+\.woff2)", target.read_text(errors="ignore")):
                        font = (target.parent / ref).resolve()
                        if font.is_file():
                            files.add(font)
        out.append((str(page.relative_to(root)), sum(f.stat().st_size for f in files)))
    return sorted(out, key=lambda x: -x[1])


def test_page_weight_under_3_mb():
    weights = page_weights(HTML)
    report = "\n".join(f"{kb / 1024:8.0f} KiB  {name}" for name, kb in weights)
    (ROOT / "_build" / "page-weight.txt").write_text(report + "\n")
    name, largest = weights[0]
    assert largest < 3 * 1024 * 1024, f"{name} weighs {largest / 2**20:.1f} MiB"


def test_every_paper_has_its_bibliography_anchor_and_the_explorer_links_to_it():
    """The explorer's rows load after the page (analysis/book/lazy.py), so Sphinx never sees their links:
    each must name an anchor `bibkey-<citekey>` that the bibliography page has (analysis/book/reader.py)."""
    import json

    from analysis.data import papers

    if not (HTML / "chapters" / "bibliography.html").exists():
        pytest.skip("the book has not been built: run `make book`")
    bib = (HTML / "chapters" / "bibliography.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="(bibkey-[^"]+)"', bib))
    keys = set(papers.load()["citekey"])
    assert {f"bibkey-{k}" for k in keys} <= anchors, sorted({f"bibkey-{k}" for k in keys} - anchors)[:5]
    rows = []
    for chunk in sorted((HTML / "tables").glob("paper-index-*.js")):
        text = chunk.read_text(encoding="ascii")
        rows += json.loads(text[text.index(",[") + 1:text.rindex(");")])
    assert len(rows) == len(keys)
    linked = {m for r in rows for m in re.findall(r'href="\.\./chapters/bibliography\.html#(bibkey-[^"]+)"', r[0])}
    assert linked == {f"bibkey-{k}" for k in keys}
