"""Bid odds in one pass: every candidate bid of one seat is played on each deal in turn.

Playing the candidates back to back on the same hand index gives them the same deal and the
same random numbers up to the consequences of the bid (common random numbers), and costs no
Python round trip per bid. Alongside the per-bid sums the kernel keeps the cross products of
the scores, so the caller can put a paired confidence interval on the difference between
any two bids — which is what decides whether a bid is clearly worse than the best.

Conditioning (the earlier seats' bids, a trump named by another player) is by rejection:
everything it looks at is decided before the focal seat bids, on random numbers that do not
depend on the candidate, so the first candidate's run decides the deal and a rejected deal
costs the deal and the bids, not a hand per candidate.
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.deal import deal_cards
from simulate.kernel.hand import (
    H_OVERRIDDEN,
    H_TRUMP,
    S_BID,
    S_SCORE,
    S_TRICKS,
    SALT_DEAL,
    SALT_POLICY,
    deal_hands,
    reset_outputs,
    run_hand,
    sequential_bids,
    trump_before_bids,
)
from simulate.kernel.jit import kernel_jit
from simulate.kernel.rng import seed_stream
from simulate.tables import layout as L


@kernel_jit(inline=True)
def _look_seats(P, seat):
    """How many seats (0..k-1, the order they are dealt in) the look at a deal must deal:
    every seat that bids up to `seat` in the bidding order (the first bidder names trump
    from its hand); all of them where the dealer names trump or a card is turned up after
    the hands (and may be a condition on the deal)."""
    n = P[L.N_PLAYERS]
    if P[L.CHOOSER] == L.CH_TURN_UP or P[L.CHOOSER] == L.CH_DEALER:
        return n
    first = P[L.FIRST_BIDDER]
    need = 0
    for j in range(n):
        s = first + j if first + j < n else first + j - n
        need = max(need, s + 1)
        if s == seat:
            break
    return need


@kernel_jit(inline=True)
def _look(P, tabs, seed, hidx, h, constrained, fixed, forced_trump, bid_pol, scratch, seat,
          want_trump, seats):
    """run_hand of a sequential or simultaneous game up to `seat`'s bid, by the same calls
    in the same order (so on the same random numbers): leaves the earlier seats' bids in
    seat_out and returns the trump. Deciding the conditions this way skips the tricks of a
    deal that is rejected, and the bids from `seat` on; a trump other than want_trump (-1:
    any) ends the look as soon as it is named. seats: _look_seats(P, seat)."""
    (bid_value, hands, hands0, sout, captured, ts, won, rs_deal, rs_pol, ubid, utook, uscore, hout,
     trace, _) = scratch
    seed_stream(rs_deal, seed, hidx, SALT_DEAL)
    seed_stream(rs_pol, seed, hidx, SALT_POLICY)
    n = P[L.N_PLAYERS]
    reset_outputs(n, hout, sout, captured)
    if seats < n:
        deal_cards(P, rs_deal, hands, fixed, h, seats)
        turn = -1
    else:
        turn = deal_hands(P, rs_deal, hands, hands0, fixed, h, forced_trump, tabs.card_suit)
    trump = trump_before_bids(P, rs_pol, hands, h, forced_trump, turn, tabs.card_suit, bid_pol,
                               tabs.card_rate, tabs.win_weight, trace, hout, False)
    if 0 <= want_trump != trump and trump >= 0:
        return trump
    return sequential_bids(P, rs_pol, hands, h, constrained, trump, forced_trump, bid_pol,
                            tabs, turn, sout, trace, hout, False, seat, want_trump,
                            bid_value)


@kernel_jit(inline=True)
def _deal_group(sout, trump, earlier, before, want_trump, ng):
    """The deal's group once the earlier seats have bid and trump is known: the sum of the
    earlier bids, capped at ng - 1 (0 when ng is 1); -1 when the deal fails a condition (an
    earlier bid other than `before`, a trump other than want_trump)."""
    for e in range(before.shape[0]):
        if sout[earlier[e], S_BID] != before[e]:
            return -1
    if want_trump >= 0 and trump != want_trump:
        return -1
    if ng <= 1:
        return 0
    total = 0
    for e in range(earlier.shape[0]):
        total += sout[earlier[e], S_BID]
    return min(total, ng - 1)


@kernel_jit(nogil=True)
def run_odds(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
             bid_pol, scratch, seat, side, bids, active, earlier, before, want_trump, scores,
             counts, sums, squares, npair, dsum, dsq, seen):
    """Hands start..start+count-1, each played once per active candidate bid.

    P, tabs, seed, h, constrained, fixed, forced_trump, play_pol, bid_pol, scratch: as in
    chunk.run_records, but P is a private copy (its override slots are rewritten per bid).
    seat: the seat whose bid is forced; bids: the candidate bids. earlier: the seats bidding
    before `seat`; before: empty, or the bids they must make for a deal to count;
    want_trump: the trump (0..4) the hand must have for a deal to count (-1: any). `side`
    lists the seats whose tricks count (the seat and, in a contract game, its partners).

    Groups: with G = counts.shape[0] > 1 a deal falls in group g = min(sum of the earlier
    seats' bids, G - 1) (the dealer under the hook, by what was bid before it); with G = 1
    every deal is in group 0. active[g, k]: whether bids[k] is tried in group g.

    A bid counts on a deal only if the rules allowed it there. Outputs by group g:
    counts[g, bid, tricks], sums[g, bid], squares[g, bid]; for every pair of bids (a, b)
    over the deals where both counted: npair[g, a, b], dsum = sum of score_a - score_b and
    dsq = sum of its square; seen = [deals dealt, deals accepted, accepted in group 0, 1,
    ...]. `scores` is scratch of len(bids)."""
    sout, hout = scratch.seat_out, scratch.hand_out
    nb = bids.shape[0]
    ng = counts.shape[0]
    P[L.OVERRIDE_SEAT] = seat
    # conditions are looked at before the tricks are played (they are decided by then)
    look = P[L.FORM] != L.FORM_AUCTION and (want_trump >= 0 or before.shape[0] > 0 or ng > 1)
    look_seats = _look_seats(P, seat)      # the same for every deal
    for j in range(count):
        seen[0] += 1
        g = -1
        for k in range(nb):
            scores[k] = np.nan
        if look:
            P[L.OVERRIDE_BID] = bids[0]
            trump = _look(P, tabs, seed, start + j, h, constrained, fixed, forced_trump, bid_pol,
                          scratch, seat, want_trump, look_seats)
            g = _deal_group(sout, trump, earlier, before, want_trump, ng)
            if g < 0:
                continue
        for k in range(nb):
            if g >= 0:
                if not active[g, k]:
                    continue
            else:
                tried = False
                for g2 in range(ng):
                    if active[g2, k]:
                        tried = True
                if not tried:
                    continue
            P[L.OVERRIDE_BID] = bids[k]
            run_hand(P, tabs, seed, start + j, h, constrained, fixed, forced_trump, play_pol,
                     bid_pol, scratch, False)
            if g < 0:
                # the earlier seats bid, and the trump is named, before this seat bids, on
                # the same random numbers for every candidate: one look decides the deal
                g = _deal_group(sout, hout[H_TRUMP], earlier, before, want_trump, ng)
                if g < 0:
                    break
                if not active[g, k]:
                    continue      # played for the look only
            if hout[H_OVERRIDDEN] != 1:
                continue
            took = 0
            for s in range(side.shape[0]):
                took += sout[side[s], S_TRICKS]
            counts[g, k, took] += 1
            sc = np.float64(sout[seat, S_SCORE])
            sums[g, k] += sc
            squares[g, k] += sc * sc
            scores[k] = sc
        if g < 0:       # rejected, or no candidate tried
            continue
        seen[1] += 1
        seen[2 + g] += 1
        for a in range(nb):
            if scores[a] != scores[a]:   # NaN: not played or not allowed on this deal
                continue
            for b in range(a + 1, nb):
                if scores[b] == scores[b]:
                    d = scores[a] - scores[b]
                    npair[g, a, b] += 1
                    dsum[g, a, b] += d
                    dsq[g, a, b] += d * d
