"""Candidate quantitative claims found in an abstract: a number with a unit, for a person to review.

:func:`extract` scans a normalised abstract (:func:`analysis.data.corpus.normalise`) for numbers
followed by a unit the claims ledger knows (``2.3×``, ``45%``, ``1,024 GPUs``, ``80 GB``, ``12 ms``,
``7B parameters``, ``$4M``), or preceded by one (``x17.8``). Each candidate gets the ledger's
fields: a value or a range (``1.5-2.0×``), a unit from :data:`analysis.data.claims.UNITS`, a metric
guessed from the unit and the words around it, a qualifier from the words before it ("up to",
"about", "over", ...) and, as evidence, a span of at most twelve words of the abstract around
the number (so the ledger's evidence check holds). Bare counts without a unit are not proposed.

Everything here is a guess: the intake marks each candidate unreviewed, and a person fixes or
rejects it before `make accept` takes it into data/claims.csv.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from analysis.data.claims import MAX_EVIDENCE_WORDS, METRICS, QUALIFIERS, TIERS, UNITS, Claim
from analysis.data.text import words

NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# a number, or a range "1.5-2.0", "2× to more than 1000", "between 7 and 11" (the `and` form only after
# "between": see extract); a bound word may qualify the upper end (bound_on "high")
_BOUND_WORDS = r"more than|over|at least|exceeding|above|less than|under|at most|below"
VALUE = (rf"(?P<a>{NUM})(?:[×xX%]?\s*(?P<sep>-|–|to|~)\s*"
         rf"(?:(?P<hb>{_BOUND_WORDS})\s+)?(?P<b>{NUM}))?")
_BETWEEN = re.compile(rf"\bbetween\s+(?P<a>{NUM})[×xX%]?\s*(?P<sep>and)\s*(?:(?P<hb>{_BOUND_WORDS})\s+)?(?P<b>{NUM})")

# (unit pattern after the number, unit, default metric); the first that matches at a place wins
_AFTER: list[tuple[str, str, str]] = [
    (r"\s*(?:×|[xX](?![\w])|-?fold\b)", "x", "speedup"),
    (r"\s*(?:percentage points?|pp\b)", "pp", "accuracy"),
    (r"\s*(?:%|percent\b)", "%", "other"),
    (r"\s*(?:[A-Z][A-Za-z0-9-]*\s+)?GPU[- ]hours?\b", "GPU-hours", "gpu_hours"),
    (r"\s*(?:[A-Z][A-Za-z0-9-]*\s+)?GPU[- ]days?\b", "GPU-days", "gpu_days"),
    (r"\s+(?:[A-Z][A-Za-z0-9-]*\s+){0,2}GPUs?\b", "GPUs", "gpu_count"),
    (r"-GPU\b", "GPUs", "gpu_count"),  # a hyphenated count: "a single 8-GPU machine", "the 128-GPU scale"
    (r"-node\b", "nodes", "count"),
    (r"\s+(?:compute\s+)?nodes\b", "nodes", "count"),
    (r"\s*(?:TOPS/W)\b", "TOPS/W", "efficiency"),
    (r"\s*(?:GFLOPS/W)\b", "GFLOPS/W", "efficiency"),
    (r"\s*(?:TFLOPS|TFLOP/s|TFLOPs/s|[Tt]eraflops\b)", "TFLOP/s", "throughput"),
    (r"\s*(?:PFLOPS|PFLOP/s|PFLOPs/s|[Pp]etaflops\b)", "PFLOP/s", "throughput"),
    (r"\s*(?:EFLOPS|EFLOP/s)", "EFLOP/s", "throughput"),
    (r"\s*TOPS\b", "TOPS", "compute"),
    (r"\s*(?:tokens/s|tokens per second|tok/s)", "tokens/s", "throughput"),
    (r"\s*(?:samples/s|samples per second)", "samples/s", "throughput"),
    (r"\s*(?:images/s|images per second)", "images/s", "throughput"),
    (r"\s*(?:FPS|fps|frames per second)\b", "FPS", "throughput"),
    (r"\s*(?:GB/s|GiB/s)", "GB/s", "bandwidth"),
    (r"\s*(?:TB/s|TiB/s)", "TB/s", "bandwidth"),
    (r"\s*(?:ms|milliseconds?)\b", "ms", "latency"),
    (r"(?:\s+s\b|\s*seconds?\b)", "s", "latency"),
    (r"\s*(?:min|minutes?)\b", "min", "other"),
    (r"(?:\s+h\b|\s*hours?\b)", "h", "other"),
    (r"\s*days?\b", "days", "other"),
    (r"\s*(?:GB|GiB)\b", "GB", "memory"),
    (r"\s*(?:TB|TiB)\b", "TB", "memory"),
    (r"\s*(?:MB|MiB)\b", "MB", "memory"),
    (r"\s*(?:PB|PiB)\b", "PB", "memory"),
    (r"\s*(?:MWh)\b", "MWh", "energy"),
    (r"\s*(?:GWh)\b", "GWh", "energy"),
    (r"\s*(?:kWh)\b", "kWh", "energy"),
    (r"\s*(?:kW)\b", "kW", "power"),
    (r"\s*(?:MW)\b", "MW", "power"),
    (r"\s*(?:W|[Ww]atts?)\b", "W", "power"),
    (r"\s*(?:tCO2e?|t CO2e?|(?:metric )?(?:tons?|tonnes?) of CO2(?:e| equivalent)?|"
     r"(?:metric )?(?:tons?|tonnes?) CO2e?)", "tCO2e", "carbon"),
    # tonnes of anything else: the ledger has no mass unit, so a count whose note names the tonnes
    (r"\s*(?:metric )?(?:tons?|tonnes?)\b", "count", "other"),
    (r"\s*(?:kgCO2e?|kg CO2e?)", "kgCO2e", "carbon"),
    (r"\s*(?:B|billion)(?=[\s-]+(?:parameters?|params|-parameter))", "B", "params"),
    (r"-billion\b", "B", "params"),  # "a 176-billion parameter model"
    (r"\s*B\b(?=[\s-]+(?:model|LLM|dense|MoE))", "B", "params"),
    (r"\s*(?:T|trillion)(?=\s+(?:tokens|parameters))", "T", "tokens"),
    (r"\s*(?:B|billion)(?=\s+tokens)", "B", "tokens"),
    (r"\s*(?:M|million)(?=[\s-]+(?:parameters?|params))", "M", "params"),
    (r"-million\b(?=[\s-]+(?:parameters?|params))", "M", "params"),
    (r"\s*dB\b", "dB", "accuracy"),
    (r"\s*(?:mm2|mm²)", "mm2", "other"),
    (r"(?:-bit\b|\s*bits?\b)", "bits", "other"),
]
_DOLLARS = re.compile(rf"\$\s*(?P<a>{NUM})(?:\s*(?P<scale>K|M|B|k|million|billion)\b)?")
_X_BEFORE = re.compile(rf"(?<![\w])x(?P<a>{NUM})")
# a number that starts a token (not inside a word or a version: ResNet-50, v1.5, H100), then its unit
_NUMBER = re.compile(rf"(?<![\w.\-/$]){VALUE}")
_UNITS = [(re.compile(pat), unit, metric) for pat, unit, metric in _AFTER]

_QUALIFIER_BEFORE = [
    (r"up to", "up to"),
    (r"(?:at least|no less than|≥)", "at least"),
    (r"(?:at most|less than|fewer than|under|below|within|≤|<)", "at most"),
    (r"(?:about|approximately|around|nearly|roughly|almost|~)", "about"),
    (r"(?:over|more than|above|exceeding|beyond|>)", "over"),
    (r"(?:on average|an? average(?: \w+){0,2} of|average|avg\.?|mean|a geometric mean(?: \w+){0,2} of)", "average"),
]
# after the number: "2.6× on average", "1.3× speedup on average"
_AVERAGE_AFTER = re.compile(r"^\s*(?:\w+\s+)?on average\b")
_MEDIAN_BEFORE = re.compile(r"(?:^|\W)(?:an?|the)? ?median(?: \w+){0,2} (?:of|is|was)?\s*$")

# numbers written in words: (pattern, value, default metric); the value is a factor (unit x)
_WORD_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                 "twenty": 20, "fifty": 50, "hundred": 100, "a hundred": 100, "thousand": 1000, "a thousand": 1000}
_WORDS = "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))
_NUMBER_WORDS: list[tuple[re.Pattern[str], float | None, str]] = [
    (re.compile(r"\b(?:doubl(?:e|es|ed|ing))\b(?!-)", re.I), 2.0, "speedup"),  # not "double-check"
    (re.compile(r"\btwice\b", re.I), 2.0, "speedup"),
    (re.compile(r"\btripl(?:e|es|ed|ing)\b(?!-)", re.I), 3.0, "speedup"),
    (re.compile(r"\bquadrupl(?:e|es|ed|ing)\b(?!-)", re.I), 4.0, "speedup"),
    (re.compile(r"\bhalv(?:e|es|ed|ing)\b", re.I), 2.0, "reduction"),
    (re.compile(rf"\b(?P<w>{_WORDS})(?:[- ]?fold\b|\s+times\b)", re.I), None, "speedup"),
]
# two statistics stated together: "median and maximum speedups of 45× and 6150×"
_STAT_WORDS = {"median": "median", "mean": "mean", "average": "mean", "maximum": "maximum", "peak": "maximum",
               "minimum": "minimum"}
_SW = "|".join(_STAT_WORDS)
_PAIR_FIRST = re.compile(rf"\b(?P<s1>{_SW})\s+and\s+(?P<s2>{_SW})(?:\s+\w+){{0,2}}\s+of\s*$", re.I)
_PAIR_SECOND = re.compile(rf"\b(?P<s1>{_SW})\s+and\s+(?P<s2>{_SW})(?:\s+\w+){{0,2}}\s+of\s+\S+\s+and\s*$", re.I)
# what a comparison is measured against: the words after "over", "than", "compared to", ... up to a clause end
_BASELINE = re.compile(r"^[^.;]{0,40}?\b(?:over|than|compared (?:to|with)|relative to|against|versus|vs\.?)\s+"
                       r"(?:the\s+|a\s+|an\s+)?(?P<b>[^,.;()]{2,60}?)(?=\s+(?:on|for|in|with|at|while|and|by|"
                       r"when|across|using|under)\b|[,.;()]|$)")
_BASELINE_BEFORE = re.compile(r"\b(?:outperform\w*|beat\w*|over|compared (?:to|with))\s+(?:the\s+)?(?P<b>[^.;]{2,70}?)"
                              r"\s+by\s+(?:up to|about|nearly|over|more than|an average of|a factor of)?\s*$")
# a sentence that states the paper's own work: the numbers of the sentences before it motivate the problem
_CONTRIBUTION = re.compile(r"\b(?:we\s+(?:\w+\s+)?(?:present|propose|introduce|develop|design|describe|build|"
                           r"show|demonstrate|study|investigate|explore|evaluate|analy[sz]e|find|report|"
                           r"implement|address|tackle|leverage|provide|perform|conduct|measure|benchmark)|"
                           r"this (?:paper|work|study|article)|here we|our (?:\w+\s+)?(?:method|system|approach|"
                           r"framework|design|work|results?|experiments?|evaluation|analysis))\b", re.I)

_CONTEXT_METRIC = [  # (words near a % or × value, metric)
    (r"accura|top-1|top-5|score|f1|bleu|perplexit|pass@", "accuracy"),
    (r"reduc|fewer|less|lower|smaller|sav|cut|decreas|compress|shrink", "reduction"),
    (r"utili[sz]|mfu\b|occupancy", "utilization"),
    (r"throughput", "throughput"),
    (r"latency", "latency"),
    (r"energy|efficien|per watt", "efficiency"),
    (r"faster|speed|accelerat(?:e|es|ed|ing|ion)\b|improv|rais|increas|higher|boost|goodput", "speedup"),
]


def _parse_number(text: str) -> float:
    """A number as the text writes it, thousands separators and all ("1,024")."""
    return float(text.replace(",", ""))


def _qualifier(before: str) -> str:
    tail = before[-24:].lower()
    for pat, q in _QUALIFIER_BEFORE:
        if re.search(rf"(?:^|\W){pat}\s*(?:a|an|the)?\s*$", tail):
            return q
    return "exact"


def _cues(ctx: str, unit: str) -> list[tuple[int, str]]:
    hits = []
    for pat, metric in _CONTEXT_METRIC:
        if unit == "pp" and metric not in ("accuracy", "reduction"):
            continue
        hits += [(m.start(), metric) for m in re.finditer(pat, ctx)]
    return sorted(hits)


_BY = re.compile(r"\b(reduc|cut|lower|sav|decreas|shrink|improv|rais|increas|boost|accelerat|speed)\w*"
                 r"(?P<what>[^.,;]{0,50})\bby\s*(?:up to|about|approximately|nearly|over|~|an average of)?\s*$")


def _metric(unit: str, default: str, before: str, after: str) -> str:
    """The metric of a ratio or share (%, ×, pp), from the words around it: a cue right after it
    ("600× fewer", "45% MFU"), else a "<verb> ... by" phrase before it ("reduces energy by 1.4×"),
    else the nearest cue before it, else the first after it; else the unit's default."""
    if unit not in ("%", "x", "pp"):
        return default
    b, a = before.lower(), after.lower()
    right_after = _cues(a[:16], unit)
    if right_after:
        return right_after[0][1]
    m = _BY.search(b)
    if m:
        what = _cues(m.group("what"), unit)
        if what and what[-1][1] == "accuracy":
            return "accuracy"
        return "reduction" if m.group(1) in ("reduc", "cut", "lower", "sav", "decreas", "shrink") else "speedup"
    near = _cues(b, unit)
    if near:
        return near[-1][1]
    later = _cues(a, unit)
    if later:
        return later[0][1]
    return "speedup" if unit == "x" else default


def _fits(text: str, spans: list[tuple[int, int]], lo: int, hi: int) -> bool:
    """Whether words lo..hi stay within MAX_EVIDENCE_WORDS by both counts: the ledger's (whitespace) and the
    copy check's (:func:`analysis.data.text.words`: "6.4x" is two words, "state-of-the-art" four)."""
    return hi - lo + 1 <= MAX_EVIDENCE_WORDS and len(words(text[spans[lo][0]:spans[hi][1]])) <= MAX_EVIDENCE_WORDS


def _evidence(text: str, start: int, end: int) -> str:
    """At most MAX_EVIDENCE_WORDS whole words of `text` around [start, end), counted both ways (:func:`_fits`):
    the snippet grows a word at a time, before and after in turn, while it fits."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    lo = next(i for i, (s, e) in enumerate(spans) if e > start)
    hi = max(i for i, (s, e) in enumerate(spans) if s < end)
    while not _fits(text, spans, lo, hi) and hi > lo:  # a core too long on its own: keep its start
        hi -= 1
    grow_left = True
    while True:
        options = [(lo - 1, hi), (lo, hi + 1)] if grow_left else [(lo, hi + 1), (lo - 1, hi)]
        fitting = [(a, b) for a, b in options if a >= 0 and b < len(spans) and _fits(text, spans, a, b)]
        if not fitting:
            break
        lo, hi = fitting[0]
        grow_left = not grow_left
    return text[spans[lo][0]:spans[hi][1]]


# the codebook's typed fields (chapters/codebook.md), named as there
TYPED_FIELDS = ["statistic", "bound", "bound_on", "baseline_class"]
STATISTICS = ["single", "maximum", "mean", "median", "minimum", "range"]
BOUNDS = ["", "lower", "upper"]
# the book's keyword classifier (analysis.models.baselines) names some classes as before the codebook
CODEBOOK_CLASS = {"naive implementation": "naive code", "CPU or other hardware": "different hardware",
                  "framework (PyTorch)": "framework"}
_LOWER_WORDS = {"more than", "over", "at least", "exceeding", "above"}


@dataclass(frozen=True)
class Candidate:
    """A candidate claim and the codebook's typed fields proposed for it (empty unless a comparison:
    unit ``x``, or ``%`` with the metric speedup, reduction or efficiency).

    ``baseline_class`` is the keyword classifier's class of the proposed ``baseline`` text, a
    suggestion for the reviewer (empty when no classifier was given)."""

    claim: Claim
    statistic: str = ""
    bound: str = ""
    bound_on: str = ""
    baseline_class: str = ""

    def row(self) -> dict[str, str]:
        return {**self.claim.row(), "statistic": self.statistic, "bound": self.bound, "bound_on": self.bound_on,
                "baseline_class": self.baseline_class}


def is_comparison(unit: str, metric: str) -> bool:
    """Whether the codebook's typed fields apply (its first paragraph)."""
    return unit == "x" or (unit == "%" and metric in ("speedup", "reduction", "efficiency"))


def typed(qualifier: str, ranged: bool, high_bound: str, median: bool) -> tuple[str, str, str]:
    """(statistic, bound, bound_on) by the codebook: "up to" is a maximum, not a bound; "average" a mean;
    "more than"/"over"/"at least" a lower bound and "at most"/"less than" an upper bound on the value, or,
    said of a range's upper end ("2× to more than 1000×"), on `high`."""
    if ranged:
        statistic = "range"
    elif median:
        statistic = "median"
    else:
        statistic = {"up to": "maximum", "average": "mean"}.get(qualifier, "single")
    if high_bound:
        return statistic, "lower" if high_bound in _LOWER_WORDS else "upper", "high"
    if qualifier in ("over", "at least"):
        return statistic, "lower", "low" if ranged else "value"
    if qualifier == "at most":
        return statistic, "upper", "high" if ranged else "value"
    return statistic, "", ""


def _sentence_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"(?<=[a-z0-9)%×\]])[.!?]\s+(?=[A-Z(])", text)]


def _problem_end(text: str) -> int:
    """Where the sentence that first states the paper's own work begins (0 if none does: no context)."""
    starts = _sentence_starts(text)
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        if _CONTRIBUTION.search(text, s, end):
            return s
    return 0


def _baseline(before: str, after: str) -> str:
    """The abstract's words for the baseline: "... 3.1× over vLLM", or "outperforms cuSPARSE by 2×"."""
    m = _BASELINE.match(after)
    if m:
        return m.group("b").strip()
    m = _BASELINE_BEFORE.search(before)
    return m.group("b").strip() if m else ""


def _paired(text: str, start: int) -> str:
    """The statistic a number has when two are stated together ("median and maximum ... of A and B")."""
    window = text[max(0, start - 90):start]
    m = _PAIR_FIRST.search(window)
    if m:
        return _STAT_WORDS[m.group("s1").lower()]
    m = _PAIR_SECOND.search(window)
    return _STAT_WORDS[m.group("s2").lower()] if m else ""


_Found = tuple[int, int, str, str, float | None, float | None, float | None, str, str]


def _found(text: str) -> list[_Found]:
    """Every number with a unit in `text`: (start, end, unit, metric, value, low, high, bound word on the
    upper end, note), unsorted and possibly overlapping."""
    found: list[_Found] = []
    for m in [*_NUMBER.finditer(text), *_BETWEEN.finditer(text)]:
        a, b, end = _parse_number(m.group("a")), m.group("b"), m.end()
        for rx, unit, metric in _UNITS:  # one pass over the numbers; the first unit that follows wins
            u = rx.match(text, end)
            if u is None:
                continue
            note = f"{u.group().strip()} (the ledger has no unit of mass)" if unit == "count" else ""
            if b is not None:
                found.append((m.start("a"), u.end(), unit, metric, None, a, _parse_number(b), m.group("hb") or "",
                              note))
            else:
                found.append((m.start("a"), u.end(), unit, metric, a, None, None, "", note))
            break
    for m in _DOLLARS.finditer(text):
        scale = (m.group("scale") or "").lower()
        unit = {"": "USD", "k": "kUSD", "m": "MUSD", "million": "MUSD", "b": "BUSD", "billion": "BUSD"}[scale]
        found.append((m.start(), m.end(), unit, "cost_usd", _parse_number(m.group("a")), None, None, "", ""))
    for m in _X_BEFORE.finditer(text):
        found.append((m.start(), m.end(), "x", "speedup", _parse_number(m.group("a")), None, None, "", ""))
    for rx, value, metric in _NUMBER_WORDS:
        for m in rx.finditer(text):
            v = value if value is not None else float(_WORD_NUMBERS[m.group("w").lower()])
            found.append((m.start(), m.end(), "x", metric, v, None, None, "", f"stated in words: {m.group()!r}"))
    return found


def candidates(text: str, classify: Callable[[str], str] | None = None) -> list[Candidate]:
    """Candidate claims of one normalised abstract, in text order; overlapping matches keep the first.

    Each holds a :class:`~analysis.data.claims.Claim` without id and paper (see :func:`claim_rows`) whose
    hardware, precision and workload a person fills in on review, the baseline the words after it name
    ("over vLLM"), the tier (`context` for a number in the sentences before the abstract first states the
    paper's own work, else `headline` for a speedup or reduction and `setup` for the rest), and the
    codebook's typed fields; `classify` (the book's keyword classifier) suggests the baseline class."""
    found = _found(text)
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    problem_end = _problem_end(text)
    out: list[Candidate] = []
    taken_until = -1
    for start, end, unit, metric, value, low, high, high_bound, note in found:
        if start < taken_until:
            continue
        taken_until = end
        before, after = text[max(0, start - 50):start], text[end:end + 80]
        metric = _metric(unit, metric, before, after[:30])
        qualifier = _qualifier(text[:start])
        paired = _paired(text, start)
        if qualifier == "exact" and (_AVERAGE_AFTER.match(after) or paired == "mean"):
            qualifier = "average"
        said = qualifier  # what the words say; the ledger qualifies every two-ended claim "range"
        comparison = is_comparison(unit, metric)
        baseline = _baseline(text[max(0, start - 120):start], after) if comparison else ""
        tier = ("context" if start < problem_end else
                "headline" if comparison or metric in ("speedup", "reduction") else "setup")
        if value is None:
            qualifier = "range"
        if low is not None and said == "average":
            note = "; ".join(x for x in (note, "a range of averages: the ends are averages") if x)
        notes = "; ".join(x for x in (note, "candidate found by make corpus: check metric, qualifier, baseline, "
                                      "typed fields and workload") if x)
        claim = Claim(
            claim_id="", citekey="", metric=metric, value=value, low=low, high=high, unit=unit,
            qualifier=qualifier, baseline=baseline, hardware="", precision="", workload="",
            evidence=_evidence(text, start, end), tier=tier, notes=notes,
        )
        if comparison:
            median = paired == "median" or bool(_MEDIAN_BEFORE.search(text[max(0, start - 40):start]))
            statistic, bound, bound_on = typed(said, value is None, high_bound, median)
            if paired in ("maximum", "minimum") and statistic == "single":
                statistic = paired
            suggested = CODEBOOK_CLASS.get(c := classify(baseline), c) if classify else "unstated"
            claim = replace(claim, statistic=statistic, bound=bound, bound_on=bound_on, baseline_class=suggested)
            out.append(Candidate(claim, statistic, bound, bound_on, suggested))
        else:
            out.append(Candidate(claim))
    assert all(c.claim.unit in UNITS and c.claim.metric in METRICS and c.claim.qualifier in QUALIFIERS
               and c.claim.tier in TIERS for c in out)
    return out


def extract(text: str) -> list[Claim]:
    """The claims of :func:`candidates`, without the typed fields."""
    return [c.claim for c in candidates(text)]


def claim_rows(citekey: str, text: str, classify: Callable[[str], str] | None = None) -> list[dict[str, str]]:
    """The candidates of one paper as rows of data/claims.csv (ids <citekey>-1, -2, ...) with the typed
    fields of :data:`TYPED_FIELDS` after the ledger's columns."""
    return [Candidate(replace(c.claim, claim_id=f"{citekey}-{n}", citekey=citekey), c.statistic, c.bound,
                      c.bound_on, c.baseline_class).row()
            for n, c in enumerate(candidates(text, classify), 1)]
