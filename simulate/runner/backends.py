"""Where chunks run: local threads or a dask.distributed cluster, results in chunk order.

A backend runs `task(i)` for chunk indices and hands each result to `take(i, result)`.
`ordered=True` hands them over in the order of `indices` (the reducers need no more, but a
fixed order keeps every merge easy to reason about); `ordered=False` hands them over as they
finish (a run directory saves each finished chunk at once, so an interruption loses none).
At most `window` chunks are in flight or waiting, so memory does not grow with the run.

Dask workers are separate processes, possibly on other machines: they get a `ChunkTask`, a
small picklable description of the job (variant name or TOML bytes, options, policies, seed,
chunk size, keep mode), rebuild the Job there once per process and check that the compiled
tables hash to the same digest as the client's, so a worker with other rules, another
bidlab version or another trained bid table fails loudly instead of merging wrong numbers.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from simulate.errors import BidlabInputError

if TYPE_CHECKING:
    from simulate.hands.simulate import Job
    from simulate.rules.variant import Variant

Take = Callable[[int, Any], None]
POLL_SECONDS = 0.25   # how often a waiting loop looks at the stop flag


# ----- what a worker needs to rebuild a job ---------------------------------------------------

@dataclass(frozen=True)
class VariantSpec:
    """A variant as a worker (or a resumed run) can load it again."""

    name: str                               # shipped name, or the file's label
    players: int
    options: tuple[tuple[str, Any], ...]
    canonical: str
    toml: bytes | None = None               # the file itself when it is not a shipped game

    @classmethod
    def of(cls, v: Variant) -> VariantSpec:
        from pathlib import Path

        head = v.canonical.split("(", 1)[0]
        toml: bytes | None = None
        if "@" in head:            # not a shipped game: the rules travel with the spec
            toml = v.toml_bytes
            if toml is None:
                try:
                    toml = Path(v.path).read_bytes()
                except OSError as exc:
                    raise BidlabInputError(f"variant file {v.path}: cannot read it again "
                                           f"({exc.strerror})") from None
            if hashlib.sha256(toml).hexdigest()[:10] != head.split("@", 1)[1]:
                raise BidlabInputError(f"variant file {v.path} changed after it was loaded")
        shipped = toml is None
        return cls(v.name if shipped else v.path, v.players, tuple(sorted(v.options.items())),
                   v.canonical, toml)

    def load(self) -> Variant:
        from simulate.rules.load import load_variant, variant_from_toml

        if self.toml is None:
            v = load_variant(self.name, players=self.players, **dict(self.options))
        else:
            v = variant_from_toml(self.toml, self.name, self.name, self.players,
                                  dict(self.options))
        if v.canonical != self.canonical:
            raise BidlabInputError(f"variant {self.name}: loads as {v.canonical}, expected "
                                   f"{self.canonical}; the rules file or bidlab changed")
        return v


@dataclass(frozen=True)
class JobSpec:
    """Every input of a run that changes its numbers (plus how it is chunked and kept)."""

    variant: VariantSpec
    hand_size: int
    hands: int
    seed: int
    play: tuple[str, ...]
    bid: tuple[str, ...]
    trump: str | None
    fixed: tuple[tuple[int, str], ...]
    round_index: int | None
    chunk_size: int
    keep: str                               # "summary" or "records"
    card_stats: bool = False
    digest: str = ""                        # of the compiled tables, checked on every worker

    @classmethod
    def of(cls, job: Job, chunk_size: int, keep: str, card_stats: bool = False) -> JobSpec:
        c = job.config
        return cls(VariantSpec.of(job.v), c.hand_size, c.hands, c.seed, tuple(c.play),
                   tuple(c.bid), c.trump,
                   tuple(sorted((int(s), " ".join(cards)) for s, cards in c.fixed.items())),
                   c.round_index, chunk_size, keep, card_stats, tables_digest(job))

    def build(self) -> Job:
        from simulate.hands.simulate import make_job

        v = self.variant.load()
        job = make_job(v, self.hand_size, self.hands, self.seed, list(self.play),
                       list(self.bid), self.trump, dict(self.fixed), self.round_index)
        check_digest(v, tables_digest(job), self.digest)
        return job

    @property
    def n_chunks(self) -> int:
        return -(-self.hands // self.chunk_size)

    def chunk(self, i: int) -> tuple[int, int]:
        start = i * self.chunk_size
        return start, min(self.chunk_size, self.hands - start)


def tables_digest(job: Job) -> str:
    """SHA-256 of every table the kernel reads for this job's hand size."""
    t, h = job.tables, job.config.hand_size
    # other hand sizes of the card rates are filled lazily and never read by this job
    return digest_arrays(a[h] if a is t.card_rate else a for a in [t.P, *t.as_tuple()])


def digest_arrays(arrays: Iterable[np.ndarray]) -> str:
    """SHA-256 of arrays with their order, dtypes and shapes: a set of tables' fingerprint."""
    sha = hashlib.sha256()
    for k, a in enumerate(arrays):
        a = np.ascontiguousarray(a)
        sha.update(f"{k}:{a.dtype.str}:{a.shape};".encode())
        sha.update(a.tobytes())
    return sha.hexdigest()


def check_digest(v: Variant, got: str, want: str) -> None:
    """A worker that compiled other tables than the client must not merge its numbers."""
    if want and got != want:
        raise BidlabInputError(
            f"{v.canonical}: this process compiles different rule tables ({got[:12]}) than "
            f"the run expects ({want[:12]}); every machine needs the same bidlab "
            "version and trained bid tables")


class BuiltOnce:
    """One object per spec and process: building a job compiles tables (and may calibrate),
    so a worker does it once for all the chunks it runs."""

    def __init__(self, limit: int) -> None:
        self._built: dict[Any, Any] = {}
        self._lock = threading.Lock()
        self._limit = limit

    def get(self, spec: Any) -> Any:
        with self._lock:
            built = self._built.get(spec)
            if built is None:
                if len(self._built) >= self._limit:
                    self._built.clear()
                built = self._built[spec] = spec.build()
            return built


_JOBS = BuiltOnce(16)


def job_for(spec: JobSpec) -> Job:
    return _JOBS.get(spec)


@dataclass(frozen=True)
class ChunkTask:
    """task(i) → the numpy arrays of chunk i; picklable (only the spec travels)."""

    spec: JobSpec
    job: Job | None = field(default=None, compare=False, repr=False)
    portable = True           # a dask worker can rebuild it from what pickles

    def portable_copy(self) -> ChunkTask:
        return ChunkTask(self.spec)

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec}                # never the Job: numba tables stay home

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "spec", state["spec"])
        object.__setattr__(self, "job", None)

    def get_job(self) -> Job:
        return self.job if self.job is not None else job_for(self.spec)

    def __call__(self, i: int) -> tuple[np.ndarray, ...]:
        from simulate.hands.simulate import run_records_chunk, run_summary_chunk

        job = self.get_job()
        start, count = self.spec.chunk(i)
        if self.spec.keep == "records":
            return run_records_chunk(job, start, count)
        return run_summary_chunk(job, start, count, self.spec.card_stats)


# ----- backends -------------------------------------------------------------------------------

class Backend(Protocol):
    def run(self, task: Callable[[int], Any], indices: Sequence[int], take: Take, *,
            ordered: bool = True, stop: threading.Event | None = None) -> int: ...

    def close(self) -> None: ...


def _drive(submit: Callable[[int], Any], wait_first: Callable[[list[Any]], set[Any]],
           result: Callable[[Any], Any], cancel: Callable[[list[Any]], None],
           indices: Sequence[int], take: Take, window: int, ordered: bool,
           stop: threading.Event | None) -> int:
    """The loop both backends share: keep up to `window` chunks in flight or waiting, hand
    results over (in order or as they come), stop submitting once `stop` is set and then
    hand over whatever still finishes. Returns how many results were handed over."""
    order = list(indices)
    pending: dict[Any, int] = {}
    ready: dict[int, Any] = {}
    submitted = taken = 0
    try:
        while taken < len(order):
            stopping = stop is not None and stop.is_set()
            while not stopping and submitted < len(order) and len(pending) + len(ready) < window:
                i = order[submitted]
                pending[submit(i)] = i
                submitted += 1
            if not pending:
                break                       # stopped, and nothing left that could finish
            for fut in wait_first(list(pending)):
                i = pending.pop(fut)
                value = result(fut)
                if ordered:
                    ready[i] = value
                else:
                    take(i, value)
                    taken += 1
            while ordered and taken < submitted and order[taken] in ready:
                take(order[taken], ready.pop(order[taken]))
                taken += 1
    except BaseException:
        cancel(list(pending))
        raise
    return taken


class LocalBackend:
    """Threads in this process (the numba kernels release the GIL)."""

    def __init__(self, workers: int | None = None) -> None:
        from simulate.hands.simulate import _workers

        self.workers = _workers(workers)

    def run(self, task: Callable[[int], Any], indices: Sequence[int], take: Take, *,
            ordered: bool = True, stop: threading.Event | None = None) -> int:
        if self.workers == 1 or len(indices) <= 1:
            taken = 0
            for i in indices:
                if stop is not None and stop.is_set():
                    break
                take(i, task(i))
                taken += 1
            return taken
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            def wait_first(futs: list[Any]) -> set[Any]:
                while True:
                    done, _ = wait_futures(futs, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                    if done:
                        return done

            def cancel(futs: list[Any]) -> None:
                for f in futs:
                    f.cancel()

            return _drive(lambda i: pool.submit(task, i), wait_first, lambda f: f.result(),
                          cancel, indices, take, 2 * self.workers, ordered, stop)

    def close(self) -> None:
        pass

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


DIST_MISSING = ("the dask backend needs dask.distributed, which is not installed; install the "
                "dist extra: pip install 'bidlab[dist]'")


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise BidlabInputError(DIST_MISSING) from None
    return distributed


def _run_chunk(task: ChunkTask, i: int) -> tuple[np.ndarray, ...]:
    """Module-level so dask pickles it by reference."""
    return task(i)


class DaskBackend:
    """Chunks on a dask.distributed cluster: an existing scheduler (`scheduler` =
    "tcp://host:port") or a LocalCluster of `local_workers` single-threaded processes."""

    def __init__(self, scheduler: str | None = None, local_workers: int | None = None,
                 connect_timeout: float = 20.0) -> None:
        distributed = _import_distributed()
        import logging

        self._cluster = None
        try:
            if scheduler is None:
                from simulate.hands.simulate import _workers

                n = _workers(local_workers)
                self._cluster = distributed.LocalCluster(
                    n_workers=n, processes=True, threads_per_worker=1, dashboard_address=":0",
                    silence_logs=logging.ERROR)
                self.client = distributed.Client(self._cluster)
            else:
                if not isinstance(scheduler, str) or not scheduler.strip():
                    raise BidlabInputError(f"scheduler {scheduler!r}: give an address like "
                                           "tcp://HOST:PORT")
                self.client = distributed.Client(scheduler, timeout=connect_timeout)
        except BidlabInputError:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError) as exc:
            self.close()
            what = "start a local dask cluster" if scheduler is None else \
                f"reach the dask scheduler at {scheduler}"
            raise BidlabInputError(f"cannot {what}: {exc}") from None

    def _threads(self) -> int:
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a scheduler that cannot say: assume a few
            return 2

    def run(self, task: Callable[[int], Any], indices: Sequence[int], take: Take, *,
            ordered: bool = True, stop: threading.Event | None = None) -> int:
        if not getattr(task, "portable", False):
            raise TypeError("the dask backend runs portable tasks (ChunkTask, GameTask: "
                            "picklable job descriptions)")
        distributed = _import_distributed()
        plain = task.portable_copy()      # ship the spec only, whatever the client holds
        client = self.client

        def submit(i: int) -> Any:
            return client.submit(_run_chunk, plain, i, pure=False)

        def wait_first(futs: list[Any]) -> set[Any]:
            while True:
                try:
                    done = distributed.wait(futs, timeout=POLL_SECONDS,
                                            return_when="FIRST_COMPLETED").done
                except (TimeoutError, distributed.TimeoutError):  # type: ignore[attr-defined]
                    continue
                if done:
                    return set(done)

        def cancel(futs: list[Any]) -> None:
            if futs:
                try:
                    client.cancel(futs)
                except Exception:  # noqa: BLE001 - the client may already be closing
                    pass

        return _drive(submit, wait_first, lambda f: f.result(), cancel, indices, take,
                      2 * self._threads() + 2, ordered, stop)

    def close(self) -> None:
        for thing in (getattr(self, "client", None), self._cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
        self._cluster = None

    def __enter__(self) -> DaskBackend:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def make_backend(workers: int | None = None, dask: str | None = None,
                 scheduler: str | None = None) -> LocalBackend | DaskBackend:
    """The backend the CLI options ask for: --dask local, --scheduler ADDR, or threads."""
    if dask is not None and scheduler is not None:
        raise BidlabInputError("give --dask local or --scheduler ADDR, not both")
    if dask is not None:
        if dask != "local":
            raise BidlabInputError(f"--dask {dask!r}; allowed: local (for a cluster use "
                                   "--scheduler tcp://HOST:PORT)")
        return DaskBackend(local_workers=workers)
    if scheduler is not None:
        return DaskBackend(scheduler=scheduler)
    return LocalBackend(workers)

