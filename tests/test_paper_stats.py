"""Unit tests of analysis.models.paper_stats: every paper counts once per group.

Expected values are worked out by hand in the comments, never taken from the code's output.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import models
from analysis.models import paper_stats as ps


def _frame() -> pd.DataFrame:
    # Paper "a" states six claims in group "x" (one per GPU, as CUDA-L1 does) and one in "y".
    # Paper "b" one claim in "x"; paper "c" two in "x" and one in "y".
    rows = [("a", "x", v, q) for v, q in ((10.0, "up to"), (11.0, ""), (12.0, ""), (13.0, ""), (14.0, ""),
                                          (100.0, ""))]
    rows += [("a", "y", 7.0, ""), ("b", "x", 2.0, "up to"), ("c", "x", 3.0, ""), ("c", "x", 5.0, ""),
             ("c", "y", 1.0, "up to")]
    return pd.DataFrame(rows, columns=["citekey", "group", "factor", "qualifier"])


def test_paper_values_one_row_per_paper_and_group():
    pv = ps.paper_values(_frame(), "factor", "group").set_index(["group", "citekey"])
    # a in x: median of 10, 11, 12, 13, 14, 100 = (12 + 13) / 2 = 12.5 over 6 claims;
    # c in x: (3 + 5) / 2 = 4.0 over 2 claims; a in y: 7.0; c in y: 1.0.
    assert pv.loc[("x", "a"), "factor"] == 12.5 and pv.loc[("x", "a"), "claims"] == 6
    assert pv.loc[("x", "c"), "factor"] == 4.0 and pv.loc[("x", "c"), "claims"] == 2
    assert pv.loc[("y", "a"), "factor"] == 7.0
    assert len(pv) == 5  # (x,a) (x,b) (x,c) (y,a) (y,c)


def test_median_is_over_papers_not_claims():
    s = ps.summarise(_frame(), "factor", "group").set_index("group")
    # Group x, paper values 12.5 (a), 2.0 (b), 4.0 (c): median over papers = 4.0.
    # Counted claim by claim (2, 3, 5, 10, 11, 12, 13, 14, 100) the median would be the 5th value, 11.
    assert s.loc["x", "median"] == 4.0
    assert (s.loc["x", "papers"], s.loc["x", "claims"]) == (3, 9)
    # geometric mean of the paper values: (12.5 · 2 · 4)^(1/3) = 100^(1/3) = 4.6416
    assert s.loc["x", "geomean"] == pytest.approx(100 ** (1 / 3))
    # the largest single claim is still reported as a claim: 100
    assert s.loc["x", "max_claim"] == 100.0
    # group y: papers a (7.0) and c (1.0): median (7 + 1) / 2 = 4.0, 2 papers, 2 claims
    assert s.loc["y", "median"] == 4.0 and (s.loc["y", "papers"], s.loc["y", "claims"]) == (2, 2)


def test_no_group_counts_a_paper_twice():
    # One paper with six claims at 100 and three papers with one claim at 1 each: paper values
    # 100, 1, 1, 1, so the median over papers is 1. Were the six claims counted as six papers, the
    # median of (1, 1, 1, 100, 100, 100, 100, 100, 100) would be 100.
    six = pd.DataFrame({"citekey": ["big"] * 6 + ["p", "q", "r"], "factor": [100.0] * 6 + [1.0, 1.0, 1.0]})
    s = ps.summarise(six, "factor")
    assert s.loc[0, "median"] == 1.0
    assert (s.loc[0, "papers"], s.loc[0, "claims"]) == (4, 9)
    # the big paper contributes exactly one value to the group ...
    pv = ps.paper_values(six, "factor")
    assert pv["citekey"].is_unique and pv.set_index("citekey").loc["big", "claims"] == 6
    # ... so keeping only one of its six claims changes neither the median nor the interval
    one = pd.concat([six.iloc[:1], six.iloc[6:]])
    s1 = ps.summarise(one, "factor")
    assert (s1.loc[0, "median"], s1.loc[0, "ci_low"], s1.loc[0, "ci_high"]) == \
        (s.loc[0, "median"], s.loc[0, "ci_low"], s.loc[0, "ci_high"])


def test_every_group_counts_each_paper_at_most_once_on_the_real_pattern():
    # The defect the rule fixes: CUDA-L1's six per-GPU means (17.7, 17.8, 19.0, 16.5, 14.7, 13.9) and two
    # other papers (1.46 and 6.7) with no stated baseline. Paper median of CUDA-L1: sorted 13.9, 14.7,
    # 16.5, 17.7, 17.8, 19.0 -> (16.5 + 17.7) / 2 = 17.1; median over papers of (17.1, 1.46, 6.7) = 6.7.
    # Claim by claim it would be (14.7 + 16.5) / 2 = 15.6.
    f = pd.DataFrame({"citekey": ["l1"] * 6 + ["fa", "ma"], "kind": "unstated",
                      "factor": [17.7, 17.8, 19.0, 16.5, 14.7, 13.9, 1.46, 6.7]})
    s = ps.summarise(f, "factor", "kind")
    assert s.loc[0, "median"] == pytest.approx(6.7)
    assert ps.n_label(s.loc[0, "papers"], s.loc[0, "claims"]) == "n = 3 papers (8 claims)"


def test_bootstrap_resamples_papers_and_is_seeded():
    # Two papers with values 1 and 3. A resample of two papers has median 1 (both 1: probability 1/4),
    # 2 (one of each: 1/2) or 3 (both 3: 1/4). The 2.5th and 97.5th percentiles are therefore 1 and 3;
    # a 40 % interval (30th to 70th percentile) lies inside the middle half, at 2 and 2.
    assert ps.bootstrap_median_ci([1.0, 3.0]) == (1.0, 3.0)
    assert ps.bootstrap_median_ci([1.0, 3.0], level=0.4) == (2.0, 2.0)
    # one paper: the interval is its value
    assert ps.bootstrap_median_ci([5.0]) == (5.0, 5.0)
    # the same seed gives the same interval; the interval holds the median
    v = np.array([1.2, 2.0, 3.5, 8.0, 40.0, 2.2])
    assert ps.bootstrap_median_ci(v, seed=7) == ps.bootstrap_median_ci(v, seed=7)
    lo, hi = ps.bootstrap_median_ci(v)
    assert lo <= float(np.median(v)) <= hi


def test_share_weighs_each_paper_once():
    f = _frame().assign(up_to=lambda d: d["qualifier"] == "up to", over_10=lambda d: d["factor"] > 10)
    # Group x: a has 1 'up to' of 6 claims (1/6), b 1 of 1 (1), c 0 of 2 (0): mean over papers
    # (1/6 + 1 + 0) / 3 = 7/18 = 0.3889. Claim by claim it would be 2/9 = 0.2222.
    by = ps.paper_shares(f, ["up_to", "over_10"], "group")
    assert by.loc["x", "up_to"] == pytest.approx(7 / 18)
    # group y: a 0 of 1, c 1 of 1 -> 1/2
    assert by.loc["y", "up_to"] == pytest.approx(0.5)
    # above 10 in x: a 5 of 6 (11, 12, 13, 14 and 100 are above 10; 10 is not), b 0, c 0
    # -> (5/6) / 3 = 5/18 = 0.2778
    assert by.loc["x", "over_10"] == pytest.approx(5 / 18)
    # over everything, per paper: a 1/7, b 1, c 1/3 -> (1/7 + 1 + 1/3) / 3 = 31/63 = 0.4921
    assert ps.paper_share(f, "up_to") == pytest.approx(31 / 63)
    # summarise reports the same shares next to the medians
    s = ps.summarise(f, "factor", "group", flags=["up_to"]).set_index("group")
    assert s.loc["x", "share_up_to"] == pytest.approx(7 / 18)
    assert s.loc["y", "share_up_to"] == pytest.approx(0.5)


def test_labels_and_refusals():
    assert ps.n_label(7, 12) == "n = 7 papers (12 claims)"
    assert ps.n_label(1, 1) == "n = 1 paper (1 claim)"
    assert ps.n_label(4, 6, noun="statement") == "n = 4 papers (6 statements)"
    with pytest.raises(models.ModelError):
        ps.n_label(3, 2)  # fewer claims than papers
    with pytest.raises(models.ModelError):
        ps.paper_values(pd.DataFrame({"citekey": ["a"], "factor": [math.nan]}), "factor")
    with pytest.raises(models.ModelError):
        ps.summarise(pd.DataFrame({"citekey": ["a"]}), "factor")
    with pytest.raises(models.ModelError):
        ps.bootstrap_median_ci([])


def _typed() -> pd.DataFrame:
    # Claims as the ledger codes them (chapters/codebook.md): statistic, bound, and each claim's number.
    nan = math.nan
    rows = [
        # SMaT: a maximum of 125x and an average of 2.6x -> the paper's headline is the average, 2.6
        ("smat", "lib", 125.0, "maximum", nan), ("smat", "lib", 2.6, "mean", nan),
        # TEMPI: maxima of 242,000x and 59,000x and "more than 917x" (a single value, bounded below) -> 917,
        # flagged bounded: a stated value (even a bound) comes before a maximum
        ("tempi", "lib", 242000.0, "maximum", nan), ("tempi", "lib", 59000.0, "maximum", nan),
        ("tempi", "lib", 917.0, "single", "lower"),
        # EET: "an average of 1.40-4.20x", a range: its geometric midpoint sqrt(1.4 * 4.2) = 2.4249
        ("eet", "lib", math.sqrt(1.4 * 4.2), "range", nan),
        # CUDA-L2: two means (1.192, 1.26) -> their median 1.226; a single and a mean are both central
        ("l2", "lib", 1.192, "mean", nan), ("l2", "lib", 1.26, "mean", nan),
        # a paper with only maxima keeps them: median of 10 and 20 = 15
        ("maxonly", "other", 10.0, "maximum", nan), ("maxonly", "other", 20.0, "maximum", nan),
        # a stated single value before a bounded one: FastNeRF's 3000x before "at least 10x" -> 3000
        ("fastnerf", "other", 3000.0, "single", nan), ("fastnerf", "other", 10.0, "single", "lower"),
    ]
    return pd.DataFrame(rows, columns=["citekey", "group", "x", "statistic", "bound"])


def test_claim_number_takes_a_range_at_its_geometric_midpoint():
    # FlashAttention-3's 1.5-2.0x -> sqrt(3) = 1.7321; RT-NeRF's 9.7-3201x -> sqrt(31049.7) = 176.21
    assert ps.claim_number(None, 1.5, 2.0, "range") == pytest.approx(1.7321, abs=1e-4)
    assert ps.claim_number(None, 9.7, 3201.0, "range") == pytest.approx(176.21, abs=0.01)
    assert ps.claim_number(2.6, None, None, "mean") == 2.6
    with pytest.raises(models.ModelError):
        ps.claim_number(None, None, 2.0, "range")
    with pytest.raises(models.ModelError):
        ps.claim_number(2.0, None, None, "peak")  # not a statistic of the codebook


def test_headline_rule_never_mixes_two_statistics():
    hv = ps.headline_values(_typed(), "x", "group").set_index("citekey")
    assert hv.loc["smat", "x"] == 2.6 and hv.loc["smat", "statistic_used"] == "mean"  # not (125 + 2.6) / 2 = 63.8
    assert hv.loc["smat", "claims"] == 2 and hv.loc["smat", "claims_used"] == 1
    assert hv.loc["tempi", "x"] == 917.0 and bool(hv.loc["tempi", "bounded"])
    assert hv.loc["eet", "x"] == pytest.approx(2.4249, abs=1e-4) and bool(hv.loc["eet", "range_midpoint"])
    assert hv.loc["l2", "x"] == pytest.approx(1.226)
    assert hv.loc["maxonly", "x"] == 15.0 and hv.loc["maxonly", "statistic_used"] == "maximum"
    assert hv.loc["fastnerf", "x"] == 3000.0 and not bool(hv.loc["fastnerf", "bounded"])


def test_headline_summary_and_its_flags():
    s = ps.summarise(_typed(), "x", "group", headline=True).set_index("group")
    # group lib, paper values 2.6 (smat), 917 (tempi), 2.4249 (eet), 1.226 (l2): sorted 1.226, 2.4249, 2.6, 917
    # -> median (2.4249 + 2.6) / 2 = 2.5125. (The old per-paper medians would give smat 63.8 and tempi 59,000.)
    assert s.loc["lib", "median"] == pytest.approx((math.sqrt(1.4 * 4.2) + 2.6) / 2)
    assert (s.loc["lib", "papers"], s.loc["lib", "claims"]) == (4, 8)
    assert (s.loc["lib", "bounded_papers"], s.loc["lib", "range_papers"]) == (1, 1)
    # group other: 15 (maxonly) and 3000 (fastnerf) -> 1507.5
    assert s.loc["other", "median"] == pytest.approx(1507.5)
    with pytest.raises(models.ModelError):
        ps.headline_values(_typed().assign(statistic="peak"), "x", "group")


def test_intervals_differ_only_when_they_do_not_overlap():
    assert ps.compare_intervals((1.5, 30.0), (2.3, 20.0)).startswith("the two intervals overlap")
    assert ps.compare_intervals((1.0, 2.0), (2.0, 5.0)).startswith("the two intervals overlap")  # touching ends
    assert ps.compare_intervals((1.0, 1.9), (2.0, 5.0)) == "the two intervals do not overlap, so the two medians differ"
    assert ps.compare_intervals((20.0, 2.0), (1.0, 1.5)).startswith("the two intervals do not overlap")  # any order
