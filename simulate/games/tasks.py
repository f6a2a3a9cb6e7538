"""Chunks of whole games as portable tasks: what a thread or a dask worker runs for
`simulate_games`, `compare_games` and `skill_index`.

A task holds GameSpecs — the variant (name and options, or the rules file's bytes), games,
seed, policies and star thresholds — and rebuilds the GameJobs once per process, checking
that the compiled tables hash to the client's. On the client the jobs already built ride
along (never pickled), so local threads rebuild nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simulate.games.job import GameJob, make_game_job
from simulate.games.metrics import metric_defs, metric_values, union_defs
from simulate.kernel import game as K
from simulate.runner.backends import run_local
from simulate.runner.specs import BuiltOnce, VariantSpec, check_digest, digest_arrays
from simulate.util.checks import worker_count
from simulate.util.progress import Bar


@dataclass(frozen=True)
class GameSpec:
    """A GameJob as plain, picklable values: what a worker rebuilds the job from."""

    variant: VariantSpec
    games: int
    seed: int
    policies: tuple[str, ...]
    stars: tuple[int, ...]
    digest: str = ""

    @classmethod
    def of(cls, job: GameJob) -> GameSpec:
        """The spec of `job`, with the digest of its tables."""
        c = job.config
        return cls(VariantSpec.of(job.v), c.games, c.seed, tuple(c.policies), tuple(c.stars),
                   game_digest(job))

    def build(self) -> GameJob:
        """The job again, checked against the client's digest."""
        v = self.variant.load()
        job = make_game_job(v, self.games, self.seed, list(self.policies), list(self.stars))
        check_digest(v, game_digest(job), self.digest)
        return job


def game_digest(job: GameJob) -> str:
    """SHA-256 of every table the game kernel reads (hand sizes of this game only)."""
    sizes = sorted(set(job.v.schedule) | set(range(1, job.max_size + 1)))
    arrays: list[np.ndarray] = [job.tables.P, job.G, job.sched, job.con_rounds, job.specials,
                                job.SP]
    for tup in [job.tables.as_tuple()] + [t for k, t in enumerate(job.stabs) if k in job.subs]:
        for a in tup:
            if a.ndim == 3 and a.dtype == np.float64:
                # per-hand-size weights (card rates are filled lazily): this game's sizes
                a = a[[h for h in sizes if h < a.shape[0]]]
            arrays.append(a)
    return digest_arrays(arrays)


_JOBS = BuiltOnce(64)


def _job_for(spec: GameSpec) -> GameJob:
    return _JOBS.get(spec)


@dataclass(frozen=True)
class GameTask:
    """task(i) → chunk i's results.

    mode "games": (rows or an empty array, by_size, x, y, lengths) for specs[0];
    mode "skill": the strong seat's win share per game (specs = one job per strong seat);
    mode "profile": the win share per game of each role (n jobs per role, one per seat);
    mode "compare": (xa, ya, xb, yb) for specs[0] vs specs[1], with one last column per
    skill role when role jobs follow (n per role: every role of A, then of B)."""

    mode: str
    specs: tuple[GameSpec, ...]
    chunk_size: int
    keep: str = "summary"
    jobs: tuple[GameJob, ...] | None = field(default=None, compare=False, repr=False)
    portable = True

    def portable_copy(self) -> GameTask:
        """This task without the client's jobs (what a backend ships)."""
        return GameTask(self.mode, self.specs, self.chunk_size, self.keep)

    def __getstate__(self) -> dict[str, Any]:
        return {"mode": self.mode, "specs": self.specs, "chunk_size": self.chunk_size,
                "keep": self.keep}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "jobs", None)

    @property
    def games(self) -> int:
        """Games per configuration."""
        return self.specs[0].games

    @property
    def n_chunks(self) -> int:
        """How many chunks the games split into."""
        return -(-self.games // self.chunk_size)

    def chunk(self, i: int) -> tuple[int, int]:
        """Chunk i as (first game, number of games)."""
        start = i * self.chunk_size
        return start, min(self.chunk_size, self.games - start)

    def _jobs(self) -> tuple[GameJob, ...]:
        return self.jobs if self.jobs is not None else tuple(_job_for(s) for s in self.specs)

    def __call__(self, i: int) -> tuple[np.ndarray, ...]:
        start, count = self.chunk(i)
        jobs = self._jobs()
        if self.mode == "skill":
            return (skill_values(jobs, start, count),)
        if self.mode == "profile":
            n = jobs[0].v.players
            return (np.column_stack([skill_values(jobs[i:i + n], start, count)
                                     for i in range(0, len(jobs), n)]),)
        if self.mode == "games":
            job = jobs[0]
            rows, sizes = job.run(start, count)
            x, y = metric_values(job, metric_defs(job), rows)
            kept = rows if self.keep == "records" else np.zeros((0, rows.shape[1]), np.int64)
            return kept, sizes, x, y, np.bincount(rows[:, K.C_HANDS])
        ja, jb = jobs[0], jobs[1]
        defs = union_defs(metric_defs(ja), metric_defs(jb))
        xa, ya = metric_values(ja, defs, ja.run(start, count)[0])
        xb, yb = metric_values(jb, defs, jb.run(start, count)[0])
        rest = jobs[2:]
        if rest:
            # skill roles: n jobs per role, every role of A, then every role of B
            n = ja.v.players
            half = len(rest) // 2
            fair_a = 1 / (ja.v.teams or ja.v.players)
            fair_b = 1 / (jb.v.teams or jb.v.players)
            ska = np.column_stack([skill_values(rest[i:i + n], start, count)
                                   for i in range(0, half, n)]) - fair_a
            skb = np.column_stack([skill_values(rest[half + i:half + i + n], start, count)
                                   for i in range(0, half, n)]) - fair_b
            one = np.ones((count, ska.shape[1]))
            xa, xb = np.hstack([xa, ska]), np.hstack([xb, skb])
            ya, yb = np.hstack([ya, one]), np.hstack([yb, one])
        return xa, ya, xb, yb


def skill_values(jobs: tuple[GameJob, ...], start: int, count: int) -> np.ndarray:
    """The strong seat's win share per game (ties split), averaged over the seats it sat in:
    jobs[s] has the strong policy in seat s."""
    total = np.zeros(count)
    for seat, job in enumerate(jobs):
        rows, _ = job.run(start, count)
        won = np.maximum(rows[:, K.C_UNITS_WON], 1)
        lay = job.layout
        total += rows[:, lay.col(seat, K.P_WIN)] / won
    return total / len(jobs)


def chunk_ticker(task: GameTask, bar: Bar | None) -> Callable[[int], None] | None:
    """tick(i): advance `bar` by chunk i's games (None without a bar)."""
    if not bar:
        return None
    shown = bar

    def tick(i: int) -> None:
        shown.update(task.chunk(i)[1])

    return tick


def run_task(task: GameTask, backend: Any, workers: int | None,
             take: Callable[[Any], None], tick: Callable[[int], None] | None = None) -> None:
    """Every chunk of `task`, handed to take(result) in chunk order, with tick(i) after
    chunk i: on `backend` (a simulate.runner.backends backend, e.g. dask) or, for None, on
    `workers` local threads (every core for None)."""
    if backend is None:
        run_local(task.n_chunks, task, worker_count(workers), tick, reduce=take)
        return

    def taken(i: int, result: Any) -> None:
        take(result)
        if tick:
            tick(i)

    backend.run(task, range(task.n_chunks), taken, ordered=True)
