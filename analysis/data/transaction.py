"""Replacing several files all or none: `make accept` changes data/papers.csv, data/claims.csv and its review
files together (issue 38), whatever stops it half-way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from analysis.data.paths import DataError

JOURNAL = ".accept-journal.json"
"""In data/ while `make accept` replaces its files: the backups to put back if it stops half-way."""


def commit_all_or_none(pairs: list[tuple[Path, Path]], journal: Path) -> None:
    """Replace each target of `pairs` (staged file, target) by its staged file: all of them or none.

    Each new file is first copied beside its target (a rename within one folder is atomic) and each target
    backed up; a journal naming the backups is written before the first rename and removed after the last.
    Any exception on the way (Ctrl-C, a full disk) puts every backup back before it propagates; a process
    killed outright leaves the journal, and :func:`recover` (run by the next `make accept`) puts them back.
    """
    moves = []
    try:
        for new, target in pairs:
            side = target.with_name(f".{target.name}.accept")
            backup = target.with_name(f".{target.name}.before-accept")
            shutil.copyfile(new, side)
            if target.exists():
                shutil.copy2(target, backup)
            moves.append({"side": str(side), "target": str(target),
                          "backup": str(backup) if target.exists() else ""})
        tmp = journal.with_name(journal.name + ".tmp")
        tmp.write_text(json.dumps(moves), encoding="utf-8")
        tmp.replace(journal)
        for m in moves:
            Path(m["side"]).replace(m["target"])
    except BaseException:
        _restore(moves)
        journal.unlink(missing_ok=True)
        raise
    journal.unlink()
    for m in moves:
        if m["backup"]:
            Path(m["backup"]).unlink(missing_ok=True)


def _restore(moves: list[dict[str, str]]) -> None:
    for m in moves:
        if m["backup"] and Path(m["backup"]).exists():
            Path(m["backup"]).replace(m["target"])
        elif not m["backup"]:
            Path(m["target"]).unlink(missing_ok=True)
        Path(m["side"]).unlink(missing_ok=True)


def recover(data_dir: Path) -> str:
    """Undo a `make accept` that was killed half-way (its journal is still in `data_dir`); '' if none was."""
    journal = data_dir / JOURNAL
    if not journal.exists():
        return ""
    try:
        moves = json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{journal}: unreadable journal of an interrupted make accept ({exc}); restore "
                        "data/ from git (git checkout data/) and remove the journal") from None
    _restore(moves)
    journal.unlink()
    return (f"an earlier make accept had stopped half-way: {len(moves)} file(s) put back as they were "
            "before it")
