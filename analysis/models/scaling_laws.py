"""Parametric scaling laws: compute-optimal and inference-aware model size.

The loss law is that of Hoffmann et al. 2022 (arXiv 2203.15556), eq. (4),

    L(N, D) = E + A / N^alpha + B / D^beta     (nats per token; N parameters, D training tokens),

whose constants the chapter takes either as printed (Hoffmann et al., App. D.2) or as refit by
Besiroglu et al. 2024 (arXiv 2404.10102). Training costs 6·N·D FLOP and serving 2·N FLOP per token
(:func:`analysis.models.compute.training_flops_6nd`, :func:`analysis.models.compute.inference_flops_per_token`).

Inference-aware scaling (Sardana et al. 2024, arXiv 2401.00448, Sec. 2): for a target loss ``l`` and a
lifetime demand of ``D_inf`` served tokens, choose N (and the D_tr that reaches ``l`` at that N) to minimise
the lifetime compute 6·N·D_tr + 2·N·D_inf. With D_inf = 0 this is the compute-optimal (Chinchilla) point of
the budget at which ``l`` is the best loss reachable; a larger D_inf moves the optimum to a smaller model
trained on more tokens.

Pure functions; units are in the argument names.
"""

from __future__ import annotations

import math

from analysis.models.base import ModelError, require_non_negative, require_positive
from analysis.models.compute import inference_flops_per_token, training_flops_6nd


def chinchilla_loss(params: float, tokens: float, e: float, a: float, b: float, alpha: float, beta: float) -> float:
    """Hoffmann et al. 2022 eq. (4): L(N, D) = E + A/N^alpha + B/D^beta, in nats per token."""
    require_positive(params=params, tokens=tokens)
    return e + a / params**alpha + b / tokens**beta


def _allocation_constant(a: float, b: float, alpha: float, beta: float) -> float:
    return (alpha * a / (beta * b)) ** (1.0 / (alpha + beta))


def chinchilla_optimal(c_flop: float, a: float, b: float, alpha: float, beta: float) -> tuple[float, float]:
    """(N_opt, D_opt) minimising eq. (4) under C = 6·N·D (Hoffmann et al. 2022, eq. (4) and App. D.2).

    N_opt = G·(C/6)^(beta/(alpha+beta)), G = (alpha·A / (beta·B))^(1/(alpha+beta)); D_opt = C / (6·N_opt).
    """
    require_positive(c_flop=c_flop, a=a, b=b, alpha=alpha, beta=beta)
    n = _allocation_constant(a, b, alpha, beta) * (c_flop / 6.0) ** (beta / (alpha + beta))
    return n, c_flop / (6.0 * n)


def params_exponent(alpha: float, beta: float) -> float:
    """The exponent a of N_opt ∝ C^a implied by eq. (4): a = beta / (alpha + beta) (Hoffmann et al. 2022, Sec. 3.3)."""
    require_positive(alpha=alpha, beta=beta)
    return beta / (alpha + beta)


def compute_where_optimal_chinchilla(params: float, a: float, b: float, alpha: float, beta: float) -> float:
    """Training FLOP at which `params` is the compute-optimal size under eq. (4) (inverse of chinchilla_optimal)."""
    require_positive(params=params)
    return 6.0 * (params / _allocation_constant(a, b, alpha, beta)) ** ((alpha + beta) / beta)


def tokens_for_loss(loss: float, params: float, e: float, a: float, b: float, alpha: float, beta: float) -> float:
    """Training tokens D at which a model of `params` parameters reaches `loss` under eq. (4):
    D = (B / (l − E − A/N^alpha))^(1/beta); infinite when that model cannot reach the loss at all."""
    require_positive(loss=loss, params=params, b=b, beta=beta)
    r = loss - e - a / params**alpha
    return math.inf if r <= 0 else (b / r) ** (1.0 / beta)


def lifetime_flop(params: float, train_tokens: float, inference_tokens: float) -> float:
    """Training plus serving compute of one model: 6·N·D_tr + 2·N·D_inf FLOP (Sardana et al. 2024, Sec. 2)."""
    require_non_negative(inference_tokens=inference_tokens)
    return training_flops_6nd(params, train_tokens) + inference_flops_per_token(params) * inference_tokens


def inference_aware_optimal(loss: float, inference_tokens: float, e: float, a: float, b: float, alpha: float,
                            beta: float) -> tuple[float, float]:
    """(N, D_tr) that reach `loss` with the least lifetime compute when `inference_tokens` are served
    (Sardana et al. 2024, arXiv 2401.00448, Sec. 2, solved there with Newton's method; here by bisection).

    With D(N) = tokens_for_loss(loss, N), the derivative of 6·N·D(N) + 2·N·D_inf in N is
    6·D·(1 − alpha·A·N^−alpha / (beta·r)) + 2·D_inf, r = l − E − A·N^−alpha; it runs from −∞ at the smallest
    model that can reach `loss` to 6·D + 2·D_inf > 0, and its root is the optimum.
    """
    require_positive(loss=loss, a=a, b=b, alpha=alpha, beta=beta)
    require_non_negative(inference_tokens=inference_tokens)
    if loss <= e:
        raise ModelError(f"target loss {loss} is not above the irreducible loss E = {e}")
    n_min = (a / (loss - e)) ** (1.0 / alpha)

    def slope(n: float) -> float:
        r = loss - e - a / n**alpha
        d = (b / r) ** (1.0 / beta)
        return 6.0 * d * (1.0 - alpha * a * n**-alpha / (beta * r)) + 2.0 * inference_tokens

    lo, hi = math.log(n_min) + 1e-12, math.log(n_min) + math.log(1e6)
    if slope(math.exp(hi)) <= 0:
        raise ModelError("no optimum within six decades above the smallest model that reaches the loss")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slope(math.exp(mid)) < 0:
            lo = mid
        else:
            hi = mid
    n = math.exp(0.5 * (lo + hi))
    return n, tokens_for_loss(loss, n, e, a, b, alpha, beta)
