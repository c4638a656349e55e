"""Each theme chapter's comparison table: the table a reader scans first.

One row per paper that ``data/comparisons.csv`` lists: the technique, what it gains and what it
pays for it (a fixed vocabulary, so the column can be scanned and filtered), the hardware, and its
headline result with baseline and precision, taken from one claim of the ledger
(``data/claims.csv``) so that the number is the audited one, never retyped. The chapter's paper
table stays the complete list.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pandera.pandas as pa

from analysis.data import claims, papers
from analysis.data.markup import md_text
from analysis.data.paths import data_file
from analysis.data.schemas import CITEKEY
from analysis.data.tables import fail_rows, read_csv

FILE = "comparisons.csv"
AXES = ("speed", "throughput", "latency", "memory", "accuracy", "energy", "cost", "hardware", "generality",
        "simplicity", "scale", "nothing stated")
"""What a technique gains or pays with. 'nothing stated': the abstract names no price paid."""

_AXIS_LIST = r"^(" + "|".join(AXES) + r")(;(" + "|".join(AXES) + r"))*$"

SCHEMA = pa.DataFrameSchema(
    {
        "citekey": pa.Column(str, unique=True, checks=pa.Check.str_matches(CITEKEY)),
        "technique": pa.Column(str, checks=pa.Check.str_length(min_value=1)),
        "gains": pa.Column(str, checks=pa.Check.str_matches(_AXIS_LIST)),
        "pays": pa.Column(str, checks=pa.Check.str_matches(_AXIS_LIST)),
        "headline_claim": pa.Column(str, nullable=True),
        "note": pa.Column(str, nullable=True),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=1)),
    },
    strict=True,
    coerce=True,
)


TECHNIQUE_MAX, NOTE_MAX = 60, 120
"""Editorial lengths (a scannable table), checked by tests/test_data.py on the committed file; the schema
accepts any text, which is shown escaped."""


def load() -> pd.DataFrame:
    """data/comparisons.csv, validated: every paper in the table, every claim of that paper."""
    path = data_file(FILE)
    df = read_csv(FILE, SCHEMA)
    known = set(papers.load()["citekey"])
    fail_rows(path, df, ~df["citekey"].isin(known), "citekey", "not a paper of data/papers.csv")
    ledger = claims.load().set_index("claim_id")
    has = df["headline_claim"].notna()
    ids = df["headline_claim"].map(claim_ids)
    fail_rows(path, df, has & ~ids.map(lambda cs: all(c in ledger.index for c in cs)), "headline_claim",
              "no such claim_id in data/claims.csv")
    owners = ids.map(lambda cs: {ledger.at[c, "citekey"] if c in ledger.index else None for c in cs})
    fail_rows(path, df, has & (owners != df["citekey"].map(lambda k: {k})), "headline_claim",
              "the claim belongs to another paper")
    return df


def claim_ids(cell: Any) -> list[str]:
    """The claim ids of a headline_claim cell: one id, or several separated by ';' (a paper whose headline
    is a set of figures, e.g. one average per design scale, shown together rather than one picked)."""
    return [c.strip() for c in str(cell).split(";") if c.strip()] if isinstance(cell, str) else []


def _describe() -> str:
    df = load()
    theme = papers.load().set_index("citekey")["theme"]
    return f"{len(df)} comparison rows over {df['citekey'].map(theme).nunique()} themes"


DATA_FILES = {FILE: _describe}


def _number(x: Any) -> str:
    return "" if x is None or x != x else f"{float(x):g}"


def _present(x: Any) -> bool:
    return x is not None and x == x and x is not pd.NA


MEASURED = {"efficiency": ("efficiency",), "accuracy": ("reduction",), "reduction": ("reduction",),
            "params": ("size",), "other": ("length",), "throughput": ("per day",)}
"""Metrics whose number alone does not say what it measures: the claim's notes do, in the part ending with
this word ("energy efficiency", "MAPE reduction", "power reduction", "the outperformed models' relative size",
"maximum sequence length", "images per day")."""


def measure(claim: dict[str, Any]) -> str:
    """What a claim of a metric in MEASURED measures, from the part of its notes that names it
    (a table row then reads "energy efficiency: 6.0×", not a bare factor that looks like a speedup); '' for
    other metrics, whose unit and baseline say what they are."""
    words = MEASURED.get(str(claim.get("metric")), ())
    if not words or not _present(claim.get("notes")):
        return ""
    parts = [p.strip() for p in str(claim["notes"]).split(";")]
    return next((p for p in parts if p.endswith(words)), "efficiency" if words == ("efficiency",) else "")


def headline(claim: dict[str, Any]) -> str:
    """A ledger claim as a short result: qualifier, value (or range) and unit, then the precision."""
    value = (_number(claim["value"]) if _present(claim["value"])
             else f"{_number(claim['low'])}–{_number(claim['high'])}")
    qual = {"up to": "up to ", "over": "over ", "at least": "≥ ", "at most": "≤ ", "about": "≈ ",
            "average": "mean "}.get(str(claim["qualifier"]), "")
    unit = str(claim["unit"])
    text = f"{qual}{value}{'' if unit in ('x', '%') else ' '}{'×' if unit == 'x' else unit}"
    if _present(claim["precision"]):
        text += f" ({claim['precision']})"
    return text


def table_markdown(theme: str) -> str:
    """The comparison table of a theme (its papers listed in data/comparisons.csv), as MyST."""
    p = papers.load().set_index("citekey")
    hardware = {str(k): v for k, v in p["hardware"].to_dict().items()}
    rows = load()
    rows = rows[rows["citekey"].map(p["theme"]) == theme]
    ledger = {str(k): {str(f): v for f, v in row.items()}
              for k, row in claims.load().set_index("claim_id").to_dict("index").items()}
    lines = ["| paper | technique | gains | pays with | hardware | result (vs baseline) |",
             "|---|---|---|---|---|---|"]
    for r in rows.sort_values("citekey", key=lambda s: s.map(p["year"]).astype(float)).itertuples():
        hw_raw = hardware.get(str(r.citekey))
        hw = str(hw_raw).replace(";", ", ") if _present(hw_raw) else ""
        result = ""
        cs = [ledger[i] for i in claim_ids(r.headline_claim)]
        if cs:
            c = cs[0]
            shown = [headline(x) for x in cs]
            qual = {"average": "mean "}.get(str(c["qualifier"]), "")
            if len(cs) > 1 and qual and all(h.startswith(qual) for h in shown):
                shown = [shown[0]] + [h[len(qual):] for h in shown[1:]]
            result = ", ".join(shown)
            if measure(c):
                result = f"{measure(c)}: {result}"
            if _present(c["baseline"]):
                result += f" vs {c['baseline']}"
        gains, pays = str(r.gains).replace(";", ", "), str(r.pays).replace(";", ", ")
        lines.append(f"| {{cite:t}}`{r.citekey}` | {md_text(r.technique)} | {md_text(gains)} | "
                     f"{md_text(pays)} | {md_text(hw)} | {md_text(result)} |")
    return "\n".join(lines) + "\n"
