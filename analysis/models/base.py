"""What every cost model shares: the error it raises and the argument checks."""

from __future__ import annotations

import math

HOURS_PER_YEAR = 365.25 * 24


class ModelError(ValueError):
    """Impossible input to a cost model (a negative count, a model that does not fit, ...)."""


def require_positive(**values: float) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, float)) or math.isnan(v) or v <= 0:
            raise ModelError(f"{name} must be a positive number, got {v!r}")


def require_non_negative(**values: float) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, float)) or math.isnan(v) or v < 0:
            raise ModelError(f"{name} must be zero or positive, got {v!r}")

