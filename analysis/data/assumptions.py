"""Named defaults for the cost models (prices, PUE, grid carbon intensity, ...), from data/assumptions.yml.

Each entry has a value, a unit, an optional low/high range, a source and an as-of date.
Notebooks take these as the defaults of their papermill parameters, so a reader can
override any of them.
"""

from __future__ import annotations

import datetime as dt
import math
from functools import lru_cache
from typing import Any

import pandas as pd

from analysis.data.paths import DATA, DataError
from analysis.data.tables import read_yaml

REQUIRED = ("value", "unit", "source", "as_of")


def _checked_number(path: str, name: str, key: str, v: Any, nullable: bool) -> float | None:
    """Field `key` of entry `name` as a finite non-negative float (None if empty and `nullable`), else DataError."""
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DataError(f"{path}: entry {name}, field {key}: expected a number, got {v!r}")
    if not math.isfinite(float(v)):
        raise DataError(f"{path}: entry {name}, field {key}: not a finite number ({v!r})")
    if v < 0:
        raise DataError(f"{path}: entry {name}, field {key}: negative ({v!r}); every assumption is a size, "
                        "a price, a rate or a ratio")
    return float(v)


def _check_range(path: str, name: str, unit: str, values: list[float | None]) -> None:
    """A fraction lies in [0, 1]; a power usage effectiveness (a facility's energy over its IT energy) is >= 1."""
    for v in values:
        if v is None:
            continue
        if unit == "fraction" and v > 1:
            raise DataError(f"{path}: entry {name}: a fraction above 1 ({v!r})")
        if name.startswith("pue") or name.endswith("_pue"):
            if v < 1:
                raise DataError(f"{path}: entry {name}: a PUE below 1 ({v!r}) is impossible")


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
        value = _checked_number(path, name, "value", e["value"], False)
        low = _checked_number(path, name, "low", e.get("low"), True)
        high = _checked_number(path, name, "high", e.get("high"), True)
        _check_range(path, name, str(e["unit"]), [value, low, high])
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


# --- the rule for central prices -------------------------------------------------------------------

PRICE_RULE = ("the median of the listed providers' most recent on-demand prices (one per provider, the "
              "price_<accelerator>_usd_per_<gpu|chip>_hour_<provider>_<year> entries, from Epoch AI's "
              "Hardware_prices.csv); low and high are their minimum and maximum")
"""How every accelerator's default hourly price is chosen (issue 31: one rule for every accelerator;
the earlier rule, AWS before Azure before Google Cloud, put datacentre GPUs at the top of their range
and consumer GPUs, which those clouds do not rent, at the bottom)."""


def _price_sources(df: pd.DataFrame) -> dict[str, list[str]]:
    """Default price entry -> the provider entries it is the median of."""
    import re

    out: dict[str, list[str]] = {}
    for name in df.index:
        m = re.fullmatch(r"price_(.+)_usd_per_(gpu|chip)_hour_[a-z0-9]+_\d{4}", str(name))
        if m:
            out.setdefault(f"{m.group(2)}_hour_usd_{m.group(1)}", []).append(str(name))
    return out


def price_sources(default_name: str) -> list[str]:
    """The provider entries whose median is the default price `default_name` (e.g. gpu_hour_usd_h100)."""
    return sorted(_price_sources(_load()).get(default_name, []))


def central_price(values: list[float]) -> tuple[float, float | None, float | None]:
    """(central, low, high) of a list of providers' prices by :data:`PRICE_RULE` (no range for one provider)."""
    import statistics

    if not values:
        raise ValueError("no prices")
    central = round(statistics.median(values), 4)
    return (central, None, None) if len(values) == 1 else (central, min(values), max(values))


def check_price_rule() -> None:
    """Every default price follows :data:`PRICE_RULE`; DataError naming the entry and field otherwise."""
    df = _load()
    path = str(DATA / "assumptions.yml")
    for default, sources in sorted(_price_sources(df).items()):
        if default not in df.index:
            continue  # a provider price with no default entry (not used by the chain)
        central, low, high = central_price([get(s) for s in sources])
        row = entry(default)
        for field, want in (("value", central), ("low", low), ("high", high)):
            raw: Any = row[field]
            got = None if raw is None or (isinstance(raw, float) and pd.isna(raw)) else float(raw)
            if (want is None) != (got is None) or (want is not None and got is not None and abs(want - got) > 1e-9):
                raise DataError(f"{path}: entry {default}, field {field}: {got} does not follow the price rule "
                                f"({PRICE_RULE}): {want} from {', '.join(sorted(sources))}")
