"""Serving-cost models for the chapter on serving and inference systems.

Pure functions on top of :mod:`analysis.models`: KV-cache size and concurrency of the
corpus's models, the roofline decode and prefill rates of a GPU group, the dollars per
million output tokens of a workload, and reported throughput changes turned into cost
multipliers. Units are in the argument names (``_gb`` = 1e9 bytes, ``_tbps`` = 1e12
bytes/s, ``_tflops`` = 1e12 FLOP/s, ``_usd`` = US dollars).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import cast

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data import hardware
from analysis.data.paths import data_file
from analysis.data.schemas import opt_float
from analysis.data.tables import fail_rows, read_csv
from analysis.models import ModelError, chain_inputs, uncertainty

MODELS_FILE = "serving-models.csv"

_int = pa.Column("Int64", coerce=True, nullable=True, checks=pa.Check.gt(0))
MODELS_SCHEMA = pa.DataFrameSchema(
    {
        "model": pa.Column(str, unique=True),
        "attention": pa.Column(str, checks=pa.Check.isin(["MHA", "GQA", "MQA"])),
        "params_b": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "active_params_b": opt_float(pa.Check.gt(0)),
        "experts": _int,
        "experts_per_token": _int,
        "layers": _int,
        "hidden": _int,
        "heads": _int,
        "kv_heads": _int,
        "head_dim": _int,
        "corpus_citekeys": pa.Column(str, nullable=True),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
    },
    strict=True,
)

# Rental-price names in data/assumptions.yml for the GPUs the chapter compares (one naming rule, the chain's).
PRICE_KEYS: dict[str, str] = {g: chain_inputs.price_key(g)
                              for g in ("L4", "L40S", "A6000", "RTX-4090", "A100-80GB", "H100-SXM", "H200")}

GROUP_SIZES: tuple[int, ...] = (1, 2, 4, 8)


def read_models(path: Path | None = None) -> pd.DataFrame:
    """Read and validate data/serving-models.csv (or `path`); errors name file, row and column."""
    p = path if path is not None else data_file(MODELS_FILE)
    df = read_csv(MODELS_FILE, MODELS_SCHEMA, path=path)
    # Consistency checks the schema cannot express.
    fail_rows(p, df, df["attention"].eq("MHA") & df["kv_heads"].ne(df["heads"]), "kv_heads",
              "multi-head attention needs kv_heads == heads")
    fail_rows(p, df, df["attention"].eq("GQA") & ~(df["kv_heads"] < df["heads"]), "kv_heads",
              "grouped-query attention needs kv_heads < heads")
    fail_rows(p, df, df["active_params_b"].gt(df["params_b"]).fillna(False), "active_params_b",
              "active parameters exceed total parameters")
    moe = df["active_params_b"].notna()
    fail_rows(p, df, moe & (df["experts"].isna() | df["experts_per_token"].isna()), "experts",
              "an MoE row (active_params_b given) needs experts and experts_per_token")
    return df.set_index("model", drop=False)


@lru_cache(maxsize=1)
def _load_models() -> pd.DataFrame:
    return read_models()


def load_models() -> pd.DataFrame:
    """data/serving-models.csv, validated, indexed by model name (a copy)."""
    return _load_models().copy()


def _describe_models() -> str:
    df = _load_models()
    return f"{len(df)} model configurations ({(df['attention'] == 'GQA').sum()} with grouped-query attention)"


DATA_FILES = {MODELS_FILE: _describe_models}


# --- KV cache and concurrency ------------------------------------------------------------

def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, bytes_per_elem: float = 2.0) -> float:
    """KV-cache bytes for one token: 2 (K and V) × layers × kv_heads × head_dim × bytes per element."""
    return models.kv_cache_bytes(layers, kv_heads, head_dim, tokens=1, bytes_per_elem=bytes_per_elem)


def group_size_for_weights(weights_gb: float, memory_gb: float, usable_fraction: float = 1.0,
                           sizes: Sequence[int] = GROUP_SIZES) -> int:
    """Smallest tensor-parallel group (from `sizes`) whose usable memory holds the weights.

    Raises ModelError when even the largest group cannot hold them.
    """
    if not 0 < usable_fraction <= 1:
        raise ModelError(f"usable_fraction must be in (0, 1], got {usable_fraction!r}")
    models.require_positive(weights_gb=weights_gb, memory_gb=memory_gb)
    for g in sorted(sizes):
        if weights_gb <= g * memory_gb * usable_fraction:
            return g
    raise ModelError(f"weights ({weights_gb:.0f} GB) do not fit on {max(sizes)} × {memory_gb:.0f} GB")


def concurrent_requests(params: float, kv_bytes_per_request: float, memory_gb: float, n_gpus: int,
                        usable_fraction: float = 1.0, weight_bytes: float = 2.0) -> int:
    """Requests whose KV caches fit beside the weights on `n_gpus` GPUs of `memory_gb` each.

    `usable_fraction` is the share of memory the serving engine may use (the rest is kept for
    activations and the runtime). Returns 0 when the weights fit but not one request does.
    """
    models.require_positive(n_gpus=n_gpus)
    return models.max_concurrent_requests(n_gpus * memory_gb, params * weight_bytes / 1e9,
                                          kv_bytes_per_request, reserve_fraction=1 - usable_fraction)


# --- decode, prefill and cost ----------------------------------------------------------------

def moe_params_read(params: float, active_params: float, experts: int, experts_per_token: int,
                    batch: int) -> float:
    """Parameters one decode step of an MoE model reads from memory for `batch` tokens.

    Splits the model into shared parameters s and `experts` experts of e parameters each
    from the total N = s + E·e and the active count A = s + k·e. With independent, uniform
    routing a layer's expert is touched by at least one of B tokens with probability
    1 − (1 − k/E)^B, so the step reads s + E·e·(1 − (1 − k/E)^B): A at B = 1, N as B grows.
    """
    models.require_positive(params=params, active_params=active_params, experts=experts,
                     experts_per_token=experts_per_token, batch=batch)
    if active_params > params or experts_per_token > experts or experts_per_token == experts:
        raise ModelError("need active_params <= params and experts_per_token < experts")
    e = (params - active_params) / (experts - experts_per_token)
    shared = active_params - experts_per_token * e
    if shared < 0:
        raise ModelError("active and total parameter counts imply negative shared parameters")
    touched = experts * (1 - (1 - experts_per_token / experts) ** batch)
    return shared + e * touched


@dataclass(frozen=True)
class Workload:
    """One serving workload: tokens per request and the batch decoded together."""

    prompt_tokens: int
    output_tokens: int
    batch: int

    @property
    def mean_context(self) -> float:
        """Mean number of tokens in the KV cache during decoding: prompt + half the output."""
        return self.prompt_tokens + self.output_tokens / 2


@dataclass(frozen=True)
class Model:
    """What the cost model needs to know about an LLM."""

    name: str
    params: float
    kv_bytes_per_token: float
    active_params: float | None = None
    experts: int | None = None
    experts_per_token: int | None = None
    layers: int = 0  # with d_attn, for the attention FLOP of prefill (0: weights only)
    d_attn: int = 0  # query heads × head size
    hidden: int = 0  # model width, for the tensor-parallel all-reduces (0: no communication counted)

    @classmethod
    def from_row(cls, row: pd.Series, kv_bytes_per_elem: float = 2.0) -> Model:
        active = None if pd.isna(row["active_params_b"]) else float(row["active_params_b"]) * 1e9
        return cls(
            name=str(row["model"]), params=float(row["params_b"]) * 1e9,
            kv_bytes_per_token=kv_bytes_per_token(int(row["layers"]), int(row["kv_heads"]),
                                                  int(row["head_dim"]), kv_bytes_per_elem),
            active_params=active,
            experts=None if pd.isna(row["experts"]) else int(row["experts"]),
            experts_per_token=None if pd.isna(row["experts_per_token"]) else int(row["experts_per_token"]),
            layers=int(row["layers"]), d_attn=int(row["heads"]) * int(row["head_dim"]),
            hidden=int(row["hidden"]),
        )

    @property
    def compute_params(self) -> float:
        return self.params if self.active_params is None else self.active_params

    def params_read(self, batch: int) -> float:
        if self.active_params is None or self.experts is None or self.experts_per_token is None:
            return self.params
        return moe_params_read(self.params, self.active_params, self.experts, self.experts_per_token, batch)


def decode_rate(model: Model, batch: int, context_tokens: float, n_gpus: int, mem_bw_tbps: float,
                peak_tflops: float, weight_bytes: float = 2.0) -> float:
    """Roofline upper bound on generated tokens/s of a group of `n_gpus` (ideal tensor parallelism).

    Each step reads the weights it needs once and every sequence's KV cache of
    `context_tokens` tokens; it computes 2 FLOP per active parameter per sequence.
    """
    models.require_positive(n_gpus=n_gpus, context_tokens=context_tokens)
    return models.decode_tokens_per_s(
        model.params_read(batch), batch, n_gpus * mem_bw_tbps, n_gpus * peak_tflops,
        weight_bytes=weight_bytes, kv_bytes_per_seq=model.kv_bytes_per_token * context_tokens,
        active_params=model.compute_params)


def prefill_rate(model: Model, n_gpus: int, peak_tflops: float, mfu: float = 1.0, prompt_tokens: int = 0) -> float:
    """Compute-bound prefill tokens/s of a group for `prompt_tokens`-token prompts: n × peak × MFU
    over 2 × active parameters plus the attention FLOP over the prompt (models.prefill_tokens_per_s)."""
    models.require_positive(n_gpus=n_gpus)
    return n_gpus * models.prefill_tokens_per_s(model.compute_params, peak_tflops, mfu, model.layers,
                                                prompt_tokens, model.d_attn)


def tp_link_gb_per_s(hardware_id: str, pcie_gb_per_s_per_direction: float, communicate: bool = True) -> float:
    """Per-direction GB/s between the GPUs of a tensor-parallel group: NVLink (half the bidirectional
    total of data/hardware.csv) where the table has it, else the given PCIe rate; infinite when
    communication is switched off (ideal scaling)."""
    if not communicate:
        return math.inf
    if not pcie_gb_per_s_per_direction > 0:
        raise ModelError(f"pcie_gb_per_s_per_direction must be positive, got {pcie_gb_per_s_per_direction!r}")
    total = hardware.spec(hardware_id)["interconnect_gb_per_s"]
    return float(total) / 2 if not pd.isna(total) else float(pcie_gb_per_s_per_direction)


def tp_comm_seconds(model: Model, tokens: float, n_gpus: int, link_gb_per_s_per_direction: float,
                    activation_bytes: float = 2.0) -> float:
    """Tensor-parallel communication of one forward pass over `tokens` tokens on a group of `n_gpus`.

    Megatron-style tensor parallelism all-reduces the layer output twice per layer (after attention
    and after the MLP; Shoeybi et al. 2019, Sec. 3): 2 × layers ring all-reduces of
    tokens × hidden × activation_bytes (:mod:`analysis.models.communication`, bandwidth term only).
    Zero for one GPU, for an infinite link, or for a model without a `hidden` size.
    """
    from analysis.models import communication

    if n_gpus == 1 or math.isinf(link_gb_per_s_per_direction) or model.hidden == 0 or tokens == 0:
        return 0.0
    per = communication.allreduce_seconds(n_gpus, tokens * model.hidden * activation_bytes,
                                          link_gb_per_s_per_direction)
    return 2 * model.layers * per


def usd_per_million_output_tokens(model: Model, work: Workload, n_gpus: int, mem_bw_tbps: float,
                                  peak_tflops: float, usd_per_gpu_hour: float, prefill_mfu: float = 1.0,
                                  weight_bytes: float = 2.0, link_gb_per_s_per_direction: float = math.inf) -> float:
    """Dollars per 1e6 generated tokens when a group serves batches of `work` back to back.

    A batch takes prefill time B·P / prefill rate plus O decode steps at the mean context
    P + O/2; the group's hourly price is spread over the B·O tokens it generates. Both rates
    are roofline bounds, so the result is a floor on the cost. With a finite link, each pass
    adds its tensor-parallel all-reduces (:func:`tp_comm_seconds`), not overlapped: in decode
    they sit between the layers' matmuls on the critical path.
    """
    models.require_positive(usd_per_gpu_hour=usd_per_gpu_hour, batch=work.batch, output_tokens=work.output_tokens)
    models.require_non_negative(prompt_tokens=work.prompt_tokens)
    prefill_s = work.batch * work.prompt_tokens / prefill_rate(model, n_gpus, peak_tflops, prefill_mfu,
                                                               int(work.prompt_tokens))
    step_s = work.batch / decode_rate(model, work.batch, work.mean_context, n_gpus, mem_bw_tbps, peak_tflops,
                                      weight_bytes)
    prefill_s += tp_comm_seconds(model, work.batch * work.prompt_tokens, n_gpus, link_gb_per_s_per_direction)
    step_s += tp_comm_seconds(model, work.batch, n_gpus, link_gb_per_s_per_direction)
    seconds = prefill_s + work.output_tokens * step_s
    tokens = work.batch * work.output_tokens
    return n_gpus * usd_per_gpu_hour * seconds / 3600 / tokens * 1e6


def cheapest(costs: dict[str, float]) -> str:
    """The key with the lowest finite cost; '' when none is finite (nothing fits)."""
    finite = {k: v for k, v in costs.items() if v is not None and math.isfinite(v)}
    return min(finite, key=lambda k: finite[k]) if finite else ""


# --- reported overheads and gains as cost multipliers ------------------------------------------

def cost_multiplier_from_throughput_drop(drop_fraction: float) -> float:
    """Cost per token after a throughput drop d (fraction): 1 / (1 − d)."""
    if not 0 <= drop_fraction < 1:
        raise ModelError(f"a throughput drop must be in [0, 1), got {drop_fraction!r}")
    return 1.0 / (1.0 - drop_fraction)


def cost_multiplier_from_speedup(throughput_gain: float, cost_ratio: float = 1.0) -> float:
    """Cost per token when throughput rises by `throughput_gain` × and the hardware cost by `cost_ratio` ×."""
    models.require_positive(throughput_gain=throughput_gain, cost_ratio=cost_ratio)
    return cost_ratio / throughput_gain


def best_group_cost(model: Model, work: Workload, memory_gb: float, mem_bw_tbps: float, peak_tflops: float,
                    usd_per_gpu_hour: float, usable_fraction: float = 1.0, prefill_mfu: float = 1.0,
                    weight_bytes: float = 2.0, sizes: Sequence[int] = GROUP_SIZES,
                    link_gb_per_s_per_direction: float = math.inf) -> tuple[float, int]:
    """Cheapest $/Mtok over tensor-parallel group sizes whose memory holds the weights and the batch's KV caches.

    Returns (cost, group size), or (nan, 0) when no group in `sizes` can hold the batch.
    """
    kv_request = model.kv_bytes_per_token * (work.prompt_tokens + work.output_tokens)
    best: tuple[float, int] = (math.nan, 0)
    for g in sorted(sizes):
        try:
            fits = concurrent_requests(model.params, kv_request, memory_gb, g, usable_fraction, weight_bytes)
        except ModelError:
            continue
        if fits < work.batch:
            continue
        cost = usd_per_million_output_tokens(model, work, g, mem_bw_tbps, peak_tflops, usd_per_gpu_hour,
                                             prefill_mfu, weight_bytes, link_gb_per_s_per_direction)
        if math.isnan(best[0]) or cost < best[0]:
            best = (cost, g)
    return best


def price_range(hardware_id: str, usd_per_gpu_hour: float | None = None) -> str | uncertainty.Range:
    """The GPU-hour price a cost is drawn over: the assumption's name in data/assumptions.yml (its range is the
    providers' minimum and maximum, :data:`analysis.data.assumptions.PRICE_RULE`), or, when a notebook sets a
    price other than the default, that price as central value inside the same documented range."""
    name = PRICE_KEYS.get(hardware_id) or chain_inputs.price_key(hardware_id)
    lo, c, hi = uncertainty.range_of(name)
    if usd_per_gpu_hour is None or float(usd_per_gpu_hour) == c:
        return name
    p = float(usd_per_gpu_hour)
    return (min(lo, p), p, max(hi, p))


def cost_interval(model: Model, work: Workload, memory_gb: float, mem_bw_tbps: float, peak_tflops: float,
                  price: str | uncertainty.Range, usable_fraction: float = 1.0, prefill_mfu: float = 1.0,
                  weight_bytes: float = 2.0, sizes: Sequence[int] = GROUP_SIZES,
                  link_gb_per_s_per_direction: float = math.inf) -> tuple[uncertainty.Interval, int]:
    """:func:`best_group_cost` as a modelled number: the GPU-hour price `price` (:func:`price_range`) drawn over
    its documented range by the book's interval rule (:func:`analysis.models.uncertainty.propagate`).

    Every group size pays the same price per GPU-hour, so the cheapest group does not depend on the price and
    the cost is the cost at 1 USD/GPU-hour times the price. The price is the only serving input with a
    documented range; the usable memory fraction and the prefill MFU are set by the caller (a vLLM default and
    a roofline bound). Returns (interval, group size), or (NaN interval, 0) when no group holds the batch.
    """
    unit, n = best_group_cost(model, work, memory_gb, mem_bw_tbps, peak_tflops, 1.0, usable_fraction, prefill_mfu,
                              weight_bytes, sizes, link_gb_per_s_per_direction)
    if n == 0:
        return uncertainty.Interval(math.nan, math.nan, math.nan), 0
    return uncertainty.propagate(lambda usd_per_gpu_hour: unit * usd_per_gpu_hour,
                                 ranged={"usd_per_gpu_hour": price}), n


def robust_winner(intervals: dict[str, uncertainty.Interval]) -> tuple[str, bool]:
    """The GPU with the lowest central cost and whether that ranking is robust to the price ranges: it is
    when no other GPU's interval reaches below the winner's high end ('' and False when nothing fits)."""
    ok = {k: v for k, v in intervals.items() if math.isfinite(v.central)}
    if not ok:
        return "", False
    best = min(ok, key=lambda k: ok[k].central)
    return best, all(v.low > ok[best].high for k, v in ok.items() if k != best)


# Reported overheads and gains of the corpus (claim ids of data/claims.csv) and how each changes
# the cost per token: "drop" = throughput falls by value %; "gain" = throughput rises value ×
# on the same hardware; "cost_cut" = cost falls by value %. A second claim id gives the hardware
# cost ratio that goes with a gain (Splitwise: 1.4× throughput at 20 % lower cost).
PRICED_CLAIMS: tuple[tuple[str, str, str, str], ...] = (
    ("tan2024pipellm-1", "drop", "", "Confidential computing on H100, OPT-30B"),
    ("tan2024pipellm-2", "drop", "", "Confidential computing on H100, OPT-66B"),
    ("tan2024pipellm-3", "drop", "", "PipeLLM under confidential computing (at most)"),
    ("zhu2024nanoflow-1", "gain", "", "NanoFlow intra-device overlap"),
    ("lin2024infinitellm-3", "gain", "", "DistKV-LLM (upper end of 1.03-2.4x)"),
    ("patel2023splitwise-1", "gain", "patel2023splitwise-2", "Splitwise (1.4x throughput, 20% cheaper)"),
    ("patel2023splitwise-3", "gain", "", "Splitwise (2.35x at equal cost and power)"),
    ("zhong2024distserve-1", "gain", "", "DistServe goodput within SLO"),
    ("griggs2024melange-1", "cost_cut", "", "Mélange mixed GPU types (up to)"),
    ("chen2023punica-1", "gain", "", "Punica multi-LoRA batching"),
)


def _claim_number(row: pd.Series) -> float:
    """A claim's point value, or the upper end of its range."""
    if pd.notna(row["value"]):
        return float(row["value"])
    if pd.notna(row["high"]):
        return float(row["high"])
    raise ModelError(f"claim {row['claim_id']} has no value")


def priced_claims(claims: pd.DataFrame,
                  spec: Sequence[tuple[str, str, str, str]] = PRICED_CLAIMS) -> pd.DataFrame:
    """Each claim of `spec` with the cost-per-token multiplier it implies (1 = unchanged).

    `claims` is data/claims.csv (claims.load()); its rows are looked up by claim_id.
    """
    by_id = claims.set_index("claim_id", drop=False)
    rows = []
    for cid, kind, cost_cid, label in spec:
        if cid not in by_id.index:
            raise KeyError(f"claim {cid!r} is not in data/claims.csv")
        r = cast(pd.Series, by_id.loc[cid])
        v = _claim_number(r)
        if kind == "drop":
            mult = cost_multiplier_from_throughput_drop(v / 100)
        elif kind == "gain":
            ratio = 1.0
            if cost_cid:
                ratio = 1 - _claim_number(cast(pd.Series, by_id.loc[cost_cid])) / 100
            mult = cost_multiplier_from_speedup(v, ratio)
        elif kind == "cost_cut":
            mult = 1 - v / 100
        else:
            raise ValueError(f"unknown kind {kind!r}")
        rows.append({"claim_id": cid, "citekey": r["citekey"], "label": label, "kind": kind,
                     "reported": v, "unit": r["unit"], "baseline": r["baseline"], "cost_multiplier": mult})
    return pd.DataFrame(rows)


def overhead_cost_usd(floor_usd_per_mtok: float, cost_multiplier: float) -> float:
    """A measured overhead placed on a roofline floor: floor × multiplier, only for multipliers ≥ 1.

    A gain measured against a paper's own baseline (vLLM, colocated serving) says nothing about
    the distance of that baseline from the physical floor, so applying it to the floor would price
    a system below the bound. Gains return NaN here; compare them with their own baselines instead.
    """
    models.require_positive(floor_usd_per_mtok=floor_usd_per_mtok, cost_multiplier=cost_multiplier)
    return floor_usd_per_mtok * cost_multiplier if cost_multiplier >= 1 else math.nan

