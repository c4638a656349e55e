"""Load the CSV and YAML files of data/ with schema validation.

Each CSV has a pandera schema in :mod:`analysis.data.schemas`. A file that fails raises
:class:`analysis.data.paths.DataError` whose message names the file, the row (the line
number in the file, header = line 1) and the column of every failure.
"""

from __future__ import annotations

import math
import re
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
    _check_finite(p, raw, df)
    return df


_NON_FINITE = re.compile(r"^\s*[+-]?(?:nan|inf|infinity)\s*$", re.I)


def _check_finite(path: Path, raw: pd.DataFrame, df: pd.DataFrame) -> None:
    """Refuse a number that is not finite in a numeric column: ``inf``, ``nan`` written out (which pandas would
    read as a missing value) or a literal too large for a float (``1e400``), naming file, row and column."""
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]) or pd.api.types.is_bool_dtype(df[col]):
            continue
        text = raw[col].fillna("").astype(str)
        bad = text.str.match(_NON_FINITE) | df[col].map(lambda v: isinstance(v, float) and math.isinf(v))
        fail_rows(path, raw, bad, col, "not a finite number")


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


def read_yaml(name: str, path: Path | None = None) -> Any:
    """Parse data/<name> (or `path`), refusing what :func:`_check_yaml_text` refuses, naming line and column."""
    if path is not None and not path.is_file():
        raise DataError(f"{path}: data file not found")
    p = path if path is not None else data_file(name)
    if path is not None:
        record_read(p)
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


MAX_EXPANDED_NODES = 1_000_000
"""A YAML document whose nodes, with every alias expanded, number more than this is refused (the book's largest
has a few thousand): an alias bomb expands exponentially when the document is constructed."""

_FLOAT_TAG = "tag:yaml.org,2002:float"


def _yaml_float_finite(text: str) -> bool:
    t = text.strip().lower().replace("_", "")
    if t.lstrip("+-") in (".inf", ".nan"):
        return False
    try:
        return math.isfinite(float(t))
    except ValueError:
        return True  # not a float literal after all: the loader decides


def _check_yaml_text(path: Path, node: Any) -> None:
    """Refuse, naming line and column: control and invisible characters in any scalar, a number that is not
    finite (``.inf``, ``.nan``, ``1e400``), a key given twice in one mapping (the last would silently win), and
    a document that would expand, aliases resolved, to more than :data:`MAX_EXPANDED_NODES` nodes. Each node is
    visited once, however often aliases name it."""
    _check_yaml_nodes(path, node)
    _check_yaml_size(path, node)


def _yaml_where(path: Path, n: Any) -> str:
    m = n.start_mark
    return f"{path}: line {m.line + 1}, column {m.column + 1}"


def _yaml_kids(n: Any) -> list[Any]:
    if isinstance(n, yaml.SequenceNode):
        return list(n.value)
    if isinstance(n, yaml.MappingNode):
        return [x for kv in n.value for x in kv]
    return []


def _check_yaml_nodes(path: Path, node: Any) -> None:
    """Each node once: the characters and numbers of its scalars, the keys of its mappings."""
    todo = [node]
    seen: set[int] = set()
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, yaml.ScalarNode):
            why = forbidden_char(str(n.value))
            if why:
                raise DataError(f"{_yaml_where(path, n)}: {why}")
            if n.tag == _FLOAT_TAG and not _yaml_float_finite(str(n.value)):
                raise DataError(f"{_yaml_where(path, n)}: not a finite number ({n.value!r})")
        elif isinstance(n, yaml.SequenceNode):
            todo.extend(n.value)
        elif isinstance(n, yaml.MappingNode):
            keys: dict[str, Any] = {}
            for k, v in n.value:
                if isinstance(k, yaml.ScalarNode):
                    if k.value in keys:
                        first = keys[k.value].start_mark.line + 1
                        raise DataError(f"{_yaml_where(path, k)}: key {k.value!r} given twice (first at line {first})")
                    keys[k.value] = k
                todo.extend([k, v])


def _check_yaml_size(path: Path, node: Any) -> None:
    """The size of each node with aliases expanded, children before parents (post-order, each node once)."""
    size: dict[int, int] = {}
    open_: set[int] = set()  # entered, not yet sized: a child among them is a node that contains itself
    stack: list[tuple[Any, bool]] = [(node, False)] if node is not None else []
    while stack:
        n, ready = stack.pop()
        if id(n) in size:
            continue
        if not ready:
            if id(n) in open_:
                raise DataError(f"{_yaml_where(path, n)}: a node that contains itself through an alias (refused)")
            open_.add(id(n))
            stack.append((n, True))
            stack.extend((k, False) for k in _yaml_kids(n) if id(k) not in size)
            continue
        open_.discard(id(n))
        size[id(n)] = 1 + sum(size[id(k)] for k in _yaml_kids(n))
        if size[id(n)] > MAX_EXPANDED_NODES:
            raise DataError(f"{_yaml_where(path, n)}: expands to more than {MAX_EXPANDED_NODES:,} nodes through "
                            "aliases (refused: an alias bomb)")
