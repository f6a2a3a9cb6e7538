"""The skill profile (issue 15): the skill index, its bidding and play parts and the luck
ceiling of a clairvoyant bidder, on the same deals."""

from __future__ import annotations

import numpy as np
import pytest

import simulate as sim
from simulate.errors import BidlabInputError
from simulate.games.job import make_game_job
from simulate.games.replay import kernel_game_records, replay_kernel_game
from simulate.games.skill import format_skill, skill_profile, skill_roles


def test_roles_leave_out_what_equals_the_field() -> None:
    keys = [r.key for r in skill_roles("precision+table", "greedy+heuristic", ceiling=True)]
    assert keys == ["skill", "skill_bid", "skill_play", "ceiling"]
    assert [r.policy for r in skill_roles("precision+table")][1:] == \
        ["greedy+table", "precision+heuristic"]
    # the same bidder on both sides: no bidding part, and the index is play skill alone
    assert [r.key for r in skill_roles("precision+heuristic")] == ["skill"]


def test_the_clairvoyant_bids_best_for_itself_and_replays() -> None:
    """On the same deal, the clairvoyant seat's first-hand score is at least what the
    heuristic bid scored there (it plays every legal bid out and keeps the best), and its
    games replay move by move in the reference engine."""
    v = sim.load_variant("kings_and_fools")
    field = ["greedy+heuristic"] * v.players
    clair = ["precision+clairvoyant"] + field[1:]
    plain = ["precision+heuristic"] + field[1:]
    jc, jp = make_game_job(v, 12, 5, clair, 2), make_game_job(v, 12, 5, plain, 2)
    better = 0
    for g in range(12):
        _, rc = kernel_game_records(jc, g)
        _, rp = kernel_game_records(jp, g)
        assert rc[0].hands == rp[0].hands                   # the same deal
        assert rc[0].scores[0] >= rp[0].scores[0]
        better += rc[0].scores[0] > rp[0].scores[0]
    assert better > 0
    for g in range(3):
        assert replay_kernel_game(jc, g)[1] == []
    with pytest.raises(BidlabInputError, match="clairvoyant"):
        make_game_job(sim.load_variant("hasenpfeffer"), 10, 0, "precision+clairvoyant", 2)


def test_profile_orders_skill_below_the_ceiling() -> None:
    v = sim.load_variant("kings_and_fools")
    prof = skill_profile(v, 600, seed=2, ceiling_games=200, workers=1).set_index("key")
    assert list(prof.index) == ["skill", "skill_bid", "skill_play", "ceiling"]
    assert prof.loc["skill", "skill_lo"] > 0                      # the strong seat wins more
    assert prof.loc["ceiling", "skill"] > prof.loc["skill", "skill_hi"]
    share = prof.loc["skill", "of_ceiling"]
    assert 0 < share < 1 and prof.loc["skill", "of_ceiling_lo"] < share
    assert np.isclose(share, prof.loc["skill", "skill"] / prof.loc["ceiling", "skill"])
    text = format_skill(prof.reset_index())
    assert "luck ceiling" in text and "% of the ceiling" in text and "bidding skill" in text
