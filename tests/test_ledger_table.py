"""The claims ledger's table (analysis/themes/ledger_table.py): numbers that sort as numbers, links, escaping."""

from __future__ import annotations

import re

import pandas as pd

from analysis.data import papers
from analysis.themes import ledger_table as lt


def _ledger(**over: object) -> pd.DataFrame:
    theme = papers.themes().iloc[0]
    row: dict[str, object] = {"claim_id": "k-1", "citekey": "k", "metric": "speedup", "value": 1.29, "low": None,
                              "high": None, "unit": "x", "qualifier": "exact", "hardware": "A100;H100",
                              "precision": "", "workload": "w", "tier": "headline", "evidence": "e",
                              "theme": theme["id"]}
    row.update(over)
    return pd.DataFrame([row])


def _parse_float(text: str) -> float | None:
    """JavaScript's parseFloat, as the value column's sort function applies it: the leading number."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)
    return float(m.group()) if m else None


def test_values_are_plain_numbers_that_sort_as_numbers() -> None:
    # the cases: 1.29 against 1.9, 0.0003 against 0.2; a range 1.5–2.0; a large count
    led = pd.concat([_ledger(value=1.29), _ledger(value=1.9), _ledger(value=0.0003), _ledger(value=0.2),
                     _ledger(value=None, low=1.5, high=2.0), _ledger(value=175e9)])
    t = lt.table(led)
    assert list(t["value"]) == ["1.29", "1.9", "0.0003", "0.2", "1.5–2", "175,000,000,000"]
    keys = [_parse_float(v.replace(",", "")) for v in t["value"]]
    assert keys == [1.29, 1.9, 0.0003, 0.2, 1.5, 175e9]
    order = [v for _, v in sorted(zip(keys, t["value"], strict=True))]
    assert order == ["0.0003", "0.2", "1.29", "1.5–2", "1.9", "175,000,000,000"]


def test_rows_link_to_the_bibliography_and_the_chapter_by_theme_title() -> None:
    th = papers.themes().iloc[0]
    t = lt.table(_ledger())
    assert t.at[0, "paper"] == '<a class="paper-key" href="../chapters/bibliography.html#bibkey-k">k</a>'
    assert t.at[0, "theme"] == f'<a class="ledger-theme" href="../chapters/{th["chapter"]}.html">{th["title"]}</a>'
    assert t.at[0, "hardware"] == "A100, H100"


def test_link_cells_escape_the_data_and_other_cells_are_left_to_lazy() -> None:
    probe = '"><img src=x onerror=alert(1)>'
    t = lt.table(_ledger(citekey=probe, evidence=probe))
    assert "<img" not in t.at[0, "paper"] and "&lt;img" in t.at[0, "paper"]
    assert t.at[0, "evidence"] == probe  # text column: analysis.book.lazy escapes it (html_cells names the links)
    assert lt.HTML_COLUMNS == {"paper", "theme"}


def test_options_sort_on_a_click_and_the_value_as_a_number() -> None:
    opts = lt.options()
    assert opts["ordering"] == {"indicators": True, "handler": True}
    defs = opts["columnDefs"]
    assert isinstance(defs, list)
    (value,) = [d for d in defs if d["targets"] == lt.COLUMNS.index("value")]
    assert value["type"] == "num" and 'parseFloat(String(data).replace(/,/g, ""))' in str(value["render"])


def test_each_claim_carries_the_verdicts_of_the_checks_that_read_it() -> None:
    # two checks read claim a-1 (one consistent, one inconsistent), one reads b-2; c-3 is read by none
    results = pd.DataFrame({"claim_ids": ["a-1;b-2", "a-1", None],
                            "verdict": ["consistent", "inconsistent", "not checkable"]})
    verdicts = lt.verdicts_by_claim(results)
    assert verdicts == {"a-1": "consistent, inconsistent", "b-2": "consistent"}
    t = lt.table(pd.concat([_ledger(claim_id="a-1"), _ledger(claim_id="c-3")]), verdicts=verdicts)
    assert list(t["verdict"]) == ["consistent, inconsistent", lt.NOT_AUDITED]


def test_filters_and_the_phone_columns_name_columns_of_the_table() -> None:
    """The filters the issue asks for (theme, metric, verdict, hardware), each on its own column; a phone
    keeps the claim, its paper, metric, value, unit and verdict."""
    assert [c for c, _, _ in lt.FILTERS] == ["theme", "metric", "verdict", "hardware"]
    assert set(lt.NARROW_HIDDEN) < set(lt.COLUMNS)
    assert [c for c in lt.COLUMNS if c not in lt.NARROW_HIDDEN] == ["claim", "paper", "metric", "value", "unit",
                                                                    "verdict"]
    setup = str(lt.options()["drawCallback"])
    for c, label, _ in lt.FILTERS:
        assert f'"col": {lt.COLUMNS.index(c)}, "label": "{label}"' in setup
