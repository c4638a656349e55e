"""Fault injection: the build fails fast, can be interrupted from every side, runs one at a time,
and leaves the last good HTML and no temporary files behind.

The fault tests work on a scratch copy of the project (``conftest.scratch``) that already holds the
book's build, so only what a test changes is executed again. The last three check one sequence of
builds of one copy (``conftest.rebuild``, tests/builds.py), which tests/test_reproducible.py shares:
every notebook executed again, Sphinx interrupted, two builds at once, and the edits reverted.
Every build here runs with its own ``TMPDIR`` so that leftover temporary folders can be counted.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from builds import EDITED, SENTENCE, Build, Rebuild
from conftest import NB_FRONT_MATTER, ROOT, tree_hash

BUILT = ROOT / "_build" / "html" / ".built"
pytestmark = [pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book` first"),
              pytest.mark.slow, pytest.mark.e2e]
# the sequence of rebuilds: one copy, on one xdist worker, step after step
in_sequence = pytest.mark.xdist_group("rebuild")


def _nb(body: str) -> str:
    return NB_FRONT_MATTER + """
# Fault

```{code-cell} ipython3
:tags: [parameters]

x: int = 1  # count | | test
```

```{code-cell} ipython3
y = x + 1
```

```{code-cell} ipython3
""" + body + "\n```\n"


DYING = _nb("import os\nos._exit(3)")
LOOPING = _nb("while True:\n    pass")
# writes $FAULT_MARKER when it starts, then sleeps: the tests interrupt it there
SLEEPING = _nb("import os, pathlib, time\npathlib.Path(os.environ['FAULT_MARKER']).write_text('started')\n"
               "time.sleep(600)")


_tree_hash = tree_hash


@pytest.mark.parametrize("case, source, fragment", [
    ("dying-kernel", DYING, "the kernel died while the cell ran"),
    ("infinite-loop", LOOPING, "longer than the cell time limit of 3 s"),
])
def test_notebook_fault_fails_build_fast_naming_cell(scratch: Path, tmp_path: Path, case: str, source: str,
                                                     fragment: str) -> None:
    (scratch / "analysis" / "notebooks" / f"zz-{case}.md").write_text(source)
    before = _tree_hash(scratch / "_build" / "html")
    build = Build(scratch, tmp_path / "tmp", "book", extra_env={"ANALYSIS_CELL_TIMEOUT": "3"})
    code, seconds = build.wait(timeout=120)
    assert code != 0
    assert f"notebook analysis/notebooks/zz-{case}.md failed in code cell 3 (starting" in build.text, build.text[-2000:]
    assert fragment in build.text
    # validation, one kernel start and the fault itself: seconds, not the 600 s default limit
    assert seconds < 60, f"the build took {seconds:.0f} s to fail"
    assert not build.survivors(), "a process of the failed build (a kernel?) is still running"
    assert build.leftovers() == [], "the failed build left temporary files"
    assert _tree_hash(scratch / "_build" / "html") == before
    assert not (scratch / "_build" / "book" / "notebooks" / f"zz-{case}.ipynb").exists()


@pytest.mark.parametrize("how", ["SIGINT to make", "SIGTERM to make", "SIGINT to the group"])
def test_interrupt_during_notebooks_stops_everything(scratch: Path, tmp_path: Path, how: str) -> None:
    (scratch / "analysis" / "notebooks" / "zz-sleep.md").write_text(SLEEPING)
    before = _tree_hash(scratch / "_build" / "html")
    build = Build(scratch, tmp_path / "tmp", "book")
    build.wait_for(build.marker.exists, 120, "the sleeping notebook to start")
    if how == "SIGINT to make":
        build.proc.send_signal(signal.SIGINT)
    elif how == "SIGTERM to make":
        build.proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(build.proc.pid, signal.SIGINT)
    interrupted = time.monotonic()
    code, _ = build.wait(timeout=60)
    assert code != 0
    # within seconds, not after the notebook's 600 s sleep (generous: the other cores may be busy)
    assert time.monotonic() - interrupted < 30, "make took too long to stop"
    assert not build.survivors(), f"after {how}, processes of the build still run:\n{build.text[-2000:]}"
    assert build.leftovers() == [], "the interrupted build left temporary files"
    assert _tree_hash(scratch / "_build" / "html") == before
    # the next build succeeds at once (the notebook is removed: it would sleep again)
    (scratch / "analysis" / "notebooks" / "zz-sleep.md").unlink()
    again = Build(scratch, tmp_path / "tmp2", "book")
    code, _ = again.wait(timeout=600)
    assert code == 0, again.text[-3000:]


def _ok(step: dict) -> None:
    assert "error" not in step, step["error"]


@in_sequence
def test_ctrl_c_during_html_then_next_build_succeeds(rebuild: Rebuild) -> None:
    interrupted = rebuild.interrupted()
    _ok(interrupted)
    assert interrupted["code"] != 0
    assert not interrupted["survivors"]
    assert interrupted["html"] == rebuild.reference, "an interrupted build changed the last good HTML"
    again = rebuild.concurrent()  # the next build (the first of two at once)
    _ok(again)
    assert again["code1"] == 0, again["first"].text[-3000:]
    assert SENTENCE in again["methods"]


@in_sequence
def test_two_builds_at_once_run_one_after_the_other(rebuild: Rebuild) -> None:
    step = rebuild.concurrent()
    _ok(step)
    first, second = step["first"], step["second"]
    assert step["code1"] == 0 and step["code2"] == 0, first.text[-2000:] + second.text[-2000:]
    assert "another build of this checkout holds .build.lock; waiting" in second.text
    executed = (first.text + second.text).count("executed analysis/notebooks/corpus-overview.md")
    assert executed == 1, "the notebook ran twice"


@in_sequence
def test_incremental_build_equals_clean_build(rebuild: Rebuild) -> None:
    """Every notebook executed again and two chapters edited, built (after the interrupted build, a
    second build waiting), both edits reverted, built: the same bytes as the book's own build."""
    assert all(text not in rebuild.originals[name] for name, text in EDITED.items())
    edited = rebuild.concurrent()
    _ok(edited)
    assert "zyzzogeton" in edited["searchindex"]
    step = rebuild.reverted()
    _ok(step)
    assert step["code"] == 0, step["build"].text[-3000:]
    assert "zyzzogeton" not in step["searchindex"]
    assert step["html"] == rebuild.reference


@pytest.mark.slow
def test_group_sigint_while_talk_figures_render_leaves_no_process_and_no_lock(scratch: Path, tmp_path: Path) -> None:
    """Issue 38: Ctrl-C at a terminal (SIGINT to the whole process group) while the figure pool renders the
    talk versions of many figures: make, the figure command and every pool worker are gone within 10 s, no
    temporary file is left, the build lock is free (the next command takes it at once) and makes the files."""
    talk = scratch / "_build" / "talk-figures"
    shutil.rmtree(talk, ignore_errors=True)
    build = Build(scratch, tmp_path / "tmp", "figures", "STYLE=talk")
    # the pool is at work: its first talk figures are written
    build.wait_for(lambda: talk.is_dir() and any(talk.glob("*.svg")), 300, "the first talk figure")
    os.killpg(build.proc.pid, signal.SIGINT)
    code, _ = build.wait(timeout=30)
    assert code != 0
    assert not build.survivors(grace_s=10), f"processes of the figure build still run:\n{build.text[-2000:]}"
    assert build.leftovers() == [], "the interrupted figure build left temporary files"
    again = Build(scratch, tmp_path / "tmp2", "figures", "STYLE=talk")
    code, _ = again.wait(timeout=900)
    assert code == 0, again.text[-3000:]  # a survivor holding the lock would have made it wait for ever
