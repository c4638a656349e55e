"""Large interactive tables whose rows a page loads after it renders (the paper explorer, the claims ledger).

An itables table holds its rows inside the page, so the page grows with the corpus (at ten times
today's corpus the claims ledger alone would pass 3 MB). Here the rows go to chunk files of at most
:data:`CHUNK_ROWS` rows, ``<outputs>/lazy/tables/<name>-<k>.js``, which the HTML build copies to
``tables/`` at the site's root (``html_extra_path``); the page holds the columns and options only,
and DataTables' ``ajax`` option fetches the chunks with ``lazyRows.load`` (``_static/reader.js``),
which adds them as script elements (a browser allows those under ``file://``, unlike ``fetch``) and
hands DataTables every row once all chunks have arrived.

Each chunk file is one call ``lazyRows.put(name, k, rows)`` whose arguments are JSON literals: the
data stays data (``json.dumps`` escapes every quote and backslash; ``ensure_ascii`` the line
separators that JavaScript source does not accept). DataTables renders a cell as HTML, so a table
whose cells are plain text is HTML-escaped here (``html_cells=False``); the explorer's cells are HTML
that analysis.themes.paper_table built and escaped (``html_cells=True``); a table with some link
columns names them (``html_cells={"paper", ...}``) and every other column is escaped here.
"""

from __future__ import annotations

import html
import json
import math
import re
import warnings
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.data.paths import outputs_dir

CHUNK_ROWS = 1000
NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def folder() -> Path:
    """Where the chunk files go: <outputs>/lazy/tables (the HTML build copies <outputs>/lazy to the site)."""
    return outputs_dir() / "lazy" / "tables"


def _cell(v: object, as_html: bool) -> str:
    text = "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
    return text if as_html else html.escape(text, quote=True)


def write(name: str, df: pd.DataFrame, *, html_cells: bool | Collection[str]) -> int:
    """Write the rows of `df` as chunk files ``<name>-<k>.js``; return the number of chunks (at least 1).

    `html_cells`: True if every cell is HTML already (built and escaped by the caller), False if every
    cell is text, or the names of the columns that are HTML (the rest is text)."""
    if not NAME.match(name):
        raise ValueError(f"lazy table name {name!r}: lower-case letters, digits and hyphens only")
    out = folder()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{name}-*.js"):
        old.unlink()
    if isinstance(html_cells, bool):
        as_html = [html_cells] * len(df.columns)
    else:
        unknown = set(html_cells) - set(df.columns)
        if unknown:
            raise ValueError(f"lazy table {name!r}: html_cells names no column of the table: {sorted(unknown)}")
        as_html = [c in html_cells for c in df.columns]
    rows = [[_cell(v, h) for v, h in zip(r, as_html, strict=True)] for r in df.itertuples(index=False, name=None)]
    chunks = [rows[i:i + CHUNK_ROWS] for i in range(0, len(rows), CHUNK_ROWS)] or [[]]
    for k, chunk in enumerate(chunks):
        body = json.dumps(chunk, ensure_ascii=True, separators=(",", ":"))
        (out / f"{name}-{k}.js").write_text(f"lazyRows.put({json.dumps(name)},{k},{body});\n", encoding="ascii")
    return len(chunks)


def options(name: str, chunks: int, site_root: str = "../") -> dict[str, Any]:
    """DataTables options that load the rows of `name` (`chunks` files) from ``<site_root>tables/``."""
    from itables import JavascriptFunction

    if not NAME.match(name) or not re.match(r"^(\.\./)*$", site_root):
        raise ValueError(f"lazy table {name!r} at {site_root!r}: not a table name or a relative site root")
    return {
        "ajax": JavascriptFunction(
            f"function (data, callback, settings) {{ window.lazyRows.load({json.dumps(name)}, {int(chunks)}, "
            f"{json.dumps(site_root + 'tables/')}, callback, settings); }}"),
        "deferRender": True,
        # the full layout (itables drops search, paging and info for a frame that fits one page, which the
        # empty frame handed to it always does); the extra, empty position makes it differ from the default
        "layout": {"topStart": "pageLength", "topEnd": "search", "bottomStart": "info", "bottomEnd": "paging",
                   "bottom": None},
        "language": {"loadingRecords": "Loading the rows…", "emptyTable": "No rows."},
    }


def show(name: str, df: pd.DataFrame, *, html_cells: bool | Collection[str], site_root: str = "../",
         **itables_options: Any) -> None:
    """itables.show of `df`'s columns with its rows in chunk files (:func:`write`, :func:`options`)."""
    import itables

    chunks = write(name, df, html_cells=html_cells)
    with warnings.catch_warnings():  # itables does not list DataTables' `ajax` among its documented options
        warnings.filterwarnings("ignore", message=r"These arguments are not documented in \w+: \{'ajax'\}")
        itables.show(df.iloc[:0], **itables_options, **options(name, chunks, site_root))
