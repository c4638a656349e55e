"""Cross-theme synthesis: the headline speedups of the claims ledger, by theme and by kind of baseline,
how completely the headline claims report their conditions, and how many report energy.

A speedup claim is stated either as a factor (unit ``x``: "1.5x faster") or as a percentage
(unit ``%``: "64% faster", meaning 1.64x). :func:`speedup_factor` puts both on one scale. Each claim
keeps its typed coding (chapters/codebook.md): its ``statistic``, its ``bound`` and its
``baseline_class``, the kind of baseline it is measured against. Its one number, ``value_x``, is the
value, or the geometric midpoint of a range's two ends (:func:`analysis.models.paper_stats.claim_number`);
``factor`` and ``factor_low`` keep a range's two ends for the plot.

Every median and share across claims counts each paper once per group, by the headline rule of
:mod:`analysis.models.paper_stats`: a paper's value in a group is its most central statistic there
(a single, mean or median value before a range's midpoint, a minimum or a maximum; a stated number
before a bound), never a mix of two statistics; the summary is taken over papers.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from analysis.data.claims import BASELINE_CLASSES
from analysis.models import baselines, paper_stats

KINDS = list(BASELINE_CLASSES)  # the codebook's baseline classes (analysis/data/claims.py), in its order
speedup_factor = baselines.speedup_factor


def headline_speedups(claims: pd.DataFrame, papers: pd.DataFrame) -> pd.DataFrame:
    """Headline speedup claims with their paper's theme, their typed coding and one number each.

    `factor` is the value, or the upper end of a range; `factor_low` the lower end (equal to
    `factor` for single values); `value_x` the claim's number for the statistics (the value, or a
    range's geometric midpoint); `baseline_kind` the coded ``baseline_class``; `maximum` whether the
    claim's statistic is a maximum ("up to").
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
    missing = h.loc[h["statistic"].isna() | h["baseline_class"].isna(), "claim_id"].tolist()
    if missing:
        raise ValueError(f"speedup claims without their typed coding (statistic, baseline_class): {missing}")
    h["value_x"] = [paper_stats.claim_number(None if s == "range" else hi_, lo_, hi_, s)
                    for lo_, hi_, s in zip(h["factor_low"], h["factor"], h["statistic"], strict=True)]
    h["baseline_kind"] = h["baseline_class"]
    h["maximum"] = h["statistic"] == "maximum"
    return h.reset_index(drop=True)


def geometric_mean(values: pd.Series) -> float:
    """Geometric mean of positive factors (the right average for ratios)."""
    v = pd.Series(values, dtype=float)
    if v.empty or (v <= 0).any():
        raise ValueError("geometric mean needs positive values")
    return float(math.exp(v.apply(math.log).mean()))


def summarise(h: pd.DataFrame, by: str | None = None, *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per group (or over all of `h` when `by` is None), each paper counted once by the headline rule
    (analysis.models.paper_stats): papers, claims, the median over papers of the paper values with its
    paper-bootstrap interval, the geometric mean of the paper values, the largest claim (a range at its
    midpoint), the share of maxima ('up to', each paper weighing one) and the papers whose value rests on a
    bound or a range's midpoint. Sorted by median, largest first."""
    up_to = h.assign(up_to=h["maximum"])
    s = paper_stats.summarise(up_to, "value_x", by, flags=["up_to"], n_boot=n_boot, seed=seed, headline=True)
    s = s.rename(columns={"median": "median_x", "ci_low": "ci_low_x", "ci_high": "ci_high_x",
                          "geomean": "geomean_x", "max_claim": "max_x"})
    s["n"] = [paper_stats.n_label(p, c) for p, c in zip(s["papers"], s["claims"], strict=True)]
    return s.sort_values("median_x", ascending=False).reset_index(drop=True)


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


ENERGY_METRICS = {"energy", "power", "carbon"}
ENERGY_UNITS = {"J", "kWh", "MWh", "GWh", "W", "kW", "MW", "GW", "tCO2e", "kgCO2e", "TOPS/W", "GFLOPS/W"}
PER_WORK_UNITS = {"J", "TOPS/W", "GFLOPS/W"}  # energy per unit of work (joules per item, operations per watt)
ENERGY_WORDS = re.compile(r"\benergy\b|\bpower\b|\bco2\b|carbon|emission|watt", re.I)
NOT_ENERGY_METRICS = {"count", "gpu_count", "accuracy", "params", "cost_usd", "speedup"}


def energy_claims(claims: pd.DataFrame) -> pd.DataFrame:
    """The ledger's claims that carry an energy, power or CO2 figure, each with `per_work` (the figure is energy
    per unit of work, in J, TOPS/W or GFLOPS/W), `named_part` (the hardware names a specific part) and `relative`
    (a percentage or a factor against a baseline).

    A claim counts when its metric is energy, power or carbon, its unit is one of energy, power or CO2
    (:data:`ENERGY_UNITS`), or its workload (the coder's words for what the number measures) names energy,
    power, CO2 or emissions; an efficiency claim also when its evidence says energy or power efficiency. A
    count, an accuracy, a size, a cost or a speedup whose workload mentions energy is not an energy figure."""
    workload = claims["workload"].fillna("").astype(str)
    evidence = claims["evidence"].fillna("").astype(str)
    by_type = claims["metric"].isin(ENERGY_METRICS) | claims["unit"].isin(ENERGY_UNITS)
    by_words = workload.str.contains(ENERGY_WORDS) | (
        claims["metric"].eq("efficiency") & evidence.str.contains(r"(?:energy|power) efficiency", case=False))
    e = claims[by_type | (by_words & ~claims["metric"].isin(NOT_ENERGY_METRICS))].copy()
    e["per_work"] = e["unit"].isin(PER_WORK_UNITS)
    e["named_part"] = e["hardware"].apply(names_specific_part)
    e["relative"] = e["unit"].isin(["%", "x"])
    return e


def verdict_counts(results: pd.DataFrame, verdicts: list[str]) -> dict[str, int]:
    """How many audit checks ended in each verdict (every verdict listed, zeros included)."""
    counts = results["verdict"].value_counts() if len(results) else pd.Series(dtype=int)
    return {v: int(counts.get(v, 0)) for v in verdicts}
