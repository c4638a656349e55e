"""FLOP counts of training and inference, and model FLOP utilisation (MFU).

Pure functions; units are in the argument names (see analysis.models)."""

from __future__ import annotations

from analysis.models.base import require_non_negative, require_positive

# --- compute -----------------------------------------------------------------------------

def training_flops_6nd(params: float, tokens: float) -> float:
    """Training compute C ≈ 6·N·D in FLOP (forward 2ND + backward 4ND), Kaplan et al. 2020."""
    require_positive(params=params, tokens=tokens)
    return 6.0 * params * tokens


def megatron_flops_per_iteration(
    batch: int, seq_len: int, layers: int, hidden: int, vocab: int, recompute: bool = True
) -> float:
    """FLOP per iteration of a GPT model, Narayanan et al. 2021 (Megatron-LM), eq. (3).

    F = k·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)), k = 96 with full activation recomputation
    (one extra forward pass), 72 without.
    """
    require_positive(batch=batch, seq_len=seq_len, layers=layers, hidden=hidden, vocab=vocab)
    k = 96.0 if recompute else 72.0
    return k * batch * seq_len * layers * hidden**2 * (1 + seq_len / (6 * hidden) + vocab / (16 * layers * hidden))


def inference_flops_per_token(params: float, layers: int = 0, context: int = 0, d_attn: int = 0) -> float:
    """Forward FLOP per generated token: 2·N plus attention over the context, 2·l·ctx·d_attn (Kaplan 2020)."""
    require_positive(params=params)
    require_non_negative(layers=layers, context=context, d_attn=d_attn)
    return 2.0 * params + 2.0 * layers * context * d_attn


# --- utilisation -------------------------------------------------------------------------

def mfu(achieved_tflops_per_gpu: float, peak_tflops: float) -> float:
    """Model FLOPs utilisation: achieved model FLOP/s over the hardware's peak (a fraction)."""
    require_non_negative(achieved_tflops_per_gpu=achieved_tflops_per_gpu)
    require_positive(peak_tflops=peak_tflops)
    return achieved_tflops_per_gpu / peak_tflops


def mfu_from_aggregate(aggregate_pflops: float, n_gpus: int, peak_tflops: float) -> float:
    """MFU from an aggregate throughput in PFLOP/s over `n_gpus` accelerators."""
    require_positive(n_gpus=n_gpus)
    return mfu(aggregate_pflops * 1e3 / n_gpus, peak_tflops)


def mfu_from_tokens(tokens_per_s: float, params: float, n_gpus: int, peak_tflops: float) -> float:
    """MFU from training throughput in tokens/s, using 6·N FLOP per token."""
    require_positive(tokens_per_s=tokens_per_s, params=params, n_gpus=n_gpus)
    return mfu(6.0 * params * tokens_per_s / n_gpus / 1e12, peak_tflops)
