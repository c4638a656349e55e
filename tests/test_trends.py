"""Unit tests of analysis.models.trends (growth factor per year). Expected values are worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.models import ModelError, trends


def test_exact_two_point_growth() -> None:
    # NVLink per GPU: V100 300 GB/s (2018) -> B200 1800 GB/s (2024): 6x in 6 years,
    # so 6 ** (2/6) = 1.817x per two years; two points give no interval.
    f = trends.growth_fit([2018, 2024], [300, 1800])
    assert f.per_years(2) == pytest.approx(6 ** (1 / 3), rel=1e-9)
    assert f.bounds(2) == pytest.approx((f.per_years(2), f.per_years(2)))
    assert f.n == 2


def test_perfect_exponential_has_zero_width_interval() -> None:
    # 3.0x per 2 years (memory-wall paper) = sqrt(3) per year; values 1, 3, 9 at years 0, 2, 4.
    f = trends.growth_fit([2000, 2002, 2004], [1.0, 3.0, 9.0])
    assert f.per_year == pytest.approx(math.sqrt(3))
    lo, hi = f.bounds(2)
    assert lo == pytest.approx(3.0) and hi == pytest.approx(3.0)
    assert f.predict(2002) == pytest.approx(3.0)
    assert f.predict(np.array([2000.0, 2004.0])) == pytest.approx([1.0, 9.0])


def test_t_interval_by_hand() -> None:
    # ln values 0, 1, 3 at years 0, 1, 2: slope 1.5, intercept -1/6, residuals 1/6, -1/3, 1/6,
    # SSE 1/6, s² = 1/6 (1 dof), Sxx = 2, se = sqrt(1/12) = 0.288675; t(1) = 12.706.
    f = trends.growth_fit([0, 1, 2], [1.0, math.e, math.e ** 3])
    assert f.per_year == pytest.approx(math.exp(1.5))
    assert f.intercept == pytest.approx(-1 / 6)
    assert f.per_year_low == pytest.approx(math.exp(1.5 - 12.706 * 0.288675), rel=1e-5)
    assert f.per_year_high == pytest.approx(math.exp(1.5 + 12.706 * 0.288675), rel=1e-5)


def test_bootstrap_recovers_exact_exponential() -> None:
    # cost = 1000 · 2.4**(year - 2016): every resample of exact points has the same slope.
    years = np.arange(2016, 2024, dtype=float)
    g = trends.growth_fit(years, 1000 * 2.4 ** (years - 2016), interval="bootstrap", n_boot=200)
    assert g.per_year == pytest.approx(2.4)
    assert g.per_year_low == pytest.approx(2.4) and g.per_year_high == pytest.approx(2.4)
    assert g.n == 8 and g.interval == "bootstrap"


def test_bootstrap_interval_brackets_noisy_estimate_and_is_seeded() -> None:
    years = np.arange(2010, 2022, dtype=float)
    noise = np.array([1.3, 0.8, 1.1, 0.7, 1.4, 0.9, 1.2, 0.75, 1.25, 0.85, 1.15, 0.95])
    a = trends.growth_fit(years, 2.0 ** (years - 2010) * noise, interval="bootstrap", n_boot=300, seed=1)
    b = trends.growth_fit(years, 2.0 ** (years - 2010) * noise, interval="bootstrap", n_boot=300, seed=1)
    assert a.per_year_low < a.per_year < a.per_year_high
    assert a == b


@pytest.mark.parametrize("years, values", [
    ([2020], [1.0]),                              # one point
    ([2020, 2020], [1.0, 2.0]),                   # one year
    ([2020, 2021, 2022], [1.0, -1.0, 2.0]),       # a negative value
    ([2020, 2021, 2022], [1.0, float("nan"), 2.0]),
    ([2020, 2021], [1.0, 2.0, 3.0]),              # lengths differ
])
def test_bad_input_is_refused(years: list[float], values: list[float]) -> None:
    with pytest.raises(ModelError):
        trends.growth_fit(years, values)


def test_bootstrap_needs_three_points() -> None:
    with pytest.raises(ModelError):
        trends.growth_fit([2020, 2021], [1.0, 2.0], interval="bootstrap")


def test_t_quantiles() -> None:
    # Student t, 97.5 % quantile: 12.706 (1 dof), 2.228 (10 dof); normal 1.96 beyond the table.
    assert trends.t975(1) == pytest.approx(12.706)
    assert trends.t975(10) == pytest.approx(2.228)
    assert trends.t975(100) == pytest.approx(1.96)


def test_doubling_time_of_cottier_rate() -> None:
    # 2.4x/yr: 12 · ln 2 / ln 2.4 = 12 · 0.6931 / 0.8755 = 9.50 months.
    assert trends.doubling_time_months(2.4) == pytest.approx(9.50, abs=0.01)
    with pytest.raises(ModelError):
        trends.doubling_time_months(0.9)
