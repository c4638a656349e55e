"""Cross-check the project's cost models against calculators no one here wrote.

Peers: llm-analysis 0.2.2 (Cheng Li; KV cache, decode latency, training memory) and
codecarbon (grid carbon intensities). Both live in a separate venv (see run.sh); this script
imports the project's pure models from the repository root and feeds them the SAME parameters
the peer uses (the peer's own model, GPU and dtype configs). Writes results.csv beside itself.

    ratio = ours / peer. "Same convention" rows should agree within 2 %.
"""

from __future__ import annotations

import logging
import os
import sys
from importlib.metadata import version
from pathlib import Path

sys.dont_write_bytecode = True  # never leave __pycache__ in the project tree

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]  # repository root (bench/peers/ -> bench/ -> root)
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402
import yaml  # noqa: E402
from codecarbon.core.emissions import Emissions  # noqa: E402
from codecarbon.core.units import Energy  # noqa: E402
from codecarbon.external.geography import GeoMetadata  # noqa: E402
from codecarbon.input import DataSource  # noqa: E402
from llm_analysis.analysis import ActivationRecomputation, DSZeRO, LLMAnalysis  # noqa: E402
from llm_analysis.config import (  # noqa: E402
    ParallelismConfig,
    get_dtype_config_by_name,
    get_gpu_config_by_name,
    get_model_config_by_name,
)
from llm_analysis.logger import logger as la_logger  # noqa: E402

from analysis.models.memory import kv_cache_bytes, training_bytes_per_param  # noqa: E402
from analysis.models.roofline import decode_step_seconds  # noqa: E402

la_logger.setLevel(logging.ERROR)
logging.getLogger("codecarbon").setLevel(logging.ERROR)

TOL = 0.02
LA = "llm_analysis/analysis.py"
ROWS: list[dict] = []


def add(check, config, quantity, unit, ours, peer, note):
    ROWS.append(dict(check=check, config=config, quantity=quantity, unit=unit, ours=float(ours),
                     peer=float(peer), ratio=float(ours) / float(peer), convention_note=note))


# ---------------------------------------------------------------- configurations
MODELS = {  # label -> (llm-analysis model config, row in data/serving-models.csv)
    "Llama-2-7B": ("NousResearch_Llama-2-7b-hf", "LLaMA-2-7B"),
    "Llama-2-70B": ("upstage_Llama-2-70b-instruct-v2", "Llama-2-70B"),  # same shape as meta-llama/Llama-2-70b-hf
}
GPUS = {"a100-sxm-80gb": "A100-80GB", "h100-sxm-80gb": "H100-SXM"}  # peer name -> data/hardware.csv id
DTYPE = "w16a16e16"  # BF16/FP16 weights, activations, embeddings: 2 bytes each
DECODE = [  # (model, gpu, tensor-parallel degree)
    ("Llama-2-7B", "a100-sxm-80gb", 1),
    ("Llama-2-7B", "h100-sxm-80gb", 1),
    ("Llama-2-70B", "h100-sxm-80gb", 2),  # 2 x 55 GB of BF16 weights do not fit one 80 GB GPU
]
BATCHES = (1, 64)
PROMPT, GEN = 1023, 1  # the decode step reads a KV cache of PROMPT + GEN = 1024 tokens
TRAIN = [  # (model, gpu, ZeRO stage, data-parallel GPUs)
    ("Llama-2-7B", "a100-sxm-80gb", 0, 1),
    ("Llama-2-7B", "a100-sxm-80gb", 1, 8),
    ("Llama-2-7B", "a100-sxm-80gb", 2, 8),
    ("Llama-2-7B", "a100-sxm-80gb", 3, 8),
    ("Llama-2-70B", "h100-sxm-80gb", 0, 1),
    ("Llama-2-70B", "h100-sxm-80gb", 3, 64),
]


def peer(model: str, gpu: str, tp: int = 1, dp: int = 1) -> LLMAnalysis:
    """The peer with every efficiency factor at 1.0, so it is a pure roofline like ours."""
    return LLMAnalysis(
        get_model_config_by_name(MODELS[model][0]), get_gpu_config_by_name(gpu),
        get_dtype_config_by_name(DTYPE), ParallelismConfig(tp_size=tp, dp_size=dp),
        flops_efficiency=1.0, hbm_memory_efficiency=1.0,
        intra_node_memory_efficiency=1.0, inter_node_memory_efficiency=1.0)


def shape(model: str):
    m = get_model_config_by_name(MODELS[model][0])
    return m.num_layers, m.num_key_value_heads, m.hidden_dim // m.n_head


# ---------------------------------------------------------------- 0. context: inputs
def check_inputs():
    serving = pd.read_csv(ROOT / "data" / "serving-models.csv").set_index("model")
    for label, (cfg, row) in MODELS.items():
        a = peer(label, "h100-sxm-80gb")
        m = a.model_config
        ours_shape = serving.loc[row, ["layers", "hidden", "heads", "kv_heads"]].astype(int).tolist()
        peer_shape = [m.num_layers, m.hidden_dim, m.n_head, m.num_key_value_heads]
        shape_note = ("layers/hidden/heads/kv_heads identical" if ours_shape == peer_shape
                      else f"SHAPE DIFFERS ours {ours_shape} vs peer {peer_shape}")
        add("inputs", f"{label} ({cfg})", "parameter count", "1e9 params",
            serving.loc[row, "params_b"], a.total_num_params / 1e9,
            f"Different convention. Ours: data/serving-models.csv params_b (published count). Peer: "
            f"{LA} LLMAnalysis.get_num_params_total = layers x (attn + 2*hidden*ffn_embed_dim MLP "
            f"[get_num_params_per_layer_mlp counts 2 matrices, Llama's SwiGLU has 3] + norms) + ONE "
            f"vocab x hidden embedding [get_num_params_embedding(shared_embedding=True); Llama unties "
            f"input/output embeddings]; config ffn_embed_dim={m.ffn_embed_dim}. {shape_note}. All rows "
            f"below feed the PEER's count to our functions, so they stay like-for-like.")
    hw = pd.read_csv(ROOT / "data" / "hardware.csv").set_index("hardware_id")
    for g, hid in GPUS.items():
        gc = get_gpu_config_by_name(g)
        add("inputs", g, "HBM bandwidth", "TB/s", hw.loc[hid, "mem_bw_tbps"], gc.hbm_bandwidth_in_GB_per_sec / 1e3,
            f"Same convention (rated spec). Ours: data/hardware.csv {hid}; peer: "
            f"llm_analysis/gpu_configs/{g}.json hbm_bandwidth_in_GB_per_sec. The peer's figure is fed to ours below.")
        add("inputs", g, "peak dense BF16/FP16", "TFLOP/s", hw.loc[hid, "peak_bf16_tflops"], gc.peak_fp16_TFLOPS,
            f"Same convention (dense tensor-core peak). Ours: data/hardware.csv {hid}; peer: "
            f"llm_analysis/gpu_configs/{g}.json peak_fp16_TFLOPS. The peer's figure is fed to ours below.")


# ---------------------------------------------------------------- (a) KV cache
def check_kv():
    for label in MODELS:
        layers, kv_heads, head_dim = shape(label)
        a = peer(label, "h100-sxm-80gb")
        for tokens, what in ((1, "KV cache per token"), (4096, "KV cache per 4096-token sequence")):
            ours = kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch=1, bytes_per_elem=2.0)
            theirs = a.get_memory_kv_cache_per_layer(1, tokens, kv_cache_dtype_bytes=2) * layers
            add("a_kv_cache", f"{label}, BF16 KV, TP=1", what, "bytes", ours, theirs,
                f"Same convention: 2 (K,V) x layers x kv_heads x head_dim x tokens x bytes; head_dim = "
                f"hidden/n_head, GQA kv_heads={kv_heads} honoured by both ({LA} "
                f"LLMAnalysis.get_memory_kv_cache_per_layer x num_layers). Under TP the peer keeps "
                f"max(kv_heads/tp, 1) heads per GPU.")


# ---------------------------------------------------------------- (b) decode step
def check_decode():
    for label, g, tp in DECODE:
        layers, kv_heads, head_dim = shape(label)
        gc = get_gpu_config_by_name(g)
        bw_tbps = gc.hbm_bandwidth_in_GB_per_sec / 1e3 * tp  # TP group = one big device for ours
        peak = gc.peak_fp16_TFLOPS * tp
        for b in BATCHES:
            a = peer(label, g, tp=tp)
            s = a.inference(batch_size_per_gpu=b, seq_len=PROMPT, num_tokens_to_generate=GEN,
                            use_kv_cache=True, kv_cache_dtype_bytes=2)
            params = a.total_num_params
            kv_seq = kv_cache_bytes(layers, kv_heads, head_dim, PROMPT + GEN, 1, 2.0)
            ours = decode_step_seconds(params, b, bw_tbps, peak, weight_bytes=2.0, kv_bytes_per_seq=kv_seq)
            ours_x2 = decode_step_seconds(params, b, bw_tbps, peak, weight_bytes=2.0, kv_bytes_per_seq=2 * kv_seq)
            theirs = s["decode_latency"]
            kv_share = s["kv_cache_latency"] / theirs
            cfg = f"{label} / {g}, TP={tp}, batch {b}, KV {PROMPT + GEN} tok"
            comm = s["decode_latency_fwd_tp_comm"] + (
                a.get_latency_fwd_per_layer_tp_comm(b, 1, 2) if tp > 1 else 0.0)
            tp_txt = (f" The peer also adds TP all-reduce time ({comm * 1e3:.2f} ms: "
                      f"{LA} LLMAnalysis.get_latency_fwd_per_layer_tp_comm, 2 per layer, each "
                      f"max(bytes/intra-node bw, intra_node_min_message_latency=8 us), plus one in "
                      f"get_latency_fwd_input_embedding); ours has no communication term."
                      if tp > 1 else "")
            common = (f"Both: memory-bound roofline, efficiencies 1.0 (flops_efficiency, hbm_memory_efficiency, "
                      f"intra/inter-node set to 1.0), peer's params ({params / 1e9:.2f}e9) and GPU spec fed to ours"
                      + (f" (ours: TP group as one device with {tp}x bandwidth and peak)" if tp > 1 else "") + ". "
                      "Residual peer-only terms: per-layer activation and norm traffic "
                      "(get_latency_fwd_per_layer_attn/_mlp/_layernorm), logits compute added on top "
                      "(get_latency_fwd_output_embedding_loss), per-module max(compute, memory) summed.")
            add("b_decode_step", cfg, "decode step time, ours as the project uses it", "ms",
                ours * 1e3, theirs * 1e3,
                f"Different convention: the peer reads the KV cache TWICE per step ({LA} "
                f"LLMAnalysis.inference: kv_cache_latency = 2 * kv_cache_memory_per_gpu / bandwidth, "
                f"'load and store kv cache'; {kv_share:.0%} of its step here); ours reads it once "
                f"(roofline.decode_step_seconds). {common}{tp_txt}")
            add("b_decode_step", cfg, "decode step time, ours fed 2x KV bytes (peer convention)", "ms",
                ours_x2 * 1e3, theirs * 1e3,
                ("Different convention (TP communication): " if tp > 1 else "Same convention: ")
                + f"ours given kv_bytes_per_seq = 2 x KV to mirror the peer's load+store. {common}{tp_txt}")
            if tp > 1:
                add("b_decode_step", cfg, "decode step time, ours 2x KV vs peer minus its TP comm", "ms",
                    ours_x2 * 1e3, (theirs - comm) * 1e3,
                    f"Same convention after removing the peer's all-reduce terms ({comm * 1e3:.2f} ms, "
                    f"{LA} get_latency_fwd_per_layer_tp_comm) and doubling our KV read. {common}")


# ---------------------------------------------------------------- (c) training memory
def peer_train_state_bytes(a: LLMAnalysis, zero: DSZeRO) -> tuple[float, str]:
    """weights + gradients + optimizer states per GPU, as LLMAnalysis.training reports it.

    training() refuses configurations whose states exceed the GPU (its batch-size assertion);
    then the same component methods training() sums are summed here."""
    try:
        s = a.training(batch_size_per_gpu=1, seq_len=512, ds_zero=zero,
                       activation_recomputation=ActivationRecomputation.FULL)
        return s["(weight+op_state+grad)_memory_per_gpu"], "peer value from LLMAnalysis.training()"
    except AssertionError:
        L = a.model_config.num_layers
        w = (a.get_weight_memory_per_layer(zero) * L + a.get_memory_embedding(zero)
             + a.get_weight_memory_last_layernorm(zero))
        o1, g1 = a.get_memory_optimizer_state_and_gradient_per_layer(4, None, zero)
        o2, g2 = a.get_memory_optimizer_state_and_gradient_embedding(4, None, zero)
        o3, g3 = a.get_memory_optimizer_state_and_gradient_last_layernorm(4, None, zero)
        return (w + (o1 + g1) * L + o2 + g2 + o3 + g3,
                "training() asserts the states do not fit in 80 GB, so the peer value is the sum of the "
                "same component methods training() adds (get_weight_memory_per_layer, get_memory_embedding, "
                "get_memory_optimizer_state_and_gradient_*)")


def check_training():
    for label, g, zero, dp in TRAIN:
        a = peer(label, g, dp=dp)
        theirs, how = peer_train_state_bytes(a, DSZeRO(zero))
        params = a.total_num_params
        cfg = f"{label} / {g}, ZeRO-{zero}, DP={dp}"
        ours16 = params * training_bytes_per_param(zero, dp)
        ours18 = params * training_bytes_per_param(zero, dp, grad_bytes=4.0)
        base = (f"Both: BF16 weights (2 B), Adam states = FP32 master + momentum + variance (12 B; peer "
                f"op_bytes_per_params = BYTES_FP32 + 2*BYTES_FP32), ZeRO-1/2/3 shard optimizer/+grads/+weights "
                f"over DP; peer's params ({params / 1e9:.2f}e9) fed to ours; {how}.")
        add("c_training_memory", cfg, "weights+grads+optimizer per GPU, ours default (16 B/param)", "GB",
            ours16 / 1e9, theirs / 1e9,
            "Different convention: "
            f"the peer keeps gradients in FP32, 4 B/param ({LA} "
            f"LLMAnalysis.get_memory_optimizer_state_and_gradient_per_layer: gradient bytes = "
            f"master_weights_dtype_bytes = BYTES_FP32), ours 2 B (memory.training_bytes_per_param "
            f"grad_bytes=2.0): 18 vs 16 B/param unsharded (ZeRO-2/3 shard both, "
            f"so the ratio stays below 1). {base}")
        add("c_training_memory", cfg, "weights+grads+optimizer per GPU, ours with grad_bytes=4 (peer convention)",
            "GB", ours18 / 1e9, theirs / 1e9,
            f"Same convention: ours called with grad_bytes=4.0 to match the peer's FP32 gradients. {base}")


# ---------------------------------------------------------------- (d) grid carbon intensity
def check_grid():
    assumptions = yaml.safe_load((ROOT / "data" / "assumptions.yml").read_text())
    em = Emissions(DataSource())
    mix = DataSource().get_global_energy_mix_data()
    world_src = DataSource().get_carbon_intensity_per_source_data()["world_average_source"]
    for key, iso in (("world", None), ("us", "USA"), ("france", "FRA"), ("china", "CHN"),
                     ("germany", "DEU"), ("india", "IND")):
        a = assumptions[f"grid_kgco2e_per_kwh_{key}"]
        kg = em.get_country_emissions(Energy.from_energy(kWh=1.0), GeoMetadata(country_iso_code=iso))
        ours_src = f"ours: {a['source']} (as_of {a['as_of']})"
        if iso is None:
            note = (f"Different source/year: codecarbon has no world row in global_energy_mix.json; "
                    f"codecarbon/core/emissions.py Emissions.get_country_emissions falls back to "
                    f"data/private_infra/carbon_intensity_per_source.json world_average = 475 g "
                    f"({world_src}, i.e. 2018-19 data); {ours_src}. Agreement is a coincidence of two years.")
        else:
            yr = mix[iso].get("year")
            peer_src = (f"codecarbon: data/private_infra/global_energy_mix.json {iso}.carbon_intensity "
                        f"(year {yr}; the file names no source, its values match Our World in Data's Ember/EI "
                        f"series), read by "
                        f"codecarbon/core/emissions.py Emissions.get_country_emissions -> "
                        f"_global_energy_mix_to_emissions_rate")
            if key == "us":
                note = (f"Different source/year: {peer_src}; {ours_src} = Patterson et al.'s 2020 US average. "
                        f"With a region set, codecarbon uses per-state eGRID data instead "
                        f"(data/private_infra/2023/usa_emissions.json via Emissions.get_region_emissions).")
            else:
                note = f"Same convention (same year, same series): {peer_src}; {ours_src}."
        add("d_grid_intensity", key if iso is None else f"{key} ({iso})", "grid carbon intensity",
            "kgCO2e/kWh", a["value"], kg, note)


# ---------------------------------------------------------------- output
def fmt(x: float) -> str:
    return f"{x:.4g}" if abs(x) < 1e6 else f"{x:.4e}"


def markdown(df: pd.DataFrame) -> str:
    cols = ["check", "config", "quantity", "unit", "ours", "peer", "ratio", "same conv.", "within 2%"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in df.itertuples():
        same = r.convention_note.startswith("Same")
        ok = abs(r.ratio - 1) <= TOL
        lines.append("| " + " | ".join([r.check, r.config, r.quantity, r.unit, fmt(r.ours), fmt(r.peer),
                                          f"{r.ratio:.4f}", "yes" if same else "no",
                                          "yes" if ok else "NO"]) + " |")
    return "\n".join(lines)


def main() -> int:
    check_inputs()
    check_kv()
    check_decode()
    check_training()
    check_grid()
    df = pd.DataFrame(ROWS, columns=["check", "config", "quantity", "unit", "ours", "peer", "ratio",
                                     "convention_note"])
    out = HERE / "results.csv"
    df.to_csv(out, index=False, float_format="%.6g")
    print(f"llm-analysis {version('llm-analysis')}, codecarbon {version('codecarbon')}, "
          f"project models from {ROOT}/analysis/models\n")
    print(markdown(df))
    same = df["convention_note"].str.startswith("Same")
    ok = (df["ratio"] - 1).abs() <= TOL
    print(f"\n{len(df)} rows -> {out.relative_to(ROOT)}. Same-convention rows within {TOL:.0%}: "
          f"{int((same & ok).sum())}/{int(same.sum())}; different-convention rows within {TOL:.0%}: "
          f"{int((~same & ok).sum())}/{int((~same).sum())}.")
    bad = df[same & ~ok]
    for r in bad.itertuples():
        print(f"  SAME-CONVENTION MISS: {r.check} | {r.config} | {r.quantity}: ratio {r.ratio:.4f}")
    return 1 if len(bad) and os.environ.get("PEERS_STRICT") else 0


if __name__ == "__main__":
    sys.exit(main())
