"""Statistics across papers: every paper counts once in every group it belongs to.

A paper can state several claims that fall into one group (CUDA-L1 gives one mean speedup per
GPU, CUDA-L2 one per baseline and timing mode). Treated as independent, such claims let one paper
pull a group's median towards its own numbers. The book's one rule is therefore two-step:

1. :func:`paper_values` reduces each paper to one value per group, the median of its claims there;
2. :func:`summarise` takes the median (and the geometric mean) of those paper values, reports the
   group's size as papers *and* claims, and a percentile bootstrap interval of the median that
   resamples papers, never single claims (seeded, so a build gives the same interval every time).

**The headline rule** (:func:`headline_values`, used for every cross-paper speedup figure of the
book). A comparison claim of the ledger is coded with its statistic (``single``, ``mean``, ``median``,
``minimum``, ``maximum``, ``range``) and, where the abstract gives only a bound, its ``bound``
(chapters/codebook.md). Each claim first gets one number: its value, or for a ``range`` the geometric
midpoint of its two ends, sqrt(low * high) (flagged ``range midpoint``); a number that is only a bound
("more than 917x") enters as the bound itself, flagged ``bounded``. A paper's value in a group is then
its headline statistic: only the claims of its most central statistic count, in the order
:data:`STATISTIC_ORDER` (a single, mean or median value, then a range's midpoint, then a minimum, then
a maximum), a stated number before a bound; the paper's value is the median of those claims alone.
Two statistics are never mixed: a paper that gives an average of 2.6x and a maximum of 125x enters as
2.6x, never as (2.6 + 125) / 2. Over papers, the median and its paper bootstrap interval follow as
above, and :func:`compare_intervals` says two groups differ only when their intervals do not overlap.

A share ("how many of the claims are below 2x", "how many name a precision") follows the same
rule in :func:`paper_shares` (and in the ``flags`` of :func:`summarise`): each paper's share among
its own claims in the group, then the mean over papers, so every paper weighs one whatever its
number of claims. :func:`n_label` writes the size of a group for figures and tables:
``n = 7 papers (12 claims)``.

Pure functions on data frames; no file I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.models.base import ModelError

PAPER = "citekey"  # the column that names a claim's paper in data/claims.csv

SUMMARY_COLUMNS = ["papers", "claims", "median", "ci_low", "ci_high", "geomean", "max_claim"]

# The headline rule: a paper's value in a group comes from its claims of the first statistic in this order
# (single, mean and median are one rank: each is the paper's central figure), a stated number before a bound.
STATISTIC_ORDER: dict[str, int] = {"single": 0, "mean": 0, "median": 0, "range": 1, "minimum": 2, "maximum": 3}
HEADLINE_COLUMNS = ["statistic_used", "claims_used", "bounded", "range_midpoint"]


def claim_number(value: float | None, low: float | None, high: float | None, statistic: str) -> float:
    """The one number a claim contributes: its value, or for a ``range`` the geometric midpoint sqrt(low * high)."""
    if statistic == "range":
        if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high < low:
            raise ModelError(f"a range needs positive ends low <= high, got {low!r}-{high!r}")
        return math.sqrt(low * high)
    if statistic not in STATISTIC_ORDER:
        raise ModelError(f"unknown statistic {statistic!r}; one of {sorted(STATISTIC_ORDER)}")
    if value is None or not math.isfinite(value):
        raise ModelError(f"a {statistic} claim needs a value")
    return float(value)


def headline_values(frame: pd.DataFrame, value: str, by: str | Sequence[str] | None = None, paper: str = PAPER, *,
                    statistic: str = "statistic", bound: str = "bound") -> pd.DataFrame:
    """One row per group and paper by the headline rule (module docstring): the median of the paper's claims
    of its most central statistic in the group, a stated number before a bound.

    `value` holds each claim's number (:func:`claim_number`: a range's geometric midpoint), `statistic` its
    coded statistic, `bound` its bound (empty or NaN when the number is not a bound). Returns the group
    columns, `paper`, `value`, `claims` (all the paper's claims in the group), `claims_used`, `statistic_used`
    (the statistics of the claims used, joined with '+'), `bounded` (the value rests on a bound) and
    `range_midpoint` (it rests on a range's midpoint).
    """
    keys = _by_list(by)
    _check(frame, [*keys, paper, value, statistic, bound])
    if frame[value].isna().any():
        raise ModelError(f"claims without a {value!r}: a median across papers needs every value")
    unknown = set(frame[statistic].dropna()) - set(STATISTIC_ORDER)
    if frame[statistic].isna().any() or unknown:
        raise ModelError(f"claims without a known statistic: {sorted(map(str, unknown)) or 'empty'}")
    f = frame[[*keys, paper, value, statistic]].copy()
    f["_bounded"] = [isinstance(b, str) and bool(b.strip()) for b in frame[bound]]
    f["_rank"] = f[statistic].map(STATISTIC_ORDER) * 2 + f["_bounded"].astype(int)
    rows = []
    for key, g in f.groupby([*keys, paper], sort=True):
        key_t = key if isinstance(key, tuple) else (key,)
        best = g[g["_rank"] == g["_rank"].min()]
        row: dict[str, object] = dict(zip([*keys, paper], key_t, strict=True))
        row.update({value: float(np.median(best[value].to_numpy(dtype=float))), "claims": int(len(g)),
                    "claims_used": int(len(best)), "statistic_used": "+".join(sorted(set(best[statistic]))),
                    "bounded": bool(best["_bounded"].any()),
                    "range_midpoint": bool((best[statistic] == "range").any())})
        rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, paper, value, "claims", *HEADLINE_COLUMNS])


def compare_intervals(a: tuple[float, float], b: tuple[float, float]) -> str:
    """The verdict words on two groups' interval (low, high) of the median: they differ only when the intervals do
    not overlap."""
    (a_lo, a_hi), (b_lo, b_hi) = sorted(a), sorted(b)
    if max(a_lo, b_lo) <= min(a_hi, b_hi):
        return "the two intervals overlap, so the difference is not established"
    return "the two intervals do not overlap, so the two medians differ"


def _by_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _check(frame: pd.DataFrame, columns: list[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ModelError(f"columns missing from the claims: {missing}")


def paper_values(frame: pd.DataFrame, value: str, by: str | Sequence[str] | None = None,
                 paper: str = PAPER) -> pd.DataFrame:
    """One row per group and paper: the median of the paper's `value`s in the group, and its claim count.

    Returns the group columns, `paper`, `value` (the paper's median claim) and `claims`. A claim
    without a value (NaN) is refused: a median over papers would otherwise drop it silently.
    """
    keys = _by_list(by)
    _check(frame, [*keys, paper, value])
    if frame[value].isna().any():
        raise ModelError(f"claims without a {value!r}: a median across papers needs every value")
    g = frame.groupby([*keys, paper], sort=True)[value]
    out = g.median().rename(value).to_frame()
    out["claims"] = g.size()
    return out.reset_index()


def bootstrap_median_ci(values: Sequence[float] | np.ndarray, *, n_boot: int = 2000, level: float = 0.95,
                        seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the median of `values` (one value per paper).

    Resamples the values with replacement `n_boot` times with ``numpy.random.default_rng(seed)``;
    with a single value the interval is that value.
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ModelError("a bootstrap needs at least one finite value")
    if not 0 < level < 1 or n_boot < 1:
        raise ModelError("level must lie in (0, 1) and n_boot be positive")
    if v.size == 1:
        return float(v[0]), float(v[0])
    rng = np.random.default_rng(seed)
    medians = np.median(v[rng.integers(0, v.size, (n_boot, v.size))], axis=1)
    tail = 100 * (1 - level) / 2
    lo, hi = np.percentile(medians, [tail, 100 - tail])
    return float(lo), float(hi)


def summarise(frame: pd.DataFrame, value: str, by: str | Sequence[str] | None = None, paper: str = PAPER, *,
              flags: Sequence[str] = (), n_boot: int = 2000, level: float = 0.95, seed: int = 0,
              headline: bool = False) -> pd.DataFrame:
    """Per group: papers, claims, the median over papers of each paper's value, its bootstrap
    interval over papers, the geometric mean of the paper values (NaN unless all are positive) and
    the largest single claim; for every boolean column in `flags` also ``share_<flag>``, the share
    of claims for which it holds with each paper weighing one (as :func:`paper_shares`).

    A paper's value is its median claim in the group, or with `headline` its value by the headline rule
    (:func:`headline_values`, which needs the columns ``statistic`` and ``bound``); then ``bounded_papers``
    counts the papers whose value rests on a bound and ``range_papers`` those whose value is a range's
    midpoint. With `by` None the whole frame is one group. Every group's interval uses the same `seed`.
    """
    keys = _by_list(by)
    _check(frame, list(flags))
    per_paper = headline_values(frame, value, keys, paper) if headline else paper_values(frame, value, keys, paper)
    # the same (group, paper) order as paper_values: groupby sorts its keys
    per_paper["max_claim"] = frame.groupby([*keys, paper], sort=True)[value].max().to_numpy()
    for f in flags:
        per_paper[f"share_{f}"] = frame[f].astype(bool).astype(float).groupby(
            [frame[k] for k in [*keys, paper]], sort=True).mean().to_numpy()
    rows = []
    groups = per_paper.groupby(keys, sort=True) if keys else [((), per_paper)]
    for key, g in groups:
        key_t = key if isinstance(key, tuple) else (key,)
        v = g[value].to_numpy(dtype=float)
        lo, hi = bootstrap_median_ci(v, n_boot=n_boot, level=level, seed=seed)
        geo = float(np.exp(np.log(v).mean())) if np.all(v > 0) else float("nan")
        row: dict[str, object] = dict(zip(keys, key_t, strict=True))
        row.update({"papers": int(len(g)), "claims": int(g["claims"].sum()), "median": float(np.median(v)),
                    "ci_low": lo, "ci_high": hi, "geomean": geo, "max_claim": float(g["max_claim"].max())})
        row.update({f"share_{f}": float(g[f"share_{f}"].mean()) for f in flags})
        if headline:
            row.update({"bounded_papers": int(g["bounded"].sum()), "range_papers": int(g["range_midpoint"].sum())})
        rows.append(row)
    extra = ["bounded_papers", "range_papers"] if headline else []
    return pd.DataFrame(rows, columns=[*keys, *SUMMARY_COLUMNS, *(f"share_{f}" for f in flags), *extra])


def paper_shares(frame: pd.DataFrame, flags: Sequence[str], by: str | Sequence[str] | None = None,
                 paper: str = PAPER) -> pd.DataFrame:
    """Share of the claims for which each boolean column of `flags` is true, each paper weighing one.

    Each paper's share among its own claims of the group, then the mean over the group's papers.
    One row per group (indexed by the group; a single row ``all`` without `by`), one column per flag.
    """
    keys = _by_list(by)
    _check(frame, [*keys, paper, *flags])
    f = frame[[*keys, paper]].copy()
    for flag in flags:
        f[flag] = frame[flag].astype(bool).astype(float)
    per_paper = f.groupby([*keys, paper], sort=True)[list(flags)].mean()
    if not keys:
        return per_paper.mean().to_frame("all").T
    return per_paper.groupby(level=list(range(len(keys))), sort=True).mean()


def paper_share(frame: pd.DataFrame, flag: str, paper: str = PAPER) -> float:
    """:func:`paper_shares` of one flag over the whole frame: each paper's share, then the mean over papers."""
    return float(paper_shares(frame, [flag], None, paper).to_numpy(dtype=float)[0, 0])


def n_label(papers: int, claims: int, noun: str = "claim") -> str:
    """``n = 7 papers (12 claims)``: the size of a group, papers first."""
    if papers < 0 or claims < papers:
        raise ModelError("a group has at least one claim per paper")
    p = "paper" if papers == 1 else "papers"
    c = noun if claims == 1 else noun + "s"
    return f"n = {papers} {p} ({claims} {c})"
