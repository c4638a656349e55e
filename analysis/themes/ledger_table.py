"""The claims ledger as the book's interactive table (notebook claims-ledger).

One row per claim: the claim id, its paper's citekey linked to the paper's entry in the bibliography
(anchor ``bibkey-<citekey>``, as in the paper explorer), the paper's theme by its title linked to the
theme's chapter, and the ledger's fields. The value is shown as the ledger states it (a number, or a
range ``low–high``, its lower end first) and sorts as a number: the cell's text is positional digits
with thousands separators (never an exponent), and the column's sort data is that text read as a
number without its separators (a range by its lower end), so 1.29 sorts before 1.9 and 0.0003
before 0.2. Every cell is text from data/ and is escaped by analysis.book.lazy, except the two link
columns, built here from escaped text (:func:`analysis.data.markup.html_text`).

Like the paper explorer, the ledger has filters (theme, metric, audit verdict, hardware: a <select> each,
built once its rows are in), sorts on a click anywhere on a heading, and on a phone shows only the claim,
its paper, metric, value, unit and verdict (the search box and the filters still read every column).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from analysis.data import papers
from analysis.data.markup import html_text
from analysis.themes import filter_callback

# (heading, ledger column or None for a column built here)
COLUMNS = ["claim", "paper", "theme", "metric", "value", "unit", "verdict", "qualifier", "hardware", "precision",
           "workload", "tier", "evidence"]
# (column, label, how a cell matches the chosen value: the whole cell, or one item of its ", " list)
FILTERS = [("theme", "Theme", "equals"), ("metric", "Metric", "equals"), ("verdict", "Verdict", "lists"),
           ("hardware", "Hardware", "lists")]
# the columns a phone (at most 640 px wide) does not show
NARROW_HIDDEN = ["theme", "qualifier", "hardware", "precision", "workload", "tier", "evidence"]
NOT_AUDITED = "not audited"
HTML_COLUMNS = {"paper", "theme"}
# DataTables' sort (and type) data of a value cell: its leading number ("1.5–2" sorts as 1.5), or none
SORT_AS_NUMBER = ('function (data, type) { if (type !== "sort" && type !== "type") return data; '
                  'const v = parseFloat(String(data).replace(/,/g, "")); return Number.isNaN(v) ? null : v; }')


def number_text(v: object) -> str:
    """A number in positional digits with thousands separators (0.0003, 175,000,000,000), never an
    exponent; empty if missing."""
    if v is None or pd.isna(v):  # type: ignore[call-overload]
        return ""
    whole, _, frac = np.format_float_positional(float(v), trim="-").partition(".")  # type: ignore[arg-type]
    return f"{int(whole):,}" + (f".{frac}" if frac else "")


def value_text(value: object, low: object, high: object) -> str:
    if value is not None and not pd.isna(value):  # type: ignore[call-overload]
        return number_text(value)
    return f"{number_text(low)}–{number_text(high)}"


def verdicts_by_claim(results: pd.DataFrame) -> dict[str, str]:
    """claim id -> the verdicts of the audit's checks that read it ("consistent", or "consistent,
    inconsistent" for a claim two checks read), from the audit's results (columns claim_ids, "a;b", and
    verdict), in the order the checks come."""
    found: dict[str, list[str]] = {}
    for ids, verdict in zip(results["claim_ids"], results["verdict"], strict=True):
        for cid in str(ids).split(";") if isinstance(ids, str) else []:
            seen = found.setdefault(cid.strip(), [])
            if verdict not in seen:
                seen.append(str(verdict))
    return {cid: ", ".join(v) for cid, v in found.items()}


def table(ledger: pd.DataFrame, verdicts: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The ledger (data/claims.csv rows, with the paper's `theme` merged in) as the page's table; `verdicts`
    (:func:`verdicts_by_claim`) gives each claim's audit verdicts ("not audited" where none)."""
    verdicts = verdicts or {}
    th = papers.themes().set_index("id")

    def theme_cell(t: object) -> str:
        if t is None or pd.isna(t) or t not in th.index:  # type: ignore[call-overload]
            return ""
        return (f'<a class="ledger-theme" href="../chapters/{html_text(th.at[t, "chapter"])}.html">'
                f'{html_text(th.at[t, "title"])}</a>')

    out = pd.DataFrame({
        "claim": ledger["claim_id"],
        "paper": [f'<a class="paper-key" href="../chapters/bibliography.html#bibkey-{html_text(k)}">{html_text(k)}</a>'
                  for k in ledger["citekey"]],
        "theme": [theme_cell(t) for t in ledger["theme"]],
        "metric": ledger["metric"],
        "value": [value_text(v, lo, hi) for v, lo, hi in zip(ledger["value"], ledger["low"], ledger["high"],
                                                             strict=True)],
        "unit": ledger["unit"],
        "verdict": [verdicts.get(c, NOT_AUDITED) for c in ledger["claim_id"]],
        "qualifier": ledger["qualifier"],
        "hardware": ledger["hardware"].fillna("").str.replace(";", ", "),
        "precision": ledger["precision"].fillna(""),
        "workload": ledger["workload"].fillna(""),
        "tier": ledger["tier"],
        "evidence": ledger["evidence"],
    })
    return out[COLUMNS].reset_index(drop=True)


def options() -> dict[str, object]:
    """DataTables options: a click on a heading sorts (again to reverse); the value column sorts as numbers;
    the filters and the phone's columns (:data:`FILTERS`, :data:`NARROW_HIDDEN`) are set up once the rows
    are in (:func:`analysis.themes.filter_callback`, as in the paper explorer)."""
    from itables import JavascriptFunction

    return {
        "text_in_header_can_be_selected": False,  # else only the small arrow sorts
        # DataTables' own indicators (and aria-sort) on every heading; a menu to sort or search within a column
        "ordering": {"indicators": True, "handler": True},
        "columnControl": [["orderAsc", "orderDesc", "search"]],
        "columnDefs": [{"targets": COLUMNS.index("value"), "type": "num", "className": "dt-body-right",
                        "render": JavascriptFunction(SORT_AS_NUMBER)}],
        "drawCallback": filter_callback(COLUMNS, FILTERS, NARROW_HIDDEN,
                                        bar_class="paper-explorer-filters ledger-filters",
                                        aria_label="Filter the claims", select_prefix="ledger-filter-"),
    }
