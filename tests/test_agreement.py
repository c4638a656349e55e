"""Cohen's kappa against published worked examples (independent of the code)."""

from __future__ import annotations

import math

import pytest

from analysis.models import agreement
from analysis.models.base import ModelError


def test_kappa_of_the_textbook_two_by_two_example():
    # 50 items: both yes 20, first yes second no 5, first no second yes 10, both no 15
    # (p_o = 0.7, p_e = 0.5, kappa = 0.4: the worked example of the "Cohen's kappa" entry of Wikipedia)
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert agreement.percent_agreement(first, second) == pytest.approx(70.0)
    assert agreement.cohen_kappa(first, second) == pytest.approx(0.4)


def test_kappa_of_a_three_category_example_by_hand():
    first = ["a", "a", "a", "a", "b", "b", "b", "c", "c", "c"]
    second = ["a", "a", "a", "a", "b", "b", "a", "a", "c", "c"]
    # 8 of 10 agree; marginals a4 b3 c3 and a6 b2 c2, so p_e = (4*6 + 3*2 + 3*2) / 100 = 0.36
    assert agreement.percent_agreement(first, second) == pytest.approx(80.0)
    assert agreement.cohen_kappa(first, second) == pytest.approx((0.8 - 0.36) / 0.64)


def test_perfect_agreement_and_a_single_category():
    assert agreement.cohen_kappa(["a", "b"], ["a", "b"]) == pytest.approx(1.0)
    assert math.isnan(agreement.cohen_kappa(["a", "a"], ["a", "a"]))
    with pytest.raises(ModelError):
        agreement.cohen_kappa(["a"], ["a", "b"])


def test_every_disagreement_of_the_second_coding_is_settled_and_in_the_ledger():
    """Issue 39: each field on which the two coders differ is settled against the abstract (decision and
    resolved value), and the ledger holds the settled value of every sampled field."""
    from analysis.data import claims, second_coding
    from analysis.themes import coding

    review = second_coding.load_review()
    r = review.fillna("")
    assert len(set(r["claim_id"])) >= 150
    assert ((r["decision"] == "agreed") == (r["first"] == r["second"])).all(), "agreed means equal codings"
    assert (r["decision"] != "").all(), "disagreements not yet settled:\n" + r[r["decision"] == ""].head().to_string()
    assert coding.ledger_mismatches(review, claims.load()).empty


def test_each_decision_keeps_the_value_it_names_and_cites_a_codebook_rule():
    """'first' keeps the first coding, 'second' the second (in data/hardware.csv's spelling), 'neither' a third
    value; every settled disagreement names a rule of the codebook's Decisions section that exists."""
    import re

    from conftest import ROOT

    from analysis.data import second_coding

    def spelt(v: str) -> str:
        return ";".join(sorted(x.strip().replace(" ", "-") for x in v.replace("+", ";").split(";") if x.strip()))

    r = second_coding.load_review().fillna("")
    d = r[r["decision"] != "agreed"]
    assert (d[d["decision"] == "first"]["resolved"] == d[d["decision"] == "first"]["first"]).all()
    sec = d[d["decision"] == "second"]
    assert [spelt(v) for v in sec["resolved"]] == [spelt(v) for v in sec["second"]]
    nei = d[d["decision"] == "neither"]
    assert not ((nei["resolved"] == nei["first"]) | (nei["resolved"] == nei["second"])).any()
    book = (ROOT / "chapters" / "codebook.md").read_text()
    rules = set(re.findall(r"\*\*([HDS]\d+)\.", book))
    # the note ends with the rules it applies, in parentheses: "... (H3 H5)"
    ends = [re.search(r"\(((?:[HDS]\d+ ?)+)\)$", n) for n in d["note"]]
    assert all(ends), "a settled disagreement cites its rule: " + str(d[[e is None for e in ends]].head())
    cited = {lab for e in ends if e for lab in e.group(1).split()}
    assert cited <= rules, cited - rules
