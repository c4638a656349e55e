"""Validate every file in data/ (schemas and cross-file references)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from analysis.paths import DATA, DataError


def _hardware() -> str:
    from analysis import hardware

    return f"{len(hardware.load())} accelerators"


def _themes() -> str:
    from analysis import papers

    return f"{len(papers.themes())} themes"


def _papers() -> str:
    from analysis import papers

    return f"{len(papers.load())} papers"


def _assumptions() -> str:
    from analysis import assumptions

    return f"{len(assumptions.load())} assumptions"


def _claims() -> str:
    from analysis import claims

    return f"{len(claims.load())} claims; {claims.check_evidence()}"


CHECKS: dict[str, Callable[[], str]] = {
    "themes.yml": _themes,
    "hardware.csv": _hardware,
    "assumptions.yml": _assumptions,
    "papers.csv": _papers,
    "claims.csv": _claims,
}


def validate_all() -> Iterator[str]:
    """Validate each known data file that exists; raise DataError on the first bad one."""
    for name, check in CHECKS.items():
        if not (DATA / name).exists():
            raise DataError(f"{DATA / name}: required data file is missing")
        yield f"ok  data/{name}: {check()}"
