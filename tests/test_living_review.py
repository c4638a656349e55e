"""The living review end to end (issue 35): a new seed file, reviewed only in the review files as
docs/adding-papers.md says, ends in a green build and green tests, with no edit outside the review files.

In a copy of the project with a copy of the seed folder plus a new file (two abstracts written for this test,
an exact duplicate and a near duplicate of corpus records): `make corpus`, the review (the near duplicate
merged into its twin), `make accept`, `make book`, then the tests that a new paper used to break
(tests/test_chapters.py, the data and copy checks, the numbers, the corpus) in that copy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SEEDS, digest, make_env

from analysis.data import intake

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

NEW_FILE = "2027-01-15.txt"
# written for this test (no paper says this)
NEW_ABSTRACTS = [
    "We present TileWeave, a compiler pass that fuses attention and its output projection into one GPU "
    "kernel by weaving tiles of the two matrix products through shared memory. On NVIDIA and AMD GPUs "
    "TileWeave runs the fused block 2.7× faster than separate cuBLAS calls and cuts its memory traffic "
    "by 38%, with no change in accuracy.",
    "This paper studies how a fleet of inference servers spends its energy over a week of production "
    "traffic. We measure 96 H100 GPUs and find that idle power accounts for 31% of the energy, and that "
    "consolidating low-traffic models onto fewer servers lowers the energy per request by 1.6× at the "
    "same tail latency.",
]


def _seed_folder(tmp: Path) -> tuple[Path, str]:
    """A copy of the seeds plus the new file; returns it and the citekey the near duplicate's twin has."""
    seeds = tmp / "seeds"
    shutil.copytree(SEEDS, seeds)
    for p in seeds.iterdir():
        p.chmod(0o644)
    first = sorted(seeds.glob("*.txt"))[0]
    paras = re.split(r"\n[ \t]*\n", first.read_text(encoding="utf-8").strip("\n"))
    exact, twin = paras[1], paras[2]
    words = twin.split()
    # another version: the last sentence reworded, a few words changed (5-shingle Jaccard stays above 0.3)
    near = " ".join(words[: int(len(words) * 0.8)]) + " An extended version adds experiments on a second cluster."
    (seeds / NEW_FILE).write_text("Daily Papers\n\n" + "\n\n".join([*NEW_ABSTRACTS, exact, near]) + "\n",
                                  encoding="utf-8")
    return seeds, f"{first.name}#2"


def _review(review: Path, table_keys: set[str]) -> None:
    """What a maintainer does, in the review files only (docs/adding-papers.md, step 5)."""
    header, papers = intake.read_table(review / intake.PAPERS_FILE)
    merged = set()
    for n, row in enumerate(papers, 1):
        if row["similar_to"] in table_keys:
            row["review"] = "merge"
            row["version_notes"] = (row["version_notes"] + " " if row["version_notes"] else "") + \
                f"A later version ({row['source_records']}) rewords the end of the abstract."
            merged.add(row["citekey"])
            continue
        row.update({"review": "accept", "title": f"A living-review test paper {n}",
                    "authors": "Tester, Ada and Probe, Bo", "year": "2027", "arxiv_id": f"2701.{90000 + n}",
                    "url": f"https://arxiv.org/abs/2701.{90000 + n}",
                    "confirmed_url": f"https://arxiv.org/abs/2701.{90000 + n}", "subtopic": "living review test",
                    "summary": "Written for the end-to-end test of the living review; no real paper is meant.",
                    "headline": "a test paper"})
    intake.write_table(review / intake.PAPERS_FILE, header, papers)
    header, claims = intake.read_table(review / intake.CLAIMS_FILE)
    seen: set[str] = set()
    for c in claims:
        c["review"] = "reject" if c["citekey"] in seen | merged else "accept"
        seen.add(c["citekey"])
    intake.write_table(review / intake.CLAIMS_FILE, header, claims)
    assert merged, "the near duplicate was scaffolded with its twin in similar_to"


def _run(cwd: Path, *args: str, seeds: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=3600,
                          env=make_env(SEEDS_DIR=str(seeds)))
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_a_new_seed_file_ends_in_a_green_build(scratch: Path, tmp_path: Path):
    if not SEEDS.is_dir():
        pytest.skip(f"no seed corpus at {SEEDS}")
    seeds, twin_ref = _seed_folder(tmp_path)
    sources = digest(scratch, skip=("_build", ".venv", "references.bib"))
    out = _run(scratch, "make", "--no-print-directory", "corpus", f"SEEDS={seeds}", seeds=seeds).stdout
    assert "2 new paper(s)" not in out  # the near duplicate is a new text too: three scaffold rows
    table_keys = {r["citekey"] for r in intake.read_table(scratch / "data" / "papers.csv")[1]}
    _review(scratch / "_build" / "corpus", table_keys)
    _run(scratch, "make", "--no-print-directory", "accept", f"SEEDS={seeds}", seeds=seeds)
    after = digest(scratch, skip=("_build", ".venv", "references.bib"))
    edited = sorted(k for k in set(sources) | set(after) if sources.get(k) != after.get(k)
                    and "__pycache__" not in k and not k.startswith((".build.lock", ".pytest_cache")))
    assert edited == ["data/claims.csv", "data/papers.csv"], edited  # make accept's own writes, nothing else
    papers = intake.read_table(scratch / "data" / "papers.csv")[1]
    twin = next(r for r in papers if twin_ref in r["source_records"].split(";"))
    assert f"{NEW_FILE}#4" in twin["source_records"] and "later version" in twin["version_notes"]
    _run(scratch, "make", "--no-print-directory", "book", f"SEEDS={seeds}", seeds=seeds)
    staged = scratch / "_build" / "book" / "outputs"
    boxes = "".join(p.read_text(encoding="utf-8") for p in staged.glob("papers-*.md"))
    assert boxes.count(intake.NEW_SECTION) >= 1 and "a test paper" in boxes
    changes = (staged / "changes.md").read_text(encoding="utf-8")
    assert "Papers added (2)" in changes
    # this file holds the two test abstracts, which are seed text in this run: the copy check would name it
    (scratch / "tests" / "test_living_review.py").unlink()
    _run(scratch, sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0", "-m", "not slow",
         "tests/test_chapters.py", "tests/test_data.py", "tests/test_numbers.py", "tests/test_corpus.py",
         "tests/test_release.py", seeds=seeds)
    verbatim = Path(os.environ.get("VERBATIM_CHECK", SEEDS.parent / "tools" / "verbatim_check.py"))
    if verbatim.is_file():
        _run(scratch, sys.executable, str(verbatim), "--seeds", str(seeds), seeds=seeds)
