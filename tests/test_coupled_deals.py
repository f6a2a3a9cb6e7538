"""Coupled deals of whole games (issue 15): every configuration deals from one shuffle of
the union of the decks, keyed by (seed, game, round, seat), so a deck change or a schedule
change keeps each seat's cards wherever both decks hold them; the deal stays uniform."""

from __future__ import annotations

import numpy as np
from scipy import stats

import simulate as sim
from simulate.games.job import card_ids, make_game_job
from simulate.games.replay import kernel_game_records
from simulate.kernel import game as K
from simulate.kernel.deal import deal_coupled


def _hands(v: sim.Variant, games: int, seed: int = 3) -> list[list[list[list[str]]]]:
    """Per game, per hand, per absolute seat: the card names dealt (policy: greedy)."""
    job = make_game_job(v, games, seed, "greedy+greedy", 2)
    out = []
    for g in range(games):
        _, recs = kernel_game_records(job, g)
        game = []
        for k, rec in enumerate(recs):
            seats: list[list[str]] = [[] for _ in range(v.players)]
            for s in range(v.players):
                seats[(k + s) % v.players] = sorted(v.deck[c] for c in rec.hands[s])
            game.append(seats)
        out.append(game)
    return out


def test_a_deck_change_keeps_every_card_both_decks_hold() -> None:
    """Horseshoes, 5 players, two jokers added: the first seat to take its cards (absolute
    seat 0) holds in A exactly its B cards less the jokers, plus one card per joker; and
    across all seats most cards stay where they were."""
    a = sim.load_variant("horseshoes", players=5)
    b = sim.load_variant("horseshoes", players=5, jokers=2)
    ha, hb = _hands(a, 6), _hands(b, 6)
    shared = total = 0
    for ga, gb in zip(ha, hb, strict=True):
        for sa, sb in zip(ga, gb, strict=False):      # the rounds both games played
            jokers = sb[0].count("JOKER")
            plain = set(sb[0]) - {"JOKER"}
            assert plain <= set(sa[0])
            assert len(sa[0]) - len(plain) == jokers
            for s in range(5):
                shared += len(set(sa[s]) & set(sb[s]))
                total += len(sa[s])
    assert shared / total > 0.8, shared / total


def test_a_schedule_change_deals_the_same_round_alike() -> None:
    """Hoffer with the peak played twice: every round of a hand size the shipped schedule
    also plays (the same occurrence of that size) deals each seat the same cards."""
    a = sim.load_variant("hoffer")
    b = sim.load_variant("hoffer", peak_twice=True)
    ja, jb = make_game_job(a, 4, 1, "greedy+greedy", 2), make_game_job(b, 4, 1, "greedy+greedy", 2)
    for g in range(4):
        _, ra = kernel_game_records(ja, g)
        _, rb = kernel_game_records(jb, g)
        by_round_a = _by_round(a, ra)
        by_round_b = _by_round(b, rb)
        common = set(by_round_a) & set(by_round_b)
        assert len(common) >= len(a.schedule)
        for key in common:
            assert by_round_a[key] == by_round_b[key], (g, key)


def _by_round(v: sim.Variant, recs: list) -> dict[tuple[int, int], list[frozenset[str]]]:
    """(hand size, occurrence) → cards by absolute seat."""
    seen: dict[int, int] = {}
    out = {}
    for k, rec in enumerate(recs):
        h = len(rec.hands[0])
        occ = seen.get(h, 0)
        seen[h] = occ + 1
        seats = [frozenset()] * v.players
        for s in range(v.players):
            seats[(k + s) % v.players] = frozenset(v.deck[c] for c in rec.hands[s])
        out[(h, occ)] = seats
    return out


def test_the_coupled_deal_is_uniform() -> None:
    """Each card lands in each seat's hand (or stays undealt) equally often: chi-square
    over 12,000 deals of 3 seats x 4 cards from Hoffer's 26 cards, and no two seats share
    a card."""
    v = sim.load_variant("hoffer")
    ids = card_ids(v)
    D, n, h = len(v.deck), 3, 4
    counts = np.zeros((n + 1, D), np.int64)
    fixed = np.zeros(n, np.uint64)
    kbuf, cbuf = np.zeros(64, np.uint64), np.zeros(64, np.int64)
    abs_of = np.arange(n, dtype=np.int64)
    for key in range(12_000):
        deal_coupled(np.uint64(5), key, ids, D, n, abs_of, n, h, False, fixed, kbuf, cbuf)
        seen = 0
        for s in range(n):
            m = int(fixed[s])
            assert bin(m).count("1") == h and not (m & seen)
            seen |= m
            for c in range(D):
                counts[s, c] += (m >> c) & 1
        for c in range(D):
            counts[n, c] += 1 - ((seen >> c) & 1)
    for s in range(n):
        assert stats.chisquare(counts[s]).pvalue > 1e-4, counts[s]
    assert stats.chisquare(counts[n]).pvalue > 1e-4


def test_turned_up_card_is_coupled_and_kernel_games_replay() -> None:
    """Oh Hell: the turn-up draws like a seat of its own, so the same round of two
    configurations with the same deck turns up the same card; the traced games replay."""
    a = sim.load_variant("oh_hell")
    b = sim.load_variant("oh_hell", zero_bid="adjusted")
    ja, jb = make_game_job(a, 2, 9, "greedy+greedy", 2), make_game_job(b, 2, 9, "greedy+greedy", 2)
    for g in range(2):
        _, ra = kernel_game_records(ja, g)
        _, rb = kernel_game_records(jb, g)
        assert [r.trump for r in ra] == [r.trump for r in rb]
        assert [r.hands for r in ra] == [r.hands for r in rb]
    rows, _ = ja.run(0, 2)
    assert (rows[:, K.C_HANDS] == len(a.schedule)).all()
