"""Where chunks run: local threads or a dask.distributed cluster, results in chunk order.

A backend runs `task(i)` for chunk indices and hands each result to `take(i, result)`.
`ordered=True` hands them over in the order of `indices` (the reducers need no more, but a
fixed order keeps every merge easy to reason about); `ordered=False` hands them over as they
finish (a run directory saves each finished chunk at once, so an interruption loses none).
At most `window` chunks are in flight or waiting, so memory does not grow with the run.

Local threads run any callable. Dask workers are separate processes, possibly on other
machines: they run a portable `Task` (a small picklable description of the job that rebuilds
it there; see simulate.runner.specs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any, Protocol

from simulate.errors import BidlabInputError
from simulate.util.checks import worker_count

Take = Callable[[int, Any], None]
POLL_SECONDS = 0.25   # how often a waiting loop looks at the stop flag


class Task(Protocol):
    """What a backend needs from a task: task(i) computes chunk i; a portable task pickles
    as a description a worker process can rebuild the job from."""

    def __call__(self, i: int) -> Any: ...

    @property
    def portable(self) -> bool:
        """Whether the task pickles as a description a worker process can rebuild."""
        ...

    def portable_copy(self) -> Task:
        """The task as it should travel: the description only, nothing the client built."""
        ...


class Backend(Protocol):
    """Runs chunks of a task and hands each result over (see the module notes)."""

    def run(self, task: Task, indices: Sequence[int], take: Take, *,
            ordered: bool = True, stop: threading.Event | None = None) -> int:
        """Run task(i) for each index, handing results to take(i, result) (in the order of
        `indices` when ordered); stop submitting once `stop` is set. Returns how many
        results were handed over."""
        ...

    def close(self) -> None:
        """Release the backend's workers."""
        ...


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
        self.workers = worker_count(workers)

    def run(self, task: Callable[[int], Any], indices: Sequence[int], take: Take, *,
            ordered: bool = True, stop: threading.Event | None = None) -> int:
        """Run task(i) for each index on the threads; see the module notes."""
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
        """Nothing to release: each run's pool ends with the run."""

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


def _run_chunk(task: Task, i: int) -> Any:
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
                n = worker_count(local_workers)
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

    def run(self, task: Task, indices: Sequence[int], take: Take, *,
            ordered: bool = True, stop: threading.Event | None = None) -> int:
        """Run task(i) for each index on the cluster (the task's portable copy travels)."""
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
                except (TimeoutError, distributed.TimeoutError):
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
        """Close the client (and the local cluster this backend started)."""
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



def run_local(n_chunks: int, work: Callable[[int], Any], workers: int,
              progress: Callable[[int], None] | None = None,
              reduce: Callable[[Any], None] | None = None) -> list[Any]:
    """Run work(i) for every chunk on a thread pool (a LocalBackend).

    Results are handed to `reduce` in chunk order as they finish, with at most a few chunks
    in flight, so memory does not grow with the number of chunks; without `reduce` they are
    returned as a list in chunk order. progress(i) is called after chunk i is handed over.
    """
    out: list[Any] = []
    keep = reduce if reduce is not None else out.append

    def take(i: int, value: Any) -> None:
        keep(value)
        if progress:
            progress(i)

    LocalBackend(workers).run(work, range(n_chunks), take)
    return out
