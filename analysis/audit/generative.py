"""Claims-audit checks for the papers of the chapter Efficient generative models."""

from __future__ import annotations

from analysis import models
from analysis.audit.inputs import cost_rate
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
    combined_tolerance,
    judge,
    rounding_tolerance,
    significant_tolerance,
    x_fold,
)
from analysis.models import chain, chain_inputs


@check("pixart-time-share", "chen2023pixart", ["chen2023pixart-2", "chen2023pixart-3", "chen2023pixart-4"],
       "gpu_time", "PixArt-α: 675 vs 6,250 A100 GPU-days stated as 10.8% of Stable Diffusion's training time")
def _pixart_share(c: Claims) -> Result:
    ours, sd = c.value("chen2023pixart-3"), c.value("chen2023pixart-4")
    reported = c.value("chen2023pixart-2")
    recomputed = 100 * models.gpu_hours(ours, 1) / models.gpu_hours(sd, 1)
    tol = rounding_tolerance(reported)
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{ours:g} / {sd:g} = {recomputed / 100:.4f}")


@check("hipa-speedup", "zhang2023hipa", ["zhang2023hipa-4", "zhang2023hipa-5", "zhang2023hipa-6"], "gpu_time",
       "HiPA: 108.8 → 3.8 A100 GPU-days stated as a 28.6x training speed-up")
def _hipa(c: Claims) -> Result:
    before, after = c.value("zhang2023hipa-5"), c.value("zhang2023hipa-6")
    reported = c.value("zhang2023hipa-4")
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(before), rounding_tolerance(after))
    return x_fold(reported, before, after, tol,
                  explanation="Tolerance adds the rounding of all three printed numbers (3.8 dominates).")


@check("cod-speedup", "jia2025cod", ["jia2025cod-2", "jia2025cod-3", "jia2025cod-4"], "gpu_time",
       "CoD: ~20 vs ~6,250 A100 GPU-days stated as 300x faster training than Stable Diffusion")
def _cod(c: Claims) -> Result:
    ours, sd = c.value("jia2025cod-3"), c.value("jia2025cod-4")
    reported = c.value("jia2025cod-2")
    tol = combined_tolerance(significant_tolerance(reported), significant_tolerance(ours),
                             significant_tolerance(sd))
    return x_fold(reported, sd, ours, tol, fmt=".1f",
                  explanation="Both GPU-day figures carry '~', so trailing zeros are read as not significant.")


@check("hipa-parameter-share", "zhang2023hipa", ["zhang2023hipa-7", "zhang2023hipa-8", "zhang2023hipa-9"], "ratio",
       "HiPA: 7,740 million → 3.3 million trained parameters stated as 0.04%")
def _hipa_params(c: Claims) -> Result:
    full, ours = c.value("zhang2023hipa-8"), c.value("zhang2023hipa-9")
    reported = c.value("zhang2023hipa-7")
    recomputed = 100 * ours / full
    tol = combined_tolerance(rounding_tolerance(reported), rounding_tolerance(ours))
    return Result(reported, recomputed, "%", tol, judge(reported, recomputed, tol),
                  f"{ours:g} / {full:g} = {recomputed / 100:.6f}")


@check("pixart-savings", "chen2023pixart", ["chen2023pixart-5", "chen2023pixart-6", "chen2023pixart-7"], "ratio",
       "PixArt-α: $26,000 vs $320,000 stated as saving nearly $300,000")
def _pixart_savings(c: Claims) -> Result:
    reported = c.value("chen2023pixart-5")
    saving = c.value("chen2023pixart-7") - c.value("chen2023pixart-6")
    tol = significant_tolerance(reported)
    verdict = judge(reported, saving, tol)
    return Result(reported, saving, "USD", tol, verdict, f"320,000 - 26,000 = {saving:,.0f}",
                  explanation="'Nearly $300,000' is a round figure (one significant figure); $294,000 is just "
                              "below it, as 'nearly' says.")


@check("pixart-cost-vs-time", "chen2023pixart",
       ["chen2023pixart-3", "chen2023pixart-4", "chen2023pixart-6", "chen2023pixart-7"], "cost_rate",
       "PixArt-α: the two dollar figures against the two GPU-day figures at one A100 price")
def _pixart_cost_ratio(c: Claims) -> Result:
    ours_h = models.gpu_hours(1, c.value("chen2023pixart-3"))
    sd_h = models.gpu_hours(1, c.value("chen2023pixart-4"))
    ours_usd, sd_usd = c.value("chen2023pixart-6"), c.value("chen2023pixart-7")
    sd_rate = sd_usd / sd_h
    recomputed = models.rental_cost_usd(ours_h, sd_rate)
    tol = combined_tolerance(rounding_tolerance(ours_usd), rounding_tolerance(sd_usd))
    return Result(ours_usd, recomputed, "USD", tol, judge(ours_usd, recomputed, tol),
                  f"SD: {sd_usd:,.0f} / {sd_h:,.0f} GPU-h = ${sd_rate:.3f}/GPU-h; PixArt at that price: "
                  f"{ours_h:,.0f} x {sd_rate:.3f} = {recomputed:,.0f}",
                  explanation=f"The dollar figures imply ${ours_usd / ours_h:.2f} per A100-hour for PixArt-α and "
                              f"${sd_rate:.2f} for Stable Diffusion: the cost ratio "
                              f"({ours_usd / sd_usd:.1%}) is not the GPU-time ratio ({ours_h / sd_h:.1%}).",
                  details={"rate_pixart": (ours_usd / ours_h, "implied_usd_per_gpu_hour:pixart", "USD/GPU-hour"),
                           "rate_sd": (sd_rate, "implied_usd_per_gpu_hour:sd", "USD/GPU-hour")})


def _claim_price(c: Claims, claim_id: str) -> str:
    """The on-demand price entry of the GPU a claim names, as the book's one table resolves it (a bare "A100"
    is the 40 GB part: analysis.models.chain_inputs.claim_hardware), so the audit prices a run on the same part
    as the sustainability chain."""
    return chain_inputs.price_key(chain_inputs.claim_hardware(c.row(claim_id)["hardware"]))


@check("pixart-cost-rate", "chen2023pixart", ["chen2023pixart-3", "chen2023pixart-6"], "cost_rate",
       "PixArt-α: $26,000 for 675 A100 GPU-days")
def _pixart_rate(c: Claims) -> Result:
    return cost_rate(c.value("chen2023pixart-6"), models.gpu_hours(1, c.value("chen2023pixart-3")),
                      _claim_price(c, "chen2023pixart-3"), "A100 GPUs")


@check("pixart-sd-cost-rate", "chen2023pixart", ["chen2023pixart-4", "chen2023pixart-7"], "cost_rate",
       "PixArt-α's figure for Stable Diffusion v1.5: $320,000 for 6,250 A100 GPU-days")
def _sd_rate(c: Claims) -> Result:
    return cost_rate(c.value("chen2023pixart-7"), models.gpu_hours(1, c.value("chen2023pixart-4")),
                      _claim_price(c, "chen2023pixart-4"), "A100 GPUs")


@check("pixart-co2", "chen2023pixart", ["chen2023pixart-3", "chen2023pixart-4", "chen2023pixart-8"], "energy",
       "PixArt-α: 675 vs 6,250 A100 GPU-days stated as a 90% cut in CO2 emissions")
def _pixart_co2(c: Claims) -> Result:
    x = chain_inputs.inputs_for(chain_inputs.claim_hardware(c.row("chen2023pixart-3")["hardware"]), "central")
    co2 = [chain.run_footprint(models.gpu_hours(1, c.value(cid)), x).operational_tco2e
           for cid in ("chen2023pixart-3", "chen2023pixart-4")]
    reported = c.value("chen2023pixart-8")
    recomputed = 100 * (1 - co2[0] / co2[1])
    tol = significant_tolerance(reported)
    ok = judge(reported, recomputed, tol) == "consistent"
    return Result(reported, recomputed, "%", tol, PLAUSIBLE if ok else "inconsistent",
                  f"{co2[0]:.1f} tCO2e vs {co2[1]:.1f} tCO2e: 1 - {co2[0]:.1f}/{co2[1]:.1f} = {recomputed / 100:.3f}",
                  assumption="both models were trained on the same hardware at the same average power, PUE and "
                             "grid carbon intensity, so emissions scale with GPU-days" if ok else "",
                  inputs=f"the book's one chain at its central defaults (A100 {x.power.watts:g} W × "
                         f"{x.power_fraction:g} × server factor {x.server_power_factor:g} × PUE {x.pue:g}; "
                         f"grid {x.grid_kg_per_kwh:g} kgCO2e/kWh; data/hardware.csv, data/assumptions.yml)",
                  explanation="The absolute tonnes depend on the assumptions; their ratio does not. 89.2% is "
                              "'90%' at one significant figure.")


@check("sd-gpu-days-restated", "jia2025cod", ["jia2025cod-4", "chen2023pixart-4"], "gpu_time",
       "Stable Diffusion's training as quoted by CoD (~6,250 A100 GPU-days) and by PixArt-α (6,250)")
def _sd_restated(c: Claims) -> Result:
    cod, pixart = c.value("jia2025cod-4"), c.value("chen2023pixart-4")
    tol = significant_tolerance(cod)
    return Result(cod, pixart, "GPU-days", tol, judge(cod, pixart, tol),
                  f"{cod:,.0f} (CoD) against {pixart:,.0f} (PixArt-α) A100 GPU-days",
                  explanation="Two papers of the corpus quote the same figure for Stable Diffusion's training; "
                              "neither abstract gives its source.")
