"""The claims chapter's coding reliability: how often the two coders of the ledger's sample agree, field by field.

Computed on data/claims-coding-review.csv, which keeps both codings as they were before the review; the
ledger (data/claims.csv) holds the resolved values.
"""

from __future__ import annotations

import pandas as pd

from analysis.models import agreement

FIELDS = ("statistic", "bound", "bound_on", "baseline_class", "baseline_hardware", "system_hardware")
NOMINAL = ("statistic", "bound", "bound_on", "baseline_class")
"""Fields with a fixed vocabulary (kappa is meaningful); the hardware fields are free text (percent only)."""


def agreement_table(review: pd.DataFrame) -> pd.DataFrame:
    """One row per typed field: claims coded twice, agreements, percent agreement, Cohen's kappa (fields with
    a fixed vocabulary; an empty value counts as its own category), and how the disagreements were settled."""
    rows = []
    r = review.fillna("")
    for field in FIELDS:
        g = r[r["field"] == field]
        first, second = list(g["first"]), list(g["second"])
        decided = g["decision"].value_counts()
        agree = int(sum(a == b for a, b in zip(first, second, strict=True)))
        rows.append({"field": field, "claims": len(g), "agree": agree,
                     "percent": agreement.percent_agreement(first, second),
                     "kappa": agreement.cohen_kappa(first, second) if field in NOMINAL else float("nan"),
                     "kept first": int(decided.get("first", 0)), "kept second": int(decided.get("second", 0)),
                     "neither": int(decided.get("neither", 0)), "open": int((g["decision"] == "").sum())})
    return pd.DataFrame(rows)


def ledger_mismatches(review: pd.DataFrame, ledger: pd.DataFrame) -> pd.DataFrame:
    """Review rows whose resolved value the ledger does not hold (the review is not yet applied)."""
    led = ledger.set_index("claim_id").astype(object).where(ledger.set_index("claim_id").notna(), "")
    r = review.fillna("")
    held = [str(led.at[c, f]) for c, f in zip(r["claim_id"], r["field"], strict=True)]
    want = [a if d == "agreed" else v for a, d, v in zip(r["first"], r["decision"], r["resolved"], strict=True)]
    bad = [h != w for h, w in zip(held, want, strict=True)]
    return r[bad].assign(ledger=[h for h, b in zip(held, bad, strict=True) if b])
