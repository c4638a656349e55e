"""Assemble the book in _build/book and build its HTML strictly, keeping the last good HTML.

The staged book holds copies of the sources (``_config.yml``, ``_toc.yml``,
``intro.md``, ``chapters/``, ``references.bib``) next to what the notebooks produced
(``notebooks/*.ipynb``, ``figures/``, ``outputs/``). Sphinx builds it from scratch into
``_build/book/_build/html`` every time the HTML is out of date (no environment or output
is kept between builds, so an incremental build gives the same bytes as a clean one and an
interrupted build leaves nothing half-written behind); only a build without errors or
warnings replaces ``_build/html``, by renaming.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from analysis.data.paths import BUILD, ROOT, STAGE

SOURCES = ["_config.yml", "_toc.yml", "intro.md", "references.bib", "chapters", "_static", "_templates"]
HTML = BUILD / "html"


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
    from analysis.book import facts, gallery

    gallery.write_page(STAGE / "reference" / "figures.md")
    facts.write(STAGE)  # every glued value with its key and pages: outputs/numbers.csv


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
    check_bib(ROOT / "references.bib")
    stage()
    out = STAGE / "_build"
    shutil.rmtree(out, ignore_errors=True)  # every HTML build starts from nothing (see above)
    # Serial Sphinx: jupyter-book's multitoc-numbering extension (continuous figure numbers
    # across parts) is not declared parallel-safe, so -j would only add a warning.
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(STAGE), "--builder", "html",
           "-n", "-W", "--keep-going", *(builder_args or [])]
    # the book's Sphinx extension (analysis.sphinx_speedups) is imported from this checkout
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    try:
        code = _sphinx(cmd, {**os.environ, "PYTHONPATH": path})
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    if code != 0:
        shutil.rmtree(out, ignore_errors=True)
        print(f"\nbook build FAILED (exit {code}); the last good HTML in {HTML} is unchanged",
              file=sys.stderr)
        return code or 1
    new = BUILD / "html.new"
    old = BUILD / "html.old"
    shutil.rmtree(new, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(out / "html", new)
    (new / ".built").write_text("ok\n")
    # the swap is two renames; an interrupt cannot fall between them
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    try:
        if HTML.exists():
            HTML.rename(old)
        new.rename(HTML)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    print(f"\nThe book is built. Open {HTML / 'index.html'}")
    return 0
