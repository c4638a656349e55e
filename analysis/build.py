"""Assemble the book in _build/book and build its HTML strictly, keeping the last good HTML.

The staged book holds copies of the sources (``_config.yml``, ``_toc.yml``,
``intro.md``, ``chapters/``, ``references.bib``) next to what the notebooks produced
(``notebooks/*.ipynb``, ``figures/``, ``outputs/``). Sphinx builds it into
``_build/book/_build/html``; only a build without errors or warnings replaces
``_build/html``.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

from analysis.paths import BUILD, ROOT, STAGE

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
    for name in SOURCES:
        src = ROOT / name
        if src.exists():
            _sync(src, STAGE / name)
    _mathjax()
    from analysis import gallery

    gallery.write_page(STAGE / "reference" / "figures.md")


def check_bib(path: Path) -> None:
    """Parse references.bib strictly; a malformed entry raises DataError naming file and line."""
    import pybtex.database
    import pybtex.errors
    from pybtex.scanner import PybtexSyntaxError

    from analysis.paths import DataError

    pybtex.errors.set_strict_mode(True)
    try:
        pybtex.database.parse_file(str(path))
    except PybtexSyntaxError as exc:
        raise DataError(f"{path}: line {exc.lineno}: malformed BibTeX entry: {exc.args[0] if exc.args else exc}"
                        ) from None
    except pybtex.database.BibliographyDataError as exc:
        raise DataError(f"{path}: malformed BibTeX: {exc}") from None


def build_html(builder_args: list[str] | None = None) -> int:
    check_bib(ROOT / "references.bib")
    stage()
    out = STAGE / "_build"
    # Serial Sphinx: jupyter-book's multitoc-numbering extension (continuous figure numbers
    # across parts) is not declared parallel-safe, so -j would only add a warning.
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(STAGE), "--builder", "html",
           "-n", "-W", "--keep-going", *(builder_args or [])]
    # the book's Sphinx extension (analysis.sphinx_speedups) is imported from this checkout
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": path})
    if proc.returncode != 0:
        # Force a full re-read next time so warnings of unchanged pages are reported again.
        shutil.rmtree(out / ".doctrees", ignore_errors=True)
        print(f"\nbook build FAILED (exit {proc.returncode}); the last good HTML in {HTML} is unchanged",
              file=sys.stderr)
        return proc.returncode or 1
    new = BUILD / "html.new"
    old = BUILD / "html.old"
    shutil.rmtree(new, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(out / "html", new)
    (new / ".built").write_text("ok\n")
    if HTML.exists():
        HTML.rename(old)
    new.rename(HTML)
    shutil.rmtree(old, ignore_errors=True)
    print(f"\nThe book is built. Open {HTML / 'index.html'}")
    return 0
