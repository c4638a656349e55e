"""Scale benchmark of the corpus intake: the seed corpus made N times larger (default 10).

    .venv/bin/python bench/intake_scale.py [--factor 10] [--steps 1,2,5,10] [--seeds DIR]

For each factor f it writes, in a temporary folder (deleted afterwards, never committed), a seed
folder with f× the papers of the real one: every real abstract once, plus f-1 synthetic variants
of it. A variant shuffles the abstract's sentences, replaces about a third of its words by words
of other abstracts and changes its numbers, so it is a distinct paper (5-word-shingle Jaccard
with its source far below 0.3); 5% of the variants instead change only three words, planted near
duplicates that detection must find. About a fifth of the records are repeated in a later file,
as in the real seeds. A variant is labelled with its source paper's theme.

It times, on that folder: ingest (reading and merging the records), the near-duplicate detection
(inverted index), the validation's seed-coverage check, the theme classifier (fit, 5-fold
cross-validation, prediction) and the whole `make corpus` plan (scaffold rows, theme suggestions,
claim candidates for every new paper) against the real paper table; and the peak memory. The
pairwise comparison that the index replaced is timed at 1× only (it grows with the square of the
corpus). The figures are printed and written to _build/bench/intake-scale.json.

The classifier's cross-validated accuracy on the synthetic corpus is a by-product, not a quality
figure: variants of one abstract fall into both training and test folds. The book reports the
accuracy on the real papers (chapter "How this review was made").
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.data import classify, corpus, intake  # noqa: E402
from analysis.data.paths import DATA  # noqa: E402

NEAR_SHARE = 0.05
REPEAT_SHARE = 0.2
FILES_PER_FACTOR = 3


def _variant(text: str, vocab: list[str], rng: random.Random, light: bool) -> str:
    words = text.split()
    if light:  # a planted near duplicate: three words changed
        for _ in range(3):
            words[rng.randrange(len(words))] = rng.choice(vocab)
        return " ".join(words)
    sentences = re.split(r"(?<=[.!?])\s+", text)
    rng.shuffle(sentences)
    words = " ".join(sentences).split()
    for i in range(len(words)):
        if rng.random() < 0.33:
            words[i] = rng.choice(vocab)
    out = " ".join(words)
    return re.sub(r"\d+(?:\.\d+)?", lambda m: f"{rng.uniform(1, 100):.1f}", out)


def synthesize(seeds: Path, factor: int, folder: Path,
               rng: random.Random) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Write the f× seed folder; return {fingerprint: theme} of every paper and the planted near-duplicate
    pairs (source, variant) as fingerprints."""
    papers = corpus.load_corpus(seeds)
    _, table = intake.read_table(DATA / "papers.csv")
    theme_of = {r["fingerprint"]: r["theme"] for r in table}
    vocab = [w for p in papers for w in p.text.split()]
    records: list[tuple[str, str]] = []  # (text, theme)
    planted: set[tuple[str, str]] = set()
    for p in papers:
        records.append((p.text, theme_of.get(p.fingerprint, "")))
        for _ in range(factor - 1):
            light = rng.random() < NEAR_SHARE
            text = _variant(p.text, vocab, rng, light)
            if light:
                planted.add((p.fingerprint, corpus.fingerprint(text)))
            records.append((text, theme_of.get(p.fingerprint, "")))
    rng.shuffle(records)
    n_files = FILES_PER_FACTOR * factor
    files: list[list[str]] = [[] for _ in range(n_files)]
    for i, (text, _) in enumerate(records):
        k = i % n_files
        files[k].append(text)
        if rng.random() < REPEAT_SHARE and k + 1 < n_files:
            files[rng.randrange(k + 1, n_files)].append(text)  # an exact duplicate in a later file
    folder.mkdir(parents=True)
    for k, recs in enumerate(files):
        (folder / f"{k:03d}_synthetic.txt").write_text("Daily Papers\n\n" + "\n\n".join(recs) + "\n", encoding="utf-8")
    labels = {corpus.fingerprint(t): th for t, th in records}
    return labels, planted


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def run(seeds: Path, factor: int, rng: random.Random) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="intake-bench-") as tmp:
        folder = Path(tmp) / "seeds"
        labels, planted = synthesize(seeds, factor, folder, rng)
        papers, t_ingest = timed(corpus.load_corpus, folder)
        pairs, t_near = timed(corpus.near_duplicates, papers)
        found = {frozenset((a, b)) for a, b, _ in pairs}
        recall = sum(frozenset(pp) in found for pp in planted) / max(len(planted), 1)
        _, table = intake.read_table(DATA / "papers.csv")
        rows = [(r["citekey"], r["fingerprint"], r["source_records"]) for r in table]
        _, t_cover = timed(corpus.coverage_problems, rows, papers)
        texts = [p.text for p in papers if labels.get(p.fingerprint)]
        y = [labels[p.fingerprint] for p in papers if labels.get(p.fingerprint)]
        model, t_fit = timed(classify.train, texts, y)
        _, t_predict = timed(classify.suggest, model, texts)
        cv, t_cv = timed(classify.cross_validate, texts, y)
        hardware = intake._hardware_list(DATA)
        up, t_plan = timed(intake.plan, papers, table, hardware, 2026, None, False)
        return {
            "factor": factor, "records": sum(len(p.records) for p in papers), "papers": len(papers),
            "new_papers_scaffolded": len(up.new_papers), "claim_candidates": len(up.claims),
            "planted_near_duplicates": len(planted), "near_duplicate_pairs_found": len(pairs),
            "planted_found_pct": 100 * recall,
            "ingest_s": t_ingest, "near_duplicates_s": t_near, "coverage_check_s": t_cover,
            "classifier_fit_s": t_fit, "classifier_predict_s": t_predict, "classifier_cv_s": t_cv,
            "classifier_cv_accuracy_pct": 100 * cv.accuracy, "make_corpus_plan_s": t_plan,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--steps", default="", help="factors to run, e.g. 1,2,5,10 (default: 1 and --factor)")
    ap.add_argument("--seeds", type=Path, default=corpus.seeds_dir())
    ap.add_argument("--out", type=Path, default=ROOT / "_build" / "bench" / "intake-scale.json")
    args = ap.parse_args()
    steps = [int(s) for s in args.steps.split(",")] if args.steps else sorted({1, args.factor})
    classify.train(["warm up a", "warm up b"], ["a", "b"])  # imports scikit-learn outside the timings
    real = corpus.load_corpus(args.seeds)
    sh = [corpus._shingles(p.text) for p in real]
    t0 = time.perf_counter()
    for i in range(len(sh)):  # the pairwise comparison the index replaced, at 1x
        for j in range(i + 1, len(sh)):
            len(sh[i] & sh[j]) / len(sh[i] | sh[j])
    pairwise_1x = time.perf_counter() - t0
    results = [run(args.seeds, f, random.Random(f)) for f in steps]
    cols = ["factor", "records", "papers", "ingest_s", "near_duplicates_s", "coverage_check_s",
            "classifier_fit_s", "classifier_cv_s", "classifier_predict_s", "make_corpus_plan_s",
            "near_duplicate_pairs_found", "planted_near_duplicates", "planted_found_pct",
            "classifier_cv_accuracy_pct", "peak_rss_mb"]
    print(" ".join(f"{c:>14}" for c in cols))
    for r in results:
        print(" ".join(f"{r[c]:>14.2f}" if isinstance(r[c], float) else f"{r[c]:>14}" for c in cols))
    print(f"pairwise near-duplicate comparison (replaced) at 1x: {pairwise_1x:.2f} s; it grows with the square "
          f"of the corpus (~{pairwise_1x * max(steps) ** 2:.0f} s at {max(steps)}x)")
    if len(results) > 1:
        a, b = results[0], results[-1]
        ratio = b["papers"] / a["papers"]
        for key in ("ingest_s", "near_duplicates_s"):
            print(f"{key}: x{b[key] / max(a[key], 1e-9):.1f} for x{ratio:.1f} papers")
    for r in results:
        if r["new_papers_scaffolded"]:
            per = 1000 * r["make_corpus_plan_s"] / r["new_papers_scaffolded"]
            print(f"make corpus plan at {r['factor']}x: {per:.1f} ms per new paper "
                  f"({r['new_papers_scaffolded']} scaffolded, {r['claim_candidates']} claim candidates)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"pairwise_1x_s": pairwise_1x, "runs": results}, indent=1) + "\n")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
