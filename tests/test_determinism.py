"""Determinism audit: one seed, one answer, whatever runs it.

Summary and records arrays must be identical across thread counts, chunk sizes, backends
(local threads, a dask LocalCluster of worker processes), repeated runs, and a run killed by
a signal and resumed from its run directory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from _support import load

import simulate as sim
from simulate.runner.rundir import chunk_name

CASES = [  # (game, players, hand size, play, bid): scoring events, specials, auction
    ("hyjack", 5, 6, "precision", "table"),
    ("hasenpfeffer", 4, 6, "precision", "table"),
]
HANDS = 10_000


def result(game, players, h, play, bid, keep, **kw) -> tuple[np.ndarray, ...]:
    v = load(game, players)
    res = sim.simulate_hands(v, h, HANDS, seed=kw.pop("seed", 42), play=play, bid=bid,
                             keep=keep, **kw)
    return res._summary if keep == "summary" else res._records  # type: ignore[return-value]


def assert_identical(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    return request.param


@pytest.fixture(scope="module")
def reference(case):
    return {keep: result(*case, keep, workers=1, chunk_size=HANDS) for keep in
            ("summary", "records")}


@pytest.mark.parametrize("keep", ["summary", "records"])
@pytest.mark.parametrize("workers,chunk", [(1, 1000), (2, 1000), (2, 4096), (1, 4096),
                                           (2, 65536)])
def test_threads_and_chunk_sizes(case, reference, keep, workers, chunk):
    assert_identical(result(*case, keep, workers=workers, chunk_size=chunk), reference[keep])


def test_repeated_runs_and_another_seed_differs(case, reference):
    assert_identical(result(*case, "summary", workers=2, chunk_size=3000), reference["summary"])
    other = result(*case, "summary", workers=2, chunk_size=3000, seed=43)
    assert any(x.tobytes() != y.tobytes() for x, y in zip(other, reference["summary"],
                                                           strict=True))


@pytest.mark.parametrize("keep,chunk", [("summary", 1000), ("records", 4096)])
def test_dask_local_cluster(case, reference, dask_backend, keep, chunk):
    assert_identical(result(*case, keep, chunk_size=chunk, backend=dask_backend),
                     reference[keep])


def test_run_dir_gives_the_same_arrays(case, reference, tmp_path):
    for keep in ("summary", "records"):
        assert_identical(result(*case, keep, chunk_size=1500, run_dir=tmp_path / keep),
                         reference[keep])


# ----- a real kill ----------------------------------------------------------------------------

KILL_ARGS = ["oh_hell", "-p", "4", "-c", "10", "--hands", "1000000", "--chunk-size", "5000",
             "--seed", "7", "--no-progress"]


def _bidlab(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "simulate", "simulate", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _wait_for(predicate, timeout: float, proc: subprocess.Popen) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"bidlab ended (status {proc.returncode}) before the signal: {err}")
        if time.monotonic() > end:
            proc.kill()
            pytest.fail("no chunk files appeared in time")
        time.sleep(0.01)      # polling a condition with a deadline, not a timing assumption


@pytest.fixture(scope="module")
def uninterrupted():
    """The kill workload's printed table and summary arrays, run in one go."""
    from click.testing import CliRunner

    from simulate.cli.main import cli

    out = CliRunner().invoke(cli, ["simulate", *KILL_ARGS])
    assert out.exit_code == 0, out.output
    v = load("oh_hell", 4)
    res = sim.simulate_hands(v, 10, 1_000_000, seed=7, keep="summary", chunk_size=65536)
    return out.stdout, res._summary


@pytest.mark.dist
@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_killed_and_resumed_run_equals_uninterrupted(tmp_path, uninterrupted, signum, status):
    folder = tmp_path / "run"
    proc = _bidlab(*KILL_ARGS, "--workers", "1", "--run-dir", str(folder))
    _wait_for(lambda: len(list(folder.glob("chunk-*.npz"))) >= 3, 120, proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    kept = sorted(folder.glob("chunk-*.npz"))
    assert proc.returncode == status, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"interrupted: {len(kept)} of 200 chunks kept; resume "
                                            f"with bidlab simulate --resume {folder}")
    assert 3 <= len(kept) < 200, "stopped mid-run, every finished chunk kept"
    assert not list(folder.glob(".*.part")), "no half-written chunk"

    # corrupt one kept chunk too: it must be reported and recomputed, not merged
    victim = kept[1]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x55
    victim.write_bytes(bytes(data))
    resumed = _bidlab("--resume", str(folder), "--workers", "2")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"{victim}: " in err and "deleted, it will be computed again" in err
    assert out == uninterrupted[0]
    assert sorted(p.name for p in folder.glob("chunk-*.npz")) == [chunk_name(i) for i in
                                                                  range(200)]
    # the arrays merged from the run directory are the uninterrupted run's, bit for bit
    v = load("oh_hell", 4)
    merged = sim.simulate_hands(v, 10, 1_000_000, seed=7, keep="summary", chunk_size=5000,
                                run_dir=folder)
    assert_identical(merged._summary, uninterrupted[1])


@pytest.mark.dist
def test_kill_before_any_chunk_leaves_a_resumable_folder(tmp_path):
    """SIGTERM right after the manifest is written: nothing kept, resume does everything."""
    folder = tmp_path / "run"
    proc = _bidlab("kings_and_fools", "-p", "3", "-c", "4", "--hands", "3000", "--chunk-size",
                   "1000", "--no-progress", "--run-dir", str(folder),
                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    _wait_for(lambda: (folder / "manifest.json").exists(), 120, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err
    assert proc.returncode in (0, 143, -signal.SIGTERM)
    again = _bidlab("--resume", str(folder))
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert "3,000 hands of 4 cards" in out
