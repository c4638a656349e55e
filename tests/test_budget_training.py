"""Unit tests of analysis.budget_training. Expected values are worked by hand from the papers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.models import ModelError
from analysis.themes import budget_training as bt


def test_gpu_days_pythia():
    # khandelwal2024100k: Pythia-1B originally 64 GPUs x 3 days = 192; replication 4 x 18 = 72.
    assert bt.gpu_days(64, 3) == 192
    assert bt.gpu_days(4, 18) == 72
    # 192 / 72 = 2.667, which the abstract rounds to "3x fewer GPU-days".
    assert bt.reduction(192, 72) == pytest.approx(2.6667, rel=1e-4)


def test_electra_flop_and_gpu_day_ratios():
    # ELECTRA Table 1: GPT 4.0e19 train FLOPs on 8 P6000 x 25 d; ELECTRA-Small 1.4e18 on 1 V100 x 4 d.
    assert bt.reduction(4.0e19, 1.4e18) == pytest.approx(28.57, rel=1e-3)  # "30x more compute"
    assert bt.reduction(bt.gpu_days(8, 25), bt.gpu_days(1, 4)) == pytest.approx(50.0)  # 200 / 4


def test_implied_fusemix_budget():
    # CLIP ViT-L/14: 256 V100 x 12 d = 3072 GPU-days (Radford et al. 2021, Sec. 2.5); / 600 = 5.12.
    assert bt.implied_gpu_days(3072, 600) == pytest.approx(5.12)


def test_peak_equivalent_gpu_days():
    # 32 A100 GPU-days at 312 TFLOP/s dense BF16 = 32 * 312 / 125 = 79.872 V100-days (125 TFLOP/s FP16).
    assert bt.peak_equivalent_gpu_days(32, 312, 125) == pytest.approx(79.872)


def test_rental_usd():
    # One GPU-day at 0.20 USD/h = 24 h * 0.2 = 4.80 USD; 72 GPU-days at 5.12 = 1728 h * 5.12 = 8847.36 USD.
    assert bt.rental_usd(1, 0.2) == pytest.approx(4.8)
    assert bt.rental_usd(72, 5.12) == pytest.approx(8847.36)


def test_fraction_of_peak_and_hours():
    # Fuyou: 156 TFLOP/s on an RTX 4090 whose dense FP16 (FP32-accumulate) peak is 165.2: 0.9443.
    assert bt.fraction_of_peak(156, 165.2) == pytest.approx(0.9443, rel=1e-3)
    # 100e6 tokens at 500 tokens/s = 200,000 s = 55.56 h.
    assert bt.hours_for_tokens(100e6, 500) == pytest.approx(55.556, rel=1e-4)


@pytest.mark.parametrize("fn,args", [(bt.gpu_days, (0, 3)), (bt.implied_gpu_days, (10, 0)),
                                     (bt.reduction, (-1, 2)), (bt.peak_equivalent_gpu_days, (1, 0, 1)),
                                     (bt.hours_for_tokens, (1, 0))])
def test_bad_inputs_raise(fn, args):
    with pytest.raises(ModelError):
        fn(*args)


def _toy() -> pd.DataFrame:
    nan = math.nan
    rows = [
        # case a: baseline 64 x 3 = 192; budget stated 4 x 18 = 72
        ("a-base", "a", "baseline", 64, 3, nan, nan, None, "datacentre"),
        ("a-cheap", "a", "budget", 4, 18, nan, 3, None, "datacentre"),
        # case b: baseline 3072 V100 GPU-days; budget only as a 600x reduction -> 5.12
        ("b-base", "b", "baseline", nan, nan, 3072, nan, "V100", "datacentre"),
        ("b-cheap", "b", "budget", nan, nan, nan, 600, None, "consumer"),
    ]
    df = pd.DataFrame(rows, columns=["row_id", "case", "role", "n_gpus", "days", "gpu_days", "reduction_x",
                                     "hardware_id", "hardware_class"])
    df["gpu_days_stated"] = [192, 72, 3072, nan]
    for col in ["citekey", "model", "quality_metric"]:
        df[col] = "x"
    df["train_flop"] = nan
    df["quality_value"] = nan
    return df


def test_pairs_and_pricing_on_toy_table():
    pr = bt.pairs(_toy())
    a = pr[pr.case == "a"].iloc[0]
    assert a.ratio_gpu_days == pytest.approx(192 / 72)
    b = pr[pr.case == "b"].iloc[0]
    assert b.implied and b.budget_gpu_days == pytest.approx(5.12)
    priced = bt.priced(_toy(), {"V100": 3.9}, {"datacentre": 5.12, "consumer": 0.2}).set_index("row_id")
    # 3072 GPU-days * 24 h * 3.9 USD/h = 287,539.2 USD (own price); 5.12 * 24 * 0.2 = 24.576 USD (class price)
    assert priced.loc["b-base", "usd"] == pytest.approx(287539.2)
    assert priced.loc["b-cheap", "usd"] == pytest.approx(24.576)


def test_data_file_validates():
    df = bt.load_budgets()
    assert set(df.role) == {"budget", "baseline"}
    row = df.set_index("row_id").loc["pythia-original"]
    assert row.gpu_days_stated == 192


def _triangular_percentile(q: float, a: float, c: float, b: float) -> float:
    """Closed-form q-quantile of a triangular distribution (ends a, b; mode c)."""
    if q <= (c - a) / (b - a):
        return a + math.sqrt(q * (b - a) * (c - a))
    return b - math.sqrt((1 - q) * (b - a) * (b - c))


def test_rental_interval_is_the_price_percentiles_times_the_hours():
    # gpu_hour_usd_v100 in data/assumptions.yml: 2.48 (2.19-3.9); 10 GPU-days = 240 GPU-hours
    iv = bt.rental_interval(10.0, "gpu_hour_usd_v100")
    assert iv.central == pytest.approx(240 * 2.48)
    assert iv.low == pytest.approx(240 * _triangular_percentile(0.1, 2.19, 2.48, 3.9), rel=0.02)
    assert iv.high == pytest.approx(240 * _triangular_percentile(0.9, 2.19, 2.48, 3.9), rel=0.02)


def test_rental_interval_scales_the_range_with_a_readers_price():
    iv = bt.rental_interval(10.0, "gpu_hour_usd_v100", 4.96)  # twice the default: the range doubles too
    assert iv.central == pytest.approx(240 * 4.96)
    assert iv.low == pytest.approx(2 * 240 * _triangular_percentile(0.1, 2.19, 2.48, 3.9), rel=0.02)


def test_a_price_with_one_provider_has_no_range():
    # chip_hour_usd_tpu_v3: one provider, low and high null
    assert not bt.has_range("chip_hour_usd_tpu_v3")
    iv = bt.rental_interval(1.0, "chip_hour_usd_tpu_v3")
    assert iv.low == iv.central == iv.high == pytest.approx(24 * 2.0)


def test_unnamed_gpu_rent_spreads_over_the_band():
    # an unnamed data-centre GPU: central at the A100 40 GB price (2.93 USD/h in data/assumptions.yml); the draws
    # spread over V100 (2.19-3.9), A100 40 GB (1.1-4.1) and H100 (2.45-12.29), so the interval lies inside
    # 24 x [1.1, 12.29] per GPU-day and reaches above the A100's own top price
    iv = bt.rental_interval_unnamed(1.0)
    assert iv.central == pytest.approx(24 * 2.93)
    assert 24 * 1.1 <= iv.low <= iv.central <= iv.high <= 24 * 12.29
    assert iv.high > 24 * 4.1
    # the book's own A100 price given explicitly is the same case (not a reader's price held fixed)
    assert bt.rental_interval_unnamed(1.0, 2.93) == iv


def test_run_citekey_names_the_run_only_where_its_paper_has_several():
    # a hand-made table: paper a2024x has two runs, b2023y one; clip-vitl14 is the reference run of REF_RUNS
    runs = pd.DataFrame({"row_id": ["a-small", "a-large", "b-only", "clip-vitl14"],
                         "citekey": ["a2024x", "a2024x", "b2023y", "b2023y"]})
    assert bt.run_citekey(runs, "a-small") == "a2024x:a-small"
    assert bt.run_citekey(runs, "a-large") == "a2024x:a-large"
    assert bt.run_citekey(runs.iloc[:3], "b-only") == "b2023y"
    assert bt.run_citekey(runs, "b-only") == "b2023y:b-only"  # two rows of b2023y in the whole table
    assert bt.run_citekey(runs, "clip-vitl14") == "ref:clip-vitl14"
