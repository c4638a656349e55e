"""Failures of long training runs: cluster MTBF, the checkpoint interval (Young 1974, Daly 2006) and goodput.

Pure functions; units in the argument names (see analysis.models).

- Cluster MTBF: with independent failures whose rate grows with the number of GPUs, a job on n GPUs is
  interrupted every M_ref · n_ref / n hours, scaled from an observed rate (M_ref at n_ref GPUs).
- Young's interval (Young 1974, as restated by Daly 2006 as his first-order model): τ = √(2δM) of compute between
  checkpoints that each take δ, with mean time between failures M.
- Daly's higher-order interval (Daly 2006, the perturbation solution):
  τ = √(2δM)·[1 + ⅓·√(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, else τ = M.
- Expected wall-clock time (Daly 2006, his complete cost function for exponential failures): solving T_s
  of work with compute segments τ, checkpoints δ and restarts R takes T_w = M·e^(R/M)·(e^((τ+δ)/M) − 1)·T_s/τ;
  goodput is T_s/T_w, the share of wall-clock time that advances the run.
"""

from __future__ import annotations

import math

from analysis.models.base import require_non_negative, require_positive


def cluster_mtbf_hours(n_gpus: float, ref_mtbf_hours: float, ref_gpus: float) -> float:
    """Mean time between job interruptions on `n_gpus`, scaled from `ref_mtbf_hours` observed on `ref_gpus`."""
    require_positive(n_gpus=n_gpus, ref_mtbf_hours=ref_mtbf_hours, ref_gpus=ref_gpus)
    return ref_mtbf_hours * ref_gpus / n_gpus


def young_interval_hours(checkpoint_hours: float, mtbf_hours: float) -> float:
    """Young's first-order optimum compute time between checkpoints: √(2δM)."""
    require_positive(checkpoint_hours=checkpoint_hours, mtbf_hours=mtbf_hours)
    return math.sqrt(2 * checkpoint_hours * mtbf_hours)


def daly_interval_hours(checkpoint_hours: float, mtbf_hours: float) -> float:
    """Daly's higher-order optimum compute time between checkpoints (Daly 2006)."""
    require_positive(checkpoint_hours=checkpoint_hours, mtbf_hours=mtbf_hours)
    d, m = checkpoint_hours, mtbf_hours
    if d >= 2 * m:
        return m
    x = d / (2 * m)
    return math.sqrt(2 * d * m) * (1 + math.sqrt(x) / 3 + x / 9) - d


def expected_wall_hours(work_hours: float, interval_hours: float, checkpoint_hours: float, restart_hours: float,
                        mtbf_hours: float) -> float:
    """Daly's expected wall-clock time for `work_hours` of failure-free compute (exponential failures)."""
    import numpy as np

    if all(np.ndim(v) == 0 for v in (work_hours, interval_hours, checkpoint_hours, restart_hours, mtbf_hours)):
        require_positive(work_hours=work_hours, interval_hours=interval_hours, mtbf_hours=mtbf_hours)
        require_non_negative(checkpoint_hours=checkpoint_hours, restart_hours=restart_hours)
    m = mtbf_hours
    return m * np.exp(restart_hours / m) * np.expm1((interval_hours + checkpoint_hours) / m) \
        * work_hours / interval_hours


def goodput(interval_hours: float, checkpoint_hours: float, restart_hours: float, mtbf_hours: float) -> float:
    """Share of wall-clock time that advances the run, T_s / T_w (1 = no failures and free checkpoints).
    Accepts numpy arrays (for :func:`analysis.models.uncertainty.propagate`)."""
    return 1.0 / expected_wall_hours(1.0, interval_hours, checkpoint_hours, restart_hours, mtbf_hours)
