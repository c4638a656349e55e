"""Data-constrained scaling (Muennighoff et al. 2023, arXiv 2305.16264) against the numbers its authors print.

Source of every expected value: the "Parametric Fit" section of the paper's repository README,
github.com/huggingface/datablations README.md at commit 0c76502267929830725f1de47a1b7b02bec78af4 (read through the
search tool's code index), which evaluates the law for the two models of the paper's Figure 1 (right) and the
optimal allocation of the second model's budget. The 4-epoch bound is the paper's abstract (NeurIPS 2023
proceedings page, papers.nips.cc): up to 4 epochs of repetition change the loss negligibly.
"""

import math

import pytest

from analysis.models.base import ModelError
from analysis.models.data_constrained import (
    MUENNIGHOFF2023_FIT,
    data_constrained_loss,
    data_constrained_optimal,
    effective_data_tokens,
    effective_repeated,
)

F = MUENNIGHOFF2023_FIT
K = dict(e=F["E"], a=F["A"], b=F["B"], alpha=F["alpha"], beta=F["beta"], r_star_d=F["r_star_d"],
         r_star_n=F["r_star_n"])


@pytest.mark.parametrize(("params", "tokens", "expected"), [
    (6.34e9, 242e9, 2.2256440889984477),  # README: "Models in Figure 1 (right)", the better one
    (8.67e9, 178e9, 2.2269634075087867),  # README: the Chinchilla-style allocation of the same budget
])
def test_loss_of_figure1_models_matches_readme(params, tokens, expected):
    assert data_constrained_loss(params, tokens, 25e9, **K) == pytest.approx(expected, rel=1e-9)


def test_optimal_allocation_matches_readme():
    # README: optimal_allocation(8.67e9, 178e9, 25e9) -> "227B tokens, 9.1 epochs, 6.8B parameters" (grid search)
    n, d = data_constrained_optimal(6 * 8.67e9 * 178e9, 25e9, **K)
    assert n / 1e9 == pytest.approx(6.8, abs=0.05)
    assert d / 1e9 == pytest.approx(227, abs=1)
    assert d / 25e9 == pytest.approx(9.1, abs=0.05)


def test_four_epochs_are_nearly_as_good_as_fresh_data():
    # Abstract: up to 4 epochs of repeated data yield negligible changes to loss against unique data.
    # Independent computation: 1 + 15.387756·(1 − e^(−3/15.387756)) = 3.7257 effective epochs out of 4.
    ratio = effective_data_tokens(1.0, 4.0, F["r_star_d"]) / 4.0
    assert ratio == pytest.approx(3.725673 / 4.0, rel=1e-5)
    assert ratio > 0.9


def test_limits_of_effective_data():
    assert effective_data_tokens(7e9, 1.0, 15.0) == 7e9  # one epoch: all data fresh, D' = D
    assert effective_repeated(1.0, 1e6, 15.0) == pytest.approx(16.0)  # saturates at U·(1 + R*)
    assert effective_repeated(1.0, 1e-6, 15.0) == pytest.approx(1.0 + 1e-6, rel=1e-9)  # first repeats ≈ fresh
    assert math.isfinite(data_constrained_loss(1e9, 1e12, 1e9, **K))


def test_rejects_nonsense():
    with pytest.raises(ModelError):
        effective_repeated(-1.0, 1.0, 15.0)
    with pytest.raises(ModelError):
        effective_repeated(1.0, -1.0, 15.0)
