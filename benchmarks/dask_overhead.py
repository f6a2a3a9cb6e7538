"""Overhead of the dask backend against local threads, same workload, same machine.

    .venv/bin/python benchmarks/dask_overhead.py [--hands 4000000] [--workers 2] [--repeats 3]

Oh Hell, 4 players, 10 cards, summary only. Local: `workers` threads. Dask: a LocalCluster
of `workers` single-threaded processes, started once (its start-up is reported apart), and
warmed up by a small run so that each worker has loaded the kernels. Prints hands/s (median
of the repeats) for both and their ratio; checks the results are identical.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import simulate as sim
from simulate.runner.backends import DaskBackend


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=4_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--chunk-size", type=int, default=1 << 16)
    a = ap.parse_args()
    v = sim.load_variant("oh_hell", players=4)

    def run(backend=None, hands=a.hands):
        return sim.simulate_hands(v, 10, hands, seed=1, keep="summary", workers=a.workers,
                                  chunk_size=a.chunk_size, backend=backend)

    run(hands=20_000)                                   # compile / load the kernels
    local = [timed(run) for _ in range(a.repeats)]
    t0 = time.perf_counter()
    backend = DaskBackend(local_workers=a.workers)
    startup = time.perf_counter() - t0
    try:
        warm = timed(lambda: run(backend, hands=20_000))  # each worker builds the job once
        dask = [timed(lambda: run(backend)) for _ in range(a.repeats)]
        same = all(np.array_equal(x, y) for x, y in zip(run()._summary, run(backend)._summary,
                                                         strict=True))
    finally:
        backend.close()
    loc, dsk = statistics.median(local), statistics.median(dask)
    report = {
        "workload": f"oh_hell 4 players, 10 cards, {a.hands:,} hands, summary, "
                    f"chunk {a.chunk_size}",
        "workers": a.workers,
        "local_threads_hands_per_s": round(a.hands / loc),
        "dask_local_cluster_hands_per_s": round(a.hands / dsk),
        "dask_over_local": round(loc / dsk, 3),
        "local_seconds": [round(t, 3) for t in local],
        "dask_seconds": [round(t, 3) for t in dask],
        "dask_cluster_startup_seconds": round(startup, 2),
        "dask_first_small_run_seconds": round(warm, 2),
        "identical_results": same,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
