"""The claims ledger as the book's interactive table (notebook claims-ledger).

One row per claim: the claim id, its paper's citekey linked to the paper's entry in the bibliography
(anchor ``bibkey-<citekey>``, as in the paper explorer), the paper's theme by its title linked to the
theme's chapter, and the ledger's fields. The value is shown as the ledger states it (a number, or a
range ``low–high``) and sorts as a number: two hidden columns hold the lower and the upper end (a
single value is both), and the value column sorts on them (DataTables' ``orderData``), lower end
first. Every cell is text from data/ and is escaped by analysis.book.lazy, except the two link
columns, built here from escaped text (:func:`analysis.data.markup.html_text`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.data import papers
from analysis.data.markup import html_text

# (heading, ledger column or None for a column built here)
COLUMNS = ["claim", "paper", "theme", "metric", "value", "unit", "qualifier", "hardware", "precision", "workload",
           "tier", "evidence", "value_low", "value_high"]
HTML_COLUMNS = {"paper", "theme"}
HIDDEN = ["value_low", "value_high"]


def number_text(v: object) -> str:
    """A number as plain positional digits (0.0003, 175000000000), never an exponent; empty if missing."""
    if v is None or pd.isna(v):  # type: ignore[call-overload]
        return ""
    return np.format_float_positional(float(v), trim="-")  # type: ignore[arg-type]


def value_text(value: object, low: object, high: object) -> str:
    if value is not None and not pd.isna(value):  # type: ignore[call-overload]
        return number_text(value)
    return f"{number_text(low)}–{number_text(high)}"


def table(ledger: pd.DataFrame) -> pd.DataFrame:
    """The ledger (data/claims.csv rows, with the paper's `theme` merged in) as the page's table."""
    th = papers.themes().set_index("id")
    single = ledger["value"].notna()
    low = ledger["value"].where(single, ledger["low"])
    high = ledger["value"].where(single, ledger["high"])

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
        "qualifier": ledger["qualifier"],
        "hardware": ledger["hardware"].fillna("").str.replace(";", ", "),
        "precision": ledger["precision"].fillna(""),
        "workload": ledger["workload"].fillna(""),
        "tier": ledger["tier"],
        "evidence": ledger["evidence"],
        "value_low": low.map(number_text),
        "value_high": high.map(number_text),
    })
    return out[COLUMNS].reset_index(drop=True)


def options() -> dict[str, object]:
    """DataTables options: a click on a heading sorts (again to reverse); the value column sorts on the
    hidden numeric ends; the hidden columns are not searched."""
    value, hidden = COLUMNS.index("value"), [COLUMNS.index(c) for c in HIDDEN]
    return {
        "text_in_header_can_be_selected": False,  # else only the small arrow sorts
        "ordering": {"indicators": False, "handler": True},  # the column control shows the order
        "columnControl": ["order", ["orderAsc", "orderDesc", "search"]],
        "columnDefs": [
            {"targets": value, "orderData": hidden, "className": "dt-body-right"},
            {"targets": hidden, "visible": False, "searchable": False, "type": "num"},
        ],
    }
