"""The statistics every layer shares: the 95% normal quantile and the intervals built on it."""

from __future__ import annotations

import math

# two-sided 95% normal quantile, Φ⁻¹(0.975); the one value every interval in bidlab uses
Z95 = 1.959963984540054


def normal_interval(mean: float, se: float, z: float = Z95) -> tuple[float, float]:
    """mean ± z·se: the normal-approximation interval of an estimate with standard error se."""
    return mean - z * se, mean + z * se


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (nan, nan for n = 0)."""
    if n <= 0:
        return math.nan, math.nan
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h
