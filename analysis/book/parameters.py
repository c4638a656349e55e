"""A notebook's parameters: their declaration language, and the checks of a run's overrides.

Parameters live in the notebook's cell tagged ``parameters``, one per line::

    gpu_hour_usd: float = 2.0  # USD/GPU-hour | 0.. | assumptions.yml gpu_hour_usd_h100

The comment after ``#`` holds ``unit | range | source``; the range is ``a..b``,
``a..`` or ``..b`` (inclusive) or ``>a`` / ``<b`` (strict). (No ``=`` in the comment:
papermill's parameter parser would stumble on it.) Overrides are checked against these declarations: an
unknown name, a value of the wrong type or a value out of range is refused before
anything runs.
"""

from __future__ import annotations

import ast
import copy
import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.data.paths import ROOT
from analysis.data.text import FORBIDDEN

NOTEBOOKS = ROOT / "analysis" / "notebooks"


class ParameterError(ValueError):
    """A parameter override is unknown, of the wrong type or out of range."""


MAX_VALUE_CHARS = 500  # longest accepted parameter value, as typed
MAX_NUMBER_CHARS = 40  # longest accepted number, as typed (a 5,000-digit integer is refused as too long)
# characters no parameter value may hold, whatever its declaration: quotes and backslashes (papermill
# writes string parameters into the notebook as Python source), control and invisible or
# direction-changing characters (the same set a data file may not hold, analysis.data.tables)
_FORBIDDEN = re.compile(f'["\\\\]|{FORBIDDEN.pattern}')


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # "int", "float", "str", "bool"
    default: Any
    unit: str = ""
    range: str = ""  # numbers: a..b, a.., ..b, >a, <b; strings: {a,b,c} (choices) or /regex/ (full match)
    source: str = ""

    def check(self, value: Any) -> Any:
        """Return `value` coerced to this parameter's type, or raise ParameterError."""
        v = _coerce(self, value)
        if self.type in ("int", "float"):
            if self.range and not _in_range(v, self.range):
                raise ParameterError(f"parameter {self.name}={v!r} is out of range: accepts {self.range} ({self.unit})")
        elif self.type == "str":
            _check_text(self, v)
        return v


_TYPES = {"int": int, "float": float, "str": str, "bool": bool}
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _coerce(p: Param, value: Any) -> Any:
    accepts = f"accepts a {p.type}" + (f" in {p.unit}" if p.unit else "")
    if isinstance(value, str):
        if len(value) > (MAX_VALUE_CHARS if p.type == "str" else MAX_NUMBER_CHARS):
            limit = MAX_VALUE_CHARS if p.type == "str" else MAX_NUMBER_CHARS
            raise ParameterError(f"parameter {p.name}: the value is {len(value)} characters long; "
                                 f"at most {limit} are accepted")
        if p.type == "str":
            return value
        text = value.strip()
        if "=" in text:
            raise ParameterError(f"parameter {p.name}={value!r}: one '=' per NAME=VALUE pair ({accepts})")
        if p.type == "bool":
            if text.lower() not in ("true", "false"):
                raise ParameterError(f"parameter {p.name}={value!r} has the wrong type: {accepts} (true or false)")
            return text.lower() == "true"
        if p.type == "int":
            if not _INT.fullmatch(text):
                raise ParameterError(f"parameter {p.name}={value!r} has the wrong type: {accepts}")
            return int(text)
        if not _FLOAT.fullmatch(text):  # refuses inf, nan, hex and underscores
            raise ParameterError(f"parameter {p.name}={value!r} has the wrong type: {accepts} (a finite number)")
        value = float(text)
    if p.type == "float" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, _TYPES[p.type]) or (p.type != "bool" and isinstance(value, bool)):
        raise ParameterError(f"parameter {p.name}={value!r} has the wrong type: {accepts}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ParameterError(f"parameter {p.name}={value!r}: only finite numbers are accepted")
    if isinstance(value, int) and abs(value) >= 10 ** MAX_NUMBER_CHARS:
        raise ParameterError(f"parameter {p.name}: the value has more than {MAX_NUMBER_CHARS} digits")
    return value


def _check_text(p: Param, value: str) -> None:
    """A string parameter: no forbidden character, length limit, declared choices or pattern."""
    bad = _FORBIDDEN.search(value)
    if bad:
        raise ParameterError(f"parameter {p.name}: character U+{ord(bad.group()):04X} at position {bad.start() + 1} "
                             "is not accepted (no quotes, backslashes, control or invisible characters)")
    if len(value) > MAX_VALUE_CHARS:
        raise ParameterError(f"parameter {p.name}: at most {MAX_VALUE_CHARS} characters are accepted")
    spec = p.range.strip()
    if spec.startswith("{") and spec.endswith("}"):
        choices = [c.strip() for c in spec[1:-1].split(",")]
        if value not in choices:
            raise ParameterError(f"parameter {p.name}={value!r} is not one of the accepted values: "
                                 f"{', '.join(choices)}")
    elif len(spec) >= 2 and spec.startswith("/") and spec.endswith("/"):
        if not re.fullmatch(spec[1:-1], value):
            raise ParameterError(f"parameter {p.name}={value!r} does not match the accepted pattern {spec}")
    else:
        raise ParameterError(f"parameter {p.name}: a string parameter must declare its accepted values, "
                             "{a,b,c} or /pattern/, in the range field of its comment")


def _in_range(v: float, spec: str) -> bool:
    """`a..b`, `a..` or `..b` (inclusive), or `>a` / `<b` (strict)."""
    spec = spec.replace(" ", "")
    if ".." in spec:
        lo, hi = spec.split("..")
        return (lo == "" or float(lo) <= v) and (hi == "" or v <= float(hi))
    for op, fn in ((">=", lambda a, b: a >= b), ("<=", lambda a, b: a <= b), (">", lambda a, b: a > b),
                   ("<", lambda a, b: a < b)):
        if spec.startswith(op):
            return bool(fn(v, float(spec[len(op):])))
    raise ValueError(f"bad range spec {spec!r}")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_pairs(text: str) -> dict[str, str]:
    """`NAME=VALUE NAME=VALUE` (what `make run PARAMS=…` passes) as a dict of strings.

    The text is data: it is split by Python's shlex (quotes group a value with spaces), never
    by a shell. Each pair is split at its first '='; a name must be an identifier and may come
    once. The values are checked against the notebook's declarations by check_overrides.
    """
    import shlex

    if len(text) > 4 * MAX_VALUE_CHARS:
        raise ParameterError(f"PARAMS is {len(text)} characters long; at most {4 * MAX_VALUE_CHARS} are accepted")
    try:
        words = shlex.split(text, comments=False, posix=True)
    except ValueError as exc:
        raise ParameterError(f"PARAMS could not be read ({exc}); write NAME=VALUE pairs separated by spaces, "
                             "quoting a value that holds spaces") from None
    out: dict[str, str] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or not _NAME.fullmatch(name):
            raise ParameterError(f"PARAMS: {word!r} is not a NAME=VALUE pair")
        if name in out:
            raise ParameterError(f"PARAMS: parameter {name!r} is given twice")
        out[name] = value
    return out


def notebook_path(name: str) -> Path:
    """analysis/notebooks/<name>.md (a name, with or without .md; never another file), or raise listing them."""
    stem = name.removesuffix(".md")
    if len(stem) > 100 or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", stem):
        raise ParameterError(f"NB must name a notebook of analysis/notebooks (got {name[:60]!r})")
    p = NOTEBOOKS / f"{stem}.md"
    if not p.is_file():
        known = ", ".join(sorted(x.stem for x in NOTEBOOKS.glob("*.md")))
        raise ParameterError(f"no notebook {name!r}; known notebooks: {known}")
    return p


def _read(md: Path) -> Any:
    """The notebook `md` (a copy: callers may change it); read once per process and file version."""
    st = md.stat()
    return copy.deepcopy(_read_cached(md.resolve(), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=8)
def _read_cached(md: Path, mtime_ns: int, size: int) -> Any:
    import jupytext

    return jupytext.read(md, fmt="md:myst")


def parameters(md: Path) -> dict[str, Param]:
    """The declared parameters of a notebook, in order."""
    nb = _read(md)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"{md}: expected exactly one cell tagged 'parameters', found {len(cells)}")
    src = cells[0].source
    out: dict[str, Param] = {}
    for node in ast.parse(src).body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name) or node.value is None:
            raise ParameterError(
                f"{md}: parameters cell line {node.lineno}: write `name: type = value  # unit | range | source`"
            )
        ann = ast.unparse(node.annotation)
        if ann not in _TYPES:
            raise ParameterError(f"{md}: parameter {node.target.id}: type must be one of {sorted(_TYPES)}")
        line = src.splitlines()[node.lineno - 1]
        comment = line.split("#", 1)[1] if "#" in line else ""
        if "=" in comment:
            raise ParameterError(f"{md}: parameter {node.target.id}: no '=' in the comment "
                                 "(papermill cannot parse it); write ranges as a..b, a.. or ..b")
        parts = [x.strip() for x in comment.split("|")] + ["", "", ""]
        default = ast.literal_eval(node.value)
        p = Param(node.target.id, ann, default, parts[0], parts[1], parts[2])
        p.check(default)
        out[p.name] = p
    return out


def check_overrides(md: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    """Validate overrides against the declared parameters; return them coerced."""
    spec = parameters(md)
    clean = {}
    for name, value in overrides.items():
        if name not in spec:
            raise ParameterError(
                f"{md.name}: unknown parameter {name!r}; accepts: {', '.join(spec) or '(none)'}"
            )
        clean[name] = spec[name].check(value)
    return clean
