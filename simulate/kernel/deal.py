"""Dealing: each card drawn uniformly from the mask of the cards still free (single hands),
and the coupled deal of whole games (`deal_coupled`): every configuration of a comparison
deals from one shuffle of the union of their decks."""

from __future__ import annotations

import numpy as np

from simulate.kernel.bits import nth_set_bit, nth_set_bit_mask, popcount
from simulate.kernel.jit import kernel_jit
from simulate.kernel.rng import GOLDEN, below_small, mix64, seed_stream
from simulate.tables import layout as L

ONE = np.uint64(1)
ZERO = np.uint64(0)
SALT_COUPLED = 3              # the coupled deal's purpose (hand.py uses 1 and 2)
TURN_SLOT = 63                # the turned-up card draws like a seat of its own


@kernel_jit(inline=True)
def draw_card(rs, free, size):
    """One card drawn uniformly from the mask `free` holding `size` cards: the k-th free
    card for a uniform k (one bit select; no shuffle array to keep)."""
    return nth_set_bit(free, below_small(rs, size))


@kernel_jit(inline=True)
def draw_card_bit(rs, free, size):
    """draw_card's card as its one-bit mask: a deal's draws form one chain through the mask
    of free cards, and the bit straight from the deposit keeps an index (and a shift back)
    out of that chain."""
    return nth_set_bit_mask(free, below_small(rs, size))


@kernel_jit(inline=True)
def deal_cards(P, rs, hands, fixed, h, seats):
    """Fill hands[0..n-1] (fixed seats keep their cards) and hands[n] (the widow), drawing
    from the stream rs: each card uniform among those still free, so every seat's hand is a
    uniform draw given the ones before.

    seats < n deals only hands[0..seats-1], the same cards the whole deal gives them (seats
    draw in order, the fixed cards are set aside first), and no widow: bid odds look at the
    first seats' bids before dealing the rest.

    Returns (the cards still free, how many) so the caller can draw more."""
    n = P[L.N_PLAYERS]
    D = P[L.DECK_SIZE]
    free = ~ZERO if D >= 64 else (ONE << np.uint64(D)) - ONE
    for s in range(n):
        free &= ~fixed[s]
    size = popcount(free)
    for s in range(seats):
        if fixed[s] != ZERO:
            hands[s] = fixed[s]
            continue
        m = ZERO
        for _ in range(h):
            bit = draw_card_bit(rs, free, size)
            free ^= bit
            m |= bit
            size -= 1
        hands[s] = m
    if seats < n:
        return free, size
    m = ZERO
    for _ in range(P[L.WIDOW]):
        bit = draw_card_bit(rs, free, size)
        free ^= bit
        m |= bit
        size -= 1
    hands[n] = m
    return free, size


@kernel_jit(nogil=True)
def run_deals(P, seed, start, count, h, fixed, hands, rs):
    """Deal `count` hands and nothing else (the benchmark's dealing-alone workload); the
    XOR of every dealt mask keeps the work from being optimised away.

    P: the rule vector; seed, start: hand j uses the stream of hand start + j; h: cards per
    hand; fixed: uint64[n] pinned cards; hands, rs: scratch (uint64[n + 1], uint64[3]).
    Returns the XOR of every dealt hand."""
    acc = ZERO
    n = P[L.N_PLAYERS]
    for j in range(count):
        seed_stream(rs, seed, start + j, 1)
        deal_cards(P, rs, hands, fixed, h, n)
        for s in range(n):
            acc ^= hands[s]
    return acc


@kernel_jit(inline=True)
def coupled_base(seed, key, slot):
    """The key base of one slot (an absolute seat, or TURN_SLOT) of one round: seed, the
    round's key (game and round) and the slot mixed, so every card's key below is an
    independent draw for each (seed, game, round, slot)."""
    b = mix64(mix64(np.uint64(seed) ^ mix64(np.uint64(SALT_COUPLED) * GOLDEN)) +
              np.uint64(key) * GOLDEN)
    return mix64(b ^ mix64(np.uint64(slot + 1) * GOLDEN))


@kernel_jit(inline=True)
def pick_smallest(base, card_ids, D, taken, h, kbuf, cbuf):
    """The mask of the h cards not in `taken` with the smallest keys mix64(base ^ id): a
    uniform h-subset of the free cards, and the same cards in any deck that holds them (a
    card's key depends on its identity, not on its index or on the other cards). Fewer
    than h when fewer are free. kbuf, cbuf: uint64[64], int64[64] scratch."""
    cnt = 0
    for c in range(D):
        if (taken >> np.uint64(c)) & ONE:
            continue
        k = mix64(base ^ card_ids[c])
        if cnt == h and k >= kbuf[h - 1]:
            continue
        j = cnt if cnt < h else h - 1
        while j > 0 and kbuf[j - 1] > k:
            kbuf[j] = kbuf[j - 1]
            cbuf[j] = cbuf[j - 1]
            j -= 1
        kbuf[j] = k
        cbuf[j] = c
        if cnt < h:
            cnt += 1
    m = ZERO
    for i in range(cnt):
        m |= ONE << np.uint64(cbuf[i])
    return m


@kernel_jit(inline=True)
def deal_coupled(seed, key, card_ids, D, n, abs_of, hp, h, turn_up, fixed, kbuf, cbuf):
    """The coupled deal of one round of a whole game into fixed[0..hp-1] (by seat of the
    hand; abs_of[s] is that seat's absolute seat): absolute seats in order 0..n-1 each take
    the h free cards with the smallest keys of their own draw keyed by (seed, key, absolute
    seat), so a configuration with other cards (jokers added, twos removed) or another hand
    size still gives each seat the cards both decks hold, as far as the cards before it
    allow. With `turn_up`, the card to turn up is drawn the same way (slot TURN_SLOT) and
    returned (-1: no card left); else -1."""
    taken = ZERO
    for a in range(n):
        for s in range(hp):
            if abs_of[s] == a:
                fixed[s] = pick_smallest(coupled_base(seed, key, a), card_ids, D, taken, h,
                                         kbuf, cbuf)
                taken |= fixed[s]
    if not turn_up:
        return -1
    m = pick_smallest(coupled_base(seed, key, TURN_SLOT), card_ids, D, taken, 1, kbuf, cbuf)
    if m == ZERO:
        return -1
    return cbuf[0]
