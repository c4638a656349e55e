"""Shared test helpers: the project copies the build tests work in, and the session's guard that no
test changed this checkout's _build.

Copies of the project (``scratch``, ``scratch_sources``, test_faults' ``rebuild``) are cloned from one
full copy made once per test session (``project_base``; under pytest-xdist the first worker makes it,
the others wait on a file lock). A clone copies every file except those under LINKED, which it
hard-links: the build replaces them (renames a new folder into place), never writes into them. A
hard-linked file written in place would change the base copy too; the base's digest is checked
when each worker's session ends, and this checkout's own _build is never linked at all and is
checked the same way (``_main_build_untouched``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path(os.environ.get("SEEDS_DIR", ROOT.parent / "shared" / "seeds"))
PY = ROOT / ".venv" / "bin" / "python"

# Folders of _build that a clone hard-links. Only _build/html qualifies: analysis/book/build.py
# builds the HTML in _build/book/_build, copies it to _build/html.new and renames that over
# _build/html, so no build writes into a file of _build/html. Everything else is copied, because
# the build rewrites it in place: build._sync and _write (shutil.copy2 / write_text onto the
# staged sources, _config.yml, intro.md, figures/talk/), the notebooks' figures.save (savefig onto
# _build/book/figures/*), facts and outside_table (outputs/), the executed notebooks (shutil.move,
# a copy onto the old file when TMPDIR is on another file system), and make's stamps (touch).
LINKED = ("_build/html/",)
# what tests write into this checkout's _build on purpose (reports for a reader)
REPORTS = ("page-weight.txt", "browser-pages.txt", "axe-report.json", "screenshots/")


# front matter of a jupytext MyST notebook, for the small notebooks the tests write
NB_FRONT_MATTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


# a notebook whose second code cell raises (ZeroDivisionError)
FAILING_NB = NB_FRONT_MATTER + """
# Failing

```{code-cell} ipython3
:tags: [parameters]

x: int = 1  # count | | test
```

```{code-cell} ipython3
y = 1 / (x - 1)
```
"""


@pytest.fixture
def seeds() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"seed corpus not present at {SEEDS} (CI has it at ../shared/seeds)")
    return SEEDS


# ---- digests: proof that nothing changed a folder ------------------------------------------------

def digest(folder: Path, skip: tuple[str, ...] = (), under: tuple[str, ...] = ()) -> dict[str, str]:
    """sha256 and modification time of every file under `folder` (relative paths starting with one
    of `skip` left out; only those starting with one of `under`, if given)."""
    out = {}
    for dirpath, _, names in os.walk(folder):
        for name in names:
            p = Path(dirpath) / name
            rel = str(p.relative_to(folder))
            if rel.startswith(skip) or (under and not rel.startswith(under)) or p.is_symlink():
                continue
            h = hashlib.sha256()
            with open(p, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
            out[rel] = f"{h.hexdigest()} {p.stat().st_mtime_ns}"
    return out


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


@pytest.fixture(scope="session", autouse=True)
def _main_build_untouched() -> Iterator[None]:
    """No test changes this checkout's _build (the reports tests write there on purpose aside)."""
    build = ROOT / "_build"
    before = digest(build, skip=REPORTS) if build.is_dir() else {}
    yield
    after = digest(build, skip=REPORTS) if build.is_dir() else {}
    diff = changed(before, after)
    assert not diff, f"tests changed {len(diff)} file(s) of {build}: {diff[:10]}"


# ---- copies of the project -------------------------------------------------------------------------

def _project_files() -> list[str]:
    proc = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode == 0:
        return proc.stdout.splitlines()
    skip = {"_build", ".venv", "runs", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
    return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")  # not a git checkout: all but generated folders
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def copy_project(dst: Path) -> None:
    """A full copy of the project (tracked and untracked files, references.bib, the current _build)
    with the venv linked in, and the seed corpus beside it (as ../shared/seeds is beside ROOT)."""
    for f in [*_project_files(), "references.bib"]:
        src = ROOT / f
        if src.is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / f)
    if (ROOT / "_build").exists():
        shutil.copytree(ROOT / "_build", dst / "_build", symlinks=True,
                        ignore=shutil.ignore_patterns("html.new", "html.old"))
    (dst / ".venv").symlink_to(ROOT / ".venv")
    (dst.parent / "shared").symlink_to(SEEDS.parent)


def clone(src: Path, dst: Path, build: bool = True) -> Path:
    """A copy of the project copy `src` at `dst`: files under LINKED hard-linked, the rest copied
    (time stamps kept, so make finds the same things up to date). build=False: the sources and
    _build/validated only (for make targets that need no book)."""

    def copy(s: str, d: str) -> None:
        if os.path.relpath(s, src).startswith(LINKED):
            os.link(s, d)
        else:
            shutil.copy2(s, d)

    def ignore(folder: str, names: list[str]) -> list[str]:
        if build or os.path.relpath(folder, src) != "_build":
            return []
        return [n for n in names if n not in ("validated", "seeds-listing")]

    shutil.copytree(src, dst, symlinks=True, copy_function=copy, ignore=ignore)
    shared = dst.parent / "shared"
    if not shared.exists():
        shared.symlink_to(SEEDS.parent)
    return dst


def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all xdist workers of this session share (the session's own temp folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make_it: Callable[[Path], None]) -> Path:
    """The folder `name` in the shared folder, made by `make_it` by whichever worker asks first (the
    others wait for it); a failure is recorded, so that the other workers report it too."""
    shared = shared_dir(tmp_path_factory)
    folder, done, failed = shared / name, shared / f"{name}.done", shared / f"{name}.failed"
    with file_lock(shared / f"{name}.lock"):
        if failed.exists():
            pytest.fail(f"making {name} failed in another worker:\n{failed.read_text()}")
        if not done.exists():
            try:
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                make_it(folder)
            except BaseException:
                failed.write_text(traceback.format_exc())
                raise
            done.write_text("ok\n")
    return folder


@pytest.fixture(scope="session")
def project_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's one full copy of the project, which the per-test copies are cloned from
    (never handed to a test itself). At the end: its _build is as it was made, time stamps included
    (a clone wrote into none of the files it shares with it)."""

    def make_it(folder: Path) -> None:
        copy_project(folder / "main")
        (folder / "digest.json").write_text(json.dumps(digest(folder / "main" / "_build")))

    folder = made_once(tmp_path_factory, "project", make_it)
    yield folder / "main"
    before = json.loads((folder / "digest.json").read_text())
    diff = changed(before, digest(folder / "main" / "_build"))
    assert not diff, f"a test wrote into files of the shared project copy (hard-linked into clones): {diff[:10]}"


@pytest.fixture
def scratch(project_base: Path, tmp_path: Path) -> Path:
    """A copy of the project (tracked files plus the current _build) with the venv linked in."""
    return clone(project_base, tmp_path / "main")


@pytest.fixture
def scratch_sources(project_base: Path, tmp_path: Path) -> Path:
    """A copy of the project's sources (no book, only _build/validated): for `make run`, `make params`
    and refused `make figures`, which build nothing of the book."""
    return clone(project_base, tmp_path / "main", build=False)


@pytest.fixture(scope="session")
def rebuild(project_base: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One copy of the project rebuilt from its sources in steps (tests/builds.py, Rebuild), for the
    tests that check a whole rebuild (their xdist group "rebuild" keeps them on one worker)."""
    from builds import Rebuild

    tmp = tmp_path_factory.mktemp("rebuild")
    return Rebuild(clone(project_base, tmp / "main"), tmp)


def tree_hash(folder: Path) -> str:
    """One hash of every file's relative path and bytes under `folder`."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def make_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    return {**env, **extra}


def make(cwd: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *targets], cwd=cwd, capture_output=True, text=True,
                          env=make_env(), timeout=1800)
