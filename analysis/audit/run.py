"""Running the audit: every registered check, rows in book order."""

from __future__ import annotations

import pandas as pd

import analysis.audit.accelerators  # noqa: F401  (registers its checks)
import analysis.audit.beyond_ml  # noqa: F401  (registers its checks)
import analysis.audit.budget_training  # noqa: F401  (registers its checks)
import analysis.audit.generative  # noqa: F401  (registers its checks)
import analysis.audit.gpu_kernels  # noqa: F401  (registers its checks)
import analysis.audit.nas  # noqa: F401  (registers its checks)
import analysis.audit.quantization  # noqa: F401  (registers its checks)
import analysis.audit.serving  # noqa: F401  (registers its checks)
import analysis.audit.sustainability  # noqa: F401  (registers its checks)
import analysis.audit.training_at_scale  # noqa: F401  (registers its checks)
from analysis import models
from analysis.audit.registry import PLAUSIBLE, REGISTRY, RELATIONS, VERDICTS, Claims, Result
from analysis.data import claims as claims_data
from analysis.data.paths import DataError


def run_all() -> pd.DataFrame:
    """Run every registered check; a missing input gives 'not checkable' with the reason."""
    c = Claims(claims_data.load())
    rows = []
    for chk in REGISTRY.values():
        try:
            r = chk.fn(c)
        except (DataError, KeyError, models.ModelError) as exc:
            reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            r = Result(None, None, "", 0.0, "not checkable", "", explanation=f"missing input: {reason}")
        if r.verdict not in VERDICTS:
            raise ValueError(f"check {chk.check_id}: unknown verdict {r.verdict!r}")
        if r.verdict == PLAUSIBLE and not r.assumption:
            raise ValueError(f"check {chk.check_id}: a '{PLAUSIBLE}' verdict must name its assumption")
        if r.relation not in RELATIONS:
            raise ValueError(f"check {chk.check_id}: unknown relation {r.relation!r}")
        rows.append({
            "check_id": chk.check_id, "citekey": chk.citekey, "claim_ids": ";".join(chk.claim_ids),
            "kind": chk.kind, "description": chk.description, "reported": r.reported,
            "recomputed": r.recomputed, "unit": r.unit, "relation": r.relation, "tolerance": r.tolerance,
            "verdict": r.verdict, "formula": r.formula, "assumption": r.assumption, "inputs": r.inputs,
            "explanation": r.explanation,
        })
    return _in_book_order(pd.DataFrame(rows))


def _in_book_order(df: pd.DataFrame) -> pd.DataFrame:
    """Rows grouped by the theme of the paper checked, themes in book order, then by check id
    (an order that does not depend on where the checks are defined)."""
    from analysis.data import papers

    rank = {t: i for i, t in enumerate(papers.themes()["id"])}
    theme = papers.load().set_index("citekey")["theme"]
    key = df["citekey"].map(lambda k: rank.get(theme.get(k), len(rank)))
    order = sorted(range(len(df)), key=lambda i: (key.iloc[i], df["check_id"].iloc[i]))
    return df.iloc[order].reset_index(drop=True)


def verdicts_by_citekey(results: pd.DataFrame | None = None) -> dict[str, str]:
    """For the chapter paper tables: each paper's check verdicts, joined."""
    df = run_all() if results is None else results
    out: dict[str, str] = {}
    for key, g in df.groupby("citekey"):
        out[str(key)] = "; ".join(f"{v} ({i})" for i, v in zip(g["check_id"], g["verdict"], strict=True))
    return out
