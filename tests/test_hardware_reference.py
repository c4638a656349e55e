"""The Hardware reference page: every row of its two tables names the source of its figures."""

from __future__ import annotations

from analysis.data import hardware
from analysis.themes import hardware_reference as ref


def test_every_row_of_the_tables_has_a_datasheet_source():
    src = ref.sources_table()
    assert list(src["accelerator"]) == list(ref.peaks_table()["accelerator"])
    assert src["datasheet figures"].fillna("").str.strip().ne("").all()


def test_a_priced_row_names_its_price_source():
    prices = ref.memory_power_price_table().set_index("accelerator")
    src = ref.sources_table().set_index("accelerator")
    for name, r in prices.iterrows():
        assert (r["purchase (USD)"] == r["purchase (USD)"]) == isinstance(src.at[name, "purchase price"], str), name
        assert (r["rent (USD/h)"] == r["rent (USD/h)"]) == isinstance(src.at[name, "rental price"], str), name


def test_the_a100_row_cites_what_data_hardware_csv_cites():
    # the row's source is the table's own `source` field, not a paraphrase (data/hardware.csv, A100-80GB)
    src = ref.sources_table().set_index("accelerator")
    rec = hardware.load().set_index("hardware_id").loc["A100-80GB"]
    assert src.at[rec["name"], "datasheet figures"] == rec["source"]


def test_newer_parts_are_released_after_the_h100_and_named_by_a_paper():
    from analysis.data import papers

    n, parts, first = ref.papers_naming_parts_after("H100-SXM")
    hw = hardware.load().set_index("hardware_id")
    named = set(";".join(papers.load()["hardware"].fillna("")).split(";"))
    assert n >= len(parts) > 0 and first is not None
    assert "H100-SXM" not in parts and "A100-80GB" not in parts
    for part in parts:
        assert hw.at[part, "release_year"] > hw.at["H100-SXM", "release_year"], part
        assert part in named, part
