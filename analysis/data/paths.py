"""Where things live, and a record of which data files a notebook reads.

Every loader in this package opens data through :func:`data_file`, which notes the
path in the file named by ``$ANALYSIS_READS_FILE`` (set by the notebook runner).
The runner turns that list into a make dependency file, so a notebook is
re-executed exactly when a data file it actually read has changed.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # analysis/data/paths.py -> the checkout
# $ANALYSIS_DATA_DIR points every loader at another copy of data/ (tests, and `make accept`, which
# validates the merged files in a staging copy before they replace the real ones)
DATA = Path(os.environ["ANALYSIS_DATA_DIR"]) if os.environ.get("ANALYSIS_DATA_DIR") else ROOT / "data"
BUILD = ROOT / "_build"
STAGE = BUILD / "book"


class DataError(ValueError):
    """A data file is malformed. The message names the file, row and column."""


def figures_dir() -> Path:
    """Folder that figure files go to ($ANALYSIS_FIGURES_DIR, default _build/book/figures)."""
    return Path(os.environ.get("ANALYSIS_FIGURES_DIR", STAGE / "figures"))


def outputs_dir() -> Path:
    """Folder that generated tables go to ($ANALYSIS_OUTPUTS_DIR, default _build/book/outputs)."""
    return Path(os.environ.get("ANALYSIS_OUTPUTS_DIR", STAGE / "outputs"))


def record_read(path: Path) -> None:
    """Note that the running notebook read `path` (no-op outside the runner)."""
    log = os.environ.get("ANALYSIS_READS_FILE")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{Path(path).resolve()}\n")


def data_file(name: str) -> Path:
    """Path of a file in data/, recorded as read; raises DataError if it is missing."""
    path = DATA / name
    if not path.is_file():
        raise DataError(f"{path}: data file not found")
    record_read(path)
    return path


def write_if_changed(path: Path, text: str) -> bool:
    """Write `text` to `path` unless it holds exactly that already (a make stamp: its time changes only when
    its content does); return whether it was written."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True
