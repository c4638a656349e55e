"""The interval rule for any model (analysis.models.uncertainty), against the triangular distribution's own
quantile function (an independent closed form), and the kinds of glued facts."""

from __future__ import annotations

import math

import pytest

from analysis.book import facts
from analysis.models import uncertainty
from analysis.models.base import ModelError


def _triangular_quantile(p: float, a: float, c: float, b: float) -> float:
    """Inverse CDF of the triangular distribution on [a, b] with mode c (textbook closed form)."""
    if p < (c - a) / (b - a):
        return a + math.sqrt(p * (b - a) * (c - a))
    return b - math.sqrt((1 - p) * (b - a) * (b - c))


def test_interval_of_an_identity_is_the_triangular_percentiles():
    iv = uncertainty.propagate(lambda x: x, {"x": (1.0, 2.0, 4.0)})
    assert iv.central == 2.0
    assert iv.low == pytest.approx(_triangular_quantile(0.1, 1, 2, 4), rel=0.03)
    assert iv.high == pytest.approx(_triangular_quantile(0.9, 1, 2, 4), rel=0.03)


def test_named_assumption_draws_are_the_same_in_every_call():
    a = uncertainty.draws("gpu_hour_usd_h100")
    b = uncertainty.draws("gpu_hour_usd_h100")
    assert (a == b).all()
    lo, c, hi = uncertainty.range_of("gpu_hour_usd_h100")
    assert lo <= a.min() and a.max() <= hi and lo < c < hi


def test_fixed_inputs_scale_the_interval_and_an_unranged_input_has_none():
    iv = uncertainty.propagate(lambda usd_per_h, hours: usd_per_h * hours, {"usd_per_h": "gpu_hour_usd_h100"},
                               {"hours": 10.0})
    one = uncertainty.propagate(lambda usd_per_h: usd_per_h, {"usd_per_h": "gpu_hour_usd_h100"})
    assert (iv.central, iv.low, iv.high) == pytest.approx((10 * one.central, 10 * one.low, 10 * one.high))
    flat = uncertainty.propagate(lambda x: 3 * x, {"x": (2.0, 2.0, 2.0)})
    assert (flat.low, flat.central, flat.high) == (6.0, 6.0, 6.0)


def test_bad_ranges_are_refused():
    with pytest.raises(ModelError, match="low <= central <= high"):
        uncertainty.draws((3.0, 1.0, 2.0))
    with pytest.raises(ModelError, match="both ranged and fixed"):
        uncertainty.propagate(lambda x: x, {"x": (1.0, 2.0, 3.0)}, {"x": 1.0})


def test_tornado_of_ranks_inputs_by_their_swing():
    t = uncertainty.tornado_of(lambda a, b: a + 10 * b, {"a": (0.0, 1.0, 2.0), "b": (0.0, 1.0, 2.0)})
    assert list(t["parameter"]) == ["b", "a"]
    assert list(t["swing"]) == [20.0, 2.0]


def test_a_modelled_fact_must_carry_its_interval_and_a_reported_one_none():
    with pytest.raises(ValueError, match="carries its interval"):
        facts.glue_fact("x", 1.0, citekey="c", quantity="q", unit="u", kind="modelled")
    with pytest.raises(ValueError, match="has no interval"):
        facts.glue_fact("x", 1.0, citekey="c", quantity="q", unit="u", kind="reported", low=0.5, high=2.0)
    with pytest.raises(ValueError, match="kind must be one of"):
        facts.glue_fact("x", 1.0, citekey="c", quantity="q", unit="u", kind="guessed")


def test_unbounded_finds_priced_facts_without_an_interval():
    import pandas as pd

    rows = pd.DataFrame([
        {"key": "a", "citekey": "r", "quantity": "usd_rental", "assumptions": "book central", "price_basis": "",
         "kind": "", "low": float("nan"), "high": float("nan")},
        {"key": "b", "citekey": "r", "quantity": "usd_rental", "assumptions": "at 2.45 USD/GPU-hour",
         "price_basis": "on-demand low", "kind": "derived", "low": float("nan"), "high": float("nan")},
        {"key": "c", "citekey": "r", "quantity": "energy_mwh", "assumptions": "book central", "price_basis": "",
         "kind": "modelled", "low": 1.0, "high": 2.0},
        {"key": "d", "citekey": "r", "quantity": "speedup", "assumptions": "", "price_basis": "",
         "kind": "", "low": float("nan"), "high": float("nan")},
    ])
    assert list(facts.unbounded(rows)["key"]) == ["a"]


def test_interval_ends_are_the_modelled_facts_own_bounds():
    import pandas as pd

    rows = pd.DataFrame([
        {"key": "k", "notebook": "n", "glue_name": "cost", "value": 2.0, "low": 1.0, "high": 3.0},
        {"key": "", "notebook": "n", "glue_name": "cost_low", "value": 1.0, "low": None, "high": None},
        {"key": "", "notebook": "n", "glue_name": "cost_high", "value": 3.5, "low": None, "high": None},  # not high
        {"key": "", "notebook": "m", "glue_name": "cost_low", "value": 1.0, "low": None, "high": None},  # elsewhere
    ])
    assert list(facts.interval_ends(rows).index) == [1]
