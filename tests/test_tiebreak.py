"""Hoffer's tie-break rounds up the river (A-HOF-7), for all players or the tied ones only."""

from __future__ import annotations

import random

import pytest

import simulate as sim
from simulate.reference.engine import RandomPolicy, play_game, replay_hand


@pytest.mark.parametrize("who", ["all", "tied_only"])
def test_tiebreak_rounds(who: str) -> None:
    v = sim.load_variant("hoffer", players=4, tiebreak_participants=who)
    rng = random.Random(7)
    seen = 0
    for _ in range(1500):
        game = play_game(v, [RandomPolicy(rng) for _ in range(4)], rng)
        if not game.tiebreak_rounds:
            continue
        seen += 1
        assert len(game.hands) == len(v.schedule) + game.tiebreak_rounds
        extra = game.hands[len(v.schedule):]
        sizes = [rec.hand_size for rec in extra]
        assert sizes[0] == 2 and all(1 <= h <= max(v.schedule) for h in sizes)
        for rec in extra:
            players = len(rec.hands)
            assert players == 4 if who == "all" else 2 <= players <= 3
            sub = sim.load_variant("hoffer", players=players, tiebreak_participants=who)
            assert replay_hand(sub, rec) == []
        best = max(game.totals)
        if game.tiebreak_rounds < 50:
            assert game.winners == [s for s in range(4) if game.totals[s] == best]
            assert len(game.winners) == 1
    assert seen >= 20
