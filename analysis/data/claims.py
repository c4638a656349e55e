"""The claims ledger (data/claims.csv): every quantitative claim of every abstract."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Self

import pandas as pd
import pandera.pandas as pa

from analysis.data.paths import DATA, DataError
from analysis.data.schemas import opt_float
from analysis.data.tables import fail_rows, read_csv

METRICS = ["speedup", "throughput", "utilization", "gpu_hours", "gpu_days", "gpu_count", "cost_usd", "energy",
           "power", "carbon", "memory", "params", "tokens", "accuracy", "latency", "growth_rate", "reduction",
           "compute", "bandwidth", "efficiency", "count", "other"]
UNITS = ["x", "%", "pp", "TFLOP/s", "PFLOP/s", "EFLOP/s", "FLOP", "GFLOP", "TFLOP", "PFLOP", "tokens/s",
         "samples/s", "images/s", "FPS", "ms", "s", "min", "h", "days", "GPU-hours", "GPU-days", "GPUs", "nodes",
         "USD", "kUSD", "MUSD", "BUSD", "J", "kWh", "MWh", "GWh", "W", "kW", "MW", "GW", "tCO2e", "kgCO2e", "MB",
         "GB", "TB", "PB", "GB/s", "TB/s", "K", "M", "B", "T", "count", "score", "dB", "mm2", "TOPS", "TOPS/W",
         "GFLOPS/W", "points", "bits", "x/year", "orders of magnitude"]
QUALIFIERS = ["exact", "up to", "about", "at least", "at most", "average", "over", "range"]
TIERS = ["headline", "setup", "context"]
MAX_EVIDENCE_WORDS = 12

# The typed coding of the comparison claims (chapters/codebook.md): the vocabularies of its fields.
STATISTICS = ["single", "maximum", "mean", "median", "minimum", "range"]
BOUNDS = ["lower", "upper"]
BOUND_ON = ["value", "low", "high"]
BASELINE_CLASSES = ["different hardware", "same system, other setting", "naive code", "vendor library", "framework",
                    "previous paper or system", "named model or method", "unstated"]
TYPED = ["statistic", "bound", "bound_on", "baseline_class", "baseline_hardware", "system_hardware"]
# the claims the typed fields apply to: unit x, or % with a comparison metric
COMPARISON_UNITS = ("x",)
COMPARISON_METRICS = ("speedup", "reduction", "efficiency")
# a qualifier that names a statistic, and the statistic it names (both directions must agree)
QUALIFIER_OF = {"maximum": "up to", "mean": "average", "range": "range"}

SCHEMA = pa.DataFrameSchema(
    {
        "claim_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*-\d+$")),
        "citekey": pa.Column(str),
        "metric": pa.Column(str, checks=pa.Check.isin(METRICS)),
        "value": opt_float(),
        "low": opt_float(),
        "high": opt_float(),
        "unit": pa.Column(str, checks=pa.Check.isin(UNITS)),
        "qualifier": pa.Column(str, checks=pa.Check.isin(QUALIFIERS)),
        "baseline": pa.Column(str, nullable=True),
        "hardware": pa.Column(str, nullable=True),
        "statistic": pa.Column(str, nullable=True, checks=pa.Check.isin(STATISTICS)),
        "bound": pa.Column(str, nullable=True, checks=pa.Check.isin(BOUNDS)),
        "bound_on": pa.Column(str, nullable=True, checks=pa.Check.isin(BOUND_ON)),
        "baseline_class": pa.Column(str, nullable=True, checks=pa.Check.isin(BASELINE_CLASSES)),
        "baseline_hardware": pa.Column(str, nullable=True),
        "system_hardware": pa.Column(str, nullable=True),
        "precision": pa.Column(str, nullable=True),
        "workload": pa.Column(str, nullable=True),
        "evidence": pa.Column(str),
        "tier": pa.Column(str, checks=pa.Check.isin(TIERS)),
        "notes": pa.Column(str, nullable=True),
    },
    strict=True,
)


def _text(v: object) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)


def _float_or_none(v: object) -> float | None:
    """A cell's number, or None for an empty (NaN) or text cell."""
    if v is None or isinstance(v, str):
        return None
    f = float(v)  # type: ignore[arg-type]
    return None if math.isnan(f) else f


@dataclass(frozen=True)
class Claim:
    """One row of data/claims.csv, typed (empty strings for missing text, None for missing numbers).

    The one record type of a claim: the audit reads the ledger as these (analysis.audit.rules.base
    adds the tolerance of a printed figure), and `make corpus` proposes its candidates as these.
    """

    claim_id: str
    citekey: str
    metric: str
    value: float | None
    low: float | None
    high: float | None
    unit: str
    qualifier: str
    baseline: str
    hardware: str
    precision: str
    workload: str
    evidence: str
    tier: str
    notes: str
    # the typed coding of a comparison claim (chapters/codebook.md); empty for other claims
    statistic: str = ""
    bound: str = ""
    bound_on: str = ""
    baseline_class: str = ""
    baseline_hardware: str = ""
    system_hardware: str = ""

    @classmethod
    def from_row(cls, r: Mapping[Any, Any]) -> Self:
        return cls(_text(r["claim_id"]), _text(r["citekey"]), _text(r["metric"]), _float_or_none(r["value"]),
                   _float_or_none(r["low"]), _float_or_none(r["high"]), _text(r["unit"]), _text(r["qualifier"]),
                   _text(r["baseline"]),
                   _text(r["hardware"]), _text(r["precision"]), _text(r["workload"]), _text(r["evidence"]),
                   _text(r["tier"]), _text(r["notes"]), *(_text(r.get(c)) for c in TYPED))

    @property
    def comparison(self) -> bool:
        """Whether the codebook's typed fields apply (unit x, or % with a comparison metric)."""
        return self.unit in COMPARISON_UNITS or (self.unit == "%" and self.metric in COMPARISON_METRICS)

    @property
    def single(self) -> bool:
        return self.value is not None

    @property
    def upper(self) -> float:
        """The value, or the top of a range."""
        if self.value is not None:
            return self.value
        assert self.high is not None
        return self.high

    @property
    def lower(self) -> float:
        if self.value is not None:
            return self.value
        assert self.low is not None
        return self.low

    @property
    def shown(self) -> str:
        """The value as the ledger holds it, with its unit."""
        v = f"{self.value:g}" if self.value is not None else f"{self.low:g}-{self.high:g}"
        return f"{v} {self.unit}".strip()

    def words(self) -> str:
        """Workload and evidence, lower case: where a rule looks for words such as 'end-to-end'."""
        return f"{self.workload} {self.evidence}".lower()

    def row(self) -> dict[str, str]:
        """The claim as a row of data/claims.csv (numbers written as the ledger writes them)."""
        def fmt(x: float | None) -> str:
            return "" if x is None else str(int(x)) if float(x).is_integer() else repr(x)

        return {"claim_id": self.claim_id, "citekey": self.citekey, "metric": self.metric, "value": fmt(self.value),
                "low": fmt(self.low), "high": fmt(self.high), "unit": self.unit, "qualifier": self.qualifier,
                "baseline": self.baseline, "hardware": self.hardware, "precision": self.precision,
                "workload": self.workload, "evidence": self.evidence, "tier": self.tier, "notes": self.notes,
                **{c: getattr(self, c) for c in TYPED}}



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
    for col in ("baseline_hardware", "system_hardware"):
        hardware.check_names(path, df, col)
    check_typed(path, df)
    return df


def comparison_mask(df: pd.DataFrame) -> pd.Series:
    """The rows the codebook's typed fields apply to: unit ``x``, or ``%`` with a comparison metric."""
    return df["unit"].isin(COMPARISON_UNITS) | (df["unit"].eq("%") & df["metric"].isin(COMPARISON_METRICS))


def check_typed(path: Path, df: pd.DataFrame) -> None:
    """The codebook's rules across columns (chapters/codebook.md), each failure naming file, row and column.

    A comparison claim has a statistic and a baseline class; another claim has no typed field. A range
    (statistic ``range``, qualifier ``range``) has low and high and no value, and only a range has no value.
    ``bound_on`` is set exactly when ``bound`` is, and names a number the row has. The qualifier agrees with
    the statistic: ``up to`` is a maximum, ``average`` a mean, and a bound on a single value is ``over`` or
    ``at least`` (lower) or ``at most`` (upper).
    """
    comp = comparison_mask(df)
    stat, bound, on, qual = (df[c].fillna("") for c in ("statistic", "bound", "bound_on", "qualifier"))
    fail_rows(path, df, comp & df["statistic"].isna(), "statistic",
              "a comparison claim needs a statistic (chapters/codebook.md)")
    fail_rows(path, df, comp & df["baseline_class"].isna(), "baseline_class",
              "a comparison claim needs a baseline_class (chapters/codebook.md)")
    for col in TYPED:
        fail_rows(path, df, ~comp & df[col].notna(), col,
                  "only a comparison claim (unit x, or % with metric speedup, reduction or efficiency) is coded")
    ranged = df["value"].isna()
    fail_rows(path, df, ranged & ~qual.eq("range"), "qualifier",
              "a range (no value; low and high) is qualified 'range'")
    fail_rows(path, df, ~ranged & qual.eq("range"), "qualifier", "qualifier 'range' needs low and high and no value")
    fail_rows(path, df, stat.eq("range") & ~ranged, "value",
              "statistic 'range' leaves value empty (low and high hold the ends)")
    fail_rows(path, df, comp & ranged & ~stat.eq("range"), "statistic",
              "a range (no value; low and high) has statistic 'range'")
    fail_rows(path, df, ~ranged & (df["low"].notna() | df["high"].notna()), "low",
              "a single value has no low or high (a range leaves value empty)")
    fail_rows(path, df, bound.ne("") & on.eq(""), "bound_on", "a bound needs bound_on (value, low or high)")
    fail_rows(path, df, bound.eq("") & on.ne(""), "bound", "bound_on is set but bound is empty")
    fail_rows(path, df, on.eq("value") & ranged, "bound_on", "bound_on 'value' on a range (use low or high)")
    fail_rows(path, df, on.isin(["low", "high"]) & ~ranged, "bound_on", "bound_on 'low' or 'high' needs a range")
    for st, q in QUALIFIER_OF.items():
        fail_rows(path, df, comp & stat.eq(st) & ~qual.eq(q), "qualifier", f"statistic {st!r} is qualified {q!r}")
        fail_rows(path, df, comp & qual.eq(q) & ~stat.eq(st), "statistic", f"qualifier {q!r} is statistic {st!r}")
    single_bound = comp & on.eq("value")
    fail_rows(path, df, single_bound & bound.eq("lower") & ~qual.isin(["over", "at least"]), "qualifier",
              "a lower bound on the value is qualified 'over' or 'at least'")
    fail_rows(path, df, single_bound & bound.eq("upper") & ~qual.eq("at most"), "qualifier",
              "an upper bound on the value is qualified 'at most'")
    fail_rows(path, df, comp & qual.isin(["over", "at most"]) & ~single_bound, "bound",
              "qualifier 'over' or 'at most' is a bound on the value (bound_on 'value')")
    fail_rows(path, df, comp & qual.eq("at least") & ~(single_bound | stat.eq("minimum")), "bound",
              "qualifier 'at least' is a lower bound on the value, or statistic 'minimum'")


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
