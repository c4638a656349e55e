"""Text from data/ (titles, headlines, captions) made inert before it enters the book's pages.

Every string that comes from a data file or a figure's registry entry reaches the HTML through
MyST markdown (chapter tables, figure captions, the gallery) or through an HTML table (the
paper index). Markdown passes raw HTML through, so such text is escaped first:

* :func:`md_text` for MyST: every ASCII punctuation character gets a backslash (CommonMark
  escapes, so ``<img …>``, ``{role}`…```, ``$…$`` and ``|`` are shown as typed) and line
  breaks become spaces;
* :func:`html_text` for HTML cells: ``html.escape`` (quotes included).
"""

from __future__ import annotations

import html
import string
from typing import Any

_PUNCT = set(string.punctuation)


def md_text(value: object) -> str:
    """`value` as literal text in MyST markdown (one line)."""
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    return "".join("\\" + ch if ch in _PUNCT else ch for ch in text)


def html_text(value: object) -> str:
    """`value` as literal text in HTML (quotes escaped, so also safe in attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def md_table(rows: list[list[object]], header: list[str]) -> str:
    """A MyST (GitHub) table whose every cell is literal text; missing values are empty cells."""
    def cell(v: object) -> str:
        try:
            missing = v is None or v != v  # NaN and pandas' missing values
        except (TypeError, ValueError):
            missing = False
        return "" if missing is True else md_text(v)

    lines = ["| " + " | ".join(md_text(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def df_table(df: Any) -> str:
    """A pandas DataFrame as a MyST table (:func:`md_table`): every cell escaped, an empty cell where a value
    is missing (the notebooks' one table formatter)."""
    return md_table(df.astype(object).where(df.notna(), None).values.tolist(), [str(c) for c in df.columns])
