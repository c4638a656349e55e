"""One fact, one number: every keyed glued value of the built book agrees with every other of its key."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.book import facts
from analysis.data.paths import STAGE

NUMBERS = STAGE / "outputs" / "numbers.csv"


def _nb(cells: list[list[dict]]) -> dict:
    return {"cells": [{"cell_type": "code", "source": "", "outputs": outs} for outs in cells]}


def _fact_output(name: str, value: float, key: str) -> dict:
    return {"output_type": "display_data", "data": {facts.GLUE_PREFIX + "text/plain": repr(value)},
            "metadata": {"scrapbook": {"name": name, "mime_prefix": facts.GLUE_PREFIX},
                         "fact": {"key": key, "citekey": key.split("|")[0], "quantity": "energy_mwh",
                                  "boundary": "facility", "assumptions": "book central", "unit": "MWh",
                                  "value": value}}}


def test_a_key_with_two_values_is_caught(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "chapters").mkdir()
    key = facts.fact_key("seawead2025seaweed7b", "energy_mwh", "facility", "book central")
    (tmp_path / "notebooks" / "a.ipynb").write_text(json.dumps(_nb([[_fact_output("sw", 794.3, key)]])))
    (tmp_path / "notebooks" / "b.ipynb").write_text(json.dumps(_nb([[_fact_output("sw2", 384.0, key)]])))
    (tmp_path / "chapters" / "x.md").write_text("{glue:text}`../notebooks/b.ipynb::sw2:.0f` MWh")
    numbers = facts.collect(tmp_path)
    bad = facts.conflicts(numbers)
    assert set(bad["value"]) == {794.3, 384.0}
    assert "chapters/x.md" in set(bad["pages"])
    # the same value twice is one number
    (tmp_path / "notebooks" / "b.ipynb").write_text(json.dumps(_nb([[_fact_output("sw2", 794.3, key)]])))
    assert facts.conflicts(facts.collect(tmp_path)).empty


def _priced_output(name: str, value: float, *, citekey: str, quantity: str, unit: str, assumptions: str,
                   price_basis: str) -> dict:
    fact = {"citekey": citekey, "quantity": quantity, "boundary": "", "assumptions": assumptions,
            "price_basis": price_basis, "unit": unit, "value": value,
            "key": facts.fact_key(citekey, quantity, "", assumptions, price_basis)}
    return {"output_type": "display_data", "data": {facts.GLUE_PREFIX + "text/plain": repr(value)},
            "metadata": {"scrapbook": {"name": name, "mime_prefix": facts.GLUE_PREFIX}, "fact": fact}}


def test_a_price_basis_extends_the_key_compatibly():
    # a fact without a price basis keeps the key it had before the field existed
    assert facts.fact_key("a2024x", "energy_mwh", "facility", "book central") == \
        "a2024x|energy_mwh|facility|book central"
    assert facts.fact_key("a2024x", "usd_rental", "", "book central", "on-demand central") == \
        "a2024x|usd_rental||book central|on-demand central"
    # the basis names which end of the run's own GPU's price range, never a GPU: a notebook cannot opt out of
    # the meaning check by calling its basis "A100-80GB price"
    with pytest.raises(ValueError, match="price_basis"):
        facts.glue_fact("x", 1.0, citekey="a2024x", quantity="usd_rental", unit="USD",
                        price_basis="A100-80GB on-demand")


def test_one_meaning_under_two_keys_is_caught(tmp_path):
    """Issue 31, item 4: PixArt-alpha's rent was 66.42 thousand USD in one notebook and 82,944 USD in another,
    under two keys (other quantity name, unit and assumption note), so the one-key check saw nothing."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "chapters").mkdir()
    run = "chen2023pixart:pixart-alpha"
    a = _priced_output("px_k", 66.42, citekey=run, quantity="usd_rental_thousand", unit="thousand USD",
                       assumptions="book central", price_basis="on-demand central")
    low = _priced_output("px_lo_k", 17.82, citekey=run, quantity="usd_rental_thousand", unit="thousand USD",
                         assumptions="book low", price_basis="on-demand low")

    def b(value: float) -> dict:
        return _priced_output("px_usd", value, citekey=run, quantity="usd_rental", unit="USD",
                              assumptions="A100-equivalent hours at reference price", price_basis="on-demand central")

    (tmp_path / "notebooks" / "a.ipynb").write_text(json.dumps(_nb([[a, low]])))
    (tmp_path / "notebooks" / "b.ipynb").write_text(json.dumps(_nb([[b(82944.0)]])))
    (tmp_path / "chapters" / "x.md").write_text("{glue:text}`../notebooks/b.ipynb::px_usd:,.0f` USD")
    numbers = facts.collect(tmp_path)
    assert facts.conflicts(numbers).empty  # two keys, one value each: the key check cannot see it
    bad = facts.meaning_conflicts(numbers)
    assert set(bad["glue_name"]) == {"px_k", "px_usd"}  # not the low end: another price basis, another fact
    assert set(bad["m_value"].round(6)) == {66420.0, 82944.0}  # both in USD
    assert "chapters/x.md" in set(bad["pages"])
    # the same rent in thousand and in plain USD is one number
    (tmp_path / "notebooks" / "b.ipynb").write_text(json.dumps(_nb([[b(66420.0)]])))
    assert facts.meaning_conflicts(facts.collect(tmp_path)).empty
    # the check reads numbers.csv as the build writes it
    facts.write(tmp_path)
    (tmp_path / "notebooks" / "b.ipynb").write_text(json.dumps(_nb([[b(82944.0)]])))
    facts.write(tmp_path)
    written = pd.read_csv(tmp_path / "outputs" / "numbers.csv", keep_default_na=False)
    assert set(facts.meaning_conflicts(written)["glue_name"]) == {"px_k", "px_usd"}


@pytest.fixture(scope="module")
def numbers() -> pd.DataFrame:
    if not NUMBERS.exists():
        pytest.fail(f"{NUMBERS} is missing: run `make book` first")
    return pd.read_csv(NUMBERS, keep_default_na=False)


def test_no_key_has_two_values(numbers):
    keyed = numbers[numbers["key"] != ""].copy()
    keyed["value"] = pd.to_numeric(keyed["value"], errors="coerce")  # a NaN fact is an empty cell
    bad = facts.conflicts(keyed)
    assert bad.empty, "one fact, two numbers:\n" + bad[["key", "value", "notebook", "glue_name", "pages"]].to_string()


def test_run_facts_are_keyed_and_shared(numbers):
    keyed = numbers[numbers["key"] != ""]
    sw = keyed[keyed["key"] == facts.fact_key("seawead2025seaweed7b", "energy_mwh", "facility", "book central")]
    # Seaweed-7B's energy is computed by two notebooks and pasted by chapters: one value
    assert set(sw["notebook"]) >= {"sustainability-runs", "training-at-scale-runs"}
    assert len(set(sw["value"].astype(float).round(9))) == 1
    meg = keyed[keyed["citekey"] == "narayanan2021efficient"]
    assert {"claims-audit", "training-at-scale-mfu"} <= set(meg["notebook"])
    assert (numbers["pages"] != "").sum() > 100  # the glued values the chapters paste are traced to their pages


def test_every_pasted_number_carries_a_key(numbers):
    """A number a page pastes states a fact (about a paper, a run, the corpus or the book's model): it is keyed,
    so that a second notebook computing the same fact differently is caught. Text (names, verdict words) is not."""
    value = pd.to_numeric(numbers["value"], errors="coerce")
    unkeyed = numbers[(numbers["key"] == "") & (numbers["pages"] != "") & value.notna()]
    unkeyed = unkeyed[~unkeyed.index.isin(facts.interval_ends(numbers).index)]  # a modelled fact's own low/high
    assert unkeyed.empty, "pasted numbers without a fact key (use analysis.book.facts.glue_fact):\n" + \
        unkeyed[["notebook", "glue_name", "pages"]].to_string()


def test_keys_name_what_the_fact_is_about(numbers):
    """citekey is a paper of the table (optionally :run), ref: for a run outside the corpus, hw:<id> for a datasheet
    row, or corpus/book; energy and carbon facts say at which boundary they stand."""
    from analysis.data import hardware, papers
    known = set(papers.load()["citekey"])
    hw_ids = set(hardware.load()["hardware_id"])
    keyed = numbers[numbers["key"] != ""]
    bad = []
    for r in keyed.itertuples():
        head = r.citekey.split(":")[0]
        ok = (head in known or r.citekey.startswith("ref:") or head in {"corpus", "book"}
              or (head == "hw" and r.citekey.split(":", 1)[1] in hw_ids))
        if not ok:
            bad.append((r.notebook, r.glue_name, r.citekey))
    assert not bad, f"fact keys that name no paper, run, device, corpus or book: {bad[:20]}"
    energy = keyed[keyed["unit"].isin(["MWh", "kWh", "GWh", "tCO2e", "kgCO2e"])]
    assert (energy["boundary"].isin(["accelerator", "server", "facility"])).all(), \
        energy[~energy["boundary"].isin(["accelerator", "server", "facility"])][["notebook", "glue_name"]].to_string()


def test_no_glue_breaks_the_notebook_message_channel():
    """A NaN glued as a fact once made Jupyter fail to serialise the output's metadata (a stderr warning on
    the page): every executed notebook's outputs are free of it."""
    bad = []
    for nb in sorted((STAGE / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                if out.get("name") == "stderr" and "serialization failed" in "".join(out.get("text", "")):
                    bad.append(nb.name)
    assert not bad, f"notebooks whose outputs could not be serialised: {sorted(set(bad))}"


def test_no_meaning_has_two_values(numbers):
    """One fact glued under two keys (another unit's scale, another assumption note) still has one number: rows
    that agree on run, quantity, boundary and price basis (or assumption set) agree on the value."""
    bad = facts.meaning_conflicts(numbers)
    assert bad.empty, "one fact, two numbers under two keys:\n" + \
        bad[["key", "m_value", "m_unit", "notebook", "glue_name", "pages"]].to_string()


def test_rents_of_runs_state_their_price_basis(numbers):
    """Every rent of a run (a paper's or a reference run's, not the book's own worked example) states its price
    basis, so the meaning check above sees it: a notebook that prices a run again under a new assumption note
    still meets the other notebooks' figure for that run. A rent at the book's low, central or high case
    states the same end of the price range."""
    m = facts.meaning(numbers)
    rent = m[m["m_quantity"].isin(["usd_rental", "usd_rental_low", "usd_rental_high"])]
    runs = rent[~rent["citekey"].str.split(":").str[0].isin(["book", "corpus", "hw"])]
    assert len(runs) > 20  # one rent per run and price basis (the corner rents became intervals: issue 31)
    unstated = runs[runs["price_basis"] == ""]
    assert unstated.empty, unstated[["notebook", "glue_name", "citekey", "assumptions"]].to_string()
    cases = runs[runs["assumptions"].isin(["book low", "book central", "book high"])]
    # the central case is the median on-demand price; a low or high case is that end of the price range or
    # of the book's interval (which draws the price with the other assumptions)
    ends = cases["assumptions"].str.split(" ").str[1]
    allowed = [{f"on-demand {e}"} if e == "central" else {f"on-demand {e}", f"interval {e}"} for e in ends]
    wrong = cases[[b not in ok for b, ok in zip(cases["price_basis"], allowed, strict=True)]]
    assert wrong.empty, wrong[["notebook", "glue_name", "assumptions", "price_basis"]].to_string()


@pytest.mark.parametrize("run, claim_id, pages", [
    ("chen2023pixart:pixart-alpha", "chen2023pixart-3",
     {"chapters/generative.md", "chapters/sustainability.md", "chapters/claims.md"}),
    ("chen2023pixart:sd-v15", "chen2023pixart-4", {"chapters/generative.md", "chapters/sustainability.md"}),
    ("seawead2025seaweed7b", "seawead2025seaweed7b-2", {"chapters/generative.md"}),
])
def test_generative_runs_have_one_rent(numbers, run, claim_id, pages):
    """Issue 31, item 4: PixArt-alpha, the Stable Diffusion v1.5 run it quotes and Seaweed-7B each have one rent
    at the central on-demand price, on the GPU the paper names as the book's one table resolves it (a bare A100
    is the 40 GB part), and every chapter that states it pastes that glue."""
    from analysis.data import claims
    from analysis.models import chain_inputs

    m = facts.meaning(numbers)
    rents = m[(m["citekey"] == run) & (m["m_quantity"] == "usd_rental")]
    assert set(rents["notebook"]) <= {"sustainability-runs", "training-at-scale-runs"}  # priced by the one chain
    central = rents[rents["price_basis"] == "on-demand central"]
    assert len(set(central["m_value"].round(6))) == 1, central[["glue_name", "m_value"]].to_string()
    c = claims.load().set_index("claim_id").loc[claim_id]
    hours = c["value"] * (24 if c["metric"] == "gpu_days" else 1)
    price = chain_inputs.inputs_for(chain_inputs.claim_hardware(c["hardware"])).usd_per_device_hour
    assert central["m_value"].iloc[0] == pytest.approx(hours * price)
    pasted = {p for ps in central["pages"] for p in ps.split(";") if p}
    assert pages <= pasted
    if run == "chen2023pixart:pixart-alpha":  # the claims audit's own recomputation at the default agrees
        audit = numbers[numbers["glue_name"] == "rec_pixart_cost_rate"]
        assert float(audit["value"].iloc[0]) == pytest.approx(hours * price)


def test_every_modelled_fact_carries_its_interval(numbers):
    """Issue 31: a number made with the book's ranged defaults (prices, power, PUE, grid) has its 10th-90th
    percentile interval in numbers.csv; a reported or derived fact has none."""
    frame = numbers.copy()
    for col in ("value", "low", "high"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
    bad = facts.unbounded(frame)
    assert bad.empty, "modelled facts without an interval (glue them with facts.glue_modelled):\n" + \
        bad[["notebook", "glue_name", "quantity", "assumptions"]].to_string()
    with_iv = frame[frame["low"].notna()]
    assert (with_iv["low"] <= with_iv["high"]).all()
    assert not frame[frame["kind"].isin(["reported", "derived"]) & frame["low"].notna()].shape[0]


def test_corpus_fact_is_a_statistic_with_its_conditions_as_assumptions(monkeypatch):
    seen: list[tuple] = []
    monkeypatch.setattr(facts, "glue_fact", lambda name, value, **kw: seen.append((name, value, kw)))
    facts.corpus_fact("n_x", 12, "n_speedup_claims", "claims", "", "baseline: naive code", "paper bootstrap 9")
    facts.corpus_fact("n_y", 3, "n_papers", "papers", citekey="corpus:llm")
    assert seen == [
        ("n_x", 12, {"citekey": "corpus", "quantity": "n_speedup_claims", "unit": "claims",
                     "assumptions": "baseline: naive code; paper bootstrap 9", "kind": "statistic"}),
        ("n_y", 3, {"citekey": "corpus:llm", "quantity": "n_papers", "unit": "papers", "assumptions": "",
                    "kind": "statistic"}),
    ]
