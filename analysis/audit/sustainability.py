"""Claims-audit checks for the papers of the chapter Sustainability, cost and governance."""

from __future__ import annotations

from analysis import models
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
    combined_tolerance,
    judge,
    judge_bound,
    rounding_tolerance,
    significant_tolerance,
)
from analysis.data import hardware


@check("lifelong-reduction", "prabhu2024lifelong",
       ["prabhu2024lifelong-4", "prabhu2024lifelong-5", "prabhu2024lifelong-6"], "unit",
       "Sort & Search: 180 GPU-days down to 5 GPU-hours stated as a 1000x reduction")
def _lifelong(c: Claims) -> Result:
    before_h = models.gpu_hours(1, c.value("prabhu2024lifelong-4"))
    after_h = c.value("prabhu2024lifelong-5")
    reported = c.value("prabhu2024lifelong-6")
    ratio = before_h / after_h
    tol = combined_tolerance(significant_tolerance(reported), rounding_tolerance(after_h))
    return Result(reported, ratio, "x", tol, judge(reported, ratio, tol),
                  f"180 GPU-days x 24 = {before_h:g} GPU-hours; / {after_h:g} = {ratio:.0f}",
                  explanation="864x, which '1000x' states to one significant figure (an order of magnitude).")


@check("falk-mfu-reduction", "falk2025from", ["falk2025from-5", "falk2025from-6", "falk2025from-7"], "ratio",
       "Material footprint of GPT-4: MFU from 20% to 60% stated to lower GPU needs by 67%")
def _falk_mfu(c: Claims) -> Result:
    lo, hi = c.value("falk2025from-5") / 100, c.value("falk2025from-6") / 100
    reported = c.value("falk2025from-7")
    flops, peak = 1e25, hardware.peak_tflops("A100-40GB", "bf16")  # any budget: it cancels
    recomputed = 100 * (1 - models.training_days(flops, 1, peak, hi) / models.training_days(flops, 1, peak, lo))
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"1 - {lo:g}/{hi:g} = {recomputed / 100:.4f}",
                  explanation="GPUs needed for a fixed budget and duration scale as 1/MFU.")


@check("falk-combined-reduction", "falk2025from",
       ["falk2025from-3", "falk2025from-5", "falk2025from-6", "falk2025from-8", "falk2025from-9"], "ratio",
       "Material footprint of GPT-4: MFU 20→60% and lifespan 1→3 years together stated to cut GPU needs by up to 93%")
def _falk_both(c: Claims) -> Result:
    lo, hi = c.value("falk2025from-5"), c.value("falk2025from-6")
    life_lo, life_hi = c.range("falk2025from-8")
    gpus_lo, gpus_hi = c.range("falk2025from-3")
    reported = c.value("falk2025from-9")
    recomputed = 100 * (1 - (lo / hi) * (life_lo / life_hi))
    span = 100 * (1 - gpus_lo / gpus_hi)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"1 - ({lo:g}/{hi:g}) x ({life_lo:g}/{life_hi:g}) = {recomputed / 100:.3f}; stated span "
                  f"1 - {gpus_lo:,.0f}/{gpus_hi:,.0f} = {span / 100:.3f}",
                  explanation="Two threefold levers give 88.9%, and the abstract's own range of GPU counts "
                              "(1,174-8,800) gives 86.7%. A 93% cut needs a 14-15-fold lever, e.g. a 5-year "
                              "lifespan with 60% MFU (1 - 1/15 = 93.3%), which the abstract does not state.")


@check("cottier-billion-2027", "cottier2024rising", ["cottier2024rising-1", "cottier2024rising-6"], "ratio",
       "Rising training costs: 2.4x per year stated to reach more than $1 billion by 2027")
def _cottier(c: Claims) -> Result:
    growth = c.value("cottier2024rising-1")
    reported = c.value("cottier2024rising-6") * 1e9
    years = 2027 - 2023
    base_low = 2 * 10e6  # chips and staff "each costing tens of millions": at least $10M each
    projected = base_low * growth**years
    needed = reported / growth**years
    return Result(reported, projected, "USD", rounding_tolerance(growth), PLAUSIBLE,
                  f"{growth:g}^{years} = {growth**years:.1f}; $1B / {growth**years:.1f} = ${needed / 1e6:.0f}M "
                  f"needed in 2023; the stated lower bound $20M x {growth**years:.1f} = ${projected / 1e6:.0f}M",
                  assumption=f"the largest 2023 training run (GPT-4, Gemini) cost at least ${needed / 1e6:.0f}M "
                             "amortised, i.e. more than the two 'tens of millions' items alone guarantee",
                  relation="≥",
                  explanation="Four years of 2.4x growth multiply the cost by 33; the projection holds if the "
                              "2023 frontier cost is above $30M.")


@check("lca-bloom-categories", "falk2025more", ["falk2025more-1", "falk2025more-2", "falk2025more-4"], "ratio",
       "A100 life-cycle assessment, BLOOM: use phase dominating 11 of 16 categories and manufacturing the remaining 5")
def _lca_bloom(c: Claims) -> Result:
    total = c.value("falk2025more-1")
    use, manufacturing = c.value("falk2025more-2"), c.value("falk2025more-4")
    recomputed = use + manufacturing
    return Result(total, recomputed, "categories", 0.0, judge(total, recomputed, 0.0),
                  f"{use:g} + {manufacturing:g} = {recomputed:g} of {total:g} impact categories",
                  explanation="Counts are exact; 'the remaining' makes the two stages a partition of the categories.")


@check("lca-gpt4-categories", "falk2025more", ["falk2025more-1", "falk2025more-7", "falk2025more-9"], "ratio",
       "A100 life-cycle assessment, GPT-4: use phase dominating 10 of 16 categories and manufacturing 6 of 16")
def _lca_gpt4(c: Claims) -> Result:
    total = c.value("falk2025more-1")
    use, manufacturing = c.value("falk2025more-7"), c.value("falk2025more-9")
    recomputed = use + manufacturing
    return Result(recomputed, total, "categories", 0.0, judge_bound(recomputed, total, "≤", 0.0),
                  f"{use:g} + {manufacturing:g} = {recomputed:g} <= {total:g} impact categories", relation="≤",
                  explanation="Each category has one dominant stage, so the two counts cannot add up to more than "
                              "16; they add up to exactly 16, as for BLOOM.")
