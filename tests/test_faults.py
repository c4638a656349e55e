"""Fault injection: the build fails fast, can be interrupted from every side, runs one at a time,
and leaves the last good HTML and no temporary files behind.

Each test works on a scratch copy of the project (``conftest.scratch``) that already holds the
book's build, so only what a test changes is executed again. Every build here runs with its own
``TMPDIR`` so that leftover temporary folders can be counted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import NB_FRONT_MATTER, ROOT, tree_hash

BUILT = ROOT / "_build" / "html" / ".built"
pytestmark = pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book` first")


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


class Build:
    """`make <targets>` in its own session (so its whole process group can be signalled and
    checked for survivors), output collected by a thread."""

    def __init__(self, cwd: Path, tmp: Path, *targets: str, extra_env: dict[str, str] | None = None):
        tmp.mkdir(parents=True, exist_ok=True)
        self.tmp = tmp
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
        env["ANALYSIS_TALK_FIGURES"] = "off"  # scratch builds skip the talk figures
        env.update({"TMPDIR": str(tmp), "FAULT_MARKER": str(tmp.parent / f"{tmp.name}.marker")})
        env.update(extra_env or {})
        self.marker = Path(env["FAULT_MARKER"])
        self.started = time.monotonic()
        self.proc = subprocess.Popen(["make", "--no-print-directory", *targets], cwd=cwd, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
        self.out: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.out.append(line)

    @property
    def text(self) -> str:
        return "".join(self.out)

    def wait_for(self, predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"make ended before {what}:\n{self.text[-3000:]}")
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}:\n{self.text[-3000:]}")

    def wait(self, timeout: float) -> tuple[int, float]:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"make still running after {timeout} s:\n{self.text[-3000:]}") from None
        self._reader.join(timeout=5)
        return code, time.monotonic() - self.started

    def survivors(self, grace_s: float = 10.0) -> bool:
        """Whether any process of the build's group is still alive after `grace_s` seconds."""
        end = time.monotonic() + grace_s
        while time.monotonic() < end:
            try:
                os.killpg(self.proc.pid, 0)
            except ProcessLookupError:
                return False
            time.sleep(0.2)
        return True

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def leftovers(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir())


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
    code, _ = build.wait(timeout=30)
    assert code != 0
    assert time.monotonic() - interrupted < 15, "make took too long to stop"
    assert not build.survivors(), f"after {how}, processes of the build still run:\n{build.text[-2000:]}"
    assert build.leftovers() == [], "the interrupted build left temporary files"
    assert _tree_hash(scratch / "_build" / "html") == before
    # the next build succeeds at once (the notebook is removed: it would sleep again)
    (scratch / "analysis" / "notebooks" / "zz-sleep.md").unlink()
    again = Build(scratch, tmp_path / "tmp2", "book")
    code, _ = again.wait(timeout=600)
    assert code == 0, again.text[-3000:]


def test_ctrl_c_during_html_then_next_build_succeeds(scratch: Path, tmp_path: Path) -> None:
    chapter = scratch / "chapters" / "methods.md"
    chapter.write_text(chapter.read_text() + "\nA sentence added by the interrupt test.\n")
    before = _tree_hash(scratch / "_build" / "html")
    build = Build(scratch, tmp_path / "tmp", "book")
    build.wait_for(lambda: "writing output" in build.text, 600, "Sphinx to write its output")
    os.killpg(build.proc.pid, signal.SIGINT)
    code, _ = build.wait(timeout=30)
    assert code != 0
    assert not build.survivors()
    assert _tree_hash(scratch / "_build" / "html") == before, "an interrupted build changed the last good HTML"
    again = Build(scratch, tmp_path / "tmp2", "book")
    code, _ = again.wait(timeout=600)
    assert code == 0, again.text[-3000:]
    assert "A sentence added by the interrupt test." in (scratch / "_build" / "html" / "chapters" /
                                                         "methods.html").read_text()


def test_two_builds_at_once_run_one_after_the_other(scratch: Path, tmp_path: Path) -> None:
    (scratch / "analysis" / "notebooks" / "corpus-overview.md").touch()
    first = Build(scratch, tmp_path / "a", "book")
    time.sleep(1.0)
    second = Build(scratch, tmp_path / "b", "book")
    code1, _ = first.wait(timeout=900)
    code2, _ = second.wait(timeout=900)
    assert code1 == 0 and code2 == 0, first.text[-2000:] + second.text[-2000:]
    assert "another build of this checkout holds .build.lock; waiting" in second.text
    executed = (first.text + second.text).count("executed analysis/notebooks/corpus-overview.md")
    assert executed == 1, "the notebook ran twice"


def test_incremental_build_equals_clean_build(scratch: Path, tmp_path: Path) -> None:
    """Edit a chapter and a notebook, build, revert both, build: the same bytes as the book's own build."""
    reference = _tree_hash(scratch / "_build" / "html")
    chapter = scratch / "chapters" / "corpus.md"
    text = chapter.read_text()
    chapter.write_text(text + "\nZyzzogeton is a word found nowhere else in the book.\n")
    build = Build(scratch, tmp_path / "a", "book")
    code, _ = build.wait(timeout=900)
    assert code == 0, build.text[-3000:]
    assert "zyzzogeton" in (scratch / "_build" / "html" / "searchindex.js").read_text().lower()
    chapter.write_text(text)
    build = Build(scratch, tmp_path / "b", "book")
    code, _ = build.wait(timeout=900)
    assert code == 0, build.text[-3000:]
    assert "zyzzogeton" not in (scratch / "_build" / "html" / "searchindex.js").read_text().lower()
    assert _tree_hash(scratch / "_build" / "html") == reference
