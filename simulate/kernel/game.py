"""Whole games: the schedule or a target score, the dealer passing left, stars and every end
rule, around the same `run_hand` the hand runs use.

Seats here are absolute: seat 0 sits on the first dealer's left and seat n-1 is the first
dealer (the reference engine's `play_game(first_dealer=n-1)`). Hand k of game g is dealt by
seat (n-1+k) mod n, so relative seat s of that hand is absolute seat (k+s) mod n; policies
and thresholds rotate with it.

Coupled deals. Every hand is a round with a key: under a target score the hand's number k,
on a schedule (hand size h, how many h-card rounds came before) — so Hoffer's second peak
round shifts no later round's key. The cards come from `deal.deal_coupled`: each absolute
seat takes the free cards with the smallest keys of its own draw keyed by (seed, game,
round key, seat), a card's key depending on its identity (`card_ids`, from its name), not
on its index in the deck. Two configurations compared on one seed (another deck, other hand
sizes, another schedule) therefore give the same seat of the same round the same cards
wherever both decks hold them; the turned-up card draws the same way. The round key also
keys run_hand's own streams (widow, policy randomness): g * HANDS_PER_GAME + round key, so a
seed gives the same games however they are cut into chunks.

Everything the game loop needs beyond the rule tables comes in `G` (the end rule) and a few
small arrays (schedule, constrained rounds, cards whose holders are tracked, card ids).
"""

from __future__ import annotations

import numpy as np

from simulate.kernel.deal import deal_coupled
from simulate.kernel.hand import (
    H_ALONE,
    H_CONTRACT,
    H_MAKER,
    H_NDEC,
    H_OVERRIDDEN,
    H_SIZE,
    H_TRUMP,
    H_VOIDED,
    S_BID,
    S_FOOLED,
    S_SCORE,
    S_SIZE,
    S_TRICKS,
    run_hand,
)
from simulate.kernel.jit import kernel_jit
from simulate.kernel.policies import choose_bid
from simulate.tables import layout as L

ONE = np.uint64(1)
ZERO = np.uint64(0)
HANDS_PER_GAME = 16384         # stream keys per game; also bounds the safety cap below
SIZE_SLOTS = 64                # round key on a schedule: occurrence * SIZE_SLOTS + hand size
# by_size planes, each [seat, hand size]: played / exact by absolute seat, played / exact by
# seat relative to the dealer, score sum by absolute seat, hands dealt and hands dealt under
# the hook (or Max Bet) by the dealer's absolute seat
BY_PLAYED, BY_EXACT, BY_REL_PLAYED, BY_REL_EXACT, BY_SCORE, BY_DEALT, BY_HOOKED = range(7)
BY_SIZE_PLANES = 7

# G slots (the end rule)
G_TARGET_RULE, G_TARGET, G_LOWER, G_RIVER, G_TB_CAP, G_TB_PEAK, G_TIES_MAKERS, G_STARS, \
    G_STAR_WIN, G_TB_CONSTRAINED, G_MAX_HANDS, G_TIED_ONLY = range(12)
G_PARAMS = 12

# per-game output columns, then one block of SEAT_BASE + 2 * specials + events per seat
C_HANDS, C_TIEBREAKS, C_ALL_EXACT, C_CONSTRAINED, C_FORCED, C_VOIDED, C_CAPPED, \
    C_STAR_WIN, C_UNITS_WON, C_CONTRACTS = range(10)
C_FIXED = 10
P_TOTAL, P_WIN, P_STARS, P_EXACT, P_PLAYED, P_FOOLED, P_MAKER, P_MADE, P_ALONE, P_BIDS, \
    P_TRICKS, P_SPENT = range(12)
SEAT_BASE = 12

# per-hand trace columns (replay against the reference engine)
T_SIZE, T_ROUND, T_DEALER, T_NDEC, T_PLAYERS = range(5)
T_HOUT = 5


def seat_width(n_specials: int, n_events: int) -> int:
    """Columns of one seat's block in a game row: the P_ columns, then held / exact-while-
    holding per special card, then captures per event."""
    return SEAT_BASE + 2 * n_specials + n_events


def trace_width(n: int) -> int:
    """hand size, round, dealer, decisions, hout, sout, star decisions by unit, captures."""
    return T_HOUT + H_SIZE + n * S_SIZE + n + L.MAX_EVENTS


def make_game_scratch(n: int) -> tuple[np.ndarray, ...]:
    """play_game's per-chunk work arrays for n players (the `gs` argument)."""
    return (np.zeros(n, np.int64),   # play policies by relative seat
            np.zeros(n, np.int64),   # bid policies by relative seat
            np.zeros(n, np.int64),   # totals by absolute seat
            np.zeros(n, np.int64),   # stars by absolute seat
            np.zeros(n, np.int64),   # candidate units
            np.zeros(n, np.int64),   # leading units
            np.zeros(n, np.uint64),  # fixed hands: none in whole games
            np.zeros(3, np.uint64),  # a throw-away stream for _forced
            np.zeros(n, np.int64),   # absolute seat of each seat of the current hand
            np.zeros(SIZE_SLOTS + 1, np.int64),   # rounds of each hand size dealt so far
            np.zeros(64, np.uint64),  # the coupled deal's smallest keys
            np.zeros(64, np.int64),   # ... and their cards
            np.zeros(L.P_SIZE, np.int64))   # the rule vector with a clairvoyant's bid forced


@kernel_jit(inline=True)
def _unit(s, teams):
    return s % teams if teams > 0 else s


@kernel_jit(nogil=True)
def _leaders(totals, n_units, lower, candidates, flags):
    """flags[u] = 1 for the candidate units with the best total (unit u's total is seat
    u's: seat u is the unit's first member); returns how many."""
    best = 0
    first = True
    for u in range(n_units):
        if candidates[u]:
            x = totals[u]
            if first or (x < best if lower else x > best):
                best = x
                first = False
    k = 0
    for u in range(n_units):
        flags[u] = 1 if candidates[u] and totals[u] == best else 0
        k += flags[u]
    return k


@kernel_jit(nogil=True)
def _forced(P, tabs, hands0, sout, h, trump, bp, rs):
    """1 when the hook (or Max Bet) moved the last bidder off its own bid: the bid nearest
    its expected tricks (the heuristic's; a trained table already bids around the hook, so
    its own choice would hide the effect). Asked after the hand, from the dealt hand, the
    trump and the earlier bids, so the hand loop itself pays nothing for it."""
    n = P[L.N_PLAYERS]
    last = (P[L.FIRST_BIDDER] + n - 1) % n
    total = 0
    for s in range(n):
        if s != last:
            total += sout[s, S_BID]
    pol = min(bp[last], L.BID_HEURISTIC)
    weights = tabs.card_rate if pol >= L.BID_HEURISTIC else tabs.win_weight
    own = choose_bid(pol, rs, 0, h, -1, hands0[last], h, trump, weights, last, total,
                     tabs.suit_mask, tabs.bid_table)
    return 1 if own != sout[last, S_BID] else 0


@kernel_jit(inline=True)
def _clairvoyant_rules(Pr, Pc, tabs, seed, hidx, h, constrained, fixed, forced, pp, bp,
                       scratch, clair_abs, abs_of, hp, lower):
    """The rule vector for the hand about to be played: Pr itself, or (a bidding game with a
    clairvoyant seat in it) a copy Pc that forces that seat's bid to the one scoring best
    for it on this very deal (lowest where the lowest total wins), every legal bid having
    been played out on the same deal and streams with everything else unchanged. One
    clairvoyant per hand (the first); the hook and Max Bet still bind it."""
    seat = -1
    for s in range(hp):
        if clair_abs[abs_of[s]] == 1 and seat < 0:
            seat = s
    if seat < 0 or Pr[L.KIND] == 1:
        return Pr
    for i in range(Pr.shape[0]):
        Pc[i] = Pr[i]
    sout, hout = scratch.seat_out, scratch.hand_out
    best_b = -1
    best = 0
    Pc[L.OVERRIDE_SEAT] = seat
    for b in range(h + 1):
        Pc[L.OVERRIDE_BID] = b
        run_hand(Pc, tabs, seed, hidx, h, constrained, fixed, forced, pp, bp, scratch, False)
        if hout[H_OVERRIDDEN] != 1:
            continue           # not a legal bid here
        x = sout[seat, S_SCORE]
        if best_b < 0 or (x < best if lower else x > best):
            best_b = b
            best = x
    if best_b < 0:
        Pc[L.OVERRIDE_SEAT] = -1
    Pc[L.OVERRIDE_BID] = best_b
    return Pc


@kernel_jit(inline=True)
def _next_hand(G, sched, con_rounds, k, tb_size):
    """Hand k of the game: (cards per hand, schedule round or -1 for a tie-break round,
    whether the hook applies). Under a target score every hand is the schedule's first."""
    if G[G_TARGET_RULE] == 1:
        return sched[0], 0, con_rounds[0] == 1
    if k < sched.shape[0]:
        return sched[k], k, con_rounds[k] == 1
    return min(tb_size, G[G_TB_PEAK]), -1, G[G_TB_CONSTRAINED] == 1


@kernel_jit(inline=True)
def _seat_players(G, n, k, n_sched, dealer, lead, play_abs, bid_abs, abs_of, pp, bp):
    """Who plays hand k: everyone, or in a tied-only tie-break round the tied players, in
    their order from the dealer's left (the last of them deals). Fills abs_of, pp, bp by
    seat of the hand; returns (players, whether it is a tied-only round)."""
    tied_round = False
    if k >= n_sched and G[G_TARGET_RULE] != 1 and G[G_TIED_ONLY] == 1:
        m = 0
        for a in range(n):
            m += lead[a]
        tied_round = m < n
    hp = 0
    for j in range(n):
        a = (dealer + 1 + j) % n
        if not tied_round or lead[a] == 1:
            abs_of[hp] = a
            pp[hp] = play_abs[a]
            bp[hp] = bid_abs[a]
            hp += 1
    return hp, tied_round


@kernel_jit(inline=True)
def _tally_seats(P, h, hp, made, specials, hands0, sout, captured, hout, abs_of, totals, row,
                 by_size):
    """Add the hand's scores to the totals and its per-seat counts (exact or made, bids,
    tricks, maker, alone, special cards held, captures) to the row and by_size."""
    teams = P[L.TEAMS]
    contract_game = P[L.KIND] == 1
    maker = hout[H_MAKER]
    n_sp = specials.shape[0]
    sw = SEAT_BASE + 2 * n_sp + P[L.N_EVENTS]
    for s in range(hp):
        a = abs_of[s]
        base = C_FIXED + a * sw
        totals[a] += sout[s, S_SCORE]
        b, t = sout[s, S_BID], sout[s, S_TRICKS]
        if contract_game:
            ok = _unit(s, teams) == _unit(maker, teams) and made
        else:
            ok = b == t
        row[base + P_PLAYED] += 1
        row[base + P_EXACT] += 1 if ok else 0
        row[base + P_FOOLED] += sout[s, S_FOOLED]
        row[base + P_BIDS] += b
        row[base + P_TRICKS] += t
        if s == maker:
            row[base + P_MAKER] += 1
            row[base + P_MADE] += 1 if made else 0
        if s == hout[H_ALONE]:
            row[base + P_ALONE] += 1
        by_size[BY_PLAYED, a, h] += 1
        by_size[BY_EXACT, a, h] += 1 if ok else 0
        by_size[BY_REL_PLAYED, s, h] += 1
        by_size[BY_REL_EXACT, s, h] += 1 if ok else 0
        by_size[BY_SCORE, a, h] += sout[s, S_SCORE]
        for e in range(n_sp):
            if (hands0[s] >> np.uint64(specials[e])) & ONE:
                row[base + SEAT_BASE + e] += 1
                row[base + SEAT_BASE + n_sp + e] += 1 if ok else 0
    for e in range(P[L.N_EVENTS]):
        if captured[e] >= 0:
            a = abs_of[captured[e]]
            row[C_FIXED + a * sw + SEAT_BASE + 2 * n_sp + e] += 1


@kernel_jit(inline=True)
def _tally_hand(P, tabs, h, hp, constrained, tied_round, specials, scratch, bp, rs_own,
                abs_of, totals, row, by_size):
    """Count the hand just played into the game's row: hands, hook-constrained and forced
    hands, voided hands, contracts, everyone exact, and every seat's counts."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    n_units = teams if teams > 0 else n
    hands0, sout, captured, hout = scratch.dealt, scratch.seat_out, scratch.captured, scratch.hand_out
    contract_game = P[L.KIND] == 1
    voided = hout[H_VOIDED] == 1
    maker = hout[H_MAKER]
    row[C_HANDS] += 1
    by_size[BY_DEALT, abs_of[hp - 1], h] += 1
    if constrained and not voided and not tied_round and \
            P[L.FORM] == L.FORM_SEQUENTIAL and P[L.CONSTRAINT] != L.CON_NONE:
        row[C_CONSTRAINED] += 1
        by_size[BY_HOOKED, abs_of[hp - 1], h] += 1
        row[C_FORCED] += _forced(P, tabs, hands0, sout, h, hout[H_TRUMP], bp, rs_own)
    if voided:
        row[C_VOIDED] += 1
        return
    if contract_game:
        row[C_CONTRACTS] += 1
    made = False
    if contract_game:
        need = tabs.ladder[hout[H_CONTRACT], 0]
        took = 0
        for s in range(n):
            if _unit(s, teams) == _unit(maker, teams):
                took += sout[s, S_TRICKS]
        made = took >= need
    _tally_seats(P, h, hp, made, specials, hands0, sout, captured, hout, abs_of, totals, row,
                 by_size)
    if not contract_game:
        # everyone exact: every unit (player or team) made its bid exactly
        ubid, utook = scratch.unit_bids, scratch.unit_tricks
        all_exact = True
        for u in range(n_units if not tied_round else hp):
            if ubid[u] != utook[u]:
                all_exact = False
        if all_exact:
            row[C_ALL_EXACT] += 1


@kernel_jit(inline=True)
def _stars(P, k, dealer, sout, star_thr, totals, stars, row, sw, tracing, tr_int):
    """Horseshoes stars: a star per exact unit, then a unit that scored may spend one to
    take the hand's points off its total (its first seat's threshold decides)."""
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    n_units = teams if teams > 0 else n
    for u in range(n_units):
        bsum, tsum = 0, 0
        for s in range(n):
            if _unit((dealer + 1 + s) % n, teams) == u:
                bsum += sout[s, S_BID]
                tsum += sout[s, S_TRICKS]
        if bsum == tsum:
            for a in range(n):
                if _unit(a, teams) == u:
                    stars[a] += 1
    for u in range(n_units):
        lead_rel = n
        for a in range(n):
            if _unit(a, teams) == u:
                lead_rel = min(lead_rel, (a - dealer - 1 + 2 * n) % n)
        points = sout[lead_rel, S_SCORE]
        if points > 0 and stars[u] > 0:
            thr = star_thr[(dealer + 1 + lead_rel) % n]
            spend = thr >= 0 and points >= thr
            if tracing:
                tr_int[k, T_HOUT + H_SIZE + n * S_SIZE + u] = 1 if spend else 0
            if spend:
                for a in range(n):
                    if _unit(a, teams) == u:
                        stars[a] -= 1
                        totals[a] -= points
                        row[C_FIXED + a * sw + P_SPENT] += 1


@kernel_jit(inline=True)
def _trace_hand(n, k, h, rnd, hp, scratch, abs_of, tr_int, tr_masks, tr_dec):
    """Record hand k's deal, decisions and outcome in tr_int[k], tr_masks[k], tr_dec[k]."""
    hands0, sout, captured, hout, trace = (scratch.dealt, scratch.seat_out, scratch.captured,
                                           scratch.hand_out, scratch.trace)
    tr_int[k, T_SIZE] = h
    tr_int[k, T_ROUND] = rnd
    tr_int[k, T_DEALER] = abs_of[hp - 1]
    tr_int[k, T_NDEC] = hout[H_NDEC]
    tr_int[k, T_PLAYERS] = hp
    for i in range(H_SIZE):
        tr_int[k, T_HOUT + i] = hout[i]
    for s in range(n):
        for i in range(S_SIZE):
            tr_int[k, T_HOUT + H_SIZE + s * S_SIZE + i] = sout[s, i]
    for e in range(L.MAX_EVENTS):
        tr_int[k, T_HOUT + H_SIZE + n * S_SIZE + n + e] = captured[e]
    for s in range(hp + 1):
        tr_masks[k, s] = hands0[s]
    for i in range(hout[H_NDEC]):
        for j in range(3):
            tr_dec[k, i, j] = trace[i, j]


@kernel_jit(inline=True)
def _target_game_over(G, n, teams, k, dealer, maker, totals, stars, cand, lead, row):
    """Under a target score: is the game over after hand k (k hands dealt)? Sets lead to
    the winning units: stars enough to win, else the target reached (ties to the last
    maker's side where the rules say so), else the safety cap."""
    n_units = teams if teams > 0 else n
    lower = G[G_LOWER] == 1
    if G[G_STARS] == 1:
        any_star = False
        for u in range(n_units):
            cand[u] = 1 if stars[u] >= G[G_STAR_WIN] else 0
            any_star = any_star or cand[u] == 1
        if any_star:
            _leaders(totals, n_units, lower, cand, lead)
            row[C_STAR_WIN] = 1
            return True
    any_reached = False
    for u in range(n_units):
        cand[u] = 1 if totals[u] >= G[G_TARGET] else 0
        any_reached = any_reached or cand[u] == 1
    if any_reached:
        if lower:
            for u in range(n_units):
                cand[u] = 1
            _leaders(totals, n_units, True, cand, lead)
        else:
            m = _leaders(totals, n_units, False, cand, lead)
            if m > 1 and G[G_TIES_MAKERS] == 1 and maker >= 0:
                mu = _unit((dealer + 1 + maker) % n, teams)
                if lead[mu] == 1:
                    for u in range(n_units):
                        lead[u] = 1 if u == mu else 0
        return True
    if k >= G[G_MAX_HANDS]:
        for u in range(n_units):
            cand[u] = 1
        _leaders(totals, n_units, lower, cand, lead)
        row[C_CAPPED] = 1
        return True
    return False


@kernel_jit(inline=True)
def _river_step(tb_size, tb_step, peak):
    """The next tie-break hand size along the river, bouncing in [1, peak]."""
    if tb_size >= peak:
        tb_step = -1
    elif tb_size <= 1:
        tb_step = 1
    return tb_size + tb_step, tb_step


@kernel_jit(inline=True)
def _final_row(n, teams, tb, sw, totals, stars, lead, row):
    """The game's closing columns: tie-break rounds, units sharing the win, and every
    seat's total, stars and win flag."""
    n_units = teams if teams > 0 else n
    row[C_TIEBREAKS] = tb
    units_won = 0
    for u in range(n_units):
        units_won += lead[u]
    row[C_UNITS_WON] = units_won
    for a in range(n):
        base = C_FIXED + a * sw
        row[base + P_TOTAL] = totals[a]
        row[base + P_STARS] = stars[a]
        row[base + P_WIN] = lead[_unit(a, teams)]


@kernel_jit(inline=True)
def _play_hand(P, tabs, seed, hidx, h, constrained, fixed, forced, play_pol, bid_pol, scratch,
               tracing):
    """run_hand with `tracing` passed as the constant True or False. The hand entry points
    pass constants, so numba compiles run_hand once per constant (the trace code pruned
    where False); a game reusing those compiles no run_hand of its own. A run-time flag
    made a third whole compile of run_hand: the first whole-game compile after the hand
    kernels took 87 s with it and 33 s without, on a cold cache."""
    if tracing:
        run_hand(P, tabs, seed, hidx, h, constrained, fixed, forced, play_pol, bid_pol,
                 scratch, True)
    else:
        run_hand(P, tabs, seed, hidx, h, constrained, fixed, forced, play_pol, bid_pol,
                 scratch, False)


@kernel_jit(nogil=True)
def play_game(P, tabs, SP, stabs, G, sched, con_rounds, specials, card_ids, seed, gidx,
              play_abs, bid_abs, clair_abs, star_thr, scratch, gs, row, by_size, do_trace,
              tr_int, tr_masks, tr_dec):
    """Play game `gidx` into `row` (one per-game output row; see the C_/P_ columns).

    P, tabs: the rule vector and RuleTables.as_tuple() of the game; SP[k], stabs[k]: the
    same for k players (a tie-break round for the tied players only,
    tiebreak_participants=tied_only, is a k-player hand); G: the end rule (G_ slots);
    sched: hand sizes of the schedule; con_rounds: 1 where the hook applies, by round;
    specials: cards whose holders are counted; card_ids: uint64[D], each card's identity
    (the same card has the same id in every deck); seed, gidx: the game's streams (a round
    with key r, see the module notes, deals and draws from gidx * HANDS_PER_GAME + r);
    clair_abs: 1 for a clairvoyant bidder by absolute seat (_clairvoyant_rules); play_abs,
    bid_abs: policy ids by absolute seat;
    star_thr: star-spending threshold by absolute seat (-1: never); scratch:
    hand.make_scratch(...); gs: make_game_scratch(n); by_size[plane, seat, h]: the BY_
    planes (played, exact and score by absolute seat, played and exact by seat relative to
    the dealer, hands dealt and hooked by the dealer's absolute seat). With do_trace, hand
    k's deal, decisions and outcome go to tr_int[k], tr_masks[k], tr_dec[k] (as many hands
    as those arrays hold). Returns the number of hands played."""
    pp, bp, totals, stars, cand, lead, fixed, rs_own, abs_of, occ, kbuf, cbuf, Pc = gs
    lower = G[G_LOWER] == 1
    hout = scratch.hand_out
    n = P[L.N_PLAYERS]
    teams = P[L.TEAMS]
    n_units = teams if teams > 0 else n
    sw = SEAT_BASE + 2 * specials.shape[0] + P[L.N_EVENTS]
    for i in range(row.shape[0]):
        row[i] = 0
    for a in range(n):
        totals[a] = 0
        stars[a] = 0
    for i in range(occ.shape[0]):
        occ[i] = 0
    couple_turn = P[L.CHOOSER] == L.CH_TURN_UP and P[L.WIDOW] == 0
    n_sched = sched.shape[0]
    target_rule = G[G_TARGET_RULE] == 1
    k = 0                 # hands dealt so far
    tb = 0                # tie-break rounds played
    tb_size, tb_step = 2, 1
    done = False
    while not done:
        h, rnd, constrained = _next_hand(G, sched, con_rounds, k, tb_size)
        dealer = (n - 1 + k) % n
        hp, tied_round = _seat_players(G, n, k, n_sched, dealer, lead, play_abs, bid_abs,
                                       abs_of, pp, bp)
        tracing = do_trace and k < tr_int.shape[0]
        rkey = k
        if not target_rule:
            rkey = occ[h] * SIZE_SLOTS + h
            occ[h] += 1
        hidx = gidx * HANDS_PER_GAME + rkey
        turn = deal_coupled(seed, hidx, card_ids, P[L.DECK_SIZE], n, abs_of, hp, h,
                            couple_turn, fixed, kbuf, cbuf)
        forced = -1
        if couple_turn:
            forced = tabs.card_suit[turn] if turn >= 0 else 4
        if tied_round:
            Ph = _clairvoyant_rules(SP[hp], Pc, stabs[hp], seed, hidx, h, constrained, fixed,
                                    forced, pp, bp, scratch, clair_abs, abs_of, hp, lower)
            _play_hand(Ph, stabs[hp], seed, hidx, h, constrained, fixed, forced, pp, bp,
                       scratch, tracing)
        else:
            Ph = _clairvoyant_rules(P, Pc, tabs, seed, hidx, h, constrained, fixed, forced, pp,
                                    bp, scratch, clair_abs, abs_of, hp, lower)
            _play_hand(Ph, tabs, seed, hidx, h, constrained, fixed, forced, pp, bp, scratch,
                       tracing)
        voided = hout[H_VOIDED] == 1
        maker = hout[H_MAKER]
        _tally_hand(P, tabs, h, hp, constrained, tied_round, specials, scratch, bp, rs_own,
                    abs_of, totals, row, by_size)
        if tracing:
            for u in range(n):
                tr_int[k, T_HOUT + H_SIZE + n * S_SIZE + u] = -1
        if G[G_STARS] == 1 and not voided:
            _stars(P, k, dealer, scratch.seat_out, star_thr, totals, stars, row, sw, tracing, tr_int)
        if tracing:
            _trace_hand(n, k, h, rnd, hp, scratch, abs_of, tr_int, tr_masks, tr_dec)
        k += 1
        # ---- is the game over?
        if target_rule:
            done = _target_game_over(G, n, teams, k, dealer, maker, totals, stars, cand, lead,
                                     row)
        elif k >= n_sched:
            if k > n_sched:
                tb += 1            # a tie-break round was just played
                tb_size, tb_step = _river_step(tb_size, tb_step, G[G_TB_PEAK])
            for u in range(n_units):
                cand[u] = 1
            m = _leaders(totals, n_units, G[G_LOWER] == 1, cand, lead)
            if m == 1 or G[G_RIVER] == 0:
                done = True
            elif tb >= G[G_TB_CAP]:
                row[C_CAPPED] = 1      # a shared win after the safety cap
                done = True
    _final_row(n, teams, tb, sw, totals, stars, lead, row)
    return k


@kernel_jit(nogil=True)
def run_games(P, tabs, SP, stabs, G, sched, con_rounds, specials, card_ids, seed, start,
              count, play_abs, bid_abs, clair_abs, star_thr, scratch, gs, game_out, by_size,
              tr_int, tr_masks, tr_dec):
    """Games start..start+count-1 into game_out[0..count-1] (no traces).

    Every other parameter is play_game's (game_out[j] is its row for game start+j; tr_int,
    tr_masks, tr_dec are passed through unused)."""
    for j in range(count):
        play_game(P, tabs, SP, stabs, G, sched, con_rounds, specials, card_ids, seed, start + j,
                  play_abs, bid_abs, clair_abs, star_thr, scratch, gs, game_out[j], by_size,
                  False, tr_int, tr_masks, tr_dec)


@kernel_jit(nogil=True)
def trace_game(P, tabs, SP, stabs, G, sched, con_rounds, specials, card_ids, seed, gidx,
               play_abs, bid_abs, clair_abs, star_thr, scratch, gs, row, by_size, tr_int,
               tr_masks, tr_dec):
    """One game with every hand's deal and decisions recorded; returns the hands played.

    The parameters are play_game's, with do_trace on."""
    return play_game(P, tabs, SP, stabs, G, sched, con_rounds, specials, card_ids, seed, gidx,
                     play_abs, bid_abs, clair_abs, star_thr, scratch, gs, row, by_size, True,
                     tr_int, tr_masks, tr_dec)
