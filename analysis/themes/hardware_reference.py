"""The Reference page "Hardware": the accelerators' datasheet figures in two readable tables, and
the timeline of accelerator releases against the corpus's papers per theme and year.

Every figure comes from ``data/hardware.csv`` (dense peaks, memory, bandwidth, interconnect, TDP,
release year, each row with its source) and ``data/assumptions.yml`` (purchase and hourly prices,
each with its source); a missing figure stays empty.
"""

from __future__ import annotations

import math

import pandas as pd

from analysis.data import assumptions, hardware, papers
from analysis.models import chain_inputs

PEAK_COLUMNS = {
    "peak_fp64_tflops": "FP64", "peak_fp32_tflops": "FP32", "peak_tf32_tflops": "TF32",
    "peak_bf16_tflops": "BF16", "peak_fp16_tflops": "FP16", "peak_fp8_tflops": "FP8", "peak_int8_tops": "INT8 (TOPS)",
}


def specced() -> pd.DataFrame:
    """Rows of data/hardware.csv with a release year and at least one peak (named parts, not classes)."""
    h = hardware.load()
    has_peak = h[list(PEAK_COLUMNS)].notna().any(axis=1)
    return h[h["release_year"].notna() & has_peak].sort_values(["release_year", "name"])


def _price(key: str) -> float:
    table = assumptions.load()
    return assumptions.get(key) if key in table.index else math.nan


def peaks_table() -> pd.DataFrame:
    """Dense peak TFLOP/s per precision (INT8 in TOPS), one row per accelerator."""
    h = specced()
    out = h[["name", "release_year", *PEAK_COLUMNS]].rename(columns={"name": "accelerator", "release_year": "year",
                                                                     **PEAK_COLUMNS})
    return out.reset_index(drop=True)


def memory_power_price_table() -> pd.DataFrame:
    """Memory, bandwidth, interconnect, TDP and the sourced prices, one row per accelerator."""
    h = specced()
    rows = []
    for hid, r in h.iterrows():
        rows.append({
            "accelerator": r["name"], "year": r["release_year"], "memory (GB)": r["memory_gb"],
            "bandwidth (TB/s)": r["mem_bw_tbps"], "interconnect (GB/s)": r["interconnect_gb_per_s"],
            "TDP (W)": r["tdp_w"], "purchase (USD)": _price(chain_inputs.purchase_key(str(hid))),
            "rent (USD/h)": _price(chain_inputs.price_key(str(hid))),
        })
    return pd.DataFrame(rows)


def _price_source(key: str) -> str | None:
    table = assumptions.load()
    if key not in table.index:
        return None
    r = table.loc[key]
    return f"{r['source']} ({r['as_of']})" if isinstance(r["as_of"], str) and r["as_of"] else str(r["source"])


def sources_table() -> pd.DataFrame:
    """The source of each row of the two tables: the datasheet figures (data/hardware.csv) and the
    purchase and rental prices (data/assumptions.yml, with the date of the price); empty where no price."""
    h = specced()
    rows = []
    for hid, r in h.iterrows():
        rows.append({
            "accelerator": r["name"], "datasheet figures": r["source"],
            "purchase price": _price_source(chain_inputs.purchase_key(str(hid))),
            "rental price": _price_source(chain_inputs.price_key(str(hid))),
        })
    return pd.DataFrame(rows)


def papers_naming_parts_after(hardware_id: str) -> tuple[int, list[str], int | None]:
    """The corpus's papers that name (in their `hardware` column) a part released after `hardware_id`: how many,
    which parts they name, and the earliest year among those papers (None when there are none)."""
    h = hardware.load()
    after = h.loc[h["hardware_id"] == hardware_id, "release_year"].iloc[0]
    newer = set(h.loc[h["release_year"] > after, "hardware_id"])
    p = papers.load()
    named = p["hardware"].fillna("").map(lambda s: {x for x in s.split(";") if x in newer})
    has = named.map(len) > 0
    parts = sorted(set().union(*named[has])) if has.any() else []
    return int(has.sum()), parts, (int(p.loc[has, "year"].min()) if has.any() else None)


def timeline() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(papers per theme and year of the corpus, accelerator releases per year and vendor)."""
    p = papers.load()
    per_year = p.groupby(["year", "theme"]).size().rename("papers").reset_index()
    h = specced()
    releases = h[h["kind"].isin(["gpu", "tpu", "asic"])][["name", "vendor", "kind", "release_year"]]
    return per_year, releases.rename(columns={"release_year": "year"}).reset_index()
