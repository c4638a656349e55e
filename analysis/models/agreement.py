"""Agreement between two coders of the same items: percent agreement and Cohen's kappa.

Cohen's kappa (Cohen 1960, "A coefficient of agreement for nominal scales", Educational and Psychological
Measurement 20(1), Eq. 1): kappa = (p_o - p_e) / (1 - p_e), with p_o the share of items the two coders put in
the same category and p_e the share expected by chance, the sum over categories of the product of each
coder's share of items in that category. kappa is 1 for perfect agreement and 0 for agreement at chance;
it is undefined (NaN here) when both coders use a single category (p_e = 1).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from analysis.models.base import ModelError


def percent_agreement(first: Sequence[str], second: Sequence[str]) -> float:
    """Share of items (in %) that the two coders put in the same category."""
    _check(first, second)
    return 100.0 * sum(a == b for a, b in zip(first, second, strict=True)) / len(first)


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float:
    """Cohen's kappa of two codings of the same items (Cohen 1960, Eq. 1)."""
    _check(first, second)
    n = len(first)
    p_o = sum(a == b for a, b in zip(first, second, strict=True)) / n
    c1, c2 = Counter(first), Counter(second)
    p_e = sum(c1[k] * c2[k] for k in set(c1) | set(c2)) / (n * n)
    if math.isclose(p_e, 1.0):
        return math.nan
    return (p_o - p_e) / (1.0 - p_e)


def _check(first: Sequence[str], second: Sequence[str]) -> None:
    if len(first) != len(second):
        raise ModelError(f"two codings of different lengths: {len(first)} and {len(second)}")
    if not first:
        raise ModelError("no items coded")
