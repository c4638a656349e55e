"""Claims-audit checks for the papers of the chapter Training at scale."""

from __future__ import annotations

from analysis import models
from analysis.audit.inputs import constant, fits, memory_input, peak_input
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
    combined_tolerance,
    judge,
    judge_bound,
    rounding_tolerance,
    x_fold,
)
from analysis.data import hardware
from analysis.data.paths import DataError

SEQPAR_BASELINE_TOKENS = 4096
"""Assumed baseline of the sequence-parallelism check: the usual 4,096-token limit of sparse-attention
models (the abstract names no baseline length)."""


@check("megatron-aggregate", "narayanan2021efficient",
       ["narayanan2021efficient-3", "narayanan2021efficient-4", "narayanan2021efficient-5"], "aggregate",
       "Megatron-LM: 502 PFLOP/s over 3072 GPUs stated as 52% of the per-GPU peak")
def _megatron(c: Claims) -> Result:
    agg = c.value("narayanan2021efficient-3")
    n = int(c.value("narayanan2021efficient-4"))
    reported = c.value("narayanan2021efficient-5")
    peak, src = peak_input("A100-80GB", "fp16")  # the run's precision (data/training-at-scale-runs.csv: fp16)
    recomputed = models.mfu_from_aggregate(agg, n, peak) * 100
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(agg))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{agg:g}e3 / {n} = {agg * 1e3 / n:.1f} TFLOP/s per GPU; / {peak:g} = {recomputed / 100:.3f}",
                  inputs=src + "; GPU type from the paper's evaluation section (80-GB A100 GPUs on Selene), "
                               "not stated in the abstract",
                  explanation="The abstract says only 'GPUs'. On a V100 (125 TFLOP/s) the same per-GPU rate "
                              "would exceed the peak, so the figure itself implies an Ampere-class GPU.")


@check("zero-infinity-aggregate", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-9", "rajbhandari2021zeroinfinity-10", "rajbhandari2021zeroinfinity-11"],
       "aggregate", "ZeRO-Infinity: over 25 PFLOP/s on 512 V100 GPUs stated as 40% of peak")
def _zero_inf(c: Claims) -> Result:
    agg = c.value("rajbhandari2021zeroinfinity-9")
    n = int(c.value("rajbhandari2021zeroinfinity-10"))
    share = c.value("rajbhandari2021zeroinfinity-11") / 100
    peak, src = peak_input("V100", "fp16")
    implied = share * peak * n / 1e3  # PFLOP/s that 40% of the peak gives
    util_from_agg = models.mfu_from_aggregate(agg, n, peak)
    tol = rounding_tolerance(c.value("rajbhandari2021zeroinfinity-11"))
    return Result(agg, implied, "PFLOP/s", tol, judge_bound(agg, implied, "≤", tol),
                  f"{share:g} x {peak:g} x {n} = {implied:.1f} PFLOP/s; {agg:g}e3 / {n} / {peak:g} = "
                  f"{util_from_agg:.3f}", inputs=src, relation="≤",
                  explanation="'Over 25 petaflops' is a lower bound; 40% of the aggregate V100 peak is 25.6 "
                              "PFLOP/s, which satisfies it (25 PFLOP/s alone would be 39.1%).")


@check("zero-infinity-memory-growth", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-2", "rajbhandari2021zeroinfinity-3", "rajbhandari2021zeroinfinity-4"], "ratio",
       "ZeRO-Infinity: GPU memory 16 GB → 80 GB stated as 5x growth")
def _zero_growth(c: Claims) -> Result:
    a, b = c.value("rajbhandari2021zeroinfinity-3"), c.value("rajbhandari2021zeroinfinity-4")
    reported = c.value("rajbhandari2021zeroinfinity-2")
    return x_fold(reported, b, a, rounding_tolerance(reported), fmt="g",
                  explanation="16 GB (V100 16 GB, 2017) to 80 GB (A100 80 GB, 2020).")


@check("sequence-parallel-27x", "li2021sequence", ["li2021sequence-4", "li2021sequence-5"], "ratio",
       "Sequence parallelism: over 114K tokens stated as over 27x longer than sparse-attention works")
def _seqpar(c: Claims) -> Result:
    tokens = c.value("li2021sequence-4") * 1000
    reported = c.value("li2021sequence-5")
    baseline = SEQPAR_BASELINE_TOKENS
    ratio = tokens / baseline
    tol = rounding_tolerance(reported)
    ok = judge_bound(reported, ratio, "≤", tol) == "consistent"
    return Result(reported, ratio, "x", tol, PLAUSIBLE if ok else "inconsistent",
                  f"{tokens:,.0f} / {baseline} = {ratio:.1f}", relation="≤",
                  assumption="the sparse-attention baseline holds 4,096 tokens on one device" if ok else "",
                  explanation="The abstract does not give the baseline length; 114K / 27 = 4.2K tokens.")


@check("fireflyer-energy", "an2024fireflyer", ["an2024fireflyer-1", "an2024fireflyer-3"], "energy",
       "Fire-Flyer 2: 10,000 PCIe A100 GPUs stated to use 40% less energy than DGX-A100")
def _fireflyer(c: Claims) -> Result:
    reported = c.value("an2024fireflyer-3")
    try:
        pcie = hardware.tdp_w("A100-PCIe")
    except KeyError:  # the check reports 'not checkable' with this reason
        raise DataError("data/hardware.csv has no A100-PCIe row (the PCIe A100's power is needed); the "
                        "DGX-A100 comparison also needs its CPUs, NVSwitches and network") from None
    sxm = hardware.tdp_w("A100-40GB")
    recomputed = 100 * (1 - pcie / sxm)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol), f"1 - {pcie:g}/{sxm:g}")


@check("frontier-6nd", "dash2023optimizing", ["dash2023optimizing-1", "dash2023optimizing-2", "dash2023optimizing-3"],
       "compute", "Frontier LLM training: 1T parameters on 20T tokens stated as 120 million exaflops")
def _frontier(c: Claims) -> Result:
    n = c.value("dash2023optimizing-1") * 1e12
    d = c.value("dash2023optimizing-2") * 1e12
    reported = c.value("dash2023optimizing-3")
    recomputed = models.training_flops_6nd(n, d)
    tol = rounding_tolerance(reported / 1e24)  # "120 million exaflops" = 120e24 FLOP
    return Result(reported, recomputed, "FLOP", tol, judge(reported, recomputed, tol),
                  f"6 x {n:.0e} x {d:.0e} = {recomputed:.2e} FLOP = {recomputed / 1e24:g} million EFLOP")


@check("glm130b-int4-rtx3090", "zeng2022glm130b", ["zeng2022glm130b-1", "zeng2022glm130b-3"], "memory",
       "GLM-130B: INT4 inference on 4 RTX 3090 (24 GB)")
def _glm_3090(c: Claims) -> Result:
    return _glm_int4_fits(c, "RTX-3090", "zeng2022glm130b-3")


@check("glm130b-int4-rtx2080ti", "zeng2022glm130b", ["zeng2022glm130b-1", "zeng2022glm130b-5"], "memory",
       "GLM-130B: INT4 inference on 8 RTX 2080 Ti (11 GB)")
def _glm_2080(c: Claims) -> Result:
    return _glm_int4_fits(c, "RTX-2080Ti", "zeng2022glm130b-5")


def _glm_int4_fits(c: Claims, hardware_id: str, gpus_claim: str) -> Result:
    """GLM-130B's INT4 weights against the stated number of `hardware_id` GPUs."""
    gb, src = memory_input(hardware_id)
    params = c.value("zeng2022glm130b-1") * 1e9
    w = models.weights_gb(params, "int4")
    return fits(c.value(gpus_claim), w, gb, src, f"{params:.3g} x {models.bytes_per_element('int4'):g} bytes")


@check("nemotron-fp8-dgx", "nvidia2024nemotron4", ["nvidia2024nemotron4-1", "nvidia2024nemotron4-3"], "memory",
       "Nemotron-4 340B: sized to fit one DGX H100 (8 GPUs) in FP8")
def _nemotron(c: Claims) -> Result:
    gb, src = memory_input("H100-SXM")
    w = models.weights_gb(c.value("nvidia2024nemotron4-3") * 1e9, "fp8")
    return fits(c.value("nvidia2024nemotron4-1"), w, gb, src, "340e9 x 1 byte")


@check("zero-infinity-800-v100", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-5", "rajbhandari2021zeroinfinity-6"], "memory",
       "ZeRO-Infinity: 800 V100 GPUs stated as needed just to fit a trillion-parameter model for training")
def _zero_800(c: Claims) -> Result:
    gb, src = memory_input("V100")
    params = c.value("rajbhandari2021zeroinfinity-6") * 1e12
    bpp = models.training_bytes_per_param(zero_stage=0)
    total_gb = params * bpp / 1e9
    needed = models.gpus_to_hold(total_gb, gb)
    reported = c.value("rajbhandari2021zeroinfinity-5")
    ok = reported >= needed
    per_param = reported * gb / params * 1e9
    return Result(reported, float(needed), "GPUs", 0.0, PLAUSIBLE if ok else "implausible",
                  f"1e12 x {bpp:g} bytes = {total_gb:,.0f} GB; / {gb:g} GB -> {needed} GPUs; "
                  f"{reported:g} x {gb:g} GB = {per_param:.1f} bytes per parameter", inputs=src, relation="≥",
                  assumption=f"about {per_param - bpp:.0f} bytes per parameter beyond the {bpp:g} of mixed-precision "
                             "Adam states go to activations, buffers and fragmentation" if ok else "",
                  explanation=f"Model states alone ({bpp:g} bytes per parameter) fill {needed} V100 {gb:g} GB.",
                  details={"zi_extra_bytes_per_param": (per_param - bpp, "bytes_per_param_beyond_adam_states_800_v100",
                                                        "bytes/param")})


@check("zero-infinity-dgx2", "rajbhandari2021zeroinfinity",
       ["rajbhandari2021zeroinfinity-7", "rajbhandari2021zeroinfinity-8"], "memory",
       "ZeRO-Infinity: fine-tuning a trillion-parameter model on one DGX-2 node")
def _zero_dgx2(c: Claims) -> Result:
    gb, src = memory_input("V100")
    per_node, src2 = constant("dgx2_gpus")
    params = c.value("rajbhandari2021zeroinfinity-7") * 1e12
    total_gb = params * models.training_bytes_per_param(zero_stage=0) / 1e9
    needed_gpus = models.gpus_to_hold(total_gb, gb)
    nodes = needed_gpus / per_node
    return Result(c.value("rajbhandari2021zeroinfinity-8"), nodes, "nodes", 0.0, PLAUSIBLE,
                  f"{total_gb:,.0f} GB of model states / ({per_node:g} x {gb:g} GB) = {nodes:.1f} DGX-2 nodes "
                  f"of GPU memory; one node holds {per_node * gb / total_gb:.1%}",
                  assumption="the model states live in CPU and NVMe memory and stream through the GPUs "
                             "(the offload that ZeRO-Infinity introduces)",
                  inputs=f"{src}; {src2}", relation="≥",
                  explanation="GPU memory alone would need 32 nodes; the claim rests on NVMe offload.")
