"""Quantization chapter: the decode-speed bound of weight quantization and the memory needed to hold a model.

Pure functions on top of :mod:`analysis.models`. Units are in the names: ``bits`` per weight,
``_gb`` = 1e9 bytes, ``_tbps`` = 1e12 bytes/s, ``_tflops`` = 1e12 FLOP/s.
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data.tables import read_csv


def bytes_per_weight(bits: float) -> float:
    """Bytes per weight at `bits` bits (4 bits → 0.5 bytes). Scale factors are not counted."""
    models.require_positive(bits=bits)
    return bits / 8.0


def weights_gb_bits(params: float, bits: float) -> float:
    """Memory of the weights alone in GB at `bits` bits per weight (any bit width, also below 1)."""
    models.require_positive(params=params)
    return params * bytes_per_weight(bits) / 1e9


def decode_speedup_bound(batch: int, bits: float, mem_bw_tbps: float, peak_tflops: float, params: float = 7e9,
                         base_bits: float = 16.0, kv_bytes_per_seq: float = 0.0) -> float:
    """Upper bound on the decode speedup of `bits`-bit weights over `base_bits`-bit weights.

    Ratio of two roofline decode rates (:func:`analysis.models.decode_tokens_per_s`): each step reads
    all weights once plus every sequence's KV cache (which weight quantization does not shrink) and
    computes 2·N·batch FLOP at `peak_tflops` (the matmuls still run at 16 bits after dequantisation).
    Without a KV cache the ratio does not depend on `params`.
    """
    quant = models.decode_tokens_per_s(params, batch, mem_bw_tbps, peak_tflops,
                                       weight_bytes=bytes_per_weight(bits), kv_bytes_per_seq=kv_bytes_per_seq)
    base = models.decode_tokens_per_s(params, batch, mem_bw_tbps, peak_tflops,
                                      weight_bytes=bytes_per_weight(base_bits), kv_bytes_per_seq=kv_bytes_per_seq)
    return quant / base


def compute_bound_batch(bits: float, mem_bw_tbps: float, peak_tflops: float) -> float:
    """Batch size at which a decode step with `bits`-bit weights turns compute-bound (no KV cache).

    Reading N·bits/8 bytes takes as long as 2·N·b FLOP when b = ridge × (bits/8) / 2.
    """
    return models.ridge_point(peak_tflops, mem_bw_tbps) * bytes_per_weight(bits) / 2.0


def bits_implied(speedup: float, base_bits: float = 16.0) -> float:
    """Largest weight width that can give `speedup` over `base_bits` in the memory-bound limit: base / S."""
    models.require_positive(speedup=speedup, base_bits=base_bits)
    return base_bits / speedup


def gpus_needed(params: float, bits: float, memory_gb: float, usable_fraction: float = 1.0) -> int:
    """Smallest number of GPUs of `memory_gb` that hold the weights at `bits` bits (a lower bound: no KV cache)."""
    return models.gpus_to_hold(weights_gb_bits(params, bits), memory_gb, usable_fraction)


def fill_fraction(params: float, bits: float, n_gpus: int, memory_gb: float) -> float:
    """Share of `n_gpus` × `memory_gb` that the weights alone occupy (above 1: they do not fit)."""
    models.require_positive(n_gpus=n_gpus, memory_gb=memory_gb)
    return weights_gb_bits(params, bits) / (n_gpus * memory_gb)


def fit_verdict(fill: float, headroom: float = 0.1) -> str:
    """'does not fit' above 1; 'tight' when less than `headroom` of the memory is left for KV cache and
    activations; otherwise 'fits'."""
    models.require_non_negative(fill=fill, headroom=headroom)
    if fill > 1:
        return "does not fit"
    if fill > 1 - headroom:
        return "tight"
    return "fits"


# --- data ----------------------------------------------------------------------------------

MODELS_SCHEMA = pa.DataFrameSchema(
    {
        "model": pa.Column(str, unique=True),
        "params_b": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "layers": pa.Column("Int64", nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "kv_heads": pa.Column("Int64", nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "head_dim": pa.Column("Int64", nullable=True, coerce=True, checks=pa.Check.gt(0)),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*$")),
        "source": pa.Column(str),
    },
    strict=True,
)

FITS_SCHEMA = pa.DataFrameSchema(
    {
        "statement_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z0-9\-]+$")),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*$")),
        "claim_id": pa.Column(str, checks=pa.Check.str_matches(r"^[a-z][a-z0-9]*-\d+$")),
        "model": pa.Column(str),
        "bits": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "hardware_id": pa.Column(str),
        "n_gpus": pa.Column(int, coerce=True, checks=pa.Check.gt(0)),
        "source": pa.Column(str),
    },
    strict=True,
)


def load_models() -> pd.DataFrame:
    """data/quantization-models.csv: parameter counts (and KV-cache shape where needed) of the corpus's large models."""
    return read_csv("quantization-models.csv", MODELS_SCHEMA)


def load_fit_statements() -> pd.DataFrame:
    """data/quantization-fit-statements.csv: the papers' 'runs on N GPUs' statements."""
    return read_csv("quantization-fit-statements.csv", FITS_SCHEMA)


def _describe_models() -> str:
    return f"{len(load_models())} models"


def _describe_fits() -> str:
    from analysis.data import claims as claims_data
    from analysis.data import hardware
    from analysis.data.paths import DataError

    df = load_fit_statements()
    known = set(claims_data.load()["claim_id"])
    hw = set(hardware.load().index)
    names = set(load_models()["model"])
    for i, r in enumerate(df.itertuples(), start=2):
        cells = (("claim_id", r.claim_id, known), ("hardware_id", r.hardware_id, hw), ("model", r.model, names))
        for col, val, ok in cells:
            if val not in ok:
                raise DataError(f"data/quantization-fit-statements.csv: row {i}, column {col}: unknown {val!r}")
    return f"{len(df)} fit statements"


DATA_FILES = {"quantization-models.csv": _describe_models, "quantization-fit-statements.csv": _describe_fits}
