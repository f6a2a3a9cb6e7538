"""Bid odds in one pass: every candidate bid of one seat is played on each deal in turn.

Playing the candidates back to back on the same hand index gives them the same deal and the
same random numbers up to the consequences of the bid (common random numbers), and costs no
Python round trip per bid. Alongside the per-bid sums the kernel keeps the cross products of
the scores, so the caller can put a paired confidence interval on the difference between
any two bids — which is what decides whether a bid is clearly worse than the best.
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.hand import H_OVERRIDDEN, S_BID, S_SCORE, S_TRICKS, run_hand
from simulate.kernel.jit import kernel_jit
from simulate.tables import layout as L


@kernel_jit(nogil=True)
def run_odds(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
             bid_pol, scratch, seat, side, bids, active, earlier, before, scores, counts,
             sums, squares, npair, dsum, dsq, seen):
    """Hands start..start+count-1, each played once per active candidate bid.

    P, tabs, seed, h, constrained, fixed, forced_trump, play_pol, bid_pol, scratch: as in
    chunk.run_records, but P is a private copy (its override slots are rewritten per bid).
    seat: the seat whose bid is forced; bids: the candidate bids, active[k] whether bids[k]
    is tried; earlier, before: the seats bidding before `seat` and the bids they must make
    for a deal to count. `side` lists the seats
    whose tricks count (the seat and, in a contract game, its partners). A deal counts only
    if the earlier seats bid exactly `before`; a bid counts on that deal only if the rules
    allowed it there. Outputs: counts[bid, tricks], sums[bid], squares[bid]; for every pair
    of bids (a, b) over the deals where both counted: npair, dsum = sum of score_a - score_b
    and dsq = sum of its square; and seen = [deals dealt, deals accepted].
    `scores` is scratch of len(bids)."""
    sout, hout = scratch.seat_out, scratch.hand_out
    nb = bids.shape[0]
    P[L.OVERRIDE_SEAT] = seat
    for j in range(count):
        seen[0] += 1
        accepted = True
        for k in range(nb):
            scores[k] = np.nan
        for k in range(nb):
            if not active[k]:
                continue
            P[L.OVERRIDE_BID] = bids[k]
            run_hand(P, tabs, seed, start + j, h, constrained, fixed, forced_trump, play_pol,
                     bid_pol, scratch, False)
            # the earlier seats bid before this seat, on the same random numbers for every
            # candidate, so one look decides the deal
            for e in range(earlier.shape[0]):
                if sout[earlier[e], S_BID] != before[e]:
                    accepted = False
            if not accepted:
                break
            if hout[H_OVERRIDDEN] != 1:
                continue
            took = 0
            for s in range(side.shape[0]):
                took += sout[side[s], S_TRICKS]
            counts[k, took] += 1
            sc = np.float64(sout[seat, S_SCORE])
            sums[k] += sc
            squares[k] += sc * sc
            scores[k] = sc
        if not accepted:
            continue
        seen[1] += 1
        for a in range(nb):
            if scores[a] != scores[a]:   # NaN: not played or not allowed on this deal
                continue
            for b in range(a + 1, nb):
                if scores[b] == scores[b]:
                    d = scores[a] - scores[b]
                    npair[a, b] += 1
                    dsum[a, b] += d
                    dsq[a, b] += d * d
