"""Accelerators beyond the GPU: growth of compute against memory and interconnect, and efficiency.

Pure functions used by the notebooks ``accelerators-memory-wall`` and ``accelerators-efficiency``.
Units: peak throughput in TFLOP/s (dense), memory bandwidth in TB/s, interconnect in GB/s,
power in W (TDP as listed in data/hardware.csv), prices in USD per accelerator.
"""

from __future__ import annotations

import math

import pandas as pd
import pandera.pandas as pa

from analysis.data import assumptions, hardware
from analysis.data.schemas import CITEKEY, HW_ID, opt_float
from analysis.data.tables import read_csv
from analysis.models import chain_inputs, trends

COMPARISONS = pa.DataFrameSchema(
    {
        "comparison_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z0-9]+(-[a-z0-9]+)*$")),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(CITEKEY)),
        "claim_id": pa.Column(str, nullable=True),
        "device_id": pa.Column(str, checks=pa.Check.str_matches(HW_ID)),
        "baseline_id": pa.Column(str, checks=pa.Check.str_matches(HW_ID)),
        "devices_per_side": pa.Column(int, coerce=True, checks=pa.Check.gt(0)),
        "metric": pa.Column(str, checks=pa.Check.isin(["throughput", "energy_efficiency"])),
        "precision": pa.Column(str, checks=pa.Check.isin(sorted(hardware.PRECISIONS))),
        "claimed_low_x": pa.Column(float, coerce=True, checks=pa.Check.gt(0)),
        "claimed_high_x": opt_float(pa.Check.gt(0)),
        "claim_form": pa.Column(str, checks=pa.Check.isin(["number", "comparable", "higher"])),
        "note": pa.Column(str),
        "source": pa.Column(str),
    },
    strict=True,
)


def load_comparisons() -> pd.DataFrame:
    """data/accelerators-comparisons.csv: cross-accelerator claims of the corpus, validated.

    Device and baseline ids must exist in data/hardware.csv and cited papers in data/papers.csv.
    """
    from analysis.data import papers
    from analysis.data.paths import DataError, data_file

    df = read_csv("accelerators-comparisons.csv", COMPARISONS)
    known_hw = set(hardware.load().index)
    known_keys = set(papers.load()["citekey"])
    for i, r in df.iterrows():
        row = int(str(i)) + 2
        for col in ("device_id", "baseline_id"):
            if r[col] not in known_hw:
                raise DataError(f"{data_file('accelerators-comparisons.csv')}: row {row}, column {col}: "
                                f"unknown hardware id {r[col]!r} (not in data/hardware.csv)")
        if r["citekey"] not in known_keys:
            raise DataError(f"{data_file('accelerators-comparisons.csv')}: row {row}, column citekey: "
                            f"unknown citekey {r['citekey']!r}")
    return df


def _describe_comparisons() -> str:
    return f"{len(load_comparisons())} cross-accelerator comparisons"


DATA_FILES = {"accelerators-comparisons.csv": _describe_comparisons}


def per_two_years_to_per_year(factor_per_2yr: float) -> float:
    """Convert a growth factor per two years (as the memory-wall paper states it) to per year."""
    if factor_per_2yr <= 0:
        raise ValueError("growth factor must be positive")
    return math.sqrt(factor_per_2yr)


def headline_peak(hardware_id: str, precision: str = "best16", fp32_fallback: bool = True) -> tuple[float, str]:
    """Dense peak TFLOP/s of `hardware_id` and the precision it was read at.

    ``precision="best16"`` takes the larger of the BF16 and FP16 dense peaks; if neither is listed
    and `fp32_fallback`, the FP32 peak is used instead (pre-tensor-core chips). Other values name
    one precision of data/hardware.csv. Returns (nan, "") when no figure exists.
    """
    s = hardware.record(hardware_id)
    if precision == "best16":
        vals = [(s.figure(c), p) for p, c in (("bf16", "peak_bf16_tflops"), ("fp16", "peak_fp16_tflops"))
                if pd.notna(s.figure(c))]
        if vals:
            return max(vals)
        if fp32_fallback and pd.notna(s.peak_fp32_tflops):
            return s.peak_fp32_tflops, "fp32"
        return float("nan"), ""
    peak = s.figure(hardware.PRECISIONS[precision])
    return (peak, precision) if pd.notna(peak) else (float("nan"), "")


def growth_table(ids: list[str], precision: str = "best16", fp32_fallback: bool = True) -> pd.DataFrame:
    """One row per accelerator: release year, peak TFLOP/s (and its precision), TB/s, GB/s, ridge point."""
    rows = []
    def num(s, col):
        return float(s[col]) if pd.notna(s[col]) else float("nan")

    for hid in ids:
        s = hardware.spec(hid)
        peak, prec = headline_peak(hid, precision, fp32_fallback)
        rows.append({
            "hardware_id": hid, "vendor": s["vendor"], "kind": s["kind"],
            "release_year": num(s, "release_year"),
            "peak_tflops": peak, "peak_precision": prec,
            "mem_bw_tbps": num(s, "mem_bw_tbps"),
            "interconnect_gb_per_s": num(s, "interconnect_gb_per_s"),
            "scale_up_domain": num(s, "scale_up_domain"),
        })
    df = pd.DataFrame(rows)
    df["flop_per_byte"] = df["peak_tflops"] / df["mem_bw_tbps"]
    return df


def fit_column(df: pd.DataFrame, column: str) -> trends.GrowthFit:
    """Log-linear growth of `column` against release_year over the rows where both are present."""
    d = df.dropna(subset=["release_year", column])
    d = d[d[column] > 0]
    return trends.growth_fit(d["release_year"].to_numpy(), d[column].to_numpy(), interval="t")


def purchase_price_usd(hardware_id: str) -> float:
    """Sourced purchase price (USD per accelerator) from data/assumptions.yml, or nan if none."""
    key = chain_inputs.purchase_key(hardware_id)
    return assumptions.get(key) if key in assumptions.load().index else float("nan")


def per_watt(value: float, tdp_w: float) -> float:
    """value / TDP (e.g. TFLOP/s per W); nan when the TDP is missing or not positive."""
    if not (tdp_w > 0):
        return float("nan")
    return value / tdp_w


def per_kusd(value: float, price_usd: float) -> float:
    """value per 1,000 USD of purchase price; nan when the price is missing."""
    if not (price_usd > 0):
        return float("nan")
    return value / (price_usd / 1000.0)


def efficiency_table(ids: list[str], precision: str = "best16") -> pd.DataFrame:
    """Peak TFLOP/s, TB/s, TDP and price per accelerator, with per-watt and per-1000-USD ratios.

    Columns: tflops_per_w (TFLOP/s per W of TDP), gbps_per_w (GB/s of memory bandwidth per W),
    tflops_per_kusd (TFLOP/s per 1,000 USD), gbps_per_kusd.
    """
    rows = []
    for hid in ids:
        r = hardware.record(hid)
        peak, prec = headline_peak(hid, precision, fp32_fallback=False)
        tdp = r.tdp_w
        bw_gbps = r.mem_bw_tbps * 1000
        price = purchase_price_usd(hid)
        rows.append({
            "hardware_id": hid, "vendor": r.vendor, "kind": r.kind, "peak_tflops": peak,
            "precision": prec, "mem_bw_gbps": bw_gbps, "tdp_w": tdp, "price_usd": price,
            "price_source": chain_inputs.purchase_key(hid) if price == price else "",
            "tflops_per_w": per_watt(peak, tdp), "gbps_per_w": per_watt(bw_gbps, tdp),
            "tflops_per_kusd": per_kusd(peak, price), "gbps_per_kusd": per_kusd(bw_gbps, price),
        })
    return pd.DataFrame(rows)


def datasheet_ratios(device_id: str, baseline_id: str, precision: str, metric: str) -> dict[str, float]:
    """Datasheet ratios device/baseline that a claim of `metric` could be compared with.

    For ``throughput``: peak ratio and memory-bandwidth ratio. For ``energy_efficiency``: the same
    ratios divided by the TDP ratio (peak per W, bandwidth per W). Missing inputs give nan.
    """
    def peak(h: str) -> float:
        return headline_peak(h, precision, fp32_fallback=False)[0]

    def field(h: str, col: str) -> float:
        return hardware.record(h).figure(col)

    compute = peak(device_id) / peak(baseline_id)
    bandwidth = field(device_id, "mem_bw_tbps") / field(baseline_id, "mem_bw_tbps")
    if metric == "throughput":
        return {"compute": compute, "bandwidth": bandwidth}
    if metric == "energy_efficiency":
        tdp = field(device_id, "tdp_w") / field(baseline_id, "tdp_w")
        return {"compute": compute / tdp, "bandwidth": bandwidth / tdp}
    raise ValueError(f"unknown metric {metric!r}")
