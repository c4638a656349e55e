"""Unit tests of analysis.scaling. Expected values are worked out by hand from the published figures."""

from __future__ import annotations

import pytest

from analysis import models
from analysis.themes import scaling as s


def test_pf_day():
    # 1 PF-day = 1e15 FLOP/s × 86,400 s = 8.64e19 FLOP (Kaplan et al. 2020, Sec. 1.3).
    assert s.PF_DAY_FLOP == pytest.approx(8.64e19)
    assert s.flop_to_pf_days(8.64e21) == pytest.approx(100.0)


def test_kaplan_constants_from_table5():
    # Kaplan et al. 2020, Table 5: alpha_N = 0.076, N_c = 8.8e13; Table 6: p_N = 0.73, N_e = 1.3e9.
    k = s.constants("kaplan2020")
    assert k["alpha_N"] == 0.076 and k["N_c"] == 8.8e13
    assert k["p_N"] == 0.73 and k["N_e"] == 1.3e9


def test_power_law_loss_by_hand():
    # L(N) = (8.8e13 / 8.8e9)^0.076 = (1e4)^0.076 = 10^0.304 = 2.014.
    assert s.power_law_loss(8.8e9, 8.8e13, 0.076) == pytest.approx(10**0.304, rel=1e-9)
    assert s.power_law_loss(8.8e13, 8.8e13, 0.076) == pytest.approx(1.0)


def test_kaplan_optimal_at_one_pf_day():
    # At C_min = 1 PF-day, Table 6 gives N_opt = N_e = 1.3e9 and D_opt = D_e = 2e10 tokens.
    n, d = s.kaplan_optimal(8.64e19, 1.3e9, 0.73, 2e10, 0.27)
    assert n == pytest.approx(1.3e9)
    assert d == pytest.approx(2e10)
    # And at 100 PF-days: N = 1.3e9 × 100^0.73 = 1.3e9 × 10^1.46 = 1.3e9 × 28.84 = 3.75e10.
    n100, _ = s.kaplan_optimal(8.64e21, 1.3e9, 0.73, 2e10, 0.27)
    assert n100 == pytest.approx(3.75e10, rel=0.01)
    assert s.compute_where_optimal_kaplan(n100, 1.3e9, 0.73) == pytest.approx(8.64e21, rel=1e-9)


def test_chinchilla_optimal_by_hand():
    # Hoffmann et al. 2022 eq. (4), App. D.2: A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28.
    # G = (0.34·406.4 / (0.28·410.7))^(1/0.62) = (138.18/115.00)^1.6129 = 1.2016^1.6129 = 1.345.
    # At C = 5.76e23 FLOP (Chinchilla's budget): C/6 = 9.6e22; (9.6e22)^(0.28/0.62 = 0.4516)
    # = exp(0.4516 × 52.919) = exp(23.899) = 2.39e10; N_opt = 1.345 × 2.39e10 ≈ 3.22e10.
    n, d = s.chinchilla_optimal(5.76e23, 406.4, 410.7, 0.34, 0.28)
    assert n == pytest.approx(3.22e10, rel=0.01)
    assert 6 * n * d == pytest.approx(5.76e23)
    assert s.compute_where_optimal_chinchilla(n, 406.4, 410.7, 0.34, 0.28) == pytest.approx(5.76e23, rel=1e-9)


def test_chinchilla_loss_by_hand():
    # L(70e9, 1.4e12) = 1.69 + 406.4/70e9^0.34 + 410.7/1.4e12^0.28
    # 70e9^0.34 = 10^(10.845×0.34 = 3.6874) = 4869 → 0.0835; 1.4e12^0.28 = 10^(12.146×0.28 = 3.4009) = 2517 → 0.1632.
    # Sum = 1.69 + 0.0835 + 0.1632 = 1.937.
    assert s.chinchilla_loss(70e9, 1.4e12, 1.69, 406.4, 410.7, 0.34, 0.28) == pytest.approx(1.937, abs=0.002)


def test_s1_flops_per_query():
    # s1-32B, AIME24: 7,320 thinking tokens (Muennighoff et al. 2025, Sec. 3.2) × 2 × 32e9 = 4.685e14 FLOP.
    assert s.flops_per_query(32e9, 7320) == pytest.approx(4.685e14, rel=1e-3)


def test_usd_per_query_by_hand():
    # 7,320 tokens at 50 tokens/s = 146.4 s; at 12.29 USD/h that is 146.4/3600 × 12.29 = 0.4998 USD.
    assert s.usd_per_query(7320, 50, 12.29) == pytest.approx(0.4998, rel=1e-3)


def test_training_budget_in_queries():
    # 7 H100-hours at the 989.4 TFLOP/s BF16 dense peak: 7 × 3600 × 989.4e12 = 2.493e19 FLOP,
    # which is 2.493e19 / 4.685e14 = 53,200 queries of 7,320 tokens on a 32B model.
    f = s.gpu_hours_to_flop(7, 989.4)
    assert f == pytest.approx(2.493e19, rel=1e-3)
    assert s.queries_per_training_budget(f, s.flops_per_query(32e9, 7320)) == pytest.approx(53200, rel=0.01)


def test_bad_input_raises():
    with pytest.raises(models.ModelError):
        s.gpu_hours_to_flop(1, 100, mfu=1.5)
    with pytest.raises(models.ModelError):
        s.power_law_loss(-1, 1, 0.1)
    with pytest.raises(KeyError):
        s.constants("nope")


def test_log_space_endpoints():
    xs = s.log_space(1e3, 1e6, 4)
    assert xs == pytest.approx([1e3, 1e4, 1e5, 1e6])


def test_hoffmann_approaches_1_and_2_through_their_tables():
    # Hoffmann et al. 2022, Table 2: a = b = 0.50 (Approach 1); Table 3, row 67B: 5.76e23 FLOPs, 1.5T tokens.
    # At 4 x 5.76e23 FLOP the size and the tokens both double: 134B parameters on 3.0T tokens.
    a1 = s.constants("hoffmann2022_a1")
    assert (a1["a"], a1["b"], a1["N_ref"], a1["C_ref"], a1["D_ref"]) == (0.50, 0.50, 6.7e10, 5.76e23, 1.5e12)
    n, d = s.anchored_optimal(4 * 5.76e23, a1["N_ref"], a1["D_ref"], a1["C_ref"], a1["a"], a1["b"])
    assert n == pytest.approx(1.34e11) and d == pytest.approx(3.0e12)
    # Table 3's own 175B row (3.85e24 FLOPs) from the 67B row: 67B x (3.85e24 / 5.76e23)^0.5 = 67B x 2.585 = 173B.
    n175, _ = s.anchored_optimal(3.85e24, 6.7e10, 1.5e12, 5.76e23, 0.50, 0.50)
    assert n175 == pytest.approx(1.73e11, rel=0.01)
    # Approach 2 (Table 2: 0.49 / 0.51; Table A3, row 67B: 6.88e23 FLOPs, 1.7T tokens): at the anchor it is the anchor.
    a2 = s.constants("hoffmann2022_a2")
    assert s.anchored_optimal(6.88e23, a2["N_ref"], a2["D_ref"], a2["C_ref"], a2["a"], a2["b"]) == pytest.approx(
        (6.7e10, 1.7e12))
    with pytest.raises(models.ModelError):
        s.anchored_optimal(0, 6.7e10, 1.5e12, 5.76e23, 0.5, 0.5)


def test_usd_per_query_interval_follows_the_price_percentiles():
    # gpu_hour_usd_h100 in data/assumptions.yml: 4.395 (2.45-12.29), triangular. 3,600 tokens at 1 token/s is one
    # GPU-hour: the cost is the price. Closed-form triangular 10th/90th percentiles (mode at 0.198 of the range).
    import math

    a, c, b = 2.45, 4.395, 12.29
    p10, p90 = a + math.sqrt(0.1 * (b - a) * (c - a)), b - math.sqrt(0.1 * (b - a) * (b - c))
    iv = s.usd_per_query_interval(3600, 1.0, "gpu_hour_usd_h100")
    assert iv.central == pytest.approx(c)
    assert (iv.low, iv.high) == (pytest.approx(p10, rel=0.02), pytest.approx(p90, rel=0.02))
    # a stated 10 USD as a multiple of it: 10/c, and its ends swap
    r = s.usd_per_query_interval(3600, 1.0, "gpu_hour_usd_h100", over=10.0)
    assert r.central == pytest.approx(10 / c)
    assert (r.low, r.high) == (pytest.approx(10 / p90, rel=0.02), pytest.approx(10 / p10, rel=0.02))
