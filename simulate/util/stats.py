"""The statistics every layer shares: the 95% normal quantile and the intervals built on it."""

from __future__ import annotations

from typing import Any

import numpy as np

ArrayOrFloat = float | int | np.ndarray

# two-sided 95% normal quantile, Φ⁻¹(0.975); the one value every interval in bidlab uses
Z95 = 1.959963984540054


def normal_interval(mean: float, se: float, z: float = Z95) -> tuple[float, float]:
    """mean ± z·se: the normal-approximation interval of an estimate with standard error se."""
    return mean - z * se, mean + z * se


def wilson(k: ArrayOrFloat, n: ArrayOrFloat, z: float = Z95) -> tuple[Any, Any]:
    """Wilson score interval of a proportion k/n (nan, nan for n = 0); k and n may be numpy
    arrays of the same shape, then the bounds are arrays."""
    k_a = np.asarray(k, dtype=np.float64)
    n_a = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k_a / n_a
        d = 1 + z * z / n_a
        c = (p + z * z / (2 * n_a)) / d
        h = z * np.sqrt(p * (1 - p) / n_a + z * z / (4 * n_a * n_a)) / d
    low = np.where(n_a > 0, c - h, np.nan)
    high = np.where(n_a > 0, c + h, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
