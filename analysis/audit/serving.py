"""Claims-audit checks for the papers of the chapter Serving and inference systems."""

from __future__ import annotations

from analysis import models
from analysis.audit.inputs import constant, memory_input
from analysis.audit.registry import (
    Claims,
    Result,
    check,
    judge_bound,
    rounding_tolerance,
)


@check("pipo-utilization", "liu2025pipo", ["liu2025pipo-1", "liu2025pipo-2", "liu2025pipo-3"], "ratio",
       "PIPO: GPU utilisation from below 40% to over 90% against up to 3.1x throughput")
def _pipo(c: Claims) -> Result:
    before, after = c.value("liu2025pipo-1"), c.value("liu2025pipo-2")
    speedup = c.value("liu2025pipo-3")
    implied_before = after / speedup  # if throughput is proportional to utilisation
    tol = rounding_tolerance(speedup)
    return Result(before, implied_before, "%", tol, judge_bound(before, implied_before, "≥", tol),
                  f"{after:g}% / {speedup:g} = {implied_before:.1f}% baseline utilisation (stated: below "
                  f"{before:g}%); utilisation ratio at least {after:g}/{before:g} = {after / before:.2f}",
                  relation="≥",
                  explanation="If throughput scales with utilisation, 3.1x at 90% implies a 29% baseline, "
                              "inside the stated 'below 40%'.")


@check("locret-128k-rtx4090", "huang2024locret",
       ["huang2024locret-2", "huang2024locret-3", "huang2024locret-4"], "memory",
       "Locret: 128K-token inference of Llama-3.1-8B on one RTX 4090 with 8x KV-cache compression")
def _locret(c: Claims) -> Result:
    gb, src = memory_input("RTX-4090")
    layers, s1 = constant("llama31_8b_layers")
    kv_heads, s2 = constant("llama31_8b_kv_heads")
    head_dim, s3 = constant("llama31_8b_head_dim")
    tokens = int(c.value("huang2024locret-4") * 1024)
    compression = c.value("huang2024locret-2")
    w = models.weights_gb(8e9, "bf16")  # 8B from the model name
    kv_full = models.kv_cache_bytes(int(layers), int(kv_heads), int(head_dim), tokens)
    fits = models.max_concurrent_requests(gb, w, kv_full / compression)
    per_token = models.kv_cache_bytes(int(layers), int(kv_heads), int(head_dim), 1) / compression
    capacity_k = (gb - w) * 1e9 / per_token / 1024
    verdict = "consistent" if fits >= 1 else "implausible"
    full_gb, compressed_gb = w + kv_full / 1e9, w + kv_full / compression / 1e9
    return Result(c.value("huang2024locret-4"), capacity_k, "K tokens", 0.0, verdict,
                  f"weights 8e9 x 2 = {w:g} GB; KV at {tokens:,} tokens = {kv_full / 1e9:.2f} GB "
                  f"({w + kv_full / 1e9:.1f} GB in all, > {gb:g}); / {compression:g} = "
                  f"{kv_full / compression / 1e9:.2f} GB -> fits; capacity {capacity_k:.0f}K tokens",
                  inputs=f"{src}; {s1}; {s2}; {s3}", relation="≤",
                  explanation=f"Uncompressed, weights and cache need {full_gb:.0f} GB; with the stated "
                              f"{compression:g}x compression they need {compressed_gb:.0f} GB.",
                  details={"locret_full_gb": (full_gb, "memory_full_kv", "GB"),
                           "locret_compressed_gb": (compressed_gb, "memory_compressed_kv", "GB")})


@check("fiddler-mixtral-size", "kamahori2024fiddler", ["kamahori2024fiddler-1", "kamahori2024fiddler-4"], "memory",
       "Fiddler: uncompressed Mixtral-8x7B stated to exceed 90 GB of parameters")
def _fiddler(c: Claims) -> Result:
    params_b, src = constant("mixtral_8x7b_params_b")
    w = models.weights_gb(params_b * 1e9, "bf16")
    reported = c.value("kamahori2024fiddler-1")
    gpu_gb = c.value("kamahori2024fiddler-4")
    return Result(reported, w, "GB", 0.0, judge_bound(reported, w, "≤", 0.0),
                  f"{params_b:g}e9 x 2 bytes = {w:g} GB (> {reported:g} GB; {w / gpu_gb:.1f}x the {gpu_gb:g} GB GPU)",
                  inputs=src, relation="≤",
                  explanation="16-bit weights; the GPU holds about a quarter, so the rest must stay on the CPU.")
