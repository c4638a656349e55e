"""The CI cache, one notebook at a time (issue 30, item 6): after `cache restore`, make re-runs
exactly the notebooks whose own recorded inputs changed.

Each test builds a small project in a temporary folder: three notebooks with the modules they
import and the data files they read written into their `_build/deps/<name>.d` as the runner writes
them, figures in the registry, a table. It records the inputs (`cache save`), simulates a fresh
checkout (every source newer than the cached build), changes one thing, restores, and asks GNU
make, with the notebook rule of the Makefile, which notebooks it would run. The expected notebooks
are read from the table DEPS below, never from the cache code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from analysis.book import ci_cache

# what each notebook imports and reads: the setup every expectation below is derived from
DEPS = {
    "alpha": ["analysis/themes/one.py", "data/a.csv"],
    "beta": ["analysis/themes/one.py", "data/b.csv"],
    "gamma": ["analysis/themes/two.py", "data/b.csv", "../shared/seeds/s1.txt"],
}
EVERY = ["analysis/__init__.py", "analysis/data/paths.py"]  # what every notebook imports (the runner's list)
FIGURES = {"alpha-fig": "alpha", "beta-fig": "beta", "beta-fig-wide": "beta", "gamma-fig": "gamma"}
SOURCES = [
    "requirements.txt", "constraints.txt", "analysis/__init__.py", "analysis/data/paths.py",
    "analysis/book/runner.py", "analysis/book/build.py", "analysis/book/gallery.py",
    "analysis/themes/one.py", "analysis/themes/two.py", "data/a.csv", "data/b.csv", "data/papers.csv",
    *(f"analysis/notebooks/{n}.md" for n in DEPS),
]

# the notebook rule of the Makefile (the real one needs the venv); a recipe prints "run <name>"
MAKEFILE = """\
STAGE := _build/book
NB_SRC := $(wildcard analysis/notebooks/*.md)
NB_OUT := $(patsubst analysis/notebooks/%.md,$(STAGE)/notebooks/%.ipynb,$(NB_SRC))
NB_DEPS := $(patsubst analysis/notebooks/%.md,_build/deps/%.d,$(NB_SRC))
notebooks: $(NB_OUT)
$(STAGE)/notebooks/%.ipynb: analysis/notebooks/%.md analysis/book/runner.py _build/deps/%.d
\t@echo run $*
$(NB_DEPS): ;
-include $(wildcard _build/deps/*.d)
"""

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed")


def _set_time(paths: list[Path], t: float) -> None:
    for p in paths:
        os.utime(p, (t, t))


def _outputs(root: Path) -> list[Path]:
    return [p for p in (root / "_build").rglob("*") if p.is_file()] + [root / "references.bib"]


@pytest.fixture
def project(tmp_path: Path) -> ci_cache.Project:
    """A project whose notebooks were executed and recorded (`cache save`), then checked out again
    (every source newer than the cached build)."""
    root, seeds = tmp_path / "main", tmp_path / "shared" / "seeds"
    for rel in SOURCES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{rel} v1\n", encoding="utf-8")
    seeds.mkdir(parents=True)
    (seeds / "s1.txt").write_text("seed one\n", encoding="utf-8")
    (seeds / "s2.txt").write_text("seed two\n", encoding="utf-8")
    (root / "Makefile").write_text(MAKEFILE, encoding="utf-8")
    built = time.time() - 1000
    _set_time([root / r for r in SOURCES] + [seeds / "s1.txt", seeds / "s2.txt"], built - 100)
    # the executed notebooks and their outputs, as the runner and the figure helper write them
    stage = root / "_build" / "book"
    for name, deps in DEPS.items():
        rels = sorted(EVERY + deps)
        target = f"_build/book/notebooks/{name}.ipynb"
        d = root / "_build" / "deps" / f"{name}.d"
        d.parent.mkdir(parents=True, exist_ok=True)
        d.write_text(f"{target}: {' '.join(rels)}\n" + "".join(f"{r}:\n" for r in rels), encoding="utf-8")
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        (root / target).write_text("{}", encoding="utf-8")
    for fig, name in FIGURES.items():
        (stage / "figures" / "thumbs").mkdir(parents=True, exist_ok=True)
        (stage / "figure-src").mkdir(parents=True, exist_ok=True)
        entry = {"id": fig, "notebook": f"analysis/notebooks/{name}.md"}
        (stage / "figures" / f"{fig}.json").write_text(json.dumps(entry), encoding="utf-8")
        for f in (f"figures/{fig}.png", f"figures/{fig}.svg", f"figures/thumbs/{fig}.png", f"figure-src/{fig}.pickle"):
            (stage / f).write_bytes(b"x")
    (stage / "outputs" / "lazy").mkdir(parents=True)
    (stage / "outputs" / "compare-x.md").write_text("| table |\n", encoding="utf-8")
    (stage / "outputs" / "lazy" / "t-0.js").write_text("rows\n", encoding="utf-8")
    (root / "_build" / "validated").touch()
    (root / "references.bib").write_text("@misc{x}\n", encoding="utf-8")
    _set_time(_outputs(root), built)
    p = ci_cache.Project(root=root, seeds=seeds)
    assert "recorded the inputs of 3 executed notebook(s)" in ci_cache.cache_save(p)
    _set_time(_outputs(root), built)  # (the record itself is part of the cached build)
    # a fresh checkout: every source gets the time of the checkout
    _set_time([root / r for r in SOURCES] + [seeds / "s1.txt", seeds / "s2.txt"], time.time() - 10)
    return p


def _make_runs(p: ci_cache.Project) -> set[str]:
    out = subprocess.run(["make", "-n", "--no-print-directory", "notebooks"], cwd=p.root,
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[2] for line in out.splitlines() if line.startswith("echo run ")}


def _edit(p: ci_cache.Project, rel: str) -> None:
    path = p.root / rel
    path.write_text(path.read_text(encoding="utf-8") + "changed\n", encoding="utf-8")


def _users(rel: str) -> set[str]:
    return {n for n, deps in DEPS.items() if rel in deps}


def _restore(p: ci_cache.Project) -> str:
    p._hashes.clear()  # a new process in CI
    return ci_cache.cache_restore(p)


def test_a_fresh_checkout_alone_reruns_everything_and_an_unchanged_one_nothing(project: ci_cache.Project):
    assert _make_runs(project) == set(DEPS)
    msg = _restore(project)
    assert _make_runs(project) == set()
    assert "restored 3 of 3" in msg and "re-run no notebook" in msg


@pytest.mark.parametrize("module", ["analysis/themes/one.py", "analysis/themes/two.py"])
def test_a_changed_module_reruns_only_the_notebooks_that_import_it(project: ci_cache.Project, module: str):
    _edit(project, module)
    msg = _restore(project)
    assert _make_runs(project) == _users(module)
    for name in _users(module):
        assert f"{name} (inputs changed)" in msg


@pytest.mark.parametrize("data", ["data/a.csv", "data/b.csv"])
def test_a_changed_data_file_reruns_only_the_notebooks_that_read_it(project: ci_cache.Project, data: str):
    _edit(project, data)
    _restore(project)
    assert _make_runs(project) == _users(data)


@pytest.mark.parametrize("builder", ["analysis/book/build.py", "analysis/book/gallery.py", "data/papers.csv"])
def test_a_changed_builder_module_reruns_no_notebook(project: ci_cache.Project, builder: str):
    _edit(project, builder)
    _restore(project)
    assert _make_runs(project) == set()
    # make's own prerequisites of the validation stamp and the bibliography include every module
    # (and data/papers.csv): those two are left to make
    assert os.path.getmtime(project.validated) < os.path.getmtime(project.root / builder)
    assert os.path.getmtime(project.bib) < os.path.getmtime(project.root / builder)


@pytest.mark.parametrize("shared", ["analysis/book/runner.py", "requirements.txt", "constraints.txt",
                                    "../shared/seeds/s2.txt"])
def test_the_runner_the_pins_and_the_seeds_rerun_every_notebook(project: ci_cache.Project, shared: str):
    _edit(project, shared)
    _restore(project)
    assert _make_runs(project) == set(DEPS)


def test_a_missing_record_reruns_that_notebook(project: ci_cache.Project):
    record = json.loads(project.record.read_text(encoding="utf-8"))
    del record["notebooks"]["beta"]
    project.record.write_text(json.dumps(record), encoding="utf-8")
    (project.root / "_build" / "deps" / "gamma.d").unlink()
    msg = _restore(project)
    assert _make_runs(project) == {"beta", "gamma"}
    assert "beta (no record)" in msg and "gamma (no cached output)" in msg


def test_a_new_notebook_runs(project: ci_cache.Project):
    (project.root / "analysis" / "notebooks" / "delta.md").write_text("new\n", encoding="utf-8")
    assert "delta (no record)" in _restore(project)
    assert _make_runs(project) == {"delta"}


def test_without_a_record_every_notebook_reruns(project: ci_cache.Project):
    project.record.unlink()
    assert "make will run every notebook" in _restore(project)
    assert _make_runs(project) == set(DEPS)


def test_restored_outputs_are_touched_and_those_of_notebooks_to_rerun_are_not(project: ci_cache.Project):
    _edit(project, "analysis/themes/two.py")  # gamma re-runs
    started = time.time()
    _restore(project)
    stage = project.root / "_build" / "book"

    def touched(rel: str) -> bool:
        return os.path.getmtime(stage / rel) >= started

    for fig, name in FIGURES.items():
        for rel in (f"figures/{fig}.json", f"figures/{fig}.png", f"figures/thumbs/{fig}.png",
                    f"figure-src/{fig}.pickle"):
            assert touched(rel) == (name != "gamma"), rel
    assert touched("outputs/compare-x.md") and touched("outputs/lazy/t-0.js")  # not attributable
    assert touched("notebooks/alpha.ipynb") and not touched("notebooks/gamma.ipynb")
    assert os.path.getmtime(project.validated) < started  # every module is its prerequisite
    assert os.path.getmtime(project.bib) < started


def test_validation_and_bibliography_are_restored_with_unchanged_inputs(project: ci_cache.Project):
    started = time.time()
    _restore(project)
    assert os.path.getmtime(project.validated) >= started and os.path.getmtime(project.bib) >= started


def test_save_records_only_the_notebooks_make_holds_up_to_date(project: ci_cache.Project):
    _restore(project)
    _edit(project, "data/a.csv")  # alpha's output is now older than a data file it read
    os.utime(project.root / "data" / "a.csv", (time.time() + 5,) * 2)
    msg = ci_cache.cache_save(project)
    assert "recorded the inputs of 2 executed notebook(s)" in msg and "not recorded" in msg and "alpha" in msg
    assert set(json.loads(project.record.read_text(encoding="utf-8"))["notebooks"]) == set(DEPS) - {"alpha"}


def test_the_workflow_restores_an_earlier_cache_and_caches_every_output():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8"))
    step = next(s for s in wf["jobs"]["build"]["steps"]
                if s.get("uses", "").startswith("actions/cache@") and "_build/deps" in s["with"]["path"])
    prefixes = step["with"]["restore-keys"].split()
    assert prefixes and all(step["with"]["key"].startswith(p) and "${{" not in p for p in prefixes)
    paths = step["with"]["path"].split()
    for rel in ("_build/book/notebooks", "_build/book/figures", "_build/book/figure-src", "_build/book/outputs",
                "_build/deps", f"_build/{ci_cache.RECORD_NAME}", "_build/validated", "references.bib"):
        assert f"main/{rel}" in paths, rel
