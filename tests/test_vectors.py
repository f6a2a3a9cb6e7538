"""Every test vector of RULES.md as parametrised cases, the vector ID in the test id.

Registered vector cases: 245 (test_vector_count checks this against the VECTORS registry).
They cover the 137 vectors and table rows that RULES.md itself lists; the other cases run the
same tables under every player count and option the rules define.

RULES.md rows covered (literal count in brackets):
  §1   Hoffer         HOF-1..8, HOF-10..12 [11; RULES.md has no HOF-9], L-HOF-1..4 [4],
                      scores [11], ranking table §1.3 [5], deal table §1.5 [4]
                      (+ two_player_max 9..12, peak_twice at 2/3/4 players)
  §2   Horseshoes     deal table §2.2 [5] (+ jokers 1..4 without Even Deal at 3..6 players),
                      HS-S1, HS-S2, partnership example [3] (+ HS-S1's zero bid alone),
                      HS-1..6 [6], breaking trump [2] (+ broken, no trump)
  §3   HyJack         schedule table §3.4 [8 rows, base and countdown columns = 16 cases],
                      score card [3: hand 1, hand 2, totals], HJ-MB1/MB2 [2; MB1 checked for
                      players 6 and 7], HJ-1..4 [4], L-HJ-1..3 [3], special jacks [3]
                      (x 4 jack assignments, + beanie_mode/frilly_mode/special_jacks=off cases,
                      + Max Bet rounds for both max_bet_from choices)
  §4   Hasenpfeffer   HP-1..5 [5], L-HP-1..3 [3], ranking check [1] (+ no-trump option),
                      ranking table §4.3 [4], scores [8] (+ defenders_score_tricks, alone),
                      auction/widow/lead/going alone (§4.3 pseudo-code and options, 15 cases)
  §5   Kings & Fools  KF-1..10 [10; winner and "king fooled" flag], L-KF-1..2 [2], scores [8]
                      (+ bonus_requires_exact), hook [3], deal table §5.3 [6]
  §5.10 Oh Hell       scoring variants 1-4 [4] (5 results each), schedules floor(51/n) and
                      floor(52/n) at 3..7 players, down_up/up, hook and plain play
  §6   Scenarios      the game-length table [9]
"""

from __future__ import annotations

import random
import re

import pytest
from _support import load

import simulate as sim
from simulate.reference.engine import (
    ALONE,
    AUCTION,
    DEFEND_ALONE,
    DISCARD,
    PLAY,
    TRUMP,
    RandomPolicy,
    deal,
    play_game,
    play_hand,
)
from simulate.rules import play as R

VECTORS: list[str] = []


def vec(vid: str, *values):
    """Register a RULES.md vector and return its pytest case."""
    assert vid not in VECTORS, f"duplicate vector id {vid}"
    VECTORS.append(vid)
    return pytest.param(*values, id=vid)


def vector(*vids: str):
    """Register single-case vectors for a test that takes a `vector_id` argument."""
    for vid in vids:
        assert vid not in VECTORS, f"duplicate vector id {vid}"
        VECTORS.append(vid)
    return pytest.mark.parametrize("vector_id", ["+".join(vids)])


def cards(text: str) -> list[str]:
    return text.replace(",", " ").split()


# =====================================================================================
# §1 Hoffer
# =====================================================================================

HOFFER_TRICKS = [
    vec("HOF-1", "H", "AH JD 9H", 1),
    vec("HOF-2", "H", "JD QH JH", 2),
    vec("HOF-3", "H", "KC AC LOJO 9H", 3),
    vec("HOF-4", "S", "JS HIJO AS", 1),
    vec("HOF-5", "NT", "10D JD AC", 1),
    vec("HOF-6", "NT", "LOJO QS KS AH", 2),
    vec("HOF-7", "D", "KH JH AH", 1),
    vec("HOF-8", "C", "LOJO HIJO", 1),
    vec("HOF-10", "S", "QC JS KC", 1),
    vec("HOF-11", "S", "QC JC KC", 1),
    vec("HOF-12", "C", "AD JD KD", 0),
]


@pytest.mark.parametrize("trump,trick,winner", HOFFER_TRICKS)
def test_hoffer_trick_winner(trump, trick, winner):
    size = len(trick.split())
    for players in range(max(2, size), 5):   # the same answer at every player count that fits
        v = load("hoffer", players)
        assert v.trick_winner(trick, trump) == winner, players
    # the engine-level function agrees and never reports a fooled king in Hoffer
    v = load("hoffer", 4)
    assert R.trick_winner(v, R.parse_trick(v, trick), v.trump_index(trump)) == (winner, False)


HOFFER_LEGAL = [
    vec("L-HOF-1", "H", "10D", "JD 9C HIJO", "JD 9C HIJO"),
    vec("L-HOF-2", "H", "9H", "JD 9C LOJO", "JD LOJO"),
    vec("L-HOF-3", "H", "LOJO", "QS 9C", "QS 9C"),
    vec("L-HOF-4", "H", "LOJO KC", "QS 9C", "9C"),
]


@pytest.mark.parametrize("trump,trick,hand,legal", HOFFER_LEGAL)
def test_hoffer_legal_moves(trump, trick, hand, legal):
    v = load("hoffer", 4)
    assert sorted(v.legal_moves(hand, trick, trump)) == sorted(cards(legal))


HOFFER_SCORES = [vec(f"HOF-score-{b}/{t}", b, t, p) for b, t, p in [
    (0, 0, 10), (0, 1, 0), (0, 3, 0), (1, 1, 11), (3, 3, 13), (6, 6, 16), (2, 5, 3),
    (1, 2, 1), (5, 2, 2), (4, 3, 3), (1, 0, 0)]]


@pytest.mark.parametrize("bid,took,points", HOFFER_SCORES)
def test_hoffer_scores(bid, took, points):
    v = load("hoffer", 3)
    h = max(bid, took, 1)
    assert v.score_hand([bid, 0, 1], [took, 0, 0], h)[0] == points
    # partnership: the same formula on team bid / team tricks, split between partners (A-HOF-8)
    p = load("hoffer", 4, partnership=True)
    if bid >= 1 and took >= 1:
        assert p.score_hand([bid - 1, 0, 1, 0], [1, 0, took - 1, 0], h)[0::2] == [points] * 2
    elif bid == 0:
        assert p.score_hand([0, 1, 0, 1], [took, 0, 0, 0], h)[0::2] == [points] * 2


# Ranking table §1.3: trump suit high→low after HiJo, same-colour suit, the other suits.
HOFFER_RANKING = [
    vec("HOF-rank-S", "S", "JS JC AS KS QS 10S 9S", "AC KC QC 10C 9C", "H D"),
    vec("HOF-rank-C", "C", "JC JS AC KC QC 10C 9C", "AS KS QS 10S 9S", "H D"),
    vec("HOF-rank-H", "H", "JH JD AH KH QH 10H 9H", "AD KD QD 10D 9D", "S C"),
    vec("HOF-rank-D", "D", "JD JH AD KD QD 10D 9D", "AH KH QH 10H 9H", "S C"),
    vec("HOF-rank-NT", "NT", "", "", "S H D C"),
]


@pytest.mark.parametrize("trump,trump_order,same_colour,others", HOFFER_RANKING)
def test_hoffer_ranking_table(trump, trump_order, same_colour, others):
    v = load("hoffer", 2)
    chains = [cards(trump_order), cards(same_colour)]
    chains += [[r + s for r in ("A", "K", "Q", "J", "10", "9")] for s in others.split()]
    for chain in chains:
        for i, high in enumerate(chain):
            for low in chain[i + 1:]:
                assert v.trick_winner(f"{low} {high}", trump) == 1, (low, high)
                assert v.trick_winner(f"{high} {low}", trump) == 0, (high, low)
    everything = [c for c in v.deck if c not in ("HIJO", "LOJO")]
    for c in everything:
        assert v.trick_winner(f"{c} HIJO", trump) == 1     # HiJo beats every card
        assert v.trick_winner(f"HIJO {c}", trump) == 0
        assert v.trick_winner(f"LOJO {c}", trump) == 1     # LoJo loses to every card
        assert v.trick_winner(f"{c} LOJO", trump) == 0
    if trump != "NT":
        for t in cards(trump_order):
            for c in everything:
                if c not in cards(trump_order):
                    assert v.trick_winner(f"{c} {t}", trump) == 1   # a trump beats a non-trump


HOFFER_SCHEDULES = [
    vec("HOF-deal-2p", 2, {}, list(range(1, 9)) + list(range(7, 0, -1)), 15, 16, 10),
    vec("HOF-deal-2p-max13", 2, {"two_player_max": 13},
        list(range(1, 14)) + list(range(12, 0, -1)), 25, 26, 0),
    vec("HOF-deal-3p", 3, {}, list(range(1, 9)) + list(range(7, 0, -1)), 15, 24, 2),
    vec("HOF-deal-4p", 4, {}, [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1], 11, 24, 2),
] + [
    vec(f"HOF-deal-2p-max{m}", 2, {"two_player_max": m},
        list(range(1, m + 1)) + list(range(m - 1, 0, -1)), 2 * m - 1, 2 * m, 26 - 2 * m)
    for m in range(9, 13)
] + [
    vec(f"HOF-deal-{n}p-peak_twice", n, {"peak_twice": True},
        list(range(1, m + 1)) + list(range(m, 0, -1)), 2 * m, n * m, 26 - n * m)
    for n, m in [(2, 8), (3, 8), (4, 6)]
]


@pytest.mark.parametrize("players,opts,schedule,rounds,dealt,undealt", HOFFER_SCHEDULES)
def test_hoffer_schedule(players, opts, schedule, rounds, dealt, undealt):
    v = load("hoffer", players, **opts)
    assert len(v.deck) == 26 and len(set(v.deck)) == 26
    assert list(v.schedule) == schedule and len(v.schedule) == rounds
    peak = max(v.schedule)
    hands, widow, stock = deal(v, peak, random.Random(0))
    assert sum(len(h) for h in hands) == dealt and not widow and len(stock) == undealt
    with pytest.raises(sim.BidlabInputError):
        deal(v, 26 // players + 1, random.Random(0))   # more than the deck can deal


# =====================================================================================
# §2 Horseshoes
# =====================================================================================

HS_DEALS = [
    vec("HS-deal-3p", 3, 17, 1, {"even_deal": True}, 54, 18),
    vec("HS-deal-4p", 4, 13, 0, {"even_deal": True}, 52, 13),
    vec("HS-deal-5p-option1", 5, 10, 2, {"even_deal": True}, 55, 11),
    vec("HS-deal-5p-option2", 5, 10, 2, {"even_deal": True, "even_deal_five": "remove_twos"},
        50, 10),
    vec("HS-deal-6p", 6, 8, 4, {"even_deal": True}, 54, 9),
]


@pytest.mark.parametrize("players,h52,leftover,even_opts,even_deck,even_h", HS_DEALS)
def test_horseshoes_deal_table(players, h52, leftover, even_opts, even_deck, even_h):
    v = load("horseshoes", players)
    assert len(v.deck) == 52 and v.schedule == (h52,)
    assert len(v.deck) - players * h52 == leftover
    hands, _, stock = deal(v, h52, random.Random(1))
    assert len(stock) == leftover
    e = load("horseshoes", players, **even_opts)
    assert len(e.deck) == even_deck and e.schedule == (even_h,)
    assert len(e.deck) == players * even_h           # Even Deal leaves nothing over
    jokers = e.deck.count("JOKER")
    assert jokers == even_deck - 52 + (4 if "remove_twos" in even_opts.values() else 0)
    if "remove_twos" in even_opts.values():
        assert not [c for c in e.deck if c.startswith("2")]
        # an Ace declared low ranks below 3, the lowest rank left (§2.10 option 4)
        lo = load("horseshoes", 5, even_deal=True, even_deal_five="remove_twos", aces="high_low")
        assert lo.trick_winner("3C AC:low", "NT") == 0
        assert lo.trick_winner("3C AC", "NT") == 1
    if jokers:   # Even Deal turns on the joker rules (A-HS-6)
        assert e.trick_winner("JOKER AS KS", "S") == 0


HS_JOKERS = [vec(f"HS-jokers-{k}-{n}p", n, k) for k in range(1, 5) for n in range(3, 7)]


@pytest.mark.parametrize("players,k", HS_JOKERS)
def test_horseshoes_jokers_without_even_deal(players, k):
    v = load("horseshoes", players, jokers=k)
    assert len(v.deck) == 52 + k and v.deck.count("JOKER") == k
    assert v.schedule == ((52 + k) // players,)
    _, _, stock = deal(v, v.schedule[0], random.Random(2))
    assert len(stock) == (52 + k) % players


HS_TRICKS = [
    vec("HS-1", "S", "KH AH 2S", 2),
    vec("HS-2", "NT", "KH AH 2S", 1),
    vec("HS-3", "S", "JOKER AS KS", 0),
    vec("HS-4", "NT", "5D JOKER 6D", 2),
    vec("HS-5", "H", "AC:low 2C 3C", 2),
    vec("HS-6", "H", "AC:high 2C 3C", 0),
]


@pytest.mark.parametrize("trump,trick,winner", HS_TRICKS)
def test_horseshoes_trick_winner(trump, trick, winner):
    for players in range(3, 7):
        v = load("horseshoes", players, jokers=2, aces="high_low")
        assert v.trick_winner(trick, trump) == winner
    if "low" not in trick:
        v = load("horseshoes", 3, jokers=1)   # the same without the Aces option
        assert v.trick_winner(trick.replace(":high", ""), trump) == winner


def test_horseshoes_joker_details():
    v = load("horseshoes", 4, jokers=2, aces="high_low")
    # a joker led wins even if another joker follows (A-HS-4); a led joker frees the trick
    assert v.trick_winner("JOKER JOKER AS", "S") == 0
    assert v.trick_winner("2C JOKER JOKER AC", "NT") == 3
    assert sorted(v.legal_moves("AH 2C KS", "JOKER", "S")) == ["2C", "AH", "KS"]
    assert sorted(v.legal_moves("AH 2C KS", "JOKER 3H", "S")) == ["2C", "AH", "KS"]
    # a joker may be played even by a player able to follow
    assert sorted(v.legal_moves("AH 2C JOKER", "3H", "S")) == ["AH", "JOKER"]
    # the Ace declaration is two distinct engine actions
    ace = v.cards.parse_hand(["AH"])[0]
    assert sorted(R.legal_plays(v, [ace], [], 1)) == [(ace, False), (ace, True)]


HS_SCORES = [
    vec("HS-S1", [5, 0, 2], [3, 3, 2], 8, [2, 3, 0]),
    vec("HS-S2", [5, 4, 4], [5, 4, 4], 13, [3, 3, 3]),
]


@pytest.mark.parametrize("bids,tricks,h,scores", HS_SCORES)
def test_horseshoes_seed_scores(bids, tricks, h, scores):
    v = load("horseshoes", 3)
    assert v.score_hand(bids, tricks, h) == scores


@vector("HS-S1b")
def test_horseshoes_seed_score_hs_s1_second_player(vector_id):
    # "Bid 0, won 3 → 3 points" on its own, 4 players, not everyone exact
    v = load("horseshoes", 4)
    assert v.score_hand([0, 2, 5, 6], [3, 2, 5, 3], 13) == [3, 0, 0, 3]


@vector("HS-partnership")
def test_horseshoes_partnership_example(vector_id):
    v = load("horseshoes", 4, partnership="pairs")
    # you bid 5, partner 0; the team takes 5 between them: exact, no penalty for the partner
    assert v.score_hand([5, 3, 0, 3], [3, 4, 2, 4], 13) == [0, 2, 0, 2]
    # every team exact → 3 each (A-HS-3), whatever the individual split
    assert v.score_hand([5, 3, 0, 5], [1, 7, 4, 1], 13) == [3, 3, 3, 3]
    six = load("horseshoes", 6, partnership="triples")
    assert six.score_hand([1, 1, 1, 1, 1, 1], [3, 1, 0, 0, 0, 4], 9) == [0, 2, 0, 2, 0, 2]
    pairs6 = load("horseshoes", 6, partnership="pairs")
    assert pairs6.score_hand([1, 1, 1, 1, 1, 1], [3, 1, 0, 0, 0, 4], 9) == [1, 1, 2, 1, 1, 2]
    stars = load("horseshoes", 3, stars=True)   # stars: the all-exact case scores 0 each
    assert stars.score_hand([5, 4, 4], [5, 4, 4], 13) == [0, 0, 0]
    assert stars.score_hand([5, 0, 2], [3, 3, 2], 8) == [2, 3, 0]


BREAKING_TRUMP = [
    vec("HS-break-1", "AS KS 3H", False, "S", "3H"),
    vec("HS-break-2", "AS KS", False, "S", "AS KS"),
    vec("HS-break-3-broken", "AS KS 3H", True, "S", "AS KS 3H"),
    vec("HS-break-4-no-trump", "AS KS 3H", False, "NT", "AS KS 3H"),
]


@pytest.mark.parametrize("hand,broken,trump,legal", BREAKING_TRUMP)
def test_horseshoes_breaking_trump(hand, broken, trump, legal):
    v = load("horseshoes", 4, breaking_trump=True)
    assert sorted(v.legal_moves(hand, "", trump, trump_broken=broken)) == sorted(cards(legal))
    # jokers are not trumps; without the option a trump may always be led
    j = load("horseshoes", 4, breaking_trump=True, jokers=1)
    if not broken and trump == "S":
        assert j.legal_moves("AS KS JOKER", "", "S") == ["JOKER"]
    assert sorted(load("horseshoes", 4).legal_moves(hand, "", trump)) == sorted(cards(hand))


# =====================================================================================
# §3 HyJack
# =====================================================================================

HJ_SCHEDULES = [
    vec(f"HJ-deal-{n}p-{'countdown' if cd else 'base'}", n, cd, peak, dealt)
    for n, peak, dealt in [(3, 9, 27), (4, 9, 36), (5, 9, 45), (6, 9, 54), (7, 7, 49),
                           (8, 6, 48), (9, 6, 54), (10, 5, 50)]
    for cd in (False, True)
]


@pytest.mark.parametrize("players,countdown,peak,dealt", HJ_SCHEDULES)
def test_hyjack_schedule(players, countdown, peak, dealt):
    v = load("hyjack", players, countdown=countdown)
    assert len(v.deck) == 54 and v.deck.count("HJ_BLUE") == v.deck.count("HJ_GREEN") == 1
    up = list(range(3, peak + 1))
    assert list(v.schedule) == (up + up[::-1] if countdown else up)
    hands, _, stock = deal(v, peak, random.Random(3))
    assert sum(len(h) for h in hands) == dealt and len(stock) == 54 - dealt


MAX_BET_ROUNDS = [
    vec("HJ-maxbet-rounds-6p", 6, {}, [False] * 7 + [True] * 7),
    vec("HJ-maxbet-rounds-7p", 7, {}, [False] * 5 + [True] * 5),
    vec("HJ-maxbet-rounds-below-peak", 4, {"max_bet_from": "below_peak"}, [False] * 8 + [True] * 6),
]


@pytest.mark.parametrize("players,opts,constrained", MAX_BET_ROUNDS)
def test_hyjack_max_bet_rounds(players, opts, constrained):
    v = load("hyjack", players, countdown=True, max_bet=True, **opts)
    assert list(v.constrained_rounds) == constrained
    for r, h in enumerate(v.schedule):
        free = v.legal_bids(h, [0] * (players - 1), round_index=r)
        assert free == ([h] if constrained[r] else list(range(h + 1)))


HJ_SCORE_CARD = [
    vec("HJ-scorecard-hand1", 3, [0, 2, 3], [0, 2, 1], [10, 12, 1]),
    vec("HJ-scorecard-hand2", 4, [1, 2, 2], [1, 3, 0], [11, 3, 0]),
]


@pytest.mark.parametrize("h,bids,tricks,scores", HJ_SCORE_CARD)
def test_hyjack_score_card(h, bids, tricks, scores):
    assert sum(tricks) == h   # the example is consistent
    for opts in ({}, {"special_jacks": False}):
        assert load("hyjack", 3, **opts).score_hand(bids, tricks, h) == scores


@vector("HJ-scorecard-totals")
def test_hyjack_score_card_totals(vector_id):
    v = load("hyjack", 3)
    one = v.score_hand([0, 2, 3], [0, 2, 1], 3)
    two = v.score_hand([1, 2, 2], [1, 3, 0], 4)
    assert [a + b for a, b in zip(one, two, strict=True)] == [21, 15, 1]   # Kitty, Saul, Erin


MAX_BET = [
    vec("HJ-MB1-player6", [2, 1, 2, 1, 1], [0]),
    vec("HJ-MB1-player7", [2, 1, 2, 1, 1, 0], [0]),
    vec("HJ-MB2", [1, 0, 1, 1, 0, 1], [3]),
]


@pytest.mark.parametrize("bids,legal", MAX_BET)
def test_hyjack_max_bet(bids, legal):
    v = load("hyjack", 7, countdown=True, max_bet=True)
    countdown_7 = 5                       # schedule 3 4 5 6 7 | 7 6 5 4 3: the second 7
    assert v.schedule[countdown_7] == 7
    assert v.legal_bids(7, bids, round_index=countdown_7) == legal
    # the first 7 is not a countdown round: no constraint there
    assert v.legal_bids(7, bids, round_index=4) == list(range(8))
    # part-way through: a bid may not push the running total above h
    assert v.legal_bids(7, [2, 1, 2], round_index=countdown_7) == [0, 1, 2]


HJ_TRICKS = [
    vec("HJ-1", "AH 2S KH", 1),
    vec("HJ-2", "AH HJ_BLUE 2S", 1),
    vec("HJ-3", "HJ_GREEN AS HJ_BLUE KS", 2),
    vec("HJ-4", "10D QD 3C", 1),
]


@pytest.mark.parametrize("trick,winner", HJ_TRICKS)
def test_hyjack_trick_winner(trick, winner):
    for players in (4, 7, 10):
        assert load("hyjack", players).trick_winner(trick, "S") == winner
    assert load("hyjack", 4, hyjacker_anytime=True).trick_winner(trick, "S") == winner
    with pytest.raises(sim.BidlabInputError):
        load("hyjack", 4).trick_winner(trick, "H")   # spades are always trump


HJ_LEGAL = [
    vec("L-HJ-1", "AH", "2H HJ_BLUE 5S", "2H", "2H HJ_BLUE"),
    vec("L-HJ-2", "AH", "3C HJ_BLUE 5S", "3C HJ_BLUE 5S", "3C HJ_BLUE 5S"),
    vec("L-HJ-3", "HJ_GREEN KH", "3C 9H 5S", "9H", "9H"),
]


@pytest.mark.parametrize("trick,hand,legal,legal_anytime", HJ_LEGAL)
def test_hyjack_legal_moves(trick, hand, legal, legal_anytime):
    assert sorted(load("hyjack", 4).legal_moves(hand, trick, "S")) == sorted(cards(legal))
    anytime = load("hyjack", 4, hyjacker_anytime=True)
    assert sorted(anytime.legal_moves(hand, trick, "S")) == sorted(cards(legal_anytime))


JACK_CHOICES = [("JC", "JD"), ("JS", "JH"), ("JH", "JC"), ("JD", "JS")]
SPECIAL_JACKS = [
    vec(f"HJ-jacks-{what}-{b}-{f}", b, f, bid, took, events, points)
    for b, f in JACK_CHOICES
    for what, bid, took, events, points in [
        ("beanie", 2, 2, {"beanie": 0}, 0),
        ("frilly", 2, 1, {"frilly": 0}, 11),
        ("both", 2, 2, {"beanie": 0, "frilly": 0}, 0),
    ]
]


@pytest.mark.parametrize("beanie,frilly,bid,took,events,points", SPECIAL_JACKS)
def test_hyjack_special_jacks(beanie, frilly, bid, took, events, points):
    v = load("hyjack", 3, beanie_jack=beanie, frilly_jack=frilly)
    bids, tricks = [bid, 0, 1], [took, 1, 4 - took]
    scores = v.score_hand(bids, tricks, 5, events)
    assert scores[0] == points
    assert scores[1:] == v.score_hand(bids, tricks, 5)[1:]     # the others are untouched
    # the capture is found by the engine from the card: a trick holding that jack
    plays = R.parse_trick(v, f"{beanie} {frilly} AS")
    assert R.trick_winner(v, plays, 0) == (2, False)
    names = {e.name: v.cards.names[e.card] for e in v.events}
    assert names == {"beanie": beanie, "frilly": frilly}


SPECIAL_JACK_MODES = [
    vec("HJ-jacks-lose_bonus-beanie", {"beanie_mode": "lose_bonus"}, 2, 2, {"beanie": 0}, 2),
    vec("HJ-jacks-lose_bonus-beanie-missed", {"beanie_mode": "lose_bonus"}, 2, 1, {"beanie": 0}, 1),
    vec("HJ-jacks-as_exact-frilly", {"frilly_mode": "as_exact"}, 2, 1, {"frilly": 0}, 11),
    vec("HJ-jacks-as_exact-frilly-exact", {"frilly_mode": "as_exact"}, 2, 2, {"frilly": 0}, 12),
    vec("HJ-jacks-add-lose_bonus-both", {"beanie_mode": "lose_bonus"}, 2, 2,
        {"beanie": 0, "frilly": 0}, 12),
    vec("HJ-jacks-off", {"special_jacks": False}, 2, 2, {}, 12),
    # A-HJ-7: Beanie is applied last, so it also takes back a bonus Frilly granted
    vec("HJ-jacks-as_exact-lose_bonus-both-missed",
        {"beanie_mode": "lose_bonus", "frilly_mode": "as_exact"}, 2, 1,
        {"beanie": 0, "frilly": 0}, 1),
    vec("HJ-jacks-as_exact-lose_bonus-both-exact",
        {"beanie_mode": "lose_bonus", "frilly_mode": "as_exact"}, 2, 2,
        {"beanie": 0, "frilly": 0}, 2),
]


@pytest.mark.parametrize("opts,bid,took,events,points", SPECIAL_JACK_MODES)
def test_hyjack_special_jack_modes(opts, bid, took, events, points):
    v = load("hyjack", 3, **opts)
    assert v.score_hand([bid, 0, 0], [took, 0, 5 - took], 5, events)[0] == points
    if opts.get("special_jacks") is False:
        assert v.events == ()
        with pytest.raises(sim.BidlabInputError, match="beanie"):
            v.score_hand([bid, 0, 0], [took, 0, 5 - took], 5, {"beanie": 0})


# =====================================================================================
# §4 Hasenpfeffer
# =====================================================================================

HP_TRICKS = [
    vec("HP-1", "H", "AD JD KD 9D", 1),
    vec("HP-2", "S", "JC AS JOKER JS", 2),
    vec("HP-3", "H", "AH KH QC JD", 3),
    vec("HP-4", "H", "QC AC 9S KC", 1),
    vec("HP-5", "S", "10C AC 9S JC", 3),
]


@pytest.mark.parametrize("trump,trick,winner", HP_TRICKS)
def test_hasenpfeffer_trick_winner(trump, trick, winner):
    for opts in ({}, {"bidding_form": "pepper"}, {"allow_no_trump": True}):
        assert load("hasenpfeffer", 4, **opts).trick_winner(trick, trump) == winner


HP_LEGAL = [
    vec("L-HP-1", "H", "10D", "JD 9C", "JD 9C"),
    vec("L-HP-2", "H", "9H", "JD AC", "JD"),
    vec("L-HP-3", "S", "JS", "JOKER AC", "JOKER"),
]


@pytest.mark.parametrize("trump,trick,hand,legal", HP_LEGAL)
def test_hasenpfeffer_legal_moves(trump, trick, hand, legal):
    v = load("hasenpfeffer", 4)
    assert sorted(v.legal_moves(hand, trick, trump)) == sorted(cards(legal))


@pytest.mark.parametrize("trump", [vec("HP-ranking-check", "H"), vec("HP-ranking-NT", "NT")])
def test_hasenpfeffer_ranking_check(trump):
    if trump == "H":
        # seed sentences 17-18: JOKER > J♥ > J♦ > A♥ are the top four with hearts trump
        v = load("hasenpfeffer", 4)
        top = ["JOKER", "JH", "JD", "AH"]
        rest = [c for c in v.deck if c not in top]
        for i, high in enumerate(top):
            for low in top[i + 1:] + rest:
                assert v.trick_winner(f"{low} {high}", "H") == 1
                assert v.trick_winner(f"{high} {low}", "H") == 0
    else:
        # allow_no_trump: the Joker wins any trick it is in; jacks keep their rank
        v = load("hasenpfeffer", 4, allow_no_trump=True)
        assert v.trick_winner("AS KS JOKER QS", "NT") == 2
        assert v.trick_winner("JOKER 9S AS 10S", "NT") == 0
        assert v.trick_winner("QH JH JD AH", "NT") == 3
        assert v.trick_winner("JD AS QD 9D", "NT") == 2
        with pytest.raises(sim.BidlabInputError):
            load("hasenpfeffer", 4).trick_winner("AS KS", "NT")


HP_RANKING = [
    vec("HP-rank-S", "S", "JOKER JS JC AS KS QS 10S 9S", "AC KC QC 10C 9C", "H D"),
    vec("HP-rank-C", "C", "JOKER JC JS AC KC QC 10C 9C", "AS KS QS 10S 9S", "H D"),
    vec("HP-rank-H", "H", "JOKER JH JD AH KH QH 10H 9H", "AD KD QD 10D 9D", "S C"),
    vec("HP-rank-D", "D", "JOKER JD JH AD KD QD 10D 9D", "AH KH QH 10H 9H", "S C"),
]


@pytest.mark.parametrize("trump,trump_order,same_colour,others", HP_RANKING)
def test_hasenpfeffer_ranking_table(trump, trump_order, same_colour, others):
    v = load("hasenpfeffer", 4)
    chains = [cards(trump_order), cards(same_colour)]
    chains += [[r + s for r in ("A", "K", "Q", "J", "10", "9")] for s in others.split()]
    assert sorted(c for chain in chains for c in chain) == sorted(v.deck)
    for chain in chains:
        for i, high in enumerate(chain):
            for low in chain[i + 1:]:
                assert v.trick_winner(f"{low} {high}", trump) == 1
                assert v.trick_winner(f"{high} {low}", trump) == 0
    # the Joker and the left bower are trumps for following (leading the Joker leads trump)
    lead = cards(trump_order)[-1]
    assert sorted(v.legal_moves(f"JOKER {cards(trump_order)[2]} {same_colour.split()[0]}",
                                lead, trump)) == sorted(["JOKER", cards(trump_order)[2]])


HP_SCORES = [
    vec("HP-score-4/5", {}, 4, 5, 5),
    vec("HP-score-4/4", {}, 4, 4, 4),
    vec("HP-score-4/3", {}, 4, 3, -4),
    vec("HP-score-6/6", {}, 6, 6, 6),
    vec("HP-score-6/5", {}, 6, 5, -6),
    vec("HP-score-little-pepper-6/6", {"bidding_form": "pepper"}, 6, 6, 6),
    vec("HP-score-big-pepper-6/6", {"bidding_form": "pepper"}, 7, 6, 12),
    vec("HP-score-big-pepper-6/5", {"bidding_form": "pepper"}, 7, 5, -12),
]


@pytest.mark.parametrize("opts,step,took,points", HP_SCORES)
def test_hasenpfeffer_scores(opts, step, took, points):
    v = load("hasenpfeffer", 4, **opts)
    for maker in range(4):
        bids = [step if s == maker else 0 for s in range(4)]
        tricks = [0, 0, 0, 0]
        tricks[maker] = min(took, 4)
        tricks[(maker + 2) % 4] = took - tricks[maker]        # team tricks are summed
        tricks[(maker + 1) % 4] = 6 - took
        scores = v.score_hand(bids, tricks, 6)
        assert scores[maker] == scores[(maker + 2) % 4] == points
        assert scores[(maker + 1) % 4] == scores[(maker + 3) % 4] == 0   # defenders score 0


@vector("HP-score-little-pepper-6/5")
def test_hasenpfeffer_little_pepper_fails(vector_id):
    v = load("hasenpfeffer", 4, bidding_form="pepper")
    assert v.score_hand([6, 0, 0, 0], [3, 1, 2, 0], 6) == [-6, 0, -6, 0]
    assert [s.name for s in v.ladder][-2:] == ["little_pepper", "big_pepper"]


@pytest.mark.parametrize("step,tricks,scores", [
    vec("HP-score-defenders-option-made", 4, [3, 1, 2, 0], [5, 1, 5, 1]),
    vec("HP-score-defenders-option-failed", 4, [1, 2, 2, 1], [-4, 3, -4, 3]),
])
def test_hasenpfeffer_defenders_score_tricks(step, tricks, scores):
    v = load("hasenpfeffer", 4, defenders_score_tricks=True)
    assert v.score_hand([step, 0, 0, 0], tricks, 6) == scores


@pytest.mark.parametrize("opts,step,tricks,scores", [
    vec("HP-score-alone-made", {"allow_alone": True}, 4, [5, 1, 0, 0], [10, 0, 10, 0]),
    vec("HP-score-alone-failed", {"allow_alone": True}, 4, [3, 3, 0, 0], [-8, 0, -8, 0]),
])
def test_hasenpfeffer_alone_doubles(opts, step, tricks, scores):
    v = load("hasenpfeffer", 4, **opts)
    assert v.score_hand([step, 0, 0, 0], tricks, 6, {"alone": 0}) == scores
    assert v.score_hand([step, 0, 0, 0], tricks, 6) == [s // 2 for s in scores]


# --- the auction, widow and lead (§4.3), driven through the reference engine -------------

class Script:
    """One policy object for all four seats: scripted auction (and optional answers)."""

    def __init__(self, auction=(), **answers):
        self.auction = list(auction)
        self.answers = answers
        self.asked: list[tuple[str, int, list]] = []

    def choose(self, kind, decision):
        self.asked.append((kind, decision.seat, list(decision.options)))
        if kind == AUCTION:
            return self.auction.pop(0)
        if kind in self.answers:
            answer = self.answers[kind]
            return answer(decision) if callable(answer) else answer
        return decision.options[0]


def hp_deal(v, joker_seat=None):
    """Seat s gets deck[6s:6s+6]; the widow is deck[24] = JOKER unless moved to joker_seat."""
    order = list(range(25))
    if joker_seat is not None:
        order[24], order[6 * joker_seat] = order[6 * joker_seat], order[24]
    hands = [sorted(order[6 * s:6 * s + 6]) for s in range(4)]
    return hands, [order[24]], []


def run_hp(opts, auction, joker_seat=None, **answers):
    v = load("hasenpfeffer", 4, **opts)
    hands, widow, stock = hp_deal(v, joker_seat)
    script = Script(auction, **answers)
    rec = play_hand(v, 6, hands, widow, stock, [script] * 4)
    return v, rec, script


def auction_asks(script):
    return [(seat, options) for kind, seat, options in script.asked if kind == AUCTION]


def first_leader(rec):
    return next(seat for kind, seat, _ in rec.decisions if kind == PLAY)


@vector("HP-auction-1")
def test_hp_auction_three_passes_end_it(vector_id):
    v, rec, script = run_hp({}, [2, 0, 3, 0, 0])
    asks = auction_asks(script)
    assert [s for s, _ in asks] == [0, 1, 2, 3, 0]        # dealer+1 first, clockwise
    assert asks[0][1] == [0, 1, 2, 3, 4, 5, 6]           # pass or 1..6
    assert asks[2][1] == [0, 3, 4, 5, 6]                 # only bids above the standing 2
    assert rec.maker == 2 and rec.contract == 3 and rec.bids == [0, 0, 3, 0]
    assert first_leader(rec) == 0                        # dealer+1 leads (A-HP-6)
    assert sum(rec.tricks) == 6 and not rec.voided


@vector("HP-auction-2")
def test_hp_auction_pass_is_final(vector_id):
    v, rec, script = run_hp({}, [0, 1, 2, 0, 3, 0])
    asks = auction_asks(script)
    # seat 0 passed first and is never asked again; the auction runs 1,2,3 until three passed
    assert [s for s, _ in asks] == [0, 1, 2, 3, 1, 2]
    assert rec.maker == 1 and rec.contract == 3


@vector("HP-auction-3")
def test_hp_auction_six_only_passes_follow(vector_id):
    v, rec, script = run_hp({}, [6, 0, 0, 0])
    assert [o for _, o in auction_asks(script)[1:]] == [[0], [0], [0]]
    assert rec.maker == 0 and rec.contract == 6
    assert v.legal_bids(6, [], high=6) == [0]
    assert v.legal_bids(6, [], high=0) == [0, 1, 2, 3, 4, 5, 6]
    assert v.legal_bids(6, [2, 4]) == [0, 5, 6]


@vector("HP-auction-4")
def test_hp_all_pass_joker_holder_bids_three(vector_id):
    v, rec, script = run_hp({}, [0, 0, 0, 0], joker_seat=2)
    assert rec.maker == 2 and rec.contract == 3 and rec.bids == [0, 0, 3, 0]
    assert not rec.voided and sum(rec.tricks) == 6


@vector("HP-auction-5")
def test_hp_all_pass_joker_in_widow_throws_in(vector_id):
    v, rec, script = run_hp({}, [0, 0, 0, 0])
    assert v.cards.names[rec.widow[0]] == "JOKER"
    assert rec.voided and rec.scores == [0, 0, 0, 0] and rec.maker is None
    assert not [k for k, _, _ in rec.decisions if k in (TRUMP, PLAY)]


@vector("HP-auction-6")
def test_hp_all_pass_redeal(vector_id):
    v, rec, script = run_hp({"all_pass": "redeal"}, [0, 0, 0, 0], joker_seat=1)
    assert rec.voided and rec.scores == [0, 0, 0, 0]


@pytest.mark.parametrize("minimum", [vec("HP-auction-7", 3), vec("HP-auction-7-min1", 1),
                                     vec("HP-auction-7-min6", 6)])
def test_hp_all_pass_stick_dealer(minimum):
    v, rec, script = run_hp({"all_pass": "stick_dealer", "stick_dealer_min": minimum},
                            [0, 0, 0, 0], joker_seat=1)
    assert rec.maker == 3 and rec.contract == minimum and v.ladder[minimum - 1].tricks == minimum


@vector("HP-auction-8")
def test_hp_pepper_ladder(vector_id):
    v = load("hasenpfeffer", 4, bidding_form="pepper")
    assert [(s.name, s.tricks, s.multiplier) for s in v.ladder] == [
        ("1", 1, 1), ("2", 2, 1), ("3", 3, 1), ("4", 4, 1), ("5", 5, 1),
        ("little_pepper", 6, 1), ("big_pepper", 6, 2)]
    assert v.legal_bids(6, [], high=0) == [0, 1, 2, 3, 4, 5, 6, 7]   # big pepper at any time
    assert v.legal_bids(6, [], high=6) == [0, 7]
    assert v.legal_bids(6, [], high=7) == [0]
    _, rec, _ = run_hp({"bidding_form": "pepper"}, [7, 0, 0, 0])
    assert rec.contract == 7 and rec.maker == 0


@vector("HP-auction-9")
def test_hp_widow_exchange(vector_id):
    # the maker may discard any card, including the widow card itself (the Joker here)
    v, rec, script = run_hp({}, [0, 4, 0, 0], discard=lambda d: 24)
    disc = [(k, s, o) for k, s, o in script.asked if k == DISCARD]
    assert len(disc) == 1 and disc[0][1] == 1 and len(disc[0][2]) == 7 and 24 in disc[0][2]
    assert [s for k, s, _ in script.asked if k == TRUMP] == [1]          # the maker names trump
    trumps = [o for k, _, o in script.asked if k == TRUMP][0]
    assert trumps == [0, 1, 2, 3]                                         # no NT by default
    assert sum(1 for k, s, _ in rec.decisions if k == PLAY and s == 1) == 6
    assert 24 not in [x[0] for k, _, x in rec.decisions if k == PLAY]
    assert rec.hands[1] == list(range(6, 12))                             # the dealt hand
    # keeping the widow card and discarding another
    v, rec, _ = run_hp({}, [0, 4, 0, 0], discard=lambda d: 6)
    played = [x[0] for k, s, x in rec.decisions if k == PLAY and s == 1]
    assert 24 in played and 6 not in played and len(played) == 6


@vector("HP-auction-10")
def test_hp_maker_leads_option(vector_id):
    _, rec, _ = run_hp({"maker_leads": True}, [0, 0, 2, 0])
    assert rec.maker == 2 and first_leader(rec) == 2
    _, rec, _ = run_hp({}, [0, 0, 2, 0])
    assert first_leader(rec) == 0


@vector("HP-auction-11")
def test_hp_going_alone_maker_only(vector_id):
    v, rec, script = run_hp({"allow_alone": True}, [0, 0, 2, 0],
                            alone=True, defend_alone=False)
    defenders_asked = [s for k, s, _ in script.asked if k == DEFEND_ALONE]
    assert defenders_asked == [3, 1]                  # clockwise from the maker's left
    assert rec.alone == 2
    assert first_leader(rec) == 3                     # the maker's left leads
    assert not [1 for k, s, _ in rec.decisions if k == PLAY and s == 0]   # partner sits out
    assert sum(rec.tricks) == 6 and rec.tricks[0] == 0
    assert rec.scores[0] == rec.scores[2] == 2 * (rec.tricks[2] if rec.tricks[2] >= 2 else -2)


@vector("HP-auction-12")
def test_hp_going_alone_both(vector_id):
    v, rec, script = run_hp({"allow_alone": True}, [0, 0, 2, 0], alone=True,
                            defend_alone=lambda d: d.seat == 1)
    assert [s for k, s, _ in script.asked if k == DEFEND_ALONE] == [3, 1]
    assert first_leader(rec) == 1                     # the lone defender leads
    players = {s for k, s, _ in rec.decisions if k == PLAY}
    assert players == {1, 2} and sum(rec.tricks) == 6


@vector("HP-auction-13")
def test_hp_pepper_is_alone(vector_id):
    v, rec, script = run_hp({"bidding_form": "pepper", "pepper_is_alone": True}, [0, 6, 0, 0])
    assert rec.alone == 1 and not [k for k, _, _ in script.asked if k == ALONE]
    assert {s for k, s, _ in rec.decisions if k == PLAY} == {0, 1, 2}
    mult = 2
    expected = 6 * mult if rec.tricks[1] == 6 else -6 * mult
    assert rec.scores[1] == rec.scores[3] == expected
    # a non-pepper bid is not alone
    _, rec, _ = run_hp({"bidding_form": "pepper", "pepper_is_alone": True}, [0, 5, 0, 0, 0])
    assert rec.alone is None and rec.contract == 5


# =====================================================================================
# §5 Kings and Fools
# =====================================================================================

KF_TRICKS = [
    vec("KF-1", "KH 5H FOOL 9H", 2, True),
    vec("KF-2", "KH 2S FOOL 3H", 1, False),
    vec("KF-3", "QD KS FOOL FOOL", 2, True),
    vec("KF-4", "7C 9C FOOL FOOL", 1, False),
    vec("KF-5", "FOOL 4H KH 2C", 0, True),
    vec("KF-6", "FOOL 3D 5S AS", 2, False),
    vec("KF-7", "AH 2H", 1, False),
    vec("KF-8", "FOOL FOOL", 0, False),
    vec("KF-9", "KD FOOL KS", 1, True),
    vec("KF-10", "KD QS FOOL", 1, False),
]


@pytest.mark.parametrize("trick,winner,fooled", KF_TRICKS)
def test_kings_and_fools_trick_winner(trick, winner, fooled):
    for players in range(max(2, len(trick.split())), 8):
        v = load("kings_and_fools", players)
        assert R.trick_winner(v, R.parse_trick(v, trick), v.trump_index("S")) == (winner, fooled)
        assert v.trick_winner(trick, "S") == winner


KF_LEGAL = [
    vec("L-KF-1", "9H", "2H FOOL 5S", "2H FOOL"),
    vec("L-KF-2", "FOOL 3S", "2H FOOL 5S", "5S FOOL"),
]


@pytest.mark.parametrize("trick,hand,legal", KF_LEGAL)
def test_kings_and_fools_legal_moves(trick, hand, legal):
    v = load("kings_and_fools", 4)
    assert sorted(v.legal_moves(hand, trick, "S")) == sorted(cards(legal))


KF_SCORES = [
    vec("KF-score-2/2/r3", 2, 2, 3, 0, False, 20),
    vec("KF-score-0/0/r5", 0, 0, 5, 0, False, 25),
    vec("KF-score-0/0/r1", 0, 0, 1, 0, False, 5),
    vec("KF-score-1/0/r1", 1, 0, 1, 0, False, 0),
    vec("KF-score-3/2/r4", 3, 2, 4, 0, False, 0),
    vec("KF-score-7/7/r7", 7, 7, 7, 0, False, 70),
    vec("KF-score-1/1/r4/k1", 1, 1, 4, 1, False, 20),
    vec("KF-score-0/1/r7/k1", 0, 1, 7, 1, False, 10),
    vec("KF-score-0/1/r7/k1-bonus_requires_exact", 0, 1, 7, 1, True, 0),
]


@pytest.mark.parametrize("bid,took,r,kings,exact_only,points", KF_SCORES)
def test_kings_and_fools_scores(bid, took, r, kings, exact_only, points):
    v = load("kings_and_fools", 4, bonus_requires_exact=exact_only)
    scores = v.score_hand([bid, 1, 1, 1], [took, 0, 0, 0], r,
                          {"kings_fooled": [kings, 0, 0, 0]})
    assert scores[0] == points


KF_HOOK = [
    vec("KF-hook-1", 4, [1, 2, 0], [0, 2, 3, 4]),
    vec("KF-hook-2", 1, [0, 0], [0]),
    vec("KF-hook-3", 3, [2, 2, 1], [0, 1, 2, 3]),
]


@pytest.mark.parametrize("r,others,legal", KF_HOOK)
def test_kings_and_fools_hook(r, others, legal):
    v = load("kings_and_fools", len(others) + 1)
    assert v.legal_bids(r, others, round_index=r - 1) == legal
    assert v.legal_bids(r, others) == legal
    # earlier bidders are free
    assert v.legal_bids(r, others[:-1], round_index=r - 1) == list(range(r + 1))


KF_DEALS = [vec(f"KF-deal-{n}p", n, dealt, undealt) for n, dealt, undealt in
            [(2, 14, 40), (3, 21, 33), (4, 28, 26), (5, 35, 19), (6, 42, 12), (7, 49, 5)]]


@pytest.mark.parametrize("players,dealt,undealt", KF_DEALS)
def test_kings_and_fools_deal(players, dealt, undealt):
    v = load("kings_and_fools", players)
    assert len(v.deck) == 54 and v.deck.count("FOOL") == 2
    assert v.schedule == (1, 2, 3, 4, 5, 6, 7) and v.trump_choices == ("S",)
    hands, widow, stock = deal(v, 7, random.Random(4))
    assert sum(map(len, hands)) == dealt and len(stock) == undealt and not widow


# =====================================================================================
# §5.10 classic Oh Hell
# =====================================================================================

OH_SCORING = [
    vec(f"OH-score-{name}-{b}/{t}", opts, b, t, p)
    for name, opts, results in [
        ("tricks_plus_ten", {}, [10, 12, 3, 1, 1]),                       # variant 2
        ("exact_only", {"scoring": "exact_only"}, [10, 12, 0, 0, 0]),     # variant 1
        ("reduced_zero", {"zero_bid": "reduced"}, [5, 12, 3, 1, 1]),      # variant 3
        ("adjusted_zero", {"zero_bid": "adjusted"}, [9, 12, 3, 1, 1]),    # variant 4: 5 + 4
    ]
    for (b, t), p in zip([(0, 0), (2, 2), (2, 3), (2, 1), (0, 1)], results, strict=True)
]


@pytest.mark.parametrize("opts,bid,took,points", OH_SCORING)
def test_oh_hell_scoring_variants(opts, bid, took, points):
    v = load("oh_hell", 4, **opts)
    assert v.score_hand([bid, 0, 0, 0], [took, 1, 0, 3 - took], 4)[0] == points


OH_SCHEDULES = [
    vec(f"OH-deal-{n}p-{trump}", n, trump, m)
    for n in range(3, 8)
    for trump, m in (("turn_up", 51 // n), ("spades", 52 // n))
]


@pytest.mark.parametrize("players,trump,peak", OH_SCHEDULES)
def test_oh_hell_schedule(players, trump, peak):
    v = load("oh_hell", players, trump=trump)
    assert len(v.deck) == 52 and "JOKER" not in v.deck
    assert list(v.schedule) == list(range(1, peak + 1)) + list(range(peak - 1, 0, -1))
    if trump == "turn_up":
        assert 52 - players * peak >= 1           # a card is left to turn up
    else:
        assert v.trump_choices == ("S",)


@pytest.mark.parametrize("schedule,expected", [
    vec("OH-schedule-down_up", "down_up", list(range(12, 0, -1)) + list(range(2, 13))),
    vec("OH-schedule-up", "up", list(range(1, 13))),
])
def test_oh_hell_schedule_shapes(schedule, expected):
    assert list(load("oh_hell", 4, schedule=schedule).schedule) == expected


@vector("OH-hook", "OH-play-trump", "OH-play-aces-high")
def test_oh_hell_hook_and_play(vector_id):
    v = load("oh_hell", 4)
    assert v.legal_bids(5, [1, 2, 0]) == [0, 1, 3, 4, 5]
    assert load("oh_hell", 4, hook=False).legal_bids(5, [1, 2, 0]) == list(range(6))
    assert v.trick_winner("AH KH 2S 3H", "S") == 2
    assert v.trick_winner("AH KH 2S 3H", "NT") == 0
    assert v.trick_winner("2H KH AD 3H", "C") == 1
    assert v.legal_moves("AH 2C", "3H", "S") == ["AH"]


def test_oh_hell_turn_up_trump_and_no_card_left():
    v = load("oh_hell", 4, max_hand=13)   # the whole deck is dealt at the peak
    rec = play_hand(v, 13, *deal(v, 13, random.Random(5)), [RandomPolicy(1)] * 4)
    assert rec.trump == 4                 # no card to turn up: no trump
    v = load("oh_hell", 4)
    hands, widow, stock = deal(v, 3, random.Random(6))
    rec = play_hand(v, 3, hands, widow, stock, [RandomPolicy(2)] * 4)
    assert rec.trump == v.cards.cards[stock[0]].suit


# =====================================================================================
# §6 Engine-level scenario checks
# =====================================================================================

def _game_tricks(g):
    return sum(sum(h.tricks) for h in g.hands if not h.voided)


SCENARIOS = [
    vec("S6-hoffer-4p", "hoffer", [4], {}, 11, 36),
    vec("S6-hoffer-3p", "hoffer", [3], {}, 15, 64),
    vec("S6-hoffer-2p", "hoffer", [2], {}, 15, 64),
    vec("S6-horseshoes", "horseshoes", [3, 4, 5, 6], {}, None, None),
    vec("S6-hyjack-base", "hyjack", [3, 4, 5, 6], {}, 7, 42),
    vec("S6-hyjack-countdown", "hyjack", [3, 4, 5, 6], {"countdown": True}, 14, 84),
    vec("S6-hyjack-7p-countdown", "hyjack", [7], {"countdown": True}, 10, 50),
    vec("S6-hasenpfeffer", "hasenpfeffer", [4], {}, None, None),
    vec("S6-kings-and-fools", "kings_and_fools", [2, 3, 4, 5, 6, 7], {}, 7, 28),
]


@pytest.mark.parametrize("name,counts,opts,rounds,tricks", SCENARIOS)
def test_scenarios(name, counts, opts, rounds, tricks):
    from _support import policies_for
    for n in counts:
        v = load(name, n, **opts)
        if rounds is not None:
            assert len(v.schedule) == rounds and sum(v.schedule) == tricks
        for seed in range(2):
            g = play_game(v, policies_for(v, seed), random.Random(seed))
            assert g.rounds == len(g.hands)
            if rounds is not None:
                assert g.rounds == rounds + g.tiebreak_rounds
                extra = sum(h.hand_size for h in g.hands[rounds:])
                assert _game_tricks(g) == tricks + extra
            elif name == "horseshoes":
                h = {3: 17, 4: 13, 5: 10, 6: 8}[n]
                assert all(sum(rec.tricks) == h for rec in g.hands)
                assert max(g.totals) >= 13 and all(
                    max(sum(r.scores[(s - d - 1) % n] for r, d in
                            zip(g.hands[:k], g.dealers[:k], strict=True)) for s in range(n)) < 13
                    for k in range(1, g.rounds))
            else:
                played = [rec for rec in g.hands if not rec.voided]
                assert all(sum(rec.tricks) == 6 for rec in played)
                assert all(rec.tricks == [0] * 4 for rec in g.hands if rec.voided)
                assert max(g.totals) >= 10 and g.winners


# =====================================================================================
# bookkeeping
# =====================================================================================

def test_vector_count():
    """The module docstring's count matches the registry of vector ids."""
    declared = int(re.search(r"vector cases: (\d+)", __doc__).group(1))
    assert len(set(VECTORS)) == len(VECTORS) == declared, len(VECTORS)
    for vid in ["HOF-1", "HOF-12", "L-HOF-4", "HS-6", "HS-S1", "HS-S2", "HJ-4", "L-HJ-3",
                "HJ-MB2", "HP-5", "L-HP-3", "KF-10", "L-KF-2", "S6-kings-and-fools"]:
        assert vid in VECTORS
