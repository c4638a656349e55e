"""Named defaults for the cost models (prices, PUE, grid carbon intensity, ...), from data/assumptions.yml.

Each entry has a value, a unit, an optional low/high range, a source and an as-of date.
Notebooks take these as the defaults of their papermill parameters, so a reader can
override any of them.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any

import pandas as pd

from analysis.data.paths import DATA, DataError
from analysis.data.tables import read_yaml

REQUIRED = ("value", "unit", "source", "as_of")


def _num(path: str, name: str, key: str, v: Any, nullable: bool) -> float | None:
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DataError(f"{path}: entry {name}, field {key}: expected a number, got {v!r}")
    return float(v)


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    path = str(DATA / "assumptions.yml")
    raw = read_yaml("assumptions.yml")
    if not isinstance(raw, dict) or not raw:
        raise DataError(f"{path}: expected a mapping of named assumptions")
    rows = []
    for name, e in raw.items():
        if not isinstance(e, dict):
            raise DataError(f"{path}: entry {name}: expected a mapping with {', '.join(REQUIRED)}")
        for key in REQUIRED:
            if e.get(key) in (None, ""):
                raise DataError(f"{path}: entry {name}, field {key}: missing")
        value = _num(path, name, "value", e["value"], False)
        low = _num(path, name, "low", e.get("low"), True)
        high = _num(path, name, "high", e.get("high"), True)
        if low is not None and high is not None and not low <= high:
            raise DataError(f"{path}: entry {name}, field low/high: low {low} exceeds high {high}")
        as_of = e["as_of"]
        if isinstance(as_of, (dt.date, dt.datetime)):
            as_of = as_of.isoformat()
        rows.append({"name": name, "value": value, "unit": str(e["unit"]), "low": low, "high": high,
                     "source": str(e["source"]), "source_url": str(e.get("source_url") or ""),
                     "as_of": str(as_of), "note": str(e.get("note") or "")})
    return pd.DataFrame(rows).set_index("name", drop=False)


def load() -> pd.DataFrame:
    """All assumptions as a table indexed by name (a copy)."""
    return _load().copy()


def get(name: str) -> float:
    """The default value of a named assumption."""
    df = _load()
    if name not in df.index:
        raise KeyError(f"unknown assumption {name!r}; see data/assumptions.yml")
    return float(df.loc[name, "value"])  # type: ignore[arg-type]


def entry(name: str) -> dict[str, Any]:
    df = _load()
    if name not in df.index:
        raise KeyError(f"unknown assumption {name!r}; see data/assumptions.yml")
    return dict(df.loc[name])
