"""Claims-audit checks for the papers of the chapter Training on a budget."""

from __future__ import annotations

from analysis import models
from analysis.audit.inputs import constant, memory_input, peak_input
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
)
from analysis.data import hardware
from analysis.data.paths import DataError


def rtx4090_gemm_ceilings() -> dict[str, float]:
    """The RTX 4090's dense FP16 GEMM ceiling, measured (FP16 accumulate) and carried over to the
    FP32-accumulate mode at the same fraction of its peak (our inference), in TFLOP/s."""
    gemm = constant("rtx4090_cublas_hgemm_tflops")[0]
    peak16 = constant("rtx4090_fp16_acc_peak_tflops")[0]
    fraction = gemm / peak16
    return {"fp16acc_tflops": gemm, "peak_fp16acc_tflops": peak16, "fraction": fraction,
            "fp32acc_tflops": fraction * hardware.peak_tflops("RTX-4090", "fp16")}


@check("fuyou-utilization", "liao2024adding", ["liao2024adding-5"], "utilization",
       "Fuyou: 156 TFLOPS when training GPT-3 13B on one RTX 4090, against the card's measured dense-GEMM ceiling")
def _fuyou(c: Claims) -> Result:
    """Judged against what a dense GEMM reaches on the card (the ceiling for any end-to-end training
    iteration, which also runs attention, optimizer steps and, here, SSD swaps), not against a peak.

    The measured cuBLAS HGEMM rate is an FP16-accumulate figure; the same fraction of the half-rate
    FP32-accumulate peak (our inference: the same kernel efficiency in either mode) gives the ceiling
    for mixed-precision training as usually run.
    """
    achieved = c.value("liao2024adding-5")
    g = rtx4090_gemm_ceilings()
    gemm_fp16acc, gemm_fp32acc, gemm_fraction = g["fp16acc_tflops"], g["fp32acc_tflops"], g["fraction"]
    s_gemm, s_acc = constant("rtx4090_cublas_hgemm_tflops")[1], constant("rtx4090_fp16_acc_peak_tflops")[1]
    peak_fp16acc, (peak_fp32acc, src) = g["peak_fp16acc_tflops"], peak_input("RTX-4090", "fp16")
    tol = rounding_tolerance(achieved)
    inputs = (f"{src}; measured cuBLAS HGEMM {gemm_fp16acc:g} TFLOP/s ({s_gemm}); "
              f"FP16-accumulate peak {peak_fp16acc:g} ({s_acc})")
    formula = (f"GEMM fraction {gemm_fp16acc:g} / {peak_fp16acc:g} = {gemm_fraction:.2f}; FP32-accumulate GEMM ceiling "
               f"{gemm_fraction:.2f} x {peak_fp32acc:g} = {gemm_fp32acc:.0f}; {achieved:g} / {gemm_fp32acc:.0f} = "
               f"{achieved / gemm_fp32acc:.2f}; {achieved:g} / {gemm_fp16acc:g} = {achieved / gemm_fp16acc:.2f}")
    if achieved > gemm_fp16acc * (1 + tol):
        return Result(achieved, gemm_fp16acc, "TFLOP/s", tol, "implausible", formula, inputs=inputs, relation="≤",
                      explanation="Above the best dense GEMM measured on the card in either accumulate mode.")
    return Result(achieved, gemm_fp16acc, "TFLOP/s", tol, PLAUSIBLE, formula, inputs=inputs, relation="≤",
                  assumption=(f"the TFLOPS count FP16 tensor-core work with FP16 accumulation; with the FP32 "
                              f"accumulation of usual mixed-precision training the best dense GEMM on the card would "
                              f"reach about {gemm_fp32acc:.0f} TFLOP/s, below the claim"),
                  explanation=(f"End to end, with SSD swapping, the claim is {pct(achieved / gemm_fp16acc)} of what "
                               f"cuBLAS reaches on a pure FP16-accumulate GEMM on the card, which leaves at most "
                               f"{pct(1 - achieved / gemm_fp16acc)} of the time for attention, optimizer steps and "
                               f"any swap not hidden behind compute (our bound). Under FP32 accumulation the claim "
                               f"exceeds the GEMM ceiling itself ({pct(achieved / gemm_fp32acc)})."))


@check("fuyou-zero-infinity-utilization", "liao2024adding", ["liao2024adding-6"], "utilization",
       "Fuyou paper: ZeRO-Infinity reaches 45 TFLOPS on the same RTX 4090")
def _fuyou_zero(c: Claims) -> Result:
    achieved = c.value("liao2024adding-6")
    peak, src = peak_input("RTX-4090", "fp16")
    util = models.mfu(achieved, peak)
    tol = rounding_tolerance(achieved)
    return Result(achieved, peak, "TFLOP/s", tol, judge_bound(achieved, peak, "≤", tol),
                  f"{achieved:g} / {peak:g} = {util:.3f}", inputs=src, relation="≤",
                  explanation=f"{pct(util)} of the dense FP16 peak: below it.")


@check("pythia-gpu-days", "khandelwal2024100k",
       ["khandelwal2024100k-2", "khandelwal2024100k-3", "khandelwal2024100k-4", "khandelwal2024100k-5",
        "khandelwal2024100k-6"],
       "gpu_time", "Pythia-1B replication: 64 GPUs × 3 days against 4 GPUs × 18 days, stated as 3× fewer GPU-days")
def _pythia(c: Claims) -> Result:
    orig = models.gpu_hours(c.value("khandelwal2024100k-2"), c.value("khandelwal2024100k-3")) / 24
    ours = models.gpu_hours(c.value("khandelwal2024100k-5"), c.value("khandelwal2024100k-6")) / 24
    reported = c.value("khandelwal2024100k-4")
    ratio = orig / ours
    tol = rounding_tolerance(reported)  # "3x" allows 2.5–3.5
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"({orig:g} GPU-days) / ({ours:g} GPU-days) = {ratio:.2f}",
                  explanation="The ratio rounds to 3 at one significant figure.")


@check("pythia-budget", "khandelwal2024100k",
       ["khandelwal2024100k-1", "khandelwal2024100k-5", "khandelwal2024100k-6"], "gpu_time",
       "Pythia-1B replication (4 GPUs × 18 days) against the 2,000 GPU-hours spent on all experiments")
def _pythia_budget(c: Claims) -> Result:
    budget = c.value("khandelwal2024100k-1")
    run = models.gpu_hours(c.value("khandelwal2024100k-5"), c.value("khandelwal2024100k-6"))
    tol = rounding_tolerance(budget)
    ok = judge_bound(budget, run, "≥", tol) == "consistent"
    return Result(budget, run, "GPU-hours", tol, PLAUSIBLE if ok else "inconsistent",
                  f"4 x 18 days x 24 h = {run:g} GPU-hours = {run / budget:.0%} of {budget:g}", relation="≥",
                  assumption="the 18-day figure is extrapolated from a partial run on the benchmark, not a "
                             "complete replication (which alone would use 86% of the budget)" if ok else "",
                  explanation="A full replication fits in the stated budget only if it took nearly all of it, "
                              "while the budget also covered 'a range of models and academic GPUs'.")


@check("avinash-paged-throughput", "avinash2025profiling",
       ["avinash2025profiling-3", "avinash2025profiling-4", "avinash2025profiling-5"], "ratio",
       "LoRA on an RTX 4060: 628 vs 500 tok/s stated as up to 25% more throughput")
def _avinash(c: Claims) -> Result:
    new, base = c.value("avinash2025profiling-4"), c.value("avinash2025profiling-5")
    reported = c.value("avinash2025profiling-3")
    recomputed = 100 * (new / base - 1)
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(new), rounding_tolerance(base))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{new:g} / {base:g} - 1 = {recomputed / 100:.3f}",
                  explanation="628/500 is a 25.6% gain, which rounds to 26%, and exceeds the stated maximum "
                              "('up to 25%'): the percentage looks truncated, or the baseline was not exactly 500.")


@check("curie-6nd", "rucinski2024efficient", ["rucinski2024efficient-2", "rucinski2024efficient-8"], "compute",
       "Curie-7B: 276 million tokens of language-adaptive pre-training in under five days on a consumer GPU")
def _curie(c: Claims) -> Result:
    tokens = c.value("rucinski2024efficient-2") * 1e6
    days = c.value("rucinski2024efficient-8")
    params = 7e9  # from the model name Curie-7B
    flops = models.training_flops_6nd(params, tokens)
    peak, src = peak_input("RTX-4090", "fp16")
    min_days = models.training_days(flops, 1, peak, 1.0)
    need = min_days / days
    need_3090 = models.training_days(flops, 1, hardware.peak_tflops("RTX-3090", "fp16"), 1.0) / days
    return Result(days, min_days, "days", rounding_tolerance(days), PLAUSIBLE,
                  f"6 x 7e9 x {tokens:.3g} = {flops:.3g} FLOP; at 100% of {peak:g} TFLOP/s: {min_days:.2f} days; "
                  f"under {days:g} days needs MFU >= {need:.0%}", relation="≥",
                  assumption=f"the consumer GPU is an RTX 4090 (not named) running one pass over the tokens at "
                             f"{need:.0%} MFU or more (an RTX 3090 would need "
                             f"{need_3090:.0%})",
                  inputs=src,
                  explanation="6ND is an upper bound here: with LoRA (1.2% of parameters trained) the backward "
                              "pass skips most weight gradients.",
                  details={"curie_min_mfu_pct": (100 * need, "min_mfu_rtx4090_pct", "%")})


@check("hift-7b-a6000", "liu2024hift", ["liu2024hift-1", "liu2024hift-2", "liu2024hift-3", "liu2024hift-4"],
       "memory", "HiFT: full FP32 AdamW fine-tuning of a 7B model on one 48 GB A6000 with >60% memory saved")
def _hift(c: Claims) -> Result:
    gb, src = memory_input("A6000")
    params = c.value("liu2024hift-2") * 1e9
    saving = c.value("liu2024hift-1") / 100
    bpp = models.training_bytes_per_param(weight_bytes=4, grad_bytes=4, optimizer_bytes=8)
    full = params * bpp / 1e9
    after = full * (1 - saving)
    ok = after <= gb
    return Result(gb, after, "GB", 0.0, PLAUSIBLE if ok else "implausible",
                  f"7e9 x {bpp:g} bytes = {full:g} GB for standard FP32 AdamW; x (1 - {saving:g}) = {after:.1f} GB",
                  assumption="the >60% saving applies to the full footprint and activations stay small "
                             f"(at most {gb - after:.1f} GB)" if ok else "",
                  inputs=src, relation="≥",
                  explanation=f"FP32 weights, gradients and Adam moments need {bpp:g} bytes per parameter "
                              f"({full:g} GB); a {saving:.0%} cut leaves {after:.1f} GB, "
                              f"{'just under' if ok else 'over'} {gb:g} GB.",
                  details={"hift_full_gb": (full, "full_adamw_states_7b", "GB")})


@check("fusemix-gpu-days", "vouitsis2023data", ["vouitsis2023data-1"], "gpu_time",
       "FuseMix: ~600x fewer GPU-days than CLIP")
def _fusemix(c: Claims) -> Result:
    reported = c.value("vouitsis2023data-1")
    raise DataError(f"the abstract gives only the ratio ({reported:g}x), neither FuseMix's nor CLIP's GPU-days")
