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
