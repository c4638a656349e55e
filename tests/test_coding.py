"""The typed coding of the ledger's comparison claims (chapters/codebook.md): the coded values of
claims whose abstracts the expected values come from, the rules across columns, and bad values refused
with the file, row and column named."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from test_data import data_copy  # noqa: F401  (the fixture: a copy of data/ the loaders read)

from analysis.data import claims
from analysis.data.paths import DataError


def _claim(claim_id: str) -> pd.Series:
    d = claims.load()
    row = d[d["claim_id"] == claim_id]
    assert len(row) == 1, claim_id
    return row.iloc[0]


def _blank(v: object) -> bool:
    return v is None or (isinstance(v, float) and pd.isna(v))


def test_ranges_are_ranges_with_both_ends():
    # FlashAttention-3: "speedup on H100 GPUs by 1.5-2.0x with FP16" (shah2024flashattention3)
    fa3 = _claim("shah2024flashattention3-2")
    assert (fa3["statistic"], fa3["qualifier"], fa3["low"], fa3["high"]) == ("range", "range", 1.5, 2.0)
    assert _blank(fa3["value"]) and _blank(fa3["bound"])
    # EET: "an average of 1.40-4.20x speedup" over Faster Transformer v4.0: a range of averages
    eet = _claim("li2021easy-1")
    assert (eet["statistic"], eet["low"], eet["high"]) == ("range", 1.4, 4.2) and _blank(eet["value"])
    assert eet["baseline_class"] == "vendor library" and "average" in eet["notes"]
    # FKL: "in the range of 2x to more than 1000x": a range whose upper end is a lower bound
    fkl = _claim("amoros2025fused-1")
    assert (fkl["statistic"], fkl["low"], fkl["high"], fkl["bound"], fkl["bound_on"]) == (
        "range", 2.0, 1000.0, "lower", "high")


def test_maxima_means_medians_and_bounds():
    # SMaT: "by up to 125x (on average 2.6x)" over DASP, cuSPARSE and Magicube
    top, mean = _claim("okanovic2024high-1"), _claim("okanovic2024high-2")
    assert (top["statistic"], top["qualifier"], top["value"]) == ("maximum", "up to", 125.0)
    assert (mean["statistic"], mean["qualifier"], mean["value"]) == ("mean", "average", 2.6)
    # Bessel functions: "median and maximum speedups of ... 17x and 3403x for CPU"
    assert _claim("plesner2024accurate-3")["statistic"] == "median"
    assert _claim("plesner2024accurate-4")["statistic"] == "maximum"
    # TEMPI: "speedup of more than 917x in a 3D halo exchange"
    tempi = _claim("pearson2021tempi-3")
    assert (tempi["statistic"], tempi["bound"], tempi["bound_on"], tempi["qualifier"]) == (
        "single", "lower", "value", "over")


def test_baseline_classes_follow_the_codebook():
    # yuan2024fullyfused: SYCL on the Max 1550 against CUDA on the H100 is different hardware; against
    # IPEX "on the same Intel GPU" it is a framework
    for cid in ("yuan2024fullyfused-1", "yuan2024fullyfused-2"):
        r = _claim(cid)
        assert (r["baseline_class"], r["system_hardware"], r["baseline_hardware"]) == (
            "different hardware", "Max-1550", "H100")
    ipex = _claim("yuan2024fullyfused-3")
    assert (ipex["baseline_class"], ipex["system_hardware"], ipex["baseline_hardware"]) == (
        "framework", "Max-1550", "Max-1550")
    # plesner2024accurate: against SciPy on the CPU, both sides run on the CPU: a framework
    for cid in ("plesner2024accurate-7", "plesner2024accurate-8"):
        r = _claim(cid)
        assert (r["baseline_class"], r["system_hardware"], r["baseline_hardware"]) == ("framework", "CPU", "CPU")
    # COMET: "a kernel-level speedup of 2.88x over cuBLAS" on one A100
    assert _claim("liu2024comet-2")["baseline_class"] == "vendor library"
    # FlightLLM on an FPGA "against commercial GPUs (e.g., NVIDIA V100S)": the V100S, not the V100 (codebook H1)
    flight = _claim("zeng2024flightllm-1")
    assert (flight["baseline_class"], flight["system_hardware"], flight["baseline_hardware"]) == (
        "different hardware", "FPGA", "V100S")


def test_every_comparison_claim_is_coded_and_no_other():
    d = claims.load()
    comp = claims.comparison_mask(d)
    assert int(comp.sum()) == 256
    assert d.loc[comp, ["statistic", "baseline_class"]].notna().all().all()
    assert d.loc[~comp, claims.TYPED].isna().all().all()
    assert set(d["statistic"].dropna()) <= set(claims.STATISTICS)
    assert set(d["baseline_class"].dropna()) <= set(claims.BASELINE_CLASSES)


def test_qualifier_agrees_with_statistic():
    d = claims.load()
    c = d[claims.comparison_mask(d)]
    pairs = set(zip(c["statistic"], c["qualifier"], strict=True))
    for st, q in pairs:
        assert (st == "maximum") == (q == "up to"), (st, q)
        assert (st == "mean") == (q == "average"), (st, q)
        assert (st == "range") == (q == "range"), (st, q)
    assert (d["value"].isna() == d["qualifier"].eq("range")).all()
    assert (d["bound"].isna() == d["bound_on"].isna()).all()


def _edit(data: Path, claim_id: str, **values: str) -> int:
    """Set columns of one claim in the copied ledger; return its line number in the file."""
    path = data / "claims.csv"
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    (i,) = df.index[df["claim_id"] == claim_id]
    for col, v in values.items():
        df.loc[i, col] = v
    df.to_csv(path, index=False)
    return int(i) + 2


@pytest.mark.parametrize(
    "claim_id, values, column, message",
    [
        ("liu2024comet-2", {"statistic": "typical"}, "statistic", "failed isin"),
        ("liu2024comet-2", {"baseline_class": "CPU or other hardware"}, "baseline_class", "failed isin"),
        ("liu2024comet-2", {"bound": "sideways", "bound_on": "value"}, "bound", "failed isin"),
        ("liu2024comet-2", {"bound_on": "middle", "bound": "lower"}, "bound_on", "failed isin"),
        ("liu2024comet-2", {"statistic": ""}, "statistic", "a comparison claim needs a statistic"),
        ("liu2024comet-2", {"baseline_class": ""}, "baseline_class", "a comparison claim needs a baseline_class"),
        ("liu2024comet-2", {"bound": "lower"}, "bound_on", "a bound needs bound_on"),
        ("liu2024comet-2", {"bound_on": "value"}, "bound", "bound_on is set but bound is empty"),
        ("liu2024comet-2", {"bound": "lower", "bound_on": "high"}, "bound_on", "needs a range"),
        ("liu2024comet-2", {"statistic": "maximum"}, "qualifier", "statistic 'maximum' is qualified 'up to'"),
        ("okanovic2024high-1", {"statistic": "single"}, "statistic", "qualifier 'up to' is statistic 'maximum'"),
        ("okanovic2024high-2", {"qualifier": "exact"}, "qualifier", "statistic 'mean' is qualified 'average'"),
        ("liu2024comet-2", {"statistic": "range"}, "value", "statistic 'range' leaves value empty"),
        ("shah2024flashattention3-2", {"qualifier": "exact"}, "qualifier", "is qualified 'range'"),
        ("shah2024flashattention3-2", {"statistic": "single"}, "statistic", "has statistic 'range'"),
        ("shah2024flashattention3-2", {"bound": "lower", "bound_on": "value"}, "bound_on",
         "bound_on 'value' on a range"),
        ("pearson2021tempi-3", {"bound": "", "bound_on": ""}, "bound", "qualifier 'over' or 'at most'"),
        ("wu2023zeroquantfp-1", {"statistic": "single"}, "statistic", "only a comparison claim"),
        ("liu2024comet-2", {"baseline_hardware": "Warp-Drive-9000"}, "baseline_hardware", "hardware"),
        ("liu2024comet-2", {"system_hardware": "Warp-Drive-9000"}, "system_hardware", "hardware"),
    ],
)
def test_bad_typed_values_are_refused_and_named(data_copy: Path, claim_id: str, values: dict[str, str],  # noqa: F811
                                                column: str, message: str):
    line = _edit(data_copy, claim_id, **values)
    with pytest.raises(DataError, match=rf"claims\.csv: row {line}, column {column}: .*{message}"):
        claims.load()
