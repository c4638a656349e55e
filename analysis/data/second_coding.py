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


def sample(size: int = SIZE, seed: int = SEED) -> pd.DataFrame:
    """`size` comparison claims, drawn per primary theme in proportion to the theme's share (at least one each),
    in claim-id order."""
    pop = comparisons().merge(papers.load()[["citekey", "theme"]], on="citekey", how="left")
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
