"""Forced-bid evaluation: every candidate bid of one seat played on the same deals.

This is the one source of every "best bid" bidlab prints for a class of hands (class tables,
cheat sheets). For a seat, the same `deals` deals are played once per candidate bid with
that seat's bid forced (the kernel's override slots) and everyone else on their policies.
Hands draw their random numbers from streams keyed by (seed, hand, purpose), so the deal,
the bids before the focal seat and every choice that does not depend on the forced bid are
the same for every candidate (common random numbers): the difference between two bids on
a deal is the consequence of the bid alone, and cell means are compared by paired
differences. A bid the rules forbid on a deal (the dealer's hook, Max Bet) is recorded as
not played there (NaN), never scored on another bid's outcome.

In an auction game (Hasenpfeffer) the candidates are the contract steps, each played as if
the seat had won the auction with it; "exact" then means the contract was made.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.hands.classes import class_columns, sheet_features
from simulate.hands.job import Job, make_job
from simulate.kernel.chunk import run_forced
from simulate.rules.play import legal_bids
from simulate.rules.variant import Variant
from simulate.runner.backends import LocalBackend
from simulate.runner.plan import ChunkPlan
from simulate.tables import layout as L
from simulate.util.checks import positive_int
from simulate.util.stats import group_sums


@dataclass(frozen=True)
class ForcedRun:
    """One seat's candidate bids played on the same deals (arrays are one row per deal)."""

    variant: str               # the variant's canonical string
    hand_size: int
    seat: int                  # 0 = the dealer's left, n-1 = the dealer
    seed: int
    bids: np.ndarray           # int64[B] candidate bids (contract steps in an auction)
    scores: np.ndarray         # float64[N, B] the seat's score per bid; NaN where forbidden
    exact: np.ndarray          # bool[N, B] bid exactly made (auction: contract made)
    masks: np.ndarray          # uint64[N] the seat's hand
    trumps: np.ndarray         # int64[N] the deal's trump (4 = no trump), as for the first bid
    prev: np.ndarray           # int64[N] sum of the bids this seat heard (0 if none)
    earlier: tuple[int, ...]   # the seats whose bids this one hears, in order (none when
                               # bids are simultaneous or in an auction)
    better_low: bool           # lower scores win (Horseshoes)
    auction: bool
    constrained: bool = False  # the bid constraint (hook, Max Bet) applies in this round
    raced: np.ndarray | None = None  # bool[N, B] not played there: raced out in the deal's
                               # cell (forced_run(race=True)); its score holds the cell's mean
                               # over the first deals, and exact is False

    @property
    def deals(self) -> int:
        """Deals played (each once per candidate bid)."""
        return int(self.scores.shape[0])

    def signed(self) -> np.ndarray:
        """Scores with the sign that makes larger better (NaN kept)."""
        return -self.scores if self.better_low else self.scores


def bidding_order(v: Variant) -> list[int]:
    """Seats in the order they bid (the first bidder first)."""
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    return [(first + j) % v.players for j in range(v.players)]


def earlier_seats(v: Variant, seat: int) -> tuple[int, ...]:
    """The seats that bid before `seat` and whose bids it hears: none unless bids are
    sequential (simultaneous bids and an auction's contract steps hear none)."""
    if v.bidding_form != "sequential":
        return ()
    order = bidding_order(v)
    return tuple(order[:order.index(seat)])


def legal_after(v: Variant, hand_size: int, run: ForcedRun, prev: int) -> set[int]:
    """The candidate bids the rules allow `run`'s seat after earlier bids summing to `prev`
    (the hook and Max Bet look only at that sum, and at whether the seat bids last)."""
    if run.auction or not run.earlier:
        return set(run.bids.tolist())
    bids_so_far, rest = [], prev
    for _ in run.earlier:
        bids_so_far.append(min(rest, hand_size))
        rest -= bids_so_far[-1]
    return set(legal_bids(v, hand_size, bids_so_far, run.constrained))


def candidate_bids(v: Variant, hand_size: int) -> np.ndarray:
    """Every bid a seat could make: 0..h, or the contract steps 1..S of an auction."""
    if v.bidding_form == "auction":
        return np.arange(1, len(v.ladder) + 1, dtype=np.int64)
    return np.arange(hand_size + 1, dtype=np.int64)


def forced_run(v: Variant, hand_size: int, seat: int, deals: int, seed: int = 0,
               play: str = "precision", bid: str = "table", workers: int | None = None,
               round_index: int | None = None, hand: str | None = None,
               turn_up: str | None = None, race: bool = False,
               trump: str | None = None) -> ForcedRun:
    """Play `deals` deals once per candidate bid of `seat` (see the module notes).

    v: the variant. hand_size: cards per hand. seat: the focal seat. deals: how many deals.
    seed: the deals' seed (the same seed gives the same deals for every seat and bid). play,
    bid: everyone's play and bid policies (the focal seat's bid is forced). workers: local
    threads. round_index: the round the hands stand for (default: the first of this size).
    hand: a fixed hand for the seat ("AS KS 9H"), the rest dealt at random (per-hand odds).
    turn_up: in a game whose trump is a turned-up card, deal only deals that turn up this
    suit (a condition on the deal, as bid odds apply it). race: drop clearly worse bids
    cell by cell after the first part of the deals (see `race_plan`), for class tables; a
    hand-level comparison (every bid on every deal) needs race=False. trump: impose this
    trump on every deal in place of a player's choice (a chooser's candidates, as the
    learned bidder's training plays them), the deals themselves unchanged.
    """
    if turn_up is not None and v.trump_chooser != "turn_up":
        raise ValueError("turn_up conditions only a turned-up trump; filter other trumps")
    if trump is not None and (turn_up is not None or v.trump_chooser in ("turn_up", "fixed")):
        raise ValueError("trump replaces a player's choice; a turned-up or fixed trump is "
                         "conditioned with turn_up, or is the rules'")
    deals = positive_int(deals, "deals")
    bids = candidate_bids(v, hand_size)
    auction = v.bidding_form == "auction"
    earlier = earlier_seats(v, seat)
    side = [s for s in range(v.players) if v.team_of(s) == v.team_of(seat)] if auction \
        else [seat]
    job = make_job(v, hand_size, deals, seed, play, bid, turn_up if trump is None else trump,
                   {seat: hand} if hand is not None else None, round_index)
    out = _ForcedArrays.empty(deals, len(bids))
    where = _Where(job, workers, seat, np.asarray(side, np.int64),
                   np.asarray(earlier, np.int64), bids)
    first = race_plan(deals, len(bids)) if race and not auction else deals
    where.play(out, 0, first, np.ones((first, len(bids)), np.bool_), own_first=False)
    if first < deals:
        _race_rest(v, hand_size, where, out, first, earlier != ())
    scores = np.where(out.ok, out.score.astype(np.float64), np.nan)
    exact = out.ok & ((out.took >= np.array([step.tricks for step in v.ladder])[bids - 1])
                      if auction else (out.took == bids))
    scores[out.raced] = out.imputed[out.raced]
    return ForcedRun(v.canonical, hand_size, seat, int(seed), bids, scores, exact, out.masks,
                     out.trumps, out.prev, earlier, v.rule("end.better", "higher") == "lower",
                     auction, bool(job.constrained), out.raced)


# Racing (forced_run(race=True)): the first deals play every candidate; after them a cell
# (seat, sum of earlier bids, hand class, as the class tables group) keeps only the bids not
# clearly worse than its best. "Clearly": the paired difference to the cell's best is above
# 0 by RACE_Z standard errors on at least RACE_MIN paired deals, a bar a bid that would end
# up best or close to it does not clear by chance (P < 3e-7 per comparison under normality).
RACE_SHARE = 4            # the first 1/RACE_SHARE of the deals play every candidate ...
RACE_FIRST_MIN = 10_000   # ... and at least this many; fewer deals in all: no racing
RACE_Z = 5.0
RACE_MIN = 100
RACE_PAYS = 0.7          # race only when the first deals say it plays < 70% of the hands
FORCED_CHUNK = 2048       # deals per chunk of a forced pass (each runs up to B hands)


def race_plan(deals: int, n_bids: int) -> int:
    """How many of `deals` deals play every candidate before racing (all of them when
    racing would not pay: two candidates, or too few deals)."""
    if n_bids <= 2 or deals < RACE_SHARE * RACE_FIRST_MIN:
        return deals
    return max(RACE_FIRST_MIN, deals // RACE_SHARE)


@dataclass
class _ForcedArrays:
    """A forced run's working arrays, filled pass by pass (rows: deals, columns: bids)."""

    score: np.ndarray     # int64[N, B] the seat's score (meaningful where ok)
    took: np.ndarray      # int64[N, B] the seat's side's tricks (where ok)
    ok: np.ndarray        # bool[N, B] played and allowed by the rules
    raced: np.ndarray     # bool[N, B] not played: raced out in the deal's cell
    imputed: np.ndarray   # float64[N, B] where raced: the cell's mean over the first deals
    masks: np.ndarray     # uint64[N]
    trumps: np.ndarray    # int64[N]
    prev: np.ndarray      # int64[N]

    @classmethod
    def empty(cls, deals: int, n_bids: int) -> _ForcedArrays:
        """Arrays for `deals` deals and `n_bids` candidates, nothing played yet."""
        shape = (deals, n_bids)
        return cls(np.zeros(shape, np.int64), np.zeros(shape, np.int64),
                   np.zeros(shape, np.bool_), np.zeros(shape, np.bool_),
                   np.full(shape, np.nan), np.zeros(deals, np.uint64),
                   np.zeros(deals, np.int64), np.zeros(deals, np.int64))


@dataclass(frozen=True)
class _Where:
    """Who plays a forced pass: the job, the threads, the focal seat and its candidates."""

    job: Job
    workers: int | None
    seat: int
    side: np.ndarray      # int64 seats whose tricks are the seat's
    earlier: np.ndarray   # int64 seats whose bids the seat hears
    bids: np.ndarray      # int64[B] candidates

    def play(self, out: _ForcedArrays, start: int, stop: int, alive: np.ndarray,
             own_first: bool) -> np.ndarray:
        """Deals start..stop-1 with the candidates `alive` (bool[stop - start, B]) into
        `out`; with own_first each deal is first played as the policies bid, and the seat's
        (own bid, score, side's tricks) per deal is returned (int64[stop - start, 3])."""
        a = self.job.args()
        B = len(self.bids)
        own = np.zeros((stop - start, 3), np.int64)
        plan = ChunkPlan(stop - start, FORCED_CHUNK)

        def task(i: int) -> tuple[np.ndarray, ...]:
            first, count = plan.chunk(i)
            part = (np.zeros((count, B), np.int64), np.zeros((count, B), np.int64),
                    np.zeros((count, B), np.bool_), np.zeros((count, 3), np.int64),
                    np.zeros(count, np.uint64), np.zeros(count, np.int64),
                    np.zeros(count, np.int64))
            run_forced(a.P.copy(), a.tables, a.seed, start + first, count, a.hand_size,
                       a.constrained, a.fixed, a.forced_trump, a.play_pol, a.bid_pol,
                       self.job.scratch(), self.seat, self.side, self.earlier, self.bids,
                       np.ascontiguousarray(alive[first:first + count]), own_first, *part)
            return part

        def take(i: int, part: tuple[np.ndarray, ...]) -> None:
            first, count = plan.chunk(i)
            rows = slice(start + first, start + first + count)
            live = alive[first:first + count]
            score, took, ok, own_part, masks, trumps, prev = part
            out.score[rows] = np.where(live, score, out.score[rows])
            out.took[rows] = np.where(live, took, out.took[rows])
            out.ok[rows] = np.where(live, ok, out.ok[rows])
            own[first:first + count] = own_part
            known = live.any(axis=1) | own_first
            out.masks[rows][known] = masks[known]
            out.trumps[rows][known] = trumps[known]
            out.prev[rows][known] = prev[known]

        with LocalBackend(self.workers) as backend:
            backend.run(task, range(plan.n_chunks), take)
        return own


def _cells(v: Variant, hand_size: int, out: _ForcedArrays, rows: slice, by_prev: bool
           ) -> np.ndarray:
    """The class-table cell of each deal in `rows` (int[rows]): hand class, and the sum of
    the earlier bids where the seat hears them, as the class tables group."""
    keys = class_columns(v, hand_size, out.masks[rows], out.trumps[rows],
                         sheet_features(v, hand_size))
    if by_prev:
        keys.insert(0, "prev_sum", out.prev[rows])
    return keys.groupby(list(keys.columns), sort=False, observed=True).ngroup().to_numpy()


def _race_rest(v: Variant, hand_size: int, where: _Where, out: _ForcedArrays, first: int,
               by_prev: bool) -> None:
    """Deals first.. of a raced run (see RACE_Z): each deal is played as the policies bid
    (its cell, and the outcome of the seat's own bid, which forcing that bid replays
    exactly when the seat's bidder draws no random numbers), then every bid still alive in
    its cell. Raced bids get the cell's mean over the first deals (`imputed`). When the
    first deals show that racing would save little (RACE_PAYS), the rest is played in full."""
    N, B = out.score.shape
    better_low = v.rule("end.better", "higher") == "lower"
    own_reused = where.job.bid_pol[where.seat] != L.BID_RANDOM
    early = _cells(v, hand_size, out, slice(0, first), by_prev)
    alive_early, _ = race_cells(out.score[:first], out.ok[:first], early,
                                int(early.max()) + 1, better_low)
    # hands per later deal: the own play, then the bids alive in its cell less the one the
    # own play stands for; without racing, every candidate
    racing = 1.0 + alive_early[early].sum(axis=1).mean() - float(own_reused)
    if racing > RACE_PAYS * B:
        where.play(out, first, N, np.ones((N - first, B), np.bool_), own_first=False)
        return
    own = where.play(out, first, N, np.zeros((N - first, B), np.bool_), own_first=True)
    cell = _cells(v, hand_size, out, slice(0, N), by_prev)
    alive_cell, mean_cell = race_cells(out.score[:first], out.ok[:first], cell[:first],
                                       int(cell.max()) + 1, better_low)
    alive = alive_cell[cell[first:]]
    rest = slice(first, N)
    if own_reused:
        rows = np.arange(N - first)
        k = own[:, 0] - where.bids[0]
        use = alive[rows, k]
        r, kk = rows[use], k[use]
        out.score[first + r, kk], out.took[first + r, kk] = own[use, 1], own[use, 2]
        out.ok[first + r, kk] = True
        alive[r, kk] = False
    where.play(out, first, N, alive, own_first=False)
    out.raced[rest] = ~alive_cell[cell[first:]]
    out.imputed[rest] = mean_cell[cell[first:]]


def race_cells(score: np.ndarray, ok: np.ndarray, cell: np.ndarray, G: int,
               better_low: bool) -> tuple[np.ndarray, np.ndarray]:
    """Which bids stay alive in each of G cells after the first deals, and each bid's mean
    score per cell there: (bool[G, B], float64[G, B], NaN where never played).

    score, ok: int64/bool[M, B] of the first M deals; cell: int[M] their cells. A bid leaves
    a cell when the paired difference between the cell's best bid (by mean, among bids
    played on at least RACE_MIN of its deals) and it, on the deals both were allowed,
    exceeds 0 by RACE_Z standard errors on at least RACE_MIN deals."""
    B = score.shape[1]
    sign = -1.0 if better_low else 1.0
    signed = np.where(ok, sign * score, np.nan)

    def per_cell(values: np.ndarray) -> np.ndarray:
        return group_sums(values, cell, G)

    n = per_cell(ok.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_signed = per_cell(signed) / n
    mean = np.where(n > 0, sign * mean_signed, np.nan)
    ranked = np.where(n >= RACE_MIN, mean_signed, -np.inf)
    best = np.argmax(ranked, axis=1)
    has_best = np.isfinite(ranked[np.arange(G), best])
    d = signed[np.arange(len(cell)), best[cell]][:, None] - signed
    both = ~np.isnan(d)
    m = per_cell(both.astype(np.float64))
    total, square = per_cell(d), per_cell(np.where(both, d * d, np.nan))
    with np.errstate(invalid="ignore", divide="ignore"):
        dmean = total / m
        se = np.sqrt(np.maximum(square / m - dmean * dmean, 0.0) / np.maximum(m - 1, 1))
    out = (m >= RACE_MIN) & (dmean - RACE_Z * se > 0) & has_best[:, None]
    out[np.arange(G), best] = False
    assert out.shape == (G, B)
    return ~out, mean
