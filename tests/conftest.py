from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path(os.environ.get("SEEDS_DIR", ROOT.parent / "shared" / "seeds"))
PY = ROOT / ".venv" / "bin" / "python"


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


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A copy of the project (tracked files plus the current _build) with the venv linked in."""
    dst = tmp_path / "main"
    proc = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode == 0:
        files = proc.stdout.split()
    else:  # not a git checkout: everything but generated folders
        skip = {"_build", ".venv", "runs", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]
    for f in files:
        src = ROOT / f
        if src.is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / f)
    for extra in ("references.bib",):
        if (ROOT / extra).exists():
            shutil.copy2(ROOT / extra, dst / extra)
    if (ROOT / "_build").exists():
        shutil.copytree(ROOT / "_build", dst / "_build", symlinks=True,
                        ignore=shutil.ignore_patterns("html.new", "html.old"))
    (dst / ".venv").symlink_to(ROOT / ".venv")
    # the seed corpus sits beside the project
    (tmp_path / "shared").symlink_to(SEEDS.parent)
    return dst


def tree_hash(folder: Path) -> str:
    """One hash of every file's relative path and bytes under `folder`."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def make(cwd: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env["ANALYSIS_TALK_FIGURES"] = "off"  # a scratch build does not re-render the talk figures (~6 min)
    return subprocess.run(["make", "--no-print-directory", *targets], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=1800)
