"""Counter-based random numbers: every hand has its own stream keyed by (seed, hand index).

So a seed gives the same deals however the work is cut into chunks or spread over threads.
splitmix64 mixes the key and steps the stream; bounded draws use Lemire's multiply-shift
with rejection on 16-bit slices of each output, which is exactly uniform.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S27, S30, S31 = np.uint64(27), np.uint64(30), np.uint64(31)
LOW16 = np.uint64(0xFFFF)
TWO16 = np.uint64(1 << 16)
S16 = np.uint64(16)
ZERO, ONE, FOUR = np.uint64(0), np.uint64(1), np.uint64(4)


@njit(cache=True, inline="always", _nrt=False, error_model="numpy")
def mix64(z):  # type: ignore[no-untyped-def]
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@njit(cache=True, inline="always", _nrt=False, error_model="numpy")
def seed_stream(rs, seed, hand_index, salt):  # type: ignore[no-untyped-def]
    """Start the stream of one hand (salt separates streams used for different purposes).

    rs holds [counter, buffered random bits, how many of them are left]."""
    rs[0] = mix64(mix64(np.uint64(seed) ^ mix64(np.uint64(salt) * GOLDEN)) +
                  np.uint64(hand_index) * GOLDEN)
    rs[2] = ZERO


@njit(cache=True, inline="always", _nrt=False, error_model="numpy")
def next64(rs):  # type: ignore[no-untyped-def]
    rs[0] += GOLDEN
    return mix64(rs[0])


@njit(cache=True, inline="always", _nrt=False, error_model="numpy")
def _next16(rs):  # type: ignore[no-untyped-def]
    """16 fresh random bits; one 64-bit output serves four draws."""
    if rs[2] == ZERO:
        rs[1] = next64(rs)
        rs[2] = FOUR
    x = rs[1] & LOW16
    rs[1] >>= S16
    rs[2] -= ONE
    return x


@njit(cache=True, inline="always", _nrt=False, error_model="numpy")
def below(rs, r):  # type: ignore[no-untyped-def]
    """Uniform integer in [0, r) for 1 <= r <= 2**16: Lemire's multiply-shift on 16-bit
    draws with exact rejection, so no value is favoured."""
    ru = np.uint64(r)
    m = _next16(rs) * ru
    low = m & LOW16
    if low < ru:
        threshold = (TWO16 - ru) % ru
        while low < threshold:
            m = _next16(rs) * ru
            low = m & LOW16
    return np.int64(m >> S16)


@njit(cache=True, inline="always", _nrt=False, error_model="numpy")
def uniform01(rs):  # type: ignore[no-untyped-def]
    return np.float64(next64(rs) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
