"""Running the audit: every hand-written and every generated check, rows in book order.

:func:`run_all` returns one table: a row per check, with ``rule`` empty for a hand-written check
and the rule's name for a generated one, the ``severity`` of an inconsistency (see
:func:`analysis.audit.registry.severity`) and the ``condition`` a 'plausible only under an
assumption' verdict rests on. Checks overridden in data/audit-overrides.csv leave the table;
:func:`overridden` lists them. :func:`coverage` says, per rule, how many claims it applies to,
how many it left to hand-written checks and what its checks found.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from analysis.audit import overrides, rules
from analysis.audit.conditions import HANDWRITTEN
from analysis.audit.registry import PLAUSIBLE, REGISTRY, RELATIONS, VERDICTS, Claims, Result, severity
from analysis.data import claims as claims_data
from analysis.data.paths import DataError

COLUMNS = ["check_id", "citekey", "claim_ids", "kind", "rule", "description", "reported", "recomputed", "unit",
           "relation", "tolerance", "verdict", "severity", "condition", "formula", "assumption", "inputs",
           "explanation"]


def _row(check_id: str, citekey: str, claim_ids: tuple[str, ...], kind: str, rule: str, description: str,
         r: Result) -> dict[str, object]:
    condition = r.condition or (HANDWRITTEN.get(check_id, "") if r.verdict == PLAUSIBLE else "")
    return {
        "check_id": check_id, "citekey": citekey, "claim_ids": ";".join(claim_ids), "kind": kind, "rule": rule,
        "description": description, "reported": r.reported, "recomputed": r.recomputed, "unit": r.unit,
        "relation": r.relation, "tolerance": r.tolerance, "verdict": r.verdict,
        "severity": severity(r.verdict, r.reported, r.recomputed, r.relation, r.tolerance),
        "condition": condition if r.verdict == PLAUSIBLE else "", "formula": r.formula,
        "assumption": r.assumption, "inputs": r.inputs, "explanation": r.explanation,
    }


DETAILS = ["check_id", "citekey", "name", "value", "quantity", "unit"]


def _handwritten(c: Claims) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The rows of the hand-written checks, and the intermediate values they report (Result.details)."""
    rows, details = [], []
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
        rows.append(_row(chk.check_id, chk.citekey, chk.claim_ids, chk.kind, "", chk.description, r))
        details += [{"check_id": chk.check_id, "citekey": chk.citekey, "name": name, "value": float(value),
                     "quantity": quantity, "unit": unit} for name, (value, quantity, unit) in r.details.items()]
    return rows, details


@dataclass
class Audit:
    results: pd.DataFrame  # every check, overridden ones included (column 'overridden')
    runs: list[rules.RuleRun]
    overrides: pd.DataFrame
    details: pd.DataFrame  # intermediate values of the hand-written checks (columns DETAILS)


def audit() -> Audit:
    """Run the hand-written checks and the rules, and apply the overrides."""
    ledger = claims_data.load()
    rows, details = _handwritten(Claims(ledger))
    runs = rules.generate(ledger, REGISTRY)
    for run in runs:
        rows += [_row(g.check_id, g.citekey, g.claim_ids, g.kind, g.rule, g.description, g.result)
                 for g in run.generated]
    df = pd.DataFrame(rows, columns=COLUMNS)
    ov = overrides.load()
    overrides.check_against(ov, {g.check_id for run in runs for g in run.generated})
    df["overridden"] = df["check_id"].isin(set(ov["check_id"]))
    return Audit(_in_book_order(df), runs, ov, pd.DataFrame(details, columns=DETAILS))


def run_all() -> pd.DataFrame:
    """Every check that is not overridden; a missing input gives 'not checkable' with the reason."""
    return results_of(audit())


def results_of(a: Audit) -> pd.DataFrame:
    """The audit table of `a` without its overridden checks (what :func:`run_all` returns)."""
    return a.results[~a.results["overridden"]].drop(columns="overridden").reset_index(drop=True)


def overridden(a: Audit | None = None) -> pd.DataFrame:
    """The overridden checks with their computed verdict, the reason and the source."""
    a = audit() if a is None else a
    res = a.results[a.results["overridden"]]
    cols = ["check_id", "citekey", "rule", "claim_ids", "verdict", "description"]
    return res[cols].merge(a.overrides, on="check_id", how="left").reset_index(drop=True)


def coverage(a: Audit | None = None) -> pd.DataFrame:
    """Per rule: claims it applies to, candidates left to hand-written checks, checks generated
    (overrides excluded), checks with a verdict other than 'not checkable', and checks by verdict."""
    a = audit() if a is None else a
    live = a.results[(a.results["rule"] != "") & ~a.results["overridden"]]
    out = []
    for run in a.runs:
        mine = live[live["rule"] == run.rule.name]
        counts = mine["verdict"].value_counts()
        out.append({
            "rule": run.rule.name, "title": run.rule.title, "question": run.rule.question,
            "claims": len(run.in_scope), "left_to_handwritten": len(run.skipped),
            "handwritten_checks": ";".join(sorted({h for _, hs in run.skipped for h in hs})),
            "generated": len(mine), "checked": int((mine["verdict"] != "not checkable").sum()),
            **{v: int(counts.get(v, 0)) for v in VERDICTS},
            "overridden": int((a.results["overridden"] & (a.results["rule"] == run.rule.name)).sum()),
        })
    return pd.DataFrame(out)


def _in_book_order(df: pd.DataFrame) -> pd.DataFrame:
    """Rows grouped by the theme of the paper checked, themes in book order, then hand-written before
    generated checks, then by check id (an order that does not depend on where checks are defined)."""
    from analysis.data import papers

    rank = {t: i for i, t in enumerate(papers.themes()["id"])}
    theme = papers.load().set_index("citekey")["theme"]
    key = df["citekey"].map(lambda k: rank.get(theme.get(k), len(rank)))
    order = sorted(range(len(df)), key=lambda i: (key.iloc[i], df["rule"].iloc[i] != "", df["check_id"].iloc[i]))
    return df.iloc[order].reset_index(drop=True)


def verdicts_by_citekey(results: pd.DataFrame | None = None) -> dict[str, str]:
    """For the chapter paper tables: each paper's hand-written check verdicts, joined, then the
    verdicts of its generated checks counted ('rules: 2 consistent'); a generated check that could
    not be computed is left out (the claims page lists those)."""
    df = run_all() if results is None else results
    rule = df["rule"] if "rule" in df.columns else pd.Series("", index=df.index)
    out: dict[str, str] = {}
    for key, g in df.groupby("citekey"):
        hand = g[rule.loc[g.index] == ""]
        gen = g[(rule.loc[g.index] != "") & (g["verdict"] != "not checkable")]
        parts = [f"{v} ({i})" for i, v in zip(hand["check_id"], hand["verdict"], strict=True)]
        if len(gen):
            counts = gen["verdict"].value_counts()
            parts.append("rules: " + ", ".join(f"{int(counts[v])} {v}" for v in VERDICTS if v in counts))
        if parts:
            out[str(key)] = "; ".join(parts)
    return out
