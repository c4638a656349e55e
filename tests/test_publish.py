"""Publishing and citing: the citation file, the one configured URL, cite blocks, talk-figure
footers, the CI workflow, sharing metadata and the PDF (issue 22)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from conftest import PY, ROOT

from analysis.book import gallery, publish

HTML = ROOT / "_build" / "html"
BUILT = HTML / ".built"
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"
PDF = ROOT / "_build" / "pdf" / "book.pdf"
SVG_NS = "{http://www.w3.org/2000/svg}"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MAKE") and k not in ("BOOK_URL", "ANALYSIS_BOOK_URL")}
    return {**env, **extra}


# --- CITATION.cff and the licences ----------------------------------------------------------------

def test_citation_file_is_valid_and_matches_the_book():
    assert publish.check_citation() == []
    meta = publish.book_meta(url="")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert meta["title"] == config["title"] and meta["authors"] == config["author"]
    assert meta["licence"] == "CC BY 4.0" and re.fullmatch(r"\d+\.\d+\.\d+", meta["version"])
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Attribution 4.0 International" in (ROOT / "LICENSE-CC-BY-4.0").read_text(encoding="utf-8")


def test_citation_check_reports_a_broken_file(tmp_path: Path):
    bad = tmp_path / "CITATION.cff"
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    bad.write_text(text.replace('date-released: "', 'date-released: "2026-13-40" #').replace("title:", "titel:", 1))
    problems = "\n".join(publish.check_citation(bad))
    assert "'title' is a required property" in problems and "2026-13-40" in problems
    bad.write_text(text + 'url: "https://example.org/book/"\n')
    assert any("BOOK_URL" in p for p in publish.check_citation(bad))


def test_make_lint_runs_the_citation_and_workflow_checks():
    lint = re.search(r"^lint:.*?(?=^\S)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.S | re.M)
    assert lint and "-m analysis citation" in lint.group(0) and "actionlint .github/workflows/book.yml" in lint.group(0)


# --- the one URL ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "expected"), [
    ("", ""),
    ("https://someone.github.io/ml-hardware-review", "https://someone.github.io/ml-hardware-review/"),
    ("https://Book.Example-Lab.org/", "https://book.example-lab.org/"),
    ("https://someone.github.io.:8443/book", "https://someone.github.io:8443/book/"),  # a trailing dot dropped
])
def test_url_is_normalised(raw: str, expected: str):
    assert publish.check_url(raw) == expected


@pytest.mark.parametrize("raw", [
    "https://example.org/ml-hardware-review/", "https://www.example.com/", "https://localhost/book/",
    "https://book.test/", "http://someone.github.io/book/", "https://someone.github.io/book/?x=1",
    "https://someone.github.io/$(touch x)/", "someone.github.io/book/", "https://a.org/b c/",
    "https://user@someone.github.io/", "https://10.0.0.1/",
    # issue 38: checked after normalisation
    "https://example.org./book/", "https://someone.github.io/../etc/", "https://someone.github.io/a/./b/",
    "https://someone.github.io:99999/book/", "https://someone.github.io:0/", "https://some..one.io/",
])
def test_placeholder_or_unsafe_url_is_refused(raw: str):
    with pytest.raises(publish.PublishError, match="BOOK_URL"):
        publish.check_url(raw)


def test_publish_needs_a_url():
    with pytest.raises(publish.PublishError, match="not set"):
        publish.check_url("", required=True)


@pytest.mark.e2e
def test_make_publish_refuses_without_url_or_with_a_placeholder(tmp_path: Path):
    marker = tmp_path / "ran"
    for args, message in (
        ([], "BOOK_URL is not set"),
        (["BOOK_URL=https://example.org/ml-hardware-review/"], "placeholder"),
        ([f"BOOK_URL=https://a.org/$(shell touch {marker})"], "use only letters"),
    ):
        proc = subprocess.run(["make", "--no-print-directory", "publish", *args], cwd=ROOT, env=_env(),
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode != 0, proc.stdout[-500:]
        assert message in proc.stderr, proc.stderr[-1000:]
        assert "jupyter-book" not in proc.stdout + proc.stderr  # refused before anything was built
    # from the environment too, and no shell ever ran the value
    proc = subprocess.run(["make", "--no-print-directory", "publish"], cwd=ROOT, capture_output=True, text=True,
                          env=_env(BOOK_URL=f"https://a.org/$(shell touch {marker})`touch {marker}`"), timeout=600)
    assert proc.returncode != 0 and "use only letters" in proc.stderr
    assert not marker.exists()


# --- cite blocks ----------------------------------------------------------------------------------

ENTRY = {"id": "serving-cost-per-mtok", "title": "Cost per million tokens", "sources": [],
         "caption": "Rent per million output tokens, by GPU {and} batch size; 100% at `peak`",
         "alt": "a", "chapter": "serving", "notebook": "n", "source_note": "x"}


def test_figure_cite_blocks_have_every_field():
    for url in ("", "https://someone.github.io/ml-hardware-review/"):
        meta = publish.book_meta(url=url)
        text, bib = gallery.cite_text(ENTRY, meta), gallery.cite_bibtex(ENTRY, meta)
        for block in (text, bib):
            for value in (meta["authors"], meta["title"], meta["version"], meta["year"], ENTRY["id"],
                          "Cost per million tokens", "CC BY 4.0"):
                assert value in block, (value, block)
            assert "example.org" not in block and "`" not in block
        assert "Rent per million output tokens" in text and "Rent per million output tokens" in bib
        assert "100\\%" in bib and "\\{and\\}" in bib  # LaTeX specials escaped, braces balanced
        assert bib.count("{") == bib.count("}")
        if url:
            anchor = f"{url}reference/figures.html#gallery-{ENTRY['id']}"
            assert anchor in text and f"url = {{{anchor}}}" in bib
        else:
            assert "local build" in text and "local build" in bib and "url =" not in bib


def test_book_cite_block_comes_from_the_citation_file():
    meta = publish.book_meta(url="")
    section = publish.intro_section(meta)
    assert "## Cite this book" in section and "local build" in section
    assert f"version = {{{meta['version']}}}" in section and f"year = {{{meta['year']}}}" in section
    published = publish.intro_section(publish.book_meta(url="https://someone.github.io/r/"))
    assert "url = {https://someone.github.io/r/}" in published and "local build" not in published


# --- talk figures carry their footer --------------------------------------------------------------

TALK = """
import sys
import analysis.book.footer  # registers the talk footer's maker with the figure helper
from analysis.plot import figures

fig, ax = figures.new()
ax.plot([1, 2, 3], [1, 4, 9], label="a")
ax.set_xlabel("x (unit)")
ax.legend()
figures.save(fig, "talk-test", title="t", caption="c", alt="a", chapter="methods", sources=[sys.argv[1]],
             source_note="data/hardware.csv (vendor datasheets; Epoch AI chip dataset)")
"""


def _footer_of(svg: Path) -> str:
    root = ET.parse(svg).getroot()
    found = [el for el in root.iter() if el.get("id") == "figure-footer"]
    assert len(found) == 1, f"{svg.name}: no footer group"
    return "".join(found[0].itertext()).strip()


def _render_talk(folder: Path, url: str) -> dict:
    with open(ROOT / "data" / "papers.csv", encoding="utf-8", newline="") as fh:
        row = next(csv.DictReader(fh))
    env = {**_env(), "ANALYSIS_FIGURES_DIR": str(folder), "ANALYSIS_STYLE": "talk", "ANALYSIS_BOOK_URL": url,
           "PYTHONPATH": str(ROOT)}
    subprocess.run([str(PY), "-c", TALK, row["citekey"]], cwd=ROOT, env=env, check=True, timeout=300)
    entry = json.loads((folder / "talk-test.json").read_text(encoding="utf-8"))
    return {"entry": entry, "family": row["authors"].split(",")[0].strip(), "year": row["year"]}


def test_talk_figure_footer_is_in_the_svg_text(tmp_path: Path):
    local = _render_talk(tmp_path / "local", "")
    footer = _footer_of(tmp_path / "local" / "talk-test.svg")
    assert footer == local["entry"]["footer"]
    assert footer.startswith("Sources: ") and f"{local['family']}" in footer and local["year"] in footer
    assert "Epoch AI" in footer and "CC BY 4.0" in footer and "local build" in footer
    assert footer.endswith("Figure talk-test")
    svg = (tmp_path / "local" / "talk-test.svg").read_text(encoding="utf-8")
    assert "<dc:rights>" in svg and "CC BY 4.0" in svg and "<dc:date>" not in svg

    published = _render_talk(tmp_path / "pub", "https://someone.github.io/ml-hardware-review/")
    assert "· someone.github.io/ml-hardware-review ·" in _footer_of(tmp_path / "pub" / "talk-test.svg")
    assert "local build" not in published["entry"]["footer"]

    # deterministic: the same inputs give the same bytes
    _render_talk(tmp_path / "again", "")
    for ext in ("svg", "png", "pdf"):
        a, b = (hashlib.sha256((tmp_path / d / f"talk-test.{ext}").read_bytes()).hexdigest()
                for d in ("local", "again"))
        assert a == b, ext


def test_book_figures_have_no_footer(tmp_path: Path):
    env = {**_env(), "ANALYSIS_FIGURES_DIR": str(tmp_path), "ANALYSIS_STYLE": "book", "PYTHONPATH": str(ROOT)}
    subprocess.run([str(PY), "-c", TALK, "x"], cwd=ROOT, env=env, check=True, timeout=300)
    assert "figure-footer" not in (tmp_path / "talk-test.svg").read_text(encoding="utf-8")
    assert "footer" not in json.loads((tmp_path / "talk-test.json").read_text(encoding="utf-8"))


@pytest.mark.skipif(not (ROOT / "_build" / "talk-figures").is_dir(), reason="no talk figures: make figures STYLE=talk")
def test_rendered_talk_figures_carry_their_footer():
    folder = ROOT / "_build" / "talk-figures"
    entries = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    assert entries
    for e in entries:
        assert "footer" in e, f"{e['id']}: a talk figure without its footer: run make figures STYLE=talk again"
        footer = _footer_of(folder / f"{e['id']}.svg")
        assert footer == e["footer"] and footer.endswith(f"Figure {e['id']}") and "CC BY 4.0" in footer


# --- the CI cache ----------------------------------------------------------------------------------

# --- the CI workflow -------------------------------------------------------------------------------

def test_workflow_passes_actionlint():
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "actionlint"), str(WORKFLOW.relative_to(ROOT))], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflow_does_what_the_issue_asks():
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    on = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads the key `on` as true
    assert {"push", "pull_request"} <= set(on)
    build = wf["jobs"]["build"]
    assert "bookworm" in build["container"]["image"]  # Debian, so apt's chromium is Debian's
    steps = build["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    assert "make browser-deps" in runs and "make test" in runs and "make publish" in runs
    caches = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert any(".venv" in c["with"]["path"] for c in caches)
    nb_key = next(c["with"]["key"] for c in caches if "_build/book/notebooks" in c["with"]["path"])
    for pattern in ("requirements.txt", "constraints.txt", "analysis/**", "data/**"):
        assert pattern in nb_key, pattern
    uploads = " ".join(s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert "_build/html" in uploads and "_build/book/figures" in uploads and "_build/talk-figures" in uploads
    deploy = wf["jobs"]["deploy"]
    assert "refs/heads/main" in deploy["if"] and deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    # the URL reaches make through the environment, never through the script text
    assert all("${{" not in r for r in runs)


def test_every_workflow_command_is_a_readme_command():
    """Every command CI runs is documented: in the README or the pages it links in docs/ (docs/ci.md)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    readme = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    blocks = "\n".join(re.findall(r"```bash\n(.*?)```", readme, re.S))
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    for job in wf["jobs"].values():
        for step in job["steps"]:
            if "run" in step:
                assert step["run"].strip() in blocks, f"not a README command: {step['run']}"


# --- the built book --------------------------------------------------------------------------------

def _pages() -> list[Path]:
    return [p for p in HTML.rglob("*.html") if "_static" not in p.parts]


@pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book`")
def test_built_book_cites_and_links_only_the_configured_url():
    stamp = ROOT / "_build" / "book-url"
    url = stamp.read_text(encoding="utf-8").strip() if stamp.exists() else publish.LOCAL
    url = "" if url == publish.LOCAL else url
    intro = re.sub(r"<[^>]+>", "", (HTML / "intro.html").read_text(encoding="utf-8"))  # the text shown
    assert "Cite this book" in intro and "@misc{mlhardwarereview" in intro
    gallery_page = re.sub(r"<[^>]+>", "", (HTML / "reference" / "figures.html").read_text(encoding="utf-8"))
    assert "CC BY 4.0" in gallery_page
    texts = {p: p.read_text(encoding="utf-8") for p in _pages()}
    assert not [p.name for p, t in texts.items() if "example.org" in t], "a page names the placeholder host"
    chapter = texts[HTML / "chapters" / "serving.html"]
    assert 'property="og:title"' in chapter and 'name="twitter:card"' in chapter
    assert (HTML / "CITATION.cff").is_file()
    canon = [m for t in texts.values() for m in re.findall(r'<link rel="canonical" href="([^"]+)"', t)]
    if url:
        assert canon and all(c.startswith(url) for c in canon)
        assert "local build" not in intro and url in intro
        assert f'<meta property="og:url" content="{url}chapters/serving.html"' in chapter
        assert f'<meta property="og:image" content="{url}og/' in chapter
        sitemap = (HTML / "sitemap.xml").read_text(encoding="utf-8")
        assert f"<loc>{url}intro.html</loc>" in sitemap
        assert f'url: "{url}"' in (HTML / "CITATION.cff").read_text(encoding="utf-8")
    else:
        assert not canon, "a local build names a canonical host"
        assert "local build" in intro and "local build" in gallery_page
        assert not (HTML / "sitemap.xml").exists()


# --- the PDF ---------------------------------------------------------------------------------------

def _chapter_titles() -> list[str]:
    """The first heading of every page the table of contents names (the gallery is generated)."""
    titles = ["Figures"]
    for entry in re.findall(r"file: (\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8")):
        folder, _, name = entry.rpartition("/")
        src = {"chapters": ROOT / "chapters", "notebooks": ROOT / "analysis" / "notebooks"}.get(folder)
        if src is not None and (src / f"{name}.md").exists():
            lines = (src / f"{name}.md").read_text(encoding="utf-8").splitlines()
            titles.append(next(line for line in lines if line.startswith("# "))[2:].strip())
    return titles


@pytest.mark.skipif(not PDF.exists(), reason="no PDF: run `make pdf`")
def test_pdf_has_every_chapter():
    from pypdf import PdfReader

    reader = PdfReader(PDF)
    outline: list[str] = []

    def walk(items: list) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                outline.append("".join(str(item.title).split()))  # chromium drops spaces at line breaks

    walk(reader.outline)
    titles = _chapter_titles()
    assert len(titles) >= 15
    missing = [t for t in titles if not any(_squash(t) in _squash(o) for o in outline)]  # ’ for
    assert not missing, f"chapters missing from the PDF's outline: {missing}"
    assert len(reader.pages) > 50


def _squash(text: str) -> str:
    """Letters and digits only, lower case: what survives a PDF's line breaks, hyphen-free wrapping and
    typographic quotes and ligatures ("ﬂ" is "fl") alike."""
    import unicodedata

    return re.sub(r"[^0-9a-z]", "", unicodedata.normalize("NFKC", text).lower())


@pytest.mark.slow
@pytest.mark.skipif(not PDF.exists(), reason="no PDF: run `make pdf`")
def test_pdf_prints_every_ledger_claim_and_every_row_of_each_chapter_table():
    """Issue 34: the printed book loses no table content. Read back from the PDF's text: every claim id of
    the ledger (data/claims.csv), and every paper of each chapter's paper table by its headline result,
    in the pages before the paper index (whose explorer prints every headline again). And the first pages
    hold the book's contents, its chapters by title. `make pdf` takes about 1.5 minutes here (bench/results.md)."""
    import pandas as pd
    from pypdf import PdfReader

    reader = PdfReader(PDF)
    pages = [page.extract_text() or "" for page in reader.pages]
    text = _squash(" ".join(pages))
    claims = pd.read_csv(ROOT / "data" / "claims.csv", dtype=str)
    missing = [c for c in claims["claim_id"] if _squash(c) not in text]
    assert not missing, f"{len(missing)} ledger claims not in the PDF, e.g. {missing[:5]}"

    tables = {m for m in re.findall(r"outputs/papers-([a-z-]+)\.md", " ".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "chapters").glob("*.md")))}
    papers = pd.read_csv(ROOT / "data" / "papers.csv", dtype=str)
    rows = papers[papers["theme"].isin(tables) & papers["headline"].notna()]
    assert len(rows) > 100
    # the chapters come before the paper index (whose explorer prints every headline again): a headline
    # must be in the pages before it
    starts = {}

    def walk(items: list) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                starts.setdefault(_squash(str(item.title)), reader.get_destination_page_number(item))

    walk(reader.outline)
    index = starts.get(_squash("Paper index"))
    assert index, "no 'Paper index' in the PDF's outline"
    chapters = _squash(" ".join(pages[:index]))
    lost = [r.citekey for r in rows.itertuples() if _squash(r.headline)[:60] not in chapters]
    assert not lost, f"{len(lost)} chapter-table rows not printed, e.g. {lost[:5]}"

    first = _squash(" ".join(reader.pages[i].extract_text() or "" for i in range(min(3, len(reader.pages)))))
    assert "contents" in first and all(_squash(t) in first for t in _chapter_titles()[1:6]), \
        "the contents page does not list the book's chapters"


def test_no_source_maps_are_shipped(tmp_path: Path):
    """Issue 34: the theme's source maps (3.5 MB) and the comments naming them are dropped from _static."""
    from analysis.book import reader

    static = tmp_path / "_static" / "styles"
    static.mkdir(parents=True)
    (static / "theme.css").write_bytes(b"a{color:red}\n/*# sourceMappingURL=theme.css.map*/")
    (static / "theme.css.map").write_bytes(b"{}")
    (static / "app.js").write_bytes(b"x();\n//# sourceMappingURL=app.js.map\n")
    (static / "plain.js").write_bytes(b"y();\n")
    assert reader.drop_source_maps(tmp_path) == 3
    assert not (static / "theme.css.map").exists()
    assert (static / "theme.css").read_bytes() == b"a{color:red}"
    assert (static / "app.js").read_bytes() == b"x();\n"
    built = ROOT / "_build" / "html" / "_static"
    if (built.parent / ".built").exists():
        assert not list(built.rglob("*.map")), "the built book ships source maps"
