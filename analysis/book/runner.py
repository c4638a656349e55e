"""Execute an analysis notebook (jupytext MyST markdown) with papermill.

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
import functools
import json
import math
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.book import kernels
from analysis.data.paths import ROOT
from analysis.data.text import FORBIDDEN

NOTEBOOKS = ROOT / "analysis" / "notebooks"


class ParameterError(ValueError):
    """A parameter override is unknown, of the wrong type or out of range."""


class NotebookError(RuntimeError):
    """A notebook raised; the message names the notebook and the cell."""


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
    import copy

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


def _failed_cell(executed: Any, exec_count: int | None) -> tuple[int, str]:
    """(1-based number among the source's code cells, first line) of the cell that ran as `exec_count`."""
    code = [c for c in executed.cells if c.get("cell_type") == "code"
            and "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    for i, cell in enumerate(code, 1):
        if exec_count is not None and cell.get("execution_count") == exec_count:
            lines = cell.source.strip().splitlines()
            return i, (lines[0][:80] if lines else "")
    return 0, ""


CELL_TIMEOUT_S = 600  # default per-cell limit; $ANALYSIS_CELL_TIMEOUT overrides it (seconds)


def cell_timeout_s() -> int:
    """The per-cell time limit in seconds ($ANALYSIS_CELL_TIMEOUT, a positive integer)."""
    text = os.environ.get("ANALYSIS_CELL_TIMEOUT", "").strip()
    if not text:
        return CELL_TIMEOUT_S
    if not text.isdigit() or not 0 < int(text) <= 86400:
        raise ParameterError(f"ANALYSIS_CELL_TIMEOUT={text!r}: expected whole seconds between 1 and 86400")
    return int(text)


def execute(
    md: Path,
    out_ipynb: Path,
    overrides: dict[str, Any] | None = None,
    *,
    figures: Path | None = None,
    outputs: Path | None = None,
    deps: Path | None = None,
) -> Path:
    """Execute `md` with papermill into `out_ipynb` (written only on success).

    papermill's own engine runs the notebook in a kernel started by jupyter_client's standard
    kernel manager. Figures and tables go to `figures`/`outputs`; the data files the kernel
    read are written as a make rule to `deps`. Raises NotebookError naming the notebook and
    the cell when a cell raises, exceeds the cell time limit or kills its kernel. The
    temporary folder is removed however the run ends (interrupts included).
    """
    import nbformat
    import papermill
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    started_at = time.time()  # the outputs are stamped with this: an input edited during the run is newer
    md = md.resolve()
    params = check_overrides(md, overrides or {})
    timeout = cell_timeout_s()
    nb = _read(md)
    out_ipynb = out_ipynb.resolve()
    out_ipynb.parent.mkdir(parents=True, exist_ok=True)
    rel = md.relative_to(ROOT) if md.is_relative_to(ROOT) else md
    with tempfile.TemporaryDirectory(prefix="nbrun-") as tmp:
        src = Path(tmp) / "in.ipynb"
        dst = Path(tmp) / "out.ipynb"
        reads = Path(tmp) / "reads.txt"
        reads.touch()
        nbformat.write(nb, src)
        env = {
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "MPLBACKEND": "Agg",
            "SOURCE_DATE_EPOCH": "0",
            "PYTHONHASHSEED": "0",
            "PYTHONPATH": str(ROOT),
            "ANALYSIS_READS_FILE": str(reads),
            "ANALYSIS_NOTEBOOK": str(rel),
            "ANALYSIS_NOTEBOOK_DIR": str(out_ipynb.parent),
            "ANALYSIS_PARAMETERS": json.dumps(params, sort_keys=True),
        }
        if figures:
            env["ANALYSIS_FIGURES_DIR"] = str(figures.resolve())
        if outputs:
            env["ANALYSIS_OUTPUTS_DIR"] = str(outputs.resolve())
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        started: list[Any] = []  # the cells in the order they started (nbclient's hook)
        managers: list[Any] = []  # the kernel manager, once papermill has made it
        try:
            kernels.start_retried(lambda: papermill.execute_notebook(
                str(src), str(dst), parameters=params, cwd=str(md.parent), progress_bar=False,
                log_output=False, execution_timeout=timeout, kernel_name="python3",
                # quiet kernel log: ipykernel warns on every start that TCP on localhost is unencrypted and
                # reports the interrupt jupyter_client sends before shutting it down (errors in cells
                # reach the notebook and this runner, not the log)
                extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
                kernel_manager_class=kernels.kernel_manager(tmp, managers),
                # write the output once at the end, not after every cell (large image outputs)
                request_save_on_cell_execute=False,
                on_cell_start=lambda cell, cell_index: started.append(cell),
                # every cell has run and its outputs are in the notebook: stop the kernel at once instead of
                # asking it to shut down and polling until it has (0.4-2.6 s a notebook, measured)
                shutdown_kernel="immediate",
            ), managers, started, str(rel))
        except PapermillExecutionError as exc:
            executed = nbformat.read(dst, as_version=4) if dst.exists() else nb
            number, first = _failed_cell(executed, exc.exec_count)
            raise NotebookError(
                f"notebook {rel} failed in code cell {number} (starting {first!r}): {exc.ename}: {exc.evalue}"
            ) from None
        except CellTimeoutError:
            number, first = _running_cell(started)
            raise NotebookError(
                f"notebook {rel} failed in code cell {number} (starting {first!r}): the cell ran longer "
                f"than the cell time limit of {timeout} s (ANALYSIS_CELL_TIMEOUT)"
            ) from None
        except DeadKernelError:
            number, first = _running_cell(started)
            raise NotebookError(
                f"notebook {rel} failed in code cell {number} (starting {first!r}): the kernel died "
                "while the cell ran"
            ) from None
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        _scrub(dst)
        if deps:  # the data files it read and the package modules it imports, as a make rule
            files = sorted({line.strip() for line in reads.read_text().splitlines() if line.strip()}
                           | {str(m) for m in package_modules(nb)})
            deps.parent.mkdir(parents=True, exist_ok=True)
            tmpdeps = deps.with_suffix(".tmp")
            rels = [os.path.relpath(f, ROOT) for f in files]
            target = os.path.relpath(out_ipynb, ROOT)
            tmpdeps.write_text(f"{target}: {' '.join(rels)}\n" + "".join(f"{r}:\n" for r in rels))
            tmpdeps.replace(deps)
            os.utime(deps, (started_at, started_at))
        shutil.move(str(dst), str(out_ipynb))
        # stamped, as its record is, with the start: an input edited during the run is newer, and runs it again
        os.utime(out_ipynb, (started_at, started_at))
    return out_ipynb


def run_into(md: Path, out: Path, overrides: dict[str, Any], next_free: bool = False) -> Path:
    """`make run`: execute `md` with `overrides` into the folder `out`, which appears only when the run
    succeeded; return it. The run writes to a hidden sibling of its own (mkdtemp: two runs never share one),
    then claims `out` with one rename; with `next_free`, a name another run took first becomes out-2, out-3."""
    if out.exists() and not next_free:
        raise ParameterError(f"{out} exists already")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        execute(md, partial / f"{md.stem}.ipynb", overrides, figures=partial / "figures",
                outputs=partial / "outputs")
        if (partial / "figures").is_dir():  # a run's figures come with their PDFs
            from analysis.book import figure_files

            figure_files.render("book", partial / "figures", partial / "talk-figures", url="")
        for n in range(1, 100 if next_free else 2):
            target = out if n == 1 else out.with_name(f"{out.name}-{n}")
            try:
                partial.rename(target)  # atomic; refused when another run holds the name
                return target
            except OSError:
                if not target.exists():
                    raise
        raise ParameterError(f"{out} exists already")
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _running_cell(started: list[Any]) -> tuple[int, str]:
    """(1-based number among the source's code cells, first line) of the last cell started."""
    code = [c for c in started if c.get("cell_type") == "code"
            and "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    if not code:
        return 0, ""
    cell = code[-1]
    lines = cell.source.strip().splitlines()
    return len(code), (lines[0][:80] if lines else "")


def package_modules(nb: Any) -> list[Path]:
    """The files of the `analysis` package that a notebook's code imports, directly or through
    other modules, plus those that run every notebook (the package's __init__, the data paths that
    record what it reads, this runner): a change to any other module (the HTML build, another
    chapter's module) does not re-execute the notebook."""
    from analysis.book.imports import closure, imports, module_file

    names: set[str] = {"analysis", "analysis.book.runner", "analysis.data.paths"}
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            names |= imports(cell.source)
    return sorted(p for p in map(module_file, closure(names)) if p)


def _scrub(path: Path) -> None:
    """Drop run times and timestamps from an executed notebook so builds are reproducible."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.get("metadata", {}).pop("papermill", None)
    for number, cell in enumerate(data.get("cells", [])):
        cell["id"] = f"cell-{number}"  # jupytext and papermill give random ids
        meta = cell.get("metadata", {})
        meta.pop("papermill", None)
        meta.pop("execution", None)
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    text = re.sub(r'"(start_time|end_time)": "[^"]*"', r'"\1": null', text)
    path.write_text(text, encoding="utf-8")
