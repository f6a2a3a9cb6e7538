"""One trick, incrementally: legal masks and the running winner, from the rule tables.

The trick state `ts` is a small int64 vector, so a policy can copy it and ask "who wins if
I play this card?" without touching the real trick.
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.jit import kernel_jit
from simulate.tables.layout import M_ALWAYS, M_FOOL, M_IF_LED, M_LAST

TS_COUNT, TS_LEAD_MECH, TS_LS, TS_BEST, TS_BEST_CLASS, TS_BEST_POW, TS_BEST_CARD, \
    TS_LAST, TS_ALWAYS, TS_FOOL = range(10)
TS_CARD0 = 10    # then the cards of the trick in play order (up to 16 players)
TS_SIZE = 32
ONE = np.uint64(1)
ZERO = np.uint64(0)


@kernel_jit(inline=True)
def trick_reset(ts):
    """Empty the trick state ts (int64[TS_SIZE]) for a new trick."""
    ts[TS_COUNT] = 0
    ts[TS_LEAD_MECH] = -1
    ts[TS_LS] = -1
    ts[TS_BEST] = -1
    ts[TS_BEST_CLASS] = 0
    ts[TS_BEST_POW] = 0
    ts[TS_BEST_CARD] = -1
    ts[TS_LAST] = -1
    ts[TS_ALWAYS] = -1
    ts[TS_FOOL] = -1


@kernel_jit(inline=True)
def trick_add(ts, c, low, t, eff, power, mech):
    """Add card c (declared low if `low`) under trump t."""
    pos = ts[TS_COUNT]
    m = mech[t, c]
    if pos == 0:
        ts[TS_LEAD_MECH] = m
    if m == M_LAST:
        ts[TS_LAST] = pos
    elif m == M_ALWAYS:
        if ts[TS_ALWAYS] < 0:
            ts[TS_ALWAYS] = pos
    elif m == M_FOOL:
        if ts[TS_FOOL] < 0:
            ts[TS_FOOL] = pos
    s = eff[t, c]
    if s >= 0:
        if ts[TS_LS] < 0:
            ts[TS_LS] = s
        cls = 0
        if t < 4 and s == t:
            cls = 2
        elif s == ts[TS_LS]:
            cls = 1
        pw = power[t, c]
        if low:
            pw = 99 if cls == 2 else -1
        if cls > 0 and (ts[TS_BEST] < 0 or cls > ts[TS_BEST_CLASS]
                        or (cls == ts[TS_BEST_CLASS] and pw > ts[TS_BEST_POW])):
            ts[TS_BEST] = pos
            ts[TS_BEST_CLASS] = cls
            ts[TS_BEST_POW] = pw
            ts[TS_BEST_CARD] = c
    ts[TS_CARD0 + pos] = c
    ts[TS_COUNT] = pos + 1


@kernel_jit(inline=True)
def trick_winner(ts, foolable):
    """(position in the trick of the winner, 1 if a King was fooled)."""
    if ts[TS_LEAD_MECH] == M_IF_LED:
        return 0, 0
    if ts[TS_LAST] >= 0:
        return ts[TS_LAST], 0
    if ts[TS_ALWAYS] >= 0:
        return ts[TS_ALWAYS], 0
    if ts[TS_BEST] < 0:
        return 0, 0
    if ts[TS_FOOL] >= 0 and (foolable >> np.uint64(ts[TS_BEST_CARD])) & ONE:
        return ts[TS_FOOL], 1
    return ts[TS_BEST], 0


@kernel_jit(inline=True)
def legal_mask(hand, ts, t, broken, breaking, suit_mask, wild):
    """The cards of `hand` (uint64 mask) that may be played to the trick ts under trump t.

    Leading: any card, but no trump while trumps are unbroken if the rules say so (`breaking`)
    and the hand holds another suit. Following: any card after a card that wins only if led
    (or a suitless lead); else the led effective suit plus the wild cards when the hand holds
    that suit, any card when it does not."""
    if ts[TS_COUNT] == 0:
        if breaking and t < 4 and not broken:
            non_trump = hand & ~suit_mask[t, t]
            if non_trump != ZERO:
                return non_trump
        return hand
    if ts[TS_LEAD_MECH] == M_IF_LED:
        return hand
    ls = ts[TS_LS]
    if ls < 0:
        return hand
    follow = hand & suit_mask[t, ls]
    if follow == ZERO:
        return hand
    return follow | (hand & wild)


@kernel_jit(inline=True)
def would_win(ts, c, low, t, eff, power, mech, foolable):
    """Whether card c, added now to a non-empty trick, would be its winner (as things stand)."""
    if ts[TS_LEAD_MECH] == M_IF_LED:
        return False
    m = mech[t, c]
    if m == M_LAST:
        return True
    if ts[TS_LAST] >= 0:
        return False
    if m == M_ALWAYS:
        return ts[TS_ALWAYS] < 0
    if ts[TS_ALWAYS] >= 0:
        return False
    if m == M_FOOL:
        return ts[TS_FOOL] < 0 and ts[TS_BEST] >= 0 and \
            ((foolable >> np.uint64(ts[TS_BEST_CARD])) & ONE) != ZERO
    s = eff[t, c]
    if s < 0:
        return False
    ls = ts[TS_LS] if ts[TS_LS] >= 0 else s
    cls = 2 if (t < 4 and s == t) else (1 if s == ls else 0)
    if cls == 0:
        return False
    pw = power[t, c]
    if low:
        pw = 99 if cls == 2 else -1
    if ts[TS_BEST] >= 0 and (cls < ts[TS_BEST_CLASS] or
                             (cls == ts[TS_BEST_CLASS] and pw < ts[TS_BEST_POW])):
        return False
    if ts[TS_FOOL] >= 0 and ((foolable >> np.uint64(c)) & ONE) != ZERO:
        return False
    return True
