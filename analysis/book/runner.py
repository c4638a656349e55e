"""Execute an analysis notebook (jupytext MyST markdown) with papermill: into the book's build folder
(:func:`execute`, ``make book``) or a run folder of its own (:func:`run_into`, ``make run``).

The parameters' declarations and the checks of overrides are :mod:`analysis.book.parameters`; the
kernel start is :mod:`analysis.book.kernels`; the make rule of what a notebook read and imports is
:mod:`analysis.book.records`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from analysis.book import kernels, records
from analysis.book.parameters import (  # noqa: F401  (the runner's interface: the command line and tests)
    NOTEBOOKS,
    Param,
    ParameterError,
    _read,
    check_overrides,
    notebook_path,
    parameters,
    parse_pairs,
)
from analysis.book.records import package_modules  # noqa: F401
from analysis.data.paths import ROOT


class NotebookError(RuntimeError):
    """A notebook raised; the message names the notebook and the cell."""


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

    started_at = time.time()  # the outputs are stamped with this: an input edited during the run is newer
    md = md.resolve()
    params = check_overrides(md, overrides or {})
    timeout = cell_timeout_s()
    nb = _read(md)
    out_ipynb = out_ipynb.resolve()
    out_ipynb.parent.mkdir(parents=True, exist_ok=True)
    rel = md.relative_to(ROOT) if md.is_relative_to(ROOT) else md
    with tempfile.TemporaryDirectory(prefix="nbrun-") as tmp:
        src, dst, reads = Path(tmp) / "in.ipynb", Path(tmp) / "out.ipynb", Path(tmp) / "reads.txt"
        reads.touch()
        nbformat.write(nb, src)
        with _environment(_kernel_env(rel, out_ipynb, params, reads, figures, outputs)):
            _papermill(src, dst, md, params, timeout, tmp, str(rel), nb)
        _scrub(dst)
        if deps:  # the data files it read and the package modules it imports, as a make rule
            records.write(deps, out_ipynb, reads, nb, started_at)
        shutil.move(str(dst), str(out_ipynb))
        # stamped, as its record is, with the start: an input edited during the run is newer, and runs it again
        os.utime(out_ipynb, (started_at, started_at))
    return out_ipynb


def _kernel_env(rel: Path, out_ipynb: Path, params: dict[str, Any], reads: Path, figures: Path | None,
                outputs: Path | None) -> dict[str, str]:
    """The environment the notebook's kernel runs in: one thread, no display, reproducible files, and where the
    notebook records what it reads and writes its figures and tables."""
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
    return env


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """`env` set in this process (the kernel inherits it) while the block runs, the old values back after."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _papermill(src: Path, dst: Path, md: Path, params: dict[str, Any], timeout: int, tmp: str, rel: str,
               nb: Any) -> None:
    """Run the notebook `src` into `dst` with papermill; a failure becomes a NotebookError naming the cell."""
    import nbformat
    import papermill
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from papermill.exceptions import PapermillExecutionError

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
        ), managers, started, rel)
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
