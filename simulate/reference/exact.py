"""Exact (not simulated) results for the one-card round.

In a round of one card each, play is forced: every player plays the only card held. Who takes
the trick therefore depends only on the deal (and, with a turned-up trump, on the turned-up
card), so the probabilities can be computed exactly instead of estimated.

Method
------
A trick is the ordered sequence of the cards played, lead first. Instead of enumerating the
D!/(D-n)! ordered deals (52^5 and more), a dynamic programme walks the play positions and
keeps, per state, the exact number of ordered card sequences that reach it (Python ints, so
nothing is rounded). A state holds only what the rest of the trick can still change:

* the card currently winning among the suited cards (its identity and its position);
* the special mechanics seen so far (a led ``wins_if_led`` card, the last
  ``last_played_wins`` card, the first ``always_wins`` card, the first ``fools_king`` card);
* how many copies of each special card type have been played, and how many natural cards
  of the trump suit (needed to weight the turned-up card; see below).

Why this is exact: a natural card that would beat the current best card has never been
played (the best card only rises in the order "trump > led suit > power"), so the beaters
are enumerated one by one, each available exactly once; every natural card played so far is
a non-beater of the current best, so the non-beaters are one lump whose size is
"non-beaters in the deck minus naturals played". Specials are counted by type
(copies - played). Each position therefore costs a few dozen transitions per state, and the
whole table for 7 players runs in well under a second.

With a turned-up trump the turn-up is uniform over the D - n cards not in the hands (by
exchangeability, whatever the widow takes), so the programme is run once per trump suit T
and every final state is weighted by the number of cards still unplayed that would turn up
T (natural cards of suit T; special cards turn up no trump). The deal count is then
D!/(D-n)! * (D - n).

The final states also say *which* card took the trick at which position, so one pass gives
P(win | the card I hold, my seat, trump) for every card and seat: see
`one_card_win_table`.

Bidding threshold
-----------------
With one card a player bids 0 or 1. Let s(b, t) be the score for bid b and t tricks. Bidding 1
beats bidding 0 exactly when

    p * s(1,1) + (1-p) * s(1,0)  >  p * s(0,1) + (1-p) * s(0,0)
    <=>  p > p* = (s(0,0) - s(1,0)) / ((s(0,0) - s(1,0)) + (s(1,1) - s(0,1))).

`one_card_bid_threshold` reads s from the variant's own score table (the reference rules):

* classic Oh Hell, scoring="exact_only" (exact -> 10 + bid, else 0): s(0,0)=10, s(1,1)=11,
  misses 0, so p* = 10/21 ~ 0.476, *not* the 1/2 of the equal-value rule of thumb;
* classic Oh Hell, default "tricks_plus_ten" (1 per trick + 10 if exact): s(0,0)=10,
  s(0,1)=1, s(1,1)=11, s(1,0)=0, so p* = 10/20 = 1/2;
* Kings and Fools (exact -> 10 x bid, exact zero -> 5 x round, else 0): p* = 5/15 = 1/3.
  Its Fool bonus (+10 per King fooled) does not depend on the bid by default, so it does
  not move the threshold; with ``bonus_requires_exact`` it does, and that is refused.

At p == p* both bids have the same expectation; the table then reports bid 0 and marks the
tie. P(win | card) conditions on the player's own card and the trump only: it ignores the
information in earlier bids, and the hook (which can forbid the dealer's choice) is not
applied — the table gives the unconstrained best bid.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from math import perm
from typing import Any

import numpy as np

from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import ALWAYS_WINS, FOOLS_KING, LAST_PLAYED_WINS, NEVER_WINS, NT, PLAIN, WINS_IF_LED
from simulate.rules.play import bids_base_score
from simulate.rules.variant import Variant
from simulate.util.memo import KeyedCache

__all__ = [
    "OneCardSetup",
    "exact_one_card_win_counts",
    "exact_one_card_win_probabilities",
    "exact_one_card_win_fractions",
    "one_card_bid_threshold",
    "exact_one_card_bid_threshold",
    "optimal_one_card_bid",
    "one_card_win_table",
    "exact_one_card_bid_table",
    "one_card_setup",
]

_KNOWN_MECHANICS = (PLAIN, ALWAYS_WINS, LAST_PLAYED_WINS, NEVER_WINS, WINS_IF_LED, FOOLS_KING)


# ----- what the one-card round looks like in a variant --------------------------------------

@dataclass(frozen=True)
class OneCardSetup:
    """The facts of a variant's one-card round that decide the trick."""

    players: int
    deck_size: int
    leader: int                    # seat that leads (0 = dealer's left, n-1 = dealer)
    chooser: str                   # "fixed" or "turn_up"
    fixed_trump: int | None        # trump index when fixed
    stock: int                     # cards left to turn up (D - n - widow)

    def seat_of_position(self, pos: int) -> int:
        """The seat that plays `pos`-th (0 = the leader) to the one trick."""
        return (self.leader + pos) % self.players

    def position_of_seat(self, seat: int) -> int:
        """Where in the trick `seat` plays (0 = the leader)."""
        return (seat - self.leader) % self.players


def one_card_setup(v: Variant) -> OneCardSetup:
    """Check that the one-card round of `v` involves no player choice; describe it.

    Raises ValueError when someone chooses something that can change the trick: trump named
    by a player (dealer / first bidder / auction maker, with more than one choice), an
    auction (the maker may lead, take a widow, go alone), an Ace declared high or low, or a
    lead given to the maker.
    """
    n = v.players
    D = len(v.cards)
    widow = int(v.rule("deal.widow", 0) or 0)
    if n + widow > D:
        raise ValueError(f"{v.canonical}: one card each cannot be dealt")
    if v.bidding_form == "auction" or v.is_contract:
        raise ValueError(f"{v.canonical}: an auction decides trump, lead and partners "
                         "(player choices); no exact one-card answer")
    chooser = v.trump_chooser
    fixed: int | None = None
    if chooser == "fixed" or (chooser in ("dealer", "first_bidder") and
                              len(v.trump_choices) == 1):
        fixed = TRUMP_NAMES.index(v.trump_choices[0])
        chooser = "fixed"
    elif chooser != "turn_up":
        raise ValueError(f"{v.canonical}: trump is chosen by a player ({chooser}); the one-card "
                         "round is not free of choices")
    if v.rule("ranking.ace_choice"):
        raise ValueError(f"{v.canonical}: Aces are declared high or low by their holder")
    lead = str(v.rule("play.first_lead", "1"))
    if not lead.lstrip("-").isdigit():
        raise ValueError(f"{v.canonical}: first lead {lead!r} depends on the auction")
    if v.teams and v.rule("bidding.allow_alone"):
        raise ValueError(f"{v.canonical}: going alone is a player choice")
    for t in range(NT + 1):
        for i, c in enumerate(v.cards.cards):
            m = v.mechanic_table[t][i]
            if m not in _KNOWN_MECHANICS:
                raise ValueError(f"{v.canonical}: unknown mechanic {m} on {c}")
            if not c.special and (m != PLAIN or v.eff_suit_table[t][i] < 0):
                raise ValueError(f"{v.canonical}: natural card {c} has a special mechanic")
    return OneCardSetup(n, D, v.seat_of_offset(int(lead)), chooser, fixed, D - n - widow)


# ----- the dynamic programme ------------------------------------------------------------------

class TrumpFacts:
    """Per-trump card facts, with identical special cards grouped into types."""

    def __init__(self, v: Variant, trump: int, removed: Iterable[int] = ()) -> None:
        self.v = v
        self.trump = trump
        cards = v.cards.cards
        self.eff = v.eff_suit_table[trump]
        self.power = v.power_table[trump]
        self.mech = v.mechanic_table[trump]
        self.foolable = v.foolable
        removed = set(removed)
        self.removed = removed
        self.naturals = [i for i, c in enumerate(cards) if not c.special]
        type_of: dict[Any, int] = {}
        self.type_rep: list[int] = []          # type -> a representative card index
        self.type_copies: list[int] = []       # type -> copies in the deck (minus removed)
        self.card_type: dict[int, int] = {}    # special card index -> type
        for i, c in enumerate(cards):
            if not c.special:
                continue
            key = c
            if key not in type_of:
                type_of[key] = len(self.type_rep)
                self.type_rep.append(i)
                self.type_copies.append(0)
            k = type_of[key]
            self.card_type[i] = k
            if i not in removed:
                self.type_copies[k] += 1
        # natural cards whose turn-up would make `trump` the trump suit
        self.is_trump_suit = [(not c.special and c.suit == trump) for c in cards]
        self._beaters: dict[int, list[int]] = {}
        self._nonbeat: dict[int, tuple[int, int]] = {}

    def beats(self, d: int, b: int) -> bool:
        """Does card d take over from b as the best suited card (the led suit is b's or b is
        a trump)?"""
        ed = self.eff[d]
        if ed < 0:
            return False
        eb = self.eff[b]
        t = self.trump
        if t != NT and ed == t:
            return eb != t or self.power[d] > self.power[b]
        if t != NT and eb == t:
            return False
        return ed == eb and self.power[d] > self.power[b]

    def beaters(self, b: int) -> list[int]:
        """Natural cards (not removed) that beat b."""
        got = self._beaters.get(b)
        if got is None:
            got = [d for d in self.naturals if d not in self.removed and self.beats(d, b)]
            self._beaters[b] = got
        return got

    def nonbeaters(self, b: int) -> tuple[int, int]:
        """Natural cards (not removed) that do not beat b: (of the trump suit, others)."""
        got = self._nonbeat.get(b)
        if got is None:
            of_t = other = 0
            for d in self.naturals:
                if d in self.removed or self.beats(d, b):
                    continue
                if self.is_trump_suit[d]:
                    of_t += 1
                else:
                    other += 1
            got = (of_t, other)
            self._nonbeat[b] = got
        return got


# A state is a tuple:
#   (best, best_pos, lead_special, wil, lpw_pos, lpw_card, alw_pos, alw_card, fool_pos,
#    fool_card, specials_used, nat_t_used, nat_used)
# best/best_pos: the best suited card so far and its position (-1: none yet);
# lead_special: the led card if it is a special card (the winner of an all-suitless trick);
# wil: the led card if its mechanic is wins_if_led; lpw: last last_played_wins card; alw: first
# always_wins card; fool: first fools_king card; specials_used: copies played per special type;
# nat_t_used / nat_used: natural cards played of the trump suit / in all.
_State = tuple
_USED, _NAT_T, _NAT = 10, 11, 12


def apply_card(tb: TrumpFacts, st: _State, pos: int, card: int) -> _State:
    """Play `card` (an individual natural card or a special type's representative)."""
    (best, best_pos, lead_sp, wil, lpw_pos, lpw_card, alw_pos, alw_card, fool_pos, fool_card,
     used, nat_t, nat) = st
    m = tb.mech[card]
    if pos == 0 and m == WINS_IF_LED:
        wil = card
    elif m == LAST_PLAYED_WINS:
        lpw_pos, lpw_card = pos, card
    elif m == ALWAYS_WINS and alw_pos < 0:
        alw_pos, alw_card = pos, card
    elif m == FOOLS_KING and fool_pos < 0:
        fool_pos, fool_card = pos, card
    if tb.eff[card] >= 0 and (best < 0 or tb.beats(card, best)):
        best, best_pos = card, pos
    k = tb.card_type.get(card)
    if k is not None:
        used = used[:k] + (used[k] + 1,) + used[k + 1:]
        if pos == 0:
            lead_sp = card
    else:
        nat += 1
        if tb.is_trump_suit[card]:
            nat_t += 1
    return (best, best_pos, lead_sp, wil, lpw_pos, lpw_card, alw_pos, alw_card, fool_pos,
            fool_card, used, nat_t, nat)


def trick_taker(tb: TrumpFacts, st: _State) -> tuple[int, int]:
    """(position, card) of the card that takes the trick, with the precedence of the
    reference rules (simulate.reference.rules.trick_winner)."""
    (best, best_pos, lead_sp, wil, lpw_pos, lpw_card, alw_pos, alw_card, fool_pos, fool_card,
     _used, _nt, _n) = st
    if wil >= 0:
        return 0, wil
    if lpw_pos >= 0:
        return lpw_pos, lpw_card
    if alw_pos >= 0:
        return alw_pos, alw_card
    if best < 0:
        return 0, lead_sp        # only suitless cards: the first one wins
    if fool_pos >= 0 and tb.foolable[best]:
        return fool_pos, fool_card
    return best_pos, best


def _run(tb: TrumpFacts, n: int) -> dict[_State, int]:
    """Final states -> number of ordered n-card sequences (from the deck minus tb.removed)
    reaching them. Positions are play positions (0 = the lead)."""
    start: _State = (-1,) * 10 + ((0,) * len(tb.type_rep), 0, 0)
    layer: dict[_State, int] = {start: 1}
    for pos in range(n):
        nxt: dict[_State, int] = {}
        for st, ways in layer.items():
            used, nat_t, nat = st[_USED], st[_NAT_T], st[_NAT]
            for k, rep in enumerate(tb.type_rep):        # special cards, by type
                avail = tb.type_copies[k] - used[k]
                if avail > 0:
                    s2 = apply_card(tb, st, pos, rep)
                    nxt[s2] = nxt.get(s2, 0) + ways * avail
            best = st[0]
            if best < 0:
                # no suited card yet, hence no natural card played yet: each one individually
                for d in tb.naturals:
                    if d not in tb.removed:
                        s2 = apply_card(tb, st, pos, d)
                        nxt[s2] = nxt.get(s2, 0) + ways
                continue
            for d in tb.beaters(best):          # never played before (see the module doc)
                s2 = apply_card(tb, st, pos, d)
                nxt[s2] = nxt.get(s2, 0) + ways
            of_t, other = tb.nonbeaters(best)   # every natural played so far is in here
            a_t = of_t - nat_t
            a_o = other - (nat - nat_t)
            if a_t > 0:
                s2 = st[:_NAT_T] + (nat_t + 1, nat + 1)
                nxt[s2] = nxt.get(s2, 0) + ways * a_t
            if a_o > 0:
                s2 = st[:_NAT] + (nat + 1,)
                nxt[s2] = nxt.get(s2, 0) + ways * a_o
        layer = nxt
    return layer


def _card_counts(v: Variant, trump: int, n: int, removed: Iterable[int] = (),
                 weight: str = "none") -> tuple[dict[tuple[int, int], int], int]:
    """{(position, winning card): weighted count}, and the total weighted count.

    Special cards are keyed by their type's representative index. weight="none": each
    ordered sequence counts 1. weight="turn_up": each is multiplied by the number of unplayed
    cards whose turn-up makes `trump` the trump (natural cards of that suit; special cards
    for no trump).
    """
    tb = TrumpFacts(v, trump, removed)
    final = _run(tb, n)
    n_specials = sum(tb.type_copies)
    n_t = sum(1 for d in tb.naturals if tb.is_trump_suit[d] and d not in tb.removed)
    out: dict[tuple[int, int], int] = {}
    total = 0
    for st, ways in final.items():
        if weight == "turn_up":
            w = (n_specials - sum(st[_USED])) if trump == NT else (n_t - st[_NAT_T])
            if w <= 0:
                continue
            ways *= w
        total += ways
        key = trick_taker(tb, st)
        out[key] = out.get(key, 0) + ways
    return out, total


@dataclass(frozen=True)
class _Counts:
    """Exact counts for a one-card round: wins[(position, card)] and the total."""

    setup: OneCardSetup
    by_trump: dict[int, tuple[dict[tuple[int, int], int], int]]
    total: int


# variant canonical string -> its exact one-card counts (built once: they enumerate every deal)
_COUNTS: KeyedCache[str, _Counts] = KeyedCache()


def _all_counts(v: Variant) -> _Counts:
    return _COUNTS.get_or_build(v.canonical, lambda: _count_every_deal(v))


def _count_every_deal(v: Variant) -> _Counts:
    s = one_card_setup(v)
    n = s.players
    by_trump: dict[int, tuple[dict[tuple[int, int], int], int]] = {}
    if s.chooser == "fixed":
        assert s.fixed_trump is not None
        by_trump[s.fixed_trump] = _card_counts(v, s.fixed_trump, n)
        total = perm(s.deck_size, n)
    elif s.stock <= 0:
        by_trump[NT] = _card_counts(v, NT, n)
        total = perm(s.deck_size, n)
    else:
        for t in range(NT + 1):
            counts, tot = _card_counts(v, t, n, weight="turn_up")
            if tot:
                by_trump[t] = (counts, tot)
        total = perm(s.deck_size, n) * (s.deck_size - n)
    got = _Counts(s, by_trump, total)
    assert sum(t for _, t in by_trump.values()) == total, "counts do not add up to every deal"
    return got


# ----- public API ---------------------------------------------------------------------------

def exact_one_card_win_counts(v: Variant) -> tuple[list[int], int]:
    """(deals in which each seat takes the trick, all deals), exact integers.

    Seats: 0 = the dealer's left ... n-1 = the dealer. "Deals" are ordered deals of one card
    to each seat, times the turned-up card when trump is turned up.
    """
    c = _all_counts(v)
    n = c.setup.players
    wins = [0] * n
    for counts, _ in c.by_trump.values():
        for (pos, _card), ways in counts.items():
            wins[c.setup.seat_of_position(pos)] += ways
    return wins, c.total


def exact_one_card_win_fractions(v: Variant) -> list[Fraction]:
    """P(seat takes the trick) in a one-card round, as exact fractions, by seat."""
    wins, total = exact_one_card_win_counts(v)
    return [Fraction(w, total) for w in wins]


def exact_one_card_win_probabilities(v: Variant) -> np.ndarray:
    """P(seat takes the trick) in a one-card round, by seat (0 = dealer's left, n-1 = dealer).

    Exact: computed from integer counts of every deal (see the module doc), then converted
    to float64. Raises ValueError if the variant's one-card round involves a player choice.
    """
    return np.array([float(f) for f in exact_one_card_win_fractions(v)], dtype=np.float64)


def _score(v: Variant, bid: int, took: int) -> int:
    return bids_base_score(v, bid, took, 1)


def one_card_bid_threshold(v: Variant) -> Fraction:
    """p* such that, in a one-card round, bidding 1 has the higher expected score exactly when
    P(win) > p* (equal at p == p*). Read from the variant's score table:
    p* = (s(0,0) - s(1,0)) / ((s(0,0) - s(1,0)) + (s(1,1) - s(0,1))).

    oh_hell scoring="exact_only": 10/21; oh_hell default (tricks_plus_ten): 1/2;
    kings_and_fools: 1/3. Raises ValueError where a score depends on more than one's own bid
    and tricks (contracts, teams, capture events, stars, everyone-exact scores, a Fool bonus
    paid only on an exact bid).
    """
    if v.is_contract or v.teams:
        raise ValueError(f"{v.canonical}: scores are not per-player bids")
    if v.events:
        raise ValueError(f"{v.canonical}: capture events change the score of a bid")
    stars = v.rule("scoring.stars") or {}
    if stars.get("enabled") or v.rule("scoring.everyone_exact") is not None:
        raise ValueError(f"{v.canonical}: the score depends on the other players' bids")
    fool = v.rule("scoring.fool_bonus") or {}
    if fool.get("points") and fool.get("requires_exact"):
        raise ValueError(f"{v.canonical}: the Fool bonus is paid only on an exact bid")
    s00, s01, s10, s11 = _score(v, 0, 0), _score(v, 0, 1), _score(v, 1, 0), _score(v, 1, 1)
    gain0 = s00 - s10         # what bidding 0 gains when the trick is lost
    gain1 = s11 - s01         # what bidding 1 gains when the trick is won
    if gain0 < 0 or gain1 <= 0 or gain0 + gain1 == 0:
        raise ValueError(f"{v.canonical}: the score table does not give a threshold rule "
                         f"(s00={s00}, s01={s01}, s10={s10}, s11={s11})")
    return Fraction(gain0, gain0 + gain1)


exact_one_card_bid_threshold = one_card_bid_threshold


def optimal_one_card_bid(v: Variant, p: Fraction | float) -> int:
    """The bid (0 or 1) with the higher expected score given P(win) = p; 0 on a tie."""
    s00, s01, s10, s11 = _score(v, 0, 0), _score(v, 0, 1), _score(v, 1, 0), _score(v, 1, 1)
    ev1 = p * s11 + (1 - p) * s10
    ev0 = p * s01 + (1 - p) * s00
    return 1 if ev1 > ev0 else 0


def one_card_win_table(v: Variant, trump: str | int | None = None,
                       turn_up: str | None = None) -> Any:
    """Per seat and card: the exact P(win | I hold this card in this seat, trump) and the best
    one-card bid under the variant's scoring (see `one_card_bid_threshold`).

    trump: for a turned-up trump, the trump suit (the turned-up card itself is unknown;
      averaged over the cards of that suit). None: unconditional (averaged over the
      turn-up). Ignored when trump is fixed (it must then match, if given).
    turn_up: the exact turned-up card (e.g. "2S"); conditions on it (it is out of play).

    Returns a pandas DataFrame with one row per (seat, card the seat can hold): seat, card,
    p_win (float), p_exact (Fraction), ev_bid0, ev_bid1 (floats), bid, tie. Identical
    special copies (two Fools) appear once.
    """
    import pandas as pd

    s = one_card_setup(v)
    n, D = s.players, s.deck_size
    names = v.cards.names
    rows = []
    removed: tuple[int, ...] = ()
    if turn_up is not None:
        if s.chooser != "turn_up" or s.stock <= 0:
            raise ValueError(f"{v.canonical}: no card is turned up")
        (u,) = v.cards.parse_hand([turn_up], "turn_up")
        c = v.cards.cards[u]
        t = NT if c.special else c.suit
        if trump is not None and v.trump_index(trump) != t:
            raise ValueError(f"turn-up {turn_up} does not make {trump} trump")
        removed = (u,)
        counts, _ = _card_counts(v, t, n, removed=removed)
        per_trump = {t: counts}
        pool = D - 1

        def held(card: int) -> int:   # ordered deals with `card` at a given position
            return perm(pool - 1, n - 1)
    elif s.chooser == "fixed" or s.stock <= 0:
        fixed = s.fixed_trump if s.chooser == "fixed" else NT
        assert fixed is not None
        t = fixed
        if trump is not None and v.trump_index(trump) != t:
            raise ValueError(f"{v.canonical}: trump is always {TRUMP_NAMES[t]}")
        per_trump = {t: _all_counts(v).by_trump[t][0]}

        def held(card: int) -> int:
            return perm(D - 1, n - 1)
    else:
        allc = _all_counts(v)
        if trump is None:
            per_trump = {t: c for t, (c, _) in allc.by_trump.items()}

            def held(card: int) -> int:
                return perm(D - 1, n - 1) * (D - n)
        else:
            t = v.trump_index(trump)
            if t not in allc.by_trump:
                raise ValueError(f"{v.canonical}: trump {TRUMP_NAMES[t]} cannot turn up")
            per_trump = {t: allc.by_trump[t][0]}
            tb = TrumpFacts(v, t)
            n_t = sum(1 for d in tb.naturals if tb.is_trump_suit[d]) if t != NT \
                else sum(tb.type_copies)

            def held(card: int) -> int:
                c = v.cards.cards[card]
                same = (c.special and t == NT) or (not c.special and c.suit == t)
                # the turn-up is one of the other n_t (or n_t - 1) cards; the rest of the deal
                # is any ordered n-1 of the D-2 cards left
                return (n_t - int(same)) * perm(D - 2, n - 1)

    wins: dict[tuple[int, int], int] = {}
    for counts in per_trump.values():
        for key, ways in counts.items():
            wins[key] = wins.get(key, 0) + ways
    try:
        p_star = one_card_bid_threshold(v)
    except ValueError:
        p_star = None
    seen_types: set[Any] = set()
    cards = []
    for i, c in enumerate(v.cards.cards):
        if i in removed:
            continue
        if c.special:
            if c in seen_types:
                continue
            seen_types.add(c)
        cards.append(i)
    for seat in range(n):
        pos = s.position_of_seat(seat)
        for i in cards:
            c = v.cards.cards[i]
            copies = sum(1 for j, cc in enumerate(v.cards.cards) if cc == c and j not in removed) \
                if c.special else 1
            denom = held(i) * copies
            if denom == 0:
                continue
            p = Fraction(wins.get((pos, i), 0), denom)
            row: dict[str, Any] = {"seat": seat, "card": names[i], "p_win": float(p),
                                   "p_exact": p}
            if p_star is not None:
                s00, s01 = _score(v, 0, 0), _score(v, 0, 1)
                s10, s11 = _score(v, 1, 0), _score(v, 1, 1)
                ev0 = p * s01 + (1 - p) * s00
                ev1 = p * s11 + (1 - p) * s10
                row.update(ev_bid0=float(ev0), ev_bid1=float(ev1),
                           bid=1 if ev1 > ev0 else 0, tie=ev1 == ev0)
            rows.append(row)
    return pd.DataFrame(rows)


exact_one_card_bid_table = one_card_win_table
