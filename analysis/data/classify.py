"""A theme suggested for a new paper: a text classifier trained on the papers already labelled.

The features are TF-IDF weights of the abstract's words (English stop words removed, sublinear
term frequency); the model is one-vs-rest logistic regression (liblinear, C = 10), whose class
scores are normalised to sum to one and reported as the suggestion's confidence. It only
*suggests*: a person reviews every theme before a row enters data/papers.csv.

Its quality is stated as its accuracy in stratified k-fold cross-validation (shuffled with a fixed
seed, so the figure is reproducible), which the corpus page reports.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

FOLDS = 5
SEED = 0


@dataclass(frozen=True)
class Suggestion:
    theme: str
    confidence: float  # the model's normalised score for `theme`, 0..1
    runner_up: str
    runner_up_confidence: float


def _pipeline() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        TfidfVectorizer(sublinear_tf=True, stop_words="english"),
        OneVsRestClassifier(LogisticRegression(C=10.0, solver="liblinear")),
    )


def train(texts: list[str], labels: list[str]) -> Any:
    """The fitted classifier (a scikit-learn pipeline) on abstracts and their themes."""
    if len(set(labels)) < 2:
        raise ValueError("the theme classifier needs papers of at least two themes")
    return _pipeline().fit(texts, labels)


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
    accuracy: float  # mean over folds, 0..1
    std: float  # standard deviation over folds
    folds: int
    n_papers: int
    n_themes: int


def cross_validate(texts: list[str], labels: list[str], folds: int = FOLDS) -> CrossValidation:
    """Accuracy of the classifier in stratified k-fold cross-validation (shuffled, fixed seed).

    The number of folds is lowered to the size of the smallest theme when a theme is smaller.
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    counts = {lab: labels.count(lab) for lab in set(labels)}
    k = max(2, min(folds, min(counts.values())))
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scores = cross_val_score(_pipeline(), texts, labels, cv=cv)
    return CrossValidation(float(scores.mean()), float(scores.std()), k, len(texts), len(counts))


def labelled(papers_rows: list[tuple[str, str, str]], abstracts: dict[str, str]) -> tuple[list[str], list[str]]:
    """(texts, themes) of the labelled papers: `papers_rows` are (citekey, fingerprint, theme) and
    `abstracts` maps a fingerprint to its normalised abstract; papers are taken in citekey order."""
    rows = sorted((k, fp, th) for k, fp, th in papers_rows if fp in abstracts)
    return [abstracts[fp] for _, fp, _ in rows], [th for _, _, th in rows]
