"""Property tests over random deals and random legal play (Hypothesis, derandomised).

Every game at every allowed player count, plus a sample of option combinations. For each
simulated hand (tests/_support.check_hand):
  * every card is in a hand, the widow or the stock exactly once; hands hold h cards;
  * tricks sum to h (also with a partner sitting out under going alone);
  * each trick, replayed card by card through the public string API, has only legal plays,
    a non-empty legal-move list, a winner who played in it, and the winner leads next;
  * the options the engine offered (cards, Ace declarations, bids, auction steps, trump
    choices), the legal moves, trick winners and scores all equal those of an independent
    oracle written from RULES.md's pseudo-code (tests/_oracle.py);
  * trick counts, fooled Kings and captured special jacks match the record;
  * the hook (bids never sum to h) and Max Bet (bids sum to h) hold where active;
  * scores equal Variant.score_hand of the record, and partners score the same;
  * replay_hand returns [] for the record, and problems for a tampered copy.
Whole games: rounds and tricks per RULES.md §6, the dealer rotates, totals are the sums of
the hand scores (less any star spent), and the winners hold the best totals.
"""

from __future__ import annotations

import random

import pytest
from _support import (
    GAMES,
    check_hand,
    config_id,
    load,
    policies_for,
    recorded,
    star_spending,
    tamper_play,
    tamper_tricks,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from simulate.reference.engine import play_game, replay_hand, simulate_hand
from simulate.rules import play as R

BASE = [(name, n, {}) for name, counts in GAMES.items() for n in counts]
OPTIONS = [
    ("hoffer", 4, {"partnership": True}),
    ("hoffer", 2, {"two_player_max": 13}),
    ("hoffer", 3, {"peak_twice": True}),
    ("horseshoes", 4, {"partnership": "pairs"}),
    ("horseshoes", 6, {"partnership": "pairs"}),
    ("horseshoes", 6, {"partnership": "triples", "aces": "high_low"}),
    ("horseshoes", 3, {"jokers": 2, "aces": "high_low"}),
    ("horseshoes", 5, {"even_deal": True}),
    ("horseshoes", 5, {"even_deal": True, "even_deal_five": "remove_twos", "aces": "high_low"}),
    ("horseshoes", 4, {"breaking_trump": True}),
    ("horseshoes", 6, {"breaking_trump": True, "even_deal": True}),
    ("horseshoes", 3, {"stars": True, "face_up_leftovers": True}),
    ("hyjack", 4, {"countdown": True, "max_bet": True}),
    ("hyjack", 7, {"countdown": True, "max_bet": True, "max_bet_from": "below_peak"}),
    ("hyjack", 10, {"countdown": True, "max_bet": True}),
    ("hyjack", 5, {"hyjacker_anytime": True, "beanie_jack": "JS", "frilly_jack": "JH"}),
    ("hyjack", 3, {"special_jacks": False}),
    ("hyjack", 4, {"beanie_mode": "lose_bonus", "frilly_mode": "as_exact"}),
    ("hasenpfeffer", 4, {"bidding_form": "pepper"}),
    ("hasenpfeffer", 4, {"bidding_form": "pepper", "pepper_is_alone": True}),
    ("hasenpfeffer", 4, {"allow_alone": True}),
    ("hasenpfeffer", 4, {"allow_no_trump": True, "maker_leads": True}),
    ("hasenpfeffer", 4, {"all_pass": "stick_dealer", "defenders_score_tricks": True}),
    ("hasenpfeffer", 4, {"all_pass": "redeal"}),
    ("kings_and_fools", 4, {"bonus_requires_exact": True}),
    ("oh_hell", 4, {"scoring": "exact_only", "zero_bid": "adjusted"}),
    ("oh_hell", 5, {"trump": "spades", "zero_bid": "reduced"}),
    ("oh_hell", 3, {"schedule": "down_up", "hook": False}),
    ("oh_hell", 4, {"max_hand": 13}),
    ("oh_hell", 7, {"schedule": "up"}),
]
CONFIGS = [pytest.param(*c, id=config_id(*c)) for c in BASE + OPTIONS]

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


@pytest.mark.parametrize("name,players,opts", CONFIGS)
@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(seed=SEEDS, data=st.data())
def test_random_hands(name, players, opts, seed, data):
    v = load(name, players, **opts)
    r = data.draw(st.integers(0, len(v.schedule) - 1), label="round_index")
    policies, offered = recorded(policies_for(v, seed))
    rec = simulate_hand(v, v.schedule[r], policies, random.Random(seed), r)
    check_hand(v, rec, offered)
    assert replay_hand(v, rec) == []
    bad = tamper_play(v, rec)
    if not rec.voided:
        assert bad is not None and replay_hand(v, bad), "an illegal play is caught"
        assert replay_hand(v, tamper_tricks(rec)), "a changed trick count is caught"


def _abs_score(rec, dealer, seat, n):
    return rec.scores[(seat - dealer - 1) % n]


def river(count: int, peak: int) -> list[int]:
    """Tie-break hand sizes: 2, 3, ..., M, M-1, ..., 1, 2, ... (A-HOF-7)."""
    out, size, step = [], 2, 1
    for _ in range(count):
        out.append(min(size, peak))
        step = -1 if size >= peak else (1 if size <= 1 else step)
        size += step
    return out


@pytest.mark.parametrize("name,players,opts", CONFIGS)
@settings(max_examples=8, deadline=None, derandomize=True, database=None)
@given(seed=SEEDS, first_dealer=st.integers(0, 9))
def test_whole_games(name, players, opts, seed, first_dealer):
    v = load(name, players, **opts)
    n = v.players
    first_dealer %= n
    g = play_game(v, policies_for(v, seed), random.Random(seed), first_dealer=first_dealer)
    assert g.rounds == len(g.hands) == len(g.dealers)
    assert g.dealers == [(first_dealer + i) % n for i in range(g.rounds)], "the deal passes left"
    for rec in g.hands:
        assert replay_hand(v, rec) == []
        if not rec.voided:
            assert sum(rec.tricks) == rec.hand_size

    # totals = sum of hand scores, less the points a spent star cancelled
    totals = [0] * n
    running: list[list[int]] = []
    for rec, dealer in zip(g.hands, g.dealers, strict=True):
        for s in range(n):
            totals[s] += _abs_score(rec, dealer, s, n)
        for rel, spent in star_spending(rec):
            assert v.rule("scoring.stars")["enabled"]
            if spent:
                unit = [s for s in range(n) if v.team_of((s - dealer - 1) % n) == v.team_of(rel)]
                for s in unit:
                    totals[s] -= rec.scores[rel]
        running.append(list(totals))
    assert totals == g.totals
    for s in range(n):                # partners share one total (teams are fixed across hands)
        for t in range(n):
            if v.teams and (s - t) % v.teams == 0:
                assert g.totals[s] == g.totals[t]

    higher = v.rule("end.better") == "higher"
    best = max(g.totals) if higher else min(g.totals)
    if v.rule("end.rule") == "schedule":
        sizes = [rec.hand_size for rec in g.hands]
        k = len(v.schedule)
        assert sizes[:k] == list(v.schedule) and g.rounds == k + g.tiebreak_rounds
        assert sizes[k:] == river(g.tiebreak_rounds, max(v.schedule))
        if g.tiebreak_rounds:
            assert v.rule("end.tiebreak") == "river"
            after = running[k - 1]            # the lead was shared after the schedule
            assert len({s % v.teams if v.teams else s for s in range(n)
                        if after[s] == max(after)}) > 1
        assert sorted(g.winners) == sorted(s for s in range(n) if g.totals[s] == best) or \
            g.tiebreak_rounds == int(v.rule("end.tiebreak_cap", 50))
        if v.rule("end.tiebreak") == "river" and g.tiebreak_rounds < 50:
            assert len({v.team_of(s) if v.teams else s for s in g.winners}) == 1
    else:
        target = int(v.rule("end.target"))
        stars = v.rule("scoring.stars") or {}
        assert all(max(t) < target for t in running[:-1]), "no earlier hand reached the target"
        if stars.get("enabled"):
            assert max(g.totals) >= target or max(g.stars) >= int(stars["win_at"])
        else:
            assert max(g.totals) >= target
        if higher:
            reached = [s for s in range(n) if g.totals[s] >= target]
            top = max(g.totals[s] for s in reached)
            tied = [s for s in reached if g.totals[s] == top]
            assert set(g.winners) <= set(tied) and g.winners
        elif not stars.get("enabled") or max(g.stars) < int(stars.get("win_at", 5)):
            assert sorted(g.winners) == [s for s in range(n) if g.totals[s] == best]
        else:
            starred = [s for s in range(n) if g.stars[s] >= int(stars["win_at"])]
            low = min(g.totals[s] for s in starred)
            assert sorted(g.winners) == [s for s in starred if g.totals[s] == low]
    # rounds and tricks per RULES.md §6
    if name == "hasenpfeffer":
        assert all(sum(r.tricks) == 6 for r in g.hands if not r.voided)


def test_hoffer_tiebreak_rounds_happen_and_follow_the_river():
    """Find seeded 2-player games that tie after the schedule; check the tie-break rounds."""
    v = load("hoffer", 2)
    found = 0
    for seed in range(400):
        g = play_game(v, [random_policy(seed, 0), random_policy(seed, 1)], random.Random(seed))
        if not g.tiebreak_rounds:
            continue
        found += 1
        assert [r.hand_size for r in g.hands[15:]] == river(g.tiebreak_rounds, 8)
        assert river(16, 8) == [2, 3, 4, 5, 6, 7, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3]
        totals = [0, 0]
        for i, (rec, dealer) in enumerate(zip(g.hands, g.dealers, strict=True)):
            for s in range(2):
                totals[s] += _abs_score(rec, dealer, s, 2)
            if 14 <= i < g.rounds - 1:
                assert totals[0] == totals[1], "tie-break rounds go on while the lead is shared"
        assert totals == g.totals and totals[0] != totals[1]
        assert g.winners == [totals.index(max(totals))]   # all players took part, one winner
        if found == 3:
            break
    assert found >= 1


def random_policy(seed, seat):
    from simulate.reference.engine import RandomPolicy
    return RandomPolicy(seed * 7 + seat)


@pytest.mark.parametrize("name,players,opts", [
    pytest.param("kings_and_fools", n, {}, id=f"kings_and_fools-{n}p") for n in (3, 4, 5)
] + [pytest.param("oh_hell", 4, {}, id="oh_hell-4p"),
     pytest.param("hyjack", 6, {"countdown": True, "max_bet": True}, id="hyjack-6p-maxbet")])
@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(seed=SEEDS, data=st.data())
def test_bid_constraints_over_random_bidding(name, players, opts, seed, data):
    """The dealer always has a legal bid; hook totals never equal h, Max Bet totals always do."""
    v = load(name, players, **opts)
    r = data.draw(st.integers(0, len(v.schedule) - 1))
    h = v.schedule[r]
    bids: list[int] = []
    for _ in range(players):
        legal = v.legal_bids(h, bids, round_index=r)
        assert legal and all(0 <= b <= h for b in legal)
        bids.append(data.draw(st.sampled_from(legal)))
    constraint = v.rule("bidding.constraint")
    if R.constraint_active(v, r) and constraint == "hook":
        assert sum(bids) != h
    elif R.constraint_active(v, r) and constraint == "max_bet":
        assert sum(bids) == h
    else:
        assert constraint == "none" or not R.constraint_active(v, r)
