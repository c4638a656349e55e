"""Data-constrained scaling: the value of repeated tokens and of excess parameters.

Muennighoff et al. 2023, "Scaling Data-Constrained Language Models" (arXiv 2305.16264, NeurIPS 2023;
equation numbers not checked here) keep the Chinchilla loss L = E + A/N'^alpha + B/D'^beta
(:func:`analysis.models.scaling_laws.chinchilla_loss`) but replace the training tokens D by an effective
data D' and the parameters N by effective parameters N':

    D' = U_D + U_D·R*_D·(1 − exp(−R_D/R*_D)),   R_D = D/U_D − 1 (epochs beyond the first),
    N' = U_N + U_N·R*_N·(1 − exp(−R_N/R*_N)),   R_N = N/U_N − 1,

where U_D is the number of unique tokens and U_N the compute-optimal size for U_D tokens. A repeated token
is worth a little less than a fresh one, and the total worth of repetition saturates at R*_D times the
unique data. Their fitted constants (:data:`MUENNIGHOFF2023_FIT`) are those printed in the "Parametric Fit"
section of the paper's repository README (github.com/huggingface/datablations, commit 0c765022), where
the paper's own coefficients a = log A, b = log B, e = log E are given.

Pure functions; units are in the argument names.
"""

from __future__ import annotations

import math

from analysis.models.base import require_non_negative, require_positive
from analysis.models.scaling_laws import chinchilla_loss

MUENNIGHOFF2023_FIT: dict[str, float] = {
    "E": math.exp(0.6254804),
    "A": math.exp(6.255414),
    "B": math.exp(7.3049974),
    "alpha": 0.3526596,
    "beta": 0.3526596,
    "r_star_d": 15.387756,
    "r_star_n": 5.309743,
}
"""Fitted constants of Muennighoff et al. 2023 (C4), from the "Parametric Fit" section of
github.com/huggingface/datablations README.md (commit 0c76502267929830725f1de47a1b7b02bec78af4), which prints
a, b, e, alpha, beta, R*_D, R*_N = 6.255414, 7.3049974, 0.6254804, 0.3526596, 0.3526596, 15.387756, 5.309743
with A = exp(a), B = exp(b), E = exp(e)."""


def effective_repeated(unique: float, repetitions: float, r_star: float) -> float:
    """U + U·R*·(1 − exp(−R/R*)): the effective count of `unique` items seen 1 + `repetitions` times
    (Muennighoff et al. 2023, arXiv 2305.16264). Tends to U·(1 + R*) as R grows."""
    require_positive(unique=unique, r_star=r_star)
    require_non_negative(repetitions=repetitions)
    return unique + unique * r_star * (1.0 - math.exp(-repetitions / r_star))


def effective_data_tokens(unique_tokens: float, epochs: float, r_star_d: float) -> float:
    """Effective data D' in tokens when `unique_tokens` are trained on for `epochs` passes (epochs ≥ 1):
    D' = U_D + U_D·R*_D·(1 − exp(−R_D/R*_D)) with R_D = epochs − 1 (Muennighoff et al. 2023)."""
    require_positive(epochs=epochs)
    return effective_repeated(unique_tokens, max(epochs - 1.0, 0.0), r_star_d)


def params_for_tokens(tokens: float, a: float, b: float, alpha: float, beta: float) -> float:
    """The compute-optimal size for `tokens` training tokens under the Chinchilla law, N = G·(D·G)^(beta/alpha),
    G = (alpha·A/(beta·B))^(1/(alpha+beta)) (inverse of D_opt(C); U_N of Muennighoff et al. 2023)."""
    require_positive(tokens=tokens, a=a, b=b, alpha=alpha, beta=beta)
    g = (alpha * a / (beta * b)) ** (1.0 / (alpha + beta))
    return (tokens * g) ** (beta / alpha) * g


def data_constrained_loss(params: float, tokens: float, unique_tokens: float, e: float, a: float, b: float,
                          alpha: float, beta: float, r_star_d: float, r_star_n: float) -> float:
    """Loss in nats per token of `params` parameters trained on `tokens` tokens drawn from `unique_tokens`
    unique ones (Muennighoff et al. 2023): Chinchilla's law at (N', D').

    U_N = min(N, N_opt(U_D)), R_N = N/U_N − 1, R_D = max(D/U_D − 1, 0) as in the paper's README code."""
    require_positive(params=params, tokens=tokens, unique_tokens=unique_tokens)
    u_d = min(unique_tokens, tokens)
    d_eff = effective_repeated(u_d, max(tokens / u_d - 1.0, 0.0), r_star_d)
    u_n = min(params, params_for_tokens(u_d, a, b, alpha, beta))
    n_eff = effective_repeated(u_n, max(params / u_n - 1.0, 0.0), r_star_n)
    return chinchilla_loss(n_eff, d_eff, e, a, b, alpha, beta)


def data_constrained_optimal(c_flop: float, unique_tokens: float, e: float, a: float, b: float, alpha: float,
                             beta: float, r_star_d: float, r_star_n: float) -> tuple[float, float]:
    """(N, D) minimising :func:`data_constrained_loss` under C = 6·N·D with `unique_tokens` available
    (golden-section search in log N over six decades around the Chinchilla optimum; the loss is unimodal
    there). Muennighoff et al. 2023 solve the same problem numerically (their README uses a grid search)."""
    require_positive(c_flop=c_flop, unique_tokens=unique_tokens)

    def loss(log_n: float) -> float:
        n = math.exp(log_n)
        return data_constrained_loss(n, c_flop / (6.0 * n), unique_tokens, e, a, b, alpha, beta, r_star_d, r_star_n)

    g = (alpha * a / (beta * b)) ** (1.0 / (alpha + beta))
    centre = math.log(g * (c_flop / 6.0) ** (beta / (alpha + beta)))
    lo, hi = centre - 3 * math.log(10), centre + 3 * math.log(10)
    phi = (math.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
    f1, f2 = loss(x1), loss(x2)
    for _ in range(200):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - phi * (hi - lo)
            f1 = loss(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + phi * (hi - lo)
            f2 = loss(x2)
    n = math.exp(0.5 * (lo + hi))
    return n, c_flop / (6.0 * n)
