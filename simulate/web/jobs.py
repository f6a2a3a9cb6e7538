"""Worker threads for the server: a bounded queue, cancellation, shared work and a cache.

A query becomes a Job that runs `work(job)` on one of `workers` threads (the numba kernels
release the GIL, so the event loop keeps answering while they run). At most `workers +
queue` jobs are running or waiting; beyond that `submit` raises Busy and the server answers
"busy, try again". Identical queries (the same key: the canonical variant, the query and the
seed) share one job while it runs, and its answer is cached afterwards (least recently used
out first). A job whose every waiter has gone (the browser closed the page, the client
disconnected) is cancelled: `job.check()`, called from the simulation's progress callback,
raises Cancelled, which stops the run at its next chunk; a job cancelled before it starts
never runs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from simulate.errors import BidlabInputError


class Busy(Exception):
    """Every worker is busy and the queue is full."""


class Cancelled(Exception):
    """The job's every waiter went away; the work stops."""


class Job:
    """One query's work: its key, progress (0..1), a cancel flag and the future of its
    answer. The answer is ("ok", value) or ("error", BidlabInputError message)."""

    def __init__(self, key: Hashable, work: Callable[[Job], Any]) -> None:
        self.key = key
        self.work = work
        self.progress = 0.0
        self.note = ""
        self.waiters = 1
        self.cancelled = threading.Event()
        self.started = threading.Event()
        self.future: Future[tuple[str, Any]] = Future()

    def check(self, fraction: float | None = None, note: str | None = None) -> None:
        """Record progress (fraction done, a few words) and raise Cancelled if the job has
        been cancelled: called from the simulation's progress callback."""
        if fraction is not None:
            self.progress = max(0.0, min(1.0, float(fraction)))
        if note is not None:
            self.note = note
        if self.cancelled.is_set():
            raise Cancelled()

    def run(self) -> None:
        """Run the work on this thread and settle the future (never raises)."""
        self.started.set()
        try:
            if self.cancelled.is_set():
                raise Cancelled()
            value: tuple[str, Any] = ("ok", self.work(self))
            self.progress = 1.0
        except BidlabInputError as exc:
            value = ("error", str(exc))
        except Cancelled:
            value = ("cancelled", None)
        except Exception as exc:  # a bug: reported as such, the server keeps going
            value = ("crash", f"{type(exc).__name__}: {exc}")
        self.future.set_result(value)


class Pool:
    """`workers` threads with room for `queue` more waiting jobs, an in-flight table for
    identical queries and an LRU cache of `cache_size` answers (see the module notes)."""

    def __init__(self, workers: int = 2, queue: int = 8, cache_size: int = 256) -> None:
        if workers < 1 or queue < 0:
            raise BidlabInputError("workers must be at least 1 and the queue at least 0")
        self.workers, self.queue, self.cache_size = workers, queue, cache_size
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bidlab-web")
        self._lock = threading.Lock()
        self._inflight: dict[Hashable, Job] = {}
        self._cache: OrderedDict[Hashable, tuple[str, Any]] = OrderedDict()
        self.hits = self.misses = self.refused = self.cancelled = 0

    @property
    def capacity(self) -> int:
        """Jobs that may be running or waiting at once."""
        return self.workers + self.queue

    def cached(self, key: Hashable) -> tuple[str, Any] | None:
        """The cached answer of `key`, or None (a hit moves it to the recent end)."""
        with self._lock:
            answer = self._cache.get(key)
            if answer is not None:
                self._cache.move_to_end(key)
                self.hits += 1
            return answer

    def submit(self, key: Hashable, work: Callable[[Job], Any]) -> Job:
        """The running job of `key` (joined as one more waiter) or a new one; Busy when the
        pool is full. Release every job you got with release()."""
        with self._lock:
            job = self._inflight.get(key)
            if job is not None and not job.cancelled.is_set():
                job.waiters += 1
                return job
            if len(self._inflight) >= self.capacity:
                self.refused += 1
                raise Busy(f"the server is busy ({self.workers} queries running and "
                           f"{self.queue} waiting); try again in a moment")
            job = Job(key, work)
            self._inflight[key] = job
            self.misses += 1
        job.future.add_done_callback(lambda _f: self._finished(job))
        self._executor.submit(job.run)
        return job

    def _finished(self, job: Job) -> None:
        with self._lock:
            if self._inflight.get(job.key) is job:
                del self._inflight[job.key]
            kind, _ = job.future.result()
            if kind in ("ok", "error"):
                self._cache[job.key] = job.future.result()
                self._cache.move_to_end(job.key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)

    def release(self, job: Job) -> None:
        """One waiter of `job` is gone; with none left an unfinished job is cancelled (and
        leaves the in-flight table at once, so its slot is free again)."""
        with self._lock:
            job.waiters -= 1
            if job.waiters > 0 or job.future.done():
                return
            job.cancelled.set()
            self.cancelled += 1
            if self._inflight.get(job.key) is job and not job.started.is_set():
                del self._inflight[job.key]

    def stats(self) -> dict[str, int]:
        """Counters for /api/status: running or waiting jobs, cache hits and misses, refusals
        and cancellations."""
        with self._lock:
            return {"inflight": len(self._inflight), "capacity": self.capacity,
                    "cached": len(self._cache), "hits": self.hits, "misses": self.misses,
                    "refused": self.refused, "cancelled": self.cancelled}

    def close(self) -> None:
        """Cancel what waits and let the running jobs stop at their next chunk."""
        with self._lock:
            for job in self._inflight.values():
                job.cancelled.set()
        self._executor.shutdown(wait=False, cancel_futures=False)
