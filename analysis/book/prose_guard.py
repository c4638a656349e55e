"""The number guard: a literal number in a sentence about one paper must come from that paper.

For every sentence of a chapter that cites exactly one corpus paper, each number typed in the
prose (not glued) must appear in that paper's abstract (the seed text) or among its values in the
claims ledger (``data/claims.csv``: value, low, high). Anything else (a datasheet peak, a figure
from another paper, a number from the paper's body) is glued from the analysis that holds it with
its source, or the sentence cites where it comes from. :func:`hits` lists what breaks the rule.

What is not a number here: years (1990-2030), parts of names ("RTX 4090", "Llama 2", "Pi 4",
"FlashAttention-3", "v1.5"), precision labels ("16-bit"), numbers inside code, maths, links, glue
and cross-reference roles.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.data import claims, corpus, papers

CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
_STRIP = re.compile(
    r"\{glue(?::\w+)?\}`[^`]*`"  # glued values
    r"|\{(?:numref|doc|ref|eq|math|download)\}`[^`]*`"  # cross-references
    r"|`[^`]*`"  # inline code
    r"|\$[^$]*\$"  # inline maths
    r"|\[[^\]]*\]\([^)]*\)"  # links
)
NUMBER = re.compile(r"(?<![\w.\-/])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?!\w)(?!\.\d)(?!-bit)")
# a number right after one of these words is part of a name, not a quantity
_NAME_WORDS = (
    "RTX", "GTX", "Llama", "LLaMA", "GPT", "TPU", "TPUv", "Orin", "M", "Gen", "PCIe", "Ascend", "version", "v",
    "Table", "Figure", "Section", "section", "Appendix", "Eq.", "Pythia", "Qwen", "OPT", "Mistral", "Gemma", "Phi",
    "MI", "Xeon", "SD", "DeepSeek", "NVLink", "HBM", "CIFAR", "ResNet", "Pi", "Jetson", "Snapdragon", "Gaudi",
    "Claude", "Gemini", "Mixtral", "Falcon", "T", "T5", "Stable Diffusion", "YOLOv", "ViT", "BLOOM", "Max",
)
_NAME_BEFORE = re.compile(r"(?:\b(?:" + "|".join(re.escape(w) for w in _NAME_WORDS) + r")\s*|[A-Za-z]-?)$")
_ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z{(*])")


@dataclass(frozen=True)
class Hit:
    chapter: str
    citekey: str
    number: str
    sentence: str

    def __str__(self) -> str:
        return f"{self.chapter}: {self.number} ({self.citekey}) in: {self.sentence[:200]}"


def sentences(markdown: str) -> list[str]:
    """Sentences of a chapter's prose: fenced blocks dropped, list items and paragraphs apart."""
    text = re.sub(r"^(```|~~~).*?^\1", "", markdown, flags=re.S | re.M)
    text = re.sub(r"^:::.*?^:::", "", text, flags=re.S | re.M)
    blocks = re.split(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)", text)
    out: list[str] = []
    for block in blocks:
        flat = " ".join(block.split())
        out += [s for s in _SPLIT.split(flat) if s]
    return out


def _as_float(token: str) -> float:
    return float(token.replace(",", ""))


def numbers(text: str) -> Iterable[tuple[str, float]]:
    """Literal quantities typed in `text` (glue, roles, code, maths and links removed)."""
    plain = _STRIP.sub(" ", CITE.sub(" ", text.replace("\\$", " ")))  # an escaped \$ is a currency sign, not maths
    for m in NUMBER.finditer(plain):
        token = m.group(1)
        x = _as_float(token)
        if 1990 <= x <= 2030 and "." not in token and "," not in token:
            continue
        if _NAME_BEFORE.search(plain[: m.start()]):
            continue
        yield token, x


def paper_numbers() -> dict[str, set[float]]:
    """Per citekey: every number of its abstract and its claims' values, lows and highs."""
    texts = {p.fingerprint: p.text for p in corpus.load_corpus()}
    known: dict[str, set[float]] = {}
    for r in papers.load().itertuples():
        text = texts.get(str(r.fingerprint), "")
        # permissive on the abstract's side: "3x640x360" holds 3, 640 and 360; "26,000" holds 26000
        known[str(r.citekey)] = ({_as_float(t) for t in _ANY_NUMBER.findall(text)}
                                 | {_as_float(m.group(1)) for m in NUMBER.finditer(text)})
    ledger = claims.load()
    for col in ("value", "low", "high"):
        values = pd.to_numeric(ledger[col], errors="coerce")
        for key, v in zip(ledger["citekey"].astype(str), values.tolist(), strict=True):
            if v == v:  # not NaN
                known.setdefault(key, set()).add(float(v))
    return known


def hits(chapters: Iterable[Path], known: dict[str, set[float]] | None = None) -> list[Hit]:
    """Every typed number, in a sentence that cites one corpus paper, that the paper does not hold."""
    known = paper_numbers() if known is None else known
    out: list[Hit] = []
    for page in chapters:
        for sent in sentences(page.read_text(encoding="utf-8")):
            keys = {k.strip() for m in CITE.finditer(sent) for k in m.group(1).split(",")}
            if len(keys) != 1:
                continue
            key = keys.pop()
            if key not in known:
                continue  # outside the corpus: not this guard's business
            for token, x in numbers(sent):
                if not any(abs(x - v) <= 1e-9 * max(1.0, abs(v)) for v in known[key]):
                    out.append(Hit(page.name, key, token, sent))
    return out
