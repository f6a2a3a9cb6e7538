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
compile in every process of every run.) The one test that needs a cold cache, the
benchmark's start-up probe, makes its own.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

DASK_FIXTURES = {"dask_cluster", "dask_backend"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses the shared dask cluster as `dist`."""
    for item in items:
        if DASK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.dist)


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
