"""The statistics every layer shares: the 95% normal quantile and the intervals built on it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

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


def normal_quantile(p: float) -> float:
    """Φ⁻¹(p), the standard normal quantile."""
    return NormalDist().inv_cdf(p)


def two_sided_p(z: float) -> float:
    """The two-sided normal p-value of a z statistic (1 for nan)."""
    if z != z:
        return 1.0
    return 2.0 * (1.0 - NormalDist().cdf(abs(z)))


def holm_z(pvalues: Sequence[float], level: float = 0.95) -> list[float]:
    """Holm step-down critical values as normal quantiles, one per hypothesis: the i-th
    smallest p-value (i = 0, 1, ...) of m is tested at (1 - level) / (m - i), and from the
    first one not rejected on, every later one keeps that critical value. estimate ± z·se
    then covers 0 exactly for the hypotheses Holm does not reject (family-wise `level`)."""
    alpha = 1.0 - level
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i] != pvalues[i], pvalues[i]))
    out = [math.nan] * m
    frozen: float | None = None
    for rank, i in enumerate(order):
        a = alpha / (m - rank)
        z = normal_quantile(1.0 - a / 2.0)
        if frozen is None and not pvalues[i] <= a:
            frozen = z
        out[i] = z if frozen is None else frozen
    return out
