"""The suite's heavy tests share state through xdist groups (`make test` runs ``--dist loadgroup``):
the rebuild sequence (tests/builds.py), the browser sweep, the payload build. pytest 9.2 made
pytest-xdist 3.8 ignore the groups without a word (pytest-xdist#1386): each worker then made its own
rebuild, twice the work. This test runs a tiny suite the way `make test` does and checks that the
tests of one group ran in one worker process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SUITE = '''
import os
import pytest

GROUP = pytest.mark.xdist_group("shared")


@GROUP
@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    with open(os.environ["WORKERS_FILE"], "a") as fh:
        fh.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")


@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
'''


def test_tests_of_one_xdist_group_run_in_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_tiny.py").write_text(SUITE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    workers = tmp_path / "workers.txt"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
                          "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "WORKERS_FILE": str(workers)})
    assert run.returncode == 0, run.stdout + run.stderr
    seen = workers.read_text().split()
    assert len(seen) == 4
    assert len(set(seen)) == 1, f"the tests of one xdist group ran in several workers: {seen}"
