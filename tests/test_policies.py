"""Each policy's choice pinned on crafted positions, straight from the kernel functions."""

from __future__ import annotations

import numpy as np
import pytest

import simulate as sim
from simulate.hands.simulate import simulate_hands
from simulate.kernel.policies import choose_bid, choose_discard, precision_play
from simulate.kernel.rng import seed_stream
from simulate.kernel.trick import TS_SIZE, legal_mask, trick_add, trick_reset
from simulate.tables import layout as L
from simulate.tables.compile import compile_tables

ZERO = np.uint64(0)


def _mask(v: sim.Variant, cards: str, exclude: list[int] | None = None) -> tuple[np.uint64, list[int]]:
    idx = v.cards.parse_hand(cards, exclude=exclude or [])
    return np.uint64(v.cards.mask(idx)), idx


def _play(v: sim.Variant, hand: str, trick: str, trump: str, need: int, *, gone: str = "",
          tricks_left: int = 3, partner_winning: bool = False, last: bool = False,
          unit_bid: int = 1) -> str:
    """What precision play does holding `hand` with `trick` on the table."""
    T = compile_tables(v)
    t = v.trump_index(trump)
    tmask, tidx = _mask(v, trick)
    hmask, hidx = _mask(v, hand, tidx)
    gmask, _ = _mask(v, gone, tidx + hidx)
    ts = np.zeros(TS_SIZE, np.int64)
    trick_reset(ts)
    for c in tidx:
        trick_add(ts, c, 0, t, T.eff, T.power, T.mech)
    legal = np.uint64(legal_mask(hmask, ts, t, False, 0, T.suit_mask, T.masks[0]))
    move = precision_play(T.P, legal, hmask, gmask | tmask, tmask, need, tricks_left, ts, t,
                          partner_winning, 0 if last else 2, len(hidx), unit_bid, T.as_tuple())
    return v.cards.names[move & 63]


def test_fool_goes_onto_a_winning_king_when_a_trick_is_needed() -> None:
    v = sim.load_variant("kings_and_fools", players=4)
    assert _play(v, "FOOL 2H QC", "KH 5H", "S", need=1) == "FOOL"
    assert _play(v, "FOOL 2H QC", "KH 5H", "S", need=1, last=True) == "FOOL"
    # no King would win: the Fool is not wasted
    assert _play(v, "FOOL 2H QC", "QH 5H", "S", need=0) == "2H"


def test_a_player_who_has_made_the_bid_ducks_under_the_winning_card() -> None:
    v = sim.load_variant("oh_hell", players=4)
    assert _play(v, "KH 9H 4H 2C", "QH", "S", need=0) == "9H"
    assert _play(v, "KH 9H 4H 2C", "QH 10H", "S", need=0, last=True) == "9H"
    # short of the bid and last to play: the cheapest card that takes it
    assert _play(v, "KH AH 4H 2C", "QH 10H 3H", "S", need=1, last=True) == "KH"


def test_hijo_holder_short_by_one_keeps_it_rather_than_overtake_a_partner() -> None:
    v = sim.load_variant("hoffer", players=4, partnership=True)
    card = _play(v, "HIJO 10H QD", "AS 9S", "NT", need=1, partner_winning=True)
    assert card != "HIJO"
    # leading, one trick needed, three to play and the HiJo sure: lose this one cheaply
    v4 = sim.load_variant("hoffer", players=4)
    assert _play(v4, "HIJO 10H QD", "", "NT", need=1, tricks_left=3) == "10H"
    # the last trick it needs: now the sure winner is led
    assert _play(v4, "HIJO 10H", "", "NT", need=1, tricks_left=1) == "HIJO"


def test_beanie_is_refused_and_frilly_chased() -> None:
    v = sim.load_variant("hyjack", players=4)            # Beanie = J♣, Frilly = J♦
    assert _play(v, "QC 2C 5H", "JC 3C", "S", need=2) == "2C"
    assert _play(v, "QD 2D 5H", "JD 3D", "S", need=0, last=True) == "QD"


@pytest.mark.parametrize("policy", [L.BID_GREEDY, L.BID_HEURISTIC, L.BID_TABLE])
def test_dealer_under_the_hook_never_bids_the_forbidden_total(policy: int) -> None:
    v = sim.load_variant("kings_and_fools", players=4)
    T = compile_tables(v)
    rs = np.zeros(3, np.uint64)
    rng = np.random.default_rng(0)
    for i in range(300):
        h = int(rng.integers(1, 8))
        hand = np.uint64(v.cards.mask(rng.choice(len(v.cards), h, replace=False).tolist()))
        excluded = int(rng.integers(0, h + 1))
        seed_stream(rs, 1, i, 0)
        b = choose_bid(policy, rs, 0, h, excluded, hand, h, 0, T.card_rate, 3, h - excluded,
                       T.suit_mask, T.bid_table)
        assert 0 <= b <= h and b != excluded
    name = {L.BID_GREEDY: "greedy", L.BID_HEURISTIC: "heuristic", L.BID_TABLE: "table"}[policy]
    df = simulate_hands(v, 5, 3_000, seed=3, play="precision", bid=name).records
    assert (df.groupby("deal").bid.sum() != 5).all()


def test_hasenpfeffer_maker_discards_from_a_short_side_suit() -> None:
    v = sim.load_variant("hasenpfeffer")
    T = compile_tables(v)
    rs = np.zeros(3, np.uint64)
    spades = v.trump_index("S")

    def discard(hand: str, policy: int = L.BID_HEURISTIC) -> str:
        mask, _ = _mask(v, hand)
        c = choose_discard(policy, rs, mask, spades, T.strength, T.suit_mask, T.masks[2])
        return v.cards.names[c]

    assert discard("JOKER JS AS KS 9H QD KD") == "9H"           # voids hearts
    assert discard("JOKER JS AS KS AH QD KD") == "QD"           # keeps the singleton Ace
    assert discard("JOKER JS AS KS 9H QD KD", L.BID_GREEDY) in ("9H", "QD")


def test_star_threshold_spends_a_star_only_on_a_costly_hand() -> None:
    import random

    from simulate.reference.engine import RandomPolicy, StarThreshold, play_game

    v = sim.load_variant("horseshoes", players=4, stars=True)
    rng = random.Random(4)
    spent = kept = 0
    for _ in range(40):
        game = play_game(v, [StarThreshold(RandomPolicy(rng), 3) for _ in range(4)], rng)
        for rec in game.hands:
            for kind, seat, value in rec.decisions:
                if kind != "spend_star":
                    continue
                points = rec.scores[seat]
                assert value == (points >= 3)
                spent += value
                kept += not value
    assert spent and kept
