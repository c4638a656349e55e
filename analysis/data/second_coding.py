"""The second, independent coding of the claims ledger (issue 39): which claims, and what the coder sees.

:func:`sample` draws the claims a second coder codes: a seeded random sample of the ledger's comparison
claims (:func:`comparisons`), stratified by the primary theme of each claim's paper so every theme is
represented in proportion. :func:`sheet` writes what the coder is given: for each sampled claim its id,
the number it states and the abstract's own words around it (to find the number), and the whole abstract;
never the first coding's fields (qualifier, baseline, hardware, statistic, bound, baseline class). The
coder fills data/claims-second-coding.csv by chapters/codebook.md alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from analysis.data import claims, corpus, papers

SEED = 20261204
SIZE = 160
COMPARISON_UNITS = claims.COMPARISON_UNITS
COMPARISON_METRICS = claims.COMPARISON_METRICS


def comparisons(ledger: pd.DataFrame | None = None) -> pd.DataFrame:
    """The claims the codebook's typed fields apply to: unit ``x``, or ``%`` with a comparison metric."""
    d = claims.load() if ledger is None else ledger
    return d[claims.comparison_mask(d)]


DRAWN_FROM = "1.0.0"
"""The release whose papers the sample was drawn from (data/releases/<it>/papers.txt): papers accepted later
(`make accept`, issue 35) add claims to the ledger but leave the drawn sample as it was."""


def _population() -> pd.DataFrame:
    from analysis.data.paths import DATA, record_read

    pop = comparisons().merge(papers.load()[["citekey", "theme"]], on="citekey", how="left")
    listed = DATA / "releases" / DRAWN_FROM / "papers.txt"
    if listed.is_file():
        record_read(listed)
        pop = pop[pop["citekey"].isin(set(listed.read_text(encoding="utf-8").split()))]
    return pop


def sample(size: int = SIZE, seed: int = SEED) -> pd.DataFrame:
    """`size` comparison claims of the papers of release :data:`DRAWN_FROM`, drawn per primary theme in
    proportion to the theme's share (at least one each), in claim-id order."""
    pop = _population()
    share = pop["theme"].value_counts(normalize=True)
    counts = (share * size).round().astype(int).clip(lower=1)
    picked = [g.sample(n=min(int(counts[t]), len(g)), random_state=seed) for t, g in pop.groupby("theme")]
    return pd.concat(picked).sort_values("claim_id").reset_index(drop=True)


def sheet(out: Path, size: int = SIZE, seed: int = SEED) -> Path:
    """Write the blind coding sheet (markdown) for the sampled claims to `out`."""
    s = sample(size, seed)
    texts = {p.fingerprint: p.text for p in corpus.load_corpus()}
    fp = papers.load().set_index("citekey")["fingerprint"]
    lines = ["# Second coding sheet (blind)", "",
             f"{len(s)} claims, seed {seed}. Code each by chapters/codebook.md from the abstract alone.", ""]
    for _, r in s.iterrows():
        number = r["value"] if pd.notna(r["value"]) else f"{r['low']}-{r['high']}"
        lines += [f"## {r['claim_id']}", "", f"- number: {number} {r['unit']} (metric {r['metric']})",
                  f"- words around it: \"{r['evidence']}\"", "",
                  texts.get(str(fp.get(r["citekey"], "")), "(abstract missing)"),
                  ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


# --- the two files of the second coding ---------------------------------------------------------------------

DECISIONS = ["agreed", "first", "second", "neither"]
"""How a field's value was settled: both coders agreed, or the review of the abstract kept the first coder's,
the second coder's, or neither (the resolved value, with a note)."""
SECOND_FILE = "claims-second-coding.csv"
REVIEW_FILE = "claims-coding-review.csv"


def _schemas() -> tuple[Any, Any]:
    import pandera.pandas as pa

    from analysis.data.claims import BASELINE_CLASSES, BOUND_ON, BOUNDS, STATISTICS, TYPED

    claim_id = pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*-\d+$"))
    second = pa.DataFrameSchema({
        "claim_id": claim_id.set_checks([pa.Check.str_matches(r"^[a-z][a-z0-9]*-\d+$")]),
        "statistic": pa.Column(str, checks=pa.Check.isin(STATISTICS)),
        "bound": pa.Column(str, nullable=True, checks=pa.Check.isin(BOUNDS)),
        "bound_on": pa.Column(str, nullable=True, checks=pa.Check.isin(BOUND_ON)),
        "baseline_class": pa.Column(str, checks=pa.Check.isin(BASELINE_CLASSES)),
        "baseline_hardware": pa.Column(str, nullable=True),
        "system_hardware": pa.Column(str, nullable=True),
        "coder": pa.Column(str, checks=pa.Check.isin(["second"])),
        "note": pa.Column(str, nullable=True),
    }, strict=True, unique=["claim_id"])
    review = pa.DataFrameSchema({
        "claim_id": claim_id,
        "field": pa.Column(str, checks=pa.Check.isin(TYPED)),
        "first": pa.Column(str, nullable=True),
        "second": pa.Column(str, nullable=True),
        "decision": pa.Column(str, nullable=True, checks=pa.Check.isin(DECISIONS)),
        "resolved": pa.Column(str, nullable=True),
        "note": pa.Column(str, nullable=True),
    }, strict=True, unique=["claim_id", "field"])
    return second, review


def load_second() -> pd.DataFrame:
    """data/claims-second-coding.csv: the blind second coding of :func:`sample`, validated."""
    from analysis.data import tables

    df = tables.read_csv(SECOND_FILE, _schemas()[0])
    _same_claims(SECOND_FILE, df)
    return df


def load_review() -> pd.DataFrame:
    """data/claims-coding-review.csv: both codings of each sampled claim, field by field, and the resolved
    value the abstract supports (the ledger holds it)."""
    from analysis.data import tables

    df = tables.read_csv(REVIEW_FILE, _schemas()[1])
    _same_claims(REVIEW_FILE, df)
    return df


def _same_claims(name: str, df: pd.DataFrame) -> None:
    from analysis.data.paths import DATA, DataError

    want = set(sample()["claim_id"])
    got = set(df["claim_id"])
    if got != want:
        extra, missing = sorted(got - want), sorted(want - got)
        raise DataError(f"{DATA / name}: the claims must be the sample of analysis.data.second_coding "
                        f"(seed {SEED}); not in the sample: {extra[:5]}; missing: {missing[:5]}")
