"""Rule ``price``: a dollar figure for GPU time implies a price per GPU-hour; is it a price one can pay?

Applies to every dollar figure (metric ``cost_usd``). The GPU time it pays for is the GPU-days or
GPU-hours claim of the same paper whose workload it prices ("X training cost" and "X training"),
or, for a saving, the difference between the paper's figure and its baseline's. The implied
price, dollars / GPU-hours, is set against the sourced range of on-demand prices for the named
GPU (``gpu_hour_usd_<gpu>`` in data/assumptions.yml, low to high over cloud providers). Inside the
range the figure holds at that price ("price assumption"); within a factor of two outside it, at
a discounted or an inflated price; further outside, it is inconsistent with renting GPU time. An
API charge (tokens bought from a model provider) and a dollar figure with no GPU time are not
checkable.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from analysis import models
from analysis.audit.inputs import price_input
from analysis.audit.registry import Result
from analysis.audit.rules.arithmetic import TIME_UNITS
from analysis.audit.rules.base import Candidate, Claim, Ledger, Rule, devices, not_checkable, plausible
from analysis.data import hardware
from analysis.data.paths import DataError

USD = {"USD": 1.0, "kUSD": 1e3, "MUSD": 1e6, "BUSD": 1e9}
FACTOR = 2.0  # how far outside the sourced range a price may lie and still be a discount or a mark-up


def _is_gpu_time(c: Claim) -> bool:
    return c.metric in ("gpu_days", "gpu_hours") and c.single


def gpu_time_for(ledger: Ledger, c: Claim) -> tuple[Claim, ...]:
    """The GPU-time claims that the dollar figure `c` pays for (one, or two for a saving)."""
    times = [g for g in ledger.paper(c.citekey) if _is_gpu_time(g)]
    wl = c.workload.lower()
    if "saving" in wl and c.baseline:
        base = c.baseline.lower()
        ours = [g for g in times if g.baseline.lower() == base]
        theirs = [g for g in times if base in g.workload.lower() and g.baseline.lower() != base]
        if len(ours) == 1 and len(theirs) == 1 and ours[0].unit == theirs[0].unit:
            return ours[0], theirs[0]
        same = [g for g in times if g.workload.lower() == wl]
        return tuple(same[:1]) if len(same) == 1 else ()
    for g in times:
        gw = g.workload.lower()
        if wl == gw or (wl.startswith(gw) and wl[len(gw):].strip() in ("cost", "")):
            return (g,)
    return ()


class PriceRule(Rule):
    name = "price"
    title = "Implied prices"
    kind = "cost_rate"
    covers = frozenset({"cost_rate"})
    question = "Does a dollar figure for GPU time imply a price per GPU-hour within the sourced range?"

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        for c in ledger.claims:
            if c.metric == "cost_usd" and c.unit in USD:
                times = gpu_time_for(ledger, c)
                yield Candidate((c.claim_id, *(g.claim_id for g in times)), c.citekey,
                                f"{c.shown} for the GPU time it pays for", partial(price, c, times))


def _price_keys(hw: str) -> list[str]:
    row = hardware.spec(hw)
    own, family = hw.lower().replace("-", "_"), str(row["family"]).lower().replace("-", "_")
    return [f"gpu_hour_usd_{own}", f"gpu_hour_usd_{family}", f"chip_hour_usd_{own}"]


def price_range(ids: tuple[str, ...]) -> tuple[float, float, float, str]:
    """Default, lowest and highest sourced price per GPU-hour over the variants `ids`."""
    found = []
    for i in ids:
        for key in _price_keys(i):
            try:
                found.append((key, price_input(key)))
                break
            except (DataError, KeyError):
                continue
        else:
            tried = ", ".join(_price_keys(i))
            raise DataError(f"data/assumptions.yml has no price per GPU-hour for {i} (tried {tried})")
    default = found[0][1][0]
    low = min(f[1][1] for f in found)
    high = max(f[1][2] for f in found)
    return default, low, high, "; ".join(f[1][3] for f in found)


def price(c: Claim, times: tuple[Claim, ...]) -> Result:
    usd = c.upper * USD[c.unit]
    if "api" in c.words().split() or "api" in c.notes.lower().split():
        return not_checkable("an API charge (tokens bought from a model provider), not a price of GPU time",
                             "USD", usd)
    if not times:
        return not_checkable("the ledger gives no GPU time that this dollar figure pays for, so no price per "
                             "GPU-hour", "USD", usd)
    hw = next((g.hardware for g in times if g.hardware), c.hardware)
    dev = devices(hw)
    if dev.problem:
        return not_checkable(f"{dev.problem}: no sourced price per GPU-hour", "USD", usd)
    hours = [g.upper * TIME_UNITS[g.unit] for g in times]
    gpu_h = hours[0] if len(hours) == 1 else hours[1] - hours[0]
    what = (f"{times[0].shown}" if len(times) == 1 else f"{times[1].shown} - {times[0].shown} saved")
    default, low, high, src = price_range(dev.ids)
    implied = usd / gpu_h
    at_default = models.rental_cost_usd(gpu_h, default)
    formula = (f"{usd:,.0f} / ({what} = {gpu_h:,.0f} GPU-hours) = ${implied:.2f}/GPU-hour; sourced range "
               f"${low:g}-${high:g}; at the default ${default:g}: {at_default:,.0f}")
    bounds = c.qualifier in ("over", "at least", "up to", "at most") or any(
        g.qualifier in ("over", "at least", "up to", "at most") for g in times)
    if low <= implied <= high:
        return plausible(usd, at_default, "USD", 0.0, formula, "price assumption",
                         f"the {dev.label} GPU time was paid at about ${implied:.2f} per GPU-hour, inside the sourced "
                         f"range ${low:g}-${high:g}", inputs=src)
    side = "below" if implied < low else "above"
    if bounds or low / FACTOR <= implied <= high * FACTOR:
        why = ("a discounted, reserved or owned-hardware price" if side == "below"
               else "a price that includes more than GPU rental")
        return plausible(usd, at_default, "USD", 0.0, formula, "price assumption",
                         f"${implied:.2f} per GPU-hour, {side} the sourced range ${low:g}-${high:g}: {why}"
                         + (" (the figures are bounds, so the price is indicative)" if bounds else ""), inputs=src)
    return Result(usd, at_default, "USD", 0.0, "inconsistent", formula, inputs=src,
                  explanation=f"The implied price is more than {FACTOR:g}x {side} every sourced on-demand price of "
                              f"the {dev.label}.")
