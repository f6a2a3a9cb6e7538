"""Cut work into chunks, run them on local threads, merge the results in chunk order.

A chunk is (first hand index, count). Hands draw from streams keyed by their own index, so
chunk size and thread count never change a result; merging sums integers or concatenates
in hand order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from simulate.errors import BidlabInputError
from simulate.hands.results import HandConfig, HandResults
from simulate.kernel.hand import H_SIZE, S_SIZE, make_scratch, max_decisions
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import MAX_EVENTS, NT
from simulate.rules.variant import Variant
from simulate.runner.backends import Backend, ChunkTask, JobSpec, LocalBackend
from simulate.tables import layout as L
from simulate.tables import policies
from simulate.tables.compile import RuleTables, compile_tables

if TYPE_CHECKING:
    from simulate.runner.rundir import RunDir

DEFAULT_CHUNK = 1 << 16
MAX_HISTOGRAM_CELLS = 1 << 23   # 64 MB of int64; the widest shipped game needs under 1M


def positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise BidlabInputError(f"{what} must be a positive whole number, got {value!r}")
    return int(value)


def check_seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not 0 <= value < 2**63:
        raise BidlabInputError(f"seed must be a whole number from 0 to 2**63-1, got {value!r}")
    return int(value)


def resolve_fixed(v: Variant, hand_size: int, fixed: Mapping[int, Any] | None) -> np.ndarray:
    """{seat: cards} → per-seat masks; every fixed hand must be a full hand of this deck."""
    masks = np.zeros(v.players, dtype=np.uint64)
    if not fixed:
        return masks
    taken: list[int] = []
    for seat, cards in fixed.items():
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or \
                not 0 <= seat < v.players:
            raise BidlabInputError(f"fixed: seat {seat!r} is not a seat; allowed: 0 to "
                                   f"{v.players - 1} (0 = dealer's left, {v.players - 1} = dealer)")
        idx = v.cards.parse_hand(cards, f"fixed hand of seat {seat}", exclude=taken)
        if len(idx) != hand_size:
            raise BidlabInputError(f"fixed hand of seat {seat}: {len(idx)} cards given, a hand "
                                   f"of this round holds {hand_size}")
        taken.extend(idx)
        masks[seat] = np.uint64(v.cards.mask(idx))
    return masks


def resolve_trump(v: Variant, trump: str | int | None, hand_size: int,
                  fixed: np.ndarray) -> int:
    """Kernel code of a forced trump (-1 for none). With a turned-up trump, forcing it
    conditions the deal on the turn-up, so it must be possible at all."""
    if trump is None:
        return -1
    t = v.trump_index(trump)
    if v.trump_chooser == "fixed":
        return -1
    if v.trump_chooser == "turn_up":
        undealt = len(v.cards) - hand_size * v.players - int(v.rule("deal.widow", 0) or 0)
        pinned = int(np.bitwise_or.reduce(fixed)) if len(fixed) else 0
        if t == NT and undealt > 0:
            raise BidlabInputError(
                f"trump NT cannot be forced with {hand_size} cards: in {v.name} the trump is the "
                f"turned-up card and {undealt} cards are left to turn up")
        if t != NT and (undealt == 0 or not any(
                not c.special and c.suit == t and not pinned >> i & 1
                for i, c in enumerate(v.cards.cards))):
            raise BidlabInputError(
                f"trump {TRUMP_NAMES[t]} cannot be forced with {hand_size} cards in {v.name}: "
                "no card of that suit can be turned up")
    return t


def effective_round(v: Variant, hand_size: int, round_index: int | None) -> tuple[int | None, bool]:
    """(round of the schedule these hands stand for, whether the bid constraint applies).

    Without a round, the first round of that size stands; a size outside the schedule
    follows the reference engine's default (the constraint applies if it has one).
    """
    from simulate.rules.play import constraint_active

    if round_index is None:
        rounds = [i for i, h in enumerate(v.schedule) if h == hand_size]
        round_index = rounds[0] if rounds else None
    elif isinstance(round_index, bool) or not isinstance(round_index, int) or \
            not 0 <= round_index < len(v.schedule):
        raise BidlabInputError(f"round {round_index!r} is not a round of {v.name}; allowed: 0 to "
                               f"{len(v.schedule) - 1}")
    elif v.schedule[round_index] != hand_size:
        raise BidlabInputError(f"round {round_index} of {v.name} deals {v.schedule[round_index]} "
                               f"cards, not {hand_size}")
    return round_index, constraint_active(v, round_index)


@dataclass
class Job:
    """Everything a chunk needs, validated and turned into kernel arguments."""

    v: Variant
    tables: RuleTables
    config: HandConfig
    fixed: np.ndarray
    forced_trump: int
    play_pol: np.ndarray
    bid_pol: np.ndarray
    constrained: bool

    def args(self) -> tuple[Any, ...]:
        c = self.config
        return (self.tables.P, self.tables.as_tuple(), np.uint64(c.seed), c.hand_size,
                self.constrained, self.fixed, self.forced_trump, self.play_pol, self.bid_pol)

    def scratch(self) -> tuple[np.ndarray, ...]:
        v = self.v
        return make_scratch(v.players, len(v.cards),
                            max_decisions(v.players, self.config.hand_size,
                                          int(v.rule("deal.widow", 0) or 0), len(v.ladder)))


def make_job(v: Variant, hand_size: int, hands: int, seed: int, play: str | Sequence[str],
             bid: str | Sequence[str], trump: str | int | None, fixed: Mapping[int, Any] | None,
             round_index: int | None) -> Job:
    v.check_hand_size(hand_size)
    hands = positive_int(hands, "hands")
    seed = check_seed(seed)
    play_ids = policies.resolve("play", play, v.players)
    bid_ids = policies.resolve("bid", bid, v.players)
    fixed_masks = resolve_fixed(v, hand_size, fixed)
    forced = resolve_trump(v, trump, hand_size, fixed_masks)
    round_index, constrained = effective_round(v, hand_size, round_index)
    names_play = [play] * v.players if isinstance(play, str) else list(play)
    names_bid = [bid] * v.players if isinstance(bid, str) else list(bid)
    config = HandConfig(v.canonical, hand_size, hands, seed, tuple(names_play), tuple(names_bid),
                        None if forced < 0 else TRUMP_NAMES[forced],
                        {int(s): v.cards.names_of_mask(int(m)) for s, m in enumerate(fixed_masks)
                         if m}, round_index, constrained)
    tables = compile_tables(v)
    if any(b >= L.BID_HEURISTIC for b in bid_ids):
        from simulate.hands.calibrate import calibrate_card_rates

        calibrate_card_rates(v, hand_size)
    return Job(v, tables, config, fixed_masks, forced, np.array(play_ids, np.int64),
               np.array(bid_ids, np.int64), constrained)


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(size, total - s)) for s in range(0, total, size)]


def _workers(workers: int | None) -> int:
    if workers is None:
        return max(1, os.cpu_count() or 1)
    return positive_int(workers, "workers")


def run_local(n_chunks: int, work: Callable[[int], Any], workers: int,
              progress: Callable[[int], None] | None = None,
              reduce: Callable[[Any], None] | None = None) -> list[Any]:
    """Run work(i) for every chunk on a thread pool (a LocalBackend).

    Results are handed to `reduce` in chunk order as they finish, with at most a few chunks
    in flight, so memory does not grow with the number of chunks; without `reduce` they are
    returned as a list in chunk order.
    """
    out: list[Any] = []
    keep = reduce if reduce is not None else out.append

    def take(i: int, value: Any) -> None:
        keep(value)
        if progress:
            progress(i)

    LocalBackend(workers).run(work, range(n_chunks), take)
    return out


def simulate_hands(v: Variant, hand_size: int, hands: int, seed: int = 0,
                   play: str | Sequence[str] = "precision", bid: str | Sequence[str] = "table",
                   trump: str | int | None = None, fixed: Mapping[int, Any] | None = None,
                   keep: str = "records", workers: int | None = None,
                   round_index: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                   progress: Any = False, card_stats: bool = False,
                   backend: Backend | None = None, run_dir: Any = None) -> HandResults:
    """Deal and play `hands` hands of one round size with fixed policies.

    keep="records": one row per (hand, seat); keep="summary": counts and score sums by seat,
    bid and tricks, with memory that does not grow with the number of hands (card_stats adds
    how often each card was dealt and took a trick, by trump).

    backend: where the chunks run (default: `workers` local threads; see simulate.backends
    for dask). run_dir: a folder (or a simulate.rundir.RunDir) that keeps every finished chunk
    so an interrupted run can be resumed; the result is the same either way.
    """
    if keep not in ("records", "summary"):
        raise BidlabInputError(f"keep={keep!r}; allowed: records, summary")
    job = make_job(v, hand_size, hands, seed, play, bid, trump, fixed, round_index)
    chunk_size = positive_int(chunk_size, "chunk_size")
    plan = chunks(job.config.hands, chunk_size)
    n_workers = _workers(workers)
    if run_dir is not None:
        from simulate.runner.rundir import RunDir

        rd = run_dir if isinstance(run_dir, RunDir) else RunDir(run_dir)
        rd.prepare(ChunkTask(JobSpec.of(job, chunk_size, keep, card_stats), job))
    # progress: True for a bar of its own, or a caller's bar (anything with update(n)) that
    # spans several runs
    own_bar = isinstance(progress, bool)
    bar = _progress_bar(job.config.hands, progress) if own_bar else progress
    tick = (lambda i: bar.update(plan[i][1])) if bar else None
    try:
        if keep == "records":
            data = records_arrays(job, n_workers, chunk_size, tick, backend=backend,
                                  run_dir=rd if run_dir is not None else None)
            return HandResults(v, job.config, job, records_data=data)
        merged, smin = summary_arrays(job, n_workers, chunk_size, tick, card_stats,
                                      backend=backend,
                                      run_dir=rd if run_dir is not None else None)
        return HandResults(v, job.config, job, summary_data=merged, score_min=smin)
    finally:
        if bar and own_bar:
            bar.close()


def _run_chunks(task: ChunkTask, workers: int | None, take: Callable[[int, Any], None],
                tick: Callable[[int], None] | None, backend: Backend | None,
                run_dir: RunDir | None) -> None:
    """Every chunk of the task through the backend (or the run directory), in chunk order."""
    if run_dir is not None:
        run_dir.run(task, backend or LocalBackend(workers), take, tick)
        return
    own = backend is None
    backend = LocalBackend(workers) if backend is None else backend

    def take_tick(i: int, value: Any) -> None:
        take(i, value)
        if tick:
            tick(i)

    try:
        backend.run(task, range(task.spec.n_chunks), take_tick)
    finally:
        if own:
            backend.close()


def summary_shapes(job: Job, card_stats: bool = False) -> tuple[tuple[tuple[int, ...], str], ...]:
    """(shape, dtype) of each summary array: what a saved chunk must hold."""
    v = job.v
    P = job.tables.P
    smin, smax = _score_range(job.tables)
    arrays = _summary_arrays(v.players, int(P[L.MAX_BID]), int(P[L.MAX_HAND]), smax - smin + 1,
                             len(v.ladder), len(v.cards), shape_only=True)
    cells = int(np.prod(arrays[3][0]))
    if cells > MAX_HISTOGRAM_CELLS:
        # every chunk holds one score histogram: a rules file with huge scores must not
        # allocate gigabytes per chunk
        raise BidlabInputError(
            f"{v.canonical}: scores range from {smin} to {smax}, too wide for a summary's score "
            f"histogram ({cells:,} cells, at most {MAX_HISTOGRAM_CELLS:,}); keep records "
            "instead or use smaller score values")
    return tuple(arrays)


def records_shapes(job: Job, count: int) -> tuple[tuple[tuple[int, ...], str], ...]:
    n = job.v.players
    return (((count, H_SIZE), "int64"), ((count, n, S_SIZE), "int64"),
            ((count, n + 1), "uint64"), ((count, MAX_EVENTS), "int64"))


def run_summary_chunk(job: Job, start: int, count: int,
                      card_stats: bool = False) -> tuple[np.ndarray, ...]:
    """Summary arrays of hands start..start+count-1 (sums of int64: merging is exact)."""
    from simulate.kernel.chunk import run_summary

    v = job.v
    P = job.tables.P
    smin, smax = _score_range(job.tables)
    acc = _summary_arrays(v.players, int(P[L.MAX_BID]), int(P[L.MAX_HAND]), smax - smin + 1,
                          len(v.ladder), len(v.cards))
    args = job.args()
    run_summary(args[0], args[1], args[2], start, count, *args[3:], job.scratch(),
                *acc[:4], smin, *acc[4:7], card_stats, *acc[7:])
    return acc


def run_records_chunk(job: Job, start: int, count: int) -> tuple[np.ndarray, ...]:
    """(hand outputs, seat outputs, dealt masks, captures) of hands start..start+count-1."""
    from simulate.kernel.chunk import run_records

    out = tuple(np.empty(shape, dtype) for shape, dtype in records_shapes(job, count))
    args = job.args()
    run_records(args[0], args[1], args[2], start, count, *args[3:], job.scratch(), *out)
    return out


def summary_arrays(job: Job, workers: int | None, chunk_size: int = DEFAULT_CHUNK,
                   tick: Callable[[int], None] | None = None,
                   card_stats: bool = False, backend: Backend | None = None,
                   run_dir: RunDir | None = None) -> tuple[tuple[np.ndarray, ...], int]:
    """Run a job keeping running summaries only; returns (arrays, lowest score counted)."""
    task = ChunkTask(JobSpec.of(job, chunk_size, "summary", card_stats), job)
    merged = [np.zeros(shape, dtype) for shape, dtype in summary_shapes(job, card_stats)]

    def add(i: int, part: tuple[np.ndarray, ...]) -> None:
        for total, piece in zip(merged, part, strict=True):
            total += piece

    _run_chunks(task, workers, add, tick, backend, run_dir)
    return tuple(merged), _score_range(job.tables)[0]


def records_arrays(job: Job, workers: int | None, chunk_size: int = DEFAULT_CHUNK,
                   tick: Callable[[int], None] | None = None, backend: Backend | None = None,
                   run_dir: RunDir | None = None) -> tuple[np.ndarray, ...]:
    """Run a job keeping every hand: (hand outputs, seat outputs, dealt masks, captures)."""
    task = ChunkTask(JobSpec.of(job, chunk_size, "records"), job)
    out = tuple(np.empty(shape, dtype) for shape, dtype in records_shapes(job, job.config.hands))

    def put(i: int, part: tuple[np.ndarray, ...]) -> None:
        start, count = task.spec.chunk(i)
        for whole, piece in zip(out, part, strict=True):
            whole[start:start + count] = piece

    _run_chunks(task, workers, put, tick, backend, run_dir)
    return out


def _summary_arrays(n: int, B: int, H: int, width: int, steps: int, D: int,
                    shape_only: bool = False) -> tuple[Any, ...]:
    shapes = ((n, B + 1, H + 1), (n, B + 1, H + 1), (n, B + 1, H + 1), (n, B + 1, H + 1, width),
              (NT + 1,), (1 + MAX_EVENTS, n), (steps + 1,), (NT + 1, D), (NT + 1, D))
    if shape_only:
        return tuple((shape, "int64") for shape in shapes)
    return tuple(np.zeros(shape, np.int64) for shape in shapes)


def _score_range(t: RuleTables) -> tuple[int, int]:
    P = t.P
    mult = int(max(1, t.ladder[:, 1].max() if len(t.ladder) else 1)) * int(max(1, P[L.ALONE_MULT]))
    tables = [t.score, t.lose_bonus, t.as_exact, t.all_exact, t.defenders]
    lo = min(0, min(int(x.min()) for x in tables)) * mult
    hi = max(int(x.max()) for x in tables) * mult
    hi += int(P[L.FOOL_POINTS]) * int(P[L.MAX_HAND])
    hi += sum(max(0, int(P[L.EVENT0 + 3 * e + 2])) for e in range(int(P[L.N_EVENTS])))
    return lo, hi


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="hand", unit_scale=True, smoothing=0.1, mininterval=0.5)
