"""bidlab's bots in OpenSpiel's oh_hell: the mapping of cards, seats, bids and scores.

Kernel-played hands of classic Oh Hell are dealt into OpenSpiel (the same hands, turn-up
and a dealer) and played there by BidlabBot: every action must be legal in OpenSpiel and
be the kernel's decision, and OpenSpiel's scores must be bidlab's. Needs open-spiel (the
`bench` extra); skipped without it.
"""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import simulate as sim  # noqa: E402
from simulate.hands.simulate import simulate_hands  # noqa: E402
from simulate.openspiel import (  # noqa: E402
    OS_CARDS,
    BidlabBot,
    CardMap,
    SearchSettings,
    bidlab_variant,
    head_to_head,
    play_deal,
    seatings,
)


def test_kernel_hands_play_the_same_in_openspiel() -> None:
    v = sim.load_variant("oh_hell", players=4)
    n, h = 4, 7
    game = pyspiel.load_game("oh_hell", {"players": n, "num_tricks_fixed": h})
    bots = [BidlabBot(game, p) for p in range(n)]
    cards = CardMap(v)
    res = simulate_hands(v, h, 60, seed=4, workers=1)
    for i, rec in enumerate(res.traces(60)):
        dealer = i % n
        seat_of = [(p - dealer - 1) % n for p in range(n)]
        state = game.new_initial_state()
        state.apply_action(h)
        state.apply_action(dealer)
        for k in range(n * h):
            state.apply_action(cards.to_openspiel[rec.hands[seat_of[k % n]][k // n]])
        state.apply_action(cards.to_openspiel[rec.stock[0]])
        for kind, seat, value in rec.decisions:
            player = state.current_player()
            assert seat_of[player] == seat, f"hand {i}: {kind} by seat {seat} out of turn"
            want = OS_CARDS + value if kind == "bid" else cards.to_openspiel[value[0]]
            got = bots[player].step(state)       # raises if OpenSpiel does not allow it
            assert got == want, f"hand {i}: {kind} {state.action_to_string(got)} != {value}"
            state.apply_action(got)
        assert state.is_terminal()
        assert [int(state.returns()[p]) for p in range(n)] == \
            [rec.scores[seat_of[p]] for p in range(n)]


def test_openspiel_scoring_variants() -> None:
    """OpenSpiel's other scorings become a variant whose score table is theirs."""
    assert bidlab_variant({"players": 4}).canonical == sim.load_variant("oh_hell").canonical
    v = bidlab_variant({"players": 4, "points_per_trick": 2, "off_bid_penalty": True})
    assert v.score_hand([2, 1, 0, 3], [2, 0, 1, 4], 7) == [14, -2, -2, -2]
    v = bidlab_variant({"players": 5, "points_per_trick": 3})
    assert v.score_hand([2, 1, 0, 3, 0], [2, 0, 1, 4, 0], 7) == [16, 0, 3, 12, 10]


def test_bidlab_bots_play_whole_openspiel_hands() -> None:
    """Random hand sizes and a penalty scoring: every action legal (step raises if not),
    and evaluate_bots accepts the bots."""
    game = pyspiel.load_game("oh_hell", {"players": 3, "off_bid_penalty": True})
    bots = [BidlabBot(game, p) for p in range(3)]
    for d in range(20):
        play_deal(game, bots, random.Random(d))
    assert len(pyspiel.evaluate_bots(game.new_initial_state(), bots, 1)) == 3


def test_head_to_head_smoke() -> None:
    assert seatings(4, "alternate") == [[True, False, True, False], [False, True, False, True]]
    assert [sum(s) for s in seatings(4, "one")] == [1, 1, 1, 1]
    res = head_to_head("ismcts", deals=2, settings=SearchSettings(simulations=20))
    assert res.deals == 2 and len(res.bidlab_scores) == 2
    res = head_to_head("mcts", deals=2, settings=SearchSettings(simulations=20),
                       arrangement="one")
    assert "bidlab - mcts" in res.summary()


def test_yardstick_rows_in_the_benchmark() -> None:
    from simulate.bench import YardstickPlan, yardstick_rows

    lines: list[str] = []
    (row,) = yardstick_rows(YardstickPlan(ismcts_deals=10, mcts_deals=0, simulations=10),
                            lines.append)
    assert row.name == "yardstick bidlab - OpenSpiel ISMCTS" and row.unit == "pts/hand"
    assert row.interval is not None and row.interval[0] <= row.rate <= row.interval[1]
    assert row.met == (row.interval[0] > 0) and lines
