"""Counter-based random numbers: every hand has its own stream keyed by (seed, hand index).

So a seed gives the same deals however the work is cut into chunks or spread over threads.
splitmix64 mixes the key and steps the stream; bounded draws use Lemire's multiply-shift
with rejection, which is exactly uniform.
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.jit import kernel_jit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S27, S30, S31 = np.uint64(27), np.uint64(30), np.uint64(31)
LOW32 = np.uint64(0xFFFFFFFF)
TWO32 = np.uint64(1 << 32)
S32 = np.uint64(32)
ZERO = np.uint64(0)


@kernel_jit(inline=True)
def mix64(z):
    """splitmix64's finaliser: a bijective mix of the uint64 z."""
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@kernel_jit(inline=True)
def seed_stream(rs, seed, hand_index, salt):
    """Start the stream of one hand (salt separates streams used for different purposes).

    rs[0] is the counter; the other slots are spare."""
    rs[0] = mix64(mix64(np.uint64(seed) ^ mix64(np.uint64(salt) * GOLDEN)) +
                  np.uint64(hand_index) * GOLDEN)


@kernel_jit(inline=True)
def next64(rs):
    """The next uint64 of stream rs (a one-word state array): splitmix64."""
    rs[0] += GOLDEN
    return mix64(rs[0])


@kernel_jit(inline=True)
def below(rs, r):
    """Uniform integer in [0, r) for 1 <= r <= 2**32: Lemire's multiply-shift on the top
    32 bits of an output, with exact rejection, so no value is favoured. (Slicing one
    output into several draws measured slower: the buffer bookkeeping costs more than a
    mix.)"""
    ru = np.uint64(r)
    m = (next64(rs) >> S32) * ru
    low = m & LOW32
    if low < ru:
        threshold = (TWO32 - ru) % ru
        while low < threshold:
            m = (next64(rs) >> S32) * ru
            low = m & LOW32
    return np.int64(m >> S32)

