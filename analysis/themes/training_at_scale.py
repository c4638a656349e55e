"""Training at scale: utilisation, the memory wall, and the time, energy and cost of training runs.

Pure functions over data/training-at-scale-runs.csv (the corpus's named training runs and
throughput reports) and the generic cost models of :mod:`analysis.models`. Units are in the
names: ``_tflops`` = 1e12 FLOP/s per accelerator, ``_gb`` = 1e9 bytes, ``_kwh``, ``_usd``.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pandera.pandas as pa

from analysis import models
from analysis.data.schemas import CITEKEY, HW_ID, YEAR, opt_nonneg
from analysis.data.tables import read_csv

RUNS_FILE = "training-at-scale-runs.csv"

# Megatron-LM eq. (3): 96·B·s·l·h² FLOP per iteration with full activation recomputation,
# 72·B·s·l·h² without it. A utilisation counted with recomputation ("hardware FLOPs") times
# 72/96 is the model-FLOPs utilisation of the same run.
RECOMPUTE_TO_MODEL_FLOPS = 72.0 / 96.0

KINDS = ["throughput", "estimate", "run", "plan", "reference"]
UTIL_BASES = ["model", "hardware", "unstated", "busy"]


RUNS_SCHEMA = pa.DataFrameSchema(
    {
        "run_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[a-z0-9]+(-[a-z0-9]+)*$")),
        "run_name": pa.Column(str),
        "citekey": pa.Column(str, nullable=True, checks=pa.Check.str_matches(CITEKEY)),
        "year": pa.Column("Int64", coerce=True, checks=YEAR),
        "kind": pa.Column(str, checks=pa.Check.isin(KINDS)),
        "params_b": opt_nonneg(),
        "tokens_b": opt_nonneg(),
        "hardware_stated": pa.Column(str),
        "hardware_id": pa.Column(str, nullable=True, checks=pa.Check.str_matches(HW_ID)),
        # whose data centre ran it (our classification by Cottier et al.'s rule: the hyperscalers'
        # own, Alphabet, Microsoft, Meta, Amazon; or other, including a paper that does not say): its PUE
        "operator_class": pa.Column(str, checks=pa.Check.isin(["hyperscaler", "other"])),
        "n_gpus": opt_nonneg(),
        "precision": pa.Column(str, nullable=True, checks=pa.Check.isin(["fp32", "tf32", "bf16", "fp16", "fp8"])),
        "reported_pflops": opt_nonneg(),
        "reported_tflops_per_gpu": opt_nonneg(),
        "reported_util_low_pct": opt_nonneg(pa.Check.le(100)),
        "reported_util_high_pct": opt_nonneg(pa.Check.le(100)),
        "util_basis": pa.Column(str, nullable=True, checks=pa.Check.isin(UTIL_BASES)),
        "reported_hours": opt_nonneg(),
        "reported_gpu_hours": opt_nonneg(),
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=10)),
        "notes": pa.Column(str, nullable=True),
    },
    strict=True,
    ordered=True,
)


def load_runs() -> pd.DataFrame:
    """The runs table, validated: schema, known citekeys and hardware ids, low <= high."""
    from analysis.data import hardware, papers
    from analysis.data.paths import data_file
    from analysis.data.tables import fail_rows

    df = read_csv(RUNS_FILE, RUNS_SCHEMA)
    path = data_file(RUNS_FILE)
    known = set(papers.load()["citekey"])
    fail_rows(path, df, df["citekey"].notna() & ~df["citekey"].isin(known), "citekey", "not in data/papers.csv")
    hw = set(hardware.load()["hardware_id"])
    fail_rows(path, df, df["hardware_id"].notna() & ~df["hardware_id"].isin(hw), "hardware_id",
              "not in data/hardware.csv")
    both = df["reported_util_low_pct"].notna() & df["reported_util_high_pct"].notna()
    fail_rows(path, df, both & (df["reported_util_low_pct"] > df["reported_util_high_pct"]),
              "reported_util_low_pct", "exceeds reported_util_high_pct")
    fail_rows(path, df, df["citekey"].isna() & (df["kind"] != "reference"), "citekey",
              "only rows of kind 'reference' may lack a corpus citekey")
    return df


def _describe_runs() -> str:
    df = load_runs()
    return f"{len(df)} training runs and throughput reports from {df['citekey'].nunique()} papers"


DATA_FILES = {RUNS_FILE: _describe_runs}


# --- utilisation ----------------------------------------------------------------------------

def achieved_tflops_per_gpu(reported_pflops: float | None, n_gpus: float | None,
                            reported_tflops_per_gpu: float | None) -> float:
    """Achieved TFLOP/s per accelerator: aggregate PFLOP/s / GPUs if given, else the per-GPU figure.

    The aggregate comes first because it is what the abstracts state and what the claims audit
    checks (``megatron-aggregate``), so the chapter and the audit give one utilisation for one run.
    Returns NaN when neither can be formed.
    """
    if (reported_pflops is not None and not _isnan(reported_pflops)
            and n_gpus is not None and not _isnan(n_gpus) and n_gpus > 0):
        return float(reported_pflops) * 1e3 / float(n_gpus)
    if reported_tflops_per_gpu is not None and not _isnan(reported_tflops_per_gpu):
        return float(reported_tflops_per_gpu)
    return math.nan


def _isnan(x: Any) -> bool:
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def to_model_flops(utilisation: float, basis: str) -> float:
    """Turn a reported utilisation into model-FLOPs utilisation (MFU), both as fractions.

    `basis` "hardware" means the FLOP count included recomputation (Megatron-LM eq. 3), so the
    MFU is 72/96 of it; "model" and "unstated" are returned unchanged; "busy" (accelerator
    busy time) has no FLOP meaning and gives NaN.
    """
    if basis not in UTIL_BASES:
        raise ValueError(f"unknown utilisation basis {basis!r}; use one of {UTIL_BASES}")
    if basis == "hardware":
        return utilisation * RECOMPUTE_TO_MODEL_FLOPS
    if basis == "busy":
        return math.nan
    return utilisation


def flag(utilisation: float, plausible_max: float, basis: str = "unstated") -> str:
    """Plausibility of a utilisation (fraction of peak): 'exceeds peak', 'above plausible', 'not FLOP-based' or ''."""
    if basis == "busy":
        return "not FLOP-based"
    if _isnan(utilisation):
        return ""
    if utilisation > 1.0:
        return "exceeds peak"
    if utilisation > plausible_max:
        return "above plausible"
    return ""


def mfu_table(runs: pd.DataFrame, plausible_max: float) -> pd.DataFrame:
    """One row per throughput report: achieved TFLOP/s, peak, utilisation as reported and as MFU, flag.

    Rows of kind 'plan' are skipped (they restate a throughput reported in another row).
    """
    from analysis.data import hardware

    out = []
    for r in runs[runs["kind"] != "plan"].to_dict("records"):
        has_util = not _isnan(r["reported_util_low_pct"])
        ach = achieved_tflops_per_gpu(r["reported_pflops"], r["n_gpus"], r["reported_tflops_per_gpu"])
        if _isnan(ach) and not has_util:
            continue
        basis = r["util_basis"] if isinstance(r["util_basis"], str) else "unstated"
        peak = math.nan
        if isinstance(r["hardware_id"], str) and isinstance(r["precision"], str):
            peak = hardware.peak_tflops(r["hardware_id"], r["precision"])
        computed = ach / peak if not _isnan(ach) and not _isnan(peak) else math.nan
        lo = r["reported_util_low_pct"] / 100 if has_util else computed
        hi = r["reported_util_high_pct"] / 100 if has_util else computed
        util = computed if not _isnan(computed) else (lo + hi) / 2
        out.append({
            "run_id": r["run_id"], "run": r["run_name"],
            "citekey": r["citekey"] if isinstance(r["citekey"], str) else "",
            "year": int(r["year"]), "kind": r["kind"],
            "hardware": r["hardware_id"] if isinstance(r["hardware_id"], str) else r["hardware_stated"],
            "n_gpus": r["n_gpus"], "precision": r["precision"] if isinstance(r["precision"], str) else "",
            "achieved_tflops_per_gpu": ach, "peak_tflops": peak,
            "util_reported_low": lo, "util_reported_high": hi, "util_computed": computed, "basis": basis,
            "mfu": to_model_flops(util, basis),
            "mfu_low": to_model_flops(lo, basis), "mfu_high": to_model_flops(hi, basis),
            "flag": flag(max(util, hi) if not _isnan(hi) else util, plausible_max, basis),
            "source": r["source"],
        })
    return pd.DataFrame(out)


# Bases on which a reported utilisation is a model-FLOPs utilisation: stated as MFU ("model"), or
# counted with recomputation and turned into MFU by the 72/96 of Megatron-LM's eq. (3) ("hardware").
MODEL_FLOPS_BASES = ("model", "hardware")


def mfu_by_paper(tab: pd.DataFrame, bases: tuple[str, ...] = MODEL_FLOPS_BASES) -> pd.DataFrame:
    """One row per corpus paper whose throughput reports are on one of `bases`: its median MFU.

    `tab` is :func:`mfu_table`. Reference rows (no corpus citekey) are left out, so are rows whose
    basis is not in `bases` (an unstated basis is not assumed to be model FLOPs). A paper with
    several rows (Megatron-LM's 1T and 175B estimates) counts once, with the median of its rows
    (:func:`analysis.models.paper_stats.paper_values`). Columns: citekey, runs (names joined by
    "; "), mfu (fraction), rows, year; sorted by mfu.
    """
    from analysis.models import paper_stats

    sub = tab[(tab["citekey"] != "") & tab["basis"].isin(bases) & tab["mfu"].notna()]
    if sub.empty:
        return pd.DataFrame(columns=["citekey", "runs", "mfu", "rows", "year"])
    per = paper_stats.paper_values(sub, "mfu").rename(columns={"claims": "rows"})
    names = sub.groupby("citekey", sort=True)["run"].agg("; ".join)
    years = sub.groupby("citekey", sort=True)["year"].min()
    per["runs"] = per["citekey"].map(names)
    per["year"] = per["citekey"].map(years).astype(int)
    return per[["citekey", "runs", "mfu", "rows", "year"]].sort_values("mfu").reset_index(drop=True)


# --- the memory wall --------------------------------------------------------------------------

def offload_gpu_bytes_per_param(mode: str, weight_bytes: float = 2.0) -> float:
    """Model-state bytes per parameter that stay on the GPU under an offload strategy.

    "none": all 16 bytes of mixed-precision Adam (Rajbhandari et al. 2020);
    "optimizer" (ZeRO-Offload): the 16-bit weights stay, gradients and FP32 optimizer states
    move to the host (2 bytes);
    "all" (ZeRO-Infinity, Fuyou): every state lives in host memory or NVMe and is streamed
    in per layer, so the resident share per parameter tends to zero (0 bytes).
    """
    if mode == "none":
        return models.training_bytes_per_param(0)
    if mode == "optimizer":
        return weight_bytes
    if mode == "all":
        return 0.0
    raise ValueError(f"unknown offload mode {mode!r}; use none, optimizer or all")


def min_gpus_to_fit(params: float, memory_gb: float, zero_stage: int, usable_fraction: float = 1.0,
                    weight_bytes: float = 2.0, grad_bytes: float = 2.0, optimizer_bytes: float = 12.0) -> float:
    """Fewest GPUs whose memory holds the model states of `params` under ZeRO stage 0-3.

    Per-GPU bytes are (replicated part) + (sharded part)/n; solve for the smallest integer n.
    Stage 0 shards nothing (pure data parallelism), stage 3 shards everything. Returns
    ``math.inf`` when the replicated part alone exceeds one GPU. Activations are not counted.
    """
    models.require_positive(params=params, memory_gb=memory_gb, usable_fraction=usable_fraction)
    if zero_stage not in (0, 1, 2, 3):
        raise models.ModelError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    parts = [weight_bytes, grad_bytes, optimizer_bytes]  # weights, gradients, optimizer
    sharded_from = {0: 3, 1: 2, 2: 1, 3: 0}[zero_stage]  # index of the first sharded part
    replicated = sum(parts[:sharded_from]) * params
    sharded = sum(parts[sharded_from:]) * params
    cap = memory_gb * 1e9 * usable_fraction
    if replicated > cap:
        return math.inf
    if sharded == 0:
        return 1.0
    if replicated == cap:
        return math.inf
    return float(max(1, math.ceil(sharded / (cap - replicated) - 1e-9)))


def gpu_count_grid(params_list: list[float], memories_gb: list[float], stages: list[int],
                   usable_fraction: float = 1.0) -> pd.DataFrame:
    """Fewest GPUs holding the model states, for every (parameters, memory, ZeRO stage)."""
    rows = [{"params": n, "memory_gb": m, "zero_stage": s,
             "gpus": min_gpus_to_fit(n, m, s, usable_fraction)}
            for n in params_list for m in memories_gb for s in stages]
    return pd.DataFrame(rows)


def implied_bytes_per_gpu(params: float, n_gpus: int, bytes_per_param: float = 16.0) -> float:
    """Model-state bytes each of `n_gpus` must hold when the states are fully sharded, in GB."""
    models.require_positive(params=params, n_gpus=n_gpus, bytes_per_param=bytes_per_param)
    return params * bytes_per_param / n_gpus / 1e9


# --- time, energy, cost -----------------------------------------------------------------------

def gpu_hours_of_run(reported_gpu_hours: float | None, reported_hours: float | None, n_gpus: float | None,
                     params: float | None, tokens: float | None, peak_tflops: float | None,
                     mfu_: float | None) -> tuple[float, str]:
    """GPU-hours of a run and how they were obtained.

    In order of preference: reported GPU-hours; reported wall-clock hours × GPUs; 6·N·D FLOP
    at the given MFU on `n_gpus` accelerators of `peak_tflops`. Returns (NaN, "") if none applies.
    """
    if reported_gpu_hours is not None and not _isnan(reported_gpu_hours):
        return float(reported_gpu_hours), "reported GPU-hours"
    ok = [x is not None and not _isnan(x) for x in (reported_hours, n_gpus)]
    if all(ok):
        return float(reported_hours) * float(n_gpus), "reported hours × GPUs"  # type: ignore[arg-type]
    need = (n_gpus, params, tokens, peak_tflops, mfu_)
    if all(x is not None and not _isnan(x) and x > 0 for x in need):
        days = models.training_days(models.training_flops_6nd(params, tokens), int(n_gpus),  # type: ignore[arg-type]
                                    float(peak_tflops), float(mfu_))  # type: ignore[arg-type]
        return models.gpu_hours(float(n_gpus), days), "6ND at the reported MFU"  # type: ignore[arg-type]
    return math.nan, ""


def run_cost_table(runs: pd.DataFrame, overrides: dict[str, dict[str, float]] | None = None,
                   price_scale: float = 1.0) -> pd.DataFrame:
    """Days, GPU-hours, MWh (at the facility meter), tCO2e and dollars of every run, each as (low, central, high).

    Every figure comes from the book's one chain (:mod:`analysis.models.chain`) with the inputs
    of :func:`analysis.models.chain_inputs.inputs_for` for the run's accelerator and operator class;
    `overrides["central"]` replaces fields of the central case (a notebook's parameters; one that
    differs from the book's value is also held in the interval's draws). low and high are the
    interval of :data:`analysis.models.chain_inputs.INTERVAL_RULE`. Rental prices are the
    accelerator's on-demand entry times `price_scale`; the amortised cost (purchase over the amortisation
    years plus energy) has the same rule's interval.
    """
    from analysis.data import hardware
    from analysis.models import chain_inputs

    overrides = overrides or {}
    out = []
    for r in runs[runs["kind"].isin(["run", "estimate", "plan", "reference"])].to_dict("records"):
        if not isinstance(r["hardware_id"], str):
            continue
        if r["kind"] == "reference" and _isnan(r["reported_hours"]) and _isnan(r["reported_gpu_hours"]):
            continue  # a reference point without a reported duration adds nothing here
        hw = r["hardware_id"]
        spec = hardware.spec(hw)
        prec = r["precision"]
        has_peak = isinstance(prec, str) and not pd.isna(spec["peak_" + str(prec) + "_tflops"])
        peak = hardware.peak_tflops(hw, prec) if has_peak else math.nan
        util = math.nan
        if not _isnan(r["reported_util_low_pct"]):
            util = to_model_flops((r["reported_util_low_pct"] + r["reported_util_high_pct"]) / 200,
                                  r["util_basis"] if isinstance(r["util_basis"], str) else "unstated")
        params = r["params_b"] * 1e9 if not _isnan(r["params_b"]) else None
        tokens = r["tokens_b"] * 1e9 if not _isnan(r["tokens_b"]) else None
        gh, method = gpu_hours_of_run(r["reported_gpu_hours"], r["reported_hours"], r["n_gpus"],
                                      params, tokens, peak, util)
        if _isnan(gh):
            continue
        model_days = math.nan
        if params and tokens and not _isnan(util) and not _isnan(r["n_gpus"]) and not _isnan(peak):
            model_days = models.training_days(models.training_flops_6nd(params, tokens), int(r["n_gpus"]), peak, util)
        days = gh / r["n_gpus"] / 24 if not _isnan(r["n_gpus"]) else math.nan
        rng = chain_inputs.footprint_range(gh, hw, operator=str(r["operator_class"]), **overrides.get("central", {}))
        central = rng["central"]
        kwh = [rng["facility_mwh"][0] * 1e3, central.energy.facility_kwh, rng["facility_mwh"][1] * 1e3]
        co2 = [rng["operational_tco2e"][0], central.operational_tco2e, rng["operational_tco2e"][1]]
        usd = [v * price_scale for v in (rng["rental_usd"][0], central.rental_usd, rng["rental_usd"][1])]
        amort = [rng["owned_usd"][0], central.owned_usd, rng["owned_usd"][1]]
        price_key = chain_inputs.price_key(hw) if not _isnan(usd[1]) else ""
        out.append({
            "run_id": r["run_id"], "run": r["run_name"],
            "citekey": r["citekey"] if isinstance(r["citekey"], str) else "",
            "kind": r["kind"], "year": int(r["year"]), "hardware": hw, "n_gpus": r["n_gpus"], "gpu_hours": gh,
            "method": method, "days": days, "model_days": model_days, "reported_days":
                r["reported_hours"] / 24 if not _isnan(r["reported_hours"]) else math.nan,
            "mwh_low": kwh[0] / 1e3, "mwh": kwh[1] / 1e3, "mwh_high": kwh[2] / 1e3,
            "tco2e_low": co2[0], "tco2e": co2[1], "tco2e_high": co2[2],
            "usd_low": usd[0], "usd": usd[1], "usd_high": usd[2], "price_entry": price_key,
            "usd_amortised_low": amort[0], "usd_amortised": amort[1], "usd_amortised_high": amort[2],
        })
    return pd.DataFrame(out)


# --- communication -----------------------------------------------------------------------------

def communication_table(hardware_ids: list[str], tp: int, precisions: tuple[str, ...] = ("bf16", "fp16")
                        ) -> pd.DataFrame:
    """Per accelerator: its link (data/hardware.csv, a bidirectional total, halved per direction),
    the dense peak (first of `precisions` the table has), C/W, and the thresholds above which data
    and tensor parallelism are compute-bound (:mod:`analysis.models.communication`)."""
    from analysis.data import hardware
    from analysis.models import communication as comm

    rows = []
    for hid in hardware_ids:
        s = hardware.spec(hid)
        link = float(s["interconnect_gb_per_s"])
        if _isnan(link):
            continue
        prec = next((p for p in precisions if not pd.isna(s[hardware.PRECISIONS[p]])), None)
        if prec is None:
            continue
        peak = hardware.peak_tflops(hid, prec)
        per_dir = link / 2
        rows.append({"hardware_id": hid, "link_gb_per_s_total": link, "link_gb_per_s_per_direction": per_dir,
                     "peak_tflops": peak, "precision": prec, "flop_per_link_byte": peak * 1e12 / (per_dir * 1e9),
                     "dp_critical_tokens": comm.data_parallel_critical_tokens(peak, per_dir),
                     "tp_critical_hidden": comm.tensor_parallel_critical_hidden(peak, per_dir, tp)})
    return pd.DataFrame(rows)


def interval(row: Any, column: str) -> Any:
    """The modelled number `column` of a :func:`run_cost_table` row (``mwh``, ``tco2e``, ``usd``,
    ``usd_amortised``) as an :class:`analysis.models.uncertainty.Interval`: its central value and the ends
    ``{column}_low`` and ``{column}_high`` of the book's interval."""
    from analysis.models.uncertainty import Interval

    return Interval(float(row[column]), float(row[f"{column}_low"]), float(row[f"{column}_high"]))


TORNADO_QUANTITIES = {"facility_mwh": ("mwh", 1.0, "energy at the facility meter (MWh)"),
                      "operational_tco2e": ("tco2e", 1.0, "operational emissions (tCO2e)"),
                      "rental_usd": ("usd", 1e6, "rental cost (million USD)"),
                      "owned_usd": ("usd_amortised", 1e6, "ownership cost, amortised (million USD)")}
"""Chain outputs of a run's tornado -> (its :func:`run_cost_table` column, display scale, axis label)."""


def run_tornados(runs: pd.DataFrame, run_id: str, cost: pd.DataFrame,
                 overrides: dict[str, dict[str, float]] | None = None, price_scale: float = 1.0) -> dict[str, Any]:
    """One-at-a-time sensitivity of a run's energy, emissions, rent and ownership cost to each chain input
    with a documented range (:func:`analysis.models.chain_inputs.footprint_tornado`), at the run's
    GPU-hours (`cost`: :func:`run_cost_table`), accelerator and operator class; `overrides["central"]` and a
    `price_scale` other than 1 are held, as in the interval."""
    from analysis.models import chain_inputs

    r = runs.set_index("run_id").loc[run_id]
    hw = str(r["hardware_id"])
    held = dict((overrides or {}).get("central", {}))
    if price_scale != 1.0:
        held["usd_per_device_hour"] = chain_inputs.inputs_for(hw).usd_per_device_hour * price_scale
    gh = float(cost.loc[cost["run_id"] == run_id, "gpu_hours"].iloc[0])
    return {q: chain_inputs.footprint_tornado(gh, hw, q, operator=str(r["operator_class"]), **held)
            for q in TORNADO_QUANTITIES}


# --- sharded-training traffic and failures (issue 33) ----------------------------------------------------------

def layout_traffic(params: float, active_params: float, tokens_per_device: int, n_dp: int, hidden: int,
                   layers: int, kv_heads: int, head_dim: int, cp: int, moe_layers: int, moe_hidden: int, top_k: int,
                   ep: int, links_gb_per_s_per_direction: dict[str, float], peak_tflops: float,
                   mfu_: float, moe_active_params: float | None = None) -> pd.DataFrame:
    """Bytes each device sends per step under each layout (:mod:`analysis.models.sharding`) and the time they take
    on each link, against the step's compute time 6 × active parameters × tokens per device at `mfu_` of peak.

    Layouts: data parallelism and ZeRO-3/FSDP of the dense model over `n_dp` devices; expert parallelism's
    all-to-alls of an MoE model (`moe_layers`, `moe_hidden`, top-`top_k` over `ep` devices); ring attention over
    `cp` devices for one sequence of tokens_per_device × cp tokens. The MoE row computes with the MoE model's
    `moe_active_params`. A ratio below 1 means the link can hide the traffic behind compute (with perfect
    overlap); above 1 the step waits for the link. Data-parallel and ZeRO traffic is fixed per step, so it
    hides once a device processes `critical_tokens` per step; MoE and ring-attention traffic grows with the
    tokens like compute does, so their ratio does not depend on the batch (critical_tokens NaN).
    """
    from analysis.models import sharding

    def compute(active: float) -> float:
        return 6 * active * tokens_per_device / (peak_tflops * 1e12 * mfu_)

    moe_active = active_params if moe_active_params is None else moe_active_params
    rows = {
        "data parallel (all-reduce)": (sharding.dp_bytes_per_device(params, n_dp), compute(active_params), True),
        "ZeRO-3 / FSDP": (sharding.zero_bytes_per_device(params, n_dp, 3), compute(active_params), True),
        f"MoE all-to-all (top-{top_k}, EP {ep})": (sharding.moe_alltoall_bytes_per_device(
            tokens_per_device, moe_hidden, top_k, ep, moe_layers), compute(moe_active), False),
        f"ring attention (CP {cp})": (sharding.ring_attention_bytes_per_device(
            tokens_per_device * cp, kv_heads, head_dim, cp, layers), compute(active_params), False),
    }
    out = []
    for layout, (b, compute_s, fixed) in rows.items():
        for link, bw in links_gb_per_s_per_direction.items():
            t = sharding.transfer_seconds(b, bw)
            out.append({"layout": layout, "link": link, "gb_per_device": b / 1e9, "comm_s": t, "compute_s": compute_s,
                        "comm_over_compute": t / compute_s,
                        "critical_tokens": tokens_per_device * t / compute_s if fixed else math.nan})
    return pd.DataFrame(out)


def goodput_at(n_gpus: Any, ref_mtbf_hours: Any, ref_gpus: float, checkpoint_hours: float, restart_hours: float,
               interval: str = "daly") -> Any:
    """Goodput of a synchronous job on `n_gpus` (scalars or numpy arrays) with the checkpoint interval of Daly
    (`interval="daly"`) or Young (`"young"`), the MTBF scaled from `ref_mtbf_hours` at `ref_gpus`
    (:mod:`analysis.models.reliability`)."""
    import numpy as np

    from analysis.models import reliability as rel

    mtbf = ref_mtbf_hours * ref_gpus / np.asarray(n_gpus, dtype=float)
    fn = rel.daly_interval_hours if interval == "daly" else rel.young_interval_hours
    tau = np.vectorize(lambda m: fn(checkpoint_hours, float(m)))(mtbf)
    if np.ndim(mtbf) == 0:
        tau, mtbf = float(tau), float(mtbf)
    out = rel.goodput(tau, checkpoint_hours, restart_hours, mtbf)
    return float(out) if np.ndim(out) == 0 else out
