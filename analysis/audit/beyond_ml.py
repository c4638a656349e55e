"""Claims-audit checks for the papers of the chapter Computing beyond ML, and applications."""

from __future__ import annotations

from analysis.audit.inputs import cost_rate
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
    judge,
    judge_bound,
    significant_tolerance,
)
from analysis.data import hardware

ONESWEEP_PASSES = 4
"""Assumed 8-bit digits: four digit-binning passes over 32-bit keys (the abstract gives no digit width)."""


@check("onesweep-traffic-ratio", "adinets2022onesweep",
       ["adinets2022onesweep-1", "adinets2022onesweep-2", "adinets2022onesweep-6"], "ratio",
       "Onesweep: ~2n vs ~3n global memory operations per pass against the ~1.5x speedup over CUB")
def _onesweep_ratio(c: Claims) -> Result:
    ours, cub = c.value("adinets2022onesweep-1"), c.value("adinets2022onesweep-2")
    reported = c.value("adinets2022onesweep-6")
    ratio = cub / ours
    tol = significant_tolerance(reported)
    verdict = judge(reported, ratio, tol)
    return Result(reported, ratio, "x", tol, PLAUSIBLE if verdict == "consistent" else verdict,
                  f"{cub:g}n / {ours:g}n = {ratio:g}",
                  assumption="both sorts are bound by global-memory traffic, so time scales with memory "
                             "operations" if verdict == "consistent" else "",
                  explanation="The measured speedup equals the ratio of memory operations, as a bandwidth-bound "
                              "sort would show.")


@check("harmony-cost-rate", "luo2024adaptive", ["luo2024adaptive-3", "luo2024adaptive-4"], "cost_rate",
       "HARMONY: over 35,000 GPU-hours saved stated as $100K+ in cost reduction")
def _harmony(c: Claims) -> Result:
    r = cost_rate(c.value("luo2024adaptive-4") * 1e3, c.value("luo2024adaptive-3"), "gpu_hour_usd_a100_40gb",
                   "the cluster's GPUs (type not stated)")
    r.explanation += " Both figures are lower bounds, so the price is only indicative."
    return r


@check("onesweep-bandwidth", "adinets2022onesweep",
       ["adinets2022onesweep-1", "adinets2022onesweep-3", "adinets2022onesweep-5"], "memory",
       "Onesweep: 29.4 GKey/s on 32-bit keys against the A100's memory bandwidth")
def _onesweep_bw(c: Claims) -> Result:
    rate = c.value("adinets2022onesweep-3")  # billion keys per second
    ops = c.value("adinets2022onesweep-1")
    key_bytes = c.value("adinets2022onesweep-5") / 8
    passes = ONESWEEP_PASSES
    bytes_per_key = passes * ops * key_bytes
    bw = hardware.mem_bw_tbps("A100-40GB") * 1000  # GB/s
    bound = bw / bytes_per_key
    verdict = judge_bound(rate, bound, "≤", 0.0)
    return Result(rate, bound, "GKey/s", 0.0, PLAUSIBLE if verdict == "consistent" else "implausible",
                  f"{passes} passes x {ops:g} x {key_bytes:g} bytes = {bytes_per_key:g} bytes per key; "
                  f"{rate:g} x {bytes_per_key:g} = {rate * bytes_per_key:.0f} GB/s = "
                  f"{rate * bytes_per_key / bw:.0%} of {bw:g} GB/s", relation="≤",
                  assumption="8-bit digits (four passes over 32-bit keys) on an A100 40 GB" if verdict ==
                  "consistent" else "",
                  inputs=f"A100-40GB memory bandwidth {bw:g} GB/s (data/hardware.csv)",
                  explanation="61% of the memory bandwidth: attainable for a streaming sort.")
