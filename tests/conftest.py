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
takes a minute or more. So before the workers start, the controller warms the cache with
simulate.cli.warm (as `bidlab report` does): one subprocess per group of entry points (hand
runs, forced bids and odds, whole games) side by side; the workers then load them from disk.
A stamp per group in the cache folder records a finished warm-up for the kernel's sources as
they are, so later runs skip it. Any entry point the warm-up misses
is compiled by whichever process first needs it, as before; a failed warm-up only prints a
line.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest

DASK_FIXTURES = {"dask_cluster", "dask_backend"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses the shared dask cluster as `dist`."""
    for item in items:
        if DASK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.dist)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under xdist, warm the kernel cache in the controller before the workers start
    (simulate.cli.warm: one process per group of entry points, once for these kernel
    sources)."""
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    from simulate.cli.warm import warm_kernels

    for failure in warm_kernels():
        print(f"conftest: kernel cache warm-up failed, the tests compile instead: {failure}",
              file=sys.stderr)


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
