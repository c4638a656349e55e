"""The claim extractor of `make corpus` (analysis/data/claim_candidates.py) against the codebook.

Each case is a fragment of a real abstract of the seed corpus (at most twelve consecutive words; the
first test checks that every fragment is in the corpus), and the expected values are what the
fragment says, read by the codebook (chapters/codebook.md), not what the code returned.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.data import claim_candidates as cc
from analysis.data import corpus
from analysis.models import baselines

# (abstract fragment, expected (metric, value, low, high, unit, qualifier, statistic, bound, bound_on))
CASES: dict[str, tuple[str, list[tuple[object, ...]]]] = {
    "tonnes": ("eventual disposal of up to 7 tons of toxic elements",
               [("other", 7.0, None, None, "count", "up to", "", "", "")]),
    "doubles": ("more than doubles the success rate for high-priority tasks",
                [("speedup", 2.0, None, None, "x", "over", "single", "lower", "value")]),
    "twice": ("twice as computationally efficient",
              [("efficiency", 2.0, None, None, "x", "exact", "single", "", "")]),
    "three_times": ("up to three times higher than random guess",
                    [("speedup", 3.0, None, None, "x", "up to", "maximum", "", "")]),
    "hyphenated_gpus": ("on a single 8-GPU machine",
                        [("gpu_count", 8.0, None, None, "GPUs", "exact", "", "", "")]),
    "hyphenated_scale": ("at the 128-GPU scale",
                         [("gpu_count", 128.0, None, None, "GPUs", "exact", "", "", "")]),
    "up_to_and_average": ("by up to 125x (on average 2.6x)",
                          [("speedup", 125.0, None, None, "x", "up to", "maximum", "", ""),
                           ("speedup", 2.6, None, None, "x", "average", "mean", "", "")]),
    "average_of": ("an average boost of 9.77x",
                   [("speedup", 9.77, None, None, "x", "average", "mean", "", "")]),
    "range": ("by 1.5-2.0times with FP16",
              [("speedup", None, 1.5, 2.0, "x", "range", "range", "", "")]),
    "range_of_averages": ("an average of 1.40-4.20x speedup",
                          [("speedup", None, 1.4, 4.2, "x", "range", "range", "", "")]),
    "range_bounded_above": ("in the range of 2x to more than 1000x",
                            [("speedup", None, 2.0, 1000.0, "x", "range", "range", "lower", "high")]),
    "between": ("reduced the power consumption between 7 and 11 Watts",
                [("power", None, 7.0, 11.0, "W", "range", "", "", "")]),
    "median_and_maximum": ("median and maximum speedups of 45x and 6150x",
                           [("speedup", 45.0, None, None, "x", "exact", "median", "", ""),
                            ("speedup", 6150.0, None, None, "x", "exact", "maximum", "", "")]),
    "not_a_number": ("to double-check its answer", []),
}
# ZeRO-Infinity's abstract: the problem statement's numbers motivate; the paper's own come after "we present"
ZERO_INFINITY = ["the largest dense deep learning models have grown over 1000x to reach",
                 "It requires 800 NVIDIA V100 GPUs just to fit",
                 "In this paper we present ZeRO-Infinity, a novel heterogeneous system technology",
                 "In terms of training throughput and scalability, it sustains over 25 petaflops"]
BASELINES = {"SMaT outperforms SotA libraries (DASP, cuSPARSE, and Magicube) by up to 125x":
             "SotA libraries (DASP, cuSPARSE, and Magicube)",
             "the proposed method is 3000 times faster than the original NeRF algorithm": "original NeRF algorithm"}


def _fields(c: cc.Candidate) -> tuple[object, ...]:
    k = c.claim
    return (k.metric, k.value, k.low, k.high, k.unit, k.qualifier, c.statistic, c.bound, c.bound_on)


def test_every_fragment_is_at_most_twelve_words_of_a_seed_abstract(seeds: Path) -> None:
    texts = [p.text for p in corpus.load_corpus(seeds)]
    for fragment in [f for f, _ in CASES.values()] + ZERO_INFINITY + list(BASELINES):
        assert len(fragment.split()) <= 12, fragment
        assert any(corpus.normalise(fragment) in t for t in texts), fragment


@pytest.mark.parametrize("case", sorted(CASES))
def test_units_number_words_qualifiers_and_ranges_by_the_codebook(case: str) -> None:
    fragment, expected = CASES[case]
    got = cc.candidates(corpus.normalise(fragment))
    assert [_fields(c) for c in got] == expected
    for c in got:
        assert c.claim.evidence in corpus.normalise(fragment)


def test_tonnes_say_so_in_the_note() -> None:
    (c,) = cc.extract(corpus.normalise(CASES["tonnes"][0]))
    assert "tons" in c.notes


def test_a_range_of_averages_says_its_ends_are_averages() -> None:
    (c,) = cc.extract(corpus.normalise(CASES["range_of_averages"][0]))
    assert "averages" in c.notes


def test_numbers_of_the_problem_statement_are_context() -> None:
    got = cc.extract(corpus.normalise(". ".join(ZERO_INFINITY)))
    assert [(c.value, c.unit, c.qualifier, c.tier) for c in got] == [
        (1000.0, "x", "over", "context"),
        (800.0, "GPUs", "exact", "context"),
        (25.0, "PFLOP/s", "over", "setup"),
    ]


def test_an_abstract_without_a_contribution_sentence_has_no_context() -> None:
    (c,) = cc.extract(corpus.normalise(CASES["up_to_and_average"][0]))[:1]
    assert c.tier == "headline"


@pytest.mark.parametrize("fragment", sorted(BASELINES))
def test_the_baseline_words_and_the_classifier_suggestion(fragment: str) -> None:
    (c,) = cc.candidates(corpus.normalise(fragment), baselines.classify)
    assert c.claim.baseline == BASELINES[fragment]
    # the class is only the keyword classifier's suggestion, in the codebook's names
    kind = baselines.classify(BASELINES[fragment])
    assert c.baseline_class == cc.CODEBOOK_CLASS.get(kind, kind)
    assert cc.candidates(corpus.normalise(fragment))[0].baseline_class == "unstated"  # no classifier: to be coded


def test_claim_rows_carry_the_typed_fields_named_as_in_the_codebook() -> None:
    codebook = (Path(__file__).parents[1] / "chapters" / "codebook.md").read_text(encoding="utf-8")
    rows = cc.claim_rows("amoros2025fused", corpus.normalise(CASES["range_bounded_above"][0]))
    assert [{f: r[f] for f in cc.TYPED_FIELDS} for r in rows] == [
        {"statistic": "range", "bound": "lower", "bound_on": "high", "baseline_class": "unstated"}]
    for f in cc.TYPED_FIELDS:
        assert f"`{f}`" in codebook
    for s in cc.STATISTICS:
        assert f"| `{s}` |" in codebook


# ---------------------------------------------------------------- one tokeniser with the copy check (issue 35)

VERBATIM = Path(__file__).resolve().parents[2] / "shared" / "tools" / "verbatim_check.py"


def _checker_words():
    import importlib.util

    if not VERBATIM.is_file():
        pytest.skip(f"no copy checker at {VERBATIM}")
    spec = importlib.util.spec_from_file_location("verbatim_check", VERBATIM)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.words


@pytest.mark.parametrize("text", ["6.4x faster", "state-of-the-art kernels", "FlashDecoding++ on A100-80GB",
                                  "Mélange cuts cost by 9.2× (vs. vLLM)", "x17.8 — 1,024 GPUs; pass@1"])
def test_the_shared_tokeniser_counts_words_as_the_copy_checker_does(text: str):
    from analysis.data.text import words

    # the checker's own documentation of the rule, read in its source: "6.4x" is two words, "state-of-the-art" four
    assert words("6.4x") == ["6", "4x"] and len(words("state-of-the-art")) == 4
    assert words(text) == _checker_words()(text)


def test_every_proposed_snippet_passes_the_copy_check():
    """Issue 35: the extractor cut twelve whitespace words, which the checker counted as up to 16. Over every
    corpus abstract, each proposed snippet has at most twelve words by the checker's own count, and no run of
    thirteen words of the snippet is in any abstract (the checker's rule, with its own tokeniser)."""
    from analysis.data.claims import MAX_EVIDENCE_WORDS

    checker_words = _checker_words()
    long = []
    for p in corpus.load_corpus():
        for c in cc.extract(p.text):
            n = len(checker_words(c.evidence))
            if n > MAX_EVIDENCE_WORDS or len(c.evidence.split()) > MAX_EVIDENCE_WORDS:
                long.append((n, c.evidence))
            assert " ".join(c.evidence.split()) in p.text
    assert not long, long[:5]


def test_a_snippet_with_split_words_is_cut_shorter():
    from analysis.data.text import words

    text = ("We present Foo, a state-of-the-art system that runs 6.4x faster than the well-known baseline "
            "on eight A100-80GB GPUs in a multi-node set-up with end-to-end training.")
    [c] = [c for c in cc.extract(text) if c.unit == "x"]
    assert "6.4x" in c.evidence
    assert len(words(c.evidence)) <= 12 < len(words(text))
