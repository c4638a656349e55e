"""Where things live, and a record of which data files a notebook reads.

Every loader in this package opens data through :func:`data_file`, which notes the
path in the file named by ``$ANALYSIS_READS_FILE`` (set by the notebook runner).
The runner turns that list into a make dependency file, so a notebook is
re-executed exactly when a data file it actually read has changed.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
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


@contextlib.contextmanager
def data_folder(folder: Path, **env: str) -> Iterator[Path]:
    """Every loader of the package reads `folder` instead of data/ while the block runs (the validation of a
    staged copy: ``make accept``, tests), with the environment variables `env` set (``SEEDS_DIR``,
    ``ANALYSIS_PENDING_FINGERPRINTS``); afterwards everything is as before.

    :data:`DATA` is bound where a module imports it (``from analysis.data.paths import DATA``), so each loaded
    module of the package holding this DATA is pointed at `folder` and back (a module first imported inside
    the block too); the loaders' caches (functools) are emptied on the way in and out, so a table read from
    one folder is never served for the other. Import the modules the block needs before it, and do not run
    two of these blocks at once (the package has one DATA)."""
    original = DATA
    folder = Path(folder)
    saved_env = {k: os.environ.get(k) for k in [*env, "ANALYSIS_DATA_DIR"]}
    os.environ.update({**env, "ANALYSIS_DATA_DIR": str(folder)})
    _point_data(original, folder)
    try:
        yield folder
    finally:
        _point_data(folder, original)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _point_data(old: Path, new: Path) -> None:
    """Every loaded module of the package whose DATA is `old` gets `new`; every functools cache is emptied."""
    for name, mod in list(sys.modules.items()):
        if name != "analysis" and not name.startswith("analysis."):
            continue
        if getattr(mod, "DATA", None) == old:
            mod.DATA = new  # type: ignore[attr-defined]
        for value in list(vars(mod).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
