"""Compile a Variant into the flat numeric tables the kernel reads — and nothing else.

Built once per configuration (cached here, keyed by the variant's canonical string). Scores
come from the variant's formulas evaluated over whole (hand size, bid, took) grids, so a
designer's new formula costs nothing per hand.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import (
    ALWAYS_WINS,
    FOOLS_KING,
    LAST_PLAYED_WINS,
    NEVER_WINS,
    NT,
    WINS_IF_LED,
    AllPass,
    BidConstraint,
    BiddingForm,
    EventEffect,
    TrumpChooser,
)
from simulate.rules.expr import evaluate_grid
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables.bid_model import NO_MODEL, model_labels, shape_for
from simulate.tables.bidder import get_card_rate, set_card_rate
from simulate.tables.trained import load_model, load_one_card, load_trained
from simulate.util.memo import KeyedCache

# rules-file value -> code (the codes' member names are the values upper-cased)
CHOOSERS = {c.name.lower(): int(c) for c in TrumpChooser}
FORMS = {f.name.lower(): int(f) for f in BiddingForm}
CONSTRAINTS = {c.name.lower(): int(c) for c in BidConstraint}
ALL_PASS = {a.name.lower(): int(a) for a in AllPass}
EFFECTS = {e.name.lower(): int(e) for e in EventEffect}

NO_ONE_CARD = np.full((1, 1, 1, 1), -1, dtype=np.int8)   # no exact one-card table

# compiled tables and the hand sizes with a trained bid table, by canonical string
_tables: KeyedCache[str, RuleTables] = KeyedCache()
_trained_sizes: KeyedCache[str, list[int]] = KeyedCache()


class KernelTables(NamedTuple):
    """RuleTables' arrays (all but P) as the kernel receives them: read by name inside the
    kernel, and still a plain tuple for callers that pass or iterate it. Every field has
    the same array type for every variant, so the kernel compiles once for all of them
    (and every player count). See RuleTables for what each array holds."""
    eff: np.ndarray
    power: np.ndarray
    mech: np.ndarray
    suit_mask: np.ndarray
    masks: np.ndarray
    strength: np.ndarray
    win_weight: np.ndarray
    score: np.ndarray
    lose_bonus: np.ndarray
    as_exact: np.ndarray
    all_exact: np.ndarray
    defenders: np.ndarray
    ladder: np.ndarray
    card_suit: np.ndarray
    srank: np.ndarray
    by_rank: np.ndarray
    srank_moves: np.ndarray
    beaters: np.ndarray
    lead_beaters: np.ndarray
    card_rate: np.ndarray
    bid_table: np.ndarray
    one_card: np.ndarray
    bid_model: np.ndarray
    model_label: np.ndarray


@dataclass(frozen=True)
class RuleTables:
    """A variant's rules as flat numeric tables (the kernel's only knowledge of a game),
    compiled once per canonical string by compile_tables; the arrays are shared, not copied."""

    P: np.ndarray            # int64[P_SIZE] scalars (see kernel.layout)
    eff: np.ndarray          # int64[5, D] effective suit per trump (-1 suitless)
    power: np.ndarray        # int64[5, D] order within the effective suit
    mech: np.ndarray         # int64[5, D] mechanic code per trump
    suit_mask: np.ndarray    # uint64[5, 4] cards of each effective suit per trump
    masks: np.ndarray        # uint64[7]: wild, foolable, aces, all cards, captures that hurt,
                             # captures that pay, cards worth keeping (a joker that wins led)
    strength: np.ndarray     # int64[5, D] global order for "cheapest" / "highest" choices
    win_weight: np.ndarray   # float64[H+1, 5, D] rough chance a card takes a trick
    score: np.ndarray        # int64[H+1, B+1, H+1] unit score by (hand size, bid, took)
    lose_bonus: np.ndarray   # int64[H+1, B+1, H+1] score as if missed (event effect)
    as_exact: np.ndarray     # int64[H+1, B+1, H+1] score as if exact (event effect)
    all_exact: np.ndarray    # int64[H+1, B+1, H+1] score when every unit is exact
    defenders: np.ndarray    # int64[H+1, H+1] contract: defenders' score by took
    ladder: np.ndarray       # int64[S+1, 3]: tricks, multiplier, alone per step (row 0 unused)
    card_suit: np.ndarray    # int64[D] printed suit, 4 for specials (turn-up trump)
    srank: np.ndarray        # int64[5, D] position of each card in the strength order
    by_rank: np.ndarray      # int64[5, 64] card at each position of the strength order
    srank_moves: np.ndarray  # uint64[5, G, 2] (from, to) masks taking a hand's cards to their
                             # srank bits, each row in order (kernel.bits.move_bits): every
                             # row's cards rise in srank with their index
    beaters: np.ndarray      # uint64[5, D] cards that would take a trick whose best card is c
    lead_beaters: np.ndarray  # uint64[5, D] cards that could take a trick c leads
    card_rate: np.ndarray    # float64[H+1, 5, D] tricks a card takes per hand it is dealt in
    bid_table: np.ndarray    # int8[H+1, n, E, H+1, H+2] trained bid by (hand size, seat,
                             # expected-tricks bin, trumps held, sum of earlier bids); -1 untrained.
                             # An auction hears no sum: there [..., AUCTION_LIMIT_AT] is the
                             # highest ladder step the seat bids to (0: it passes), its class
                             # taken under the trump it would name, and [..., ALONE_AT] whether
                             # it goes alone as maker holding that class after the widow
    one_card: np.ndarray     # int8[n, 2**(n-1), U, D] exact one-card bid by (seat, earlier
                             # bids as bits in bidding order, turned-up card + 1 (U = D + 1) or
                             # 0 (U = 1: fixed trump), card); shape (1, 1, 1, 1) = none
    bid_model: np.ndarray    # float32[H+1, n, G, F, B+1] learned bidder weights by (hand size,
                             # seat, sum of heard bids, column, bid); NaN = none; shape
                             # (1, 1, 1, 1, 1) = no size has one (simulate.tables.bid_model)
    model_label: np.ndarray  # int64[5, D] the model's card-name column per trump and card


    def as_tuple(self) -> KernelTables:
        """The arrays the kernel reads (the `tabs` argument of its entry points)."""
        return KernelTables(self.eff, self.power, self.mech, self.suit_mask, self.masks,
                            self.strength, self.win_weight, self.score, self.lose_bonus,
                            self.as_exact, self.all_exact, self.defenders, self.ladder,
                            self.card_suit, self.srank, self.by_rank, self.srank_moves,
                            self.beaters,
                            self.lead_beaters, self.card_rate, self.bid_table, self.one_card,
                            self.bid_model, self.model_label)


def compile_tables(v: Variant) -> RuleTables:
    """The rule tables of `v`, compiled once per configuration (keyed by v.canonical) with
    any card rates already measured and any trained bid table for it loaded in."""
    return _tables.get_or_build(v.canonical, lambda: _compile_with_bidder_data(v))


def trained_sizes(v: Variant) -> list[int]:
    """Hand sizes with a trained bid table for exactly this configuration."""
    compile_tables(v)
    return list(_trained_sizes.get(v.canonical) or [])


def record_one_card(v: Variant, one_card: np.ndarray) -> None:
    """Use this exact one-card bid table for `v` from now on (after building it in-process)."""
    _tables.put(v.canonical, dataclasses.replace(compile_tables(v), one_card=one_card))


def model_shape(v: Variant, tables: RuleTables) -> tuple[int, ...]:
    """The shape of this configuration's learned-bidder weights (simulate.tables.bid_model)."""
    return shape_for(v.players, tables.score, tables.model_label)


def record_model(v: Variant, bid_model: np.ndarray) -> None:
    """Use these learned-bidder weights for `v` from now on (after fitting them in-process;
    NO_MODEL: none)."""
    if bid_model.shape not in (model_shape(v, compile_tables(v)), NO_MODEL.shape):
        raise ValueError("learned-bidder weights of another shape")
    _tables.put(v.canonical, dataclasses.replace(compile_tables(v), bid_model=bid_model))


def record_trained_sizes(v: Variant, sizes: list[int]) -> None:
    """Note that `v` now has trained bid tables for `sizes` (after training it in-process)."""
    _trained_sizes.put(v.canonical, sorted(set(sizes)))


def _compile_with_bidder_data(v: Variant) -> RuleTables:
    tables = _compile(v)
    for h in range(tables.card_rate.shape[0]):
        rate = get_card_rate(v.canonical, h)
        if rate is not None:
            tables.card_rate[h] = rate
    sizes = load_trained(v, tables)
    one_card = load_one_card(v)
    if one_card is not None:
        tables = dataclasses.replace(tables, one_card=one_card)
    model = load_model(v, model_shape(v, tables))
    if model is not None:
        tables = dataclasses.replace(tables, bid_model=model)
    for h in sizes:
        set_card_rate(v.canonical, h, tables.card_rate[h])
    _trained_sizes.put(v.canonical, sizes)
    return tables


def _compile(v: Variant) -> RuleTables:
    n, D = v.players, len(v.cards)
    H = max(max(v.schedule), (D - int(v.rule("deal.widow", 0) or 0)) // n)
    unit_size = n // v.teams if v.teams else 1
    B = H * unit_size

    P = np.zeros(L.P_SIZE, dtype=np.int64)
    P[L.N_PLAYERS], P[L.DECK_SIZE] = n, D
    P[L.CHOOSER] = CHOOSERS[v.trump_chooser]
    P[L.FIXED_TRUMP] = TRUMP_NAMES.index(v.trump_choices[0])
    P[L.FORM] = FORMS[v.bidding_form]
    P[L.CONSTRAINT] = CONSTRAINTS[v.rule("bidding.constraint", "none")]
    P[L.FIRST_BIDDER] = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    lead = v.rule("play.first_lead", "1")
    P[L.FIRST_LEAD] = -1 if lead == "maker" else v.seat_of_offset(int(lead))
    P[L.TEAMS] = v.teams
    P[L.WIDOW] = int(v.rule("deal.widow", 0) or 0)
    P[L.DISCARD] = int(v.rule("deal.discard", 0) or 0)
    P[L.BREAKING_TRUMP] = int(bool(v.rule("play.breaking_trump")))
    P[L.ACE_CHOICE] = int(bool(v.rule("ranking.ace_choice")))
    P[L.KIND] = int(v.is_contract)
    P[L.STARS] = int(bool((v.rule("scoring.stars") or {}).get("enabled")))
    fool = v.rule("scoring.fool_bonus") or {}
    P[L.FOOL_POINTS] = int(fool.get("points", 0))
    P[L.FOOL_NEEDS_EXACT] = int(bool(fool.get("requires_exact")))
    P[L.HAS_ALL_EXACT] = int(v.rule("scoring.everyone_exact") is not None)
    P[L.ALONE_MULT] = int(v.rule("scoring.alone_multiplier", 1))
    P[L.ALL_PASS] = ALL_PASS[v.rule("bidding.all_pass", "redeal")]
    card_name = v.rule("bidding.all_pass_card")
    P[L.ALL_PASS_CARD] = v.cards.names.index(card_name) if card_name in v.cards.names else -1
    P[L.ALLOW_ALONE] = int(bool(v.rule("bidding.allow_alone")))
    P[L.N_STEPS] = len(v.ladder)
    if v.ladder:
        P[L.ALL_PASS_STEP] = _step_for(v, int(v.rule("bidding.all_pass_bid", 3)))
        P[L.STICK_STEP] = _step_for(v, int(v.rule("bidding.stick_dealer_min", 1)))
    if len(v.events) > L.MAX_EVENTS:
        raise ValueError(f"at most {L.MAX_EVENTS} capture events are supported")
    P[L.N_EVENTS] = len(v.events)
    for i, e in enumerate(v.events):
        P[L.EVENT0 + 3 * i: L.EVENT0 + 3 * i + 3] = (e.card, EFFECTS[e.effect], e.points)
    P[L.N_TRUMP_CHOICES] = len(v.trump_choices)
    for i, name in enumerate(v.trump_choices):
        P[L.TRUMP_CHOICE0 + i] = TRUMP_NAMES.index(name)
    P[L.MAX_HAND], P[L.MAX_BID] = H, B
    P[L.OVERRIDE_SEAT] = -1
    P[L.AUCTION_SEAT] = -1
    P[L.ALONE_FORCE] = -1
    P[L.FACE_UP_LEFTOVERS] = int(bool(v.options.get("face_up_leftovers")))
    P[L.LOWER_WINS] = int(v.rule("end.better", "higher") == "lower")
    P[L.TRUMP_BLIND] = int(bool(v.rule("trump.before_looking")) and v.trump_chooser == "dealer")

    eff = np.array(v.eff_suit_table, dtype=np.int64)
    power = np.array(v.power_table, dtype=np.int64)
    mech = np.array(v.mechanic_table, dtype=np.int64)
    suit_mask = np.zeros((5, 4), dtype=np.uint64)
    for t in range(5):
        for c in range(D):
            if eff[t, c] >= 0:
                suit_mask[t, eff[t, c]] |= np.uint64(1) << np.uint64(c)
    wild = foolable = aces = 0
    for c, card in enumerate(v.cards.cards):
        wild |= int(v.wild[c]) << c
        foolable |= int(v.foolable[c]) << c
        aces |= int(not card.special and card.rank == 14) << c
    hurts = pays = keep = 0
    for e in v.events:
        if e.effect in ("zero_hand", "lose_bonus"):
            hurts |= 1 << e.card
        else:
            pays |= 1 << e.card
    for c in range(D):
        if any(mech[t, c] == WINS_IF_LED for t in range(5)):
            keep |= 1 << c
    masks = np.array([wild, foolable, aces, (1 << D) - 1, hurts, pays, keep], dtype=np.uint64)

    strength = np.zeros((5, D), dtype=np.int64)
    for t in range(5):
        for c in range(D):
            m = mech[t, c]
            if m in (ALWAYS_WINS, LAST_PLAYED_WINS):
                strength[t, c] = 10_000
            elif m == NEVER_WINS:
                strength[t, c] = -2_000
            elif m in (FOOLS_KING, WINS_IF_LED):
                strength[t, c] = -1_000
            elif t != NT and eff[t, c] == t:
                strength[t, c] = 1_000 + power[t, c]
            else:
                strength[t, c] = power[t, c]

    win_weight = _win_weights(v, eff, power, mech, H)
    score, lose_bonus, as_exact, all_exact, defenders = _score_tables(v, H, B)
    if v.is_contract:
        # do the makers gain from every trick past their contract? then they play on for it
        P[L.OVERTRICKS_PAY] = int(all(score[h, b, t + 1] > score[h, b, t]
                                      for h in range(1, H + 1) for b in range(1, min(h, B) + 1)
                                      for t in range(b, h)))
        P[L.DEFENDERS_PAY] = int(all(defenders[h, t + 1] > defenders[h, t]
                                     for h in range(1, H + 1) for t in range(h)))
    ladder = np.zeros((len(v.ladder) + 1, 3), dtype=np.int64)
    for k, step in enumerate(v.ladder, start=1):
        ladder[k] = (step.tricks, step.multiplier, int(step.alone))
    card_suit = np.array([4 if c.special else c.suit for c in v.cards.cards], dtype=np.int64)
    srank = np.zeros((5, D), dtype=np.int64)
    by_rank = np.zeros((5, 64), dtype=np.int64)
    for t in range(5):
        order = sorted(range(D), key=lambda c: (strength[t, c], c))
        for r, c in enumerate(order):
            srank[t, c], by_rank[t, r] = r, c
    srank_moves = order_moves(srank)
    beaters = _beaters(v, eff, power, mech)
    lead_beaters = _lead_beaters(v, mech, beaters)
    return RuleTables(P, eff, power, mech, suit_mask, masks, strength, win_weight, score,
                      lose_bonus, as_exact, all_exact, defenders, ladder, card_suit, srank,
                      by_rank, srank_moves, beaters, lead_beaters, win_weight.copy(),
                      np.full((H + 1, n, 2 * H + 2, H + 1, H + 2), -1, dtype=np.int8),
                      NO_ONE_CARD, NO_MODEL, model_labels(v))


def _lead_beaters(v: Variant, mech: np.ndarray, beaters: np.ndarray) -> np.ndarray:
    """Cards that could take a trick led by c: for a suited card, its beaters; a led
    wins_if_led card is never beaten; always_wins loses only to last_played_wins cards;
    a last_played_wins card to another one; a card that never wins to anything."""
    D = len(v.cards)
    out = beaters.copy()
    everything = (1 << D) - 1
    for t in range(5):
        last = sum(1 << c for c in range(D) if mech[t, c] == LAST_PLAYED_WINS)
        for c in range(D):
            m = mech[t, c]
            if m == WINS_IF_LED:
                out[t, c] = 0
            elif m == ALWAYS_WINS:
                out[t, c] = last
            elif m == LAST_PLAYED_WINS:
                out[t, c] = last & ~(1 << c)
            elif m in (NEVER_WINS, FOOLS_KING):
                out[t, c] = everything
    return out


def order_moves(order: np.ndarray) -> np.ndarray:
    """uint64[T, G, 2]: for each row of `order` (int64[T, D], a permutation of 0..D-1: where
    each card's bit goes), (from, to) mask pairs that kernel.bits.move_bits applies. The cards
    are split greedily into runs whose targets rise with the card index (a suit-major deck
    ranked by power takes one run per suit, plus the special cards), so that each pair moves
    its bits in order; rows short of G runs are padded with empty pairs."""
    runs_by_row = []
    for row in order:
        runs: list[list[int]] = []
        for c, to in enumerate(row.tolist()):
            run = next((r for r in runs if row[r[-1]] < to), None)
            if run is None:
                runs.append([c])
            else:
                run.append(c)
        runs_by_row.append(runs)
    moves = np.zeros((len(order), max(len(r) for r in runs_by_row), 2), dtype=np.uint64)
    for t, runs in enumerate(runs_by_row):
        for g, run in enumerate(runs):
            moves[t, g, 0] = sum(1 << c for c in run)
            moves[t, g, 1] = sum(1 << int(order[t, c]) for c in run)
    return moves


def _beaters(v: Variant, eff: np.ndarray, power: np.ndarray, mech: np.ndarray) -> np.ndarray:
    """beaters[t, b]: the cards that would take a trick whose best card so far is b, while
    no special mechanic is in the trick yet (the kernel's fast path for greedy play)."""
    D = len(v.cards)
    out = np.zeros((5, D), dtype=np.uint64)
    for t in range(5):
        for b in range(D):
            s = eff[t, b]
            if s < 0:
                continue
            b_trump = t != NT and s == t
            m = 0
            for c in range(D):
                mc, cs = mech[t, c], eff[t, c]
                if mc in (ALWAYS_WINS, LAST_PLAYED_WINS):
                    beats = True
                elif mc == FOOLS_KING:
                    beats = v.foolable[b]
                elif cs < 0:
                    beats = False
                elif t != NT and cs == t and not b_trump:
                    beats = True
                else:
                    beats = cs == s and power[t, c] > power[t, b]
                m |= int(beats) << c
            out[t, b] = m
    return out


def _step_for(v: Variant, tricks: int) -> int:
    for k, step in enumerate(v.ladder, start=1):
        if step.tricks >= tricks:
            return k
    return len(v.ladder)


def _win_weights(v: Variant, eff: np.ndarray, power: np.ndarray, mech: np.ndarray,
                 H: int) -> np.ndarray:
    """Chance-like weight that a card takes a trick: the chance no opponent holds a card
    that beats it (opponents hold about (n-1)h of the D-h unseen cards), cut for plain
    suits by the risk of being trumped. Used by greedy bids and trump choice."""
    n, D = v.players, len(v.cards)
    out = np.zeros((H + 1, 5, D), dtype=np.float64)
    for h in range(1, H + 1):
        q = min(1.0, (n - 1) * h / max(1, D - h))
        for t in range(5):
            for c in range(D):
                m = mech[t, c]
                if m in (ALWAYS_WINS, LAST_PLAYED_WINS):
                    out[h, t, c] = 1.0
                elif m == WINS_IF_LED:
                    out[h, t, c] = 0.5
                elif m == FOOLS_KING:
                    out[h, t, c] = 0.25 * q
                elif m == NEVER_WINS or eff[t, c] < 0:
                    out[h, t, c] = 0.0
                else:
                    s = eff[t, c]
                    higher = int(np.sum((eff[t] == s) & (power[t] > power[t, c])))
                    higher += int(np.sum(np.isin(mech[t], (ALWAYS_WINS, LAST_PLAYED_WINS))))
                    p = (1.0 - q) ** higher
                    if t != NT and s != t:
                        p *= 1.0 - 0.5 * q
                    out[h, t, c] = p
    return out


def _score_tables(v: Variant, H: int, B: int) -> tuple[np.ndarray, ...]:
    h, bid, took = np.meshgrid(np.arange(H + 1), np.arange(B + 1), np.arange(B + 1),
                               indexing="ij")
    took = took[:, :, : H + 1]
    h, bid = h[:, :, : H + 1], bid[:, :, : H + 1]
    env = {"h": h, "bid": bid, "took": took, **v.option_env}

    def formula(key: str, **override: np.ndarray) -> np.ndarray:
        text = v.rule(f"scoring.{key}")
        out = evaluate_grid(str(text), {**env, **override}, f"[scoring] {key}")
        return np.broadcast_to(out, h.shape).astype(np.int64)

    zeros = np.zeros_like(h, dtype=np.int64)
    if v.is_contract:
        score = np.where(took >= bid, formula("made"), formula("failed"))
        defenders = np.zeros((H + 1, H + 1), dtype=np.int64)
        if v.rule("scoring.defenders") is not None:
            defenders[:, :] = formula("defenders", bid=zeros)[:, 0, :]
        return score, zeros, zeros, zeros, defenders
    exact = formula("exact")
    if v.rule("scoring.exact_zero") is not None:
        exact = np.where(bid == 0, formula("exact_zero"), exact)
    missed = np.where(took > bid, formula("over"), formula("under"))
    if v.rule("scoring.missed_zero") is not None:
        missed = np.where(bid == 0, formula("missed_zero"), missed)
    score = np.where(took == bid, exact, missed)
    lose_bonus = np.where(took == bid, formula("over"), score)
    as_exact = np.where(took == bid, score, formula("exact", bid=took))
    all_exact = formula("everyone_exact") if v.rule("scoring.everyone_exact") is not None \
        else score
    defenders = np.zeros((H + 1, H + 1), dtype=np.int64)
    return score, lose_bonus, as_exact, all_exact, defenders
