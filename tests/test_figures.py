"""The figure helper: deterministic files, registry entries, style and palette."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import PY, ROOT

from analysis.book import figures

SCRIPT = """
from analysis.book import figures

fig, ax = figures.new()
ax.plot([1, 2, 3], [1, 4, 9], label="a")
ax.scatter([1, 2], [3, 1])
ax.set_xlabel("x (unit)")
ax.legend()
figures.save(fig, "det-test", title="t", caption="c", alt="a", chapter="methods", source_note="test")
"""


def _render(folder: Path, seed: str) -> dict[str, str]:
    env = {**os.environ, "ANALYSIS_FIGURES_DIR": str(folder), "PYTHONHASHSEED": seed}
    subprocess.run([str(PY), "-c", SCRIPT], cwd=ROOT, env=env, check=True)
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_figure_files_are_byte_identical_across_runs(tmp_path: Path):
    a = _render(tmp_path / "a", "1")
    b = _render(tmp_path / "b", "2")
    assert set(a) == {"det-test.svg", "det-test.png", "det-test.pdf", "det-test.json", "thumbs/det-test.png"}
    assert a == b


def test_registry_entry_and_metadata(tmp_path: Path):
    _render(tmp_path, "0")
    entry = json.loads((tmp_path / "det-test.json").read_text())
    assert entry["id"] == "det-test" and entry["caption"] == "c" and entry["alt"] == "a"
    svg = (tmp_path / "det-test.svg").read_text()
    assert "<dc:date>" not in svg
    png = (tmp_path / "det-test.png").read_bytes()
    assert b"Software" not in png and b"matplotlib" not in png.lower()


def test_save_refuses_missing_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANALYSIS_FIGURES_DIR", str(tmp_path))
    fig, _ = figures.new()
    with pytest.raises(ValueError, match="caption"):
        figures.save(fig, "x", title="t", caption=" ", alt="a", chapter="c", source_note="s")
    with pytest.raises(ValueError, match="sources"):
        figures.save(fig, "x", title="t", caption="c", alt="a", chapter="c")
    with pytest.raises(ValueError, match="figure id"):
        figures.save(fig, "Bad Id", title="t", caption="c", alt="a", chapter="c", source_note="s")


def test_every_theme_has_one_colour():
    from analysis.data import papers

    ids = set(papers.themes()["id"])
    assert ids == set(figures.THEME_COLOURS)
    assert len(set(figures.THEME_COLOURS.values())) == len(figures.THEME_COLOURS)
    assert set(figures.THEME_COLOURS.values()) <= set(figures.PALETTE)


def test_talk_style_is_larger(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANALYSIS_STYLE", "talk")
    fig, _ = figures.new()
    w, h = fig.get_size_inches()
    assert abs(w / h - 16 / 9) < 0.01
    assert figures.STYLES["talk"]["font"] > figures.STYLES["book"]["font"] >= 11
