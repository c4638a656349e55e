"""A theme suggested for a new paper: a text classifier trained on the papers already labelled.

The features are TF-IDF weights of the abstract's words and word pairs (English stop words removed,
sublinear term frequency) joined with TF-IDF weights of its character 3- to 5-grams (which catch
system names and hardware such as "FlashAttention" or "H100" across spellings); the model is a linear
support-vector machine (one theme against the rest, C = 1, themes balanced). A paper's secondary theme,
where it has one, is taught too, as an extra example of that theme with weight 0.3; so is each theme's
title and scope in the taxonomy (data/themes.yml), as one example of that theme. A suggestion
carries the theme's score and the runner-up's: the softmax of the margins (:func:`scores`), a ranking
rather than a calibrated probability. It only *suggests*: a person reviews every theme before a row
enters data/papers.csv.

Why this model (issue 35; the comparison is bench/classifier.py, its results in bench/results.md): on
the 235 labelled papers, in 5-fold cross-validation repeated over five shuffles, richer features (word
triples, wider character n-grams, the title) and other models (logistic regression, ridge, complement
naive Bayes, nearest neighbours, calibrated or averaged ensembles) put the primary theme in the top two
for at most 87% of papers; none came near the 95% the intake aimed at, because the misses spread over
many theme pairs (on our reading, papers that fit two or three themes). The linear SVM
matches the logistic regression used before (top-2 within the spread over shuffles, top-1 a point
higher) and fits several times faster, which keeps the corpus page's cross-validation cheap. Teaching the
taxonomy's scope texts adds about a point of top-2 (they are known at suggestion time; written by us with
the corpus in view, they may flatter the cross-validation a little). The title would add about a point too
but is known only for an identified paper, so the suggestion reads the abstract alone, the same text for
every paper.

Its quality is stated as its top-1 and top-2 accuracy (the primary theme is the suggestion, or the
suggestion or its runner-up) in stratified k-fold cross-validation (shuffled with a fixed seed, so
the figures are reproducible; secondary themes are taught only from the training folds), with the theme
pairs it confuses, which the corpus page reports.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FOLDS = 5
SEED = 0
SECONDARY_WEIGHT = 0.3
SCOPE_WEIGHT = 1.0
SHARPNESS = 5.0  # margins are about -1.5..1; x5 spreads them into readable scores


@dataclass(frozen=True)
class Suggestion:
    theme: str
    confidence: float  # the theme's score (:func:`scores`), 0..1
    runner_up: str
    runner_up_confidence: float


class _Memo:
    """A text analyser (a text's words and word pairs, or its character n-grams) that remembers each text's
    output: cross-validation then cuts every abstract into n-grams once, not once per fold. It depends on
    the text alone, never on a label, so the folds stay independent."""

    def __init__(self, analyse: Any) -> None:
        self.analyse = analyse
        self.seen: dict[str, list[str]] = {}

    def __call__(self, text: str) -> list[str]:
        if text not in self.seen:
            self.seen[text] = self.analyse(text)
        return self.seen[text]


def analysers() -> list[_Memo]:
    """The two feature families: words and word pairs (English stop words removed), character 3-5-grams."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return [_Memo(TfidfVectorizer(stop_words="english", ngram_range=(1, 2)).build_analyzer()),
            _Memo(TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5)).build_analyzer())]


def _pipeline(memo: list[_Memo] | None = None) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline, make_union
    from sklearn.svm import LinearSVC

    words, chars = memo or analysers()
    return make_pipeline(
        make_union(TfidfVectorizer(sublinear_tf=True, analyzer=words),
                   TfidfVectorizer(sublinear_tf=True, analyzer=chars, min_df=2)),
        LinearSVC(C=1.0, class_weight="balanced", random_state=0),
    )


def theme_scopes(folder: Path | None = None) -> dict[str, str]:
    """Each theme's title and scope, by theme id, from the taxonomy of the data folder `folder` (default: the
    data folder; `make corpus` passes the folder it reads, which may be a staged copy), as
    :func:`analysis.data.papers.themes` reads and validates it."""
    from analysis.data import papers

    th = papers.themes(folder)
    return {str(i): f"{t}. {s}" for i, t, s in zip(th["id"], th["title"], th["scope"], strict=True)}


def train(texts: list[str], labels: list[str], secondary: list[str] | None = None,
          memo: list[_Memo] | None = None, scopes: dict[str, str] | None = None) -> Any:
    """The fitted classifier (a scikit-learn pipeline) on abstracts and their themes; each non-empty
    `secondary` theme adds its abstract again as an example of that theme, with weight SECONDARY_WEIGHT,
    and each theme's text in `scopes` (:func:`theme_scopes`) is one more example of it, with weight
    SCOPE_WEIGHT. `memo` (from :func:`analysers`) may be shared between fits on the same texts."""
    if len(set(labels)) < 2:
        raise ValueError("the theme classifier needs papers of at least two themes")
    x, y, w = list(texts), list(labels), [1.0] * len(texts)
    for text, sec in zip(texts, secondary or [""] * len(texts), strict=True):
        if sec and sec in set(labels):
            x.append(text)
            y.append(sec)
            w.append(SECONDARY_WEIGHT)
    for theme, text in sorted((scopes or {}).items()):
        if theme in set(labels):
            x.append(text)
            y.append(theme)
            w.append(SCOPE_WEIGHT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _pipeline(memo).fit(x, y, linearsvc__sample_weight=np.array(w))


def scores(model: Any, texts: list[str]) -> np.ndarray:
    """Each text's score for every theme (in ``model.classes_``' order), 0..1 and summing to 1: the softmax
    of the classifier's margins. A ranking, not a calibrated probability."""
    d = np.asarray(model.decision_function(texts), dtype=float)
    if d.ndim == 1:  # two themes: one margin, for the second class
        d = np.column_stack([-d, d])
    e = np.exp(SHARPNESS * (d - d.max(axis=1, keepdims=True)))
    return e / e.sum(axis=1, keepdims=True)


def suggest(model: Any, texts: list[str]) -> list[Suggestion]:
    """The most likely theme of each text, its score and the runner-up."""
    if not texts:
        return []
    proba = scores(model, texts)
    classes = list(model.classes_)
    out = []
    for row in proba:
        order = np.argsort(-row, kind="stable")
        first, second = int(order[0]), int(order[1]) if len(order) > 1 else int(order[0])
        out.append(Suggestion(str(classes[first]), round(float(row[first]), 3),
                              str(classes[second]), round(float(row[second]), 3)))
    return out


@dataclass(frozen=True)
class CrossValidation:
    accuracy: float  # top-1: the suggestion is the primary theme, share of papers 0..1
    top2: float  # the suggestion or its runner-up is the primary theme
    std: float  # standard deviation of the top-1 accuracy over folds
    folds: int
    n_papers: int
    n_themes: int
    either: float = 0.0  # the suggestion is the primary or the secondary theme (a weaker figure than top-1)
    misses: tuple[tuple[str, str, int], ...] = ()  # (primary theme, suggestion, papers) where top-2 missed


def _fold_hits(texts: list[str], labels: list[str], sec: list[str], train_idx: Any, test_idx: Any,
               memo: list[_Memo], scopes: dict[str, str] | None) -> list[tuple]:
    """(primary theme, suggestion, runner-up, secondary theme) of each test paper of one fold."""
    model = train([texts[i] for i in train_idx], [labels[i] for i in train_idx], [sec[i] for i in train_idx], memo,
                  scopes)
    got = suggest(model, [texts[i] for i in test_idx])
    return [(labels[i], g.theme, g.runner_up, sec[i]) for g, i in zip(got, test_idx, strict=True)]


def cross_validate(texts: list[str], labels: list[str], folds: int = FOLDS,
                   secondary: list[str] | None = None, seed: int = SEED,
                   scopes: dict[str, str] | None = None) -> CrossValidation:
    """Top-1 and top-2 accuracy of the classifier in stratified k-fold cross-validation (shuffled, fixed seed),
    with the theme pairs it confuses (the primary theme missing from the top two, and the suggestion).

    The number of folds is lowered to the size of the smallest theme when a theme is smaller.
    """
    from sklearn.model_selection import StratifiedKFold

    counts = {lab: labels.count(lab) for lab in set(labels)}
    k = max(2, min(folds, min(counts.values())))
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    sec = secondary or [""] * len(texts)
    rows, per_fold, memo = [], [], analysers()
    for train_idx, test_idx in cv.split(texts, labels):
        fold = _fold_hits(texts, labels, sec, train_idx, test_idx, memo, scopes)
        rows += fold
        per_fold.append(sum(t == s for t, s, _, _ in fold) / len(fold))
    n = len(texts)
    missed = Counter((t, s) for t, s, r, _ in rows if t not in (s, r))
    return CrossValidation(sum(t == s for t, s, _, _ in rows) / n, sum(t in (s, r) for t, s, r, _ in rows) / n,
                           float(np.std(per_fold)), k, n, len(counts),
                           either=sum(s in (t, e) for t, s, _, e in rows) / n,
                           misses=tuple((t, s, c) for (t, s), c in sorted(missed.items(), key=lambda kv: (-kv[1],
                                                                                                         kv[0]))))


def labelled(papers_rows: list[tuple[str, str, str]], abstracts: dict[str, str]) -> tuple[list[str], list[str]]:
    """(texts, themes) of the labelled papers: `papers_rows` are (citekey, fingerprint, theme) and
    `abstracts` maps a fingerprint to its normalised abstract; papers are taken in citekey order."""
    rows = sorted((k, fp, th) for k, fp, th in papers_rows if fp in abstracts)
    return [abstracts[fp] for _, fp, _ in rows], [th for _, _, th in rows]


def secondaries(papers_rows: list[tuple[str, str, str]], abstracts: dict[str, str]) -> list[str]:
    """The secondary themes of :func:`labelled`'s papers, in its order: `papers_rows` are (citekey,
    fingerprint, secondary theme or '')."""
    return [sec for _, fp, sec in sorted(papers_rows) if fp in abstracts]
