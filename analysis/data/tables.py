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

from analysis.data.paths import DataError, data_file, record_read
from analysis.data.text import FORBIDDEN, forbidden_char  # noqa: F401  (FORBIDDEN re-exported)

MAX_REPORTED = 20


def _check_text(path: Path, raw: pd.DataFrame) -> None:
    lines = []
    for col in raw.columns:
        if forbidden_char(str(col)):
            lines.append(f"{path}: header, column {col!r}: {forbidden_char(str(col))}")
        for i, value in enumerate(raw[col].tolist()):
            if isinstance(value, str) and forbidden_char(value):
                lines.append(f"{path}: row {i + 2}, column {col}: {forbidden_char(value)}")
    if lines:
        raise DataError("\n".join(lines[:MAX_REPORTED]))


def _format_failures(path: Path, exc: pandera.errors.SchemaErrors) -> str:
    lines = []
    fc = exc.failure_cases
    records = fc.to_dict("records")
    # a value that cannot be coerced fails several checks; report the cell once, and not again
    # as a column-wide ("header") failure of the checks that could not run on it
    with_rows = {r.get("column") for r in records if not (r.get("index") is None or pd.isna(r.get("index")))}
    seen: set[tuple[object, object]] = set()
    kept = []
    for rec in records:
        idx = rec.get("index")
        header = idx is None or pd.isna(idx)
        if header and rec.get("column") in with_rows:
            continue
        key = (rec.get("column"), None if header else int(idx))
        if not header and key in seen:
            continue
        seen.add(key)
        kept.append(rec)
    for rec in kept[:MAX_REPORTED]:
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
    more = len(kept) - MAX_REPORTED
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
    except pd.errors.EmptyDataError:
        raise DataError(f"{p}: the file is empty: expected a header row and data rows") from None
    except pd.errors.ParserError as exc:
        raise DataError(f"{p}: malformed CSV: {exc}") from exc
    _check_text(p, raw)
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


_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(name: str) -> Any:
    p = data_file(name)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{p}: not valid UTF-8 ({exc.reason})") from exc
    if not text.strip():
        raise DataError(f"{p}: the file is empty")
    # one parse with libyaml's safe loader (the pure-Python loader twice took 0.28 s for assumptions.yml, in
    # every notebook): the node tree is checked for forbidden characters, then constructed
    loader = _SafeLoader(text)
    try:
        node = loader.get_single_node()
        _check_yaml_text(p, node)
        return None if node is None else loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        pos = getattr(exc, "position", None)  # a reader error (a character YAML refuses) has only an offset
        if mark:
            where = f"line {mark.line + 1}, column {mark.column + 1}"
        elif isinstance(pos, int):
            before = text[:pos]
            where = f"line {before.count(chr(10)) + 1}, column {pos - before.rfind(chr(10))}"
        else:
            where = "unknown position"
        raise DataError(f"{p}: {where}: malformed YAML: {exc}") from None
    finally:
        loader.dispose()


def _check_yaml_text(path: Path, node: Any) -> None:
    """Refuse control and invisible characters in any YAML scalar, naming its line and column."""
    todo = [node]
    while todo:
        n = todo.pop()
        if n is None:
            continue
        if isinstance(n, yaml.ScalarNode):
            why = forbidden_char(str(n.value))
            if why:
                m = n.start_mark
                raise DataError(f"{path}: line {m.line + 1}, column {m.column + 1}: {why}")
        elif isinstance(n, yaml.SequenceNode):
            todo.extend(n.value)
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                todo.extend([k, v])
