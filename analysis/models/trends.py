"""Exponential trends: growth factor per year fitted to (year, value) points.

One fit serves the book: least squares of ln(value) on the year, so
value ≈ exp(intercept + ln(per_year) · year). Two kinds of 95 % interval:

* ``"t"`` -- the Student-t interval of the slope (the accelerators chapter: few points,
  one per chip generation; with two points the slope is exact and the interval is the point);
* ``"bootstrap"`` -- the percentile bootstrap over points (the cost-trend reproduction of
  Epoch AI's data, where residuals are far from normal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from analysis.models import ModelError

# Student t, two-sided 95 % quantiles for 1..30 degrees of freedom (normal 1.96 beyond)
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


@dataclass(frozen=True)
class GrowthFit:
    """A fitted trend value = exp(intercept + ln(per_year) · year) with a 95 % interval."""

    per_year: float  # growth factor per year
    per_year_low: float  # 95 % interval of the per-year factor
    per_year_high: float
    n: int  # number of points
    intercept: float  # natural-log units
    interval: str  # "t" or "bootstrap"

    def per_years(self, years: float = 2.0) -> float:
        """Growth factor over `years` years."""
        return self.per_year ** years

    def bounds(self, years: float = 2.0) -> tuple[float, float]:
        """95 % interval of the growth factor over `years` years."""
        return self.per_year_low ** years, self.per_year_high ** years

    def predict(self, year: float | np.ndarray) -> float | np.ndarray:
        """The fitted value at `year` (a number or an array of years)."""
        return np.exp(self.intercept + math.log(self.per_year) * np.asarray(year, dtype=float))

    @property
    def doubling_months(self) -> float:
        return doubling_time_months(self.per_year)


def t975(dof: int) -> float:
    """Two-sided 95 % Student-t quantile for `dof` degrees of freedom (1.96 above 30)."""
    if dof < 1:
        raise ModelError("need at least one degree of freedom")
    return _T975[dof - 1] if dof <= len(_T975) else 1.96


def _slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    xm, ym = x.mean(), y.mean()
    b = float(((x - xm) * (y - ym)).sum() / ((x - xm) ** 2).sum())
    return b, float(ym - b * xm)


def growth_fit(years: list[float] | np.ndarray, values: list[float] | np.ndarray, *,
               interval: Literal["t", "bootstrap"] = "t", n_boot: int = 2000, seed: int = 0) -> GrowthFit:
    """Fit value = exp(a + b·year) by least squares on ln(value); factor per year = exp(b).

    `values` must be finite and positive, with at least two distinct years (the bootstrap
    needs three points). The bootstrap resamples points with replacement (`n_boot` times,
    seeded) and skips resamples with a single distinct year.
    """
    x = np.asarray(years, dtype=float)
    v = np.asarray(values, dtype=float)
    if x.shape != v.shape or len(x) < 2:
        raise ModelError("need at least two (year, value) pairs of equal length")
    if np.any(~np.isfinite(v)) or np.any(v <= 0):
        raise ModelError("values must be finite and positive")
    if np.ptp(x) == 0:
        raise ModelError("all points share one year; no growth rate can be fitted")
    y = np.log(v)
    b, a = _slope(x, y)
    n = len(x)
    if interval == "t":
        if n > 2:
            resid = y - (a + b * x)
            se = math.sqrt(float((resid ** 2).sum()) / (n - 2) / float(((x - x.mean()) ** 2).sum()))
            half = t975(n - 2) * se
        else:
            half = 0.0
        lo, hi = b - half, b + half
    elif interval == "bootstrap":
        if n < 3:
            raise ModelError("a bootstrap interval needs at least three points")
        rng = np.random.default_rng(seed)
        slopes = []
        for _ in range(n_boot):
            i = rng.integers(0, n, n)
            if np.ptp(x[i]) > 0:
                slopes.append(_slope(x[i], y[i])[0])
        lo, hi = (float(q) for q in np.percentile(slopes, [2.5, 97.5]))
    else:
        raise ModelError(f"interval must be 't' or 'bootstrap', not {interval!r}")
    return GrowthFit(math.exp(b), math.exp(lo), math.exp(hi), n, a, interval)


def doubling_time_months(factor_per_year: float) -> float:
    """Months for a quantity growing `factor_per_year` to double: 12·ln 2 / ln(factor)."""
    if not factor_per_year > 1:
        raise ModelError("a doubling time needs a growth factor above 1")
    return 12 * math.log(2) / math.log(factor_per_year)
