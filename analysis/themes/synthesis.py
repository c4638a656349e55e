"""Cross-theme synthesis: the headline speedups of the claims ledger, by theme and by kind of baseline,
and how completely the headline claims report their conditions.

A speedup claim is stated either as a factor (unit ``x``: "1.5x faster") or as a percentage
(unit ``%``: "64% faster", meaning 1.64x). :func:`speedup_factor` puts both on one scale. A claim
stated as a range ("1.5-2.0x") is represented by its upper end, which is what a headline quotes,
and keeps its lower end for the plot.

The kind of baseline is read from the ledger's free-text ``baseline`` column by
:func:`analysis.baselines.classify`, the book's one set of keyword rules (first match wins).

Every median and share across claims counts each paper once per group
(:mod:`analysis.models.paper_stats`): a paper's claims in a group are first reduced to their
median (or, for a share, to the paper's own share), and the summary is taken over papers.
"""

from __future__ import annotations

import math

import pandas as pd

from analysis.models import baselines, paper_stats

KINDS = baselines.KINDS  # one taxonomy for the whole book (analysis/models/baselines.py)
classify_baseline = baselines.classify
speedup_factor = baselines.speedup_factor


def headline_speedups(claims: pd.DataFrame, papers: pd.DataFrame) -> pd.DataFrame:
    """Headline speedup claims with their paper's theme, a factor, its lower end and the baseline kind.

    `factor` is the value, or the upper end of a range; `factor_low` the lower end (equal to
    `factor` for single values).
    """
    h = claims[(claims["tier"] == "headline") & (claims["metric"] == "speedup")].copy()
    h = h.merge(papers[["citekey", "theme", "year"]], on="citekey", how="left", validate="many_to_one")
    if h["theme"].isna().any():
        bad = h.loc[h["theme"].isna(), "claim_id"].tolist()
        raise ValueError(f"speedup claims whose citekey is not in papers.csv: {bad}")
    hi = [v if pd.notna(v) else top for v, top in zip(h["value"], h["high"], strict=True)]
    lo = [v if pd.notna(v) else bot for v, bot in zip(h["value"], h["low"], strict=True)]
    h["factor"] = [speedup_factor(v, u) for v, u in zip(hi, h["unit"], strict=True)]
    h["factor_low"] = [speedup_factor(v, u) for v, u in zip(lo, h["unit"], strict=True)]
    h["baseline_kind"] = [classify_baseline(b) for b in h["baseline"]]
    return h.reset_index(drop=True)


def geometric_mean(values: pd.Series) -> float:
    """Geometric mean of positive factors (the right average for ratios)."""
    v = pd.Series(values, dtype=float)
    if v.empty or (v <= 0).any():
        raise ValueError("geometric mean needs positive values")
    return float(math.exp(v.apply(math.log).mean()))


def summarise(h: pd.DataFrame, by: str | None = None, *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per group (or over all of `h` when `by` is None), each paper counted once: papers, claims, the
    median over papers of each paper's median factor with its paper-bootstrap interval, the geometric
    mean of the paper medians, the largest single claim and the share of 'up to' claims (each paper
    weighing one). Sorted by median, largest first."""
    up_to = h.assign(up_to=h["qualifier"] == "up to")
    s = paper_stats.summarise(up_to, "factor", by, flags=["up_to"], n_boot=n_boot, seed=seed)
    s = s.rename(columns={"median": "median_x", "ci_low": "ci_low_x", "ci_high": "ci_high_x",
                          "geomean": "geomean_x", "max_claim": "max_x"})
    s["n"] = [paper_stats.n_label(p, c) for p, c in zip(s["papers"], s["claims"], strict=True)]
    return s.sort_values("median_x", ascending=False).reset_index(drop=True)


REPORTED_FIELDS = ["hardware", "precision", "baseline"]
REPORTED_COLUMNS = ["hardware", "named part", "precision", "baseline"]
GENERIC_HARDWARE = {"GPU", "CPU", "FPGA", "NPU", "TPU", "ASIC"}


def names_specific_part(hardware: object) -> bool:
    """True when a ledger `hardware` cell (ids joined by ';') names at least one specific part,
    not only generic words such as GPU or CPU."""
    if hardware is None or (isinstance(hardware, float) and math.isnan(hardware)):
        return False
    return any(p.strip() and p.strip() not in GENERIC_HARDWARE for p in str(hardware).split(";"))


def compute_budgets(claims: pd.DataFrame, papers: pd.DataFrame, theme: str) -> pd.DataFrame:
    """Headline GPU-day and GPU-hour claims of the papers of `theme`, as GPU-days (hours / 24)."""
    c = claims.merge(papers[["citekey", "theme"]], on="citekey", how="left")
    c = c[(c["theme"] == theme) & c["metric"].isin(["gpu_days", "gpu_hours"])].copy()
    val = [v if pd.notna(v) else hi for v, hi in zip(c["value"], c["high"], strict=True)]
    c["gpu_days"] = [float(v) / 24.0 if m == "gpu_hours" else float(v)
                     for v, m in zip(val, c["metric"], strict=True)]
    return c.reset_index(drop=True)


def reporting_completeness(claims: pd.DataFrame, papers: pd.DataFrame, metrics: list[str] | None = None
                           ) -> pd.DataFrame:
    """Per theme: the share of headline claims (optionally of some metrics) whose ledger row names
    the hardware, a specific part, the precision and the baseline, each paper weighing one (its own
    share among its claims, then the mean over the theme's papers), with the theme's papers and
    claims. A ledger field is filled only when the abstract states it, so this measures what the
    abstracts report."""
    h = claims[claims["tier"] == "headline"]
    if metrics is not None:
        h = h[h["metric"].isin(metrics)]
    h = h.merge(papers[["citekey", "theme"]], on="citekey", how="left")
    flags = pd.DataFrame({"theme": h["theme"], "citekey": h["citekey"], "hardware": h["hardware"].notna(),
                          "named part": h["hardware"].apply(names_specific_part),
                          "precision": h["precision"].notna(), "baseline": h["baseline"].notna()})
    res = paper_stats.paper_shares(flags, REPORTED_COLUMNS, "theme")
    g = flags.groupby("theme")
    res.insert(0, "claims", g.size())
    res.insert(0, "papers", g["citekey"].nunique())
    return res.sort_values(["papers", "claims"], ascending=False)


def verdict_counts(results: pd.DataFrame, verdicts: list[str]) -> dict[str, int]:
    """How many audit checks ended in each verdict (every verdict listed, zeros included)."""
    counts = results["verdict"].value_counts() if len(results) else pd.Series(dtype=int)
    return {v: int(counts.get(v, 0)) for v in verdicts}
