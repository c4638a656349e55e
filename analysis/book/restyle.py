"""Render every figure of the book again in another style (e.g. for slides), in its own folder.

The notebooks run with ``ANALYSIS_STYLE`` set; their figures go to ``_build/<style>-figures/``
and their executed copies and tables to a temporary folder, so the book is untouched.
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from analysis.book import figures
from analysis.book.runner import NOTEBOOKS, execute
from analysis.data.paths import BUILD


def _one(args: tuple[str, str, str, str]) -> str:
    md, style, out, tmp = args
    os.environ["ANALYSIS_STYLE"] = style
    name = Path(md).stem
    execute(Path(md), Path(tmp) / f"{name}.ipynb", figures=Path(out), outputs=Path(tmp) / "outputs")
    return name


def render_all(style: str, out: Path | None = None, jobs: int | None = None) -> Path:
    if style not in figures.STYLES:
        raise ValueError(f"unknown style {style!r}; known: {sorted(figures.STYLES)}")
    out = (out or BUILD / f"{style}-figures").resolve()
    out.mkdir(parents=True, exist_ok=True)
    notebooks = sorted(str(p) for p in NOTEBOOKS.glob("*.md"))
    with tempfile.TemporaryDirectory(prefix=f"{style}-nb-") as tmp:
        work = [(md, style, str(out), tmp) for md in notebooks]
        with ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
            for name in pool.map(_one, work):
                print(f"rendered {name}")
    return out
