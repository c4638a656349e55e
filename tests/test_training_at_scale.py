"""Unit tests of analysis.training_at_scale. Expected values are worked out by hand from the
published figures named in each comment, never copied from the code's output."""

from __future__ import annotations

import math

import pytest

from analysis.themes import training_at_scale as t


def test_megatron_aggregate_to_per_gpu():
    # Narayanan et al. 2021 abstract: 502 PFLOP/s on 3072 GPUs -> 502e3 / 3072 = 163.4 TFLOP/s
    # per GPU; Sec. 5.1 quotes 163 TFLOP/s; of the A100's 312 TFLOP/s that is 52.4% ("52%").
    ach = t.achieved_tflops_per_gpu(502, 3072, None)
    assert ach == pytest.approx(163.4, abs=0.1)
    assert ach / 312 == pytest.approx(0.52, abs=0.005)


def test_aggregate_figure_takes_precedence():
    # Megatron-LM (Narayanan et al. 2021): abstract 502 PFLOP/s on 3072 GPUs; Table 1 rounds to 163 per GPU.
    # The aggregate is what the audit checks, so it wins: 502e3 / 3072 = 163.4.
    assert t.achieved_tflops_per_gpu(502, 3072, 163) == pytest.approx(502e3 / 3072)
    assert t.achieved_tflops_per_gpu(None, 3072, 163) == 163
    assert math.isnan(t.achieved_tflops_per_gpu(None, None, None))


def test_zero_infinity_utilisation():
    # Rajbhandari et al. 2021 abstract: 25 PFLOP/s on 512 V100 = 48.8 TFLOP/s per GPU;
    # V100 FP16 tensor peak 125 TFLOP/s -> 39% ("40% of peak").
    assert t.achieved_tflops_per_gpu(25, 512, None) / 125 == pytest.approx(0.39, abs=0.01)


def test_recompute_to_model_flops():
    # Megatron-LM eq. (3): 96 B s l h^2 with recomputation, 72 without: 52% -> 52 * 72/96 = 39%.
    assert t.to_model_flops(0.52, "hardware") == pytest.approx(0.39)
    assert t.to_model_flops(0.462, "model") == 0.462
    assert math.isnan(t.to_model_flops(1.0, "busy"))
    with pytest.raises(ValueError):
        t.to_model_flops(0.5, "other")


def test_flags():
    # Fuyou: 156 TFLOPS on an RTX 4090 whose FP16 (FP32-accumulate) peak is 165.2 -> 94%,
    # above FlashAttention-3's 75% single-kernel utilisation.
    assert t.flag(156 / 165.2, 0.75) == "above plausible"
    assert t.flag(1.2, 0.75) == "exceeds peak"
    assert t.flag(0.4, 0.75) == ""
    assert t.flag(1.0, 0.75, "busy") == "not FLOP-based"


def test_min_gpus_to_fit():
    # 1T parameters x 16 bytes = 16 TB; on 32 GB parts fully sharded: 16e12 / 32e9 = 500 GPUs.
    assert t.min_gpus_to_fit(1e12, 32, 3) == 500
    # 80 GB: 16e12 / 80e9 = 200.
    assert t.min_gpus_to_fit(1e12, 80, 3) == 200
    # Stage 0 replicates all 16 bytes: 7.5B needs 120 GB, so it fits no single 80 GB part,
    # and a 1B model (16 GB) fits one 16 GB part exactly.
    assert t.min_gpus_to_fit(7.5e9, 80, 0) == math.inf
    assert t.min_gpus_to_fit(1e9, 16, 0) == 1
    # Stage 2 replicates the 2-byte weights: 7.5B on 16 GB parts: 15 GB replicated, 1 GB free
    # for 14 * 7.5e9 = 105 GB of shards -> 105 GPUs.
    assert t.min_gpus_to_fit(7.5e9, 16, 2) == 105
    # Stage 1: 4 bytes replicated (30 GB) exceeds 16 GB -> impossible.
    assert t.min_gpus_to_fit(7.5e9, 16, 1) == math.inf


def test_zero_infinity_800_v100_implies_usable_share():
    # ZeRO-Infinity abstract: 800 V100 to fit a 1T model: 16 TB / 800 = 20 GB of states per GPU.
    assert t.implied_bytes_per_gpu(1e12, 800) == pytest.approx(20)


def test_offload_modes():
    assert t.offload_gpu_bytes_per_param("none") == 16
    assert t.offload_gpu_bytes_per_param("optimizer") == 2
    assert t.offload_gpu_bytes_per_param("all") == 0
    with pytest.raises(ValueError):
        t.offload_gpu_bytes_per_param("disk")


def test_gpu_hours_preference_and_megatron_estimate():
    # Reported GPU-hours win: Seaweed-7B abstract, 665,000 H100 GPU hours.
    assert t.gpu_hours_of_run(665000, None, None, None, None, None, None) == (665000.0, "reported GPU-hours")
    # SE-MoE abstract: 8 days on 48 A100 -> 8 * 24 * 48 = 9216 GPU-hours.
    assert t.gpu_hours_of_run(None, 192, 48, None, None, None, None)[0] == 9216
    # Megatron-LM Sec. 5.1: 1T (1008B) on 450B tokens, 3072 A100 at 39% MFU (52% x 72/96):
    # 6 * 1008e9 * 450e9 = 2.72e24 FLOP / (3072 * 312e12 * 0.39) = 7.28e6 s = 84 days.
    gh, how = t.gpu_hours_of_run(None, None, 3072, 1008e9, 450e9, 312, 0.39)
    assert how == "6ND at the reported MFU"
    assert gh / 3072 / 24 == pytest.approx(84, abs=1)


def test_glm130b_days_from_mfu():
    # GLM-130B (Zeng et al. 2023, Sec. 2): 130B parameters, 400B tokens, 768 A100 at 32.5% MFU:
    # 6 * 130e9 * 400e9 = 3.12e23 / (768 * 312e12 * 0.325 = 7.79e16 FLOP/s) = 4.0e6 s = 46 days,
    # against the 60-day window the paper reports.
    gh, _ = t.gpu_hours_of_run(None, None, 768, 130e9, 400e9, 312, 0.325)
    assert gh / 768 / 24 == pytest.approx(46.4, abs=0.3)


def test_runs_file_validates():
    df = t.load_runs()
    assert {"narayanan2021efficient", "zeng2022glm130b", "nvidia2024nemotron4"} <= set(df["citekey"].dropna())


def test_runs_file_bad_row_named(tmp_path, monkeypatch):
    import pandas as pd

    from analysis.data import paths
    from analysis.data.paths import DataError

    src = paths.DATA / t.RUNS_FILE
    bad = pd.read_csv(src, dtype=str, keep_default_na=False)
    bad.loc[2, "kind"] = "rumour"
    (tmp_path / t.RUNS_FILE).write_text(bad.to_csv(index=False), encoding="utf-8")
    for name in ("papers.csv", "hardware.csv", "themes.yml"):
        (tmp_path / name).write_bytes((paths.DATA / name).read_bytes())
    monkeypatch.setattr(paths, "DATA", tmp_path)
    with pytest.raises(DataError, match=r"row 4, column kind"):
        t.load_runs()


def test_mfu_by_paper_counts_each_paper_once_on_a_model_flops_basis():
    # Megatron-LM (Narayanan et al. 2021) gives two hardware-FLOPs utilisations, 52% (1T; abstract) and
    # 140/312 = 44.9% (GPT-3 175B; Sec. 5.1): x 72/96 they are 39.0% and 33.7%, one paper at their median 36.3%.
    # GLM-130B states 32.5% MFU (Sec. 2.3); Frontier's 38% has no stated basis and a reference row no corpus paper.
    import pandas as pd

    rows = [("megatron-1t", "narayanan2021efficient", "hardware", 0.52 * 0.75),
            ("megatron-gpt3", "narayanan2021efficient", "hardware", 140 / 312 * 0.75),
            ("glm-130b", "zeng2022glm130b", "model", 0.325),
            ("frontier-22b", "dash2023optimizing", "unstated", 0.3838),
            ("palm-540b", "", "model", 0.462)]
    tab = pd.DataFrame([{"run_id": r, "run": r, "citekey": c, "year": 2021, "basis": b, "mfu": m}
                        for r, c, b, m in rows])
    per = t.mfu_by_paper(tab)
    assert list(per["citekey"]) == ["zeng2022glm130b", "narayanan2021efficient"]
    assert per["mfu"].tolist() == pytest.approx([0.325, (0.39 + 140 / 312 * 0.75) / 2])
    assert per["rows"].tolist() == [1, 2]
    assert t.mfu_by_paper(tab, ("busy",)).empty


def test_every_runs_ownership_cost_has_an_interval_and_the_rent_moves_with_the_price_alone():
    runs = t.load_runs()
    cost = t.run_cost_table(runs)
    own = cost.dropna(subset=["usd_amortised"])
    assert ((own.usd_amortised_low < own.usd_amortised) & (own.usd_amortised < own.usd_amortised_high)).all()
    torn = t.run_tornados(runs, "nemotron-4-340b", cost)
    rent = torn["rental_usd"]
    gh = float(cost.loc[cost.run_id == "nemotron-4-340b", "gpu_hours"].iloc[0])
    # an H100 SXM's listed on-demand prices run from 2.45 to 12.29 USD/h (Epoch AI's providers; data/assumptions.yml)
    assert list(rent["parameter"]) == ["usd_per_device_hour"]
    assert (rent.out_low.iloc[0], rent.out_high.iloc[0]) == pytest.approx((gh * 2.45, gh * 12.29))
    iv = t.interval(cost.set_index("run_id").loc["nemotron-4-340b"], "usd")
    assert iv.low < iv.central < iv.high
