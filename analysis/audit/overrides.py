"""Overrides of generated checks (data/audit-overrides.csv).

A rule judges a claim from its types alone. Where a person who has read the paper finds that a
generated check asks the wrong question (the two speedups it pairs measure different things,
say), a row of ``data/audit-overrides.csv`` marks that check as not applicable, with a reason and
a source. Only generated checks (ids ``rule-<rule>:...``) can be overridden; a hand-written check
is changed in its code.

An overridden check is not deleted: it leaves the audit table and its verdict counts, and is
listed separately with its computed verdict, the reason and the source
(:func:`analysis.audit.run.overridden`); the claims page shows that list. A row naming a check
that the rules no longer generate is an error (naming file, row and column), so an override never
silently outlives the check it was written for.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pandera.pandas as pa

from analysis.data.paths import DATA
from analysis.data.tables import fail_rows, read_csv

FILE = "audit-overrides.csv"
CLAIM_ID = r"[a-z][a-z0-9]*-\d+"
SCHEMA = pa.DataFrameSchema(
    {
        "check_id": pa.Column(str, unique=True,
                              checks=pa.Check.str_matches(rf"^rule-[a-z]+:{CLAIM_ID}(:{CLAIM_ID})?$")),
        "reason": pa.Column(str, checks=pa.Check.str_length(min_value=20)),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
    },
    strict=True,
)


def load(path: Path | None = None) -> pd.DataFrame:
    """The overrides, validated against the schema (errors name file, row and column)."""
    return read_csv(FILE, SCHEMA, path)


def check_against(df: pd.DataFrame, generated: set[str], path: Path | None = None) -> None:
    """Fail, naming file, row and column, where an override names a check the rules do not generate."""
    fail_rows(path or DATA / FILE, df, ~df["check_id"].isin(generated), "check_id",
              "names no check that the rules generate (a hand-written check, or a stale id)")


def _describe() -> str:
    return f"{len(load())} overrides of generated audit checks"


DATA_FILES = {FILE: _describe}
