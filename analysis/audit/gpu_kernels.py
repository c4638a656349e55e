"""Claims-audit checks for the papers of the chapter GPU kernels and hardware characterisation."""

from __future__ import annotations

from analysis import models
from analysis.audit.inputs import peak_input
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
    combined_tolerance,
    judge,
    judge_bound,
    pct,
    rounding_tolerance,
    significant_tolerance,
)


@check("fa3-fp16-utilization", "shah2024flashattention3", ["shah2024flashattention3-3", "shah2024flashattention3-4"],
       "utilization", "FlashAttention-3: 740 TFLOP/s FP16 stated as 75% utilisation of an H100")
def _fa3_util(c: Claims) -> Result:
    achieved = c.value("shah2024flashattention3-3")
    reported = c.value("shah2024flashattention3-4")
    peak, src = peak_input("H100-SXM", "fp16")
    recomputed = models.mfu(achieved, peak) * 100
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(achieved))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{achieved:g} / {peak:g} = {recomputed / 100:.3f}", inputs=src,
                  explanation="Against the dense FP16 peak of the H100 SXM5; the sparse peak would halve it.")


@check("fa3-fp8-peak", "shah2024flashattention3", ["shah2024flashattention3-5"], "utilization",
       "FlashAttention-3: close to 1.2 PFLOP/s in FP8 against the H100's dense FP8 peak")
def _fa3_fp8(c: Claims) -> Result:
    achieved = c.value("shah2024flashattention3-5") * 1000  # PFLOP/s -> TFLOP/s
    peak, src = peak_input("H100-SXM", "fp8")
    util = models.mfu(achieved, peak)
    tol = significant_tolerance(c.value("shah2024flashattention3-5"))
    verdict = judge_bound(achieved, peak, "≤", 0.0)
    if verdict != "consistent":
        verdict = "implausible"
    return Result(achieved, peak, "TFLOP/s", tol, verdict,
                  f"{achieved:g} / {peak:g} = {util:.3f} of the dense FP8 peak", inputs=src, relation="≤",
                  explanation=f"{pct(util)} of the dense FP8 peak: below it, so physically possible. "
                              "The FP16 run reaches 75%; FP8 reaches a lower fraction of a twice-higher peak.")


@check("fa3-speedup-vs-fa2", "shah2024flashattention3",
       ["shah2024flashattention3-1", "shah2024flashattention3-2", "shah2024flashattention3-4"], "ratio",
       "FlashAttention-3: 1.5-2.0x speedup over FlashAttention-2 against the utilisations 75% and 35%")
def _fa3_vs_fa2(c: Claims) -> Result:
    fa2 = c.value("shah2024flashattention3-1")
    fa3 = c.value("shah2024flashattention3-4")
    low, high = c.range("shah2024flashattention3-2")
    peak, src = peak_input("H100-SXM", "fp16")
    # the same peak cancels: speedup = (fa3 * peak) / (fa2 * peak)
    ratio = models.mfu(fa3 * peak / 100, peak) / models.mfu(fa2 * peak / 100, peak)
    # the abstract prints "2.0x": half a unit of the first decimal, 0.05 / 2.0
    tol = combined_tolerance(0.05 / high, rounding_tolerance(fa3), rounding_tolerance(fa2))
    ok = judge(high, ratio, tol) == "consistent" or low <= ratio <= high
    return Result(high, ratio, "x", tol, "consistent" if ok else PLAUSIBLE,
                  f"{fa3:g}% / {fa2:g}% = {ratio:.2f} (stated range {low:g}-{high:g}x)", inputs=src,
                  assumption="" if ok else "the 35% of FlashAttention-2 was measured in other settings (head "
                  "dimension, sequence length, forward vs backward) than the 740 TFLOP/s of FlashAttention-3",
                  explanation="The best-case utilisations imply a 2.14x ratio, above the stated 1.5-2.0x; the "
                              "two utilisations cannot both describe the same configuration.")


@check("caffe-images-per-day", "jia2014caffe", ["jia2014caffe-1", "jia2014caffe-2"], "unit",
       "Caffe: over 40 million images a day stated as about 2.5 ms per image")
def _caffe(c: Claims) -> Result:
    per_day = c.value("jia2014caffe-1") * 1e6
    reported = c.value("jia2014caffe-2")
    ms = 86400 / per_day * 1000
    tol = significant_tolerance(reported)
    verdict = judge_bound(reported, ms, "≤", tol)
    return Result(reported, ms, "ms", tol, verdict,
                  f"86,400 s / {per_day:,.0f} = {ms:.2f} ms per image; 2.5 ms gives "
                  f"{86400 / (reported / 1000) / 1e6:.1f} million a day", relation="≤",
                  explanation="'Over 40 million a day' means at most 2.16 ms per image; 2.5 ms per image gives "
                              "34.6 million. The two figures probably come from different measurements "
                              "(e.g. K40 vs Titan, or with and without data loading).")
