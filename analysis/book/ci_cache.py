"""The CI cache check (``python -m analysis cache save|restore``), one notebook at a time.

``cache save`` (run by every ``make book`` once the notebooks are up to date) records, for each
executed notebook, a digest of its own inputs: its source, the files its ``_build/deps/<name>.d``
lists (the package modules it imports, the data files it read), ``analysis/book/runner.py`` (a make
prerequisite of every notebook), the pins and the seed files. It records the same for
``_build/validated`` (make's prerequisites of it: the pins, ``data/*``, every module of the package,
the seed files) and ``references.bib`` (``data/papers.csv`` and every module).

``cache restore`` (CI, after restoring ``_build`` from a cache made by an earlier commit: the fresh
checkout gives every source a new time stamp, so make alone would re-run every notebook) marks up
to date, by touching them, exactly the notebooks whose recorded digest equals this checkout's,
with their outputs: the executed notebook, its dependency record and the files of its figures
(``_build/book/figures/<id>.*`` and the like, ``_build/book/figure-src/<id>.*``, found from the
figure registry ``figures/<id>.json``, whose ``notebook`` names the notebook). The other notebooks
keep their old time stamps and make re-runs them. Generated tables (``_build/book/outputs/``) are
named by the notebooks' code and recorded nowhere, so they, and any file of the figure folders that
no registry entry names, are touched whenever any notebook is restored: a notebook that re-runs
rewrites its own files afterwards, newer still.

Its own module (not part of :mod:`analysis.book.publish`) so that the figure helper, which the
notebooks import, does not depend on the seed files through it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from analysis.data.paths import ROOT

RECORD_NAME = "notebook-inputs.json"
RECORD_VERSION = 2
PINS = ("requirements.txt", "constraints.txt")
RUNNER = "analysis/book/runner.py"


@dataclass
class Project:
    """The folders of one checkout (the tests make small ones)."""

    root: Path = ROOT
    seeds: Path | None = None  # None: analysis.data.corpus.seeds_dir()
    _hashes: dict[Path, str | None] = field(default_factory=dict, repr=False)

    @property
    def build(self) -> Path:
        return self.root / "_build"

    @property
    def stage(self) -> Path:
        return self.build / "book"

    @property
    def record(self) -> Path:
        return self.build / RECORD_NAME

    @property
    def validated(self) -> Path:
        return self.build / "validated"

    @property
    def bib(self) -> Path:
        return self.root / "references.bib"

    def seed_files(self) -> list[Path]:
        if self.seeds is None:
            from analysis.data.corpus import seeds_dir

            self.seeds = seeds_dir()
        return sorted(self.seeds.glob("*.txt"))

    def notebooks(self) -> list[str]:
        return sorted(p.stem for p in (self.root / "analysis" / "notebooks").glob("*.md"))

    def ipynb(self, name: str) -> Path:
        return self.stage / "notebooks" / f"{name}.ipynb"

    def deps_file(self, name: str) -> Path:
        return self.build / "deps" / f"{name}.d"

    def package(self) -> list[Path]:
        """Every module of the package (make's $(PKG))."""
        return sorted(p for p in (self.root / "analysis").rglob("*.py") if "__pycache__" not in p.parts)

    def _file_hash(self, path: Path) -> str | None:
        if path not in self._hashes:
            try:
                self._hashes[path] = hashlib.sha256(path.read_bytes()).hexdigest()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                self._hashes[path] = None
        return self._hashes[path]

    def digest(self, files: Iterable[Path]) -> str:
        """One hash of the names (relative to the checkout, as the .d files write them) and contents."""
        h = hashlib.sha256()
        for name, path in sorted({os.path.relpath(p, self.root): p for p in files}.items()):
            h.update(f"{name}\0{self._file_hash(path) or 'missing'}\n".encode())
        return h.hexdigest()


def recorded_deps(project: Project, name: str) -> list[Path] | None:
    """The prerequisites `_build/deps/<name>.d` lists for the notebook (None without that record)."""
    try:
        first = project.deps_file(name).read_text(encoding="utf-8").splitlines()[0]
    except (FileNotFoundError, IndexError):
        return None
    _, sep, rest = first.partition(":")
    return [project.root / f for f in rest.split()] if sep else None


def notebook_inputs(project: Project, name: str) -> list[Path] | None:
    deps = recorded_deps(project, name)
    if deps is None:
        return None
    fixed = [project.root / "analysis" / "notebooks" / f"{name}.md", project.root / RUNNER]
    return fixed + deps + [project.root / p for p in PINS] + project.seed_files()


def validated_inputs(project: Project) -> list[Path]:
    data = [p for p in sorted((project.root / "data").glob("*")) if p.is_file()]
    return [project.root / p for p in PINS] + data + project.package() + project.seed_files()


def bib_inputs(project: Project) -> list[Path]:
    return [project.root / p for p in PINS] + [project.root / "data" / "papers.csv"] + project.package()


def _up_to_date(target: Path, prerequisites: Iterable[Path]) -> bool:
    """make's test: the target exists and no prerequisite is missing or newer."""
    try:
        t = target.stat().st_mtime_ns
        return all(p.stat().st_mtime_ns <= t for p in prerequisites)
    except FileNotFoundError:
        return False


def cache_save(project: Project | None = None) -> str:
    """Record the digest of the inputs of every executed notebook that make holds up to date."""
    project = project or Project()
    notebooks: dict[str, str] = {}
    stale = []
    for name in project.notebooks():
        inputs = notebook_inputs(project, name)
        deps = recorded_deps(project, name) or []
        make_prereqs = [project.root / "analysis" / "notebooks" / f"{name}.md", project.root / RUNNER,
                        project.deps_file(name), *deps]
        if inputs is None or not _up_to_date(project.ipynb(name), make_prereqs):
            stale.append(name)
            continue
        notebooks[name] = project.digest(inputs)
    record: dict[str, object] = {"version": RECORD_VERSION, "notebooks": notebooks}
    if _up_to_date(project.validated, validated_inputs(project)):
        record["validated"] = project.digest(validated_inputs(project))
    # make book writes references.bib in its HTML step, right after this one, from these inputs
    record["references.bib"] = project.digest(bib_inputs(project))
    project.record.parent.mkdir(parents=True, exist_ok=True)
    tmp = project.record.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(project.record)
    where = os.path.relpath(project.record, project.root)
    msg = f"recorded the inputs of {len(notebooks)} executed notebook(s) in {where}"
    if stale:
        msg += f"; not recorded (not up to date, or never executed): {', '.join(stale)}"
    return msg


def _figure_ids(project: Project) -> dict[str, str]:
    """Figure id -> the notebook (name) that made it, from the registry entries figures/<id>.json."""
    owners = {}
    for entry in sorted((project.stage / "figures").glob("*.json")):
        try:
            notebook = json.loads(entry.read_text(encoding="utf-8")).get("notebook")
        except (ValueError, OSError, AttributeError):
            continue
        if isinstance(notebook, str):
            owners[entry.stem] = Path(notebook).stem
    return owners


def _owner(filename: str, ids: list[str]) -> str | None:
    """The figure id a file of the figure folders belongs to: <id>.<ext> (also in thumbs/, gallery/),
    <id>-talk.<ext>; the longest id that matches. None: no registry entry names it."""
    for i in ids:  # longest first
        if filename == i or filename.startswith((f"{i}.", f"{i}-talk.")):
            return i
    return None


def plan(project: Project) -> tuple[dict[str, object], list[str], dict[str, str]] | None:
    """(the record, the notebooks to restore, the notebooks make will re-run -> why); None without
    a record (or one of another format)."""
    try:
        record = json.loads(project.record.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("version") != RECORD_VERSION:
        return None
    saved = record.get("notebooks")
    saved = saved if isinstance(saved, dict) else {}
    restore: list[str] = []
    rerun: dict[str, str] = {}
    for name in project.notebooks():
        inputs = notebook_inputs(project, name)
        if name not in saved:
            rerun[name] = "no record"
        elif inputs is None or not project.ipynb(name).is_file():
            rerun[name] = "no cached output"
        elif project.digest(inputs) != saved[name]:
            rerun[name] = "inputs changed"
        else:
            restore.append(name)
    return record, restore, rerun


def cache_restore(project: Project | None = None) -> str:
    """After restoring _build from a cache: mark up to date the notebooks whose recorded inputs are
    this checkout's, with their outputs; make re-runs the others."""
    project = project or Project()
    planned = plan(project)
    if planned is None:
        where = os.path.relpath(project.record, project.root)
        return f"no record of a restored build ({where}): make will run every notebook"
    record, restore, rerun = planned
    files: list[Path] = []
    if restore:
        for name in restore:
            files += [project.deps_file(name), project.ipynb(name)]
        ids = sorted(_figure_ids(project).items(), key=lambda kv: -len(kv[0]))
        id_names = [i for i, _ in ids]
        owner = dict(ids)
        restored = set(restore)
        for folder in (project.stage / "figures", project.stage / "figure-src", project.stage / "outputs"):
            for p in sorted(folder.rglob("*")) if folder.is_dir() else []:
                if not p.is_file():
                    continue
                fig = _owner(p.name, id_names) if folder.name != "outputs" else None
                # a file no registry entry names (a table, a file of the staging) is touched whenever
                # any notebook is restored: if its notebook re-runs, it rewrites it afterwards
                if fig is None or owner[fig] in restored:
                    files.append(p)
    extra = []
    if record.get("validated") and project.validated.is_file() and \
            record["validated"] == project.digest(validated_inputs(project)):
        files.append(project.validated)
        extra.append("_build/validated")
    if record.get("references.bib") and project.bib.is_file() and \
            record["references.bib"] == project.digest(bib_inputs(project)):
        files.append(project.bib)
        extra.append("references.bib")
    now = time.time_ns()
    for p in files:
        os.utime(p, ns=(now, now))
    total = len(restore) + len(rerun)
    lines = [f"restored {len(restore)} of {total} notebook(s) (their recorded inputs are this checkout's)"
             + (f", and {' and '.join(extra)}" if extra else "") + f": {len(files)} files marked up to date"]
    if rerun:
        lines.append(f"make will re-run {len(rerun)}: " + ", ".join(f"{n} ({why})" for n, why in rerun.items()))
    else:
        lines.append("make will re-run no notebook")
    return "\n".join(lines)
