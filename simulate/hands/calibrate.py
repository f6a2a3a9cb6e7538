"""Per-card win estimates for the heuristic bidder, measured by simulation.

For a variant and hand size: deal and play hands with precision play and greedy bids under
every trump the rules let a player choose (or as dealt, for a turned-up or fixed trump), and
count, for every card, the tricks it took per hand it was dealt in. Each trick is taken by
exactly one card, so the sum over a hand estimates the tricks it takes. A fixed seed makes
the estimates, and so every bid made from them, reproducible.

The calibration jobs are built by simulate.hands.job (which calls this module when a job
needs the rates), so the dependency runs one way: job -> calibrate -> chunks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from simulate.hands.chunks import run_summary_chunk
from simulate.rules.variant import Variant
from simulate.runner.plan import DEFAULT_CHUNK, ChunkPlan
from simulate.tables.bidder import get_card_rate, set_card_rate
from simulate.tables.compile import compile_tables

if TYPE_CHECKING:
    from simulate.hands.job import Job

CALIBRATION_HANDS = 40_000
CALIBRATION_SEED = 0x5EED
MIN_DEALT = 200           # fewer observations than this keep the analytic weight
_lock = threading.Lock()

JobsFor = Callable[[Variant, int], Sequence["Job"]]


def count_card_stats(job: Job) -> tuple[np.ndarray, np.ndarray]:
    """(dealt, won) per [trump, card] over the job's hands, in chunks on this thread."""
    dealt = won = None
    for start, count in ChunkPlan(job.config.hands, DEFAULT_CHUNK):
        part = run_summary_chunk(job, start, count, card_stats=True)
        dealt = part.card_dealt if dealt is None else dealt + part.card_dealt
        won = part.card_won if won is None else won + part.card_won
    assert dealt is not None and won is not None
    return dealt, won


def calibrate_card_rates(v: Variant, hand_size: int, jobs_for: JobsFor) -> np.ndarray:
    """Fill (once) and return the tables' card_rate[hand_size]: float64[5, D].

    jobs_for(v, hand_size): the calibration jobs (simulate.hands.job.calibration_jobs);
    callers use simulate.hands.job.card_rates, which passes it."""
    with _lock:
        # compile first: it loads a trained file's rates, which must not be measured again
        # (the file's bid table was trained on its own rates' hand classes)
        tables = compile_tables(v)
        cached = get_card_rate(v.canonical, hand_size)
        if cached is not None:
            return cached
        dealt = np.zeros((5, len(v.cards)), np.int64)
        won = np.zeros((5, len(v.cards)), np.int64)
        for job in jobs_for(v, hand_size):
            job_dealt, job_won = count_card_stats(job)
            dealt += job_dealt
            won += job_won
        rate = tables.win_weight[hand_size].copy()
        enough = dealt >= MIN_DEALT
        rate[enough] = won[enough] / dealt[enough]
        tables.card_rate[hand_size] = rate
        return set_card_rate(v.canonical, hand_size, rate)
