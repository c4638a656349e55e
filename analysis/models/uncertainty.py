"""Intervals for any model: propagate the documented ranges of data/assumptions.yml through a formula.

The chain (energy, emissions, rent of a run) has its own sampler, :func:`chain_inputs.sampled_inputs`;
this module applies the same rule, :data:`chain_inputs.INTERVAL_RULE`, to every other model (serving cost
per million tokens, a roofline time at an assumed utilisation, a search's rent). Each named assumption
with a range is drawn from a triangular distribution with its ends at the range and its mode at the
central value; the output's interval is the 10th-90th percentile of :data:`chain_inputs.SAMPLES` draws.

Draws are seeded by the assumption's name, so one assumption draws the same values in every notebook:
two notebooks that propagate the same formula over the same assumptions give the same interval.
The formula must accept numpy arrays (vectorised); :func:`propagate` calls it once with the central
values (scalars) and once with the draws (arrays).

    >>> from analysis.models import uncertainty
    >>> r = uncertainty.propagate(lambda usd_per_h, hours: usd_per_h * hours,
    ...                           ranged={"usd_per_h": "gpu_hour_usd_h100"}, fixed={"hours": 1000.0})
    >>> r.low <= r.central <= r.high
    True
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from analysis.data import assumptions
from analysis.models.base import ModelError
from analysis.models.chain_inputs import INTERVAL, INTERVAL_RULE, SAMPLES, SEED

__all__ = ["INTERVAL_RULE", "Interval", "draws", "propagate", "range_of", "tornado_of"]

Range = tuple[float, float, float]
"""(low, central, high) of an input that is not an entry of data/assumptions.yml (a datasheet's two
power figures, say); its ends must come from a source the caller cites."""


@dataclass(frozen=True)
class Interval:
    """A modelled number: its central value (every input at its central value) and its interval."""

    central: float
    low: float
    high: float

    def fact(self) -> dict[str, float]:
        """``low=``/``high=`` keyword arguments of :func:`analysis.book.facts.glue_fact`."""
        return {"low": self.low, "high": self.high}

    def scaled(self, factor: float) -> Interval:
        """The same interval in another unit (thousand USD, say)."""
        lo, hi = sorted((self.low * factor, self.high * factor))
        return Interval(self.central * factor, lo, hi)


def range_of(name: str) -> Range:
    """(low, central, high) of a named assumption; an entry without a range has low = high = central."""
    e = assumptions.entry(name)
    c = float(e["value"])

    def end(v: Any) -> float:
        return c if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

    return end(e["low"]), c, end(e["high"])


def draws(source: str | Range, n: int = SAMPLES) -> Any:
    """`n` seeded triangular draws of a named assumption (or of a (low, central, high) triple)."""
    import numpy as np

    lo, c, hi = range_of(source) if isinstance(source, str) else tuple(map(float, source))
    if not lo <= c <= hi:
        raise ModelError(f"range of {source!r}: expected low <= central <= high, got {lo}, {c}, {hi}")
    if hi <= lo:
        return np.full(n, c)
    key = source if isinstance(source, str) else repr((lo, c, hi))
    rng = np.random.default_rng([SEED, zlib.crc32(key.encode("utf-8"))])
    return rng.triangular(lo, c, hi, n)


def _central(source: str | Range) -> float:
    return range_of(source)[1] if isinstance(source, str) else float(source[1])


def propagate(fn: Callable[..., Any], ranged: Mapping[str, str | Range],
              fixed: Mapping[str, Any] | None = None) -> Interval:
    """`fn`'s central value and its interval by :data:`INTERVAL_RULE`.

    `ranged` maps each of `fn`'s keyword arguments that is uncertain to the assumption it takes (a name in
    data/assumptions.yml, or a sourced (low, central, high) triple); `fixed` holds the others. NaN draws
    (an infeasible configuration) are left out of the percentiles.
    """
    import numpy as np

    fixed = dict(fixed or {})
    overlap = set(ranged) & set(fixed)
    if overlap:
        raise ModelError(f"arguments both ranged and fixed: {sorted(overlap)}")
    central = float(fn(**fixed, **{k: _central(v) for k, v in ranged.items()}))
    sampled = np.broadcast_to(np.asarray(fn(**fixed, **{k: draws(v) for k, v in ranged.items()}), dtype=float),
                              (SAMPLES,))
    ok = sampled[~np.isnan(sampled)]
    if ok.size == 0:
        return Interval(central, math.nan, math.nan)
    lo, hi = np.percentile(ok, INTERVAL)
    return Interval(central, float(lo), float(hi))


def tornado_of(fn: Callable[..., float], ranged: Mapping[str, str | Range],
               fixed: Mapping[str, Any] | None = None) -> Any:
    """One-at-a-time sensitivity of `fn` to each ranged input, between the ends of its documented range
    (:func:`analysis.models.sensitivity.tornado`; rows sorted by swing, largest first)."""
    from analysis.models.sensitivity import tornado

    fixed = dict(fixed or {})
    ends = {k: (range_of(v) if isinstance(v, str) else tuple(map(float, v))) for k, v in ranged.items()}
    base = {**fixed, **{k: e[1] for k, e in ends.items()}}
    return tornado(lambda **kw: float(fn(**kw)), base, {k: (e[0], e[2]) for k, e in ends.items()})
