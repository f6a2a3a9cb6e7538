"""One decision at a time: a seat's bid or card from its view, by run_hand's own policies.

The hand loop (kernel.hand.run_hand) asks each policy inside one compiled function; these
entry points ask the same inlined functions (bid_limits, heard_bids, bid_by_rules,
legal_mask, tricks_wanted, precision_context, precision_play, choose_play) with the
arguments run_hand gives them, rebuilt from what the seat sees: its hand, the trump and the
turned-up card, the earlier bids, the cards of the trick so far, the cards played before,
and every seat's bid and tricks taken. So a decision here equals the kernel's decision in
the same state (tests/test_decide.py replays kernel hands through them).

They cover sequential and simultaneous bids and card play; trump choices, auctions,
discards and alone calls stay inside run_hand. No allocation (the kernel runs without
numba's runtime): the caller passes a trick-state array of TS_SIZE int64.
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.bits import popcount
from simulate.kernel.hand import (
    SALT_POLICY,
    bid_limits,
    bid_weights,
    heard_bids,
    heard_bits_after,
    precision_context,
    tricks_wanted,
)
from simulate.kernel.jit import kernel_jit
from simulate.kernel.policies import bid_by_rules, choose_play, precision_play
from simulate.kernel.rng import seed_stream
from simulate.kernel.trick import legal_mask, trick_add, trick_reset
from simulate.tables import layout as L

ONE = np.uint64(1)
ZERO = np.uint64(0)


@kernel_jit()
def seed_policy_stream(rs, seed, hand_index):
    """Start rs (uint64[3]) as the policy stream run_hand draws from in hand `hand_index`
    of the run seeded `seed`: random policies asked in the kernel's decision order with this
    stream draw what the kernel drew."""
    seed_stream(rs, seed, hand_index, SALT_POLICY)


@kernel_jit()
def decide_bid(P, tabs, pol, rs, h, constrained, seat, hand, trump, turn, bids_before,
               n_before, bid_value):
    """The bid of bid policy `pol` for `seat` (0 = the dealer's left) holding `hand`
    (uint64 mask) with h cards, under trump `trump` (0-3, 4 = no trump), the turned-up card
    `turn` (-1: none), after the n_before bids bids_before[:n_before] in bidding order.

    P, tabs: the rule vector and KernelTables; rs: the policy stream (uint64[3]; random
    bidders draw from it); constrained: whether the bid constraint binds this round;
    bid_value: float64[h + 1] work array (HandScratch.bid_value). The
    bid obeys the hook or Max Bet exactly as run_hand's sequential_bids applies them."""
    n = P[L.N_PLAYERS]
    total = 0
    bits = 0
    for j in range(n_before):
        total += bids_before[j]
        bits = heard_bits_after(bits, h, j, bids_before[j])
    lo, hi, excluded = bid_limits(P, constrained, n_before == n - 1, h, total)
    heard_sum, heard_bits = heard_bids(P, total, bits)
    weights = bid_weights(pol, tabs.card_rate, tabs.win_weight)
    return bid_by_rules(pol, rs, P, lo, hi, excluded, hand, h, trump, weights, seat, heard_sum,
                        heard_bits, turn, tabs, bid_value)


@kernel_jit()
def decide_play(P, tabs, pol, rs, ts, h, seat, hand, trump, face_up, played_before, trick,
                n_trick, leader, sitting_out, maker, contract, sout):
    """The move of play policy `pol` for `seat` holding `hand` (uint64 mask): card + 64 if
    an Ace is declared low, as run_hand plays it.

    h: cards dealt per hand; trump: 0-3, 4 = no trump; face_up: cards every seat sees
    besides its own and those played (kernel.hand.face_up_cards: the turn-up, face-up
    leftovers); played_before: the cards of the finished tricks; trick[:n_trick]: the moves
    of the trick so far in play order (card + 64 * low), led by seat `leader`; sitting_out:
    mask of seats sitting this hand out; maker, contract: the auction's maker (-1: none)
    and ladder step; sout: int64[n, S_SIZE] with every seat's bid (S_BID) and tricks taken
    (S_TRICKS). P, tabs, rs as decide_bid; ts: a work array of TS_SIZE int64 that receives
    the trick state."""
    eff, power, mech = tabs.eff, tabs.power, tabs.mech
    masks, suit_mask = tabs.masks, tabs.suit_mask
    wild, foolable, aces = masks[0], masks[1], masks[2]
    n = P[L.N_PLAYERS]
    trick_reset(ts)
    tmask = ZERO
    for i in range(n_trick):
        bit = ONE << np.uint64(trick[i] & 63)
        tmask |= bit
        trick_add(ts, trick[i] & 63, trick[i] >> 6, trump, eff, power, mech)
    active = n - popcount(sitting_out)
    trick_no = popcount(played_before) // active
    # run_hand marks trump broken once a finished trick held a trump
    broken = trump < 4 and (played_before & suit_mask[trump, trump]) != ZERO
    gone = face_up | played_before | tmask
    legal = legal_mask(hand, ts, trump, broken, P[L.BREAKING_TRUMP], suit_mask, wild)
    need = 0 if pol == L.PLAY_RANDOM else \
        tricks_wanted(P, seat, h, maker, contract, tabs.ladder, sout)
    if pol == L.PLAY_PRECISION:
        partner_winning, side_bid = precision_context(P, ts, seat, leader, n_trick, sitting_out,
                                                      maker, sout, foolable)
        return precision_play(P, legal, hand, gone, tmask, need, h - trick_no, ts, trump,
                              partner_winning, active - n_trick - 1, h, side_bid, tabs)
    return choose_play(pol, rs, P, legal, need, ts, trump, eff, power, mech, tabs.srank,
                       tabs.by_rank, tabs.srank_moves, tabs.beaters, foolable, aces)
