"""The theme classifier's candidates, compared in repeated stratified cross-validation (issue 35).

    .venv/bin/python bench/classifier.py [--seeds 5] [--only NAME,NAME] [--confusion NAME]

Every candidate is scored on the labelled papers (data/papers.csv joined with the seed abstracts, as the
corpus page does) in 5-fold stratified cross-validation repeated over `--seeds` shuffles (seeds 0..n-1);
printed per candidate: mean top-1 and top-2 accuracy of the *primary* theme and their spread (min-max) over
the seeds, the share whose top-1 is the primary or the secondary theme (a separate, weaker figure), and the
seconds one 5-fold run takes. Everything a model sees is fitted on the training folds only (TF-IDF
vocabularies and weights too); a paper's secondary theme is taught only from the training folds.

`text` says what a paper's text is: the abstract alone (what `make corpus` has for a paper it could not
identify) or the title and the abstract (what it has once identification found the title). Nothing else of
a paper's row (system name, hardware, contribution type) is used: at suggestion time those are themselves
guesses, or a reviewer's labels.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression, RidgeClassifier, SGDClassifier  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from sklearn.naive_bayes import ComplementNB  # noqa: E402
from sklearn.pipeline import make_union  # noqa: E402
from sklearn.preprocessing import normalize  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from analysis.data import corpus  # noqa: E402


def load() -> pd.DataFrame:
    pp = pd.read_csv(ROOT / "data" / "papers.csv")
    text = {p.fingerprint: p.text for p in corpus.load_corpus()}
    pp = pp[pp["fingerprint"].isin(text)].sort_values("citekey").reset_index(drop=True)
    pp["abstract"] = pp["fingerprint"].map(text)
    pp["secondary_theme"] = pp["secondary_theme"].fillna("")
    return pp


def words(ngram=(1, 2), min_df=1, sublinear=True):
    return TfidfVectorizer(sublinear_tf=sublinear, stop_words="english", ngram_range=ngram, min_df=min_df)


def chars(ngram=(3, 5), min_df=2):
    return TfidfVectorizer(sublinear_tf=True, analyzer="char_wb", ngram_range=ngram, min_df=min_df)


def softmax(d):
    d = d - d.max(axis=1, keepdims=True)
    e = np.exp(d)
    return e / e.sum(axis=1, keepdims=True)


class Model:
    """features (a vectorizer factory) + a classifier factory; `.fit_proba` returns (classes, proba)."""

    def __init__(self, feats: Callable, clf: Callable, kind: str = "proba"):
        self.feats, self.clf, self.kind = feats, clf, kind

    def fit_proba(self, x, y, w, xt):
        vec = self.feats()
        a = vec.fit_transform(x)
        at = vec.transform(xt)
        if self.kind == "knn":
            return knn(a, np.array(y), w, at, self.clf)
        c = self.clf()
        try:
            c.fit(a, y, sample_weight=w)
        except TypeError:
            c.fit(a, y)
        if hasattr(c, "predict_proba") and self.kind == "proba":
            return list(c.classes_), c.predict_proba(at)
        return list(c.classes_), softmax(c.decision_function(at) * 10)


def knn(a, y, w, at, k):
    a, at = normalize(a), normalize(at)
    sim = (at @ a.T).toarray()
    classes = sorted(set(y))
    out = np.zeros((at.shape[0], len(classes)))
    for r, row in enumerate(sim):
        for j in np.argsort(-row)[:k]:
            out[r, classes.index(y[j])] += row[j] * w[j]
    return classes, out / np.maximum(out.sum(axis=1, keepdims=True), 1e-12)


class Ensemble:
    def __init__(self, *members, weights=None):
        self.members, self.weights = members, weights or [1.0] * len(members)

    def fit_proba(self, x, y, w, xt):
        total, classes = None, None
        for m, wt in zip(self.members, self.weights, strict=True):
            cl, p = m.fit_proba(x, y, w, xt)
            classes = classes or cl
            assert cl == classes
            total = wt * p if total is None else total + wt * p
        return classes, total / sum(self.weights)


def lr(c=30.0, balanced=True):
    return lambda: LogisticRegression(C=c, max_iter=3000, class_weight="balanced" if balanced else None)


BASE_FEATS = lambda: make_union(words(), chars())  # noqa: E731

CANDIDATES: dict[str, object] = {
    "baseline (today)": Model(BASE_FEATS, lr()),
    "LR C=10": Model(BASE_FEATS, lr(10)),
    "LR C=100": Model(BASE_FEATS, lr(100)),
    "LR words only": Model(lambda: words(), lr()),
    "LR chars only": Model(lambda: chars(), lr()),
    "LR words 1-3 + chars 2-6": Model(lambda: make_union(words((1, 3)), chars((2, 6))), lr()),
    "LR words 1 + chars 3-5": Model(lambda: make_union(words((1, 1)), chars()), lr()),
    "SVC calibrated": Model(BASE_FEATS, lambda: CalibratedClassifierCV(LinearSVC(C=1.0, class_weight="balanced"),
                                                                      cv=3)),
    "SVC decision": Model(BASE_FEATS, lambda: LinearSVC(C=1.0, class_weight="balanced"), kind="decision"),
    "SGD mod-huber": Model(BASE_FEATS, lambda: SGDClassifier(loss="modified_huber", alpha=1e-4,
                                                             class_weight="balanced", random_state=0,
                                                             max_iter=2000), kind="decision"),
    "Ridge": Model(BASE_FEATS, lambda: RidgeClassifier(alpha=1.0, class_weight="balanced"), kind="decision"),
    "ComplementNB words": Model(lambda: words(), lambda: ComplementNB(alpha=0.3)),
    "kNN cos k=10 (base feats)": Model(BASE_FEATS, 10, kind="knn"),
    "kNN cos k=10 (words)": Model(lambda: words(), 10, kind="knn"),
}
from sklearn.decomposition import TruncatedSVD  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

CANDIDATES.update({
    "SVC C=0.3": Model(BASE_FEATS, lambda: LinearSVC(C=0.3, class_weight="balanced"), kind="decision"),
    "SVC C=3": Model(BASE_FEATS, lambda: LinearSVC(C=3.0, class_weight="balanced"), kind="decision"),
    "SVC words 1-2 + chars 2-5 min_df 1": Model(lambda: make_union(words(), chars((2, 5), 1)),
                                                lambda: LinearSVC(C=1.0, class_weight="balanced"), kind="decision"),
    "SVC words 1-3 (min_df 1) + chars 3-6": Model(lambda: make_union(words((1, 3)), chars((3, 6))),
                                                  lambda: LinearSVC(C=1.0, class_weight="balanced"),
                                                  kind="decision"),
    "Ridge alpha=0.3": Model(BASE_FEATS, lambda: RidgeClassifier(alpha=0.3, class_weight="balanced"),
                             kind="decision"),
    "Ridge alpha=3": Model(BASE_FEATS, lambda: RidgeClassifier(alpha=3.0, class_weight="balanced"),
                           kind="decision"),
    "LSA 150 + LR": Model(lambda: make_pipeline(BASE_FEATS(), TruncatedSVD(150, random_state=0)), lr(10)),
    "LR liblinear-free saga C=30": Model(BASE_FEATS, lambda: LogisticRegression(C=30.0, solver="saga", max_iter=300,
                                                                                 class_weight="balanced")),
    "ComplementNB words+chars": Model(BASE_FEATS, lambda: ComplementNB(alpha=0.3)),
    "ComplementNB words a=0.1": Model(lambda: words(), lambda: ComplementNB(alpha=0.1)),
    "ComplementNB words a=1": Model(lambda: words(), lambda: ComplementNB(alpha=1.0)),
})
CANDIDATES["SVC + NB"] = Ensemble(CANDIDATES["SVC decision"], CANDIDATES["ComplementNB words"])
CANDIDATES["Ridge + NB"] = Ensemble(CANDIDATES["Ridge"], CANDIDATES["ComplementNB words"])
CANDIDATES["SVC + Ridge + NB + kNN"] = Ensemble(CANDIDATES["SVC decision"], CANDIDATES["Ridge"],
                                                CANDIDATES["ComplementNB words"],
                                                CANDIDATES["kNN cos k=10 (base feats)"])
CANDIDATES["LR + ComplementNB"] = Ensemble(CANDIDATES["baseline (today)"], CANDIDATES["ComplementNB words"])
CANDIDATES["LR + SVC + NB"] = Ensemble(CANDIDATES["baseline (today)"], CANDIDATES["SVC decision"],
                                       CANDIDATES["ComplementNB words"])
CANDIDATES["LR + kNN"] = Ensemble(CANDIDATES["baseline (today)"], CANDIDATES["kNN cos k=10 (base feats)"])
CANDIDATES["LR + Ridge + NB + kNN"] = Ensemble(CANDIDATES["baseline (today)"], CANDIDATES["Ridge"],
                                               CANDIDATES["ComplementNB words"],
                                               CANDIDATES["kNN cos k=10 (base feats)"])


def texts_of(pp: pd.DataFrame, mode: str) -> list[str]:
    if mode == "abstract":
        return list(pp["abstract"])
    return [f"{t}. {t}. {a}" if mode == "title x2" else f"{t}. {a}"
            for t, a in zip(pp["title"].fillna(""), pp["abstract"], strict=True)]


def run(model, pp: pd.DataFrame, x: list[str], seed: int, sec_weight: float, folds: int = 5,
        x_test: list[str] | None = None, scopes: dict[str, str] | None = None):
    y = list(pp["theme"])
    sec = list(pp["secondary_theme"])
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    top1 = top2 = either = loose = 0
    pairs: Counter = Counter()
    for tr, te in cv.split(x, y):
        xs, ys, ws = [x[i] for i in tr], [y[i] for i in tr], [1.0] * len(tr)
        if sec_weight > 0:
            for i in tr:
                if sec[i]:
                    xs.append(x[i])
                    ys.append(sec[i])
                    ws.append(sec_weight)
        for theme, text in (scopes or {}).items():
            xs.append(text)
            ys.append(theme)
            ws.append(SCOPE_WEIGHT)
        classes, proba = model.fit_proba(xs, ys, np.array(ws), [(x_test or x)[i] for i in te])
        for row, i in zip(proba, te, strict=True):
            order = np.argsort(-row, kind="stable")
            first, second = classes[order[0]], classes[order[1]]
            top1 += first == y[i]
            top2 += y[i] in (first, second)
            either += first in (y[i], sec[i])
            loose += bool({first, second} & ({y[i], sec[i]} - {""}))
            if y[i] not in (first, second):
                pairs[(y[i], first)] += 1
    n = len(y)
    return top1 / n, top2 / n, either / n, loose / n, pairs


SCOPE_WEIGHT = 1.0


def theme_scopes() -> dict[str, str]:
    from analysis.data import classify

    return classify.theme_scopes()


def time_module(pp: pd.DataFrame) -> None:
    from analysis.data import classify

    t0, c0 = time.perf_counter(), time.process_time()
    cv = classify.cross_validate(list(pp["abstract"]), list(pp["theme"]), secondary=list(pp["secondary_theme"]),
                                 scopes=classify.theme_scopes())
    print(f"classify.cross_validate: wall {time.perf_counter() - t0:.1f} s, CPU {time.process_time() - c0:.1f} s; "
          f"top-1 {100 * cv.accuracy:.1f}%, top-2 {100 * cv.top2:.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--text", default="abstract", help="abstract | title | title x2")
    ap.add_argument("--test-text", default="", help="the test papers' text, if not --text's (abstract, title)")
    ap.add_argument("--sec", type=float, default=0.3, help="weight of a secondary theme as an example")
    ap.add_argument("--scopes", action="store_true",
                    help="teach each theme's title and scope in data/themes.yml as one more example of it")
    ap.add_argument("--time-module", action="store_true",
                    help="time analysis.data.classify.cross_validate (the corpus page's run) and stop")
    ap.add_argument("--confusion", action="store_true", help="print the top-2 misses (primary -> suggested)")
    ap.add_argument("--scope-weight", type=float, default=1.0)
    args = ap.parse_args()
    global SCOPE_WEIGHT
    SCOPE_WEIGHT = args.scope_weight
    pp = load()
    if args.time_module:
        return time_module(pp)
    x = texts_of(pp, args.text)
    x_test = texts_of(pp, args.test_text) if args.test_text else None
    names = [n for n in CANDIDATES if not args.only or n in args.only.split(",")]
    print(f"{len(pp)} papers, {pp['theme'].nunique()} themes; text = {args.text} "
          f"(tested on {args.test_text or args.text}); secondary weight {args.sec}; "
          f"5-fold x seeds {args.first_seed}..{args.first_seed + args.seeds - 1}")
    print("| candidate | top-1 mean (min-max) | top-2 mean (min-max) | primary or secondary top-1 "
          "| top-2 has primary or secondary | s per 5-fold, wall (CPU) |")
    print("|---|---|---|---|---:|---:|")
    for name in names:
        res, t0, c0 = [], time.perf_counter(), time.process_time()
        misses: Counter = Counter()
        for s in range(args.first_seed, args.first_seed + args.seeds):
            *r, pairs = run(CANDIDATES[name], pp, x, s, args.sec, x_test=x_test,
                         scopes=theme_scopes() if args.scopes else None)
            res.append(r)
            misses += pairs
        dt, dc = (time.perf_counter() - t0) / args.seeds, (time.process_time() - c0) / args.seeds
        a = np.array(res) * 100
        print(f"| {name} | {a[:, 0].mean():.1f} ({a[:, 0].min():.1f}-{a[:, 0].max():.1f}) | "
              f"{a[:, 1].mean():.1f} ({a[:, 1].min():.1f}-{a[:, 1].max():.1f}) | {a[:, 2].mean():.1f} "
              f"| {a[:, 3].mean():.1f} | {dt:.1f} ({dc:.1f}) |",
              flush=True)
        if args.confusion:
            for (truth, got), k in misses.most_common(12):
                print(f"    {truth} -> {got}: {k} (over {args.seeds} seeds)")


if __name__ == "__main__":
    main()
