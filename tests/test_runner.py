"""Notebook parameters and the papermill runner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import NB_FRONT_MATTER, PY, ROOT, make

from analysis.book import runner

NB = NB_FRONT_MATTER + """
# Test notebook

```{code-cell} ipython3
:tags: [parameters]

price_usd: float = 2.0  # USD/GPU-hour | 0.. | test
pue: float = 1.1  # ratio | 1..3 | test
region: str = "world"  # region | /[a-z ]+/ | test
n: int = 3  # count | >0 | test
```

```{code-cell} ipython3
total = price_usd * n
```

```{code-cell} ipython3
raise ValueError("boom from cell three")
```
"""


@pytest.fixture
def nb(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.md"
    p.write_text(NB)
    return p


def test_parameters_are_parsed(nb: Path):
    ps = runner.parameters(nb)
    assert list(ps) == ["price_usd", "pue", "region", "n"]
    assert ps["price_usd"].type == "float" and ps["price_usd"].unit == "USD/GPU-hour"
    assert ps["pue"].range == "1..3"


def test_overrides_are_coerced(nb: Path):
    assert runner.check_overrides(nb, {"price_usd": "2.5", "n": "4"}) == {"price_usd": 2.5, "n": 4}


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        ({"prise_usd": 1}, "unknown parameter 'prise_usd'"),
        ({"n": "three"}, "wrong type"),
        ({"n": 2.5}, "wrong type"),
        ({"price_usd": -1}, "out of range"),
        ({"pue": 0.9}, "out of range"),
    ],
)
def test_bad_overrides_are_refused(nb: Path, overrides: dict, fragment: str):
    with pytest.raises(runner.ParameterError, match=fragment):
        runner.check_overrides(nb, overrides)


def test_failing_cell_is_named(nb: Path, tmp_path: Path):
    out = tmp_path / "out.ipynb"
    with pytest.raises(runner.NotebookError) as err:
        runner.execute(nb, out, figures=tmp_path / "f", outputs=tmp_path / "o")
    msg = str(err.value)
    assert "tiny.md" in msg and "failed in code cell 3" in msg and "boom from cell three" in msg
    assert "raise ValueError" in msg
    assert not out.exists(), "a failed notebook must not leave an output behind"


def test_cli_refuses_unknown_parameter_before_running():
    proc = subprocess.run([str(PY), "-m", "analysis", "run", "corpus-overview", "-p", "no_such", "1"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "unknown parameter 'no_such'" in proc.stderr
    assert "nothing" not in proc.stdout


def test_every_notebook_declares_valid_parameters():
    nbs = sorted((ROOT / "analysis" / "notebooks").glob("*.md"))
    assert nbs
    for md in nbs:
        runner.parameters(md)  # raises on a malformed parameters cell


def test_parameter_defaults_match_their_named_assumption():
    """A parameter whose source is `assumptions.yml NAME` must default to that entry's value."""
    from analysis.data import assumptions

    checked = 0
    for md in sorted((ROOT / "analysis" / "notebooks").glob("*.md")):
        for prm in runner.parameters(md).values():
            if prm.source.startswith("assumptions.yml "):
                name = prm.source.split()[1]
                assert prm.default == pytest.approx(assumptions.get(name)), f"{md.name}: {prm.name}"
                checked += 1
    assert checked >= 3


def test_parameter_defaults_match_their_named_claim():
    """A parameter whose source names a claim (`claims.csv ID`) must default to that claim's value."""
    import re

    from analysis.data import claims

    ledger = claims.load().set_index("claim_id")
    checked = 0
    for md in sorted((ROOT / "analysis" / "notebooks").glob("*.md")):
        for prm in runner.parameters(md).values():
            m = re.search(r"claims\.csv ([a-z0-9]+-\d+)", prm.source)
            if m:
                assert prm.default == pytest.approx(float(ledger.loc[m.group(1), "value"])), f"{md.name}: {prm.name}"
                checked += 1
    assert checked >= 3


def test_package_modules_follow_imports_transitively(tmp_path: Path):
    md = tmp_path / "imports.md"
    md.write_text(NB_FRONT_MATTER + """
```{code-cell} ipython3
%matplotlib inline
from analysis.plot import figures
```

```{code-cell} ipython3
def later():
    import analysis.themes.serving as s

    return s
```
""")
    names = {p.relative_to(ROOT).as_posix() for p in runner.package_modules(runner._read(md))}
    # serving imports models (the package, hence its modules); figures imports paths; the runner
    # and the package's __init__ always count
    assert {"analysis/plot/figures.py", "analysis/themes/serving.py", "analysis/models/__init__.py",
            "analysis/models/roofline.py", "analysis/data/paths.py", "analysis/book/runner.py",
            "analysis/__init__.py", "analysis/themes/__init__.py"} <= names
    assert not names & {"analysis/book/build.py", "analysis/book/gallery.py", "analysis/themes/nas.py",
                        "analysis/themes/neural_graphics.py", "analysis/data/corpus.py"}, names


@pytest.mark.slow
@pytest.mark.e2e
def test_notebooks_rerun_only_for_modules_they_import(scratch: Path):
    def pending() -> set[str]:
        proc = make(scratch, "-n", "notebooks")
        assert proc.returncode == 0, proc.stderr
        return {Path(line.split()[4]).stem for line in proc.stdout.splitlines() if " -m analysis execute " in line}

    assert pending() == set(), "the book build left notebooks out of date"
    (scratch / "analysis" / "book" / "build.py").touch()
    assert pending() == set(), "the HTML build module is not an input of any notebook"
    (scratch / "analysis" / "themes" / "serving.py").touch()
    serving = pending()
    assert {"serving-cost-per-mtok", "serving-kv-concurrency"} <= serving
    assert "corpus-overview" not in serving and "nas-search-cost" not in serving
    (scratch / "_build" / "deps" / "corpus-overview.d").unlink()
    assert "corpus-overview" in pending(), "a notebook without its dependency record must run again"


# ---- parameters are data: `make run` never hands what a user typed to a shell or to Python ----

INJECTIONS = [
    "price_usd=1.2;touch pwned",
    "price_usd=`touch pwned`",
    "price_usd=$(touch pwned)",
    "price_usd=$$(touch pwned)",
    "price_usd=$(shell touch pwned)",
    "region=world$(shell touch pwned)",
    "region=world';touch pwned;'",
    'region=x"; import os; os.system("touch pwned") #',
    "region=\\",
]


@pytest.mark.e2e
@pytest.mark.parametrize("params", INJECTIONS)
def test_make_run_params_are_never_executed(scratch_sources: Path, params: str):
    scratch = scratch_sources
    nb_file = scratch / "analysis" / "notebooks" / "tiny.md"
    nb_file.write_text(NB)
    proc = make(scratch, "run", "NB=tiny", f"PARAMS={params}")
    assert proc.returncode != 0
    assert "error: " in proc.stderr and ("parameter" in proc.stderr or "PARAMS" in proc.stderr), proc.stderr[-1500:]
    assert not (scratch / "pwned").exists(), f"{params!r} ran a command"
    assert not (scratch / "runs").exists() or not any((scratch / "runs").iterdir())


@pytest.mark.parametrize("overrides, fragment", [
    ({"price_usd": "inf"}, "finite number"),
    ({"price_usd": "nan"}, "finite number"),
    ({"price_usd": "1e999"}, "only finite numbers"),
    ({"pue": "1.2=9"}, "one '=' per NAME=VALUE pair"),
    ({"n": "9" * 5000}, "at most 40 are accepted"),
    ({"n": "0x10"}, "wrong type"),
    ({"region": "europe"}, "is not one of the accepted values"),
    ({"region": "a" * 600}, "at most 500 are accepted"),
    ({"region": "wor\u202eld"}, r"U\+202E"),
])
def test_parameter_values_are_checked_before_running(tmp_path: Path, overrides: dict, fragment: str):
    md = tmp_path / "choices.md"
    md.write_text(NB.replace('region: str = "world"  # region | /[a-z ]+/ | test',
                             'region: str = "world"  # region | {world,us} | test'))
    with pytest.raises(runner.ParameterError, match=fragment):
        runner.check_overrides(md, overrides)


def test_string_parameter_without_declared_values_is_refused(tmp_path: Path):
    md = tmp_path / "undeclared.md"
    md.write_text(NB.replace("| /[a-z ]+/ | test", "| | test"))
    with pytest.raises(runner.ParameterError, match="must declare its accepted values"):
        runner.parameters(md)


@pytest.mark.parametrize("text, expected", [
    ("a=1 b=2", {"a": "1", "b": "2"}),
    ('region="north america"', {"region": "north america"}),
    ("pue=1.2=9", {"pue": "1.2=9"}),  # refused later, by the parameter's type
    ("", {}),
])
def test_params_text_is_split_by_python(text: str, expected: dict):
    assert runner.parse_pairs(text) == expected


@pytest.mark.parametrize("text, fragment", [
    ("a=1 a=2", "given twice"),
    ("justaword", "is not a NAME=VALUE pair"),
    ("1a=2", "is not a NAME=VALUE pair"),
    ('a="unclosed', "could not be read"),
])
def test_params_text_errors_are_clear(text: str, fragment: str):
    with pytest.raises(runner.ParameterError, match=fragment):
        runner.parse_pairs(text)


def _tiny(scratch: Path, body: str) -> Path:
    md = scratch / "analysis" / "notebooks" / "tiny.md"
    md.write_text(NB_FRONT_MATTER + """
```{code-cell} ipython3
:tags: [parameters]

price_usd: float = 2.0  # USD/GPU-hour | 0.. | test
label: str = "a b"  # words | /[a-z ]+/ | test
```

```{code-cell} ipython3
""" + body + "\n```\n")
    return md


@pytest.mark.slow
@pytest.mark.e2e
def test_make_run_passes_values_with_spaces_and_writes_a_run(scratch_sources: Path):
    scratch = scratch_sources
    _tiny(scratch, "assert label == 'north america' and price_usd == 2.5, (label, price_usd)")
    proc = make(scratch, "run", "NB=tiny", "PARAMS=price_usd=2.5 label='north america'")
    assert proc.returncode == 0, proc.stderr[-2000:]
    runs = list((scratch / "runs").iterdir())
    assert len(runs) == 1 and runs[0].name.endswith("-tiny") and (runs[0] / "tiny.ipynb").is_file()


@pytest.mark.slow
@pytest.mark.e2e
def test_failed_run_leaves_nothing_under_runs(scratch_sources: Path):
    scratch = scratch_sources
    _tiny(scratch, "raise RuntimeError('run fails')")
    proc = make(scratch, "run", "NB=tiny", "PARAMS=price_usd=2.5")
    assert proc.returncode != 0 and "run fails" in proc.stderr
    assert not (scratch / "runs").exists() or list((scratch / "runs").iterdir()) == []


@pytest.mark.parametrize("target, value", [
    ("run", "NB=tiny;touch pwned"), ("run", "NB=$(shell touch pwned)"), ("params", "NB=`touch pwned`"),
    ("figures", "STYLE=$(shell touch pwned)"), ("figures", "STYLE=talk;touch pwned"),
])
@pytest.mark.e2e
def test_other_make_variables_are_never_executed(scratch_sources: Path, target: str, value: str):
    scratch = scratch_sources
    (scratch / "analysis" / "notebooks" / "tiny.md").write_text(NB)
    proc = make(scratch, target, value)
    assert proc.returncode != 0
    assert "error: " in proc.stderr, proc.stderr[-1500:]
    assert not (scratch / "pwned").exists(), f"{value!r} ran a command"


@pytest.mark.e2e
@pytest.mark.parametrize("nb", ["tiny.md", "../../tiny", "/tmp/tiny.md", "x" * 100_000])
def test_make_run_executes_only_the_books_notebooks(scratch_sources: Path, nb: str):
    """Issue 38: NB names a notebook of analysis/notebooks; a Markdown file elsewhere on the machine (here
    one at the checkout's root, whose cell would write a file) is refused, as is a 100,000-character value."""
    scratch = scratch_sources
    (scratch / "tiny.md").write_text(NB.replace("total = ", "open('ran', 'w').write('x'); total = ", 1))
    proc = make(scratch, "run", f"NB={nb}")
    assert proc.returncode != 0
    assert "error: " in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-1500:]
    assert not (scratch / "ran").exists()


EDITS_ITS_INPUT = NB_FRONT_MATTER + """
# Edits its input

```{code-cell} ipython3
:tags: [parameters]

n: int = 1  # count | >0 | test
```

```{code-cell} ipython3
import os, pathlib, time
from analysis.data import hardware

hardware.load()  # recorded as read: the notebook depends on data/hardware.csv
time.sleep(0.05)
# someone saves an edit of the data file while the notebook is still running
pathlib.Path(os.environ["ANALYSIS_DATA_DIR"], "hardware.csv").touch()
```
"""


def test_a_data_edit_during_its_notebooks_run_is_rebuilt_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Issue 38: the executed notebook and its dependency record carry the time the run started, so an input
    saved during the run is newer than both and make runs the notebook again (make's rule: a prerequisite
    newer than its target); stamped at the end, the edit would be lost."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    monkeypatch.setenv("ANALYSIS_DATA_DIR", str(data))
    md = tmp_path / "edits.md"
    md.write_text(EDITS_ITS_INPUT)
    out, deps = tmp_path / "edits.ipynb", tmp_path / "edits.d"
    runner.execute(md, out, figures=tmp_path / "f", outputs=tmp_path / "o", deps=deps)
    assert str(data / "hardware.csv") in deps.read_text() or "hardware.csv" in deps.read_text()
    edited = (data / "hardware.csv").stat().st_mtime_ns
    assert edited > out.stat().st_mtime_ns and edited > deps.stat().st_mtime_ns
    assert out.stat().st_mtime_ns >= deps.stat().st_mtime_ns  # the record does not make the notebook stale


def test_a_kernel_that_dies_while_starting_is_started_again_but_not_one_that_ran_a_cell(capsys: pytest.CaptureFixture):
    """Two kernels started at once can draw the same free port, and one dies before its first reply (seen
    once in CI); no cell has run, so the runner starts another, at most kernels.KERNEL_STARTS times. A kernel
    that dies after a cell started is the notebook's failure and is never retried."""
    from analysis.book import kernels

    calls = {"n": 0}

    def dies_once() -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")

    kernels.start_retried(dies_once, [], [], "analysis/notebooks/x.md")
    assert calls["n"] == 2 and "starting another (2 of 3)" in capsys.readouterr().err

    def always_dies() -> None:
        calls["n"] += 1
        raise RuntimeError("Kernel died before replying to kernel_info")

    calls["n"] = 0
    with pytest.raises(RuntimeError):
        kernels.start_retried(always_dies, [], [], "x.md")
    assert calls["n"] == kernels.KERNEL_STARTS
    calls["n"] = 0
    with pytest.raises(RuntimeError):
        kernels.start_retried(always_dies, [], [{"cell": 1}], "x.md")  # a cell had started
    assert calls["n"] == 1


def test_two_runs_with_one_name_get_two_folders(tmp_path: Path):
    """Issue 38: two `make run`s started in the same second name the same folder; each writes to its own
    hidden folder and claims the name with one rename, the second taking out-2: nothing is mixed."""
    md = tmp_path / "ok.md"
    md.write_text(NB.split("```{code-cell} ipython3\nraise")[0])  # the notebook without its failing cell
    out = tmp_path / "runs" / "2026-12-04T120000-ok"
    first = runner.run_into(md, out, {"n": "4"}, next_free=True)
    second = runner.run_into(md, out, {"n": "5"}, next_free=True)
    assert (first, second) == (out, out.with_name(out.name + "-2"))
    for folder, n in ((first, "4"), (second, "5")):
        assert f"n = {n}" in (folder / "ok.ipynb").read_text()
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name, out.name + "-2"]  # no partial left
    with pytest.raises(runner.ParameterError, match="exists already"):
        runner.run_into(md, out, {})


@pytest.mark.parametrize(("argv", "allowed"), [
    (["params", "serving-cost-per-mtok"], {"jupytext"}),  # reads the notebook: jupytext, nothing to run it
    (["url"], set()),
    (["citation"], set()),
])
def test_each_command_imports_only_what_it_needs(argv: list[str], allowed: set[str]):
    """Issue 37: one function per command, each importing its own needs: listing a notebook's parameters or
    checking the URL loads no pandas, pandera, matplotlib or papermill (make calls these on every build)."""
    heavy = {"pandas", "pandera", "matplotlib", "seaborn", "papermill", "jupytext", "nbclient"}
    code = ("import sys, contextlib, io\nfrom analysis.book import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    rc = cli.main(sys.argv[1:])\n"
            f"print(rc, sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(heavy)!r})))")
    proc = subprocess.run([str(PY), "-c", code, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert proc.stdout.strip() == f"0 {sorted(allowed)}", proc.stdout + proc.stderr
