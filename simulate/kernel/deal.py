"""Dealing: a partial Fisher-Yates shuffle over the cards nobody holds fixed."""

from __future__ import annotations

import numpy as np

from simulate.kernel.jit import kernel_jit
from simulate.kernel.rng import below, seed_stream
from simulate.tables import layout as L

ONE = np.uint64(1)
ZERO = np.uint64(0)


@kernel_jit(inline=True)
def draw_card(rs, perm, pos, size):
    """Draw one card uniformly from perm[pos:size] (one Fisher-Yates step: it is swapped
    to perm[pos], so the next draw starts at pos + 1); returns the card."""
    k = pos + below(rs, size - pos)
    c = perm[k]
    perm[k] = perm[pos]
    perm[pos] = c
    return c


@kernel_jit(inline=True)
def deal_cards(P, rs, perm, hands, fixed, h):
    """Fill hands[0..n-1] (fixed seats keep their cards) and hands[n] (the widow), drawing
    from the stream rs with perm as the shuffle's work array.

    Returns (cards drawn, size of the pool) so the caller can draw more from perm."""
    n = P[L.N_PLAYERS]
    D = P[L.DECK_SIZE]
    pinned = ZERO
    for s in range(n):
        pinned |= fixed[s]
    size = 0
    if pinned == ZERO:
        for c in range(D):
            perm[c] = c
        size = D
    else:
        for c in range(D):
            if not (pinned >> np.uint64(c)) & ONE:
                perm[size] = c
                size += 1
    pos = 0
    for s in range(n):
        if fixed[s] != ZERO:
            hands[s] = fixed[s]
            continue
        m = ZERO
        for _ in range(h):
            m |= ONE << np.uint64(draw_card(rs, perm, pos, size))
            pos += 1
        hands[s] = m
    m = ZERO
    for _ in range(P[L.WIDOW]):
        m |= ONE << np.uint64(draw_card(rs, perm, pos, size))
        pos += 1
    hands[n] = m
    return pos, size


@kernel_jit(nogil=True)
def run_deals(P, seed, start, count, h, fixed, perm, hands, rs):
    """Deal `count` hands and nothing else (the benchmark's dealing-alone workload); the
    XOR of every dealt mask keeps the work from being optimised away.

    P: the rule vector; seed, start: hand j uses the stream of hand start + j; h: cards per
    hand; fixed: uint64[n] pinned cards; perm, hands, rs: scratch (int64[deck],
    uint64[n + 1], uint64[3]). Returns the XOR of every dealt hand."""
    acc = ZERO
    n = P[L.N_PLAYERS]
    for j in range(count):
        seed_stream(rs, seed, start + j, 1)
        deal_cards(P, rs, perm, hands, fixed, h)
        for s in range(n):
            acc ^= hands[s]
    return acc
