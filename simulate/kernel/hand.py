"""One hand of any game: deal → trump → bids or auction → tricks → score, in one code path.

Everything game-specific comes from the rule tables (P and `tabs`); the loop mirrors the
reference engine step for step, including the order in which decisions are asked, so a
trace of decisions can be replayed there. Scratch arrays are allocated once per chunk.

Each phase is its own function, inlined into its caller at numba IR level
(inline="always"): called apart, each phase would receive the ~20 table arrays as some 200
scalar arguments per hand, a cost that shows on fast workloads such as random play. For the
same reason run_hands plays a batch of hands per call. Its hands are dealt and bid first,
the whole batch in one call of deal_and_bid_rows, then played trick by trick in run_hands'
own loop; each hand's state between the two lives in its row of HandRows. Inlining copies a
callee's IR at a cost that grows with blocks x variables, so the big phases stay apart:
deal_and_bid inlined into run_hands cost about 15 s of a 55 s cold compile (the split
measured no slower), a tricks phase wrapping both play policies doubled the cold compile,
and the auction's two phases (_auction_winner, _maker_declares) are called once a hand,
only in auction games, where the call measured no slower.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulate.kernel.bits import lowest_bit_index, popcount
from simulate.kernel.deal import deal_cards, draw_card
from simulate.kernel.jit import kernel_jit
from simulate.kernel.policies import (
    auction_entry,
    bid_by_rules,
    choose_auction,
    choose_discard,
    choose_play,
    choose_trump,
    choose_yes_no,
    hand_weight,
    joint_trump,
    precision_play,
    table_auction,
)
from simulate.kernel.rng import seed_stream
from simulate.kernel.trick import TS_CARD0, TS_SIZE, legal_mask, trick_add, trick_reset, trick_winner
from simulate.tables import layout as L

ONE = np.uint64(1)
ZERO = np.uint64(0)

# hout slots
H_TRUMP, H_MAKER, H_CONTRACT, H_ALONE, H_VOIDED, H_NDEC, H_TURN, H_DEF_ALONE, \
    H_OVERRIDDEN = range(9)
H_SIZE = 9
# per-seat output columns
S_BID, S_TRICKS, S_SCORE, S_FOOLED = range(4)
S_SIZE = 4
# where a hand's random streams come from
SALT_DEAL, SALT_POLICY = 1, 2


ROWS = 64    # hands a HandScratch's rows hold: the most run_hands plays per call
# HandRows.phase slots: deal_and_bid's results, kept from a hand's bidding to its tricks
P_TURN, P_TRUMP, P_MAKER, P_CONTRACT, P_ALONE, P_DEF_ALONE, P_SITTING_OUT, P_VOIDED = range(8)
P_SIZE = 8


class HandRows(NamedTuple):
    """A batch of hands, row j for the j-th hand of a run_hands call: the state a hand carries
    from its bidding into its tricks, and its results (records keep them, summaries add them
    up). A HandScratch's per-hand arrays are row 0, so one-hand callers read them there."""
    hand_out: np.ndarray       # int64[rows, H_SIZE]
    seat_out: np.ndarray       # int64[rows, n, S_SIZE]
    masks: np.ndarray          # uint64[rows, n + 1]: the dealt hands and widow
    captured: np.ndarray       # int64[rows, MAX_EVENTS]
    won: np.ndarray            # uint64[rows, 2]: [the cards that won a trick, spare]
    hands: np.ndarray          # uint64[rows, n + 1]: the hands as played out
    policy_stream: np.ndarray  # uint64[rows, 3]: the policies' random stream
    phase: np.ndarray          # int64[rows, P_SIZE]: what deal_and_bid returned (P_ slots)


def make_rows(n: int, rows: int) -> HandRows:
    """HandRows for `rows` hands of n players."""
    return HandRows(np.zeros((rows, H_SIZE), np.int64), np.zeros((rows, n, S_SIZE), np.int64),
                    np.zeros((rows, n + 1), np.uint64), np.zeros((rows, L.MAX_EVENTS), np.int64),
                    np.zeros((rows, 2), np.uint64), np.zeros((rows, n + 1), np.uint64),
                    np.zeros((rows, 3), np.uint64), np.zeros((rows, P_SIZE), np.int64))


class HandScratch(NamedTuple):
    """run_hand's work arrays, which also receive each hand's results (a tuple, so callers
    may pass it on positionally)."""
    bid_value: np.ndarray      # float64[deck + 1]: each bid's expected score (the scoring
                               # bidder's work array, best_scoring_bid)
    hands: np.ndarray          # uint64[n + 1]: hands as played out (index n: widow)
    dealt: np.ndarray          # uint64[n + 1]: the dealt hands and widow
    seat_out: np.ndarray       # int64[n, S_SIZE]: bid, tricks, score, fooled kings by seat
    captured: np.ndarray       # int64[MAX_EVENTS]: capturing seat per event (-1: none)
    trick: np.ndarray          # int64[TS_SIZE]: the trick state
    won: np.ndarray            # uint64[2]: [cards that won a trick, spare]
    deal_stream: np.ndarray    # uint64[3]: the deal's random stream
    policy_stream: np.ndarray  # uint64[3]: the policies' random stream
    unit_bids: np.ndarray      # int64[n]: bids by unit (player or team)
    unit_tricks: np.ndarray    # int64[n]: tricks by unit
    unit_scores: np.ndarray    # int64[n]: score by unit
    hand_out: np.ndarray       # int64[H_SIZE]: the H_ slots
    trace: np.ndarray          # int64[max_decisions, 3]: (kind, seat, value) per decision
    rows: HandRows             # a batch of ROWS hands; the arrays above that a hand carries
                               # from its bidding to its tricks are views of row 0


def make_scratch(n: int, deck: int, max_decisions: int) -> HandScratch:
    """Per-chunk work arrays for run_hand (allocated once, reused by every hand of the
    chunk): n players, a deck of `deck` cards, room for `max_decisions` traced decisions.
    The per-hand arrays are row 0 of `rows`, where run_hands leaves a one-hand call's
    results."""
    rows = make_rows(n, ROWS)
    return HandScratch(np.zeros(deck + 1), rows.hands[0], rows.masks[0], rows.seat_out[0],
                       rows.captured[0], np.zeros(TS_SIZE, np.int64), rows.won[0],
                       np.zeros(3, np.uint64), rows.policy_stream[0], np.zeros(n, np.int64),
                       np.zeros(n, np.int64), np.zeros(n, np.int64), rows.hand_out[0],
                       np.zeros((max_decisions, 3), np.int64), rows)


def max_decisions(n: int, hand_size: int, widow: int, n_steps: int) -> int:
    """An upper bound on the decisions of one hand (trump, bids or auction rounds over
    n_steps ladder steps, discards from the widow, alone calls, plays)."""
    return 4 + 2 * n + n * (n_steps + 1) + widow + n * hand_size


@kernel_jit(inline=True)
def _record(trace, hout, do_trace, kind, seat, value):
    if do_trace:
        k = hout[H_NDEC]
        trace[k, 0] = kind
        trace[k, 1] = seat
        trace[k, 2] = value
        hout[H_NDEC] = k + 1


@kernel_jit(inline=True)
def _unit(s, teams):
    return s % teams if teams > 0 else s


@kernel_jit(inline=True)
def _partners(seat, n, teams):
    """Mask of the seat's partners (who sit out when it plays alone)."""
    m = ZERO
    for s in range(n):
        if s != seat and _unit(s, teams) == _unit(seat, teams):
            m |= ONE << np.uint64(s)
    return m


@kernel_jit(inline=True)
def _seat_at(first_seat, pos, sitting_out, n):
    """The seat that played position `pos` of a trick led by first_seat."""
    if sitting_out == ZERO:
        seat = first_seat + pos
        return seat - n if seat >= n else seat
    seat = first_seat
    k = 0
    while True:
        if not (sitting_out >> np.uint64(seat)) & ONE:
            if k == pos:
                return seat
            k += 1
        seat = seat + 1 if seat + 1 < n else 0


@kernel_jit(inline=True)
def bid_weights(pol, card_rate, win_weight):
    """The per-card weights a bidder reads: the measured card rates for the heuristic and
    table bidders, the analytic win weights for the others."""
    return card_rate if pol >= L.BID_HEURISTIC else win_weight


@kernel_jit(inline=True)
def reset_outputs(n, hout, sout, captured):
    """Clear the hand, seat and capture outputs before a hand (unset slots read -1)."""
    for i in range(H_SIZE):
        hout[i] = -1
    hout[H_NDEC] = 0
    hout[H_VOIDED] = 0
    hout[H_OVERRIDDEN] = 0
    for s in range(n):
        for k in range(S_SIZE):
            sout[s, k] = 0
    for e in range(L.MAX_EVENTS):
        captured[e] = -1


@kernel_jit(inline=True)
def deal_hands(P, rs_deal, hands, hands0, fixed, h, forced_trump, card_suit):
    """Deal the hands and the widow into hands (a copy into hands0) and, when a turned-up
    card decides trump, turn one up; returns it (-1: none)."""
    n = P[L.N_PLAYERS]
    turn_up = P[L.CHOOSER] == L.CH_TURN_UP
    while True:
        free, size = deal_cards(P, rs_deal, hands, fixed, h, n)
        turn = -1
        if turn_up and size > 0:
            turn = draw_card(rs_deal, free, size)
        # a forced turn-up trump is a condition on the deal: deal again until it holds
        if not turn_up or forced_trump < 0 or \
                (turn >= 0 and card_suit[turn] == forced_trump) or (turn < 0 and forced_trump == 4):
            break
    for s in range(n + 1):
        hands0[s] = hands[s]
    return turn


@kernel_jit(inline=True)
def trump_before_bids(P, rs_pol, hands, h, forced_trump, turn, card_suit, bid_pol, card_rate,
                       win_weight, trace, hout, do_trace):
    """Trump as the rules fix it before any bid: fixed, the turned-up card's suit, or the
    dealer's choice (drawn at random where the dealer names it before looking at the hand);
    otherwise forced_trump (-1 when the bidding decides it)."""
    n = P[L.N_PLAYERS]
    chooser = P[L.CHOOSER]
    trump = forced_trump
    if chooser == L.CH_FIXED:
        trump = P[L.FIXED_TRUMP]
    elif chooser == L.CH_TURN_UP:
        trump = card_suit[turn] if turn >= 0 else 4  # equals forced_trump when one is forced
    elif chooser == L.CH_DEALER:
        if forced_trump < 0:
            # a dealer naming trump before looking has nothing to choose by: a uniform draw
            pol = L.BID_RANDOM if P[L.TRUMP_BLIND] else bid_pol[n - 1]
            trump = choose_trump(pol, rs_pol, P, hands[n - 1], h,
                                 bid_weights(bid_pol[n - 1], card_rate, win_weight))
        _record(trace, hout, do_trace, L.D_TRUMP, n - 1, trump)
    return trump


@kernel_jit()
def _auction_winner(P, rs_pol, hands, h, bid_pol, ladder, card_rate, win_weight, suit_mask,
                    bid_table, trace, hout, do_trace):
    """The auction, then the all-pass rule: returns (maker, ladder step), maker -1 when
    the hand is void. A seat bids by its policy; the table bidder by its trained auction
    table where it has one (else as the heuristic); the training seat P[AUCTION_SEAT] to
    the step P[AUCTION_LIMIT], whatever its policy."""
    n = P[L.N_PLAYERS]
    first = P[L.FIRST_BIDDER]
    high = 0
    high_seat = -1
    passed = ZERO
    n_steps = P[L.N_STEPS]
    i = 0
    if P[L.OVERRIDE_SEAT] >= 0:
        # bid odds: this seat is the maker at the forced contract step (no auction)
        high_seat = P[L.OVERRIDE_SEAT]
        high = P[L.OVERRIDE_BID]
        hout[H_OVERRIDDEN] = 1
    while high_seat < 0 or P[L.OVERRIDE_SEAT] < 0:
        npass = popcount(passed)
        if high_seat >= 0 and npass == n - 1:
            break
        if npass == n:
            break
        seat = (first + i) % n
        i += 1
        if (passed >> np.uint64(seat)) & ONE:
            continue
        if seat == P[L.AUCTION_SEAT]:
            limit = P[L.AUCTION_LIMIT]
            action = high + 1 if high < n_steps and high + 1 <= limit else 0
        else:
            action = -1
            if bid_pol[seat] == L.BID_TABLE:
                action = table_auction(rs_pol, high, n_steps, hands[seat], h, seat, P,
                                       card_rate, suit_mask, bid_table)
            if action < 0:
                action = choose_auction(bid_pol[seat], rs_pol, high, n_steps, ladder,
                                        hands[seat], P[L.WIDOW], P,
                                        bid_weights(bid_pol[seat], card_rate, win_weight))
        _record(trace, hout, do_trace, L.D_AUCTION, seat, action)
        if action == 0:
            passed |= ONE << np.uint64(seat)
        else:
            high = action
            high_seat = seat
    if high_seat < 0:
        mode = P[L.ALL_PASS]
        if mode == L.AP_JOKER_HOLDER and P[L.ALL_PASS_CARD] >= 0:
            bit = ONE << np.uint64(P[L.ALL_PASS_CARD])
            for s in range(n):
                if hands[s] & bit:
                    high_seat = s
            high = P[L.ALL_PASS_STEP]
        elif mode == L.AP_STICK_DEALER:
            high_seat = n - 1
            high = P[L.STICK_STEP]
    return high_seat, high


@kernel_jit()
def _maker_declares(P, rs_pol, hands, h, maker, contract, trump, forced_trump, bid_pol,
                    ladder, strength, suit_mask, aces, card_rate, win_weight, bid_table, sout,
                    trace, hout, do_trace):
    """The auction's maker takes the widow, names trump, discards and may go alone (then a
    defender may too): the table bidder goes alone by its trained auction table where it
    has an entry for its hand, training forces the call by P[ALONE_FORCE]. Returns (trump,
    alone seat, defending-alone seat, seats sitting out)."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    sout[maker, S_BID] = contract
    hands[maker] |= hands[n]
    if forced_trump < 0:
        trump = choose_trump(bid_pol[maker], rs_pol, P, hands[maker], h,
                             bid_weights(bid_pol[maker], card_rate, win_weight))
    _record(trace, hout, do_trace, L.D_TRUMP, maker, trump)
    with_widow = hands[maker]    # the lone call reads the hand as the maker sees it now
    for _ in range(P[L.DISCARD]):
        c = choose_discard(bid_pol[maker], rs_pol, hands[maker], trump, strength, suit_mask,
                           aces)
        _record(trace, hout, do_trace, L.D_DISCARD, maker, c)
        hands[maker] &= ~(ONE << np.uint64(c))
    alone = -1
    defender_alone = -1
    sitting_out = ZERO
    go_alone = ladder[contract, 2]
    if go_alone == 0 and P[L.ALLOW_ALONE]:
        go_alone = P[L.ALONE_FORCE]           # training forces the call
        if go_alone < 0 and bid_pol[maker] == L.BID_TABLE:
            go_alone = auction_entry(with_widow, h, maker, trump, card_rate, suit_mask,
                                     bid_table, L.ALONE_AT)
        if go_alone < 0:
            go_alone = choose_yes_no(bid_pol[maker], rs_pol,
                                     hand_weight(hands[maker], h, trump, card_rate), h - 0.5)
        _record(trace, hout, do_trace, L.D_ALONE, maker, go_alone)
    if go_alone:
        alone = maker
        sitting_out |= _partners(maker, n, teams)
        if P[L.ALLOW_ALONE]:
            for k in range(1, n):
                seat = (maker + k) % n
                if _unit(seat, teams) == _unit(maker, teams):
                    continue
                yes = choose_yes_no(bid_pol[seat], rs_pol, 0.0, 1.0)   # never defends alone
                _record(trace, hout, do_trace, L.D_DEFEND_ALONE, seat, yes)
                if yes:
                    defender_alone = seat
                    sitting_out |= _partners(seat, n, teams)
                    break
    return trump, alone, defender_alone, sitting_out


@kernel_jit(inline=True)
def bid_limits(P, constrained, last, h, total):
    """(lowest, highest, excluded) bid of a seat, given whether it bids last and the total
    of the bids before it; excluded is -1 when no bid is excluded. `constrained`: whether
    the rules' bid constraint binds this round (the hook excludes the bid that makes the
    total h; Max Bet caps the total at h and makes the last bidder fill it). Simultaneous
    bids are unconstrained."""
    constraint = P[L.CONSTRAINT] if (constrained and P[L.FORM] != L.FORM_SIMULTANEOUS) else 0
    lo, hi, excluded = 0, h, -1
    if constraint == L.CON_HOOK and last:
        excluded = h - total
    elif constraint == L.CON_MAX_BET:
        hi = h - total
        if last:
            lo = hi
    return lo, hi, excluded


@kernel_jit(inline=True)
def heard_bids(P, total, bits):
    """(sum, one-card bits) of the earlier bids as a bidder hears them: as made where
    bidding is sequential, none where bids are simultaneous (revealed together)."""
    if P[L.FORM] == L.FORM_SIMULTANEOUS:
        return 0, 0
    return total, bits


@kernel_jit(inline=True)
def heard_bits_after(bits, h, j, b):
    """The earlier-bids bits once bid b is made at position j of the bidding order: one bit
    per bid (0 or at least 1), kept at one card only, where the exact one-card bidder reads
    the sequence of earlier bids."""
    if h == 1 and j < 62:
        bits |= min(b, 1) << j
    return bits


@kernel_jit(inline=True)
def sequential_bids(P, rs_pol, hands, h, constrained, trump, forced_trump, bid_pol, tabs, turn,
                     sout, trace, hout, do_trace, stop_seat, want_trump, bid_value):
    """Every seat bids in turn from the first bidder (the first bidder names trump first
    where the rules say so), under the hook or Max Bet when `constrained`; returns trump.
    tabs: the KernelTables; turn: the turned-up card (-1: none); bid_value: the scratch
    array of that name. A seat hears the earlier bids only where bidding is sequential.

    stop_seat, want_trump (-1: none; a hand passes -1 for both): bid odds look at a deal
    only up to what conditions it, so the bidding stops before `stop_seat` bids, or as soon
    as the trump named is not `want_trump` (the deal is then rejected); the seats that have
    not bid keep their bids unset."""
    card_rate, win_weight = tabs.card_rate, tabs.win_weight
    n = P[L.N_PLAYERS]
    first = P[L.FIRST_BIDDER]
    total = 0
    bits = 0      # the bids made, one bit each in bidding order (read at one card only)
    joint_bid = -1    # the first bidder's bid, where it came with the trump it named
    for j in range(n):
        seat = first + j if first + j < n else first + j - n
        weights = bid_weights(bid_pol[seat], card_rate, win_weight)
        lo, hi, excluded = bid_limits(P, constrained, j == n - 1, h, total)
        if P[L.CHOOSER] == L.CH_FIRST_BIDDER and j == 0:
            if forced_trump < 0:
                # the table bidder names trump and bid together where its model has
                # weights; else (and every other bidder) by the hand's weight alone
                trump = -1
                if bid_pol[seat] == L.BID_TABLE:
                    trump, joint_bid = joint_trump(P, lo, hi, excluded, hands[seat], h, seat,
                                                   weights, tabs, bid_value, want_trump)
                    if h == 1:
                        joint_bid = -1   # one card: the exact table may answer first
                if trump < 0:
                    trump = choose_trump(bid_pol[seat], rs_pol, P, hands[seat], h, weights)
            _record(trace, hout, do_trace, L.D_TRUMP, seat, trump)
            if 0 <= want_trump != trump:
                return trump
        if seat == stop_seat:
            return trump
        if seat == P[L.OVERRIDE_SEAT] and lo <= P[L.OVERRIDE_BID] <= hi and \
                P[L.OVERRIDE_BID] != excluded:
            b = P[L.OVERRIDE_BID]
            hout[H_OVERRIDDEN] = 1
        elif j == 0 and joint_bid >= 0:
            b = joint_bid    # what bid_by_rules would ask the model for again
        else:
            heard_sum, heard_bits = heard_bids(P, total, bits)
            b = bid_by_rules(bid_pol[seat], rs_pol, P, lo, hi, excluded, hands[seat], h, trump,
                             weights, seat, heard_sum, heard_bits, turn, tabs, bid_value)
        _record(trace, hout, do_trace, L.D_BID, seat, b)
        sout[seat, S_BID] = b
        total += b
        bits = heard_bits_after(bits, h, j, b)
    return trump


@kernel_jit(inline=True)
def face_up_cards(P, hands0, turn):
    """Cards every seat sees besides its own and those played: the turned-up card, and the
    undealt leftovers where they lie face up (card counting treats them as gone)."""
    n = P[L.N_PLAYERS]
    seen = ZERO
    if turn >= 0:
        seen |= ONE << np.uint64(turn)
    if P[L.FACE_UP_LEFTOVERS]:
        dealt = ZERO
        for s in range(n + 1):
            dealt |= hands0[s]
        D = P[L.DECK_SIZE]
        everything = ~ZERO if D >= 64 else (ONE << np.uint64(D)) - ONE
        seen |= everything & ~dealt
    return seen


@kernel_jit(inline=True)
def _first_leader(P, maker, alone, defender_alone, sitting_out):
    """Who leads the first trick: a lone defender, else the seat after a lone maker, else
    the maker (where the maker leads), else the rules' first leader, skipping sitters-out."""
    n = P[L.N_PLAYERS]
    if defender_alone >= 0:
        return defender_alone
    if alone >= 0:
        leader = (alone + 1) % n
        if (sitting_out >> np.uint64(leader)) & ONE:
            leader = (alone + 2) % n
        return leader
    if P[L.FIRST_LEAD] < 0 and maker >= 0:
        return maker
    leader = P[L.FIRST_LEAD] if P[L.FIRST_LEAD] >= 0 else 0
    while (sitting_out >> np.uint64(leader)) & ONE:
        leader = (leader + 1) % n
    return leader


@kernel_jit(inline=True)
def tricks_wanted(P, seat, h, maker, contract, ladder, sout):
    """Tricks the seat's side still wants: its bids left to make, the contract left to make
    (or to set), and at least one once every further trick still scores."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    need = 0
    if teams == 0 and maker < 0:
        need = sout[seat, S_BID] - sout[seat, S_TRICKS]
    elif maker >= 0:
        is_maker = _unit(seat, teams) == _unit(maker, teams)
        if is_maker:
            need = ladder[contract, 0]
        else:
            need = h - ladder[contract, 0] + 1
        for s in range(n):
            if _unit(s, teams) == _unit(seat, teams):
                need -= sout[s, S_TRICKS]
        if need <= 0 and P[L.OVERTRICKS_PAY if is_maker else L.DEFENDERS_PAY]:
            need = 1   # past the contract (or the set) every trick still scores
    else:
        for s in range(n):
            if _unit(s, teams) == _unit(seat, teams):
                need += sout[s, S_BID] - sout[s, S_TRICKS]
    return need


@kernel_jit(inline=True)
def precision_context(P, ts, seat, first_seat, played, sitting_out, maker, sout, foolable):
    """What precision play reads besides the cards: (whether the seat's partner is winning
    the trick so far, the bids of the seat's side)."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    partner_winning = False
    if played > 0 and teams > 0:
        wpos, _ = trick_winner(ts, foolable)
        wseat = _seat_at(first_seat, wpos, sitting_out, n)
        partner_winning = wseat != seat and _unit(wseat, teams) == _unit(seat, teams)
    side_bid = 0
    if maker < 0 and teams == 0:
        side_bid = sout[seat, S_BID]
    elif maker < 0:
        for s in range(n):
            if _unit(s, teams) == _unit(seat, teams):
                side_bid += sout[s, S_BID]
    return partner_winning, side_bid


@kernel_jit(inline=True)
def _close_trick(P, ts, tmask, first_seat, sitting_out, foolable, sout, captured, won):
    """The finished trick's winner takes it: its trick and fooled kings into sout, the
    capture events among the trick's cards into captured, the winning card into won[0].
    Returns the winner, who leads next."""
    n = P[L.N_PLAYERS]
    pos, fooled = trick_winner(ts, foolable)
    winner = _seat_at(first_seat, pos, sitting_out, n)
    won[0] |= ONE << np.uint64(ts[TS_CARD0 + pos])
    sout[winner, S_TRICKS] += 1
    sout[winner, S_FOOLED] += fooled
    for e in range(P[L.N_EVENTS]):
        if (tmask >> np.uint64(P[L.EVENT0 + 3 * e])) & ONE:
            captured[e] = winner
    return winner


@kernel_jit(inline=True)
def _score_contract(P, h, maker, contract, alone, ladder, score_t, defenders_t, utook, uscore):
    """A contract hand: the makers' score by the contract (times the alone multiplier),
    the defenders' by their tricks."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    n_units = teams if teams > 0 else n
    mu = _unit(maker, teams)
    need_t = ladder[contract, 0]
    mult = ladder[contract, 1]
    if alone >= 0 and _unit(alone, teams) == mu:
        mult *= P[L.ALONE_MULT]
    for u in range(n_units):
        if u == mu:
            uscore[u] = mult * score_t[h, need_t, utook[u]]
        else:
            uscore[u] = defenders_t[h, utook[u]]


@kernel_jit(inline=True)
def _score_bids(P, h, sout, captured, score_t, lose_bonus_t, as_exact_t, all_exact_t, ubid,
                utook, uscore):
    """A bidding hand: each unit's score by (bid, took), then everyone exact, fooled kings
    and the capture events."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    n_units = teams if teams > 0 else n
    all_exact = True
    for u in range(n_units):
        uscore[u] = score_t[h, ubid[u], utook[u]]
        if ubid[u] != utook[u]:
            all_exact = False
    if all_exact:
        for u in range(n_units):
            if P[L.STARS]:
                uscore[u] = 0
            elif P[L.HAS_ALL_EXACT]:
                uscore[u] = all_exact_t[h, ubid[u], utook[u]]
    fool_points = P[L.FOOL_POINTS]
    for s in range(n):
        u = _unit(s, teams)
        if sout[s, S_FOOLED] > 0 and (P[L.FOOL_NEEDS_EXACT] == 0 or ubid[u] == utook[u]):
            uscore[u] += fool_points * sout[s, S_FOOLED]
    zeroed = ZERO
    granted = ZERO
    for e in range(P[L.N_EVENTS]):
        s = captured[e]
        if s < 0:
            continue
        u = _unit(s, teams)
        effect = P[L.EVENT0 + 3 * e + 1]
        b, t = ubid[u], utook[u]
        if effect == L.EV_ADD:
            uscore[u] += P[L.EVENT0 + 3 * e + 2]
        elif effect == L.EV_LOSE_BONUS:
            if b == t:
                uscore[u] += lose_bonus_t[h, b, t] - score_t[h, b, t]
            elif (granted >> np.uint64(u)) & ONE:
                # applied after an as_exact grant, it takes that bonus back (A-HJ-7)
                uscore[u] += lose_bonus_t[h, t, t] - as_exact_t[h, b, t]
        elif effect == L.EV_AS_EXACT:
            if b != t:
                uscore[u] += as_exact_t[h, b, t] - score_t[h, b, t]
                granted |= ONE << np.uint64(u)
        else:
            zeroed |= ONE << np.uint64(u)
    for u in range(n_units):
        if (zeroed >> np.uint64(u)) & ONE:
            uscore[u] = 0


@kernel_jit(inline=True)
def score_hand(P, tabs, h, maker, contract, alone, sout, captured, ubid, utook, uscore):
    """Sum bids and tricks by unit (player or team), score the units, and give every seat
    its unit's score in sout."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    n_units = teams if teams > 0 else n
    for u in range(n_units):
        ubid[u] = 0
        utook[u] = 0
        uscore[u] = 0
    for s in range(n):
        u = _unit(s, teams)
        ubid[u] += sout[s, S_BID]
        utook[u] += sout[s, S_TRICKS]
    if P[L.KIND] == 1:
        _score_contract(P, h, maker, contract, alone, tabs.ladder, tabs.score, tabs.defenders,
                        utook, uscore)
    else:
        _score_bids(P, h, sout, captured, tabs.score, tabs.lose_bonus, tabs.as_exact,
                    tabs.all_exact, ubid, utook, uscore)
    for s in range(n):
        sout[s, S_SCORE] = uscore[_unit(s, teams)]


@kernel_jit(inline=True)
def deal_and_bid(P, tabs, seed, hidx, h, constrained, fixed, forced_trump, bid_pol, scratch,
                 do_trace):
    """Everything before the first trick: seed the hand's streams, clear the outputs, deal,
    fix trump, then the bids or the auction (and the maker's widow, trump, discards and
    alone calls). Returns (turned-up card, trump, maker, contract, alone seat, defending-
    alone seat, seats sitting out, voided); a voided hand has its H_VOIDED and H_TRUMP set.
    deal_and_bid_rows runs it for a batch of hands (the benchmark's stage timings too)."""
    card_suit = tabs.card_suit
    win_weight, card_rate = tabs.win_weight, tabs.card_rate
    suit_mask, strength, masks, ladder = tabs.suit_mask, tabs.strength, tabs.masks, tabs.ladder
    (bid_value, hands, hands0, sout, captured, ts, won, rs_deal, rs_pol, ubid, utook, uscore,
     hout, trace, _) = scratch
    n = P[L.N_PLAYERS]
    seed_stream(rs_deal, seed, hidx, SALT_DEAL)
    seed_stream(rs_pol, seed, hidx, SALT_POLICY)
    reset_outputs(n, hout, sout, captured)
    turn = deal_hands(P, rs_deal, hands, hands0, fixed, h, forced_trump, card_suit)
    hout[H_TURN] = turn
    trump = trump_before_bids(P, rs_pol, hands, h, forced_trump, turn, card_suit, bid_pol,
                               card_rate, win_weight, trace, hout, do_trace)
    maker = -1
    contract = 0
    alone = -1
    defender_alone = -1
    sitting_out = ZERO
    voided = False
    if P[L.FORM] == L.FORM_AUCTION:
        maker, contract = _auction_winner(P, rs_pol, hands, h, bid_pol, ladder, card_rate,
                                          win_weight, suit_mask, tabs.bid_table, trace, hout,
                                          do_trace)
        if maker < 0:
            hout[H_VOIDED] = 1
            hout[H_TRUMP] = 4 if trump < 0 else trump
            voided = True
        else:
            trump, alone, defender_alone, sitting_out = _maker_declares(
                P, rs_pol, hands, h, maker, contract, trump, forced_trump, bid_pol, ladder,
                strength, suit_mask, masks[2], card_rate, win_weight, tabs.bid_table, sout,
                trace, hout, do_trace)
    else:
        trump = sequential_bids(P, rs_pol, hands, h, constrained, trump, forced_trump, bid_pol,
                                 tabs, turn, sout, trace, hout, do_trace, -1, -1, bid_value)
    return turn, trump, maker, contract, alone, defender_alone, sitting_out, voided


@kernel_jit(inline=True)
def row_scratch(scratch, j):
    """The HandScratch of row j of scratch.rows: its per-hand arrays are row j's, the work
    arrays no hand keeps (trick state, streams of the deal, scoring units, trace) shared."""
    rows = scratch.rows
    return HandScratch(scratch.bid_value, rows.hands[j], rows.masks[j], rows.seat_out[j],
                       rows.captured[j], scratch.trick, rows.won[j], scratch.deal_stream,
                       rows.policy_stream[j], scratch.unit_bids, scratch.unit_tricks,
                       scratch.unit_scores, rows.hand_out[j], scratch.trace, rows)


@kernel_jit()
def deal_and_bid_rows(P, tabs, seed, start, count, h, constrained, fixed, forced_trump,
                      bid_pol, scratch, do_trace):
    """deal_and_bid for hands start..start+count-1 into rows 0..count-1 of scratch.rows (its
    results in their P_ slots). A call of its own, once per batch of hands: inlined into
    run_hands, deal_and_bid made the cold compile about 15 s longer (copying its IR alone
    took 8.6 s), and a call per hand would pass the tables as some 300 scalar arguments
    each time."""
    rows = scratch.rows
    for j in range(count):
        turn, trump, maker, contract, alone, defender_alone, sitting_out, voided = deal_and_bid(
            P, tabs, seed, start + j, h, constrained, fixed, forced_trump, bid_pol,
            row_scratch(scratch, j), do_trace)
        rows.won[j, 0] = ZERO     # a voided hand too: no card won a trick
        ph = rows.phase[j]
        ph[P_TURN] = turn
        ph[P_TRUMP] = trump
        ph[P_MAKER] = maker
        ph[P_CONTRACT] = contract
        ph[P_ALONE] = alone
        ph[P_DEF_ALONE] = defender_alone
        ph[P_SITTING_OUT] = np.int64(sitting_out)
        ph[P_VOIDED] = 1 if voided else 0


@kernel_jit(inline=True)
def run_hand(P, tabs, seed, hidx, h, constrained, fixed, forced_trump, play_pol, bid_pol,
             scratch, do_trace):
    """Play hand `hidx` of the stream `seed`: deal, trump, bids or auction, tricks, score.

    P: the int64 rule vector (tables.layout slots); tabs: RuleTables.as_tuple() (a
    KernelTables); seed and hidx key the hand's random streams; h: cards per hand;
    constrained: apply the hook or Max Bet; fixed: uint64[n] cards pinned to seats (0: deal
    freely); forced_trump: a trump index to impose (-1: as the rules choose it); play_pol,
    bid_pol: policy ids by seat; scratch: a HandScratch (make_scratch), which receives the
    results (hand_out, seat_out, dealt, captured, won); do_trace: record every decision in
    scratch.trace (hand_out[H_NDEC] of them). run_hands for one hand."""
    run_hands(P, tabs, seed, hidx, 1, h, constrained, fixed, forced_trump, play_pol, bid_pol,
              scratch, do_trace)


@kernel_jit(nogil=True)
def run_hands(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, play_pol,
              bid_pol, scratch, do_trace):
    """Play hands start..start+count-1 (count <= ROWS) as run_hand plays each, in one call:
    row j of scratch.rows receives hand start+j's results (row 0 is the scratch's own
    arrays). A call passes the tables and scratch arrays as some 300 scalar arguments,
    which cost 110-200 ns a hand when every hand was its own call. All the batch's hands
    are dealt and bid first (deal_and_bid_rows), then played; each hand's streams are its
    own, so the order changes no draw. do_trace: with count 1 only (one trace array)."""
    # The tricks are written out here, not inlined from a function of their own: numba
    # copies an inlined callee's IR block by block at a cost that grows with blocks x
    # variables; a tricks phase holding both play policies doubled the cold compile.
    rows = scratch.rows
    ts, trace = scratch.trick, scratch.trace
    n = P[L.N_PLAYERS]
    suit_mask, ladder = tabs.suit_mask, tabs.ladder
    eff, power, mech, masks = tabs.eff, tabs.power, tabs.mech, tabs.masks
    wild, foolable, aces = masks[0], masks[1], masks[2]
    deal_and_bid_rows(P, tabs, seed, start, count, h, constrained, fixed, forced_trump, bid_pol,
                      scratch, do_trace)
    for j in range(count):
        ph = rows.phase[j]
        if ph[P_VOIDED]:
            continue
        hands, hands0, sout, captured = rows.hands[j], rows.masks[j], rows.seat_out[j], \
            rows.captured[j]
        won, rs_pol, hout = rows.won[j], rows.policy_stream[j], rows.hand_out[j]
        turn, trump, maker, contract = ph[P_TURN], ph[P_TRUMP], ph[P_MAKER], ph[P_CONTRACT]
        alone, defender_alone = ph[P_ALONE], ph[P_DEF_ALONE]
        sitting_out = np.uint64(ph[P_SITTING_OUT])
        leader = _first_leader(P, maker, alone, defender_alone, sitting_out)
        active = n - popcount(sitting_out)
        broken = False
        gone = face_up_cards(P, hands0, turn)   # counting starts from what all can see
        for trick_no in range(h):
            trick_reset(ts)
            tmask = ZERO
            seat = leader
            played = 0
            while played < active:
                if not (sitting_out >> np.uint64(seat)) & ONE:
                    pol = play_pol[seat]
                    legal = legal_mask(hands[seat], ts, trump, broken,
                                       P[L.BREAKING_TRUMP], suit_mask, wild)
                    if pol != L.PLAY_RANDOM and legal & (legal - ONE) == ZERO and \
                            not P[L.ACE_CHOICE]:
                        # one card to play and nothing to declare: every fixed policy
                        # plays it (a random one still draws, so its stream stays as it was)
                        move = lowest_bit_index(legal)
                    elif pol == L.PLAY_PRECISION:
                        need = tricks_wanted(P, seat, h, maker, contract, ladder, sout)
                        partner_winning, side_bid = precision_context(
                            P, ts, seat, leader, played, sitting_out, maker, sout,
                            foolable)
                        move = precision_play(P, legal, hands[seat], gone, tmask, need,
                                              h - trick_no, ts, trump, partner_winning,
                                              active - played - 1, h, side_bid, tabs)
                    else:
                        need = 0 if pol == L.PLAY_RANDOM else \
                            tricks_wanted(P, seat, h, maker, contract, ladder, sout)
                        move = choose_play(pol, rs_pol, P, legal, need, ts, trump, eff,
                                           power, mech, tabs.srank, tabs.by_rank, tabs.srank_moves,
                                           tabs.beaters, foolable, aces)
                    _record(trace, hout, do_trace, L.D_PLAY, seat, move)
                    bit = ONE << np.uint64(move & 63)
                    hands[seat] &= ~bit
                    tmask |= bit
                    gone |= bit
                    trick_add(ts, move & 63, move >> 6, trump, eff, power, mech)
                    played += 1
                seat = seat + 1 if seat + 1 < n else 0
            if trump < 4 and (tmask & suit_mask[trump, trump]) != ZERO:
                broken = True
            leader = _close_trick(P, ts, tmask, leader, sitting_out, foolable, sout,
                                  captured, won)
        score_hand(P, tabs, h, maker, contract, alone, sout, captured, scratch.unit_bids,
                   scratch.unit_tricks, scratch.unit_scores)
        hout[H_TRUMP] = trump
        hout[H_MAKER] = maker
        hout[H_CONTRACT] = contract
        hout[H_ALONE] = alone
        hout[H_DEF_ALONE] = defender_alone
