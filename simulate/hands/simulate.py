"""simulate_hands: deal and play hands of one round size, in chunks, merged in chunk order.

Hands draw from streams keyed by their own index, so chunk size, thread count and backend
never change a result; merging sums integers (summaries) or fills rows in hand order
(records).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from simulate.errors import BidlabInputError
from simulate.hands.chunks import RecordArrays, SummaryArrays, empty_summary, records_shapes, score_range
from simulate.hands.job import Job, make_job
from simulate.hands.results import HandResults
from simulate.hands.tasks import ChunkTask, JobSpec
from simulate.rules.variant import Variant
from simulate.runner.backends import Backend, LocalBackend
from simulate.runner.plan import DEFAULT_CHUNK, ChunkPlan
from simulate.runner.rundir import RunDir
from simulate.util.checks import positive_int, worker_count
from simulate.util.progress import Bar, progress_bar

if TYPE_CHECKING:
    import os


def simulate_hands(v: Variant, hand_size: int, hands: int, seed: int = 0,
                   play: str | Sequence[str] = "precision", bid: str | Sequence[str] = "table",
                   trump: str | int | None = None, fixed: Mapping[int, Any] | None = None,
                   keep: str = "records", workers: int | None = None,
                   round_index: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                   progress: bool | Bar | None = False, card_stats: bool = False,
                   backend: Backend | None = None,
                   run_dir: RunDir | str | os.PathLike[str] | None = None) -> HandResults:
    """Deal and play `hands` hands of one round size with fixed policies.

    v: the variant (simulate.load_variant). hand_size: cards per hand. hands: how many
    deals. seed: 0 to 2**63-1; the same seed gives the same hands whatever the chunking.
    play, bid: a policy name for every seat, or one per seat (0 = the dealer's left, n-1 =
    the dealer). trump: force a trump (a name such as "S" or "NT"). fixed: {seat: cards},
    full hands dealt to those seats. keep="records": one row per (hand, seat);
    keep="summary": counts and score sums by seat, bid and tricks, with memory that does
    not grow with the number of hands (card_stats adds how often each card was dealt and
    took a trick, by trump). workers: local threads (default: every core). round_index: the
    round of the schedule these hands stand for (default: the first of this size).
    chunk_size: hands per chunk. progress: True for a bar of its own, or a caller's bar
    (anything with update(n)) spanning several runs.

    backend: where the chunks run (default: `workers` local threads; see
    simulate.runner.backends for dask). run_dir: a folder (or a simulate.runner.rundir.RunDir)
    that keeps every finished chunk so an interrupted run can be resumed; the result is the
    same either way.
    """
    if keep not in ("records", "summary"):
        raise BidlabInputError(f"keep={keep!r}; allowed: records, summary")
    job = make_job(v, hand_size, hands, seed, play, bid, trump, fixed, round_index)
    chunk_size = positive_int(chunk_size, "chunk_size")
    n_workers = worker_count(workers)
    rd: RunDir | None = None
    if run_dir is not None:
        rd = run_dir if isinstance(run_dir, RunDir) else RunDir(run_dir)
        rd.prepare(ChunkTask(JobSpec.of(job, chunk_size, keep, card_stats), job))
    with progress_bar(progress, job.config.hands) as bar:
        tick = _ticker(bar, ChunkPlan(job.config.hands, chunk_size)) if bar else None
        if keep == "records":
            data = records_arrays(job, n_workers, chunk_size, tick, backend=backend, run_dir=rd)
            return HandResults(v, job.config, job, records_data=data)
        merged, smin = summary_arrays(job, n_workers, chunk_size, tick, card_stats,
                                      backend=backend, run_dir=rd)
        return HandResults(v, job.config, job, summary_data=merged, score_min=smin)


def _ticker(bar: Bar, plan: ChunkPlan) -> Callable[[int], None]:
    """tick(i): advance the bar by chunk i's hands."""
    def tick(i: int) -> None:
        bar.update(plan.chunk(i)[1])

    return tick


def summary_arrays(job: Job, workers: int | None, chunk_size: int = DEFAULT_CHUNK,
                   tick: Callable[[int], None] | None = None,
                   card_stats: bool = False, backend: Backend | None = None,
                   run_dir: RunDir | None = None) -> tuple[SummaryArrays, int]:
    """Run a job keeping running summaries only; returns (arrays, lowest score counted)."""
    task = ChunkTask(JobSpec.of(job, chunk_size, "summary", card_stats), job)
    merged = empty_summary(job)

    def add(i: int, part: tuple[np.ndarray, ...]) -> None:
        for total, piece in zip(merged, part, strict=True):
            total += piece

    _run_chunks(task, workers, add, tick, backend, run_dir)
    return merged, score_range(job.tables)[0]


def records_arrays(job: Job, workers: int | None, chunk_size: int = DEFAULT_CHUNK,
                   tick: Callable[[int], None] | None = None, backend: Backend | None = None,
                   run_dir: RunDir | None = None) -> RecordArrays:
    """Run a job keeping every hand: (hand outputs, seat outputs, dealt masks, captures)."""
    task = ChunkTask(JobSpec.of(job, chunk_size, "records"), job)
    out = RecordArrays(*(np.empty(shape, dtype)
                         for shape, dtype in records_shapes(job, job.config.hands)))

    def put(i: int, part: tuple[np.ndarray, ...]) -> None:
        start, count = task.spec.chunk(i)
        for whole, piece in zip(out, part, strict=True):
            whole[start:start + count] = piece

    _run_chunks(task, workers, put, tick, backend, run_dir)
    return out


def _run_chunks(task: ChunkTask, workers: int | None, take: Callable[[int, Any], None],
                tick: Callable[[int], None] | None, backend: Backend | None,
                run_dir: RunDir | None) -> None:
    """Every chunk of the task through the backend (or the run directory), in chunk order."""
    if run_dir is not None:
        run_dir.run(task, backend or LocalBackend(workers), take, tick)
        return
    own = backend is None
    runner: Backend = LocalBackend(workers) if backend is None else backend

    def take_tick(i: int, value: Any) -> None:
        take(i, value)
        if tick:
            tick(i)

    try:
        runner.run(task, range(task.n_chunks), take_tick)
    finally:
        if own:
            runner.close()
