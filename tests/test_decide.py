"""One decision at a time is the kernel's decision: kernel hands replayed through a Player.

Every bid and card of kernel-played hands (simulate_hands' traces) is asked again of
simulate.hands.player.Player from the seat's view only (its hand, the trump and turn-up,
the earlier bids, the trick so far, the cards played, bids and tricks taken) and must be
what the kernel played. Deterministic policies (precision play with the table, heuristic
or greedy bidder) are compared directly; random policies are given the hand's own policy
stream and asked in the kernel's decision order, so they must draw the same choices too.
"""

from __future__ import annotations

import numpy as np
import pytest

import simulate as sim
from simulate.errors import BidlabInputError
from simulate.hands.player import Player, policy_stream
from simulate.hands.simulate import simulate_hands
from simulate.reference.engine import HandRecord
from simulate.rules.play import trick_winner


def _replay(v: sim.Variant, player: Player, rec: HandRecord,
            stream: np.ndarray | None = None) -> int:
    """Ask `player` every bid and card of `rec` in order; returns the decisions checked."""
    n = v.players
    hands = [set(h) for h in rec.hands]
    turn = rec.stock[0] if v.trump_chooser == "turn_up" and rec.stock else None
    bids: list[int] = []
    bid_of = [0] * n
    tricks = [0] * n
    played: list[int] = []
    trick: list[tuple[int, bool]] = []
    leader = v.seat_of_offset(int(v.rule("play.first_lead", 1)))
    checked = 0
    for kind, seat, value in rec.decisions:
        if kind == "bid":
            got = player.bid(seat, sorted(hands[seat]), bids, trump=rec.trump, turn_up=turn,
                             stream=stream)
            assert got == value, f"seat {seat} bid {got}, the kernel bid {value} ({rec})"
            bids.append(value)
            bid_of[seat] = value
        elif kind == "play":
            move = player.play(seat, sorted(hands[seat]), bid_of, tricks, trick=trick,
                               played=played, trump=rec.trump, turn_up=turn, leader=leader,
                               stream=stream)
            assert (move.card, move.low) == tuple(value), \
                f"seat {seat} played {move}, the kernel {value} ({rec})"
            hands[seat].discard(value[0])
            trick.append((value[0], bool(value[1])))
            if len(trick) == n:
                pos, _ = trick_winner(v, trick, rec.trump)
                leader = (leader + pos) % n
                tricks[leader] += 1
                played.extend(c for c, _ in trick)
                trick = []
        else:
            continue        # the trump named by a player: given to the Player as the trump
        checked += 1
    assert tricks == rec.tricks
    return checked


@pytest.mark.parametrize("game,hand_size,play,bid", [
    ("oh_hell", 7, "precision", "table"),
    ("oh_hell", 7, "greedy", "heuristic"),
    ("kings_and_fools", 7, "precision", "table"),
    ("hyjack", 9, "precision", "table"),
    ("hoffer", 6, "precision", "table"),
    ("horseshoes", 13, "precision", "table"),
])
def test_player_decides_as_the_kernel(game: str, hand_size: int, play: str, bid: str) -> None:
    v = sim.load_variant(game, players=4)
    hands = 150
    res = simulate_hands(v, hand_size, hands, seed=3, play=play, bid=bid, workers=1)
    player = Player(v, hand_size, play=play, bid=bid)
    checked = sum(_replay(v, player, rec) for rec in res.traces(hands))
    assert checked == hands * 4 * (hand_size + 1)


def test_replay_catches_another_policy() -> None:
    """The check is not vacuous: the greedy bidder's decisions are not the table's."""
    v = sim.load_variant("oh_hell", players=4)
    res = simulate_hands(v, 7, 50, seed=3, workers=1)
    player = Player(v, 7, bid="greedy")
    with pytest.raises(AssertionError, match="bid"):
        for rec in res.traces(50):
            _replay(v, player, rec)


def test_random_policies_draw_from_the_hand_stream() -> None:
    """Random bids and cards match when asked in order with the hand's policy stream."""
    v = sim.load_variant("oh_hell", players=4)
    res = simulate_hands(v, 7, 100, seed=9, play="random", bid="random", workers=1)
    player = Player(v, 7, play="random", bid="random")
    for i, rec in enumerate(res.traces(100)):
        _replay(v, player, rec, stream=policy_stream(9, i))


def test_player_defaults_and_inputs() -> None:
    v = sim.load_variant("oh_hell", players=4)
    player = Player(v, 7)
    assert repr(player).endswith("precision+table)")
    hand = "AS KS QS 2H 3H 4D 5C"
    # the dealer under the hook never makes the bids total the hand size
    for before in ([2, 2, 2], [0, 0, 0], [3, 2, 1]):
        assert sum(before) + player.bid(3, hand, before, turn_up="7S") != 7
    move = player.play(1, hand, [2, 3, 1, 0], [0] * 4, trick=["9H"], turn_up="7S")
    assert move.name in ("2H", "3H") and not move.low
    with pytest.raises(BidlabInputError, match="seat"):
        player.bid(4, hand, turn_up="7S")
    with pytest.raises(BidlabInputError, match="not in this game's deck"):
        player.bid(0, "AS KS QS 2H 3H 4D HIJO", turn_up="7S")
    with pytest.raises(BidlabInputError, match="auctions"):
        Player(sim.load_variant("hasenpfeffer"), 6)
