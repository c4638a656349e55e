"""Builds that tests start and watch: `Build` (one `make` in its own process group) and `Rebuild`
(one copy of the project rebuilt from its sources, shared by tests/test_reproducible.py and the
build-sequence tests of tests/test_faults.py through the session fixture ``rebuild``, conftest.py)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import make_env, tree_hash


class Build:
    """`make <targets>` in its own session (so its whole process group can be signalled and
    checked for survivors), output collected by a thread. Every build runs with its own
    ``TMPDIR``, so that leftover temporary folders can be counted."""

    def __init__(self, cwd: Path, tmp: Path, *targets: str, extra_env: dict[str, str] | None = None):
        tmp.mkdir(parents=True, exist_ok=True)
        self.tmp = tmp
        # unbuffered: Sphinx writes "writing output" to a pipe here, and a test that waits for that line
        # to interrupt the build must see it when it is written, not when Sphinx exits
        env = make_env(TMPDIR=str(tmp), FAULT_MARKER=str(tmp.parent / f"{tmp.name}.marker"), PYTHONUNBUFFERED="1",
                       **(extra_env or {}))
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

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
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

    def runs(self, command: str) -> bool:
        """Whether a process of the build's group has `command` in its command line."""
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                if os.getpgid(int(d.name)) == self.proc.pid and command in (d / "cmdline").read_bytes().replace(
                        b"\0", b" ").decode(errors="replace"):
                    return True
            except (ProcessLookupError, PermissionError, FileNotFoundError):
                continue
        return False

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


def file_hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


SENTENCE = "A sentence added by the interrupt test."
WORD = "Zyzzogeton is a word found nowhere else in the book."
EDITED = {"methods.md": SENTENCE, "corpus.md": WORD}


class Rebuild:
    """A copy of the project, holding the book's build, rebuilt in three steps; each step runs once,
    when a test first asks for it, and records what the tests check (an error included, so that a
    test reports only the failures of the step it checks).

    1. ``interrupted()``: every executed notebook, figure, output and dependency record deleted,
       two chapters edited (EDITED); `make book` executes every notebook again and is interrupted
       (SIGINT to its process group) while Sphinx writes its output. What the notebooks wrote is
       hashed first (tests/test_reproducible.py compares it with the book's own build).
    2. ``concurrent()``: a notebook source touched, two `make book` at once (the second started
       while the first runs that notebook): the first succeeds after the interrupted one.
    3. ``reverted()``: both chapters restored; `make book` again, whose HTML must equal the
       book's own (the HTML the copy started with).
    """

    def __init__(self, root: Path, tmp: Path) -> None:
        self.root, self.tmp = root, tmp
        self.html = root / "_build" / "html"
        self.stage = root / "_build" / "book"
        self.reference = tree_hash(self.html)
        self.originals = {name: (root / "chapters" / name).read_text() for name in EDITED}
        self._steps: dict[str, dict[str, Any]] = {}

    def _step(self, name: str, run: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        if name not in self._steps:
            result: dict[str, Any] = {}
            try:
                run(result)
            except BaseException as exc:  # the tests of this step report it
                result["error"] = "".join(traceback.format_exception(exc))
                if not isinstance(exc, Exception):
                    raise
            self._steps[name] = result
        return self._steps[name]

    def interrupted(self) -> dict[str, Any]:
        def run(r: dict[str, Any]) -> None:
            for p in (self.stage / "notebooks").glob("*.ipynb"):
                p.unlink()
            for p in (self.stage / "figures").iterdir():  # the staged gallery and talk versions stay
                if p.name not in ("gallery", "talk"):
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
            shutil.rmtree(self.stage / "outputs")
            shutil.rmtree(self.root / "_build" / "deps")
            for name, text in EDITED.items():
                chapter = self.root / "chapters" / name
                chapter.write_text(chapter.read_text() + f"\n{text}\n")
            # a hash seed other than the book build's for the runner (its kernels set their own)
            build = Build(self.root, self.tmp / "1", "book", extra_env={"PYTHONHASHSEED": "123"})
            r["build"] = build
            try:
                build.wait_for(lambda: "writing output" in build.text, 3600, "Sphinx to write its output")
            except AssertionError:
                build.kill()
                raise
            # interrupt at once (Sphinx's writing phase is a few seconds), then record what the notebooks made
            # (nothing writes there after the staging that came before Sphinx)
            os.killpg(build.proc.pid, signal.SIGINT)
            r["code"], _ = build.wait(timeout=60)
            r["executed"] = {sub: file_hashes(self.stage / sub) for sub in ("figures", "outputs", "notebooks")}
            r["survivors"] = build.survivors()
            r["html"] = tree_hash(self.html)

        return self._step("interrupted", run)

    def concurrent(self) -> dict[str, Any]:
        def run(r: dict[str, Any]) -> None:
            self.interrupted()
            (self.root / "analysis" / "notebooks" / "corpus-overview.md").touch()
            first = Build(self.root, self.tmp / "2a", "book")
            r["first"] = first
            # the second starts while the first holds the lock and runs the notebook it would run too
            first.wait_for(lambda: first.runs("analysis execute analysis/notebooks/corpus-overview.md"), 600,
                           "the first build to run analysis/notebooks/corpus-overview.md")
            second = Build(self.root, self.tmp / "2b", "book")
            r["second"] = second
            r["code1"], _ = first.wait(timeout=1800)
            r["code2"], _ = second.wait(timeout=1800)
            r["methods"] = (self.html / "chapters" / "methods.html").read_text()
            r["searchindex"] = (self.html / "searchindex.js").read_text().lower()

        return self._step("concurrent", run)

    def reverted(self) -> dict[str, Any]:
        def run(r: dict[str, Any]) -> None:
            self.concurrent()
            for name, text in self.originals.items():
                (self.root / "chapters" / name).write_text(text)
            build = Build(self.root, self.tmp / "3", "book")
            r["build"] = build
            r["code"], _ = build.wait(timeout=1800)
            r["searchindex"] = (self.html / "searchindex.js").read_text().lower()
            r["html"] = tree_hash(self.html)

        return self._step("reverted", run)
