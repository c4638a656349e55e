"""Rule ``amdahl``: an end-to-end speedup cannot exceed the speedup of the component it comes from.

Applies to pairs of speedups of one paper on the same hardware (for each end-to-end figure, the
component with the smallest speedup, the tightest bound): a component speedup (its workload or
evidence names a kernel, an operator, attention, a GEMM, checkpointing or communication) and an
end-to-end speedup. A figure is end-to-end when its workload or evidence says "end-to-end", and also
when it is a whole-model figure: the inference, training, serving or generation speed of a model
the workload names (an LLM, Llama, GPT, a transformer), or an "inference acceleration"
(:func:`is_whole_model`), whether or not the abstract says "end-to-end". If the component takes a
fraction f of the baseline's time and becomes s times faster, the whole becomes
S = 1 / ((1 − f) + f/s) ≤ s times faster (Amdahl's law), and a stated pair gives
f = (1 − 1/S) / (1 − 1/s), the least share of time the component must take.

Like with like (the ledger's typed ``statistic``, chapters/codebook.md): two figures of the same
statistic are compared value with value (two ranges, top with top); figures of different statistics
(a maximum and a mean, a range and a single value) are compared at their most lenient pairing, the
end-to-end figure's lowest number with the component's highest, and an excess there holds only if
they come from different runs. An end-to-end figure above the component's is inconsistent only when
both are measured against the same stated baseline with the same statistic; otherwise it holds only
if the baselines differ (named: "different baselines"; one missing: "unstated baseline") or the two
figures come from different runs ("different runs or versions").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from analysis.audit.registry import Result, combined_tolerance, judge_bound, pct
from analysis.audit.rules.base import Candidate, Claim, Ledger, Rule, plausible

COMPONENT = re.compile(r"kernel|operator|\battention\b|gemm|matmul|matrix multiplication|checkpointing|"
                       r"communication|sublayer|linear layer", re.I)
END_TO_END = re.compile(r"end-to-end|end to end", re.I)
# a whole-model figure: what is measured (inference, training, serving, generation) of a model the workload names
MODEL_TASK = re.compile(r"\binference\b|\btraining\b|\bserving\b|fine-tuning|\bgeneration\b", re.I)
MODEL_NAME = re.compile(r"\bllms?\b|\bgpt|llama|pangu|\bopt-|bloom|mixtral|mistral|qwen|t-nlg|palm|transformer|"
                        r"\b\d+(?:\.\d+)?[bm]\b", re.I)
WHOLE_MODEL_WORDS = re.compile(r"inference acceleration|inference speed-?up", re.I)
CENTRAL = {"single", "mean", "median"}


def factor(c: Claim, value: float) -> float:
    """A speedup as a factor: '64%' faster is 1.64x."""
    return 1 + value / 100 if c.unit == "%" else value


def is_speedup(c: Claim) -> bool:
    return c.metric == "speedup" and c.unit in ("x", "%") and (c.single or (c.low is not None and c.high is not None))


def is_whole_model(c: Claim) -> bool:
    """A whole-model figure: the inference, training, serving or generation speed of a named model, or an
    'inference acceleration'; never a figure whose workload names a component or a layer."""
    if COMPONENT.search(c.workload) or re.search(r"\blayers?\b", c.workload, re.I):
        return False
    named_task = bool(MODEL_TASK.search(c.workload) and MODEL_NAME.search(c.workload))
    return named_task or bool(WHOLE_MODEL_WORDS.search(c.words()))


def is_end_to_end(c: Claim) -> bool:
    return bool(END_TO_END.search(c.words())) or is_whole_model(c)


def is_component(c: Claim) -> bool:
    return not is_end_to_end(c) and bool(COMPONENT.search(c.words()))


def statistic(c: Claim) -> str:
    """The claim's coded statistic (a range when the ledger holds two ends), else read from its qualifier."""
    if c.statistic:
        return c.statistic
    if not c.single:
        return "range"
    return {"up to": "maximum", "average": "mean"}.get(c.qualifier, "single")


def like_with_like(e: Claim, p: Claim) -> bool:
    return statistic(e) == statistic(p)


def compared(e: Claim, p: Claim) -> tuple[float, float]:
    """The two factors compared: of one statistic, value with value (two ranges, top with top); of two
    statistics, the end-to-end figure's lowest number with the component's highest."""
    if like_with_like(e, p):
        return factor(e, e.upper), factor(p, p.upper)
    return factor(e, e.lower), factor(p, p.upper)


class AmdahlRule(Rule):
    name = "amdahl"
    title = "Amdahl feasibility"
    kind = "amdahl"
    covers = frozenset({"amdahl"})
    question = "Is an end-to-end speedup within the speedup of the component it comes from?"

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        for claims in ledger.by_paper.values():
            ends = [c for c in claims if is_speedup(c) and is_end_to_end(c)]
            parts = [c for c in claims if is_speedup(c) and is_component(c)]
            for e in ends:
                same = [p for p in parts if p.hardware == e.hardware]
                if same:  # the tightest bound: the component with the smallest speedup
                    p = min(same, key=lambda p: factor(p, p.upper))
                    yield Candidate((e.claim_id, p.claim_id), e.citekey,
                                    f"end-to-end {e.shown} against the component's {p.shown}",
                                    partial(amdahl, e, p), pair=True)


_WORDS = {"single": "single figure", "mean": "average", "median": "median", "maximum": "maximum",
          "minimum": "minimum", "range": "range"}


def _statistic(c: Claim) -> str:
    return _WORDS.get(statistic(c), statistic(c))


def amdahl(e: Claim, p: Claim) -> Result:
    big_s, s = compared(e, p)
    tol = combined_tolerance(e.tolerance(e.upper if like_with_like(e, p) else e.lower), p.tolerance(p.upper))
    which = "" if like_with_like(e, p) else " (lowest end-to-end against highest component figure)"
    head = f"end-to-end {big_s:.3g}x against component {s:.3g}x{which}"
    if judge_bound(big_s, s, "≤", tol) == "consistent":
        if big_s <= 1 or s <= 1:
            frac = ""
        else:
            f = min(1.0, (1 - 1 / big_s) / (1 - 1 / s))
            frac = f"; f = (1 - 1/{big_s:.3g}) / (1 - 1/{s:.3g}) = {f:.2f}"
        return Result(big_s, s, "x", tol, "consistent", head + frac, relation="≤",
                      explanation=("If both share a baseline, the component takes at least the fraction f of the "
                                   "baseline's time." if frac else "The end-to-end gain is within the component's.")
                      + _baselines(e, p))
    same_stat = like_with_like(e, p)
    b_e, b_p = e.baseline.strip().lower(), p.baseline.strip().lower()
    over = f"{head}: the end-to-end figure is {pct(big_s / s - 1)} above the component's"
    if b_e and b_p and b_e == b_p and same_stat:
        return Result(big_s, s, "x", tol, "inconsistent", over, relation="≤",
                      explanation=f"Both are measured against {e.baseline}: by Amdahl's law the whole cannot gain "
                                  "more than the part it speeds up.")
    if b_e and b_p and b_e != b_p:
        return plausible(big_s, s, "x", tol, over, "different baselines",
                         f"the end-to-end figure is measured against {e.baseline} and the component against "
                         f"{p.baseline}, so Amdahl's law does not bound one by the other", relation="≤")
    if not same_stat and b_e == b_p:
        return plausible(big_s, s, "x", tol, over, "different runs or versions",
                         f"the end-to-end figure ({_statistic(e)}) and the component's ({_statistic(p)}) come from "
                         "different runs or configurations", relation="≤")
    missing = "the end-to-end figure" if not b_e else "the component figure"
    return plausible(big_s, s, "x", tol, over, "unstated baseline",
                     f"{missing} is measured against a slower baseline than the other (the ledger gives no "
                     f"baseline for it): over one baseline the end-to-end gain could not exceed {s:.3g}x",
                     relation="≤")


def _baselines(e: Claim, p: Claim) -> str:
    if e.baseline and p.baseline and e.baseline.lower() != p.baseline.lower():
        return f" The stated baselines differ ({e.baseline}; {p.baseline}), so f is indicative only."
    return ""
