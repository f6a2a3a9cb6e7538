"""Fixed policies inside the kernel, chosen by integer id per seat.

Every decision function takes the policy id first, so adding a policy is one more branch
here (and a name in simulate.policies); the hand loop never changes. Random choices are
uniform over exactly the option lists of the reference engine, so the two engines' random
play has the same distribution.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import lowest_bit_index, nth_set_bit, popcount
from .layout import (ACE_CHOICE, BID_GREEDY, N_TRUMP_CHOICES, PLAY_GREEDY, TRUMP_CHOICE0)
from .rng import below
from .trick import TS_COUNT, TS_SIZE, trick_add, trick_winner

ONE = np.uint64(1)
ZERO = np.uint64(0)


@njit(cache=True, inline="always", _nrt=False)
def hand_weight(hand, h, t, win_weight):  # type: ignore[no-untyped-def]
    total = 0.0
    m = hand
    while m != ZERO:
        c = lowest_bit_index(m)
        m &= m - ONE
        total += win_weight[h, t, c]
    return total


@njit(cache=True, inline="always", _nrt=False)
def choose_trump(pol, rs, P, hand, h, win_weight):  # type: ignore[no-untyped-def]
    k = P[N_TRUMP_CHOICES]
    if pol == BID_GREEDY:
        best, best_w = P[TRUMP_CHOICE0], -1.0
        for i in range(k):
            t = P[TRUMP_CHOICE0 + i]
            w = hand_weight(hand, h, t, win_weight)
            if w > best_w:
                best, best_w = t, w
        return best
    return P[TRUMP_CHOICE0 + below(rs, k)]


@njit(cache=True, inline="always", _nrt=False)
def choose_bid(pol, rs, lo, hi, excluded, hand, h, t, win_weight):  # type: ignore[no-untyped-def]
    """A bid in lo..hi other than `excluded` (-1 when nothing is excluded)."""
    if pol == BID_GREEDY:
        est = hand_weight(hand, h, t, win_weight)
        b = np.int64(est + 0.5)
        b = min(max(b, lo), hi)
        if b == excluded:
            if b + 1 <= hi and (est >= b or b - 1 < lo):
                b += 1
            else:
                b -= 1
        return b
    count = hi - lo + 1
    if lo <= excluded <= hi:
        count -= 1
    b = lo + below(rs, count)
    if 0 <= excluded <= b:
        b += 1
    return b


@njit(cache=True, inline="always", _nrt=False)
def choose_auction(pol, rs, high, n_steps, ladder, hand, widow_n, P, win_weight):  # type: ignore[no-untyped-def]
    """0 = pass, else a ladder step above `high`."""
    if pol == BID_GREEDY:
        k = P[N_TRUMP_CHOICES]
        h = popcount(hand)
        best = 0.0
        for i in range(k):
            w = hand_weight(hand, h, P[TRUMP_CHOICE0 + i], win_weight)
            if w > best:
                best = w
        estimate = best + 1.0 + 0.25 * widow_n   # partner's share and the widow
        if high < n_steps and ladder[high + 1, 0] <= estimate:
            return high + 1
        return 0
    count = 1 + n_steps - high
    k = below(rs, count)
    return 0 if k == 0 else high + k


@njit(cache=True, inline="always", _nrt=False)
def choose_discard(pol, rs, hand, t, strength):  # type: ignore[no-untyped-def]
    if pol == BID_GREEDY:
        best, best_s = -1, 1 << 40
        m = hand
        while m != ZERO:
            c = lowest_bit_index(m)
            m &= m - ONE
            if strength[t, c] < best_s:
                best, best_s = c, strength[t, c]
        return best
    return nth_set_bit(hand, below(rs, popcount(hand)))


@njit(cache=True, inline="always", _nrt=False)
def choose_yes_no(pol, rs):  # type: ignore[no-untyped-def]
    if pol == BID_GREEDY:
        return 0
    return below(rs, 2)


@njit(cache=True, inline="always", _nrt=False)
def choose_play(pol, rs, P, legal, need, ts, tmp, t, eff, power, mech, strength, foolable, aces):  # type: ignore[no-untyped-def]
    """A card and its declaration: returns card + 64 * low."""
    ace_choice = P[ACE_CHOICE]
    if pol == PLAY_GREEDY:
        leading = ts[TS_COUNT] == 0
        want_win = need > 0
        best, best_s, fallback, fallback_s = -1, 0, -1, 0
        m = legal
        while m != ZERO:
            c = lowest_bit_index(m)
            m &= m - ONE
            s = strength[t, c]
            low = 1 if (ace_choice and not want_win and (aces >> np.uint64(c)) & ONE) else 0
            if leading:
                # lead the strongest card when short of the bid, the weakest once it is made
                if best < 0 or (want_win and s > best_s) or (not want_win and s < best_s):
                    best, best_s = c, s
                continue
            for i in range(TS_SIZE):
                tmp[i] = ts[i]
            trick_add(tmp, c, low, t, eff, power, mech)
            pos, _ = trick_winner(tmp, foolable)
            wins = pos == ts[TS_COUNT]
            if want_win:
                if wins and (best < 0 or s < best_s):
                    best, best_s = c, s
                if fallback < 0 or s < fallback_s:
                    fallback, fallback_s = c, s
            else:
                if not wins and (best < 0 or s > best_s):
                    best, best_s = c, s
                if fallback < 0 or s > fallback_s:
                    fallback, fallback_s = c, s
        card = best if best >= 0 else fallback
        low = 1 if (ace_choice and not want_win and (aces >> np.uint64(card)) & ONE) else 0
        return card + 64 * low
    n_cards = popcount(legal)
    n_aces = popcount(legal & aces) if ace_choice else 0
    k = below(rs, n_cards + n_aces)
    # the reference lists each card, then its low declaration right after an Ace; any
    # fixed order of the same options gives the same uniform distribution
    if k < n_cards:
        return nth_set_bit(legal, k)
    return nth_set_bit(legal & aces, k - n_cards) + 64
