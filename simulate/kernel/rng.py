"""Counter-based random numbers: every hand has its own stream keyed by (seed, hand index).

So a seed gives the same deals however the work is cut into chunks or spread over threads.
splitmix64 mixes the key and steps the stream; bounded draws use Lemire's multiply-shift
with rejection, which is exactly uniform. The deal's draws (below_small) take 16-bit slices
of an output, four per mix: a slice is as uniform as a whole output, so Lemire's rejection
on the slice stays exact.
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
S16 = np.uint64(16)
LOW16 = np.uint64(0xFFFF)
TWO16 = np.uint64(1 << 16)
ZERO = np.uint64(0)
# rs[1]: the output being sliced; rs[2]: its 16-bit slices left
BUF, LEFT = 1, 2


@kernel_jit(inline=True)
def mix64(z):
    """splitmix64's finaliser: a bijective mix of the uint64 z."""
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@kernel_jit(inline=True)
def seed_stream(rs, seed, hand_index, salt):
    """Start the stream of one hand (salt separates streams used for different purposes).

    rs[0] is the counter; rs[BUF], rs[LEFT] the slices of small draws (none yet)."""
    rs[0] = mix64(mix64(np.uint64(seed) ^ mix64(np.uint64(salt) * GOLDEN)) +
                  np.uint64(hand_index) * GOLDEN)
    rs[LEFT] = ZERO


@kernel_jit(inline=True)
def next64(rs):
    """The next uint64 of stream rs (a one-word state array): splitmix64."""
    rs[0] += GOLDEN
    return mix64(rs[0])


@kernel_jit(inline=True)
def _slice16(rs):
    """The next 16-bit slice of stream rs (a fresh output every four slices)."""
    if rs[LEFT] == ZERO:
        rs[BUF] = next64(rs)
        rs[LEFT] = np.uint64(4)
    x = rs[BUF] & LOW16
    rs[BUF] >>= S16
    rs[LEFT] -= np.uint64(1)
    return x


@kernel_jit(inline=True)
def below(rs, r):
    """Uniform integer in [0, r) for 1 <= r <= 2**32: Lemire's multiply-shift on the top
    32 bits of an output, with exact rejection, so no value is favoured. The policies draw
    this way: slicing their outputs (below_small) measured no faster over a whole hand, the
    buffer's loads and stores cost about what the mixes saved."""
    ru = np.uint64(r)
    m = (next64(rs) >> S32) * ru
    low = m & LOW32
    if low < ru:
        threshold = (TWO32 - ru) % ru
        while low < threshold:
            m = (next64(rs) >> S32) * ru
            low = m & LOW32
    return np.int64(m >> S32)


@kernel_jit(inline=True)
def below_small(rs, r):
    """Uniform integer in [0, r) for 1 <= r <= 2**16, on a 16-bit slice of an output (four
    draws per mix; rejection chance under r / 2**16, exact like below). The deal draws
    this way: its 28-52 draws in a row measured 1.45x faster dealing alone."""
    ru = np.uint64(r)
    m = _slice16(rs) * ru
    low = m & LOW16
    if low < ru:
        threshold = (TWO16 - ru) % ru
        while low < threshold:
            m = _slice16(rs) * ru
            low = m & LOW16
    return np.int64(m >> S16)
