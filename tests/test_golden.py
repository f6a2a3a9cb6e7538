"""Golden traces: seeded whole games saved as JSON (deal + decisions + outcome), replayed.

Each file in tests/golden/ is one game played by the reference engine with seeded policies
(RandomPolicy; for the Hasenpfeffer auction the low-bidding TamePolicy of _support, since a
uniformly random auction never reaches the target). The tests:
  * replay every hand with replay_hand and with the recorded decisions, and check that the
    outcome (trump, bids, tricks, scores, fooled Kings, captures, maker, contract, alone,
    voided) equals the stored one; a tampered outcome must be reported;
  * check that the stored totals are the sums of the stored hand scores (less spent stars)
    and that the stored winners, rounds and stars match;
  * play the game again from its seeds and check that it comes out identical, move by move.

Regenerate after an intended rules change (then review the diff):

    .venv/bin/python tests/test_golden.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from _support import policies_for, record_from_json, record_to_json

import simulate as sim
from simulate.reference.engine import SPEND_STAR, ScriptedPolicy, play_game, play_hand, replay_hand

GOLDEN_DIR = Path(__file__).with_name("golden")

# (file stem, game, players, options, seed, first dealer)
GAMES = [
    ("hoffer_4p", "hoffer", 4, {}, 1, 0),
    ("hoffer_2p_tiebreak", "hoffer", 2, {}, 76, 0),
    ("hoffer_4p_partnership", "hoffer", 4, {"partnership": True}, 3, 2),
    ("horseshoes_4p", "horseshoes", 4, {}, 1, 0),
    ("horseshoes_3p_stars_jokers_aces", "horseshoes", 3,
     {"stars": True, "jokers": 1, "aces": "high_low"}, 54, 0),
    ("horseshoes_6p_triples_breaking", "horseshoes", 6,
     {"partnership": "triples", "breaking_trump": True, "even_deal": True}, 2, 5),
    ("hyjack_4p", "hyjack", 4, {}, 1, 0),
    ("hyjack_7p_countdown_maxbet", "hyjack", 7, {"countdown": True, "max_bet": True}, 2, 3),
    ("hasenpfeffer_4p", "hasenpfeffer", 4, {}, 3, 0),
    ("hasenpfeffer_4p_pepper_alone", "hasenpfeffer", 4,
     {"bidding_form": "pepper", "allow_alone": True}, 2, 1),
    ("kings_and_fools_4p", "kings_and_fools", 4, {}, 1, 0),
    ("kings_and_fools_2p", "kings_and_fools", 2, {}, 2, 1),
    ("oh_hell_4p", "oh_hell", 4, {}, 1, 0),
    ("oh_hell_5p_exact_only", "oh_hell", 5, {"scoring": "exact_only", "zero_bid": "adjusted"},
     2, 4),
]


def play(game: str, players: int, opts: dict, seed: int, first_dealer: int):
    v = sim.load_variant(game, players=players, **opts)
    g = play_game(v, policies_for(v, seed), random.Random(seed), first_dealer=first_dealer)
    return v, g


def trace(stem: str, game: str, players: int, opts: dict, seed: int, first_dealer: int) -> dict:
    v, g = play(game, players, opts, seed, first_dealer)
    return {
        "name": stem, "variant": game, "players": players, "options": opts,
        "canonical": v.canonical, "deck": v.deck, "seed": seed, "first_dealer": first_dealer,
        "policy": "tame" if v.bidding_form == "auction" else "random",
        "seats": "hands[*] use seats relative to that hand's dealer (0 = dealer's left, "
                 "n-1 = dealer); dealers, totals, winners and stars use absolute seats",
        "rounds": g.rounds, "tiebreak_rounds": g.tiebreak_rounds, "dealers": g.dealers,
        "totals": g.totals, "winners": g.winners, "stars": g.stars,
        "hands": [record_to_json(rec) for rec in g.hands],
    }


def dumps(data: dict) -> str:
    """Readable and diff-friendly: the header fields, then one line per hand."""
    head = {k: v for k, v in data.items() if k != "hands"}
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append('  "hands": [')
    lines.append(",\n".join("    " + json.dumps(h) for h in data["hands"]))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def regenerate() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for stem, *args in GAMES:
        path = GOLDEN_DIR / f"{stem}.json"
        path.write_text(dumps(trace(stem, *args)), encoding="utf-8")
        print(f"wrote {path}")


def load_trace(stem: str) -> dict:
    path = GOLDEN_DIR / f"{stem}.json"
    assert path.is_file(), f"missing {path}; run: python tests/test_golden.py"
    return json.loads(path.read_text(encoding="utf-8"))


CASES = [pytest.param(stem, *args, id=stem) for stem, *args in GAMES]


def _normal(x):
    return json.loads(json.dumps(x))


@pytest.mark.parametrize("stem,game,players,opts,seed,first_dealer", CASES)
def test_golden_replay(stem, game, players, opts, seed, first_dealer):
    data = load_trace(stem)
    assert (data["variant"], data["players"], data["options"], data["seed"]) == \
        (game, players, opts, seed)
    v = sim.load_variant(game, players=players, **opts)
    assert v.canonical == data["canonical"] and v.deck == data["deck"]
    n = v.players
    assert len(data["hands"]) == data["rounds"] == len(data["dealers"])
    totals = [0] * n
    tampered_once = False
    for hand, dealer in zip(data["hands"], data["dealers"], strict=True):
        rec = record_from_json(hand)
        assert replay_hand(v, rec) == []
        in_hand = [d for d in rec.decisions if d[0] != SPEND_STAR]
        script = ScriptedPolicy(in_hand)
        again = play_hand(v, rec.hand_size, rec.hands, rec.widow, rec.stock, [script] * n,
                          rec.round_index)
        assert script.position == len(in_hand)
        assert _normal(again.outcome()) == hand["outcome"]
        for s in range(n):
            totals[(dealer + 1 + s) % n] += rec.scores[s]
        for _, rel, spent in (d for d in rec.decisions if d[0] == SPEND_STAR):
            if spent:
                for s in range(n):
                    if v.team_of((s - dealer - 1) % n) == v.team_of(rel):
                        totals[s] -= rec.scores[rel]
        if not tampered_once and not rec.voided:
            rec.scores = [x + 1 for x in rec.scores]
            assert any("scores" in p for p in replay_hand(v, rec)), "a changed score is caught"
            tampered_once = True
    assert totals == data["totals"]
    assert data["winners"], "every golden game has a winner"
    better = max if v.rule("end.better") == "higher" else min
    if not (v.rule("scoring.stars") or {}).get("enabled") and v.rule("end.rule") == "schedule":
        assert data["winners"] == [s for s in range(n) if totals[s] == better(totals)]


@pytest.mark.parametrize("stem,game,players,opts,seed,first_dealer", CASES)
def test_golden_game_regenerates_identically(stem, game, players, opts, seed, first_dealer):
    data = load_trace(stem)
    fresh = trace(stem, game, players, opts, seed, first_dealer)
    assert _normal(fresh) == data


def test_golden_set_is_complete():
    stems = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert stems == {g[0] for g in GAMES}
    assert {g[1] for g in GAMES} == set(sim.shipped_variants())
    special = {stem: load_trace(stem) for stem in
               ("hoffer_2p_tiebreak", "horseshoes_3p_stars_jokers_aces",
                "hasenpfeffer_4p_pepper_alone")}
    assert special["hoffer_2p_tiebreak"]["tiebreak_rounds"] >= 1
    spends = [d for h in special["horseshoes_3p_stars_jokers_aces"]["hands"]
              for d in h["decisions"] if d[0] == SPEND_STAR and d[2]]
    assert spends, "the stars game spends a star"
    assert any(h["outcome"]["alone"] is not None
               for h in special["hasenpfeffer_4p_pepper_alone"]["hands"])


if __name__ == "__main__":
    regenerate()
