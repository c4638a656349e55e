"""Whole-book scale benchmark: `make book` on a corpus N times today's (default 10), in a temporary copy.

    .venv/bin/python bench/book_scale.py [--factor 10] [--baseline] [--keep] [--seeds DIR]

It copies the project's tracked files to a temporary folder (the venv linked in), writes there a
seed folder with N× the papers and a paper table and claim table to match, and times a cold
`make book` on them (talk figures off, as in the tests' scratch builds; they do not depend on the
corpus). With ``--baseline`` it first times the same cold build of an unchanged copy (1×), so the
two figures come from one machine state. Nothing is written to the project except the report
(_build/bench/book-scale.json); the temporary folder is deleted unless ``--keep``.

The synthetic corpus: the real seed files unchanged, plus N-1 variants of every real paper in
3×(N-1) further files (a fifth of the records repeated in a later file, as in the real seeds). A
variant replaces about a third of the words of its abstract by words of other abstracts and changes
its numbers, except inside the evidence snippets of its paper's claims, which it keeps so the
build's evidence check holds; its paper row copies the source row's metadata (citekey with a
suffix, title marked as a variant, fingerprint and seed record of the variant) and its claims copy
the source's claims. The chapters' hand-written prose is unchanged: it cites the real papers only.

Reported: the build time and that of every notebook (from make's log), the weight of the paper
index, bibliography, search page and search index and of the heaviest page (page + the local
files it loads, as tests/test_links.py measures), and the memory peak of the largest process.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from analysis.data import corpus  # noqa: E402
from analysis.data.claims import _squash  # noqa: E402

REPEAT_SHARE = 0.2
FILES_PER_FACTOR = 3
PAGES = {
    "paper index": "notebooks/paper-index.html",
    "bibliography": "chapters/bibliography.html",
    "search page": "search.html",
}


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        r = csv.DictReader(f)
        return list(r.fieldnames or []), list(r)


def _write(path: Path, cols: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def variant(text: str, keep: list[str], vocab: list[str], rng: random.Random) -> str:
    """`text` with a third of its words replaced and its numbers changed, outside the spans `keep`."""
    frozen = [False] * len(text)
    for span in keep:
        at = text.find(span)
        if at >= 0:
            frozen[at:at + len(span)] = [True] * len(span)
    out, last = [], 0
    for m in re.finditer(r"\S+", text):
        out.append(text[last:m.start()])
        word = m.group()
        if not any(frozen[m.start():m.end()]):
            if rng.random() < 0.33:
                word = rng.choice(vocab)
            word = re.sub(r"\d+(?:\.\d+)?", lambda _: f"{rng.uniform(1, 100):.1f}", word)
        out.append(word)
        last = m.end()
    return "".join(out) + text[last:]


def synthesize(project: Path, seeds: Path, factor: int, rng: random.Random) -> dict[str, int]:
    """Write the N× seeds to project/_seeds and the matching paper and claim rows to project/data."""
    cols_p, papers = _read(project / "data" / "papers.csv")
    cols_c, claims = _read(project / "data" / "claims.csv")
    real = {p.fingerprint: p.text for p in corpus.load_corpus(seeds)}
    by_paper: dict[str, list[dict[str, str]]] = {}
    for c in claims:
        by_paper.setdefault(c["citekey"], []).append(c)
    vocab = [w for t in real.values() for w in t.split() if not re.search(r"\d", w)]
    out = project / "_seeds"
    shutil.copytree(seeds, out)
    n_files = FILES_PER_FACTOR * (factor - 1)
    files: list[list[str]] = [[] for _ in range(n_files)]
    new_papers, new_claims, seen = [], [], set(real)
    for k in range(1, factor):
        for row in papers:
            text = real[row["fingerprint"]]
            mine = by_paper.get(row["citekey"], [])
            text = corpus.normalise(variant(text, [_squash(c["evidence"]) for c in mine], vocab, rng))
            fp = corpus.fingerprint(text)
            if fp in seen:
                continue
            seen.add(fp)
            f = rng.randrange(n_files)
            files[f].append(text)
            records = [f"{f:03d}_synthetic.txt#{len(files[f])}"]
            if rng.random() < REPEAT_SHARE and f + 1 < n_files:
                g = rng.randrange(f + 1, n_files)
                files[g].append(text)
                records.append(f"{g:03d}_synthetic.txt#{len(files[g])}")
            key = f"{row['citekey']}v{k}"
            new_papers.append({**row, "citekey": key, "title": f"{row['title']} (synthetic variant {k})",
                               "fingerprint": fp, "source_records": ";".join(records)})
            n = 0
            for c in mine:
                if _squash(c["evidence"]) in text:
                    n += 1
                    new_claims.append({**c, "claim_id": f"{key}-{n}", "citekey": key})
    for f, recs in enumerate(files):
        (out / f"{f:03d}_synthetic.txt").write_text("Daily Papers\n\n" + "\n\n".join(recs) + "\n", encoding="utf-8")
    _write(project / "data" / "papers.csv", cols_p, papers + new_papers)
    _write(project / "data" / "claims.csv", cols_c, claims + new_claims)
    return {"papers": len(papers) + len(new_papers), "claims": len(claims) + len(new_claims),
            "records": sum(len(v) for v in files) + sum(len(corpus.read_records(p)) for p in seeds.glob("*.txt")),
            "seed_files": len(list(out.glob("*.txt")))}


def copy_project(dst: Path) -> None:
    """The tracked files of the checkout, with its venv linked in (as the tests' scratch copies)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    (dst / ".venv").symlink_to(ROOT / ".venv")


def build(project: Path, seeds: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    t0 = time.perf_counter()
    proc = subprocess.run(["make", "--no-print-directory", "book", f"SEEDS={seeds}"], cwd=project, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    (project / "_build").mkdir(exist_ok=True)
    (project / "_build" / "bench-make.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode:
        raise SystemExit(f"make book failed in {project} after {seconds:.0f} s:\n{(proc.stdout + proc.stderr)[-4000:]}")
    notebooks = {Path(m.group(1)).stem: float(m.group(2))
                 for m in re.finditer(r"^executed (\S+) -> \S+ \(([\d.]+) s\)", proc.stdout, re.M)}
    from test_links import page_weights

    html = project / "_build" / "html"
    weights = dict(page_weights(html))
    heaviest = max(weights, key=weights.__getitem__)
    sizes = {name: {"html_kib": (html / rel).stat().st_size / 1024, "with_assets_kib": weights.get(rel, 0) / 1024}
             for name, rel in PAGES.items() if (html / rel).exists()}
    sizes["search index (searchindex.js)"] = {"html_kib": (html / "searchindex.js").stat().st_size / 1024,
                                              "with_assets_kib": (html / "searchindex.js").stat().st_size / 1024}
    lazy_files = sorted((html / "tables").glob("*.js")) if (html / "tables").is_dir() else []
    lazy_rows = {"files": len(lazy_files), "largest_kib": max((f.stat().st_size for f in lazy_files), default=0) / 1024,
                 "total_kib": sum(f.stat().st_size for f in lazy_files) / 1024}
    return {"build_s": seconds, "notebook_s": notebooks, "pages": sizes, "lazy_rows": lazy_rows,
            "heaviest_page": {"page": heaviest, "kib": weights[heaviest] / 1024},
            "pages_over_3mb": sorted(p for p, b in weights.items() if b >= 3 * 2**20)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--baseline", action="store_true", help="also time the cold build of the unchanged copy (1x)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folders")
    ap.add_argument("--seeds", type=Path, default=corpus.seeds_dir())
    ap.add_argument("--out", type=Path, default=ROOT / "_build" / "bench" / "book-scale.json")
    args = ap.parse_args()
    report: dict[str, object] = {"factor": args.factor, "cores": os.cpu_count(),
                                 "date": time.strftime("%Y-%m-%d")}
    tmp = Path(tempfile.mkdtemp(prefix="book-scale-"))
    try:
        if args.baseline:
            base = tmp / "base"
            copy_project(base)
            report["baseline"] = build(base, args.seeds)
            print(f"1x cold build: {report['baseline']['build_s']:.0f} s")  # type: ignore[index]
        big = tmp / "big"
        copy_project(big)
        report["corpus"] = synthesize(big, args.seeds, args.factor, random.Random(args.factor))
        print(f"{args.factor}x corpus: {report['corpus']}")
        report["scaled"] = build(big, big / "_seeds")
        report["peak_rss_mib_largest_process"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept: {tmp}")
    scaled = report["scaled"]
    print(f"{args.factor}x cold build: {scaled['build_s']:.0f} s")  # type: ignore[index]
    if "baseline" in report:
        base = report["baseline"]
        print(f"ratio: {scaled['build_s'] / base['build_s']:.2f} (target <= 3)")  # type: ignore[index]
        growth = {n: (s, s / base["notebook_s"][n]) for n, s in scaled["notebook_s"].items()  # type: ignore[index]
                  if base["notebook_s"].get(n)}  # type: ignore[index]
        report["notebook_growth"] = growth
        top = sorted(growth.items(), key=lambda x: -x[1][1])[:8]
        print("notebooks that grew most (time at Nx, ratio to 1x):",
              ", ".join(f"{n} {s:.0f} s x{r:.1f}" for n, (s, r) in top))
        for name, s in base["pages"].items():  # type: ignore[index]
            print(f"1x {name:29} {s['html_kib']:8.0f} KiB html, {s['with_assets_kib']:8.0f} KiB with what it loads")
    for name, s in scaled["pages"].items():  # type: ignore[index]
        print(f"{name:32} {s['html_kib']:8.0f} KiB html, {s['with_assets_kib']:8.0f} KiB with what it loads")
    print(f"rows the explorer and ledger load after the page: {scaled['lazy_rows']}")  # type: ignore[index]
    print(f"heaviest page: {scaled['heaviest_page']}; over 3 MB: {scaled['pages_over_3mb']}")  # type: ignore[index]
    print(f"memory peak of the largest process: {report['peak_rss_mib_largest_process']:.0f} MiB")
    slow = sorted(scaled["notebook_s"].items(), key=lambda x: -x[1])[:8]  # type: ignore[index]
    print("slowest notebooks:", ", ".join(f"{n} {s:.0f} s" for n, s in slow))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
