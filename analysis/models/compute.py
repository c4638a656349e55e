"""FLOP counts of training and inference, and model FLOP utilisation (MFU).

Pure functions; units are in the argument names (see analysis.models)."""

from __future__ import annotations

from analysis.models.base import require_non_negative, require_positive


def training_flops_6nd(params: float, tokens: float) -> float:
    """Training compute C ≈ 6·N·D in FLOP (forward 2ND + backward 4ND), Kaplan et al. 2020."""
    require_positive(params=params, tokens=tokens)
    return 6.0 * params * tokens


def training_flops_with_attention(params: float, tokens: float, layers: int, context: int, d_attn: int) -> float:
    """Training compute with the attention term: C ≈ (6·N + 6·l·ctx·d_attn)·D in FLOP.

    Kaplan et al. 2020, Eq. 2.2 and Table 1: a forward pass costs 2·N + 2·l·ctx·d_attn per token (the
    second term is the attention scores and their weighted sum over a context of ctx tokens), and
    training three times the forward. The book's convention is :func:`training_flops_6nd`, which leaves
    the attention term out (8 % for a 7B model at a 4,096-token context); this is the count with it.
    """
    require_positive(params=params, tokens=tokens)
    require_non_negative(layers=layers, context=context, d_attn=d_attn)
    return (6.0 * params + 6.0 * layers * context * d_attn) * tokens


def megatron_flops_per_iteration(
    batch: int, seq_len: int, layers: int, hidden: int, vocab: int, recompute: bool = True
) -> float:
    """FLOP per iteration of a GPT model, Narayanan et al. 2021 (Megatron-LM), eq. (3).

    With full activation recomputation (one extra forward pass of the transformer layers):
    F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)). Without it the layers cost 3 forward passes
    instead of 4 (k = 72) while the logit layer's 6·B·s·h·V is unchanged, so its term becomes
    V/(12·l·h) (Korthikanti et al. 2022, section 6).
    """
    require_positive(batch=batch, seq_len=seq_len, layers=layers, hidden=hidden, vocab=vocab)
    k, logit = (96.0, 16.0) if recompute else (72.0, 12.0)
    return k * batch * seq_len * layers * hidden**2 * (1 + seq_len / (6 * hidden) + vocab / (logit * layers * hidden))


def megatron_training_seconds(tokens: float, params: float, n_gpus: int, achieved_tflops_per_gpu: float,
                              recompute: bool = True) -> float:
    """End-to-end training time, Narayanan et al. 2021, eq. (4): 8·T·P/(n·X) seconds with full
    activation recomputation (6·T·P/(n·X) without), for T tokens, P parameters, n GPUs at X FLOP/s each."""
    require_positive(tokens=tokens, params=params, n_gpus=n_gpus, achieved_tflops_per_gpu=achieved_tflops_per_gpu)
    return (8.0 if recompute else 6.0) * tokens * params / (n_gpus * achieved_tflops_per_gpu * 1e12)


def inference_flops_per_token(params: float, layers: int = 0, context: int = 0, d_attn: int = 0) -> float:
    """Forward FLOP per generated token: 2·N plus attention over the context, 2·l·ctx·d_attn (Kaplan 2020)."""
    require_positive(params=params)
    require_non_negative(layers=layers, context=context, d_attn=d_attn)
    return 2.0 * params + 2.0 * layers * context * d_attn


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


def mfu_with_attention(tokens_per_s: float, params: float, layers: int, heads: int, head_dim: int, seq_len: int,
                       n_chips: int, peak_tflops: float) -> float:
    """MFU counting attention, Chowdhery et al. 2022 (PaLM), appendix B: model FLOP per token
    6·N + 12·L·H·Q·T (L layers, H heads, head size Q, sequence length T), times tokens/s, over
    the chips' peak."""
    require_positive(tokens_per_s=tokens_per_s, params=params, layers=layers, heads=heads, head_dim=head_dim,
                     seq_len=seq_len, n_chips=n_chips)
    flop_per_token = 6.0 * params + 12.0 * layers * heads * head_dim * seq_len
    return mfu(flop_per_token * tokens_per_s / n_chips / 1e12, peak_tflops)
