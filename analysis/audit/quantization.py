"""Claims-audit checks for the papers of the chapter Quantization and low-precision numerics."""

from __future__ import annotations

import math

from analysis import models
from analysis.audit.inputs import fits, memory_input
from analysis.audit.registry import (
    Claims,
    Result,
    check,
    combined_tolerance,
    judge,
    judge_bound,
    rounding_tolerance,
)


@check("marlin-4x", "frantar2024marlin", ["frantar2024marlin-1", "frantar2024marlin-3"], "ratio",
       "MARLIN: 4-bit weights and the 'maximum (4x)' speedup of memory-bound inference")
def _marlin(c: Claims) -> Result:
    bits = c.value("frantar2024marlin-1")
    reported = c.value("frantar2024marlin-3")
    ratio = models.bytes_per_element("fp16") / (bits / 8)
    tol = rounding_tolerance(reported)
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"16 bits / {bits:g} bits = {ratio:g}",
                  explanation="A memory-bound layer reads 4x fewer weight bytes than in FP16.")


@check("qmoe-bf16-memory", "frantar2023qmoe", ["frantar2023qmoe-1", "frantar2023qmoe-2"], "memory",
       "QMoE: 1.6 trillion parameters stated to need 3.2 TB")
def _qmoe_bf16(c: Claims) -> Result:
    params = c.value("frantar2023qmoe-1") * 1e12
    reported = c.value("frantar2023qmoe-2")
    recomputed = models.weights_gb(params, "bf16") / 1000
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(c.value("frantar2023qmoe-1")))
    return Result(reported, recomputed, "TB", tol, judge(reported, recomputed, tol),
                  f"1.6e12 x 2 bytes = {recomputed:g} TB", explanation="16-bit weights (BF16).")


@check("qmoe-compressed-size", "frantar2023qmoe", ["frantar2023qmoe-1", "frantar2023qmoe-4", "frantar2023qmoe-6"],
       "memory", "QMoE: 0.8 bits per parameter stated as less than 160 GB")
def _qmoe_size(c: Claims) -> Result:
    params = c.value("frantar2023qmoe-1") * 1e12
    bits = c.value("frantar2023qmoe-6")
    reported = c.value("frantar2023qmoe-4")
    recomputed = params * bits / 8 / 1e9
    tol = combined_tolerance(rounding_tolerance(bits), rounding_tolerance(c.value("frantar2023qmoe-1")))
    return Result(reported, recomputed, "GB", tol, judge_bound(recomputed, reported, "≤", tol),
                  f"1.6e12 x {bits:g} / 8 = {recomputed:g} GB", relation="≈",
                  explanation="0.8 bits is rounded (0.75-0.85 gives 150-170 GB), so 'less than 160 GB' fits.")


@check("qmoe-compression-ratio", "frantar2023qmoe", ["frantar2023qmoe-5", "frantar2023qmoe-6"], "ratio",
       "QMoE: 0.8 bits per parameter stated as 20x compression")
def _qmoe_ratio(c: Claims) -> Result:
    bits = c.value("frantar2023qmoe-6")
    reported = c.value("frantar2023qmoe-5")
    ratio = models.bytes_per_element("bf16") * 8 / bits
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(bits))
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol), f"16 bits / {bits:g} bits = {ratio:g}")


@check("qmoe-4xa6000", "frantar2023qmoe", ["frantar2023qmoe-4", "frantar2023qmoe-9"], "memory",
       "QMoE: the compressed 160 GB model on 4 A6000 (48 GB)")
def _qmoe_a6000(c: Claims) -> Result:
    gb, src = memory_input("A6000")
    return fits(c.value("frantar2023qmoe-9"), c.value("frantar2023qmoe-4"), gb, src, "compressed model")


@check("qmoe-8xrtx3090", "frantar2023qmoe", ["frantar2023qmoe-4", "frantar2023qmoe-10"], "memory",
       "QMoE: the compressed 160 GB model on 8 RTX 3090 (24 GB)")
def _qmoe_3090(c: Claims) -> Result:
    gb, src = memory_input("RTX-3090")
    return fits(c.value("frantar2023qmoe-10"), c.value("frantar2023qmoe-4"), gb, src, "compressed model")


@check("kurtail-spinquant-70b", "akhondzadeh2025kurtail", ["akhondzadeh2025kurtail-6"], "memory",
       "KurTail paper: SpinQuant on Llama3-70B needs at least four H100 80GB")
def _kurtail(c: Claims) -> Result:
    gb, src = memory_input("H100-SXM")
    w = models.weights_gb(70e9, "bf16")  # 70B from the model name
    return fits(c.value("akhondzadeh2025kurtail-6"), w, gb, src, "70e9 x 2 bytes")


@check("ptqtp-ternary-bits", "xiao2025ptqtp", ["xiao2025ptqtp-1"], "unit",
       "PTQTP: a ternary {-1, 0, 1} trit-plane stated as a 1.58-bit representation")
def _ptqtp(c: Claims) -> Result:
    reported = c.value("xiao2025ptqtp-1")
    levels = 3  # -1, 0 and 1, as the abstract states
    recomputed = math.log2(levels)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "bits", tol, judge(reported, recomputed, tol),
                  f"log2({levels}) = {recomputed:.4f} bits per ternary digit",
                  explanation="A digit with three levels carries log2 3 bits; two trit-planes take 3.17 bits per "
                              "weight, stored in fewer if packed.")
