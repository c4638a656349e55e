"""Assemble the book in _build/book and build its HTML strictly, keeping the last good HTML.

The staged book holds copies of the sources (``_config.yml``, ``_toc.yml``,
``intro.md``, ``chapters/``, ``references.bib``) next to what the notebooks produced
(``notebooks/*.ipynb``, ``figures/``, ``outputs/``). Sphinx builds it from scratch into
``_build/book/_build/html`` every time the HTML is out of date (no environment or output
is kept between builds, so an incremental build gives the same bytes as a clean one and an
interrupted build leaves nothing half-written behind); only a build without errors or
warnings replaces ``_build/html``, by renaming.

Staging also applies the publishing settings (analysis/book/publish.py): the staged
``_config.yml`` gets the configured URL (``BOOK_URL``: canonical links, Open Graph, sitemap)
and the version from ``CITATION.cff``; ``intro.md`` gets its "Cite this book" section; the
published copy of ``CITATION.cff`` (and, with a URL, the sharing thumbnails) go to ``_extra/``.
The same staged book is also built as one page (``singlehtml``) for the PDF (analysis/book/pdf.py).

The talk versions of the figures (``make figures``, in ``_build/talk-figures``, made from the figures
the notebooks kept: analysis/book/figure_files.py) are staged in ``figures/talk/`` for the gallery's
download links (analysis/book/gallery.py) while they are current.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from analysis.data.paths import BUILD, ROOT, STAGE

SOURCES = ["_toc.yml", "references.bib", "chapters", "_static", "_templates"]
HTML = BUILD / "html"
TALK = BUILD / "talk-figures"
SINGLEHTML = BUILD / "singlehtml"


def _sync(src: Path, dst: Path) -> None:
    """Copy src to dst, touching only files whose content changed (keeps Sphinx incremental)."""
    if src.is_dir():
        dst.mkdir(parents=True, exist_ok=True)
        names = {p.name for p in src.iterdir()}
        for p in dst.iterdir():
            if p.name not in names:
                shutil.rmtree(p) if p.is_dir() else p.unlink()
        for p in src.iterdir():
            _sync(p, dst / p.name)
    elif not dst.exists() or not filecmp.cmp(src, dst, shallow=False):
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def _mathjax() -> None:
    """Serve MathJax from the book itself (no CDN): tex-chtml.js and its web fonts."""
    import mathjax  # the django-static-mathjax distribution: MathJax 3.2.2 files

    es5 = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    dst = STAGE / "_mathjax" / "mathjax"
    _sync(es5 / "tex-chtml.js", dst / "tex-chtml.js")
    _sync(es5 / "output" / "chtml" / "fonts" / "woff-v2", dst / "output" / "chtml" / "fonts" / "woff-v2")


def stage() -> None:
    STAGE.mkdir(parents=True, exist_ok=True)
    # an executed notebook whose source is gone is not part of the book any more
    sources = {p.stem for p in (ROOT / "analysis" / "notebooks").glob("*.md")}
    for nb in (STAGE / "notebooks").glob("*.ipynb"):
        if nb.stem not in sources:
            nb.unlink()
    for name in SOURCES:
        src = ROOT / name
        if src.exists():
            _sync(src, STAGE / name)
    _mathjax()
    (STAGE / "outputs" / "lazy").mkdir(parents=True, exist_ok=True)  # html_extra_path (analysis/book/lazy.py)
    _talk_figures()
    from analysis.book import facts, gallery

    _publishing()
    gallery.write_page(STAGE / "reference" / "figures.md")
    facts.write(STAGE)  # every glued value with its key and pages: outputs/numbers.csv
    from analysis.book import release

    release.write_changes(STAGE)  # the What changed page: these numbers against the previous release's
    from analysis.themes import outside_table

    # the coverage-gaps table (works outside the corpus), for ```{include} ../outputs/outside-corpus.md```
    outside_table.write(STAGE / "outputs" / "outside-corpus.md")


def _talk_figures() -> None:
    """Stage the talk versions that are current in figures/talk/ (as ``<id>-talk.<ext>``) for the
    gallery's download links; remove any other.

    They are made on request (``make figures``, ``make publish``: analysis/book/figure_files.py) from
    the figures the notebooks kept, in ``_build/talk-figures``. One is current while the kept figure
    it was made from and the book URL its footer names are unchanged; a stale one is not offered.
    """
    from analysis.book import figure_files, publish
    from analysis.plot.figures import registry

    url = publish.book_url()
    entries = registry(STAGE / "figures")
    dst = STAGE / "figures" / "talk"
    wanted: set[str] = set()
    for e in entries:
        talk_json = TALK / f"{e['id']}.json"
        if not talk_json.exists():
            continue
        talk = json.loads(talk_json.read_text(encoding="utf-8"))
        if not figure_files.talk_current(talk, STAGE / "figures", url):
            continue
        files = {x: TALK / f"{e['id']}.{x}" for x in figure_files.FORMATS}
        if all(f.exists() for f in files.values()):
            for x, f in files.items():
                # staged as <id>-talk.<ext>: the name a reader's download gets, unlike the book's <id>.<ext>
                _sync(f, dst / f"{e['id']}-talk.{x}")
                wanted.add(f"{e['id']}-talk.{x}")
    if dst.is_dir():
        for p in dst.iterdir():
            if p.name not in wanted:
                shutil.rmtree(p) if p.is_dir() else p.unlink()
    print(f"talk versions offered for {len(wanted) // len(figure_files.FORMATS)} of {len(entries)} figures"
          + ("" if len(wanted) == len(entries) * len(figure_files.FORMATS) else
             " (make figures STYLE=talk makes the others)"))


def _write(path: Path, text: str) -> None:
    """Write `path` only if its content changes."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _publishing() -> None:
    """The configured URL and CITATION.cff applied to the staged config, landing page and extras."""
    import yaml

    from analysis.book import publish

    url = publish.book_url()  # refuses a placeholder host
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    _write(STAGE / "_config.yml", yaml.safe_dump(publish.sphinx_config(config, url), sort_keys=False,
                                                 allow_unicode=True, width=1000))
    intro = (ROOT / "intro.md").read_text(encoding="utf-8")
    _write(STAGE / "intro.md", intro.rstrip("\n") + "\n" + publish.intro_section(publish.book_meta(url)))
    extra = STAGE / "_extra"
    _write(extra / "CITATION.cff", publish.published_cff(url))
    og = extra / "og"  # sharing-card images (absolute URLs only exist for a published build)
    thumbs = STAGE / "figures" / "thumbs"
    if url:
        from analysis.plot.figures import registry, thumbnail

        for e in registry(STAGE / "figures"):  # made with the PDFs (make publish); any missing, here
            if not (thumbs / f"{e['id']}.png").exists():
                thumbnail(STAGE / "figures" / f"{e['id']}.png", thumbs / f"{e['id']}.png")
    if url and thumbs.is_dir():
        _sync(thumbs, og)
    elif og.exists():
        shutil.rmtree(og)


def check_bib(path: Path) -> None:
    """Parse references.bib strictly; a malformed entry raises DataError naming file and line."""
    import pybtex.database
    import pybtex.errors
    from pybtex.scanner import PybtexSyntaxError

    from analysis.data.paths import DataError

    pybtex.errors.set_strict_mode(True)
    try:
        pybtex.database.parse_file(str(path))
    except PybtexSyntaxError as exc:
        raise DataError(f"{path}: line {exc.lineno}: malformed BibTeX entry: {exc.args[0] if exc.args else exc}"
                        ) from None
    except pybtex.database.BibliographyDataError as exc:
        raise DataError(f"{path}: malformed BibTeX: {exc}") from None


def _sphinx(cmd: list[str], env: dict[str, str]) -> int:
    """Run Sphinx (jupyter-book) and return its exit status; on an interrupt, stop it first."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    try:
        return proc.wait()
    except BaseException:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise


def build_html(builder_args: list[str] | None = None) -> int:
    """Build the HTML book into _build/html (the last good one stays if the build fails)."""
    return build("html", HTML, builder_args)


def build(builder: str, dest: Path, builder_args: list[str] | None = None) -> int:
    """Stage the book and build it with a jupyter-book `builder` (html, singlehtml) into `dest`."""
    check_bib(ROOT / "references.bib")
    stage()
    out = STAGE / "_build"
    shutil.rmtree(out, ignore_errors=True)  # every build starts from nothing (see above)
    # Serial Sphinx: jupyter-book's multitoc-numbering extension (continuous figure numbers
    # across parts) is not declared parallel-safe, so -j would only add a warning.
    # through this interpreter, not the venv's jupyter-book script, whose first line names the Python of the
    # checkout where the venv was made (a moved checkout would run another one, or none)
    cmd = [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
           "build", str(STAGE), "--builder", builder, "-n", "-W", "--keep-going", *(builder_args or [])]
    # the book's Sphinx extension (analysis.book.sphinx_speedups) is imported from this checkout
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    try:
        code = _sphinx(cmd, {**os.environ, "PYTHONPATH": path})
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    if code != 0:
        shutil.rmtree(out, ignore_errors=True)
        print(f"\nbook build FAILED (exit {code}); the last good {builder} output in {dest} is unchanged",
              file=sys.stderr)
        return code or 1
    new = dest.with_name(dest.name + ".new")
    old = dest.with_name(dest.name + ".old")
    shutil.rmtree(new, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    try:  # Sphinx's output folder is moved, not copied (1.3 s for the HTML): it is removed below anyway
        (out / builder).rename(new)
    except OSError:  # another file system
        shutil.copytree(out / builder, new)
    (new / ".built").write_text("ok\n")
    # the swap is two renames; an interrupt cannot fall between them
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    try:
        if dest.exists():
            dest.rename(old)
        new.rename(dest)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    print(f"\nThe book is built ({builder}). Open {dest / 'index.html'}")
    return 0
