"""Chunks of hands: the units of parallel work. Three outputs share one hand loop:
per-hand records, running summaries (memory flat in the number of hands) and traces.

Each hand draws from its own stream keyed by (seed, hand index), so results do not depend
on how hands are cut into chunks or spread over threads.
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.bits import lowest_bit_index
from simulate.kernel.hand import (
    H_CONTRACT,
    H_MAKER,
    H_NDEC,
    H_OVERRIDDEN,
    H_SIZE,
    H_TRUMP,
    H_VOIDED,
    P_ALONE,
    P_CONTRACT,
    P_MAKER,
    P_VOIDED,
    S_BID,
    S_FOOLED,
    S_SCORE,
    S_SIZE,
    S_TRICKS,
    SALT_DEAL,
    deal_and_bid_rows,
    deal_hands,
    run_hand,
    run_hands,
    score_hand,
)
from simulate.kernel.jit import kernel_jit
from simulate.kernel.rng import seed_stream
from simulate.tables import layout as L

ONE = np.uint64(1)
ZERO = np.uint64(0)


@kernel_jit(nogil=True)
def run_records(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
                bid_pol, scratch, hand_out, seat_out, mask_out, captured_out):
    """Play hands start..start+count-1 and keep one record per hand.

    P, tabs: the rule vector and RuleTables.as_tuple(); seed: the run's seed; start, count:
    the hand indices; h: cards per hand; constrained: apply the hook or Max Bet; fixed:
    uint64[n] cards pinned to seats; forced_trump: trump index to impose (-1: none);
    play_pol, bid_pol: policy ids by seat; scratch: hand.make_scratch(...). Outputs, row j
    for hand start+j: hand_out[j] the H_ slots, seat_out[j, s] the S_ columns of seat s,
    mask_out[j] the dealt hands and the widow, captured_out[j] the capturing seat by event.
    The hands are played in batches of scratch.rows (run_hands) and copied from those rows."""
    n = P[0]
    rows = scratch.rows
    batch = rows.hand_out.shape[0]
    for first in range(0, count, batch):
        m_hands = min(batch, count - first)
        run_hands(P, tabs, seed, start + first, m_hands, h, constrained, fixed, forced_trump,
                  play_pol, bid_pol, scratch, False)
        for j in range(m_hands):
            r = first + j
            for k in range(H_SIZE):
                hand_out[r, k] = rows.hand_out[j, k]
            for s in range(n):
                for k in range(S_SIZE):
                    seat_out[r, s, k] = rows.seat_out[j, s, k]
            for s in range(n + 1):
                mask_out[r, s] = rows.masks[j, s]
            for e in range(captured_out.shape[1]):
                captured_out[r, e] = rows.captured[j, e]


@kernel_jit(nogil=True)
def run_summary(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
                bid_pol, scratch, counts, score_sum, score_sq, score_hist, score_min, trumps,
                events, contracts, card_stats, card_dealt, card_won):
    """Play hands start..start+count-1 and add them to running sums (memory flat in hands).

    P ... scratch as in run_records. Accumulated: counts, score_sum, score_sq by [seat, bid,
    took]; score_hist by [seat, bid, took, score - score_min] (clipped to its width); trumps
    by trump index; events[0, seat] fooled kings and events[1 + e, seat] captures of event e;
    contracts by ladder step (0: voided hands); with card_stats, card_dealt and card_won by
    [trump, card]: how often each card was dealt and took a trick. The hands are played in
    batches of scratch.rows (run_hands) and added up from those rows."""
    n = P[0]
    rows = scratch.rows
    batch = rows.hand_out.shape[0]
    width = score_hist.shape[3]
    for first in range(0, count, batch):
        m_hands = min(batch, count - first)
        run_hands(P, tabs, seed, start + first, m_hands, h, constrained, fixed, forced_trump,
                  play_pol, bid_pol, scratch, False)
        for j in range(m_hands):
            hout, sout, captured = rows.hand_out[j], rows.seat_out[j], rows.captured[j]
            trumps[hout[H_TRUMP]] += 1
            if hout[H_VOIDED]:
                contracts[0] += 1
                continue
            if hout[H_MAKER] >= 0:
                contracts[hout[H_CONTRACT]] += 1
            for s in range(n):
                b, t, sc = sout[s, S_BID], sout[s, S_TRICKS], sout[s, S_SCORE]
                counts[s, b, t] += 1
                score_sum[s, b, t] += sc
                score_sq[s, b, t] += sc * sc
                k = min(max(sc - score_min, 0), width - 1)
                score_hist[s, b, t, k] += 1
                events[0, s] += sout[s, S_FOOLED]
            for e in range(captured.shape[0]):
                if captured[e] >= 0:
                    events[1 + e, captured[e]] += 1
            if card_stats:
                t = hout[H_TRUMP]
                for s in range(n):
                    m = rows.masks[j, s]
                    while m != ZERO:
                        card_dealt[t, lowest_bit_index(m)] += 1
                        m &= m - ONE
                m = rows.won[j, 0]
                while m != ZERO:
                    card_won[t, lowest_bit_index(m)] += 1
                    m &= m - ONE


@kernel_jit(nogil=True)
def run_traces(P, tabs, seed, indices, h, constrained, fixed, forced_trump, play_pol, bid_pol,
               scratch, trace_out, ndec_out, hand_out, seat_out, mask_out, captured_out):
    """Replay the hands `indices` with every decision recorded, plus their ordinary outputs.

    P ... scratch as in run_records (indices replaces start, count). Outputs, row j for hand
    indices[j]: trace_out[j, i] the i-th decision (kind, seat, value), ndec_out[j] how many;
    hand_out, seat_out, mask_out, captured_out as in run_records."""
    n = P[0]
    hands0, sout, captured, hout, trace = (scratch.dealt, scratch.seat_out, scratch.captured,
                                           scratch.hand_out, scratch.trace)
    for j in range(indices.shape[0]):
        run_hand(P, tabs, seed, indices[j], h, constrained, fixed, forced_trump, play_pol,
                 bid_pol, scratch, True)
        nd = hout[H_NDEC]
        ndec_out[j] = nd
        for i in range(nd):
            for k in range(3):
                trace_out[j, i, k] = trace[i, k]
        for k in range(H_SIZE):
            hand_out[j, k] = hout[k]
        for s in range(n):
            for k in range(S_SIZE):
                seat_out[j, s, k] = sout[s, k]
        for s in range(n + 1):
            mask_out[j, s] = hands0[s]
        for e in range(captured.shape[0]):
            captured_out[j, e] = captured[e]


# run_stages: how far each hand goes (the benchmark's per-stage timings are differences)
STAGE_DEAL, STAGE_BIDS, STAGE_SCORE, STAGE_HAND = range(4)


@kernel_jit(nogil=True)
def run_stages(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
               bid_pol, scratch, upto):
    """The benchmark's stage workload: hands start..start+count-1 taken only as far as
    `upto` with run_hands' own phase functions, in its batches, so stage costs are
    differences of rates.

    STAGE_DEAL: seed the deal stream and deal (deal_hands); STAGE_BIDS: everything before
    the first trick (deal_and_bid_rows); STAGE_SCORE: that, then scoring with no trick
    played; STAGE_HAND: the whole hand (run_hands). Other arguments as in run_records.
    Returns an XOR of the results, so no stage can be optimised away."""
    n = P[0]
    acc = ZERO
    rows = scratch.rows
    batch = rows.hand_out.shape[0]
    if upto == STAGE_DEAL:
        hands = scratch.hands
        for j in range(count):
            seed_stream(scratch.deal_stream, seed, start + j, SALT_DEAL)
            deal_hands(P, scratch.deal_stream, hands, scratch.dealt, fixed, h, forced_trump,
                       tabs.card_suit)
            for s in range(n):
                acc ^= hands[s]
        return acc
    for first in range(0, count, batch):
        m_hands = min(batch, count - first)
        if upto == STAGE_HAND:
            run_hands(P, tabs, seed, start + first, m_hands, h, constrained, fixed,
                      forced_trump, play_pol, bid_pol, scratch, False)
        else:
            deal_and_bid_rows(P, tabs, seed, start + first, m_hands, h, constrained, fixed,
                              forced_trump, bid_pol, scratch, False)
        for j in range(m_hands):
            ph, sout = rows.phase[j], rows.seat_out[j]
            if upto == STAGE_SCORE and not ph[P_VOIDED]:
                score_hand(P, tabs, h, ph[P_MAKER], ph[P_CONTRACT], ph[P_ALONE], sout,
                           rows.captured[j], scratch.unit_bids, scratch.unit_tricks,
                           scratch.unit_scores)
            for s in range(n):
                acc ^= np.uint64(sout[s, S_BID] + 64 * sout[s, S_SCORE]) ^ rows.hands[j, s]
    return acc


@kernel_jit(inline=True)
def _keep_forced_deal(j, seat, earlier, hands0, hout, sout, mask_out, trump_out, prev_out):
    """What a forced run keeps of deal j besides the scores: the seat's hand, the trump and
    the sum of the bids the seat heard."""
    mask_out[j] = hands0[seat]
    trump_out[j] = hout[H_TRUMP]
    total = 0
    for s in earlier:
        total += sout[s, S_BID]
    prev_out[j] = total


@kernel_jit(nogil=True)
def run_forced(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
               bid_pol, scratch, seat, side, earlier, cands, alive, own_first, score_out,
               took_out, ok_out, own_out, mask_out, trump_out, prev_out):
    """Forced bids: hands start..start+count-1, each played once per live candidate bid of
    `seat` (the same deal and random streams every time: common random numbers).

    P ... scratch as in run_records, except that P must be the caller's own copy (its
    OVERRIDE slots are rewritten here). seat: the focal seat; side: int64 seats whose tricks
    count as the seat's (its team in an auction); earlier: int64 seats whose bids it hears;
    cands: int64[B] candidate bids; alive: bool[count, B], which candidates to play on each
    deal; own_first: first play each deal with every seat on its own policy. Outputs, row j
    for hand start+j: score_out, took_out [j, k] the seat's score and its side's tricks with
    candidate k (left untouched where not alive), ok_out[j, k] whether the rules allowed the
    bid there; own_out[j] (own_first only) the seat's own bid, score and side's tricks;
    mask_out, trump_out, prev_out: the seat's hand, the trump and the sum of the bids it
    heard, from the own play or else the first candidate played.

    A deal's candidates are played one after another, each a one-hand call: batching 64
    deals per candidate measured slower (Oh Hell 4x12 by 19%, Hoffer 5%, Kings and Fools 3%),
    as replaying the same deal keeps its branches predictable and its tables in cache."""
    hands0, sout, hout = scratch.dealt, scratch.seat_out, scratch.hand_out
    for j in range(count):
        known = False
        if own_first:
            P[L.OVERRIDE_SEAT] = -1
            run_hand(P, tabs, seed, start + j, h, constrained, fixed, forced_trump, play_pol,
                     bid_pol, scratch, False)
            took = 0
            for s in side:
                took += sout[s, S_TRICKS]
            own_out[j, 0] = sout[seat, S_BID]
            own_out[j, 1] = sout[seat, S_SCORE]
            own_out[j, 2] = took
            _keep_forced_deal(j, seat, earlier, hands0, hout, sout, mask_out, trump_out, prev_out)
            known = True
        P[L.OVERRIDE_SEAT] = seat
        for k in range(cands.shape[0]):
            if not alive[j, k]:
                continue
            P[L.OVERRIDE_BID] = cands[k]
            run_hand(P, tabs, seed, start + j, h, constrained, fixed, forced_trump, play_pol,
                     bid_pol, scratch, False)
            took = 0
            for s in side:
                took += sout[s, S_TRICKS]
            ok_out[j, k] = hout[H_OVERRIDDEN] == 1
            score_out[j, k] = sout[seat, S_SCORE]
            took_out[j, k] = took
            if not known:
                _keep_forced_deal(j, seat, earlier, hands0, hout, sout, mask_out, trump_out,
                                  prev_out)
                known = True
