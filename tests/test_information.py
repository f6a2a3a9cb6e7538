"""Information as the rules give it: a seat bids and plays on what it may know.

* Hoffer's bids are simultaneous ("bids are revealed simultaneously"): the table bidder's
  bid depends on the seat's own hand and the trump, never on the others' bids.
* The reference engine hands each policy a SeatView, not the table: a policy that tries to
  read another seat's cards, the stock or the widow finds nothing to read.
* The kernel's card counting treats the turned-up card and face-up leftovers as seen.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np

import simulate as sim
from simulate.hands.simulate import simulate_hands
from simulate.kernel.policies import precision_play
from simulate.kernel.trick import TS_SIZE, legal_mask, trick_reset
from simulate.reference.engine import Decision, RandomPolicy, SeatView, deal, play_hand
from simulate.tables.compile import compile_tables


def test_hoffer_table_bid_ignores_the_others_bids() -> None:
    """The dealer with AS KS QH at 3 cards in spades bid 3, 2, 1 or 1 as the sum of the
    others' bids ran 0-3 (issue 14); now its bid is one bid whatever the others hold."""
    v = sim.load_variant("hoffer", players=4)
    for seat in (0, 3):
        df = simulate_hands(v, 3, 4_000, seed=11, play="precision", bid="table", trump="S",
                            fixed={seat: "AS KS QH"}).records
        mine = df[df.seat == seat]
        others = df[df.seat != seat].groupby("deal").bid.sum()
        assert mine.bid.nunique() == 1, mine.groupby(others.reindex(mine.deal).values).bid \
            .value_counts()
        assert others.nunique() > 3          # the others' bids did vary


def _cards_in(obj: Any, seen: set[int], depth: int = 0) -> None:
    """Every int reachable from a view's deal-dependent fields (rules excluded)."""
    if depth > 6:
        return
    if isinstance(obj, bool):
        return
    if isinstance(obj, int):
        seen.add(obj)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for x in obj:
            _cards_in(x, seen, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            _cards_in(x, seen, depth + 1)


class Spy(RandomPolicy):
    """A random policy that tries to read what its seat may not know, and records what it
    could read: every card reachable from its decision other than its own hand, the cards
    played, the turn-up and face-up cards."""

    def __init__(self, seed: int, log: list[str]) -> None:
        super().__init__(seed)
        self.log = log

    def choose(self, kind: str, decision: Decision) -> Any:
        view = decision.view
        assert isinstance(view, SeatView)
        for name in ("state", "hands", "stock"):
            if hasattr(decision, name) or hasattr(view, name):
                self.log.append(f"{kind}: seat {decision.seat} can read {name}")
        allowed = set(view.hand) | {c for _, c, _ in view.played} | set(view.face_up)
        allowed |= set(view.widow) | set(view.discards)
        if view.turn_up is not None:
            allowed.add(view.turn_up)
        for f in dataclasses.fields(view):
            if f.name in ("v", "seat", "hand_size", "round_index", "trump", "bids", "auction",
                          "maker", "contract", "alone", "defender_alone", "sitting_out",
                          "tricks", "trump_broken"):
                continue
            got: set[int] = set()
            _cards_in(getattr(view, f.name), got)
            extra = got - allowed - {0, 1, decision.seat} if f.name in ("trick", "played") \
                else got - allowed
            if f.name in ("trick", "played"):
                extra = {c for _, c, _ in getattr(view, f.name)} - allowed
            if extra:
                self.log.append(f"{kind}: seat {decision.seat} sees {sorted(extra)} in {f.name}")
        if view.bids and kind == "bid" and decision.view.v.bidding_form == "simultaneous":
            self.log.append(f"seat {decision.seat} heard simultaneous bids {view.bids}")
        return super().choose(kind, decision)


def _spy_hands(name: str, players: int, hands: int, **opts: Any) -> list[str]:
    v = sim.load_variant(name, players=players, **opts)
    log: list[str] = []
    rng = random.Random(5)
    for k in range(hands):
        size = v.schedule[k % len(v.schedule)]
        dealt, widow, stock = deal(v, size, rng)
        play_hand(v, size, dealt, widow, stock, [Spy(100 * k + s, log) for s in range(players)])
    return log


def test_a_policy_cannot_read_hidden_cards() -> None:
    for name, players, opts in [("hoffer", 4, {}), ("oh_hell", 5, {}),
                                ("horseshoes", 4, {"face_up_leftovers": True}),
                                ("horseshoes", 5, {}), ("hasenpfeffer", 4, {}),
                                ("hyjack", 4, {})]:
        assert _spy_hands(name, players, 30, **opts) == [], (name, opts)


def test_the_spy_catches_a_leak() -> None:
    """The check can fail: a view that leaks the next seat's hand is reported."""
    v = sim.load_variant("oh_hell", players=4)
    log: list[str] = []
    spy = Spy(0, log)
    dealt, widow, stock = deal(v, 3, random.Random(1))
    view = SeatView(v, 0, 3, None, tuple(dealt[0]), 0, (), (), stock[0], (), None, 0, None,
                    None, frozenset(), (), (), (0, 0, 0, 0), False, widow=tuple(dealt[1]))
    spy.choose("bid", Decision("bid", 0, [0, 1], list(dealt[0]), view))
    assert log == []     # the widow field is trusted only for the maker, so this is allowed
    view = dataclasses.replace(view, face_up=tuple(stock[1:4]) + tuple(dealt[1]))
    spy.choose("bid", Decision("bid", 0, [0, 1], list(dealt[0]), view))
    assert log == []     # face-up cards are allowed by definition ...
    view = dataclasses.replace(view, face_up=(), trick=((1, dealt[2][0], False),), played=())
    spy.choose("play", Decision("play", 0, [dealt[0][0]], list(dealt[0]), view))
    assert log and "trick" in log[0]    # ... but a card on the table that was never played is not


def test_simultaneous_bids_are_heard_only_after_everyone_bid() -> None:
    v = sim.load_variant("hoffer", players=4)
    heard: list[tuple[str, int, tuple[tuple[int, int], ...]]] = []

    class Listen(RandomPolicy):
        def choose(self, kind: str, decision: Decision) -> Any:
            heard.append((kind, decision.seat, decision.view.bids))
            return super().choose(kind, decision)

    dealt, widow, stock = deal(v, 3, random.Random(2))
    rec = play_hand(v, 3, dealt, widow, stock, [Listen(s) for s in range(4)])
    assert all(b == () for k, _, b in heard if k in ("trump", "bid"))
    plays = [b for k, _, b in heard if k == "play"]
    assert plays and all(dict(b) == dict(enumerate(rec.bids)) for b in plays)


def test_oh_hell_sequential_bids_are_heard_in_turn() -> None:
    v = sim.load_variant("oh_hell", players=4)
    heard: list[tuple[int, tuple[tuple[int, int], ...]]] = []

    class Listen(RandomPolicy):
        def choose(self, kind: str, decision: Decision) -> Any:
            if kind == "bid":
                heard.append((decision.seat, decision.view.bids))
            return super().choose(kind, decision)

    dealt, widow, stock = deal(v, 3, random.Random(3))
    play_hand(v, 3, dealt, widow, stock, [Listen(s) for s in range(4)])
    assert [len(b) for _, b in heard] == [0, 1, 2, 3]
    assert all(s not in dict(b) for s, b in heard)


def _sure_winners(v: sim.Variant, hand: str, face_up: str, trump: str) -> str:
    """Precision play leading from `hand` when `face_up` cards are known to be out of play."""
    T = compile_tables(v)
    t = v.trump_index(trump)
    hidx = v.cards.parse_hand(hand)
    gmask = np.uint64(v.cards.mask(v.cards.parse_hand(face_up, exclude=hidx))) if face_up \
        else np.uint64(0)
    hmask = np.uint64(v.cards.mask(hidx))
    ts = np.zeros(TS_SIZE, np.int64)
    trick_reset(ts)
    legal = np.uint64(legal_mask(hmask, ts, t, False, 0, T.suit_mask, T.masks[0]))
    move = precision_play(T.P, legal, hmask, gmask, np.uint64(0), 1, 3, ts, t, False, 3, 3, 1,
                          T.as_tuple())
    return v.cards.names[move & 63]


def test_a_seen_card_makes_a_sure_winner() -> None:
    """Needing one trick of three: with the trump Ace turned up, the trump King is a sure
    winner, kept back while a small card is led; without that knowledge precision play
    has no sure winner and leads its strongest card."""
    v = sim.load_variant("oh_hell", players=4)
    assert _sure_winners(v, "KS 4H 3D", "AS", "S") == "3D"
    assert _sure_winners(v, "KS 4H 3D", "", "S") == "KS"


def test_kernel_counts_the_turn_up_and_face_up_leftovers() -> None:
    """Face-up leftovers change Horseshoes play (and the kernel still agrees with the
    reference engine, tested in test_kernel_differential)."""
    base = sim.load_variant("horseshoes", players=5)
    face = sim.load_variant("horseshoes", players=5, face_up_leftovers=True)
    a = simulate_hands(base, 10, 3_000, seed=4, play="precision", bid="heuristic").records
    b = simulate_hands(face, 10, 3_000, seed=4, play="precision", bid="heuristic").records
    assert (a.tricks.to_numpy() != b.tricks.to_numpy()).any()


def test_a_dealer_naming_trump_before_looking_sees_no_cards() -> None:
    """Hoffer trump_before_looking (the seed: "After the dealer has named the trump suit,
    each player looks at their hand"): the dealer's trump decision carries no cards; by
    default the dealer looks first."""
    seen: list[tuple[list[int], tuple[int, ...]]] = []

    class Look(RandomPolicy):
        def choose(self, kind: str, decision: Decision) -> Any:
            if kind == "trump":
                seen.append((decision.hand, decision.view.hand))
            return super().choose(kind, decision)

    for option, blind in ((True, True), (False, False)):
        v = sim.load_variant("hoffer", players=4, trump_before_looking=option)
        seen.clear()
        dealt, widow, stock = deal(v, 4, random.Random(6))
        play_hand(v, 4, dealt, widow, stock, [Look(s) for s in range(4)])
        assert len(seen) == 1
        assert (seen[0] == ([], ())) is blind


def test_kernel_blind_dealer_trump_does_not_follow_the_hand() -> None:
    """A dealer that looks names trump by its hand: the same hand, the same trump on every
    deal. Before looking it names every choice about equally often."""
    hand = "HIJO AS KS QS 10S 9S"
    looks = sim.load_variant("hoffer", players=4)
    blind = sim.load_variant("hoffer", players=4, trump_before_looking=True)
    a = simulate_hands(looks, 6, 2_000, seed=8, play="precision", bid="table", fixed={3: hand})
    b = simulate_hands(blind, 6, 2_000, seed=8, play="precision", bid="table", fixed={3: hand})
    ta = a.records.drop_duplicates("deal").trump.astype(str)
    tb = b.records.drop_duplicates("deal").trump.astype(str)
    assert ta.nunique() == 1
    shares = tb.value_counts(normalize=True)
    assert set(shares.index) == {"S", "H", "D", "C", "NT"}
    assert shares.max() < 0.25 and shares.min() > 0.15
