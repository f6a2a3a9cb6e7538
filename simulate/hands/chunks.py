"""One chunk of hands in the kernel, and the arrays it fills.

A chunk is (first hand index, count). Hands draw from streams keyed by their own index, so
chunk size and thread count never change a result; merging sums integers (summaries) or
concatenates in hand order (records).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from simulate.errors import BidlabInputError
from simulate.kernel.chunk import run_records, run_summary
from simulate.kernel.hand import H_SIZE, S_SIZE
from simulate.rules.codes import MAX_EVENTS, NT
from simulate.tables import layout as L
from simulate.tables.compile import RuleTables

if TYPE_CHECKING:
    from simulate.hands.job import Job

MAX_HISTOGRAM_CELLS = 1 << 23   # 64 MB of int64; the widest shipped game needs under 1M

Shapes = tuple[tuple[tuple[int, ...], str], ...]


class SummaryArrays(NamedTuple):
    """Running summaries of hands (int64 sums: merging chunks is exact), in kernel order."""

    counts: np.ndarray       # [seat, bid, tricks] hands (voided hands not counted)
    score_sum: np.ndarray    # [seat, bid, tricks] sum of scores
    score_sq: np.ndarray     # [seat, bid, tricks] sum of squared scores
    score_hist: np.ndarray   # [seat, bid, tricks, score - lowest score] hands
    trumps: np.ndarray       # [trump] hands
    events: np.ndarray       # [0 = fooled kings, 1 + event, seat]
    contracts: np.ndarray    # [contract step] hands (0: voided)
    card_dealt: np.ndarray   # [trump, card] hands the card was dealt in (card_stats)
    card_won: np.ndarray     # [trump, card] tricks the card took (card_stats)


class RecordArrays(NamedTuple):
    """Every hand's kernel outputs, one row per hand."""

    hand_out: np.ndarray     # [hand, H_*]
    seat_out: np.ndarray     # [hand, seat, S_*]
    masks: np.ndarray        # [hand, seat or widow] dealt cards
    captured: np.ndarray     # [hand, event] seat that captured it, or -1


def score_range(t: RuleTables) -> tuple[int, int]:
    """(lowest, highest) score a seat can make in one hand under these tables."""
    P = t.P
    mult = int(max(1, t.ladder[:, 1].max() if len(t.ladder) else 1)) * int(max(1, P[L.ALONE_MULT]))
    tables = [t.score, t.lose_bonus, t.as_exact, t.all_exact, t.defenders]
    lo = min(0, min(int(x.min()) for x in tables)) * mult
    hi = max(int(x.max()) for x in tables) * mult
    hi += int(P[L.FOOL_POINTS]) * int(P[L.MAX_HAND])
    hi += sum(max(0, int(P[L.EVENT0 + 3 * e + 2])) for e in range(int(P[L.N_EVENTS])))
    return lo, hi


def summary_shapes(job: Job) -> Shapes:
    """(shape, dtype) of each summary array: what a saved chunk must hold."""
    v = job.v
    P = job.tables.P
    n, B, H = v.players, int(P[L.MAX_BID]), int(P[L.MAX_HAND])
    smin, smax = score_range(job.tables)
    width = smax - smin + 1
    cells = n * (B + 1) * (H + 1) * width
    if cells > MAX_HISTOGRAM_CELLS:
        # every chunk holds one score histogram: a rules file with huge scores must not
        # allocate gigabytes per chunk
        raise BidlabInputError(
            f"{v.canonical}: scores range from {smin} to {smax}, too wide for a summary's score "
            f"histogram ({cells:,} cells, at most {MAX_HISTOGRAM_CELLS:,}); keep records "
            "instead or use smaller score values")
    D = len(v.cards)
    shapes = ((n, B + 1, H + 1), (n, B + 1, H + 1), (n, B + 1, H + 1), (n, B + 1, H + 1, width),
              (NT + 1,), (1 + MAX_EVENTS, n), (len(v.ladder) + 1,), (NT + 1, D), (NT + 1, D))
    return tuple((shape, "int64") for shape in shapes)


def records_shapes(job: Job, count: int) -> Shapes:
    """(shape, dtype) of each records array for `count` hands."""
    n = job.v.players
    return (((count, H_SIZE), "int64"), ((count, n, S_SIZE), "int64"),
            ((count, n + 1), "uint64"), ((count, MAX_EVENTS), "int64"))


def empty_summary(job: Job) -> SummaryArrays:
    """Zeroed summary arrays for this job."""
    return SummaryArrays(*(np.zeros(shape, dtype) for shape, dtype in summary_shapes(job)))


def run_summary_chunk(job: Job, start: int, count: int,
                      card_stats: bool = False) -> SummaryArrays:
    """Summary arrays of hands start..start+count-1 (sums of int64: merging is exact);
    card_stats also counts how often each card was dealt and took a trick, by trump."""
    acc = empty_summary(job)
    smin = score_range(job.tables)[0]
    a = job.args()
    run_summary(a.P, a.tables, a.seed, start, count, a.hand_size, a.constrained, a.fixed,
                a.forced_trump, a.play_pol, a.bid_pol, job.scratch(),
                acc.counts, acc.score_sum, acc.score_sq, acc.score_hist, smin, acc.trumps,
                acc.events, acc.contracts, card_stats, acc.card_dealt, acc.card_won)
    return acc


def run_records_chunk(job: Job, start: int, count: int) -> RecordArrays:
    """(hand outputs, seat outputs, dealt masks, captures) of hands start..start+count-1."""
    out = RecordArrays(*(np.empty(shape, dtype) for shape, dtype in records_shapes(job, count)))
    a = job.args()
    run_records(a.P, a.tables, a.seed, start, count, a.hand_size, a.constrained, a.fixed,
                a.forced_trump, a.play_pol, a.bid_pol, job.scratch(), *out)
    return out
