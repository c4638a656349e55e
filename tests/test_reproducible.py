"""Two builds from the same sources give byte-identical figures and data outputs.

Re-executes every notebook into a scratch folder (in parallel, directly rather than through the
build's pool) and compares the hashes of all files under figures/ and outputs/, and of the
executed notebooks themselves, with those of the book's own build.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import PY, ROOT

STAGE = ROOT / "_build" / "book"

pytestmark = pytest.mark.skipif(not (ROOT / "_build" / "html" / ".built").exists(),
                                reason="the book has not been built: run `make book`")


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _execute(md: Path, out: Path) -> None:
    code = ("import sys; from pathlib import Path; from analysis.book import runner; "
            "runner.execute(Path(sys.argv[1]), Path(sys.argv[2]) / 'nb' / (Path(sys.argv[1]).stem + '.ipynb'), "
            "figures=Path(sys.argv[2]) / 'figures', outputs=Path(sys.argv[2]) / 'outputs')")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "123"}
    subprocess.run([str(PY), "-c", code, str(md), str(out)], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=1800)


def test_second_build_is_byte_identical(tmp_path: Path):
    notebooks = sorted((ROOT / "analysis" / "notebooks").glob("*.md"))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(lambda md: _execute(md, tmp_path), notebooks))
    for sub, again in (("figures", "figures"), ("outputs", "outputs"), ("notebooks", "nb")):
        first, second = _hashes(STAGE / sub), _hashes(tmp_path / again)
        # numbers.csv is written at staging from the executed notebooks compared here (and the chapters)
        first.pop("numbers.csv", None)
        first.pop("outside-corpus.md", None)  # written at staging from data/outside-corpus.csv, not by a notebook
        # the gallery's WebP thumbnails and the talk versions are made at staging from the figures compared here
        first = {k: v for k, v in first.items() if not k.startswith(("gallery/", "talk/"))}
        # a figure's PDF and sharing card are made on request from its kept drawing (make figures; their
        # determinism: tests/test_figures.py), not by the notebook
        first = {k: v for k, v in first.items() if not (k.endswith(".pdf") or k.startswith("thumbs/"))}
        assert first, f"the book build has no {sub}"
        differ = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
        assert not differ, f"{sub}: files differ between two builds: {differ[:10]}"


def test_no_notebook_shows_a_warning_or_error_stream():
    """A reader sees every stderr output of an executed notebook (deprecation warnings included)."""
    import json

    shown = []
    for nb in sorted((STAGE / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "stream" and out.get("name") == "stderr":
                    shown.append(f"{nb.name}: {''.join(out['text'])[:120]}")
    assert not shown, shown
