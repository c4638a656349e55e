"""The CI cache check (``python -m analysis cache save|restore``): restored executed notebooks are
trusted only when every input they were made from is unchanged.

Its own module (not part of :mod:`analysis.book.publish`) so that the figure helper, which the
notebooks import, does not depend on the seed files through it.
"""

from __future__ import annotations

import hashlib
import os
import time

from analysis.data.paths import BUILD, ROOT, STAGE

CACHE_STAMP = BUILD / "inputs.sha256"
CACHED = [STAGE / "notebooks", STAGE / "figures", STAGE / "outputs", BUILD / "deps", ROOT / "references.bib"]


def inputs_digest() -> str:
    """One hash of every input of the executed notebooks: pins, the package, data/, the seed files."""
    from analysis.data.corpus import seeds_dir

    files = [ROOT / "requirements.txt", ROOT / "constraints.txt"]
    files += [p for p in sorted((ROOT / "analysis").rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    files += sorted(p for p in (ROOT / "data").rglob("*") if p.is_file())
    files += sorted(seeds_dir().glob("*.txt"))
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p.name).encode() + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


def cache_save() -> str:
    CACHE_STAMP.parent.mkdir(parents=True, exist_ok=True)
    CACHE_STAMP.write_text(inputs_digest() + "\n", encoding="utf-8")
    return f"recorded the notebooks' inputs in {CACHE_STAMP.relative_to(ROOT)}"


def cache_restore() -> str:
    """After restoring _build from a cache: mark the executed notebooks up to date, if and only if
    their recorded inputs equal the current ones (a fresh checkout gives every source a new time)."""
    if not CACHE_STAMP.exists():
        return "no restored build (no _build/inputs.sha256): make will run every notebook"
    if CACHE_STAMP.read_text(encoding="utf-8").strip() != inputs_digest():
        return "the restored build has other inputs: make will re-run what is out of date"
    files = [p for d in CACHED if d.is_dir() for p in d.rglob("*") if p.is_file()]
    files += [p for p in (*CACHED, CACHE_STAMP) if p.is_file()]
    now = time.time_ns()
    for p in files:
        os.utime(p, ns=(now, now))
    return f"the restored build has the same inputs: {len(files)} files marked up to date"
