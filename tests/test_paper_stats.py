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
