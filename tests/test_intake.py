"""Adding papers: a new seed file goes through validation, `make corpus`, review and `make accept`.

Everything runs on copies (the seed folder and data/ in a temporary folder); the real data/ is
never written. Counts are derived from the seed files and the paper table, never written down.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

from analysis.data import claim_candidates, corpus, identify, intake, transaction
from analysis.data.claims import METRICS, QUALIFIERS, UNITS
from analysis.data.paths import DataError

NEW_FILE = "zz9_added.txt"
# Three abstracts written for this test (not from any paper), then a copy of an existing record.
NEW_ABSTRACTS = [
    "We present KiloServe, a scheduler for serving large language models that splits prefill and decode "
    "across separate GPU pools and moves the KV cache between them over NVLink. On a cluster of 64 H100 GPUs, "
    "KiloServe raises goodput by up to 3.1× over vLLM and cuts the 99th-percentile time to first token by 42% "
    "at the same request rate, while keeping per-token latency under 50 ms.",
    "This paper studies post-training quantization of transformer weights to 4-bit integers with a "
    "per-channel scale found by a small search. Our method, QuadQuant, keeps perplexity within 0.3 points of "
    "the FP16 model for 7B and 70B parameter models and reduces weight memory by 3.8×, so a 70B model fits on "
    "a single 80 GB A100.",
    "We measure the energy used to train a family of vision transformers on 512 TPU v4 chips and find that "
    "data-loading stalls waste 18% of the accelerator time. Overlapping input processing with compute "
    "reduces the training energy by 1.4× and the total run from 9 days to 6.5 days, saving about 23 MWh per "
    "run.",
]


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def _rows(path: Path) -> list[dict[str, str]]:
    return intake.read_table(path)[1]


def _write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    intake.write_table(path, list(rows[0].keys()), rows)


@pytest.fixture(autouse=True)
def _data_owners() -> None:
    """accept validates the merged copy in this process: the packages owning data files registered, as the
    command line registers them."""
    from analysis.book.cli import data_owners
    from analysis.data import validate

    validate.use_owners(data_owners())


@pytest.fixture
def world(tmp_path: Path, seeds: Path) -> dict[str, Path]:
    """Copies of the seed folder (plus a new file: three new records and one exact duplicate) and of data/."""
    seed_copy = tmp_path / "seeds"
    shutil.copytree(seeds, seed_copy)
    for p in seed_copy.iterdir():
        p.chmod(0o644)
    first_file = sorted(seed_copy.glob("*.txt"))[0]
    duplicate = re.split(r"\n[ \t]*\n", first_file.read_text(encoding="utf-8").strip("\n"))[1]
    (seed_copy / NEW_FILE).write_text("Daily Papers\n\n" + "\n\n".join([*NEW_ABSTRACTS, duplicate]) + "\n",
                                      encoding="utf-8")
    data_copy = tmp_path / "data"
    shutil.copytree(ROOT / "data", data_copy)
    return {"seeds": seed_copy, "data": data_copy, "review": tmp_path / "review",
            "dup_ref": Path(f"{first_file.name}#1")}


def _env(world: dict[str, Path]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "ANALYSIS_READS_FILE"}
    env.update({"ANALYSIS_DATA_DIR": str(world["data"]), "SEEDS_DIR": str(world["seeds"]), "PYTHONPATH": str(ROOT)})
    return env


def _validate(world: dict[str, Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "analysis", "validate"], cwd=ROOT, env=_env(world),
                          capture_output=True, text=True, timeout=300)


def _review_as_a_person(world: dict[str, Path]) -> list[dict[str, str]]:
    """Complete the scaffold rows the way a reviewer would and accept them; keep one claim per paper."""
    review = world["review"]
    papers = _rows(review / intake.PAPERS_FILE)
    for n, row in enumerate(papers, 1):
        row.update({
            "review": "accept", "title": f"A test paper number {n}", "authors": "Tester, Ada and Probe, Bo",
            "year": "2025", "arxiv_id": f"2501.{90000 + n}", "url": f"https://arxiv.org/abs/2501.{90000 + n}",
            "confirmed_url": f"https://arxiv.org/abs/2501.{90000 + n}", "subtopic": "test intake",
            "summary": "A paper written for the intake test; its summary is long enough for the schema.",
            "headline": "test headline",
        })
    _write_rows(review / intake.PAPERS_FILE, papers)
    claims = _rows(review / intake.CLAIMS_FILE)
    seen: set[str] = set()
    for c in claims:
        c["review"] = "reject" if c["citekey"] in seen else "accept"
        seen.add(c["citekey"])
    _write_rows(review / intake.CLAIMS_FILE, claims)
    return papers


def test_a_new_seed_file_from_validation_to_the_tables(world: dict[str, Path]) -> None:
    table = _rows(world["data"] / "papers.csv")
    dup_key = next(r["citekey"] for r in table if str(world["dup_ref"]) in r["source_records"].split(";"))
    new_refs = [f"{NEW_FILE}#{i}" for i in range(1, len(NEW_ABSTRACTS) + 1)]

    # 1. validation stops, naming each new record (file#n and first words) and what to run next
    proc = _validate(world)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for ref, text in zip(new_refs, NEW_ABSTRACTS, strict=True):
        assert f"{ref}  \"{' '.join(text.split()[:5])}" in proc.stderr, proc.stderr
    assert "make corpus" in proc.stderr and "make accept" in proc.stderr
    assert f"{NEW_FILE}#4  " not in proc.stderr  # the duplicate has its paper: only its source list is stale
    assert proc.stderr.count("error:") == 1

    # 2. make corpus's entry point: the duplicate named with its citekey, the rest scaffolded; data/ untouched
    before = _digest(world["data"])
    lines = intake.update(world["seeds"], world["data"], world["review"])
    assert _digest(world["data"]) == before
    text = "\n".join(lines)
    assert f"{NEW_FILE}#4 = {dup_key} (similarity 1.000)" in text
    assert f"{len(NEW_ABSTRACTS)} new paper(s)" in text
    assert re.search(r"theme classifier: the suggestion is right for \d+\.\d% and the suggestion or its runner-up "
                     r"for \d+\.\d% of the \d+ labelled papers \(\d+ themes\) in \d+-fold cross-validation", text)
    records = _rows(world["review"] / intake.RECORDS_FILE)
    assert {r["ref"]: r["status"] for r in records} == {**{r: "new paper" for r in new_refs},
                                                        f"{NEW_FILE}#4": "exact duplicate"}
    scaffold = _rows(world["review"] / intake.PAPERS_FILE)
    themes = set(re.findall(r"^  - id: (\S+)", (world["data"] / "themes.yml").read_text(), re.M))
    assert [r["source_records"] for r in scaffold] == new_refs
    for row in scaffold:
        assert row["review"] == "unreviewed"
        assert row["theme"] in themes and 0 < float(row["theme_confidence"]) <= 1
        assert re.fullmatch(r"[a-z][a-z0-9]*", row["citekey"]) and row["citekey"] not in {r["citekey"] for r in table}
    assert scaffold[0]["system_name"] == "KiloServe" and "H100" in scaffold[0]["hardware"].split(";")
    claims = _rows(world["review"] / intake.CLAIMS_FILE)
    for row, abstract in zip(scaffold, NEW_ABSTRACTS, strict=True):
        mine = [c for c in claims if c["citekey"] == row["citekey"]]
        assert mine, f"no claim candidate for {row['citekey']}"
        assert all(c["review"] == "unreviewed" and c["unit"] in UNITS for c in mine)
        assert all(c["evidence"] in corpus.normalise(abstract) for c in mine)
    # the codebook's typed fields follow the ledger's columns in the review file (accept keeps only the ledger's)
    assert set(claim_candidates.TYPED_FIELDS) <= set(claims[0])  # the codebook's fields, proposed for review
    first = {(c["value"], c["unit"], c["qualifier"]) for c in claims if c["citekey"] == scaffold[0]["citekey"]}
    assert {("3.1", "x", "up to"), ("64", "GPUs", "exact"), ("42", "%", "exact")} <= first
    assert _rows(world["review"] / intake.SOURCES_FILE)[0]["citekey"] == dup_key

    # 3. a person reviews and accepts; the merge is validated like any data
    accepted = _review_as_a_person(world)
    out = intake.accept(world["review"], world["data"], world["seeds"])
    assert (f"accepted {len(accepted)} paper row(s), 0 version(s) merged into their paper and "
            f"{len(accepted)} claim(s)") in out[0]
    after = _rows(world["data"] / "papers.csv")
    assert len(after) == len(table) + len(accepted)
    assert next(r for r in after if r["citekey"] == dup_key)["source_records"].endswith(f";{NEW_FILE}#4")
    assert _rows(world["review"] / intake.PAPERS_FILE) == []
    rows = [(r["citekey"], r["fingerprint"], r["source_records"]) for r in after]
    assert corpus.check_coverage(rows, world["seeds"]).startswith("all ")

    # 4. the new papers are in the paper index (the explorer) and in their chapter's table
    code = ("import json\nfrom analysis.themes import paper_table as t\n"
            f"keys = {json.dumps([r['citekey'] for r in accepted])}\n"
            f"themes = {json.dumps([r['theme'] for r in accepted])}\n"
            "index = set(t.index_table()['citekey'])\n"
            "print(json.dumps([[k in index, f'`{k}`' in t.chapter_table_markdown(th, {})]\n"
            "                  for k, th in zip(keys, themes)]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(world), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[True, True]] * len(accepted)


def test_accept_refuses_incomplete_rows_naming_the_review_file(world: dict[str, Path]) -> None:
    intake.update(world["seeds"], world["data"], world["review"], year=2025)
    papers = _rows(world["review"] / intake.PAPERS_FILE)
    papers[1]["review"] = "accept"  # nothing filled in: subtopic and summary are missing
    _write_rows(world["review"] / intake.PAPERS_FILE, papers)
    before = _digest(world["data"])
    with pytest.raises(DataError) as exc:
        intake.accept(world["review"], world["data"], world["seeds"])
    msg = str(exc.value)
    assert f"{world['review'] / intake.PAPERS_FILE}: row 3, column subtopic" in msg
    assert "nothing was changed" in msg
    assert _digest(world["data"]) == before


def test_accept_refuses_an_unknown_review_mark(world: dict[str, Path]) -> None:
    intake.update(world["seeds"], world["data"], world["review"], year=2025)
    claims = _rows(world["review"] / intake.CLAIMS_FILE)
    claims[0]["review"] = "yes"
    _write_rows(world["review"] / intake.CLAIMS_FILE, claims)
    with pytest.raises(ValueError, match=r"row 2, column review: 'yes'"):
        intake.accept(world["review"], world["data"], world["seeds"])


def test_a_second_update_keeps_rows_already_marked(world: dict[str, Path]) -> None:
    intake.update(world["seeds"], world["data"], world["review"], year=2025)
    papers = _rows(world["review"] / intake.PAPERS_FILE)
    papers[0].update({"review": "accept", "subtopic": "kept by the reviewer"})
    _write_rows(world["review"] / intake.PAPERS_FILE, papers)
    lines = intake.update(world["seeds"], world["data"], world["review"], year=2025)
    assert any("1 scaffold row(s) already marked" in line for line in lines)
    assert _rows(world["review"] / intake.PAPERS_FILE)[0]["subtopic"] == "kept by the reviewer"


def test_the_seed_folder_is_a_prerequisite_of_validation(world: dict[str, Path]) -> None:
    """make's database: the validation stamp depends on the listing of the seed folder (a stamp checked on every
    build, analysis/data/corpus.py seeds_listing), not on file names make would split at spaces (SEEDS=...)."""
    flag = world["seeds"].parent / "expanded"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    proc = subprocess.run(["make", "--no-print-directory", "-p", "-q", "-n", f"SEEDS={world['seeds']}", "validate"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    rule = next(line for line in proc.stdout.splitlines()
                if line.startswith("_build/validated:") and ".venv/.installed" in line)
    assert "_build/seeds-listing" in rule.split() and str(world["seeds"] / NEW_FILE) not in rule
    listing = [line.split() for line in proc.stdout.splitlines() if line.startswith("_build/seeds-listing:")]
    assert any("FORCE" in words for words in listing), listing
    # the value is data: a make function in it is not run
    subprocess.run(["make", "--no-print-directory", "-p", "-q", "-n", f"SEEDS=$(shell touch {flag})", "validate"],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert not flag.exists()


# ---------------------------------------------------------------- parts

def test_near_duplicates_match_the_pairwise_comparison(seeds: Path) -> None:
    """The inverted index finds exactly the pairs that comparing every pair finds (on perturbed copies)."""
    import random

    rng = random.Random(1)
    texts = [p.text for p in corpus.load_corpus(seeds)][:60]
    for t in list(texts[:30]):
        words = t.split()
        for _ in range(rng.randint(2, 30)):
            words[rng.randrange(len(words))] = rng.choice(["alpha", "beta", "gamma"])
        texts.append(" ".join(words))
    brute = []
    sh = [corpus._shingles(t) for t in texts]
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            jac = len(sh[i] & sh[j]) / len(sh[i] | sh[j])
            if jac >= 0.3:
                brute.append((i, j, round(jac, 3)))
    assert corpus.jaccard_pairs(texts) == brute
    assert len(brute) >= 20


def test_claim_candidates_carry_units_and_evidence_from_the_text() -> None:
    text = corpus.normalise("Our kernel is 1.5-2.0times faster than cuBLAS, uses sim ! 600times fewer GPU days, "
                            "reaches 45.2% MFU on 1,024 A100 GPUs and serves 1200 tokens/s at about 35 ms.")
    got = [(c.metric, c.value, c.low, c.high, c.unit, c.qualifier) for c in claim_candidates.extract(text)]
    assert got == [
        ("speedup", None, 1.5, 2.0, "x", "range"),
        ("reduction", 600.0, None, None, "x", "about"),
        ("utilization", 45.2, None, None, "%", "exact"),
        ("gpu_count", 1024.0, None, None, "GPUs", "exact"),
        ("throughput", 1200.0, None, None, "tokens/s", "exact"),
        ("latency", 35.0, None, None, "ms", "about"),
    ]
    for c in claim_candidates.extract(text):
        assert c.evidence in text and len(c.evidence.split()) <= 12
        assert c.metric in METRICS and c.qualifier in QUALIFIERS
    # the comparison candidates carry the codebook's fields for the reviewer to check: a range, and "600times
    # fewer" (no aggregate stated); the baseline is left for the reviewer to code
    typed = [(c.statistic, c.bound, c.baseline_class) for c in claim_candidates.extract(text) if c.comparison]
    assert typed == [("range", "", "unstated"), ("single", "", "unstated")]
    assert all(not c.statistic for c in claim_candidates.extract(text) if not c.comparison)


def test_classifier_cross_validation_is_reproducible() -> None:
    from analysis.data import classify

    texts = [f"kernel fusion gpu memory bandwidth {i}" for i in range(10)] + \
            [f"carbon emissions energy grid {i}" for i in range(10)]
    labels = ["kernels"] * 10 + ["carbon"] * 10
    a, b = classify.cross_validate(texts, labels), classify.cross_validate(texts, labels)
    assert a == b and a.accuracy == 1.0 and a.folds == 5
    model = classify.train(texts, labels)
    s = classify.suggest(model, ["energy and carbon of a training run"])[0]
    assert s.theme == "carbon" and 0.5 < s.confidence <= 1 and s.runner_up == "kernels"


def test_classifier_scores_misses_and_memo_agree() -> None:
    """Three themes, one of which (c) shares its words with a and b: the scores rank the themes as the margins
    do and sum to 1; the misses count exactly the papers whose theme is not in the top two; remembering the
    n-grams between fits changes nothing."""
    from analysis.data import classify

    words = {"a": "kernel fusion gpu memory bandwidth", "b": "carbon emissions energy grid power",
             "c": "kernel energy fusion power grid"}
    texts = [f"{words[t]} {t}{i} {i}" for t in "abc" for i in range(6)]
    labels = [t for t in "abc" for _ in range(6)]
    model = classify.train(texts, labels)
    probe = ["gpu kernel fusion", "grid carbon energy", "power kernel"]
    s = classify.scores(model, probe)
    assert np.allclose(s.sum(axis=1), 1) and (np.argsort(-s, axis=1) == np.argsort(-model.decision_function(probe),
                                                                                    axis=1)).all()
    memo = classify.analysers()
    again = classify.train(texts, labels, memo=memo)
    assert classify.suggest(again, probe) == classify.suggest(model, probe)
    cv = classify.cross_validate(texts, labels, folds=3, secondary=["c"] * 6 + [""] * 12)
    n_missed = sum(c for _, _, c in cv.misses)
    assert n_missed == round((1 - cv.top2) * len(texts)) and all(t != s for t, s, _ in cv.misses)
    assert cv.accuracy <= cv.either and cv.accuracy <= cv.top2 and cv.folds == 3


def test_theme_scopes_are_the_taxonomy(tmp_path: Path) -> None:
    """One text per theme of data/themes.yml (title and scope), read by the taxonomy's loader; a folder without
    themes.yml is refused, naming the file; a scope of a theme the labels lack is not taught (the model's themes
    stay the labels' themes)."""
    from analysis.data import classify, papers

    scopes = classify.theme_scopes()
    th = papers.themes()
    assert list(scopes) == list(th["id"]) and all(str(t) in scopes[i] for i, t in zip(th["id"], th["title"],
                                                                                       strict=True))
    with pytest.raises(DataError, match=re.escape(str(tmp_path / "themes.yml")) + ": data file not found"):
        classify.theme_scopes(tmp_path)
    texts = [f"kernel fusion gpu {i}" for i in range(4)] + [f"carbon energy grid {i}" for i in range(4)]
    model = classify.train(texts, ["k"] * 4 + ["c"] * 4, scopes={"k": "fused kernels", "z": "another theme"})
    assert sorted(model.classes_) == ["c", "k"]


STAGED_SCOPE = "Zqxw staged scope, present only in the staging copy"


def _staged_taxonomy(tmp_path: Path, old: str, new: str) -> Path:
    """A staging copy of data/themes.yml with `old` replaced by `new` (once; `old` must occur)."""
    staging = tmp_path / "staging"
    staging.mkdir()
    text = (ROOT / "data" / "themes.yml").read_text(encoding="utf-8")
    assert old in text
    (staging / "themes.yml").write_text(text.replace(old, new, 1), encoding="utf-8")
    return staging


def test_a_staging_folders_taxonomy_reaches_the_classifier(tmp_path: Path, seeds: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`make corpus` may read a staging copy of data/ (intake.update's data_dir): the scope texts taught to the
    theme classifier are that copy's, read by the one taxonomy loader, never the repository's themes.yml."""
    from analysis.data import classify, papers

    first = str(papers.themes()["scope"].iloc[0])
    staging = _staged_taxonomy(tmp_path, first, STAGED_SCOPE)
    theme = str(papers.themes()["id"].iloc[0])
    assert STAGED_SCOPE in classify.theme_scopes(staging)[theme]
    assert STAGED_SCOPE not in classify.theme_scopes()[theme]  # the default folder is still the repository's
    for name in ("papers.csv", "hardware.csv"):
        shutil.copy(ROOT / "data" / name, staging / name)
    seen: dict[str, dict[str, str]] = {}

    class Planned(Exception):
        pass

    def plan(*args: object, scopes: dict[str, str] | None = None, **kw: object) -> None:
        seen["scopes"] = dict(scopes or {})
        raise Planned

    monkeypatch.setattr(intake, "plan", plan)
    with pytest.raises(Planned):
        intake.update(seeds, data_dir=staging, review=tmp_path / "review")
    assert STAGED_SCOPE in seen["scopes"][theme]


def test_a_staging_folders_malformed_taxonomy_is_named(tmp_path: Path) -> None:
    """The staged copy's themes.yml is validated like data/'s: the error names that file, the theme and the
    field (the schema check is the loader's, in one place)."""
    from analysis.data import classify

    staging = _staged_taxonomy(tmp_path, "    scope: ", "    scop: ")
    with pytest.raises(DataError, match=re.escape(str(staging / "themes.yml")) + r": theme \d+, field scope: missing"):
        classify.theme_scopes(staging)


# ---------------------------------------------------------------- identify (offline, recorded fixture)

FIXTURE = ROOT / "tests" / "fixtures" / "arxiv-api-response.xml"


class _Response:
    status_code = 200

    def __init__(self, content: bytes) -> None:
        self.content = content


def test_identify_parses_and_matches_the_recorded_arxiv_response(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arxiv package parses the fixture (an API response, see its header); the matching picks the entry
    whose abstract is ours and proposes its ID, title, authors and year with a similarity score."""
    import requests

    requested: list[str] = []

    def fake_get(self: object, url: str, **kwargs: object) -> _Response:
        requested.append(url)
        return _Response(FIXTURE.read_bytes())

    monkeypatch.setattr(requests.Session, "get", fake_get)
    ours = ("We present KiloServe, a scheduler for serving large language models that splits prefill and "
            "decode across separate GPU pools. On 64 H100 GPUs it raises goodput by up to 3.1× over vLLM.")
    prop = identify.lookup(ours)
    assert requested and requested[0].startswith("https://export.arxiv.org/api/query?")
    assert prop is not None
    assert (prop.arxiv_id, prop.version, prop.year) == ("2501.99999", "v2", 2025)
    assert prop.title == "KiloServe: Splitting Prefill and Decode Across GPU Pools"
    assert prop.authors == "Tester, Ada and Probe, Bo"
    assert prop.verdict == "match" and prop.similarity >= identify.MATCH
    other = identify.similarity(ours, "An unrelated abstract about the carbon footprint of data centres.")
    assert other < 0.5


def test_identify_offline_says_so_and_exits_cleanly(world: dict[str, Path]) -> None:
    env = {**_env(world), "no_proxy": "*"}
    code = ("import sys\nfrom analysis.data import identify\nidentify.online = lambda *a, **k: False\n"
            "from analysis.book.cli import main\nsys.exit(main(['identify', '--review', sys.argv[1]]))")
    proc = subprocess.run([sys.executable, "-c", code, str(world["review"])], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "identify: offline" in proc.stdout and f"{len(NEW_ABSTRACTS)} new paper(s) not looked up" in proc.stdout
    assert not (world["review"] / intake.IDENTIFY_FILE).exists()


def test_identify_proposals_reach_the_scaffold_not_data(world: dict[str, Path]) -> None:
    papers = corpus.load_corpus(world["seeds"])
    target = next(p for p in papers if p.source_records == f"{NEW_FILE}#1")
    prop = identify.Proposal("2501.99999", "v2", "KiloServe: Splitting Prefill and Decode Across GPU Pools",
                             "Tester, Ada and Probe, Bo", 2025, 0.97)
    intake.write_table(world["review"] / intake.IDENTIFY_FILE, identify.COLUMNS,
                       [identify.proposal_row(target.source_records, target.fingerprint, prop)])
    before = _digest(world["data"])
    intake.update(world["seeds"], world["data"], world["review"])
    row = _rows(world["review"] / intake.PAPERS_FILE)[0]
    assert (row["citekey"], row["arxiv_id"], row["year"], row["review"]) == \
        ("tester2025kiloserve", "2501.99999", "2025", "unreviewed")
    assert _digest(world["data"]) == before


def test_corpus_counts_come_from_the_data(seeds: Path) -> None:
    """The record and paper counts agree with data/papers.csv (no number written here)."""
    with (ROOT / "data" / "papers.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    papers = corpus.load_corpus(seeds)
    assert len(papers) == len(rows)
    assert sum(len(p.records) for p in papers) == sum(len(r["source_records"].split(";")) for r in rows)


def _prepared(world: dict[str, Path]) -> dict[str, str]:
    """A review ready to accept; the digest of data/ and the review folder before."""
    intake.update(world["seeds"], world["data"], world["review"])
    _review_as_a_person(world)
    return _now(world)


def _now(world: dict[str, Path]) -> dict[str, str]:
    return {"data": _digest(world["data"]), "review": _digest(world["review"])}


def _interrupt_on_rename(monkeypatch: pytest.MonkeyPatch, n: int, exc: BaseException) -> None:
    """The n-th rename of a staged file over its target (1 = papers.csv, 2 = claims.csv) raises `exc`."""
    real = Path.replace
    count = {"n": 0}

    def replace(self: Path, target: Path | str) -> Path:
        if self.name.endswith(".accept"):
            count["n"] += 1
            if count["n"] == n:
                raise exc
        return real(self, target)

    monkeypatch.setattr(Path, "replace", replace)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), OSError(28, "No space left on device")])
def test_accept_stopped_between_its_files_leaves_data_and_review_as_before(
        world: dict[str, Path], monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """Issue 38: Ctrl-C or a full disk after papers.csv is replaced and before claims.csv is: both files and
    the review folder are as they were, no journal or side file is left, and the next accept succeeds."""
    before = _prepared(world)
    _interrupt_on_rename(monkeypatch, 2, exc)
    with pytest.raises(type(exc)):
        intake.accept(world["review"], world["data"], world["seeds"])
    assert _now(world) == before
    assert not [p.name for p in world["data"].iterdir() if p.name.startswith(".")]
    monkeypatch.undo()
    out = intake.accept(world["review"], world["data"], world["seeds"])
    assert out[0].startswith("accepted ")


def test_an_accept_killed_half_way_is_undone_by_the_next_one(
        world: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A process killed after its first rename cannot clean up: its journal stays, validation refuses to go on,
    and the next `make accept` puts every file back before doing anything else."""
    before = _prepared(world)
    # as if killed after the first rename: nothing is put back and the journal stays
    monkeypatch.setattr(transaction, "_restore", lambda moves: None)
    real_unlink = Path.unlink
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: None if self.name == transaction.JOURNAL
                        else real_unlink(self, missing_ok=missing_ok))
    _interrupt_on_rename(monkeypatch, 2, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        intake.accept(world["review"], world["data"], world["seeds"])
    monkeypatch.undo()
    assert (world["data"] / transaction.JOURNAL).exists()
    assert _now(world) != before  # papers.csv was replaced, claims.csv not: half-way
    proc = _validate(world)
    assert proc.returncode != 0 and "make accept" in proc.stderr, proc.stderr[-800:]
    out = intake.accept(world["review"], world["data"], world["seeds"])
    assert "put back" in out[0]
    assert _now(world) == before


@pytest.mark.parametrize("case, fragment", [
    ("bom", "papers-to-review.csv: line 1: the file starts with a byte-order mark"),
    ("latin-1", "papers-to-review.csv: line 2: not valid UTF-8"),
    ("no folder", "no review folder"),
])
def test_accept_names_the_review_file_it_cannot_read(world: dict[str, Path], case: str, fragment: str) -> None:
    """Issue 38: a review file saved with a BOM or in another encoding is named (not the claims file, not a
    traceback); a --review folder that does not exist is an error, not "nothing to accept"."""
    review = world["review"]
    if case == "no folder":
        review = world["review"].parent / "nowhere"
    else:
        review.mkdir(parents=True, exist_ok=True)
        body = "review,citekey\naccept,caf\xe9\n"
        (review / intake.PAPERS_FILE).write_bytes(
            b"\xef\xbb\xbf" + body.encode() if case == "bom" else body.encode("latin-1"))
    before = _digest(world["data"])
    with pytest.raises(DataError, match=re.escape(fragment)):
        intake.accept(review, world["data"], world["seeds"])
    assert _digest(world["data"]) == before


# ---------------------------------------------------------------- issue 35: accept runs CI's checks; merges


def test_accept_refuses_a_summary_copied_from_the_abstract(world: dict[str, Path]) -> None:
    """The copy check CI runs (more than twelve words in a row of an abstract), named by the review file's row
    and column, with data/ unchanged."""
    intake.update(world["seeds"], world["data"], world["review"], year=2025)
    _review_as_a_person(world)
    papers = _rows(world["review"] / intake.PAPERS_FILE)
    papers[1]["summary"] = NEW_ABSTRACTS[1][:200]
    _write_rows(world["review"] / intake.PAPERS_FILE, papers)
    before = _digest(world["data"])
    with pytest.raises(DataError) as exc:
        intake.accept(world["review"], world["data"], world["seeds"])
    assert f"{world['review'] / intake.PAPERS_FILE}: row 3, column summary: more than 12 words" in str(exc.value)
    assert _digest(world["data"]) == before


@pytest.mark.parametrize(("column", "value", "expected"), [
    ("claim_id", "anon2025old-1", r"row {row}, column claim_id: 'anon2025old-1' does not start with"),
    ("evidence", "words that no abstract holds", r"claims-to-review.csv: row {row}, column evidence: not words of"),
], ids=["stale-claim-id-prefix", "evidence-not-in-the-abstract"])
def test_accept_names_the_review_row_of_a_bad_claim_field(world: dict[str, Path], column: str, value: str,
                                                         expected: str) -> None:
    """A claim id with a stale prefix, or evidence that is not words of the abstract: refused, named by the
    review file's row and column."""
    intake.update(world["seeds"], world["data"], world["review"], year=2025)
    _review_as_a_person(world)
    claims = _rows(world["review"] / intake.CLAIMS_FILE)
    row = next(i for i, c in enumerate(claims) if c["review"] == "accept")
    claims[row][column] = value
    _write_rows(world["review"] / intake.CLAIMS_FILE, claims)
    with pytest.raises(DataError, match=expected.format(row=row + 2)):
        intake.accept(world["review"], world["data"], world["seeds"])


def test_a_near_duplicate_is_merged_into_its_paper(world: dict[str, Path]) -> None:
    """A second version of a corpus paper: scaffolded with its twin's fields, marked merge, folded into the twin's
    row (its records and version notes); the seed records are covered again and the pair counts as judged."""
    first = sorted(world["seeds"].glob("*.txt"))[0]
    paras = re.split(r"\n[ \t]*\n", first.read_text(encoding="utf-8").strip("\n"))
    words = paras[2].split()
    near = " ".join(words[: int(len(words) * 0.8)]) + " A later version adds a second cluster."
    (world["seeds"] / "zz8_version.txt").write_text(f"Daily Papers\n\n{near}\n", encoding="utf-8")
    intake.update(world["seeds"], world["data"], world["review"], year=2025)
    table = _rows(world["data"] / "papers.csv")
    twin = next(r for r in table if f"{first.name}#2" in r["source_records"].split(";"))
    papers = _rows(world["review"] / intake.PAPERS_FILE)
    row = next(r for r in papers if r["source_records"] == "zz8_version.txt#1")
    assert row["similar_to"] == twin["citekey"] and row["title"] == twin["title"] and row["theme"] == twin["theme"]
    row["review"] = "merge"
    with pytest.raises(DataError, match="column version_notes: empty"):
        row["version_notes"] = ""
        _write_rows(world["review"] / intake.PAPERS_FILE, papers)
        intake.accept(world["review"], world["data"], world["seeds"])
    row["version_notes"] = "A later version with a shorter abstract."
    _write_rows(world["review"] / intake.PAPERS_FILE, papers)
    out = intake.accept(world["review"], world["data"], world["seeds"])
    assert "1 version(s) merged" in out[0]
    after = {r["citekey"]: r for r in _rows(world["data"] / "papers.csv")}
    assert len(after) == len(table)
    assert after[twin["citekey"]]["source_records"].split(";")[-1] == "zz8_version.txt#1"
    assert after[twin["citekey"]]["version_notes"] == "A later version with a shorter abstract."
    rows = [(r["citekey"], r["fingerprint"], r["source_records"]) for r in after.values()]
    papers_now = corpus.load_corpus(world["seeds"])
    done = {r["fingerprint"] for r in _rows(world["review"] / intake.PAPERS_FILE)}
    assert not corpus.coverage_problems(rows, [p for p in papers_now if p.fingerprint not in done])
    pairs = [pr for pr in corpus.near_duplicates(papers_now) if twin["fingerprint"] in pr[:2]]
    assert corpus.judgements(pairs, rows, papers_now) == [f"same paper, merged into {twin['citekey']}"]


def test_scaffold_suggestions_of_issue_35() -> None:
    """Citekeys never take the clock's year; names kept whole; vendor families count as hardware."""
    text = "We present FlashDecoding++, an inference engine that runs on NVIDIA and AMD GPUs."
    assert intake.system_name(text) == "FlashDecoding++"
    assert intake.suggest_citekey(text, set(), None) == "anonflashdecoding"
    assert intake.suggest_citekey(text, set(), 2027, "Hong, Ke", "FlashDecoding++: Faster inference") == \
        "hong2027flashdecoding"
    assert intake.hardware_names(text, ["GPU", "H100"]) == "GPU"
    paper = corpus.Paper("0" * 64, text, [corpus.Record("2027-01-15.txt", 1, text)])
    assert intake.seed_year(paper) == 2027
    assert intake.seed_year(corpus.Paper("0" * 64, text, [corpus.Record("000_8d0c52a3.txt", 1, text)])) is None
    assert intake.contribution_type("This paper studies how servers spend energy; we measure 96 GPUs.") == "benchmark"
