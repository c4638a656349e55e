"""Neural graphics: the compute and memory budget of a rendered frame, and rendering claims normalised.

Pure functions used by the notebooks ``neural-graphics-frame-budget`` and ``neural-graphics-claims``.
Units: FLOP (one multiply-add = 2 FLOP), bytes, pixels, frames per second (FPS), W.
"""

from __future__ import annotations

import math

import pandas as pd
import pandera.pandas as pa

from analysis.data.schemas import CITEKEY, HW_ID, opt_float
from analysis.data.tables import read_csv
from analysis.models import uncertainty

LAYER = r"^\d+x\d+(;\d+x\d+)*$"

NETWORK_COSTS = pa.DataFrameSchema(
    {
        "config_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z0-9]+(-[a-z0-9]+)*$")),
        "description": pa.Column(str),
        "mlp_layers": pa.Column(str, checks=pa.Check.str_matches(LAYER)),
        "queries_per_ray": opt_float(pa.Check.gt(0)),
        "enc_levels": pa.Column(int, coerce=True, checks=pa.Check.ge(0)),
        "enc_features_per_level": pa.Column(int, coerce=True, checks=pa.Check.ge(0)),
        "enc_corners": pa.Column(int, coerce=True, checks=pa.Check.ge(0)),
        "enc_bytes_per_feature": pa.Column(float, coerce=True, checks=pa.Check.ge(0)),
        "source": pa.Column(str),
    },
    strict=True,
)

DEVICES = pa.DataFrameSchema(
    {
        "device_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(HW_ID)),
        "name": pa.Column(str),
        "device_class": pa.Column(str),
        "tdp_w": opt_float(pa.Check.gt(0)),
        "peak_fp32_tflops": opt_float(pa.Check.gt(0)),
        "mem_bw_tbps": opt_float(pa.Check.gt(0)),
        "source": pa.Column(str),
    },
    strict=True,
)

DEVICE_CLASSES = ["phone", "laptop-soc", "desktop-gpu", "unnamed-gpu", "accelerator-design", "datacentre-gpu",
                  "target"]

RENDERING_CLAIMS = pa.DataFrameSchema(
    {
        "claim_id": pa.Column(str, unique=True),
        "citekey": pa.Column(str, checks=pa.Check.str_matches(CITEKEY)),
        "role": pa.Column(str, checks=pa.Check.isin(["claim", "target"])),
        "system": pa.Column(str),
        "device_id": pa.Column(str, nullable=True, checks=pa.Check.str_matches(HW_ID)),
        "device_label": pa.Column(str),
        "device_class": pa.Column(str, checks=pa.Check.isin(DEVICE_CLASSES)),
        "width_px": opt_float(pa.Check.gt(0)),
        "height_px": opt_float(pa.Check.gt(0)),
        "megapixels_stated": opt_float(pa.Check.gt(0)),
        "resolution_basis": pa.Column(str),
        "source": pa.Column(str),
    },
    strict=True,
)


def load_network_costs() -> pd.DataFrame:
    """data/neural-graphics-network-costs.csv, validated, indexed by config_id."""
    return read_csv("neural-graphics-network-costs.csv", NETWORK_COSTS).set_index("config_id", drop=False)


def load_devices() -> pd.DataFrame:
    """data/neural-graphics-devices.csv (devices that data/hardware.csv lacks specs for), by device_id."""
    return read_csv("neural-graphics-devices.csv", DEVICES).set_index("device_id", drop=False)


def load_rendering_claims() -> pd.DataFrame:
    """data/neural-graphics-rendering-claims.csv joined to data/claims.csv (value, unit, qualifier).

    Every claim_id must exist in data/claims.csv.
    """
    from analysis.data import claims
    from analysis.data.paths import DataError, data_file

    df = read_csv("neural-graphics-rendering-claims.csv", RENDERING_CLAIMS)
    c = claims.load().set_index("claim_id")
    for i, r in df.iterrows():
        if r["claim_id"] not in c.index:
            raise DataError(f"{data_file('neural-graphics-rendering-claims.csv')}: row {int(str(i)) + 2}, "
                            f"column claim_id: {r['claim_id']!r} is not in data/claims.csv")
    cols = ["value", "unit", "qualifier", "evidence"]
    return df.join(c[cols], on="claim_id")


DATA_FILES = {
    "neural-graphics-network-costs.csv": lambda: f"{len(load_network_costs())} network configurations",
    "neural-graphics-devices.csv": lambda: f"{len(load_devices())} extra devices",
    "neural-graphics-rendering-claims.csv": lambda: f"{len(load_rendering_claims())} rendering claims",
}


def parse_layers(spec: str) -> list[tuple[int, int]]:
    """'60x256;256x1' -> [(60, 256), (256, 1)] (fan-in x fan-out of each dense layer)."""
    out = []
    for part in spec.split(";"):
        a, b = part.split("x")
        out.append((int(a), int(b)))
    return out


def mlp_macs(layers: list[tuple[int, int]]) -> int:
    """Multiply-accumulates of one forward pass through dense layers (biases and activations ignored)."""
    return sum(i * o for i, o in layers)


def encoding_flops(levels: int, features: int, corners: int) -> float:
    """FLOP of a multi-resolution grid look-up: one weighted multiply-add per corner and feature per level."""
    return 2.0 * levels * features * corners


def encoding_bytes(levels: int, features: int, corners: int, bytes_per_feature: float,
                   cache_hit_fraction: float = 0.0) -> float:
    """Bytes fetched from memory per sample by a grid encoding: levels x corners x features x bytes,
    times the fraction of look-ups that miss the on-chip caches."""
    if not 0.0 <= cache_hit_fraction <= 1.0:
        raise ValueError("cache_hit_fraction must be in [0, 1]")
    return levels * corners * features * bytes_per_feature * (1.0 - cache_hit_fraction)


def sample_cost(config: pd.Series, cache_hit_fraction: float = 0.0) -> tuple[float, float]:
    """(FLOP, bytes) per sample (one network query) of a row of data/neural-graphics-network-costs.csv."""
    flops = 2.0 * mlp_macs(parse_layers(str(config["mlp_layers"])))
    flops += encoding_flops(int(config["enc_levels"]), int(config["enc_features_per_level"]),
                            int(config["enc_corners"]))
    nbytes = encoding_bytes(int(config["enc_levels"]), int(config["enc_features_per_level"]),
                            int(config["enc_corners"]), float(config["enc_bytes_per_feature"]), cache_hit_fraction)
    return flops, nbytes


def pixel_rate(width_px: float, height_px: float, fps: float, views: int = 1) -> float:
    """Pixels per second for `views` images (e.g. 2 eyes) of width x height at `fps`."""
    if min(width_px, height_px, fps) <= 0 or views < 1:
        raise ValueError("width, height, fps must be positive and views >= 1")
    return width_px * height_px * fps * views


def frame_demand(width_px: float, height_px: float, fps: float, samples_per_ray: float,
                 flops_per_sample: float, bytes_per_sample: float, views: int = 1) -> tuple[float, float]:
    """(FLOP/s, bytes/s) to render at the given resolution and rate: pixels/s x samples/ray x cost/sample."""
    samples = pixel_rate(width_px, height_px, fps, views) * samples_per_ray
    return samples * flops_per_sample, samples * bytes_per_sample


def gap(required: float, available: float, utilisation: float = 1.0) -> float:
    """How many times the requirement exceeds the available rate at the given utilisation of peak."""
    if available <= 0 or not 0 < utilisation <= 1:
        raise ValueError("available must be positive and utilisation in (0, 1]")
    return required / (available * utilisation)


def fps_from(value: float, unit: str) -> float:
    """Frames per second from a claim in FPS (or Hz) or in ms per frame."""
    u = unit.strip().lower()
    if u in ("fps", "hz"):
        return value
    if u == "ms":
        return 1000.0 / value
    if u == "s":
        return 1.0 / value
    raise ValueError(f"cannot turn unit {unit!r} into frames per second")


def megapixels_per_s(fps: float, width_px: float = math.nan, height_px: float = math.nan,
                     megapixels: float = math.nan) -> float:
    """Megapixels rendered per second: fps x width x height / 1e6, or fps x a stated megapixel count."""
    if not math.isnan(width_px) and not math.isnan(height_px):
        return fps * width_px * height_px / 1e6
    if not math.isnan(megapixels):
        return fps * megapixels
    return math.nan


def max_megapixels_per_s(peak_flop_s: float, samples_per_ray: float, flops_per_sample: float,
                         utilisation: float = 1.0) -> float:
    """Compute-bound ceiling of megapixels per second on a device (one ray per pixel)."""
    return peak_flop_s * utilisation / (samples_per_ray * flops_per_sample) / 1e6


def _float_or_nan(v: object) -> float:
    """float(v), or nan for a missing value."""
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return f


def device_spec(device_id: str, precision: str = "fp16") -> dict[str, float | str]:
    """Peak TFLOP/s at `precision` and at FP32, memory TB/s and TDP W of a device.

    Looks in data/hardware.csv first and then in data/neural-graphics-devices.csv (which holds FP32
    figures only). There is no fallback between precisions: a device without a figure at `precision`
    gets nan for ``peak_tflops``, so a comparison never mixes bases. Missing figures are nan.
    """
    from analysis.data import hardware

    hw = hardware.load()
    col = hardware.PRECISIONS[precision]
    if device_id in hw.index:
        s = {str(k): v for k, v in hw.loc[device_id].to_dict().items()}
        peak, fp32 = _float_or_nan(s[col]), _float_or_nan(s["peak_fp32_tflops"])
        if not (math.isnan(peak) and math.isnan(fp32)):
            return {"device_id": device_id, "name": str(s["name"]), "peak_tflops": peak, "precision": precision,
                    "peak_fp32_tflops": fp32, "mem_bw_tbps": _float_or_nan(s["mem_bw_tbps"]),
                    "tdp_w": _float_or_nan(s["tdp_w"]),
                    "source": "data/hardware.csv"}
    dev = load_devices()
    if device_id in dev.index:
        d = {str(k): v for k, v in dev.loc[device_id].to_dict().items()}
        fp32 = _float_or_nan(d["peak_fp32_tflops"])
        peak = fp32 if precision == "fp32" else math.nan  # the file holds FP32 figures only
        return {"device_id": device_id, "name": str(d["name"]), "peak_tflops": peak, "precision": precision,
                "peak_fp32_tflops": fp32, "mem_bw_tbps": _float_or_nan(d["mem_bw_tbps"]),
                "tdp_w": _float_or_nan(d["tdp_w"]),
                "source": "data/neural-graphics-devices.csv"}
    return {"device_id": device_id, "name": device_id, "peak_tflops": math.nan, "precision": precision,
            "peak_fp32_tflops": math.nan, "mem_bw_tbps": math.nan, "tdp_w": math.nan, "source": ""}


def parse_fractions(text: str) -> list[float]:
    """'0,0.5,0.9' -> [0.0, 0.5, 0.9]: a comma-separated list of fractions, each in [0, 1]."""
    out = [float(t) for t in text.split(",") if t.strip()]
    if not out or any(not 0.0 <= f <= 1.0 for f in out):
        raise ValueError(f"{text!r}: give one or more fractions in [0, 1], separated by commas")
    return out


def machine_balance(peak_tflops: float, mem_bw_tbps: float) -> float:
    """FLOP a device can execute per byte it can move from memory at peak: peak FLOP/s / bytes/s."""
    if not (peak_tflops > 0 and mem_bw_tbps > 0):
        raise ValueError("peak and bandwidth must be positive numbers")
    return peak_tflops / mem_bw_tbps


def memory_to_compute_gap(flops_per_sample: float, bytes_read_per_sample: float, reuse: float,
                          peak_tflops: float, mem_bw_tbps: float) -> float:
    """Memory gap / compute gap of one device: (bytes x (1 - reuse) / bandwidth) / (FLOP / peak).

    `bytes_read_per_sample` are the table reads before any cache; `reuse` is the fraction of them served on
    chip. Above 1, memory traffic is the larger shortfall. Resolution, frame rate, samples per ray and a
    utilisation applied to both peaks cancel out, so the ratio depends only on the network, the reuse and
    the device's machine balance.
    """
    if not 0.0 <= reuse <= 1.0:
        raise ValueError("reuse must be in [0, 1]")
    if not flops_per_sample > 0:
        raise ValueError("flops_per_sample must be positive")
    return machine_balance(peak_tflops, mem_bw_tbps) * bytes_read_per_sample * (1.0 - reuse) / flops_per_sample


def break_even_reuse(flops_per_sample: float, bytes_read_per_sample: float, peak_tflops: float,
                     mem_bw_tbps: float) -> float:
    """The cache reuse at which the memory gap equals the compute gap: 1 - (FLOP / bytes read) / machine balance.

    Below it the memory gap is the larger; above it the compute gap. 0.0 means the compute gap is the larger
    (or equal) even with no reuse at all.
    """
    if not (flops_per_sample > 0 and bytes_read_per_sample > 0):
        raise ValueError("flops and bytes per sample must be positive")
    r = 1.0 - flops_per_sample / bytes_read_per_sample / machine_balance(peak_tflops, mem_bw_tbps)
    return max(0.0, r)


def reuse_range(band: list[float], default: float) -> uncertainty.Range:
    """(low, central, high) of the cache reuse: the ends of the sensitivity band and the default inside it.

    The band is the book's own assumption (no paper of the corpus reports a hit rate of the hash tables), so the
    interval it gives says how far that assumed band moves a number, not how uncertain a measurement is.
    """
    lo, hi = min(band), max(band)
    if not lo <= default <= hi:
        raise ValueError(f"the default reuse {default!r} lies outside the band {lo!r}-{hi!r}")
    return (float(lo), float(default), float(hi))


def traffic_interval(at_no_reuse: float, reuse: uncertainty.Range) -> uncertainty.Interval:
    """A quantity proportional to DRAM traffic (bytes, TB/s, a memory gap) with the reuse drawn over its band:
    value at no reuse x (1 - reuse), by the book's interval rule."""
    return uncertainty.propagate(lambda reuse: at_no_reuse * (1.0 - reuse), ranged={"reuse": reuse})
