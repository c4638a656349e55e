"""One-at-a-time sensitivity (tornado) of a model's output to its inputs."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from analysis.models.base import ModelError

# --- sensitivity ---------------------------------------------------------------------------

def tornado(fn: Callable[..., float], base: Mapping[str, float],
            ranges: Mapping[str, tuple[float, float]]) -> pd.DataFrame:
    """Output of `fn(**params)` with one parameter at a time set to its low and high value.

    Returns one row per varied parameter: low and high input, output at each, and the swing
    |out_high - out_low|, sorted by swing (largest first). `base` holds every parameter.
    """
    missing = set(ranges) - set(base)
    if missing:
        raise ModelError(f"ranges for unknown parameters: {sorted(missing)}")
    ref = fn(**base)
    rows = []
    for name, (lo, hi) in ranges.items():
        out_lo = fn(**{**base, name: lo})
        out_hi = fn(**{**base, name: hi})
        rows.append({"parameter": name, "low": lo, "high": hi, "base": base[name], "out_low": out_lo,
                     "out_high": out_hi, "out_base": ref, "swing": abs(out_hi - out_lo)})
    return pd.DataFrame(rows).sort_values("swing", ascending=False).reset_index(drop=True)
