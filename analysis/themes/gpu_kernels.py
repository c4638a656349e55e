"""GPU kernels chapter: attention on the roofline, fractions of peak, and what a speedup is measured against.

Pure functions. Units are in the names: ``_tflops`` = 1e12 FLOP/s, ``_tbps`` = 1e12 bytes/s,
intensities in FLOP per byte of off-chip (HBM) traffic.
"""

from __future__ import annotations

import math

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data import claims as claims_schema
from analysis.data.tables import read_csv
from analysis.models import baselines, paper_stats

# --- attention cost model ------------------------------------------------------------------


def attention_flops(seq_len: int, head_dim: int, heads: int = 1, batch: int = 1, causal: bool = False) -> float:
    """Forward FLOP of exact attention: the two matmuls Q·Kᵀ and P·V, 2·N²·d each.

    This is the convention of the FlashAttention papers (Dao 2023, FlashAttention-2, Sec. 4.1):
    4 · seqlen² · head_dim · heads per sequence, halved for causal masking. Softmax is not counted.
    """
    models.require_positive(seq_len=seq_len, head_dim=head_dim, heads=heads, batch=batch)
    flops = 4.0 * batch * heads * seq_len**2 * head_dim
    return flops / 2 if causal else flops


def attention_bytes_fused(seq_len: int, head_dim: int, bytes_per_elem: float, heads: int = 1,
                          batch: int = 1) -> float:
    """Minimum HBM traffic of a fused (FlashAttention-style) kernel in bytes: read Q, K, V, write O."""
    models.require_positive(seq_len=seq_len, head_dim=head_dim, bytes_per_elem=bytes_per_elem, heads=heads, batch=batch)
    return 4.0 * batch * heads * seq_len * head_dim * bytes_per_elem


def attention_bytes_materialised(seq_len: int, head_dim: int, bytes_per_elem: float, heads: int = 1,
                                 batch: int = 1) -> float:
    """HBM traffic of standard attention that writes the N×N score matrix to memory, in bytes.

    Q, K, V read and O written (4·N·d elements) plus S = QKᵀ written and read back by the
    softmax and P written and read back by the second matmul (4·N² elements); the Θ(Nd + N²)
    accesses of Dao et al. 2022 (FlashAttention), Sec. 3.2, with the constants spelled out.
    """
    models.require_positive(seq_len=seq_len, head_dim=head_dim, bytes_per_elem=bytes_per_elem, heads=heads, batch=batch)
    return (4.0 * seq_len * head_dim + 4.0 * seq_len**2) * batch * heads * bytes_per_elem


def attention_intensity(seq_len: int, head_dim: int, bytes_per_elem: float, fused: bool = True,
                        causal: bool = False) -> float:
    """Arithmetic intensity of attention in FLOP/byte (batch and heads cancel).

    Fused, non-causal: 4N²d / (4Nd·B) = N/B. Materialised: 4N²d / ((4Nd + 4N²)·B) → d/B for N ≫ d.
    """
    flops = attention_flops(seq_len, head_dim, causal=causal)
    io = (attention_bytes_fused if fused else attention_bytes_materialised)(seq_len, head_dim, bytes_per_elem)
    return flops / io


def compute_bound_seq_len(peak_tflops: float, mem_bw_tbps: float, bytes_per_elem: float,
                          causal: bool = False) -> float:
    """Shortest sequence at which fused attention reaches the ridge point (tokens): N = ridge × B (× 2 if causal)."""
    ridge = models.ridge_point(peak_tflops, mem_bw_tbps)
    models.require_positive(bytes_per_elem=bytes_per_elem)
    return ridge * bytes_per_elem * (2.0 if causal else 1.0)


# --- throughput and utilisation -------------------------------------------------------------

_TO_TFLOPS = {"TFLOP/s": 1.0, "PFLOP/s": 1e3, "EFLOP/s": 1e6}


def to_tflops(value: float, unit: str) -> float:
    """A throughput in TFLOP/s, from a value in TFLOP/s, PFLOP/s or EFLOP/s."""
    if unit not in _TO_TFLOPS:
        raise models.ModelError(f"not a FLOP/s unit: {unit!r}")
    models.require_non_negative(value=value)
    return value * _TO_TFLOPS[unit]


def achieved_from_utilisation(utilisation_pct: float, peak_tflops: float) -> float:
    """Achieved TFLOP/s implied by a stated utilisation (percent of a dense peak)."""
    models.require_non_negative(utilisation_pct=utilisation_pct)
    models.require_positive(peak_tflops=peak_tflops)
    return utilisation_pct / 100.0 * peak_tflops


# --- speedups and their baselines -------------------------------------------------------------

BASELINE_CLASSES = list(claims_schema.BASELINE_CLASSES)  # the codebook's classes (chapters/codebook.md), in its order
speedup_factor = baselines.speedup_factor


def baseline_ceiling(speedup: float) -> float:
    """Highest fraction of peak the baseline can have reached if the faster kernel is at most at peak: 1/S."""
    models.require_positive(speedup=speedup)
    return min(1.0, 1.0 / speedup)


def headline_value(value: float, low: float, high: float) -> float:
    """The number an abstract leads with: the single value, else the top of the range (drawn in the figure)."""
    for v in (value, high, low):
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            return float(v)
    raise models.ModelError("claim has neither a value nor a range")


def classify_speedups(claims: pd.DataFrame) -> pd.DataFrame:
    """Speedup claims with their factor, their one number and their coded baseline class. `claims` has the columns
    of data/claims.csv, typed coding included (chapters/codebook.md).

    `factor` is the value or a range's top (what the figure draws), `factor_low` a range's bottom, `value_x` the
    claim's number for the statistics (:func:`analysis.models.paper_stats.claim_number`: a range's geometric
    midpoint), `baseline_class` the ledger's coded class and `baseline_ceiling` 1/`factor`.
    """
    df = claims[claims["metric"] == "speedup"].copy()
    missing = df.loc[df["statistic"].isna() | df["baseline_class"].isna(), "claim_id"].tolist()
    if missing:
        raise models.ModelError(f"speedup claims without their typed coding: {missing}")
    df["headline"] = [headline_value(v, lo, hi) for v, lo, hi in zip(df["value"], df["low"], df["high"], strict=True)]
    df["factor"] = [speedup_factor(v, u) for v, u in zip(df["headline"], df["unit"], strict=True)]
    low = [v if pd.notna(v) else lo for v, lo in zip(df["value"], df["low"], strict=True)]
    df["factor_low"] = [speedup_factor(v, u) for v, u in zip(low, df["unit"], strict=True)]
    df["value_x"] = [paper_stats.claim_number(None if st == "range" else hi, lo, hi, st)
                     for lo, hi, st in zip(df["factor_low"], df["factor"], df["statistic"], strict=True)]
    df["baseline_ceiling"] = [baseline_ceiling(f) for f in df["factor"]]
    return df


def summarise_speedups(sp: pd.DataFrame, by: str | None = "baseline_class", *, n_boot: int = 2000,
                       seed: int = 0) -> pd.DataFrame:
    """Speedups per group (by default the baseline class, in the order of BASELINE_CLASSES), each
    paper counted once by the headline rule (analysis.models.paper_stats): papers, claims, the median
    over papers of the paper values with its paper-bootstrap interval, the geometric mean of the paper
    values, the largest claim (a range at its midpoint) and the share of claims above 10x (each paper
    weighing one). `sp` comes from classify_speedups."""
    over10 = sp.assign(over_10x=sp["value_x"] > 10)
    s = paper_stats.summarise(over10, "value_x", by, flags=["over_10x"], n_boot=n_boot, seed=seed, headline=True)
    s["n"] = [paper_stats.n_label(p, c) for p, c in zip(s["papers"], s["claims"], strict=True)]
    if by == "baseline_class":
        s = s.set_index(by).reindex([k for k in BASELINE_CLASSES if k in set(s[by])])
    return s


# --- data: the kernel throughputs placed on the roofline ------------------------------------------

POINTS_SCHEMA = pa.DataFrameSchema(
    {
        "point_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z0-9\-]+$")),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*$")),
        "claim_id": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*-\d+$")),
        "kernel": pa.Column(str),
        "hardware_id": pa.Column(str),
        "precision": pa.Column(str, checks=pa.Check.isin(["fp16", "bf16", "fp8", "tf32", "fp32"])),
        "bytes_per_elem": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "source": pa.Column(str),
    },
    strict=True,
)


def load_points() -> pd.DataFrame:
    """data/gpu-kernels-points.csv: which throughput or utilisation claims go on the roofline, on which SKU."""
    return read_csv("gpu-kernels-points.csv", POINTS_SCHEMA)


def _describe_points() -> str:
    from analysis.data import claims as claims_data
    from analysis.data import hardware
    from analysis.data.paths import DataError

    df = load_points()
    known = set(claims_data.load()["claim_id"])
    hw = set(hardware.load().index)
    for i, r in enumerate(df.itertuples(), start=2):
        if r.claim_id not in known:
            raise DataError(f"data/gpu-kernels-points.csv: row {i}, column claim_id: unknown claim {r.claim_id!r}")
        if r.hardware_id not in hw:
            raise DataError(f"data/gpu-kernels-points.csv: row {i}, column hardware_id: unknown {r.hardware_id!r}")
    return f"{len(df)} kernel throughput points"


DATA_FILES = {"gpu-kernels-points.csv": _describe_points}


# --- tile and wave quantisation of GEMMs (issue 33) ------------------------------------------------------------

def quantisation_table(shapes: dict[str, tuple[int, int]], sms: dict[str, int], tile_m: int = 256,
                       tile_n: int = 128) -> pd.DataFrame:
    """For each named output shape (M, N) and each GPU (number of SMs), the tiles, waves, idle share of the
    last wave, tile and wave efficiency and their product, the bound on the fraction of peak
    (:mod:`analysis.models.gemm_waves`; one `tile_m` × `tile_n` tile per SM at a time)."""
    from analysis.models import gemm_waves as gw

    rows = []
    for name, (m, n) in shapes.items():
        for gpu, k in sms.items():
            tiles = gw.gemm_tiles(m, n, tile_m, tile_n)
            rows.append({"shape": name, "m": m, "n": n, "gpu": gpu, "sms": k, "tiles": tiles,
                         "waves": gw.waves(tiles, k), "last_wave_idle": gw.last_wave_idle_fraction(tiles, k),
                         "tile_eff": gw.tile_efficiency(m, n, tile_m, tile_n),
                         "wave_eff": gw.wave_efficiency(tiles, k),
                         "bound": gw.quantised_fraction_of_peak(m, n, tile_m, tile_n, k)})
    return pd.DataFrame(rows)
