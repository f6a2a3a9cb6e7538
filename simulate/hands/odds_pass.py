"""The one-pass bid odds driver: every candidate bid of one seat on each deal, summed.

Both the bid odds of a hand (simulate.hands.odds) and the held-out check of a cheat sheet
(simulate.hands.sheet_check) play deals through the kernel's run_odds and keep the same
sums: per group (the sum of the earlier bids, capped) and bid the trick counts, score sums
and squares, and for every pair of bids the deals both counted on with the sum of their
score difference and its square. Chunks run on local threads and are added in chunk order;
the sums are of integer scores, so how deals are cut into chunks never changes a result.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from simulate.hands.job import Job
from simulate.kernel.odds import run_odds
from simulate.runner.backends import run_local
from simulate.runner.plan import ChunkPlan
from simulate.util.checks import worker_count

ODDS_CHUNK = 8192


class OddsSums:
    """Per-group, per-bid sums over deals, plus paired sums over the deals two bids share
    (the arrays run_odds fills, in its argument order)."""

    def __init__(self, groups: int, bids: int, hand_size: int) -> None:
        self.counts = np.zeros((groups, bids, hand_size + 1), np.int64)
        self.sums = np.zeros((groups, bids), np.float64)
        self.squares = np.zeros((groups, bids), np.float64)
        self.npair = np.zeros((groups, bids, bids), np.int64)
        self.dsum = np.zeros((groups, bids, bids), np.float64)
        self.dsq = np.zeros((groups, bids, bids), np.float64)
        self.seen = np.zeros(2 + groups, np.int64)

    def parts(self) -> tuple[np.ndarray, ...]:
        """The arrays in the kernel's argument order."""
        return (self.counts, self.sums, self.squares, self.npair, self.dsum, self.dsq,
                self.seen)

    def add(self, other: OddsSums) -> None:
        """Add another chunk's sums into these."""
        for total, piece in zip(self.parts(), other.parts(), strict=True):
            total += piece

    @property
    def dealt(self) -> int:
        """Deals dealt so far."""
        return int(self.seen[0])

    @property
    def accepted(self) -> int:
        """Deals that met every condition so far."""
        return int(self.seen[1])

    def paired(self, g: int, k: int, best: int) -> tuple[int, float, float]:
        """(shared deals, mean of score_k - score_best, its standard error) in group g."""
        if k == best:
            return int(self.counts[g, k].sum()), 0.0, 0.0
        a, b, sign = (k, best, 1.0) if k < best else (best, k, -1.0)
        m = int(self.npair[g, a, b])
        if m < 1:
            return m, math.nan, math.nan
        d = sign * float(self.dsum[g, a, b]) / m
        sd = math.sqrt(max(float(self.dsq[g, a, b]) / m - d * d, 0.0))
        return m, d, (sd / math.sqrt(m - 1) if m > 1 else math.nan)


def play_odds(base: Job, seat: int, side: np.ndarray, bids: np.ndarray, active: np.ndarray,
              earlier: np.ndarray, before: np.ndarray, want_trump: int, start: int, count: int,
              acc: OddsSums, workers: int | None,
              tick: Callable[[], None] | None = None) -> None:
    """Play deals start..start+count-1 of `base`'s job, each once per active bid, adding into
    acc (chunk order). seat: whose bid is forced; side: the seats whose tricks count;
    active[g, k]: bid k is tried in group g; earlier, before, want_trump: the conditions
    (see simulate.kernel.odds.run_odds). tick(): called after each chunk is added into acc;
    an exception it raises stops the run (chunks not started are dropped)."""
    args = base.args()
    # small batches are cut finer so every worker has work
    n_workers = worker_count(workers)
    size = min(ODDS_CHUNK, max(1024, -(-count // (2 * n_workers))))
    plan = [(start + a, c) for a, c in ChunkPlan(count, size)]

    def work(i: int) -> OddsSums:
        first, n = plan[i]
        part = OddsSums(active.shape[0], len(bids), args.hand_size)
        run_odds(args.P.copy(), args.tables, args.seed, first, n, args.hand_size,
                 args.constrained, args.fixed, args.forced_trump, args.play_pol, args.bid_pol,
                 base.scratch(), seat, side, bids, active, earlier, before, want_trump,
                 np.zeros(len(bids)), *part.parts())
        return part

    run_local(len(plan), work, n_workers, reduce=acc.add,
              progress=None if tick is None else (lambda i: tick()))
