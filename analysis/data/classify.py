"""A theme suggested for a new paper: a text classifier trained on the papers already labelled.

The features are TF-IDF weights of the abstract's words and word pairs (English stop words removed,
sublinear term frequency) joined with TF-IDF weights of its character 3- to 5-grams (which catch
system names and hardware such as "FlashAttention" or "H100" across spellings); the model is
multinomial logistic regression (C = 30, classes balanced), whose probabilities are reported as the
suggestion's confidence and runner-up. A paper's secondary theme, where it has one, is taught too, as
an extra example of that theme with weight 0.3. It only *suggests*: a person reviews every theme
before a row enters data/papers.csv.

Its quality is stated as its top-1 and top-2 accuracy (the primary theme is the suggestion, or the
suggestion or its runner-up) in stratified k-fold cross-validation (shuffled with a fixed seed, so
the figures are reproducible; secondary themes are taught only from the training folds), which the
corpus page reports.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

FOLDS = 5
SEED = 0
SECONDARY_WEIGHT = 0.3


@dataclass(frozen=True)
class Suggestion:
    theme: str
    confidence: float  # the model's normalised score for `theme`, 0..1
    runner_up: str
    runner_up_confidence: float


def _pipeline() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    return make_pipeline(
        make_union(TfidfVectorizer(sublinear_tf=True, stop_words="english", ngram_range=(1, 2)),
                   TfidfVectorizer(sublinear_tf=True, analyzer="char_wb", ngram_range=(3, 5), min_df=2)),
        LogisticRegression(C=30.0, max_iter=3000, class_weight="balanced"),
    )


def train(texts: list[str], labels: list[str], secondary: list[str] | None = None) -> Any:
    """The fitted classifier (a scikit-learn pipeline) on abstracts and their themes; each non-empty
    `secondary` theme adds its abstract again as an example of that theme, with weight SECONDARY_WEIGHT."""
    if len(set(labels)) < 2:
        raise ValueError("the theme classifier needs papers of at least two themes")
    x, y, w = list(texts), list(labels), [1.0] * len(texts)
    for text, sec in zip(texts, secondary or [""] * len(texts), strict=True):
        if sec and sec in set(labels):
            x.append(text)
            y.append(sec)
            w.append(SECONDARY_WEIGHT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _pipeline().fit(x, y, logisticregression__sample_weight=np.array(w))


def suggest(model: Any, texts: list[str]) -> list[Suggestion]:
    """The most likely theme of each text, its confidence and the runner-up."""
    if not texts:
        return []
    proba = model.predict_proba(texts)
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


def cross_validate(texts: list[str], labels: list[str], folds: int = FOLDS,
                   secondary: list[str] | None = None) -> CrossValidation:
    """Top-1 and top-2 accuracy of the classifier in stratified k-fold cross-validation (shuffled, fixed seed).

    The number of folds is lowered to the size of the smallest theme when a theme is smaller.
    """
    from sklearn.model_selection import StratifiedKFold

    counts = {lab: labels.count(lab) for lab in set(labels)}
    k = max(2, min(folds, min(counts.values())))
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=SEED)
    sec = secondary or [""] * len(texts)
    top1, top2, per_fold = 0, 0, []
    for train_idx, test_idx in cv.split(texts, labels):
        model = train([texts[i] for i in train_idx], [labels[i] for i in train_idx], [sec[i] for i in train_idx])
        got = suggest(model, [texts[i] for i in test_idx])
        hits = [(g.theme == labels[i], labels[i] in (g.theme, g.runner_up)) for g, i in zip(got, test_idx,
                                                                                          strict=True)]
        top1 += sum(h for h, _ in hits)
        top2 += sum(h for _, h in hits)
        per_fold.append(sum(h for h, _ in hits) / len(hits))
    n = len(texts)
    return CrossValidation(top1 / n, top2 / n, float(np.std(per_fold)), k, n, len(counts))


def labelled(papers_rows: list[tuple[str, str, str]], abstracts: dict[str, str]) -> tuple[list[str], list[str]]:
    """(texts, themes) of the labelled papers: `papers_rows` are (citekey, fingerprint, theme) and
    `abstracts` maps a fingerprint to its normalised abstract; papers are taken in citekey order."""
    rows = sorted((k, fp, th) for k, fp, th in papers_rows if fp in abstracts)
    return [abstracts[fp] for _, fp, _ in rows], [th for _, _, th in rows]


def secondaries(papers_rows: list[tuple[str, str, str]], abstracts: dict[str, str]) -> list[str]:
    """The secondary themes of :func:`labelled`'s papers, in its order: `papers_rows` are (citekey,
    fingerprint, secondary theme or '')."""
    return [sec for _, fp, sec in sorted(papers_rows) if fp in abstracts]
