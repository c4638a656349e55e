"""The claims ledger (data/claims.csv): every quantitative claim of every abstract."""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd
import pandera.pandas as pa

from analysis.data.paths import DATA, DataError
from analysis.data.tables import fail_rows, read_csv

METRICS = ["speedup", "throughput", "utilization", "gpu_hours", "gpu_days", "gpu_count", "cost_usd", "energy",
           "power", "carbon", "memory", "params", "tokens", "accuracy", "latency", "growth_rate", "reduction",
           "compute", "bandwidth", "efficiency", "count", "other"]
UNITS = ["x", "%", "pp", "TFLOP/s", "PFLOP/s", "EFLOP/s", "FLOP", "GFLOP", "TFLOP", "PFLOP", "tokens/s",
         "samples/s", "images/s", "FPS", "ms", "s", "min", "h", "days", "GPU-hours", "GPU-days", "GPUs", "nodes",
         "USD", "kUSD", "MUSD", "BUSD", "J", "kWh", "MWh", "GWh", "W", "kW", "MW", "GW", "tCO2e", "kgCO2e", "MB",
         "GB", "TB", "PB", "GB/s", "TB/s", "K", "M", "B", "T", "count", "score", "dB", "mm2", "TOPS", "TOPS/W",
         "GFLOPS/W", "points", "bits", "x/year"]
QUALIFIERS = ["exact", "up to", "about", "at least", "at most", "average", "over"]
TIERS = ["headline", "setup", "context"]
MAX_EVIDENCE_WORDS = 12

SCHEMA = pa.DataFrameSchema(
    {
        "claim_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*-\d+$")),
        "citekey": pa.Column(str),
        "metric": pa.Column(str, checks=pa.Check.isin(METRICS)),
        "value": pa.Column(float, nullable=True, coerce=True),
        "low": pa.Column(float, nullable=True, coerce=True),
        "high": pa.Column(float, nullable=True, coerce=True),
        "unit": pa.Column(str, checks=pa.Check.isin(UNITS)),
        "qualifier": pa.Column(str, checks=pa.Check.isin(QUALIFIERS)),
        "baseline": pa.Column(str, nullable=True),
        "hardware": pa.Column(str, nullable=True),
        "precision": pa.Column(str, nullable=True),
        "workload": pa.Column(str, nullable=True),
        "evidence": pa.Column(str),
        "tier": pa.Column(str, checks=pa.Check.isin(TIERS)),
        "notes": pa.Column(str, nullable=True),
    },
    strict=True,
)


def _words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def _squash(text: str) -> str:
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    from analysis.data import hardware, papers

    path = DATA / "claims.csv"
    df = read_csv("claims.csv", SCHEMA)
    known = set(papers.load()["citekey"])
    fail_rows(path, df, ~df["citekey"].isin(known), "citekey", "unknown citekey (not in data/papers.csv)")
    no_value = df["value"].isna() & (df["low"].isna() | df["high"].isna())
    fail_rows(path, df, no_value, "value", "give value, or both low and high")
    bad_range = df["low"].notna() & df["high"].notna() & (df["low"] > df["high"])
    fail_rows(path, df, bad_range, "low", "low exceeds high")
    long_ev = df["evidence"].map(lambda s: len(_words(s)) > MAX_EVIDENCE_WORDS)
    fail_rows(path, df, long_ev, "evidence", f"evidence longer than {MAX_EVIDENCE_WORDS} words")
    hardware.check_names(path, df)
    return df


def load() -> pd.DataFrame:
    """The claims table (a copy)."""
    return _load().copy()


def evidence_problems(df: pd.DataFrame, abstracts: dict[str, str]) -> list[str]:
    """Rows whose evidence is not found in the normalised abstract of their paper."""
    out = []
    for pos, (_, row) in enumerate(df.iterrows()):
        i = pos
        text = abstracts.get(row["citekey"])
        if text is None:
            out.append(f"{DATA / 'claims.csv'}: row {int(i) + 2}, column citekey: no abstract for {row['citekey']}")
        elif _squash(row["evidence"]) not in text:
            out.append(f"{DATA / 'claims.csv'}: row {int(i) + 2}, column evidence: not found in the abstract "
                       f"({row['evidence']!r})")
    return out


def check_evidence() -> str:
    """Check every evidence snippet against the seed abstracts (skipped when the seeds are absent)."""
    from analysis.data import corpus, papers

    folder = corpus.seeds_dir()
    if not folder.is_dir():
        return f"evidence not checked: no seed folder at {folder}"
    by_fp = {p.fingerprint: p.text for p in corpus.load_corpus(folder)}
    pp = papers.load()
    abstracts = {k: by_fp.get(fp, "") for k, fp in zip(pp["citekey"], pp["fingerprint"], strict=True)}
    problems = evidence_problems(load(), abstracts)
    if problems:
        raise DataError("\n".join(problems[:20]))
    return "evidence found in the abstracts"
