"""Per-card win estimates for the heuristic bidder, measured by simulation.

For a variant and hand size: deal and play hands with precision play and greedy bids under
every trump the rules let a player choose (or as dealt, for a turned-up or fixed trump), and
count, for every card, the tricks it took per hand it was dealt in. Each trick is taken by
exactly one card, so the sum over a hand estimates the tricks it takes. A fixed seed makes
the estimates, and so every bid made from them, reproducible.
"""

from __future__ import annotations

import threading

import numpy as np

from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.tables.bidder import get_card_rate, set_card_rate
from simulate.tables.compile import compile_tables

CALIBRATION_HANDS = 40_000
CALIBRATION_SEED = 0x5EED
MIN_DEALT = 200           # fewer observations than this keep the analytic weight
_lock = threading.Lock()


def calibrate_card_rates(v: Variant, hand_size: int) -> np.ndarray:
    """Fill (once) and return the tables' card_rate[hand_size]: float64[5, D]."""
    from simulate.hands.simulate import simulate_hands

    with _lock:
        cached = get_card_rate(v.canonical, hand_size)
        if cached is not None:
            return cached
        tables = compile_tables(v)
        dealt = np.zeros((5, len(v.cards)), np.int64)
        won = np.zeros((5, len(v.cards)), np.int64)
        forced: list[str | None] = [None]
        if v.trump_chooser in ("dealer", "first_bidder", "maker"):
            forced = list(v.trump_choices)
        for trump in forced:
            res = simulate_hands(v, hand_size, CALIBRATION_HANDS // len(forced),
                                 seed=CALIBRATION_SEED, play="precision", bid="greedy",
                                 trump=trump, keep="summary", card_stats=True, workers=1)
            dealt += res._summary[7]   # type: ignore[index]
            won += res._summary[8]     # type: ignore[index]
        rate = tables.win_weight[hand_size].copy()
        enough = dealt >= MIN_DEALT
        rate[enough] = won[enough] / dealt[enough]
        tables.card_rate[hand_size] = rate
        return set_card_rate(v.canonical, hand_size, rate)


def describe(v: Variant, hand_size: int) -> str:
    rate = calibrate_card_rates(v, hand_size)
    lines = []
    for t in range(5):
        if TRUMP_NAMES[t] not in v.trump_choices and v.trump_chooser != "turn_up":
            continue
        top = np.argsort(-rate[t])[:8]
        lines.append(f"{TRUMP_NAMES[t]:>2}: " + ", ".join(
            f"{v.cards.names[c]} {rate[t, c]:.2f}" for c in top))
    return "\n".join(lines)
