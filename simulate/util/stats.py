"""The statistics every layer shares: the 95% normal quantile and the intervals built on it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
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


def group_sums(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Column-wise sums of values[N, B] by row group (groups: int[N] in 0..n_groups-1), NaN
    counted as 0: float64[n_groups, B]. One bincount over the flattened array, which adds
    each (group, column) in row order as a bincount per column would, so the sums are the
    same to the last bit (the class tables, racing and the compact sheet each wrote that
    per-column loop out)."""
    clean = np.where(np.isnan(values), 0.0, values) if values.dtype.kind == "f" else values
    B = values.shape[1]
    keys = (np.asarray(groups, dtype=np.int64)[:, None] * B + np.arange(B)).ravel()
    return np.bincount(keys, weights=np.asarray(clean, dtype=np.float64).ravel(),
                       minlength=n_groups * B).reshape(n_groups, B)


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
