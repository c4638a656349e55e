"""What every rule shares: the typed ledger, the devices a claim names, the model a claim is
about, and how a rule's candidates become checks.

A rule (a subclass of :class:`Rule`) reads the ledger only through its types (metric, unit,
value/low/high, qualifier, hardware, precision, baseline, workload; the evidence and notes only
to recognise words such as "end-to-end" or "a single GPU"), proposes :class:`Candidate` checks,
and computes each one's :class:`~analysis.audit.registry.Result` with the cost models and the
sourced data (``data/hardware.csv``, ``data/assumptions.yml``). It never adds a hardware figure
of its own: where a figure is missing, the check is ``not checkable`` and says which.

One question, one judge. Each rule declares the kinds of hand-written check that ask its
question (:attr:`Rule.covers`: the peak rule covers ``utilization`` and ``aggregate``, the
memory rule ``memory``, ...). Before a rule computes a candidate it looks up every claim the
candidate would read: if a hand-written check of a covered kind already reads one of them, the
candidate is skipped and recorded as such in the rule's coverage (``skipped``). Two rules whose
covered kinds overlap (stated arithmetic and unit conversions) select disjoint claims by
construction, and ``tests/test_rules.py`` checks both properties over the whole ledger.

Check ids are stable: ``rule-<rule>:<judged claim id>``, with ``:<second claim id>`` for a rule
that judges a pair (Amdahl, order), so an override in ``data/audit-overrides.csv`` keeps
pointing at the same check when the ledger grows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis import models
from analysis.audit.registry import (
    CONDITIONS,
    KINDS,
    PLAUSIBLE,
    RELATIONS,
    VERDICTS,
    Check,
    Result,
    rounding_tolerance,
    significant_tolerance,
)
from analysis.data import claims, hardware
from analysis.data.paths import DataError

NOT_CHECKABLE = "not checkable"
# counted, not measured: a whole number is exact
EXACT_UNITS = {"GPUs", "nodes", "count", "bits", "orders of magnitude"}


class Claim(claims.Claim):
    """A ledger row (:class:`analysis.data.claims.Claim`) with the audit's tolerance."""

    def tolerance(self, value: float | None = None) -> float:
        """Relative half-unit of the printed figure; trailing zeros are not significant for an
        approximate ('about') figure (see analysis.audit.registry); a whole count of devices or
        items is exact."""
        v = self.upper if value is None else value
        if self.unit in EXACT_UNITS and float(v).is_integer() and self.qualifier != "about":
            return 0.0
        return significant_tolerance(v) if self.qualifier == "about" else rounding_tolerance(v)


class Ledger:
    """The claims, typed, by id and by paper."""

    def __init__(self, df: pd.DataFrame):
        self.claims = [Claim.from_row(r) for r in df.to_dict("records")]
        self.by_id = {c.claim_id: c for c in self.claims}
        self.by_paper: dict[str, list[Claim]] = {}
        for c in self.claims:
            self.by_paper.setdefault(c.citekey, []).append(c)

    def __getitem__(self, claim_id: str) -> Claim:
        return self.by_id[claim_id]

    def paper(self, citekey: str) -> list[Claim]:
        return self.by_paper.get(citekey, [])


# --- devices ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Devices:
    """The hardware ids a claim's ``hardware`` may stand for, or why none can be used.

    A hardware id of data/hardware.csv stands for itself. A family name (``A100``) stands for
    its members when they are variants of one part (same release year: the 40 and 80 GB A100);
    a family spanning generations (``TPU``), a device class (``GPU``, ``CPU``, ``FPGA``) and a
    list of several devices (``GPU;CPU``) give no figure to check against.
    """

    named: str
    ids: tuple[str, ...] = ()
    problem: str = ""

    @property
    def label(self) -> str:
        return self.ids[0] if len(self.ids) == 1 else f"{self.named} ({' or '.join(self.ids)})"


def devices(named: str) -> Devices:
    if not named:
        return Devices(named, problem="no hardware is named")
    if ";" in named:
        return Devices(named, problem=f"several devices are named ({named.replace(';', ', ')}), and the "
                                      "ledger does not say which one the figure belongs to")
    table = hardware.load()
    if named in table.index:
        row = table.loc[named]
        if str(row["hardware_id"]).upper() == str(row["kind"]).upper():
            return Devices(named, problem=f"the device is named only as a class ({named})")
        return Devices(named, ids=(named,))
    members = table[table["family"] == named]
    if len(members) and members["release_year"].nunique(dropna=False) == 1:
        return Devices(named, ids=tuple(members.index))
    if len(members):
        return Devices(named, problem=f"'{named}' names a family spanning generations "
                                      f"({', '.join(members.index)}), not one part")
    return Devices(named, problem=f"data/hardware.csv has no device {named!r}")


def figures(ids: tuple[str, ...], fn: Callable[[str], float]) -> dict[str, float]:
    """A figure (peak, memory) of each variant; DataError naming the first missing one."""
    return {i: fn(i) for i in ids}


# --- models the claims are about ----------------------------------------------------------------------

_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([BT])(?!\w)")
_MODEL_FAMILY = re.compile(r"\b(?:llama\d*|gpt(?:-\d)?|opt|qwen[\d.]*|mixtral|mistral|bloom|glm|pangu|pythia|"
                           r"curie|nemotron(?:-\d)?|phi(?:-\d)?|yi)\b[\s\d.-]*$", re.I)
_PARAM_WORD = re.compile(r"^[\s-]?(?:param|parameter|model|gpt|moe|llm|dense|transformer)", re.I)
_NOT_MODEL = re.compile(r"^[\s-](?:vectors?|tokens?|images?|keys?|nodes?|edges?|samples?|pairs?|examples?|"
                        r"questions?|words?|rows?|frames?)\b", re.I)
SCALE = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


def model_params(text: str) -> float | None:
    """The parameter count of the one model named in `text` ("Llama 3.1 8B training",
    "LLaMA2-Chat-7B", "20B GPT", "1T-parameter"), or None if no size or several sizes appear.

    A size counts only when it belongs to a model: part of a hyphenated name, after a model
    family's name, or before a word such as 'parameter', 'GPT' or 'MoE' ("1B-vector" does not)."""
    found = set()
    for m in _SIZE.finditer(text):
        start, end = m.span()
        after = text[end:end + 16]
        if _NOT_MODEL.match(after):
            continue
        hyphenated = start > 0 and text[start - 1] == "-"
        if hyphenated or _PARAM_WORD.match(after) or _MODEL_FAMILY.search(text[max(0, start - 20):start]):
            found.add(float(m.group(1)) * SCALE[m.group(2)])
    return found.pop() if len(found) == 1 else None


@dataclass(frozen=True)
class ModelSize:
    params: float
    source: str  # where the count comes from, for the formula
    claim_ids: tuple[str, ...] = ()  # the params claim read, if any
    qualifier: str = "exact"


def _size_token(c: Claim) -> str:
    return f"{c.value:g}{c.unit}"


def linked_params(ledger: Ledger, c: Claim, *, only_paper_count: bool = True) -> ModelSize | None:
    """The size of the model claim `c` is about: a params claim of the same paper whose size its
    workload names ("175B-parameter ..." and a 175 B claim; one naming the same hardware first),
    else the model name in its workload, else the paper's only params claim if it names the same
    hardware, else the one model size that the paper's workloads name."""
    params = [p for p in ledger.paper(c.citekey)
              if p.metric == "params" and p.single and p.unit in ("M", "B", "T") and p.claim_id != c.claim_id]
    params.sort(key=lambda p: p.hardware != c.hardware)
    for p in params:
        if re.search(rf"(?<![\d.]){re.escape(_size_token(p))}(?![\d])", c.workload):
            assert p.value is not None
            return ModelSize(p.value * SCALE[p.unit], f"{_size_token(p)} ({p.claim_id})", (p.claim_id,), p.qualifier)
    named = model_params(c.workload)
    if named is not None:
        return ModelSize(named, f"{named / 1e9:g}B from the model name in the workload ('{c.workload}')")
    if only_paper_count and len(params) == 1 and c.hardware and params[0].hardware == c.hardware:
        p = params[0]
        assert p.value is not None
        return ModelSize(p.value * SCALE[p.unit], f"{_size_token(p)} ({p.claim_id}, the paper's only parameter "
                                                  "count on this hardware)", (p.claim_id,), p.qualifier)
    if only_paper_count and not params:
        sizes = {(model_params(o.workload), o.workload) for o in ledger.paper(c.citekey) if o.claim_id != c.claim_id}
        values = {v for v, _ in sizes if v is not None}
        if len(values) == 1:
            v = values.pop()
            where = sorted(w for x, w in sizes if x == v)[0]
            return ModelSize(v, f"{v / 1e9:g}B from the one model the paper's claims name ('{where}')")
    return None


_TRAIN = re.compile(r"train|fine-tun|finetun|pre-train|pretrain|rotation learning", re.I)
_INFER = re.compile(r"inference|serving|\bserve|deploy|generation|decod|prefill", re.I)


def mode_of(ledger: Ledger, c: Claim) -> str:
    """'training' or 'inference' from the claim's words, else from the claims of the same paper and
    workload; '' when neither or both appear."""
    for text in [c.words()] + [o.words() for o in ledger.paper(c.citekey)
                               if o.claim_id != c.claim_id and o.workload == c.workload]:
        train, infer = bool(_TRAIN.search(text)), bool(_INFER.search(text))
        if train != infer:
            return "training" if train else "inference"
    return ""


_ONE_DEVICE = re.compile(r"\b(?:a|an|one|single)\s+(?:[\w.-]+\s+){0,2}(?:gpu|card|device|accelerator)\b", re.I)


def says_one_device(c: Claim) -> bool:
    """The evidence speaks of one device ('on a consumer GPU', 'a single GPU')."""
    return bool(_ONE_DEVICE.search(c.evidence))


# --- candidates and checks --------------------------------------------------------------------------

@dataclass
class Candidate:
    """A check a rule proposes: the claims it reads (the judged claim first), a description and the
    computation (run only if no hand-written check of a covered kind reads these claims)."""

    claims: tuple[str, ...]
    citekey: str
    description: str
    compute: Callable[[], Result]
    pair: bool = False  # the id carries the second claim too


@dataclass(frozen=True)
class Generated:
    check_id: str
    rule: str
    citekey: str
    claim_ids: tuple[str, ...]
    kind: str
    description: str
    result: Result


@dataclass
class RuleRun:
    """What one rule did: the checks it generated and the candidates it left to hand-written checks."""

    rule: Rule
    generated: list[Generated] = field(default_factory=list)
    skipped: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)  # (claims, checks)

    @property
    def in_scope(self) -> set[str]:
        """The claims the rule judges or would judge (the first claim of each candidate)."""
        return {g.claim_ids[0] for g in self.generated} | {claims[0] for claims, _ in self.skipped}


def not_checkable(reason: str, unit: str = "", reported: float | None = None) -> Result:
    return Result(reported, None, unit, 0.0, NOT_CHECKABLE, "", explanation=reason)


def plausible(reported: float | None, recomputed: float | None, unit: str, tol: float, formula: str, condition: str,
              assumption: str, **kw: Any) -> Result:
    return Result(reported, recomputed, unit, tol, PLAUSIBLE, formula, assumption=assumption, condition=condition,
                  **kw)


class Rule:
    """A rule: a name (the check id's prefix), the kind of its checks, the hand-written kinds it
    covers, a title and a one-sentence question; subclasses yield candidates."""

    name: str = ""
    title: str = ""
    kind: str = ""
    covers: frozenset[str] = frozenset()
    question: str = ""

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        raise NotImplementedError

    def run(self, ledger: Ledger, handwritten: Mapping[str, Check]) -> RuleRun:
        if self.kind not in KINDS or not self.covers <= set(KINDS):
            raise ValueError(f"rule {self.name}: unknown kind")
        used: dict[str, list[str]] = {}
        for chk in handwritten.values():
            if chk.kind in self.covers:
                for cid in chk.claim_ids:
                    used.setdefault(cid, []).append(chk.check_id)
        out = RuleRun(self)
        seen: set[str] = set()
        for cand in self.candidates(ledger):
            hits = sorted({h for cid in cand.claims for h in used.get(cid, [])})
            if hits:
                out.skipped.append((cand.claims, tuple(hits)))
                continue
            key = ":".join(cand.claims[:2]) if cand.pair else cand.claims[0]
            check_id = f"rule-{self.name}:{key}"
            if check_id in seen:
                raise ValueError(f"rule {self.name}: two candidates with the id {check_id}")
            seen.add(check_id)
            try:
                r = cand.compute()
            except (DataError, KeyError, models.ModelError) as exc:
                reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
                r = not_checkable(f"missing input: {reason}")
            _validate(check_id, r)
            out.generated.append(Generated(check_id, self.name, cand.citekey, cand.claims, self.kind,
                                           cand.description, r))
        return out


def _validate(check_id: str, r: Result) -> None:
    if r.verdict not in VERDICTS:
        raise ValueError(f"{check_id}: unknown verdict {r.verdict!r}")
    if r.relation not in RELATIONS:
        raise ValueError(f"{check_id}: unknown relation {r.relation!r}")
    if r.verdict == PLAUSIBLE and (not r.assumption or r.condition not in CONDITIONS):
        raise ValueError(f"{check_id}: a '{PLAUSIBLE}' verdict must name its assumption and a condition "
                         f"of {CONDITIONS}")
    if r.verdict == NOT_CHECKABLE and not r.explanation:
        raise ValueError(f"{check_id}: a 'not checkable' verdict must give its reason")
