"""Rule ``peak``: a throughput or a utilisation cannot exceed what the hardware can do.

Applies to every throughput claim in an absolute unit that names hardware, and to every
utilisation stated in per cent. A FLOP rate is set against the named device's dense peak
(data/hardware.csv) at the stated precision; with no precision stated, against the 16-bit
tensor peak, and a figure above that but below the FP8 peak holds only if it counts FP8
operations. A token rate becomes a FLOP rate through 2N FLOP per generated token (inference) or
6N per trained token, N from the paper's parameter count or the model's name. A rate above one
device's peak may be an aggregate over devices whose number is not stated: not checkable. A
rate per frame, image, request or key has no FLOP count in the ledger: not checkable. A
utilisation is a share of a peak, so it must be at most 100 %.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from analysis import models
from analysis.audit.registry import Result, judge_bound, pct
from analysis.audit.rules.base import (
    Candidate,
    Claim,
    Ledger,
    Rule,
    devices,
    figures,
    linked_params,
    mode_of,
    not_checkable,
    plausible,
)
from analysis.data import hardware
from analysis.data.paths import DataError

FLOPS = {"TFLOP/s": 1.0, "PFLOP/s": 1e3, "EFLOP/s": 1e6}
PER_ITEM = {"FPS": "frames", "samples/s": "samples", "images/s": "images", "B": "items (billions)",
            "M": "items (millions)", "count": "items", "GB/s": "bytes", "TB/s": "bytes"}
SIXTEEN_BIT = ("bf16", "fp16")


class PeakRule(Rule):
    name = "peak"
    title = "Utilisation ≤ peak"
    kind = "utilization"
    # 'memory': the hand-written bandwidth check of a sort rate (onesweep-bandwidth) asks this question too
    covers = frozenset({"utilization", "aggregate", "memory"})
    question = "Is a stated throughput or utilisation within the named hardware's dense peak?"

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        for c in ledger.claims:
            if c.metric == "throughput" and c.unit not in ("x", "%") and c.hardware:
                yield Candidate((c.claim_id,), c.citekey, f"{c.shown} on {c.hardware} against its dense peak",
                                partial(throughput, ledger, c))
            elif c.metric == "utilization" and c.unit == "%":
                yield Candidate((c.claim_id,), c.citekey, f"utilisation {c.shown} against 100% of peak",
                                partial(utilisation, c))


def _peaks(ids: tuple[str, ...], precision: str) -> dict[str, float]:
    """Dense peak of each variant at `precision`, or at the higher 16-bit peak when none is stated."""
    if precision and precision not in hardware.PRECISIONS:
        raise DataError(f"data/hardware.csv has no {precision.upper()} peak column")
    if precision:
        return figures(ids, lambda i: hardware.peak_tflops(i, precision))
    out = {}
    for i in ids:
        vals = [hardware.peak_tflops(i, p) for p in SIXTEEN_BIT if _has(i, p)]
        if not vals:
            hardware.peak_tflops(i, "fp16")  # raises the DataError that names the missing figure
        out[i] = max(vals)
    return out


def _has(hw: str, precision: str) -> bool:
    try:
        hardware.peak_tflops(hw, precision)
    except (DataError, KeyError, ValueError):  # a missing figure
        return False
    return True


def throughput(ledger: Ledger, c: Claim) -> Result:
    dev = devices(c.hardware)
    if dev.problem:
        return not_checkable(f"{dev.problem}: no peak to set the rate against", c.unit, c.upper)
    if c.unit in FLOPS:
        achieved = c.upper * FLOPS[c.unit]
        how = f"{c.shown} = {achieved:,.4g} TFLOP/s"
        return _against_peak(c, dev.ids, achieved, how, "")
    if c.unit == "tokens/s":
        size = linked_params(ledger, c)
        mode = mode_of(ledger, c)
        if size is None:
            return not_checkable("no parameter count for this model in the ledger, so no FLOP per token",
                                 c.unit, c.upper)
        if not mode:
            return not_checkable("the ledger does not say whether the tokens are trained or generated "
                                 "(6N or 2N FLOP per token)", c.unit, c.upper)
        # the fewest FLOP a token can cost: 2N forward; training adds 4N of backward pass, of which LoRA
        # (frozen weights, no weight gradients) keeps only the 2N of activation gradients
        k = 2.0 if mode == "inference" else (4.0 if "lora" in c.words() else 6.0)
        per_token = k / 2 * models.inference_flops_per_token(size.params)
        achieved = c.upper * per_token / 1e12
        how = f"{c.upper:g} tokens/s x {k:g} x {size.params:.3g} FLOP = {achieved:.3g} TFLOP/s"
        return _against_peak(c, dev.ids, achieved, how, f"N = {size.source}; {mode}")
    what = PER_ITEM.get(c.unit, c.unit)
    return not_checkable(f"a rate of {what}: the ledger gives no FLOP or byte count per item, so the rate "
                         "cannot be set against a peak", c.unit, c.upper)


def _against_peak(c: Claim, ids: tuple[str, ...], achieved: float, how: str, note: str) -> Result:
    precision = c.precision.lower()
    peaks = _peaks(ids, precision)
    tol = c.tolerance()
    low_id, high_id = min(peaks, key=peaks.__getitem__), max(peaks, key=peaks.__getitem__)
    basis = precision.upper() if precision else "16-bit"
    src = "; ".join(f"{i} dense {basis} peak {p:g} TFLOP/s ({hardware.spec(i)['source']})" for i, p in peaks.items())
    formula = f"{how}; / {peaks[low_id]:g} = {pct(achieved / peaks[low_id])} of the {low_id} dense {basis} peak"
    note = f" ({note})" if note else ""
    if judge_bound(achieved, peaks[low_id], "≤", tol) == "consistent":
        return Result(achieved, peaks[low_id], "TFLOP/s", tol, "consistent", formula, inputs=src + note,
                      relation="≤", explanation=f"{pct(achieved / peaks[low_id])} of one device's dense {basis} peak.")
    if judge_bound(achieved, peaks[high_id], "≤", tol) == "consistent":
        return plausible(achieved, peaks[high_id], "TFLOP/s", tol, formula, "unstated hardware or precision",
                         f"the device is the {high_id} ({peaks[high_id]:g} TFLOP/s), not the {low_id}",
                         inputs=src + note, relation="≤")
    if not precision:
        fp8 = {i: hardware.peak_tflops(i, "fp8") for i in ids if _has(i, "fp8")}
        if fp8 and judge_bound(achieved, max(fp8.values()), "≤", tol) == "consistent":
            best = max(fp8, key=fp8.__getitem__)
            return plausible(achieved, fp8[best], "TFLOP/s", tol, formula, "unstated hardware or precision",
                             f"the figure counts FP8 operations (dense FP8 peak of the {best}: {fp8[best]:g} "
                             "TFLOP/s); it exceeds the 16-bit peak", inputs=src + note, relation="≤")
    return not_checkable(f"{how} exceeds one {high_id}'s dense {basis} peak ({peaks[high_id]:g} TFLOP/s): the "
                         "figure may be an aggregate over devices whose number the ledger does not give",
                         "TFLOP/s", achieved)


PEAK_WORDS = re.compile(r"peak|mfu|flop|compute utili[sz]ation", re.I)


def utilisation(c: Claim) -> Result:
    share = c.upper
    tol = c.tolerance()
    verdict = judge_bound(share, 100.0, "≤", tol)
    implied = ""
    dev = devices(c.hardware)
    if not dev.problem and len(dev.ids) == 1 and PEAK_WORDS.search(f"{c.words()} {c.notes}"):
        try:
            peak = _peaks(dev.ids, c.precision.lower())[dev.ids[0]]
            basis = c.precision.upper() if c.precision else "16-bit"
            implied = (f"; {share:g}% of one {dev.ids[0]}'s dense {basis} peak ({peak:g} TFLOP/s) is "
                       f"{share / 100 * peak:.3g} TFLOP/s")
        except (DataError, KeyError, ValueError):  # no peak: the share is still bounded by 100%
            implied = ""
    return Result(share, 100.0, "%", tol, "consistent" if verdict == "consistent" else "implausible",
                  f"{share:g}% <= 100%{implied}", relation="≤",
                  explanation="A utilisation is a share (of the peak, of busy time or of an optimum); it cannot "
                              "exceed 100%." + (" The range is judged at its top." if not c.single else ""))
