"""One module per chapter (serving, training_at_scale, ...): the analyses its notebooks run, the
data files it owns (``DATA_FILES``, validated with the rest of data/), the corpus figures and the
paper tables. A theme module may import ``analysis.data``, ``analysis.models`` and the figure
helper ``analysis.plot``; not another theme, the audit or the book. What two themes share sits here:
:func:`filter_callback`, the filter bar of the paper explorer (paper_table) and the claims ledger
(ledger_table).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def filter_callback(columns: Sequence[str], filters: Sequence[tuple[str, str, str]], hidden: Sequence[str], *,
                    bar_class: str, aria_label: str, select_prefix: str, newest_first: Collection[str] = ()) -> object:
    """A table's DataTables draw callback that builds its filter bar (``tableFilters`` of ``_static/reader.js``,
    which every page loads): a <select> per filter (column, label, how a row matches: "equals" the whole cell,
    or "lists" one item of its ", " list), options sorted by their text (the columns `newest_first` names: in
    reverse), and on a phone (at most 640 px wide) the `hidden` columns not shown. The paper explorer and the
    claims ledger share it."""
    import json

    from itables import JavascriptFunction

    config = {
        "filters": [{"col": columns.index(c), "label": label, "match": match,
                     **({"order": "desc"} if c in newest_first else {})} for c, label, match in filters],
        "hidden": [columns.index(c) for c in hidden],
        "barClass": bar_class, "ariaLabel": aria_label, "selectPrefix": select_prefix,
    }
    return JavascriptFunction(f"function (settings) {{ window.tableFilters(this.api(), {json.dumps(config)}); }}")

