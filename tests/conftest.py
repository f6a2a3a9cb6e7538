"""Shared test set-up: the markers' meaning, the kernel cache, and fixtures used across files.

Markers (registered in pyproject.toml, `--strict-markers`):

- ``slow``: long statistical, fuzzing, replay-everything or end-to-end runs. Each slow
  parametrised family keeps one fast representative case unmarked, so that
  ``make test-fast`` still reaches every module.
- ``dist``: starts a dask LocalCluster, or bidlab subprocesses that are killed and resumed.
  Every test that asks for the ``dask_cluster`` or ``dask_backend`` fixture is marked
  ``dist`` automatically (see ``pytest_collection_modifyitems``).

``make test-fast`` runs ``-m "not slow and not dist"``; ``make test`` runs everything.

The numba kernel caches its compiled code on disk (simulate/kernel/__init__.py: below
$NUMBA_CACHE_DIR, else $BIDLAB_CACHE_DIR, else ~/.cache/bidlab). The tests deliberately
leave that choice alone: the xdist workers, the dask worker processes and the ``bidlab``
subprocesses the tests start all inherit this environment, so they share one warm cache, and
a second run of the suite compiles nothing. (A temporary cache here would force a cold
compile in every process of every run.)

With xdist (``-n 2``) on a cold cache (a fresh clone) the workers would each compile the
same entry points at the same time: minutes of duplicated work, since each whole-game kernel
takes a minute or more. So before the workers start, the controller warms the cache with two
subprocesses side by side, one compiling the hand kernels and one the game kernels; the
workers then load them from disk. A stamp in the cache folder records a finished warm-up for
the kernel's sources as they are, so later runs skip it. Any entry point the warm-up misses
is compiled by whichever process first needs it, as before; a failed warm-up only prints a
line.
"""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DASK_FIXTURES = {"dask_cluster", "dask_backend"}

# Each runs in its own process: small workloads that reach the compiled entry points. Random
# policies: the policy is a number in the tables, not a type, so they compile the same code
# as any other, without the precision policy's calibration runs.
WARM_HANDS = """
import simulate as sim
v = sim.load_variant("hoffer", players=4)
for kw in ({}, {"fixed": {2: "HIJO AS KS 9H 10D"}, "trump": "S"}):
    for keep in ("summary", "records"):
        res = sim.simulate_hands(v, 5, 300, seed=1, play="random", bid="random", keep=keep,
                                 workers=1, **kw)
    res.traces(2)
sim.bid_odds(v, "HIJO AS KS 9H 10D", seat=2, trump="S", samples=2000, play="random",
             bid="random", workers=1)
"""
WARM_GAMES = """
import simulate as sim
from simulate.games.job import make_game_job
from simulate.games.replay import replay_kernel_game
from simulate.games.simulate import simulate_games
v = sim.load_variant("horseshoes", stars=True)
for keep in ("records", "summary"):
    simulate_games(v, 20, seed=1, policies="random+greedy", keep=keep, workers=1)
job = make_game_job(v, 2, 3, "random+greedy", 1)
job.run(0, 2)
replay_kernel_game(job, 0)
"""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses the shared dask cluster as `dist`."""
    for item in items:
        if DASK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.dist)


def _warm_stamp() -> tuple[Path, str]:
    """Where a finished warm-up is recorded, and what it records: the kernel sources' sizes
    and times, whose change makes numba compile again (their content names the folder)."""
    import numba

    import simulate.kernel as kernel  # sets numba's cache folder

    here = Path(kernel.__file__).resolve().parent
    tag = hashlib.sha1(str(here).encode()).hexdigest()[:16]
    state = "\n".join(f"{p.name} {p.stat().st_mtime_ns} {p.stat().st_size}"
                      for p in sorted(here.glob("*.py")))
    return Path(numba.config.CACHE_DIR) / f"tests-warm-{tag}.txt", state


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under xdist, warm the kernel cache in the controller before the workers start (once:
    a stamp in the cache folder says it was done for these kernel sources)."""
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    stamp, state = _warm_stamp()
    if stamp.is_file() and stamp.read_text() == state:
        return
    root = Path(__file__).resolve().parent.parent
    # `python -c` in the project root imports this tree's simulate, as the workers do
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for code in (WARM_HANDS, WARM_GAMES)]
    failed = False
    for proc in procs:
        _, err = proc.communicate()
        if proc.returncode != 0:
            failed = True
            last = err.strip().splitlines()[-1:] or [f"status {proc.returncode}"]
            print(f"conftest: kernel cache warm-up failed, the tests compile instead: {last[0]}",
                  file=sys.stderr)
    if not failed:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(state)


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """One dask LocalCluster of 2 single-threaded worker processes for the whole session
    (per xdist worker): starting one costs seconds, and the worker processes keep the kernel
    they loaded from the shared on-disk cache. Tasks carry everything they need (job specs,
    variant bytes), so tests cannot leak state to each other through the workers."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def dask_backend(dask_cluster: Any) -> Iterator[Any]:
    """A DaskBackend connected to the session's cluster."""
    from simulate.runner.backends import DaskBackend

    backend = DaskBackend(scheduler=dask_cluster.scheduler_address)
    yield backend
    backend.close()
