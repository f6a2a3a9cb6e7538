"""Card values: additive tricks per card, by trump."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import simulate as sim
from reports.analysis.card_values import card_values


@pytest.mark.slow
def test_values_add_up_to_the_mean_tricks_and_rank_sensibly() -> None:
    v = sim.load_variant("hoffer", players=4)
    records = sim.simulate_hands(v, 4, 60_000, seed=1, trump="H").records
    cv = card_values(records, v).set_index("card")
    assert np.isclose((cv.value * cv.held).sum() / len(records), records.tricks.mean())
    assert cv.loc["HIJO", "value"] > 0.9                    # the HiJo takes its trick
    assert cv.loc["LOJO", "value"] < 0.05                   # the LoJo never does
    assert cv.loc["JH", "value"] > cv.loc["AH", "value"] > cv.loc["9H", "value"]
    assert cv.loc["JD", "is_trump"] and not cv.loc["JC", "is_trump"]   # Little Jack is a trump
    assert (cv.ci_low <= cv.value).all() and (cv.value <= cv.ci_high).all()


def test_exact_fit_on_a_constructed_table() -> None:
    """Hands whose tricks are exactly the sum of known card values are fitted exactly."""
    v = sim.load_variant("kings_and_fools", players=4)
    rng = np.random.default_rng(0)
    truth = rng.uniform(0, 1, len(v.cards))
    masks, tricks = [], []
    for _ in range(3_000):
        cards = rng.choice(len(v.cards), 3, replace=False)
        masks.append(np.uint64(sum(1 << int(c) for c in cards)))
        tricks.append(truth[cards].sum())
    df = pd.DataFrame({"trump": "S", "mask": np.array(masks, dtype=np.uint64),
                       "tricks": tricks})
    cv = card_values(df, v)
    names = list(v.cards.names)
    for row in cv.itertuples():
        # the two Fools are the same card: their values are shared between the copies
        if row.card != "FOOL":
            assert abs(row.value - truth[names.index(row.card)]) < 1e-6
