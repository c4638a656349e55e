"""Load the CSV and YAML files of data/ with schema validation.

Each CSV has a pandera schema in :mod:`analysis.schemas`. A file that fails raises
:class:`analysis.paths.DataError` whose message names the file, the row (the line
number in the file, header = line 1) and the column of every failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pandera.errors
import yaml

from analysis.paths import DataError, data_file, record_read

MAX_REPORTED = 20


def _format_failures(path: Path, exc: pandera.errors.SchemaErrors) -> str:
    lines = []
    fc = exc.failure_cases
    for rec in fc.head(MAX_REPORTED).to_dict("records"):
        col = rec.get("column")
        idx = rec.get("index")
        check = rec.get("check")
        case = rec.get("failure_case")
        if idx is None or pd.isna(idx):
            where = "header"
            if check == "column_in_dataframe":
                lines.append(f"{path}: {where}, column {case}: required column is missing")
                continue
            if check == "column_in_schema":
                lines.append(f"{path}: {where}, column {case}: unexpected column")
                continue
            lines.append(f"{path}: {where}, column {col}: failed {check} ({case!r})")
        else:
            lines.append(f"{path}: row {int(idx) + 2}, column {col}: failed {check} (value {case!r})")
    more = len(fc) - MAX_REPORTED
    if more > 0:
        lines.append(f"... and {more} more failure(s)")
    return "\n".join(lines)


def read_csv(name: str, schema: Any, path: Path | None = None) -> pd.DataFrame:
    """Read data/<name> (or `path`) as strings, then coerce and validate it with `schema`."""
    p = path if path is not None else data_file(name)
    if path is not None:
        record_read(p)
    try:
        raw = pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""], encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{p}: not valid UTF-8 ({exc.reason})") from exc
    except pd.errors.ParserError as exc:
        raise DataError(f"{p}: malformed CSV: {exc}") from exc
    try:
        df = schema.validate(raw, lazy=True)
    except pandera.errors.SchemaErrors as exc:
        raise DataError(_format_failures(p, exc)) from None
    return df


def fail_rows(path: Path, df: pd.DataFrame, mask: pd.Series, column: str, reason: str) -> None:
    """Raise DataError listing rows of `df` where `mask` is true."""
    bad = df.index[mask.to_numpy()]
    if len(bad):
        msgs = [
            f"{path}: row {int(i) + 2}, column {column}: {reason} (value {df.at[i, column]!r})"
            for i in bad[:MAX_REPORTED]
        ]
        raise DataError("\n".join(msgs))


def read_yaml(name: str) -> Any:
    p = data_file(name)
    try:
        return yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        raise DataError(f"{p}: {where}: malformed YAML: {exc}") from None
