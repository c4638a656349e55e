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
from dataclasses import replace

from analysis.data.claims import MAX_EVIDENCE_WORDS, METRICS, QUALIFIERS, UNITS, Claim

NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
VALUE = rf"(?P<a>{NUM})(?:[×xX%]?\s*(?:-|–|to|~)\s*(?P<b>{NUM}))?"

# (unit pattern after the number, unit, default metric); the first that matches at a place wins
_AFTER: list[tuple[str, str, str]] = [
    (r"\s*(?:×|[xX](?![\w])|-?fold\b)", "x", "speedup"),
    (r"\s*(?:percentage points?|pp\b)", "pp", "accuracy"),
    (r"\s*(?:%|percent\b)", "%", "other"),
    (r"\s*(?:[A-Z][A-Za-z0-9-]*\s+)?GPU[- ]hours?\b", "GPU-hours", "gpu_hours"),
    (r"\s*(?:[A-Z][A-Za-z0-9-]*\s+)?GPU[- ]days?\b", "GPU-days", "gpu_days"),
    (r"\s+(?:[A-Z][A-Za-z0-9-]*\s+){0,2}GPUs?\b", "GPUs", "gpu_count"),
    (r"\s+(?:compute\s+)?nodes\b", "nodes", "count"),
    (r"\s*(?:TOPS/W)\b", "TOPS/W", "efficiency"),
    (r"\s*(?:GFLOPS/W)\b", "GFLOPS/W", "efficiency"),
    (r"\s*(?:TFLOPS|TFLOP/s|TFLOPs/s)", "TFLOP/s", "throughput"),
    (r"\s*(?:PFLOPS|PFLOP/s|PFLOPs/s)", "PFLOP/s", "throughput"),
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
    (r"\s*W\b", "W", "power"),
    (r"\s*(?:tCO2e?|t CO2e?|tons? of CO2(?:e| equivalent)?)", "tCO2e", "carbon"),
    (r"\s*(?:kgCO2e?|kg CO2e?)", "kgCO2e", "carbon"),
    (r"\s*(?:B|billion)(?=[\s-]+(?:parameters?|params|-parameter))", "B", "params"),
    (r"\s*B\b(?=[\s-]+(?:model|LLM|dense|MoE))", "B", "params"),
    (r"\s*(?:T|trillion)(?=\s+(?:tokens|parameters))", "T", "tokens"),
    (r"\s*(?:B|billion)(?=\s+tokens)", "B", "tokens"),
    (r"\s*(?:M|million)(?=[\s-]+(?:parameters?|params))", "M", "params"),
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
    (r"(?:on average|an average of|average|avg\.?|mean)", "average"),
]

_CONTEXT_METRIC = [  # (words near a % or × value, metric)
    (r"accura|top-1|top-5|score|f1|bleu|perplexit|pass@", "accuracy"),
    (r"reduc|fewer|less|lower|smaller|sav|cut|decreas|compress|shrink", "reduction"),
    (r"utili[sz]|mfu\b|occupancy", "utilization"),
    (r"throughput", "throughput"),
    (r"latency", "latency"),
    (r"energy|efficien|per watt", "efficiency"),
    (r"faster|speed|accelerat(?:e|es|ed|ing|ion)\b|improv|rais|increas|higher|boost|goodput", "speedup"),
]


def _num(text: str) -> float:
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


def _evidence(text: str, start: int, end: int) -> str:
    """At most MAX_EVIDENCE_WORDS whole words of `text` around [start, end)."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    first = next(i for i, (s, e) in enumerate(spans) if e > start)
    last = max(i for i, (s, e) in enumerate(spans) if s < end)
    width = last - first + 1
    room = max(MAX_EVIDENCE_WORDS - width, 0)
    lo = max(first - (room + 1) // 2, 0)
    hi = min(last + room // 2, len(spans) - 1)
    lo = max(min(lo, hi - MAX_EVIDENCE_WORDS + 1), 0)
    return text[spans[lo][0]:spans[hi][1]]


def extract(text: str) -> list[Claim]:
    """Candidate claims of one normalised abstract, in text order; overlapping matches keep the first.

    Each is a :class:`~analysis.data.claims.Claim` without id and paper (see :func:`claim_rows`) whose
    baseline, hardware, precision and workload a person fills in on review."""
    found: list[tuple[int, int, str, str, float | None, float | None, float | None]] = []
    for m in _NUMBER.finditer(text):
        for rx, unit, metric in _UNITS:  # one pass over the numbers; the first unit that follows wins
            u = rx.match(text, m.end())
            if u is None:
                continue
            a, b = _num(m.group("a")), m.group("b")
            if b is not None:
                found.append((m.start(), u.end(), unit, metric, None, a, _num(b)))
            else:
                found.append((m.start(), u.end(), unit, metric, a, None, None))
            break
    for m in _DOLLARS.finditer(text):
        scale = (m.group("scale") or "").lower()
        unit = {"": "USD", "k": "kUSD", "m": "MUSD", "million": "MUSD", "b": "BUSD", "billion": "BUSD"}[scale]
        found.append((m.start(), m.end(), unit, "cost_usd", _num(m.group("a")), None, None))
    for m in _X_BEFORE.finditer(text):
        found.append((m.start(), m.end(), "x", "speedup", _num(m.group("a")), None, None))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    out: list[Claim] = []
    taken_until = -1
    for start, end, unit, metric, value, low, high in found:
        if start < taken_until:
            continue
        taken_until = end
        metric = _metric(unit, metric, text[max(0, start - 50):start], text[end:end + 30])
        qualifier = "range" if value is None else _qualifier(text[:start])
        c = Claim(
            claim_id="", citekey="", metric=metric, value=value, low=low, high=high, unit=unit,
            qualifier=qualifier, baseline="", hardware="", precision="", workload="",
            evidence=_evidence(text, start, end), tier="headline" if metric in ("speedup", "reduction") else "setup",
            notes="candidate found by make corpus: check metric, qualifier, baseline and workload",
        )
        out.append(_typed(c) if c.comparison else c)
    assert all(c.unit in UNITS and c.metric in METRICS and c.qualifier in QUALIFIERS for c in out)
    return out


def _typed(c: Claim) -> Claim:
    """A comparison candidate with the codebook's typed fields guessed from its qualifier (chapters/codebook.md):
    the reviewer checks them, and codes baseline_class and each side's hardware from the abstract."""
    statistic = {"up to": "maximum", "average": "mean", "range": "range"}.get(c.qualifier, "single")
    bound = {"over": "lower", "at least": "lower", "at most": "upper"}.get(c.qualifier, "")
    return replace(c, statistic=statistic, bound=bound, bound_on="value" if bound else "", baseline_class="unstated",
                   notes="candidate found by make corpus: check metric, qualifier, baseline and workload, and code "
                         "statistic, bound and baseline_class by chapters/codebook.md")


def claim_rows(citekey: str, text: str) -> list[dict[str, str]]:
    """The candidates of one paper as rows of data/claims.csv (ids <citekey>-1, -2, ...)."""
    return [replace(c, claim_id=f"{citekey}-{n}", citekey=citekey).row() for n, c in enumerate(extract(text), 1)]
