"""Two builds from the same sources give byte-identical figures and data outputs.

A copy of the project has every executed notebook, figure, output and dependency record deleted and
`make book` executes every notebook again (in parallel, through the build's own rules: the first step
of ``conftest.rebuild``, whose later steps tests/test_faults.py checks); the hashes of all files under
figures/ and outputs/, and of the executed notebooks themselves, equal those of the book's own build.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from builds import Rebuild
from conftest import ROOT

STAGE = ROOT / "_build" / "book"

pytestmark = pytest.mark.skipif(not (ROOT / "_build" / "html" / ".built").exists(),
                                reason="the book has not been built: run `make book`")


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _made_by_notebooks(hashes: dict[str, str]) -> dict[str, str]:
    out = dict(hashes)
    # numbers.csv is written at staging from the executed notebooks compared here (and the chapters)
    out.pop("numbers.csv", None)
    out.pop("outside-corpus.md", None)  # written at staging from data/outside-corpus.csv, not by a notebook
    # the gallery's WebP thumbnails and the talk versions are made at staging from the figures compared here
    # a figure's PDF and sharing card are made on request from its kept drawing (make figures; their
    # determinism: tests/test_figures.py), not by the notebook
    return {k: v for k, v in out.items() if not k.startswith(("gallery/", "talk/", "thumbs/"))
            and not k.endswith(".pdf")}


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.xdist_group("rebuild")
def test_second_build_is_byte_identical(rebuild: Rebuild):
    step = rebuild.interrupted()
    assert "executed" in step, step.get("error")
    for sub in ("figures", "outputs", "notebooks"):
        first, second = _made_by_notebooks(_hashes(STAGE / sub)), _made_by_notebooks(step["executed"][sub])
        assert first, f"the book build has no {sub}"
        differ = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
        assert not differ, f"{sub}: files differ between two builds: {differ[:10]}"


def test_no_notebook_shows_a_warning_or_error_stream():
    """A reader sees every stderr output of an executed notebook (deprecation warnings included)."""
    shown = []
    for nb in sorted((STAGE / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "stream" and out.get("name") == "stderr":
                    shown.append(f"{nb.name}: {''.join(out['text'])[:120]}")
    assert not shown, shown
