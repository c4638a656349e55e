"""A notebook's dependency record: the make rule (``_build/deps/<notebook>.d``) naming the data files it read
and the modules of the package it imports, so that make runs it again exactly when one of them changes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from analysis.book.imports import closure, imports, module_file
from analysis.data.paths import ROOT


def package_modules(nb: Any) -> list[Path]:
    """The files of the `analysis` package that a notebook's code imports, directly or through
    other modules, plus those that run every notebook (the package's __init__, the data paths that
    record what it reads, the runner): a change to any other module (the HTML build, another
    chapter's module) does not re-execute the notebook."""
    names: set[str] = {"analysis", "analysis.book.runner", "analysis.data.paths"}
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            names |= imports(cell.source)
    return sorted(p for p in map(module_file, closure(names)) if p)


def write(deps: Path, out_ipynb: Path, reads: Path, nb: Any, started_at: float) -> None:
    """Write the make rule `deps`: `out_ipynb` depends on the data files listed in `reads` (one path a line, as
    the kernel recorded them) and on the package modules `nb` imports. Stamped with the run's start, so an
    input edited during the run is newer and runs the notebook again."""
    files = sorted({line.strip() for line in reads.read_text().splitlines() if line.strip()}
                   | {str(m) for m in package_modules(nb)})
    deps.parent.mkdir(parents=True, exist_ok=True)
    tmpdeps = deps.with_suffix(".tmp")
    rels = [os.path.relpath(f, ROOT) for f in files]
    target = os.path.relpath(out_ipynb, ROOT)
    tmpdeps.write_text(f"{target}: {' '.join(rels)}\n" + "".join(f"{r}:\n" for r in rels))
    tmpdeps.replace(deps)
    os.utime(deps, (started_at, started_at))
