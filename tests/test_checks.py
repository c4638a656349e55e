"""Tests of the claims audit (analysis.audit).

Every registered check has a test whose expected value is worked out by hand from the
abstract's numbers and the datasheet figures of data/hardware.csv (dense peaks):
H100 SXM FP16 989.4 and FP8 1978.9 TFLOP/s; A100 BF16 312 TFLOP/s, 400 W, 1555 GB/s (40 GB);
V100 FP16 125 TFLOP/s, 32 GB; RTX 4090 FP16 (FP32 accumulate) 165.2 TFLOP/s, 24 GB;
RTX 3090 FP16 71 TFLOP/s, 24 GB; RTX 2080 Ti 11 GB; RTX A6000 48 GB; H100 80 GB; SN40L 64 GB HBM.
"""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import audit
from analysis.data import claims, hardware
from analysis.data.paths import DataError

REL = 1e-3  # expected values below are rounded to about four significant figures


@pytest.fixture(scope="module")
def c() -> audit.Claims:
    return audit.Claims(claims.load())


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return audit.run_all().set_index("check_id")


def run(c: audit.Claims, check_id: str) -> audit.Result:
    return audit.REGISTRY[check_id].fn(c)


# --- helpers -------------------------------------------------------------------------------

def test_rounding_tolerance() -> None:
    assert audit.rounding_tolerance(52) == pytest.approx(0.5 / 52)  # "52%" stands for 51.5-52.5
    assert audit.rounding_tolerance(1.2) == pytest.approx(0.05 / 1.2)
    assert audit.rounding_tolerance(28.6) == pytest.approx(0.05 / 28.6)
    assert audit.rounding_tolerance(0.04) == pytest.approx(0.005 / 0.04)
    assert audit.rounding_tolerance(0) == 0.0


def test_significant_tolerance() -> None:
    assert audit.significant_tolerance(300) == pytest.approx(50 / 300)  # "~300" = 250-350
    assert audit.significant_tolerance(90) == pytest.approx(5 / 90)
    assert audit.significant_tolerance(1000) == pytest.approx(500 / 1000)
    assert audit.significant_tolerance(52) == pytest.approx(0.5 / 52)  # no trailing zero
    assert audit.significant_tolerance(2.5) == pytest.approx(0.05 / 2.5)
    assert audit.combined_tolerance(0.01, 0.002) == pytest.approx(0.012)


def test_judge() -> None:
    assert audit.judge(52, 52.4, 0.5 / 52) == "consistent"  # 52.4/52 - 1 = 0.77% <= 0.96%
    assert audit.judge(52, 53.0, 0.5 / 52) == "inconsistent"  # 1.9% > 0.96%
    assert audit.judge(0, 0, 0.1) == "consistent"
    assert audit.judge(0, 1, 0.1) == "inconsistent"


def test_judge_bound() -> None:
    assert audit.judge_bound(1200, 1978.9, "≤", 0.0) == "consistent"  # below the peak
    assert audit.judge_bound(2000, 1978.9, "≤", 0.0) == "inconsistent"
    assert audit.judge_bound(4, 3, "≥", 0.0) == "consistent"  # enough GPUs
    assert audit.judge_bound(2, 3, "≥", 0.0) == "inconsistent"
    with pytest.raises(ValueError):
        audit.judge_bound(1, 1, "<", 0.0)


def test_hardware_figures_relied_on() -> None:
    assert hardware.peak_tflops("H100-SXM", "fp16") == 989.4
    assert hardware.peak_tflops("H100-SXM", "fp8") == 1978.9
    assert hardware.peak_tflops("A100-80GB", "bf16") == 312
    assert hardware.peak_tflops("V100", "fp16") == 125
    assert hardware.peak_tflops("RTX-4090", "fp16") == 165.2
    assert hardware.memory_gb("RTX-3090") == 24 and hardware.memory_gb("RTX-2080Ti") == 11
    assert hardware.memory_gb("A6000") == 48 and hardware.nominal_memory_gb("H100-SXM") == 80
    # one basis: the nominal figure in 10^9 bytes; nvidia-smi's total (modal-labs/modal-client PR #2797,
    # 81,559 MiB) is kept as the driver's figure
    assert hardware.memory_gb("H100-SXM") == 80
    assert hardware.driver_memory_gb("H100-SXM") == pytest.approx(81559 * 2**20 / 1e9)
    assert hardware.mem_bw_tbps("A100-40GB") == 1.555 and hardware.tdp_w("A100-40GB") == 400


# --- the registry ----------------------------------------------------------------------------

def test_registry_size_and_kinds(results: pd.DataFrame) -> None:
    assert len(audit.REGISTRY) >= 40
    assert set(results["kind"]) == set(audit.KINDS)
    assert set(results["verdict"]) <= set(audit.VERDICTS)


def test_every_check_names_existing_claims(c: audit.Claims) -> None:
    for chk in audit.REGISTRY.values():
        for cid in chk.claim_ids:
            assert isinstance(c.row(cid)["citekey"], str)  # raises DataError if the claim is missing


def test_every_check_has_a_test() -> None:
    src = open(__file__, encoding="utf-8").read()
    missing = [cid for cid in audit.REGISTRY if f'"{cid}"' not in src]
    assert not missing


def test_plausible_verdicts_name_their_assumption(results: pd.DataFrame) -> None:
    sub = results[results["verdict"] == audit.PLAUSIBLE]
    assert len(sub) > 0
    assert (sub["assumption"].str.len() > 10).all()


def test_missing_hardware_figure_is_not_checkable() -> None:
    # V100 has no BF16 peak in data/hardware.csv: peak_input raises DataError
    @audit.check("test-missing-peak", "shah2024flashattention3", ["shah2024flashattention3-3"], "utilization",
                  "test only")
    def _bad(c: audit.Claims) -> audit.Result:
        peak, _ = audit.peak_input("V100", "bf16")
        return audit.Result(1.0, peak, "x", 0.0, "consistent", "")

    try:
        df = audit.run_all().set_index("check_id")
    finally:
        del audit.REGISTRY["test-missing-peak"]
    row = df.loc["test-missing-peak"]
    assert row["verdict"] == "not checkable"
    assert "peak_bf16_tflops" in row["explanation"]
    assert pd.isna(row["recomputed"])


def test_missing_claim_and_constant_raise(c: audit.Claims) -> None:
    with pytest.raises(DataError):
        c.value("nosuchpaper-1")
    with pytest.raises(DataError):
        audit.constant("no_such_constant")


def test_plausible_without_assumption_is_refused() -> None:
    @audit.check("test-no-assumption", "shah2024flashattention3", ["shah2024flashattention3-3"], "utilization",
                  "test only")
    def _bad(c: audit.Claims) -> audit.Result:
        return audit.Result(1.0, 1.0, "x", 0.0, audit.PLAUSIBLE, "1 = 1")

    try:
        with pytest.raises(ValueError, match="assumption"):
            audit.run_all()
    finally:
        del audit.REGISTRY["test-no-assumption"]


def test_verdicts_by_citekey(results: pd.DataFrame) -> None:
    v = audit.verdicts_by_citekey(results.reset_index())
    assert "consistent (fa3-fp16-utilization)" in v["shah2024flashattention3"]


# --- utilisation and aggregate throughput ------------------------------------------------------

def test_fa3_fp16_utilization(c: audit.Claims) -> None:
    r = run(c, "fa3-fp16-utilization")
    assert r.recomputed == pytest.approx(74.79, rel=REL)  # 740 / 989.4 = 0.7479 -> 74.8%
    assert r.tolerance == pytest.approx(0.5 / 75 + 0.5 / 740)  # 0.0067 + 0.0007
    assert r.verdict == "consistent"  # 74.79/75 - 1 = -0.28%


def test_fa3_fp8_peak(c: audit.Claims) -> None:
    r = run(c, "fa3-fp8-peak")
    assert r.reported == pytest.approx(1200)  # 1.2 PFLOP/s = 1200 TFLOP/s
    assert r.recomputed == pytest.approx(1978.9)  # dense FP8 peak; 1200 / 1978.9 = 60.6%
    assert r.verdict == "consistent"


def test_fa3_speedup_vs_fa2(c: audit.Claims) -> None:
    r = run(c, "fa3-speedup-vs-fa2")
    assert r.recomputed == pytest.approx(2.1429, rel=REL)  # 75 / 35 = 2.143 > 2.0
    # tolerance 0.05/2.0 + 0.5/75 + 0.5/35 = 0.025 + 0.0067 + 0.0143 = 0.046 < 0.071
    assert r.verdict == audit.PLAUSIBLE


def test_megatron_aggregate(c: audit.Claims) -> None:
    r = run(c, "megatron-aggregate")
    # 502e3 TFLOP/s / 3072 = 163.41 TFLOP/s per GPU; / 312 = 0.5238 -> 52.4%
    assert r.recomputed == pytest.approx(52.38, rel=REL)
    assert r.verdict == "consistent"  # 52.38/52 - 1 = 0.73% <= 0.5/52 + 0.5/502 = 1.06%


def test_zero_infinity_aggregate(c: audit.Claims) -> None:
    r = run(c, "zero-infinity-aggregate")
    assert r.recomputed == pytest.approx(25.6)  # 0.40 x 125 x 512 = 25,600 TFLOP/s = 25.6 PFLOP/s
    assert r.relation == "≤" and r.verdict == "consistent"  # "over 25" <= 25.6


def test_fuyou_utilization(c: audit.Claims) -> None:
    r = run(c, "fuyou-utilization")
    # Against the measured cuBLAS FP16 GEMM on the card (256.36 TFLOP/s, CUDA-Learn-Notes' RTX 4090 bench):
    # 156 / 256.36 = 0.6085. The same GEMM fraction (256.36 / 330.3 = 0.7762) of the FP32-accumulate peak
    # 165.2 is 128.2 TFLOP/s, below 156: plausible only with FP16 accumulation.
    assert r.reported / r.recomputed == pytest.approx(0.6085, rel=REL)
    assert r.verdict == audit.PLAUSIBLE and "FP16 accumulation" in r.assumption and "128 TFLOP/s" in r.assumption


def test_fuyou_zero_infinity_utilization(c: audit.Claims) -> None:
    r = run(c, "fuyou-zero-infinity-utilization")
    assert r.reported / r.recomputed == pytest.approx(0.2724, rel=REL)  # 45 / 165.2 = 0.272
    assert r.verdict == "consistent"


# --- GPU time ----------------------------------------------------------------------------------

def test_pythia_gpu_days(c: audit.Claims) -> None:
    r = run(c, "pythia-gpu-days")
    assert r.recomputed == pytest.approx(2.667, rel=REL)  # (64 x 3) / (4 x 18) = 192 / 72
    assert r.verdict == "consistent"  # |2.667/3 - 1| = 11% <= 0.5/3 = 16.7%


def test_pythia_budget(c: audit.Claims) -> None:
    r = run(c, "pythia-budget")
    assert r.recomputed == pytest.approx(1728)  # 4 x 18 x 24 = 1,728 GPU-hours of 2,000
    assert r.verdict == audit.PLAUSIBLE


def test_pixart_time_share(c: audit.Claims) -> None:
    r = run(c, "pixart-time-share")
    assert r.recomputed == pytest.approx(10.8)  # 675 / 6,250 = 0.108
    assert r.verdict == "consistent"


def test_hipa_speedup(c: audit.Claims) -> None:
    r = run(c, "hipa-speedup")
    assert r.recomputed == pytest.approx(28.63, rel=REL)  # 108.8 / 3.8 = 28.63
    assert r.verdict == "consistent"


def test_cod_speedup(c: audit.Claims) -> None:
    r = run(c, "cod-speedup")
    assert r.recomputed == pytest.approx(312.5)  # 6,250 / 20 = 312.5
    assert r.tolerance == pytest.approx(50 / 300 + 5 / 20 + 5 / 6250)  # all approximate
    assert r.verdict == "consistent"


def test_lifelong_reduction(c: audit.Claims) -> None:
    r = run(c, "lifelong-reduction")
    assert r.recomputed == pytest.approx(864)  # 180 x 24 = 4,320 GPU-hours / 5 = 864
    assert r.verdict == "consistent"  # 864 vs "1000x" at one significant figure (500-1500)


def test_fusemix_gpu_days(results: pd.DataFrame) -> None:
    row = results.loc["fusemix-gpu-days"]  # the abstract gives only "~600x"
    assert row["verdict"] == "not checkable" and "only the ratio" in row["explanation"]


# --- ratios and percentages from two stated numbers ------------------------------------------------

def test_hipa_parameter_share(c: audit.Claims) -> None:
    r = run(c, "hipa-parameter-share")
    assert r.recomputed == pytest.approx(0.04264, rel=REL)  # 3.3 / 7,740 = 0.0004264 -> 0.0426%
    assert r.verdict == "consistent"  # 6.6% off, within 0.005/0.04 + 0.05/3.3 = 14%


def test_pixart_savings(c: audit.Claims) -> None:
    r = run(c, "pixart-savings")
    assert r.recomputed == pytest.approx(294_000)  # 320,000 - 26,000
    assert r.verdict == "consistent"  # "nearly 300,000": within 50,000/300,000


def test_pixart_cost_vs_time(c: audit.Claims) -> None:
    r = run(c, "pixart-cost-vs-time")
    # SD: 320,000 / (6,250 x 24 = 150,000 h) = $2.1333/h; PixArt: 675 x 24 = 16,200 h x 2.1333 = $34,560
    assert r.recomputed == pytest.approx(34_560, rel=REL)
    assert r.verdict == "inconsistent"  # stated $26,000


def test_falk_mfu_reduction(c: audit.Claims) -> None:
    r = run(c, "falk-mfu-reduction")
    assert r.recomputed == pytest.approx(66.67, rel=REL)  # 1 - 20/60 = 0.6667
    assert r.verdict == "consistent"  # 67% +- 0.5


def test_falk_combined_reduction(c: audit.Claims) -> None:
    r = run(c, "falk-combined-reduction")
    assert r.recomputed == pytest.approx(88.89, rel=REL)  # 1 - (20/60) x (1/3) = 1 - 1/9
    assert r.verdict == "inconsistent"  # stated "up to 93%"


def test_zero_infinity_memory_growth(c: audit.Claims) -> None:
    r = run(c, "zero-infinity-memory-growth")
    assert r.recomputed == pytest.approx(5.0)  # 80 GB / 16 GB
    assert r.verdict == "consistent"


def test_avinash_paged_throughput(c: audit.Claims) -> None:
    r = run(c, "avinash-paged-throughput")
    assert r.recomputed == pytest.approx(25.6)  # 628 / 500 - 1 = 0.256
    assert r.verdict == "inconsistent"  # 2.4% above 25, tolerance 0.5/25 + 0.5/628 + 0.5/500 = 2.18%


def test_pipo_utilization(c: audit.Claims) -> None:
    r = run(c, "pipo-utilization")
    assert r.recomputed == pytest.approx(29.03, rel=REL)  # 90% / 3.1 = 29.0% baseline, below 40%
    assert r.verdict == "consistent"


def test_onesweep_traffic_ratio(c: audit.Claims) -> None:
    r = run(c, "onesweep-traffic-ratio")
    assert r.recomputed == pytest.approx(1.5)  # 3n / 2n
    assert r.verdict == audit.PLAUSIBLE


def test_sequence_parallel_27x(c: audit.Claims) -> None:
    r = run(c, "sequence-parallel-27x")
    assert r.recomputed == pytest.approx(27.83, rel=REL)  # 114,000 / 4,096 = 27.8 >= 27
    assert r.verdict == audit.PLAUSIBLE


def test_marlin_4x(c: audit.Claims) -> None:
    r = run(c, "marlin-4x")
    assert r.recomputed == pytest.approx(4.0)  # 16 bits / 4 bits
    assert r.verdict == "consistent"


def test_cottier_billion_2027(c: audit.Claims) -> None:
    r = run(c, "cottier-billion-2027")
    # 2.4^4 = 33.18; two items of at least $10M: $20M x 33.18 = $663.6M; $1B / 33.18 = $30.1M needed
    assert r.recomputed == pytest.approx(663.55e6, rel=REL)
    assert r.verdict == audit.PLAUSIBLE and "$30M" in r.assumption


# --- unit conversions ---------------------------------------------------------------------------

def test_caffe_images_per_day(c: audit.Claims) -> None:
    r = run(c, "caffe-images-per-day")
    assert r.recomputed == pytest.approx(2.16)  # 86,400 s / 40e6 images = 2.16 ms
    assert r.verdict == "inconsistent"  # stated ~2.5 ms (2.45-2.55)


def test_nas_conventional_cost(c: audit.Claims) -> None:
    r = run(c, "nas-conventional-cost")
    assert r.recomputed == pytest.approx(48_000)  # NASNet 2,000 GPU-days x 24
    assert r.verdict == audit.PLAUSIBLE  # same decade as 10^4


# --- cost per GPU-hour ---------------------------------------------------------------------------

def test_pixart_cost_rate(c: audit.Claims) -> None:
    r = run(c, "pixart-cost-rate")
    # 26,000 / 16,200 = $1.60/h, inside $1.10-4.10; at the default $2.93 (the median of Epoch's A100-40GB
    # providers): 16,200 x 2.93 = $47,466
    assert r.recomputed == pytest.approx(47_466)
    assert r.verdict == audit.PLAUSIBLE and "1.60" in r.assumption


def test_pixart_sd_cost_rate(c: audit.Claims) -> None:
    r = run(c, "pixart-sd-cost-rate")
    assert r.recomputed == pytest.approx(439_500)  # 150,000 x 2.93; implied 320,000/150,000 = $2.13/h
    assert r.verdict == audit.PLAUSIBLE and "2.13" in r.assumption


def test_harmony_cost_rate(c: audit.Claims) -> None:
    r = run(c, "harmony-cost-rate")
    assert r.recomputed == pytest.approx(102_550)  # 35,000 x 2.93; implied 100,000/35,000 = $2.86/h
    assert r.verdict == audit.PLAUSIBLE and "2.86" in r.assumption


# --- energy and CO2 --------------------------------------------------------------------------------

def test_pixart_co2(c: audit.Claims) -> None:
    r = run(c, "pixart-co2")
    # the book's chain: 16,200 h x 400 W x 0.75 x 2.03 (DGX A100 server) x 1.25 = 12,332 kWh x 0.48 = 5.92 t;
    # 150,000 h -> 114,188 kWh -> 54.8 t; 1 - 5.92 / 54.8 = 0.892 (the ratio 675/6,250 whatever the assumptions)
    assert r.recomputed == pytest.approx(89.2)
    assert "5.9 tCO2e vs 54.8 tCO2e" in r.formula
    assert r.verdict == audit.PLAUSIBLE  # within 5/90 of "90%"


def test_fireflyer_energy(results: pd.DataFrame) -> None:
    row = results.loc["fireflyer-energy"]  # no PCIe A100 power in data/hardware.csv
    assert row["verdict"] == "not checkable" and "A100-PCIe" in row["explanation"]


# --- compute from parameters and tokens ---------------------------------------------------------------

def test_frontier_6nd(c: audit.Claims) -> None:
    r = run(c, "frontier-6nd")
    assert r.recomputed == pytest.approx(1.2e26)  # 6 x 1e12 x 20e12 = 1.2e26 = 120 million x 1e18
    assert r.verdict == "consistent"


def test_curie_6nd(c: audit.Claims) -> None:
    r = run(c, "curie-6nd")
    # 6 x 7e9 x 276e6 = 1.159e19 FLOP; / (165.2e12 x 86,400) = 0.812 days at 100% MFU; / 5 = 16%
    assert r.recomputed == pytest.approx(0.8121, rel=REL)
    assert r.verdict == audit.PLAUSIBLE and "16%" in r.assumption


# --- memory --------------------------------------------------------------------------------------------

def test_glm130b_int4_rtx3090(c: audit.Claims) -> None:
    r = run(c, "glm130b-int4-rtx3090")
    assert r.recomputed == 3  # 130e9 x 0.5 B = 65 GB; 65/24 = 2.7 -> 3 <= 4
    assert r.verdict == "consistent"


def test_glm130b_int4_rtx2080ti(c: audit.Claims) -> None:
    r = run(c, "glm130b-int4-rtx2080ti")
    assert r.recomputed == 6  # 65 / 11 = 5.9 -> 6 <= 8
    assert r.verdict == "consistent"


def test_qmoe_bf16_memory(c: audit.Claims) -> None:
    r = run(c, "qmoe-bf16-memory")
    assert r.recomputed == pytest.approx(3.2)  # 1.6e12 x 2 bytes = 3.2e12 B
    assert r.verdict == "consistent"


def test_qmoe_compressed_size(c: audit.Claims) -> None:
    r = run(c, "qmoe-compressed-size")
    assert r.recomputed == pytest.approx(160)  # 1.6e12 x 0.8 / 8 = 1.6e11 B
    assert r.verdict == "consistent"


def test_qmoe_compression_ratio(c: audit.Claims) -> None:
    r = run(c, "qmoe-compression-ratio")
    assert r.recomputed == pytest.approx(20)  # 16 / 0.8
    assert r.verdict == "consistent"


def test_qmoe_4xa6000(c: audit.Claims) -> None:
    r = run(c, "qmoe-4xa6000")
    assert r.recomputed == 4  # 160 / 48 = 3.33 -> 4 <= 4
    assert r.verdict == "consistent"


def test_qmoe_8xrtx3090(c: audit.Claims) -> None:
    r = run(c, "qmoe-8xrtx3090")
    assert r.recomputed == 7  # 160 / 24 = 6.67 -> 7 <= 8
    assert r.verdict == "consistent"


def test_nemotron_fp8_dgx(c: audit.Claims) -> None:
    r = run(c, "nemotron-fp8-dgx")
    # 340e9 x 1 B = 340 GB; an "80 GB" H100 on the book's one basis (nominal, 10^9 bytes): 340/80 = 4.25 -> 5 <= 8
    assert r.recomputed == 5
    assert r.verdict == "consistent"


def test_kurtail_spinquant_70b(c: audit.Claims) -> None:
    r = run(c, "kurtail-spinquant-70b")
    assert r.recomputed == 2  # 70e9 x 2 B = 140 GB; 140/80 = 1.75 -> 2 <= 4
    assert r.verdict == "consistent"


def test_zero_infinity_800_v100(c: audit.Claims) -> None:
    r = run(c, "zero-infinity-800-v100")
    assert r.recomputed == 500  # 1e12 x 16 B = 16,000 GB; / 32 GB = 500 < 800
    assert r.verdict == audit.PLAUSIBLE


def test_zero_infinity_dgx2(c: audit.Claims) -> None:
    r = run(c, "zero-infinity-dgx2")
    assert r.recomputed == pytest.approx(31.25)  # 500 V100 / 16 per DGX-2
    assert r.verdict == audit.PLAUSIBLE


def test_hift_7b_a6000(c: audit.Claims) -> None:
    r = run(c, "hift-7b-a6000")
    assert r.recomputed == pytest.approx(44.8)  # 7e9 x (4+4+8) B = 112 GB; x 0.4 = 44.8 <= 48
    assert r.verdict == audit.PLAUSIBLE


def test_locret_128k_rtx4090(c: audit.Claims) -> None:
    r = run(c, "locret-128k-rtx4090")
    # KV per token 2 x 32 x 8 x 128 x 2 B = 131,072 B; / 8 = 16,384 B; (24 - 16) GB / 16,384 B
    # = 488,281 tokens = 476.8 K (1 K = 1,024)
    assert r.recomputed == pytest.approx(476.8, rel=REL)
    assert r.verdict == "consistent"


def test_fiddler_mixtral_size(c: audit.Claims) -> None:
    r = run(c, "fiddler-mixtral-size")
    assert r.recomputed == pytest.approx(94)  # 47e9 x 2 B > 90 GB
    assert r.verdict == "consistent"


def test_samba_coe_memory(c: audit.Claims) -> None:
    r = run(c, "samba-coe-memory")
    assert r.recomputed == 32  # 1e12 x 2 B = 2,000 GB / 64 GB HBM = 31.25 -> 32 sockets
    assert r.verdict == audit.PLAUSIBLE


def test_onesweep_bandwidth(c: audit.Claims) -> None:
    r = run(c, "onesweep-bandwidth")
    # 4 passes x 2 x 4 B = 32 B per key; 1,555 GB/s / 32 = 48.6 GKey/s >= 29.4 (29.4 x 32 = 941 GB/s, 61%)
    assert r.recomputed == pytest.approx(48.59, rel=REL)
    assert r.verdict == audit.PLAUSIBLE


# --- added with the rules: arithmetic that no rule can link from the ledger's types ---------------------

def test_lca_bloom_categories(c: audit.Claims) -> None:
    r = run(c, "lca-bloom-categories")
    assert r.recomputed == 16  # use phase 11 + manufacturing "the remaining 5" = 16 categories
    assert r.verdict == "consistent"


def test_lca_gpt4_categories(c: audit.Claims) -> None:
    r = run(c, "lca-gpt4-categories")
    assert r.reported == 16 and r.recomputed == 16  # 10 + 6 = 16, at most the 16 categories examined
    assert r.relation == "≤" and r.verdict == "consistent"


def test_ptqtp_ternary_bits(c: audit.Claims) -> None:
    r = run(c, "ptqtp-ternary-bits")
    # log2(3) = ln 3 / ln 2 = 1.0986 / 0.6931 = 1.5850 bits; "1.58" stands for 1.575-1.585 (0.005/1.58 = 0.32%),
    # and 1.5850/1.58 - 1 = 0.31%
    assert r.recomputed == pytest.approx(1.5850, rel=REL)
    assert r.verdict == "consistent"


def test_sd_gpu_days_restated(c: audit.Claims) -> None:
    r = run(c, "sd-gpu-days-restated")
    assert r.reported == 6250 and r.recomputed == 6250  # "~6,250" (CoD) and "6,250" (PixArt-α)
    assert r.verdict == "consistent"


def test_priced_at_reads_back_the_price_a_check_used():
    from analysis.audit import inputs

    assert inputs.priced_at(inputs.price_input("gpu_hour_usd_v100")[3]) == "gpu_hour_usd_v100"
    assert inputs.priced_at("the book's one chain at its central defaults") is None
    assert inputs.priced_at("") is None


def test_price_interval_is_the_triangular_price_percentiles():
    # gpu_hour_usd_a100_40gb in data/assumptions.yml: 2.93 (1.1-4.1); a rent of 100 USD at 2.93 scales with the
    # price. Closed-form 10th/90th percentiles of a triangular (a, c, b), mode at 0.61 of the range:
    # a + sqrt(0.1 (b-a)(c-a)) and b - sqrt(0.1 (b-a)(b-c)).
    import math

    from analysis.audit import inputs

    a, c, b = 1.1, 2.93, 4.1
    iv = inputs.price_interval(100.0, "gpu_hour_usd_a100_40gb")
    assert iv.central == pytest.approx(100.0)
    assert iv.low == pytest.approx(100 * (a + math.sqrt(0.1 * (b - a) * (c - a))) / c, rel=0.02)
    assert iv.high == pytest.approx(100 * (b - math.sqrt(0.1 * (b - a) * (b - c))) / c, rel=0.02)
