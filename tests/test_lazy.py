"""Large tables load their rows after the page (analysis/book/lazy.py): chunking, and data that stays data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis.book import lazy


def _rows_of(path: Path, name: str, k: int) -> list[list[str]]:
    text = path.read_text(encoding="ascii")
    m = re.fullmatch(rf'lazyRows\.put\("{name}",{k},(.*)\);\n', text, re.S)
    assert m, text[:200]
    return json.loads(m.group(1))


@pytest.fixture
def outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ANALYSIS_OUTPUTS_DIR", str(tmp_path))
    return tmp_path / "lazy" / "tables"


def test_rows_are_split_into_chunks_in_order(outputs: Path):
    df = pd.DataFrame({"a": range(2 * lazy.CHUNK_ROWS + 5), "b": 1.5})
    assert lazy.write("demo", df, html_cells=False) == 3
    rows = [r for k in range(3) for r in _rows_of(outputs / f"demo-{k}.js", "demo", k)]
    assert rows == [[str(i), "1.5"] for i in range(2 * lazy.CHUNK_ROWS + 5)]
    # rewriting with fewer rows leaves no stale chunk behind
    assert lazy.write("demo", df.head(3), html_cells=False) == 1
    assert sorted(p.name for p in outputs.iterdir()) == ["demo-0.js"]


def test_an_empty_table_still_has_one_chunk(outputs: Path):
    assert lazy.write("empty", pd.DataFrame({"a": []}), html_cells=False) == 1
    assert _rows_of(outputs / "empty-0.js", "empty", 0) == []


def test_text_cells_are_escaped_and_every_cell_stays_a_string_literal(outputs: Path):
    payload = '</script><script>window.__xss=1</script>"); window.__xss=2; ("\u2028\u2029\\'
    df = pd.DataFrame({"text": [payload, None, float("nan")]})
    lazy.write("text", df, html_cells=False)
    raw = (outputs / "text-0.js").read_text(encoding="ascii")
    assert "<" not in raw and "\u2028" not in raw  # escaped for HTML, and JSON's \\u escapes for the separators
    rows = _rows_of(outputs / "text-0.js", "text", 0)
    assert rows[0][0] == "&lt;/script&gt;&lt;script&gt;window.__xss=1&lt;/script&gt;&quot;); window.__xss=2; " \
                         "(&quot;\u2028\u2029\\"
    assert rows[1:] == [[""], [""]]
    # cells that are HTML already (built and escaped by analysis.themes.paper_table) are kept, still as literals
    lazy.write("html", pd.DataFrame({"t": ['<a href="x">t</a>"); alert(1); ("']}), html_cells=True)
    assert _rows_of(outputs / "html-0.js", "html", 0) == [['<a href="x">t</a>"); alert(1); ("']]


@pytest.mark.parametrize("name", ["../x", "a b", "A", "x\");alert(1);(\"", ""])
def test_table_names_are_plain(outputs: Path, name: str):
    with pytest.raises(ValueError):
        lazy.write(name, pd.DataFrame({"a": [1]}), html_cells=False)
    with pytest.raises(ValueError):
        lazy.options(name, 1)


def test_options_load_from_the_site_root():
    opts = lazy.options("paper-index", 3, "../")
    assert 'window.lazyRows.load("paper-index", 3, "../tables/", callback, settings)' in str(opts["ajax"])
    assert opts["deferRender"] is True
    with pytest.raises(ValueError):
        lazy.options("paper-index", 3, "https://elsewhere/")


def test_named_html_columns_are_kept_and_the_others_escaped(outputs: Path):
    payload = '<img src=x onerror="window.__xss=1">'
    df = pd.DataFrame({"paper": ['<a href="../chapters/bibliography.html#bibkey-k">k</a>'], "evidence": [payload]})
    lazy.write("mixed", df, html_cells={"paper"})
    assert _rows_of(outputs / "mixed-0.js", "mixed", 0) == [
        ['<a href="../chapters/bibliography.html#bibkey-k">k</a>',
         "&lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;"]]
    with pytest.raises(ValueError, match="names no column"):
        lazy.write("mixed", df, html_cells={"papers"})
