"""Direct attribution by seat: the tricks a card itself takes per hand its seat held it.

The kernel's summary counts card_dealt and card_won by (trump, card) over every seat
(HandResults.card_rates). By seat, this reads the kernel's decision traces (run_traces, the
entry point HandResults.traces uses): the plays of a hand are its last decisions, one per
active seat per trick, and the seat that won a trick leads the next one, so the winner of
every trick but the last is the next trick's leader, and the last trick's winner is the seat
whose trick count is one more than the tricks it led into. The card a winner played is the
card that took the trick. Summed over seats, the counts equal the kernel's card_won (a test).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from simulate.hands.job import Job, make_job
from simulate.kernel.chunk import run_traces
from simulate.kernel.hand import H_SIZE, H_TRUMP, S_SIZE, S_TRICKS
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import MAX_EVENTS
from simulate.rules.variant import Variant
from simulate.runner.backends import run_local
from simulate.runner.plan import ChunkPlan
from simulate.tables import layout as L
from simulate.util.checks import worker_count
from simulate.util.stats import wilson

TRACE_CHUNK = 10_000


def is_trump(v: Variant, trump: str, card: str) -> bool:
    """Whether `card` belongs to the trump suit under `trump` (never under NT)."""
    t = TRUMP_NAMES.index(trump)
    return bool(t < 4 and v.eff_suit_table[t][v.deck.index(card)] == t)


def _count_chunk(job: Job, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(dealt, won) by [trump, seat, card] over hands start..start+count-1."""
    v, a = job.v, job.args()
    n, D, h = v.players, len(v.cards), a.hand_size
    scratch = job.scratch()
    width = scratch.trace.shape[0]      # room for every decision
    trace = np.zeros((count, width, 3), np.int64)
    ndec = np.zeros(count, np.int64)
    hout = np.zeros((count, H_SIZE), np.int64)
    sout = np.zeros((count, n, S_SIZE), np.int64)
    masks = np.zeros((count, n + 1), np.uint64)
    captured = np.zeros((count, MAX_EVENTS), np.int64)
    run_traces(a.P, a.tables, a.seed, np.arange(start, start + count, dtype=np.int64), h,
               a.constrained, a.fixed, a.forced_trump, a.play_pol, a.bid_pol, scratch, trace,
               ndec, hout, sout, masks, captured)
    dealt = np.zeros((5, n, D), np.int64)
    won = np.zeros((5, n, D), np.int64)
    bits = ((masks[:, :n, None] >> np.arange(D, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    trumps = hout[:, H_TRUMP]
    for t in np.unique(trumps):
        dealt[t] += bits[trumps == t].sum(axis=0)
    is_play = (trace[:, :, 0] == L.D_PLAY) & (np.arange(width)[None, :] < ndec[:, None])
    plays = is_play.sum(axis=1)
    for total in np.unique(plays[plays > 0]):     # voided hands play no card
        rows = np.flatnonzero(plays == total)
        k = int(total) // h                        # seats playing each trick
        cols = (ndec[rows] - total)[:, None] + np.arange(total)[None, :]
        p = trace[rows[:, None], cols]             # [hand, play, (kind, seat, value)]
        seats = p[:, :, 1].reshape(len(rows), h, k)
        cards = (p[:, :, 2] & 63).reshape(len(rows), h, k)
        winners = np.empty((len(rows), h), np.int64)
        winners[:, :-1] = seats[:, 1:, 0]
        led = np.zeros((len(rows), n), np.int64)
        np.add.at(led, (np.repeat(np.arange(len(rows)), h - 1), winners[:, :-1].ravel()), 1)
        winners[:, -1] = np.argmax(sout[rows, :, S_TRICKS] - led, axis=1)
        pos = np.argmax(seats == winners[:, :, None], axis=2)
        took = np.take_along_axis(cards, pos[:, :, None], axis=2)[:, :, 0]
        np.add.at(won, (np.repeat(trumps[rows], h), winners.ravel(), took.ravel()), 1)
    return dealt, won


def direct_by_seat(v: Variant, hand_size: int, deals: int, seed: int = 0,
                   play: str | Sequence[str] = "precision",
                   bid: str | Sequence[str] = "table", round_index: int | None = None,
                   workers: int | None = None) -> pd.DataFrame:
    """Direct attribution of deals 0..deals-1 (the same deals as simulate_hands with this
    seed and these policies, trump as the rules choose it): one row per (trump, seat, card)
    held at least once, with hands held, tricks it took, value = won / held and its 95%
    Wilson interval (a card is in one hand of a deal, so the deal is the unit). Seat 0 is
    the dealer's left, n - 1 the dealer; seat "all" pools the seats."""
    job = make_job(v, hand_size, deals, seed, play, bid, None, None, round_index)
    plan = list(ChunkPlan(deals, TRACE_CHUNK))
    n, D = v.players, len(v.cards)
    dealt = np.zeros((5, n, D), np.int64)
    won = np.zeros((5, n, D), np.int64)

    def add(part: tuple[np.ndarray, np.ndarray]) -> None:
        dealt[...] += part[0]
        won[...] += part[1]

    run_local(len(plan), lambda i: _count_chunk(job, *plan[i]), worker_count(workers),
              reduce=add)
    rows = []
    for t, s, c in zip(*np.nonzero(dealt), strict=True):
        rows.append((TRUMP_NAMES[t], str(s), v.cards.names[c], int(dealt[t, s, c]),
                     int(won[t, s, c])))
    for t, c in zip(*np.nonzero(dealt.sum(axis=1)), strict=True):
        rows.append((TRUMP_NAMES[t], "all", v.cards.names[c], int(dealt[t, :, c].sum()),
                     int(won[t, :, c].sum())))
    df = pd.DataFrame(rows, columns=["trump", "seat", "card", "held", "won"])
    df["is_trump"] = [is_trump(v, t, c) for t, c in zip(df["trump"], df["card"], strict=True)]
    lo, hi = wilson(df["won"].to_numpy(float), df["held"].to_numpy(float))
    df["value"] = df["won"] / df["held"]
    df["ci_low"], df["ci_high"] = lo, hi
    return df
