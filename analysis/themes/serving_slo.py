"""Latency targets for the serving chapter: TTFT and TPOT of every configuration on the roofline, with the
tensor-parallel all-reduces' latency term, its memory-bandwidth utilisation and cost, and the cheapest
configuration that meets a stated target (issue 33).

Pure functions on top of :mod:`analysis.models.serving_latency`. A model is any object with the attributes of
:class:`analysis.themes.serving.Model` (params, compute_params, params_read(batch), kv_bytes_per_token, hidden,
layers, d_attn) and a workload any with those of :class:`analysis.themes.serving.Workload` (themes do not
import each other; the notebook passes them in). Units are in the argument names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import pandas as pd

from analysis import models
from analysis.models import ModelError

GROUP_SIZES: tuple[int, ...] = (1, 2, 4, 8)  # tensor-parallel group sizes, as analysis.themes.serving.GROUP_SIZES

RING_STEPS_OF_MEASURED_LATENCY = 14  # 2(n − 1) ring steps of the 8-GPU all-reduce whose latency is measured


def step_latency_us(allreduce_latency_us: float) -> float:
    """Start-up latency α of one ring step from the end-to-end latency of a small 8-GPU all-reduce
    (data/assumptions.yml tp_allreduce_latency_us): that latency over its 2(8 − 1) = 14 steps."""
    models.require_non_negative(allreduce_latency_us=allreduce_latency_us)
    return allreduce_latency_us / RING_STEPS_OF_MEASURED_LATENCY


def latency_of(model: Any, work: Any, tp: int, mem_bw_tbps: float, peak_tflops: float,
               link_gb_per_s_per_direction: float, alpha_us: float, prefill_mfu: float = 1.0,
               weight_bytes: float = 2.0) -> tuple[float, float, float]:
    """(TTFT, TPOT, batch prefill) in seconds of `work` on a tensor-parallel group of `tp` GPUs.

    TTFT is the prefill of one request's own prompt (:func:`analysis.models.serving_latency.ttft_seconds`,
    batch 1): a floor, with no queueing behind other requests' prefills. TPOT is one decode step of the whole
    batch at the mean context (:func:`~analysis.models.serving_latency.tpot_seconds`). The batch prefill is the
    time the group spends prefilling all `work.batch` prompts, which the cost pays for. Every pass includes its
    2 × layers all-reduces with the latency term (`alpha_us` per ring step)."""
    from analysis.models import serving_latency as sl

    def prefill(batch: int) -> float:
        return sl.ttft_seconds(model.compute_params, max(int(work.prompt_tokens), 1), batch, tp, peak_tflops,
                               max(model.hidden, 1), model.layers, model.d_attn, link_gb_per_s_per_direction,
                               alpha_us, prefill_mfu)

    tpot = sl.tpot_seconds(model.params_read(work.batch), work.batch, model.kv_bytes_per_token * work.mean_context,
                           tp, mem_bw_tbps, peak_tflops, max(model.hidden, 1), model.layers,
                           link_gb_per_s_per_direction, alpha_us, weight_bytes, model.compute_params)
    return prefill(1), tpot, prefill(work.batch)


class _Work:
    """A workload with the fields of analysis.themes.serving.Workload."""

    def __init__(self, prompt_tokens: int, output_tokens: int, batch: int) -> None:
        self.prompt_tokens, self.output_tokens, self.batch = prompt_tokens, output_tokens, batch
        self.mean_context = prompt_tokens + output_tokens / 2


def slo_table(model: Any, prompt_tokens: int, output_tokens: int, gpus: dict[str, dict[str, float]],
              batches: Sequence[int], alpha_us: float, usable_fraction: float = 1.0, prefill_mfu: float = 1.0,
              weight_bytes: float = 2.0, sizes: Sequence[int] = GROUP_SIZES) -> pd.DataFrame:
    """Every configuration (GPU type, tensor-parallel degree, batch) whose memory holds the weights and the
    batch's KV caches, with its TTFT, TPOT, MBU and cost per million output tokens at 1 USD/GPU-hour.

    `gpus` maps a hardware id to {"mem", "bw", "peak", "link"} (GB, TB/s, TFLOP/s, GB/s per direction). A batch
    is served as the prefill of its prompts then `output_tokens` steps of TPOT; the group is paid for that time
    (TTFT is one request's own prefill, :func:`latency_of`). MBU is
    the bytes a step must read (weights touched, KV caches) over the step time and the group's bandwidth, so it
    falls below 1 by the all-reduces and wherever the step is compute-bound.
    """
    from analysis.models import serving_latency as sl

    rows = []
    kv_request = model.kv_bytes_per_token * (prompt_tokens + output_tokens)
    for g, s in gpus.items():
        for tp in sorted(sizes):
            try:
                fits = models.max_concurrent_requests(tp * s["mem"], model.params * weight_bytes / 1e9, kv_request,
                                                      reserve_fraction=1 - usable_fraction)
            except ModelError:
                continue
            for b in batches:
                if b > fits:
                    continue
                work = _Work(prompt_tokens, output_tokens, b)
                ttft, tpot, prefill_s = latency_of(model, work, tp, s["bw"], s["peak"], s["link"], alpha_us,
                                                   prefill_mfu, weight_bytes)
                read = model.params_read(b) * weight_bytes + b * model.kv_bytes_per_token * work.mean_context
                seconds = prefill_s + output_tokens * tpot
                rows.append({"hardware": g, "tp": tp, "batch": b, "ttft_s": ttft, "tpot_ms": 1e3 * tpot,
                             "mbu": sl.mbu(read, tpot, s["bw"], tp),
                             "usd_per_mtok_at_1usd": tp * seconds / 3600 / (b * output_tokens) * 1e6})
    return pd.DataFrame(rows)


def cheapest_within(table: pd.DataFrame, prices: dict[str, float], tpot_ms: float = math.inf,
                    ttft_s: float = math.inf) -> pd.Series | None:
    """The row of :func:`slo_table` with the lowest cost at `prices` (USD/GPU-hour by hardware id) among those
    that meet the TPOT and TTFT targets; None when none does."""
    t = table.assign(usd_per_mtok=table["usd_per_mtok_at_1usd"] * table["hardware"].map(prices))
    ok = t[(t["tpot_ms"] <= tpot_ms) & (t["ttft_s"] <= ttft_s)].dropna(subset=["usd_per_mtok"])
    if ok.empty:
        return None
    return cast(pd.Series, ok.loc[cast(int, ok["usd_per_mtok"].idxmin())])
