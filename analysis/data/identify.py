"""Identification help: look a new abstract up in arXiv's API and propose ID, title, authors and year.

For each abstract, :func:`queries` picks distinctive phrases (the sentences with the most rare,
capitalised or numeric words, cut to a few words each) and asks the arXiv API (through the
``arxiv`` package) for papers whose abstract contains them. Every result is scored by its text
similarity to our abstract (rapidfuzz's ``token_set_ratio`` on the normalised texts, 0..1) and
the best one is proposed. A proposal is only a proposal: `python -m analysis identify` prints
them and writes them to _build/corpus/identify.csv, never into data/; `make corpus` copies them
into the scaffold rows that a person then checks against the arXiv page before accepting.

Without a network the command says so and ends normally (exit 0).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

API_HOST = "export.arxiv.org"
MATCH = 0.85  # similarity from which a proposal is called a match (below: "weak")

_STOP = set("""a an and are as at be by can for from has have in into is it its of on or our that the their
this to we which with without while using use used based than these those such also both via over up
more most show shows results paper propose proposed present approach method methods new model models""".split())


@dataclass(frozen=True)
class Proposal:
    arxiv_id: str  # without version
    version: str  # e.g. "v2"
    title: str
    authors: str  # BibTeX form: "Family, Given and Family, Given"
    year: int
    similarity: float  # 0..1

    @property
    def verdict(self) -> str:
        return "match" if self.similarity >= MATCH else "weak"

    @property
    def url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv_id}"


def _clean(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s.%×-]", " ", text).split())


def _weight(token: str) -> float:
    """How distinctive a word is: names and numbers most, stop words not at all."""
    if token.lower() in _STOP:
        return 0.0
    return 2.0 if re.search(r"[A-Z].*[A-Z]|\d", token) else 1.0


def queries(text: str, n: int = 2, words: int = 7) -> list[str]:
    """Up to `n` arXiv queries: exact-phrase abstract searches (``abs:"..."``) for the runs of `words`
    consecutive words with the most distinctive words, taken from different sentences."""
    sentences = [_clean(s).split() for s in re.split(r"(?<=[.!?])\s+", text)]
    windows = []
    for toks in sentences:
        if len(toks) < 3:
            continue
        spans = [toks[i:i + words] for i in range(max(len(toks) - words + 1, 1))]
        best = max(spans, key=lambda span: sum(_weight(t) for t in span))
        windows.append((sum(_weight(t) for t in best), " ".join(best)))
    windows.sort(key=lambda w: -w[0])
    out = [f'abs:"{phrase}"' for _, phrase in windows[:n]]
    # and, in case punctuation split a phrase differently there, the rarest words, each required
    seen: dict[str, float] = {}
    for tok in _clean(text).split():
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9]{2,}", tok) and _weight(tok) > 0:
            seen.setdefault(tok.lower(), _weight(tok))
    rare = sorted(seen, key=lambda w: -seen[w])[:5]
    if rare:
        out.append(" AND ".join(f"abs:{w}" for w in rare))
    return out


def bibtex_name(name: str) -> str:
    """'Given Middle Family' → 'Family, Given Middle' (a person to check: particles are not detected)."""
    parts = name.replace(",", " ").split()
    if len(parts) < 2:
        return name.strip()
    return f"{parts[-1]}, {' '.join(parts[:-1])}"


def similarity(a: str, b: str) -> float:
    """Text similarity of two abstracts, 0..1 (rapidfuzz token_set_ratio on normalised text)."""
    from rapidfuzz import fuzz

    from analysis.data.corpus import normalise

    return round(fuzz.token_set_ratio(normalise(a).lower(), normalise(b).lower()) / 100.0, 3)


def _split_id(entry_id: str) -> tuple[str, str]:
    short = entry_id.rstrip("/").split("/abs/")[-1]
    m = re.match(r"^(.*?)(v\d+)?$", short)
    assert m is not None
    return m.group(1), m.group(2) or ""


def best_proposal(text: str, results: Iterable[Any]) -> Proposal | None:
    """The arXiv result (objects like ``arxiv.Result``) most similar to `text`, as a proposal."""
    best: Proposal | None = None
    for r in results:
        aid, ver = _split_id(str(r.entry_id))
        p = Proposal(
            arxiv_id=aid, version=ver, title=" ".join(str(r.title).split()),
            authors=" and ".join(bibtex_name(a.name) for a in r.authors),
            year=int(r.published.year), similarity=similarity(text, str(r.summary)),
        )
        if best is None or p.similarity > best.similarity:
            best = p
    return best


def online(host: str = API_HOST, timeout_s: float = 3.0) -> bool:
    """Whether the arXiv API's host resolves and accepts a connection."""
    try:
        with socket.create_connection((host, 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def search(query: str, max_results: int = 5) -> list[Any]:
    """One arXiv API search (the ``arxiv`` package: one request, at most one retry, 3 s apart)."""
    import arxiv

    client = arxiv.Client(page_size=max_results, delay_seconds=3.0, num_retries=1)
    try:
        return list(client.results(arxiv.Search(query=query, max_results=max_results)))
    except arxiv.ArxivError as exc:  # an HTTP error or an empty page, after the retry
        raise ConnectionError(f"arXiv API: {exc}") from None


def lookup(text: str, fetch: Callable[[str], list[Any]] = search) -> Proposal | None:
    """The best proposal for one abstract over its distinctive-phrase queries."""
    results: list[Any] = []
    for q in queries(text):
        results += fetch(q)
        best = best_proposal(text, results)
        if best is not None and best.verdict == "match":
            return best
    return best_proposal(text, results)


COLUMNS = ["ref", "fingerprint", "verdict", "similarity", "arxiv_id", "version", "title", "authors", "year", "url"]


def proposal_row(ref: str, fp: str, p: Proposal | None) -> dict[str, str]:
    if p is None:
        return {"ref": ref, "fingerprint": fp, "verdict": "not found", **{c: "" for c in COLUMNS[3:]}}
    return {"ref": ref, "fingerprint": fp, "verdict": p.verdict, "similarity": f"{p.similarity:.3f}",
            "arxiv_id": p.arxiv_id, "version": p.version, "title": p.title, "authors": p.authors,
            "year": str(p.year), "url": p.url}
