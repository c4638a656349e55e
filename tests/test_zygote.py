"""The build's warm parent for notebook kernels (analysis/book/zygote.py): same notebook, same bytes; the kernel
is really forked from it; it never outlives the build."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from conftest import NB_FRONT_MATTER, PY, ROOT

WIDE = NB_FRONT_MATTER + """
# Zygote

```{code-cell} ipython3
:tags: [parameters]

x: int = 1  # count | | test
```

```{code-cell} ipython3
import os, pathlib
import pandas as pd

pathlib.Path(os.environ["ZYGOTE_PARENT_FILE"]).write_bytes(pathlib.Path(f"/proc/{os.getppid()}/cmdline").read_bytes())
# wider than 80 characters: pandas shows it by the kernel's display.max_columns
pd.DataFrame({f"column_{i}": [i * 1.5, i * 2.5] for i in range(14)})
```
"""


def _execute(tmp_path: Path, name: str, zygote: bool) -> tuple[bytes, str]:
    md = tmp_path / "wide.md"
    md.write_text(WIDE)
    out = tmp_path / f"{name}.ipynb"
    parent = tmp_path / f"{name}.parent"
    # the runner itself (the CLI would record the notebook's inputs in _build/deps)
    cmd = [str(PY), "-c", "import sys; from pathlib import Path; from analysis.book import runner; "
           "runner.execute(Path(sys.argv[1]), Path(sys.argv[2]))", str(md), str(out)]
    if zygote:
        # --ready: the runner starts once the zygote listens (the build's make does not wait)
        cmd = [str(PY), "-m", "analysis.book.zygote", "run", "--ready", "--", *cmd]
    env = {**os.environ, "ZYGOTE_PARENT_FILE": str(parent), "ANALYSIS_FIGURES_DIR": str(tmp_path / "fig"),
           "ANALYSIS_OUTPUTS_DIR": str(tmp_path / "out")}
    env.pop("ANALYSIS_KERNEL_ZYGOTE", None)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    return out.read_bytes(), parent.read_text()


def test_a_forked_kernel_gives_the_same_notebook_as_a_started_one(tmp_path: Path):
    plain, plain_parent = _execute(tmp_path, "plain", zygote=False)
    forked, forked_parent = _execute(tmp_path, "forked", zygote=True)
    assert forked == plain
    # the started kernel's parent is the runner; the forked one's is the zygote
    assert "analysis.book.zygote" not in plain_parent and "runner.execute" in plain_parent
    assert "analysis.book.zygote" in forked_parent and "serve" in forked_parent


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def test_the_zygote_dies_with_the_build_and_holds_none_of_its_descriptors(tmp_path: Path):
    lock = tmp_path / "lock"
    fd = os.open(lock, os.O_CREAT | os.O_RDWR)
    try:
        proc = subprocess.Popen([str(PY), "-m", "analysis.book.zygote", "run", "--", "sleep", "60"], cwd=ROOT,
                                pass_fds=(fd,), start_new_session=True)
        end = time.monotonic() + 30
        zyg: list[int] = []
        while time.monotonic() < end and not zyg:
            zyg = [p for p in _children(proc.pid)
                   if "serve" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")]
            time.sleep(0.1)
        assert zyg, "the zygote did not start"
        z = zyg[0]
        time.sleep(1.5)  # preloaded and listening
        held = {os.path.realpath(f"/proc/{z}/fd/{n}") for n in os.listdir(f"/proc/{z}/fd")}
        assert str(lock) not in held, "the zygote inherited the build's descriptors (the lock)"
        proc.send_signal(signal.SIGKILL)  # the build dies without cleaning up
        proc.wait(10)
        end = time.monotonic() + 10
        while time.monotonic() < end and Path(f"/proc/{z}").exists() and \
                "Z" not in Path(f"/proc/{z}/stat").read_text().split(")")[-1].split()[0]:
            time.sleep(0.1)
        alive = Path(f"/proc/{z}").exists() and "Z" not in Path(f"/proc/{z}/stat").read_text().split(")")[-1].split()[0]
        assert not alive, "the zygote outlived the build"
    finally:
        os.close(fd)
        with __import__("contextlib").suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
