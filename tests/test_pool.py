"""The build's warm notebook pool (analysis/pool.py, analysis/kernels.py).

The pool must change how fast notebooks start, never what they compute: the same
notebook run through the pool and run directly gives the same outputs, figures and
recorded data reads. The book-wide version of this check is test_reproducible.py
(the book is built through the pool, the comparison run is not).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import FAILING_NB, NB_FRONT_MATTER, PY, ROOT

from analysis import pool

pytestmark = pytest.mark.slow

NB = NB_FRONT_MATTER + """
# Pool test

```{code-cell} ipython3
:tags: [parameters]

scale: float = 2.0  # ratio | >0 | test
```

```{code-cell} ipython3
import sys

warm = "pandas" in sys.modules  # imported before this notebook ran: the kernel was forked warm
print("warm" if warm else "cold")
```

```{code-cell} ipython3
from myst_nb import glue

from analysis import figures, hardware

hw = hardware.load()
n = int(hw["peak_bf16_tflops"].notna().sum())
glue("n_specced", n * scale, display=False)
fig, ax = figures.new()
ax.plot([1, 2, 3], [n, n * scale, n * scale * scale])
figures.save(fig, "pool-test", title="t", caption="c", alt="a", chapter="methods", source_note="test")
print(n * scale)
```
"""

def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != pool.ENV}
    env["PYTHONPATH"] = str(ROOT)
    return env


def _execute_cmd(md: Path, out: Path) -> list[str]:
    return [str(PY), "-m", "analysis", "execute", str(md), str(out / "nb.ipynb"), "--figures", str(out / "figures"),
            "--outputs", str(out / "outputs"), "--deps", str(out / "nb.d")]


def _outputs(ipynb: Path) -> list[object]:
    return [c.get("outputs") for c in json.loads(ipynb.read_text())["cells"] if c["cell_type"] == "code"]


def test_pool_and_direct_runs_agree(tmp_path: Path):
    md = tmp_path / "pooltest.md"
    md.write_text(NB)
    direct, pooled = tmp_path / "direct", tmp_path / "pooled"
    subprocess.run(_execute_cmd(md, direct), cwd=ROOT, env=_env(), check=True, capture_output=True, timeout=600)
    proc = subprocess.run([str(PY), "-m", "analysis", "pool", "--", *_execute_cmd(md, pooled)], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    a, b = _outputs(direct / "nb.ipynb"), _outputs(pooled / "nb.ipynb")
    assert "cold" in json.dumps(a[1]) and "warm" in json.dumps(b[1]), "the pooled kernel did not start warm"
    assert a[2:] == b[2:], "outputs differ between the pool and a direct run"
    for ext in ("svg", "png", "pdf", "json"):
        name = f"pool-test.{ext}"
        assert (direct / "figures" / name).read_bytes() == (pooled / "figures" / name).read_bytes(), name
    reads = [(out / "nb.d").read_text().split(":", 1)[1] for out in (direct, pooled)]  # after the target
    assert reads[0] == reads[1]
    assert "data/hardware.csv" in (pooled / "nb.d").read_text()


def test_pool_reports_the_failing_cell(tmp_path: Path):
    md = tmp_path / "failing.md"
    md.write_text(FAILING_NB)
    proc = subprocess.run([str(PY), "-m", "analysis", "pool", "--", *_execute_cmd(md, tmp_path / "out")],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "failing.md failed in code cell 2" in proc.stderr and "ZeroDivisionError" in proc.stderr
    assert not (tmp_path / "out" / "nb.ipynb").exists()


def test_interrupted_request_stops_its_notebook(tmp_path: Path):
    md = tmp_path / "slow.md"
    md.write_text(FAILING_NB.replace("y = 1 / (x - 1)", "import time\ntime.sleep(600)"))
    script = (f"{' '.join(_execute_cmd(md, tmp_path / 'out'))} & c=$!; sleep 5; kill $c; wait $c; exit 0")
    t0 = time.monotonic()
    proc = subprocess.run([str(PY), "-m", "analysis", "pool", "--", "bash", "-c", script], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert time.monotonic() - t0 < 300, "the pool waited for a notebook whose client was gone"
    assert not (tmp_path / "out" / "nb.ipynb").exists()


def test_without_a_pool_the_client_runs_the_notebook_itself(tmp_path: Path):
    assert pool.submit(str(tmp_path / "no-such-socket"), ["execute", "x.md", "y.ipynb"]) is None


def test_pool_returns_the_exit_status_of_its_command():
    proc = subprocess.run([str(PY), "-m", "analysis", "pool", "--", "bash", "-c", "exit 7"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 7, proc.stderr

