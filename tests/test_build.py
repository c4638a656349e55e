"""The build pipeline end to end, on scratch copies of the project.

These tests need the book built once (``make test`` builds it before running pytest).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import ROOT, make

BUILT = ROOT / "_build" / "html" / ".built"

pytestmark = pytest.mark.skipif(not BUILT.exists(), reason="the book has not been built: run `make book` first")

FAILING_NB = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Failing

```{code-cell} ipython3
:tags: [parameters]

x: int = 1  # count | | test
```

```{code-cell} ipython3
y = 1 / (x - 1)
```
"""


def _tree_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_failing_notebook_stops_build_and_keeps_old_html(scratch: Path):
    (scratch / "analysis" / "notebooks" / "zz-fail.md").write_text(FAILING_NB)
    before = _tree_hash(scratch / "_build" / "html")
    proc = make(scratch, "book")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "notebook analysis/notebooks/zz-fail.md failed in code cell 2" in out
    assert "ZeroDivisionError" in out
    assert _tree_hash(scratch / "_build" / "html") == before


def _replace(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


CORRUPTIONS = {
    "themes-missing-field": ("data/themes.yml", "    scope: Fused kernels", "    scop: Fused kernels",
                             "themes.yml: theme 1, field scope: missing"),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_bad_data_stops_build_before_notebooks(scratch: Path, case: str):
    rel, old, new, expected = CORRUPTIONS[case]
    _replace(scratch / rel, old, new)
    (scratch / "analysis" / "notebooks" / "zz-fail.md").write_text(FAILING_NB)
    before = _tree_hash(scratch / "_build" / "html")
    proc = make(scratch, "book")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert expected in out, out[-2000:]
    assert "zz-fail" not in out, "no notebook may run after a validation failure"
    assert _tree_hash(scratch / "_build" / "html") == before
