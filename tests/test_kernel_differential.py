"""The numba kernel against the reference engine: every kernel hand replayed move by move.

For every game at every allowed player count, at least 10,000 kernel hands per run (spread
over the schedule's hand sizes, random and greedy policies) are replayed by the reference
engine: every decision must be legal and in turn, and the tricks, events and scores must be
identical. Then the random-policy trick distributions of the two engines are compared with
a chi-square test at fixed seeds.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import chi2_contingency

import simulate as sim
from simulate.hands.simulate import simulate_hands
from simulate.reference.engine import RandomPolicy, replay_hand, simulate_hand

HANDS_PER_CONFIG = 10_000
POLICY_PAIRS = [("random", "random"), ("greedy", "greedy"), ("precision", "heuristic")]

PLAYER_COUNTS = {g: range(lo, hi + 1) for g in sim.shipped_variants()
                 for lo, hi in [sim.load_variant(g).player_range]}
OPTION_SETS = [
    ("hoffer", 4, {"partnership": True}),
    ("hoffer", 2, {"two_player_max": 13, "peak_twice": True}),
    ("hoffer", 3, {"trump_before_looking": True}),
    ("horseshoes", 5, {"face_up_leftovers": True}),
    ("horseshoes", 6, {"partnership": "triples", "jokers": 2, "breaking_trump": True,
                       "aces": "high_low", "stars": True}),
    ("horseshoes", 5, {"even_deal": True, "even_deal_five": "remove_twos",
                       "partnership": "off", "aces": "high_low"}),
    ("horseshoes", 4, {"partnership": "pairs", "breaking_trump": True}),
    ("hyjack", 7, {"countdown": True, "max_bet": True, "frilly_mode": "as_exact",
                   "beanie_mode": "lose_bonus", "hyjacker_anytime": True}),
    ("hyjack", 4, {"countdown": True, "max_bet": True, "max_bet_from": "below_peak",
                   "special_jacks": False}),
    ("hasenpfeffer", 4, {"bidding_form": "pepper", "allow_alone": True, "allow_no_trump": True,
                         "defenders_score_tricks": True, "maker_leads": True}),
    ("hasenpfeffer", 4, {"bidding_form": "pepper", "pepper_is_alone": True,
                         "all_pass": "stick_dealer"}),
    ("hasenpfeffer", 4, {"all_pass": "redeal"}),
    ("kings_and_fools", 4, {"bonus_requires_exact": True}),
    ("oh_hell", 4, {"scoring": "exact_only", "zero_bid": "adjusted", "trump": "spades"}),
    ("oh_hell", 5, {"schedule": "down_up", "zero_bid": "reduced", "hook": False}),
]
CONFIGS = [(g, n, {}) for g, counts in PLAYER_COUNTS.items() for n in counts] + OPTION_SETS


def _replay_all(v: sim.Variant, total: int, seed: int) -> int:
    """Replay `total` kernel hands over the schedule and both policies; return the count."""
    plan = [(r, h, play, bid) for r, h in enumerate(v.schedule) for play, bid in POLICY_PAIRS]
    per = max(1, total // len(plan) + 1)
    replayed = 0
    for r, h, play, bid in plan:
        res = simulate_hands(v, h, per, seed=seed + r, play=play, bid=bid, round_index=r,
                             workers=1)
        for i, rec in enumerate(res.traces(per)):
            problems = replay_hand(v, rec)
            assert not problems, \
                f"{v.canonical} round {r} ({h} cards, {play}+{bid}) hand {i}: {problems}"
            replayed += 1
    return replayed


# the fast lane keeps these (an auction with widow and thrown-in hands; a sequential game over
# a down-and-up schedule with a changed scoring); every other configuration is `slow`
FAST_CONFIGS = {"hasenpfeffer-4p-all_pass=redeal", "oh_hell-5p-schedule=down_up+zero_bid=reduced+hook=False"}
CONFIG_IDS = [f"{g}-{n}p-{'+'.join(f'{k}={v}' for k, v in o.items()) or 'default'}"
              for g, n, o in CONFIGS]


@pytest.mark.parametrize("game,players,options", [
    pytest.param(*c, id=i, marks=() if i in FAST_CONFIGS else pytest.mark.slow)
    for c, i in zip(CONFIGS, CONFIG_IDS, strict=True)])
def test_kernel_hands_replay_identically(game: str, players: int, options: dict) -> None:
    v = sim.load_variant(game, players=players, **options)
    total = HANDS_PER_CONFIG if not options else HANDS_PER_CONFIG // 4
    assert _replay_all(v, total, seed=11 * players) >= total


def test_replay_catches_a_tampered_kernel_hand() -> None:
    v = sim.load_variant("kings_and_fools", players=4)
    rec = simulate_hands(v, 5, 3, seed=1, play="random", bid="random").traces(1)[0]
    assert replay_hand(v, rec) == []
    plays = [i for i, d in enumerate(rec.decisions) if d[0] == "play"]
    # the last card played by a seat replaced by a card that seat never held
    kind, seat, (card, low) = rec.decisions[plays[-1]]
    foreign = next(c for c in range(len(v.cards)) if all(c not in h for h in rec.hands))
    rec.decisions[plays[-1]] = (kind, seat, (foreign, low))
    assert replay_hand(v, rec)
    rec2 = simulate_hands(v, 5, 3, seed=1, play="random", bid="random").traces(1)[0]
    rec2.scores[0] += 1
    assert any("scores" in p for p in replay_hand(v, rec2))


CHI_CONFIGS = [("oh_hell", 4, 7), ("kings_and_fools", 4, 5), ("hoffer", 3, 6),
               ("hyjack", 4, 6), ("horseshoes", 4, 13), ("hasenpfeffer", 4, 6)]


# the fast lane keeps Hasenpfeffer (an auction with thrown-in hands); the rest are `slow`
@pytest.mark.parametrize("game,players,hand_size", [
    pytest.param(*c, marks=() if c[0] == "hasenpfeffer" else pytest.mark.slow)
    for c in CHI_CONFIGS])
def test_random_trick_distributions_agree(game: str, players: int, hand_size: int) -> None:
    """Kernel and reference random play give the same trick distribution by seat."""
    v = sim.load_variant(game, players=players)
    kernel = simulate_hands(v, hand_size, 200_000, seed=5, play="random", bid="random",
                            keep="summary").counts.sum(axis=1)
    rng = random.Random(5)
    pols = [RandomPolicy(rng) for _ in range(players)]
    ref = np.zeros_like(kernel)
    for _ in range(6_000):
        rec = simulate_hand(v, hand_size, pols, rng)
        if rec.voided:
            continue
        for s in range(players):
            ref[s, rec.bids[s] * 0 + rec.tricks[s]] += 1
    for s in range(players):
        table = np.array([kernel[s], ref[s]])
        table = table[:, table.sum(axis=0) > 0]
        _, p, _, _ = chi2_contingency(table)
        assert p > 1e-3, f"{game} seat {s}: kernel {kernel[s]} vs reference {ref[s]} (p={p:.2g})"


def test_same_seed_same_results_for_any_chunking_and_threads() -> None:
    v = sim.load_variant("hyjack", players=5)
    base = simulate_hands(v, 8, 5_000, seed=42, workers=1, chunk_size=5_000).records
    for workers, chunk in ((2, 777), (2, 64), (1, 1_000)):
        other = simulate_hands(v, 8, 5_000, seed=42, workers=workers, chunk_size=chunk).records
        assert base.equals(other)
    assert not base.equals(simulate_hands(v, 8, 5_000, seed=43).records)


def test_summary_matches_records() -> None:
    v = sim.load_variant("hoffer", players=4)
    rec = simulate_hands(v, 5, 20_000, seed=9, keep="records")
    summ = simulate_hands(v, 5, 20_000, seed=9, keep="summary", chunk_size=3_000)
    assert np.array_equal(rec.counts, summ.counts)
    df = rec.records
    grouped = df.groupby(["seat", "bid", "tricks"]).score.agg(["size", "mean"]).reset_index()
    s = summ.summary
    assert np.array_equal(grouped["size"].to_numpy(), s["n"].to_numpy())
    assert np.allclose(grouped["mean"].to_numpy(), s["score_mean"].to_numpy())
    assert summ.trump_counts.sum() == 20_000


def test_fixed_hand_and_forced_trump() -> None:
    v = sim.load_variant("hoffer", players=4)
    res = simulate_hands(v, 5, 2_000, seed=3, fixed={2: "HIJO AS KS 9H 10D"}, trump="S")
    df = res.records
    seat2 = df[df.seat == 2]
    assert (seat2.cards == "9S AS KS 10D 9H HIJO").all() or \
        seat2.cards.nunique() == 1 and set(seat2.cards.iloc[0].split()) == \
        {"HIJO", "AS", "KS", "9H", "10D"}
    assert (df.trump == "S").all()
    others = df[df.seat != 2]
    assert not others.cards.str.contains("HIJO").any()
    for rec in res.traces(200):
        assert replay_hand(v, rec) == []


@pytest.mark.parametrize("kwargs,needle", [
    ({"hands": 0}, "hands"),
    ({"hands": -5}, "hands"),
    ({"play": "clever"}, "play policy"),
    ({"bid": "psychic"}, "bid policy"),
    ({"fixed": {0: "AS KS"}}, "2 cards given"),
    ({"fixed": {0: "AS KS QS JS 10S", 1: "AS KH QH JH 10H"}}, "more times"),
    ({"fixed": {7: "AS KS QS JS 10S"}}, "seat"),
    ({"fixed": {0: "AS KS QS JS 2S"}}, "not in this game's deck"),
    ({"trump": "X"}, "trump"),
    ({"keep": "everything"}, "keep"),
    ({"seed": -1}, "seed"),
])
def test_bad_simulation_input(kwargs: dict, needle: str) -> None:
    v = sim.load_variant("hoffer", players=4)
    args = {"hands": 10, **kwargs}
    with pytest.raises(sim.BidlabInputError, match=needle):
        simulate_hands(v, 5, **args)


def test_bad_hand_size_and_impossible_turn_up_trump() -> None:
    with pytest.raises(sim.BidlabInputError, match="cannot be dealt"):
        simulate_hands(sim.load_variant("hoffer", players=4), 7, 10)
    oh = sim.load_variant("oh_hell", players=4)
    with pytest.raises(sim.BidlabInputError, match="NT cannot be forced"):
        simulate_hands(oh, 5, 10, trump="NT")
    with pytest.raises(sim.BidlabInputError, match="no card of that suit"):
        simulate_hands(oh, 13, 10, trump="H")


def test_forced_turn_up_trump_conditions_the_deal() -> None:
    oh = sim.load_variant("oh_hell", players=4)
    res = simulate_hands(oh, 5, 3_000, seed=2, trump="H", fixed={0: "AH KH QH JH 10H"})
    df = res.records
    assert (df.trump == "H").all()
    traces = res.traces(300)
    for rec in traces:
        assert oh.cards.cards[rec.stock[0]].suit == 1   # the turned-up card is a heart
        assert replay_hand(oh, rec) == []
    # conditioning moves hearts out of the other hands: fewer than the unconditioned share
    others = df[df.seat != 0].cards.str.count("H(?: |$)").mean()
    free = simulate_hands(oh, 5, 3_000, seed=2, fixed={0: "AH KH QH JH 10H"}).records
    assert others < free[free.seat != 0].cards.str.count("H(?: |$)").mean()


def test_score_distribution_same_in_both_modes() -> None:
    v = sim.load_variant("kings_and_fools", players=4)
    rec = simulate_hands(v, 6, 20_000, seed=4).score_distribution()
    summ = simulate_hands(v, 6, 20_000, seed=4, keep="summary").score_distribution()
    assert rec.sort_values(["seat", "bid", "tricks", "score"]).reset_index(drop=True).equals(
        summ.sort_values(["seat", "bid", "tricks", "score"]).reset_index(drop=True).astype(
            rec.dtypes.to_dict()))
    assert summ.n.sum() == 4 * 20_000
    assert (summ.score >= 0).all()
    missed = summ[summ.bid != summ.tricks]
    assert (missed.score > 0).any()          # a missed bid still earns a fooled King's +10


def test_run_local_reduces_in_chunk_order_with_bounded_memory() -> None:
    from simulate.runner.backends import run_local

    seen: list[int] = []
    in_flight = {"now": 0, "max": 0}

    def work(i: int) -> int:
        in_flight["now"] += 1
        in_flight["max"] = max(in_flight["max"], in_flight["now"])
        try:
            return i
        finally:
            in_flight["now"] -= 1

    out = run_local(200, work, 2, reduce=seen.append)
    assert out == [] and seen == list(range(200))
    assert run_local(5, work, 2) == [0, 1, 2, 3, 4]
