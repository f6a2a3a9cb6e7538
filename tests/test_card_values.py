"""Card values: tricks a hand takes more holding a card instead of a reference card, by
trump, with cluster-robust intervals and the fit's R²."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import simulate as sim
from reports.analysis.card_values import card_values


@pytest.mark.slow
def test_values_relative_to_a_reference_card_rank_sensibly() -> None:
    v = sim.load_variant("hoffer", players=4)
    records = sim.simulate_hands(v, 4, 60_000, seed=1, trump="H").records
    cv = card_values(records, v, policies="precision+table").set_index("card")
    ref = cv.reference.iloc[0]
    assert ref == "9S" and cv.loc[ref, "value"] == 0       # the lowest side-suit card
    assert cv.loc["HIJO", "value"] > 0.9                    # the HiJo takes its trick
    assert cv.loc["LOJO", "value"] < 0.05                   # the LoJo never does
    assert cv.loc["JH", "value"] > cv.loc["AH", "value"] > cv.loc["9H", "value"]
    assert cv.loc["JD", "is_trump"] and not cv.loc["JC", "is_trump"]   # Little Jack is a trump
    rest = cv.drop(index=ref)
    assert (rest.ci_low < rest.value).all() and (rest.value < rest.ci_high).all()
    assert 0.2 < cv.r2.iloc[0] < 1 and (cv.policies == "precision+table").all()
    # the level plus the values reproduce the mean tricks (least squares with an intercept)
    mean = cv.level.iloc[0] + (cv.value * cv.held).sum() / len(records)
    assert np.isclose(mean, records.tricks.mean())


def _table(v: sim.Variant, truth: np.ndarray, noise: float, deals: int, seed: int
           ) -> pd.DataFrame:
    """Three-card hands, four seats a deal, tricks = the sum of the cards' true values."""
    rng = np.random.default_rng(seed)
    masks, tricks, deal = [], [], []
    for d in range(deals):
        cards = rng.choice(len(v.cards), 12, replace=False).reshape(4, 3)
        shared = rng.normal(0, noise)          # a deal effect every seat of it shares
        for hand in cards:
            masks.append(np.uint64(sum(1 << int(c) for c in hand)))
            tricks.append(truth[hand].sum() + shared)
            deal.append(d)
    return pd.DataFrame({"trump": "S", "mask": np.array(masks, dtype=np.uint64),
                         "tricks": tricks, "deal": deal})


def test_exact_fit_on_a_constructed_table() -> None:
    """Hands whose tricks are exactly the sum of known card values give the differences to
    the reference card exactly, and R² = 1."""
    v = sim.load_variant("oh_hell", players=4)
    truth = np.random.default_rng(0).uniform(0, 1, len(v.cards))
    cv = card_values(_table(v, truth, 0.0, 3_000, 1), v).set_index("card")
    ref = v.deck.index(cv.reference.iloc[0])
    for name, row in cv.iterrows():
        assert abs(row.value - (truth[v.deck.index(name)] - truth[ref])) < 1e-6
    assert np.isclose(cv.r2.iloc[0], 1.0)
    assert np.isclose(cv.level.iloc[0], 3 * truth[ref])


def test_cluster_robust_intervals_cover_a_shared_deal_effect() -> None:
    """A noise term shared by the four seats of a deal: the deal-clustered intervals cover
    the truth about as often as they should (here: every card but a handful of 51)."""
    v = sim.load_variant("oh_hell", players=4)
    truth = np.random.default_rng(2).uniform(0, 1, len(v.cards))
    cv = card_values(_table(v, truth, 1.0, 4_000, 3), v).set_index("card")
    ref = v.deck.index(cv.reference.iloc[0])
    rest = cv.drop(index=cv.reference.iloc[0])
    want = np.array([truth[v.deck.index(c)] - truth[ref] for c in rest.index])
    covered = ((rest.ci_low <= want) & (want <= rest.ci_high)).mean()
    assert covered > 0.85, covered
    assert 0 < cv.r2.iloc[0] < 0.5


def test_direct_attribution_adds_up_to_the_tricks() -> None:
    """The tricks each card itself took per hand held, from the kernel's counts: the HiJo
    takes every trick it is in, the LoJo none, and the values of all cards held add up to
    every trick played (h per deal)."""
    from reports.analysis.card_values import direct_card_values

    v = sim.load_variant("hoffer", players=4)
    res = sim.simulate_hands(v, 3, 20_000, seed=2, trump="S", keep="summary",
                             card_stats=True, workers=1)
    dv = direct_card_values(res.card_rates(), v, policies="precision+table").set_index("card")
    assert dv.loc["HIJO", "value"] == 1.0 and dv.loc["LOJO", "value"] == 0.0
    assert dv.loc["JS", "is_trump"] and dv.loc["JC", "is_trump"] and not dv.loc["JD", "is_trump"]
    assert (dv.won.sum()) == 3 * 20_000                      # one winning card per trick
    assert (dv.ci_low <= dv.value + 1e-9).all() and (dv.value <= dv.ci_high + 1e-9).all()
    assert dv.loc["JS", "value"] > dv.loc["AS", "value"] > dv.loc["9H", "value"]


def test_fit_helpers_equal_their_plain_forms() -> None:
    """The fit's fast helpers give what the plain forms give: bits unpacked bytewise equal
    shifting each mask by every card index, and the cluster sums (by a reshape when every
    deal has as many rows, else by reduceat) equal a sum over each cluster's rows."""
    from reports.analysis.card_values import _bits, _cluster_sums

    rng = np.random.default_rng(7)
    masks = rng.integers(0, 2**63, 500, dtype=np.uint64) | np.uint64(1 << 63)
    for D in (24, 52, 54, 64):
        plain = (masks[:, None] >> np.arange(D, dtype=np.uint64)) & np.uint64(1)
        assert np.array_equal(_bits(masks, D), plain.astype(np.uint8))
    values = rng.normal(size=(12, 3))
    even = np.array([0, 4, 8])                  # three deals of four seats
    uneven = np.array([0, 3, 4, 9])             # a seat sat out, or a truncated table
    for starts in (even, uneven):
        ends = [*starts[1:], len(values)]
        want = np.array([values[a:b].sum(axis=0) for a, b in zip(starts, ends, strict=True)])
        assert np.allclose(_cluster_sums(values, starts), want, rtol=0, atol=1e-12)


def test_group_sums_equal_a_bincount_per_column() -> None:
    """simulate.util.stats.group_sums: NaN counts as 0, and each (group, column) sum is the
    per-column bincount's to the last bit (the same additions in the same order)."""
    from simulate.util.stats import group_sums

    rng = np.random.default_rng(3)
    values = rng.normal(size=(1_000, 6)) * 1e3
    values[rng.random(values.shape) < 0.1] = np.nan
    groups = rng.integers(0, 17, len(values))
    clean = np.where(np.isnan(values), 0.0, values)
    want = np.stack([np.bincount(groups, weights=clean[:, k], minlength=20)
                     for k in range(values.shape[1])], axis=1)
    got = group_sums(values, groups, 20)
    assert got.shape == (20, 6) and np.array_equal(got, want)
    ints = rng.integers(0, 5, size=(1_000, 2))
    assert np.array_equal(group_sums(ints, groups, 17),
                          group_sums(ints.astype(np.float64), groups, 17))
