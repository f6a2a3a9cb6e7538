"""Backends: local threads and dask.distributed hand chunk results over in chunk order, and a
dask run equals a local run bit for bit (the workers rebuild the job from a picklable spec)."""

from __future__ import annotations

import pickle
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from _support import load

import simulate as sim
from simulate.cli.main import main
from simulate.hands.job import make_job
from simulate.hands.simulate import records_arrays, summary_arrays
from simulate.hands.tasks import ChunkTask, JobSpec, tables_digest
from simulate.rules.load import VARIANTS_DIR
from simulate.runner.backends import DaskBackend, LocalBackend, make_backend
from simulate.runner.specs import VariantSpec

distributed = pytest.importorskip("distributed")


# ----- the ordered-chunk loop ---------------------------------------------------------------

def test_local_backend_hands_results_over_in_order_even_when_later_chunks_finish_first():
    # chunk 0 waits until every later chunk has finished: a backend that handed results over
    # as they come would deliver 0 last
    later_done = threading.Event()
    finished: list[int] = []
    lock = threading.Lock()

    def work(i: int) -> int:
        if i == 0:
            assert later_done.wait(10)
        else:
            with lock:
                finished.append(i)
                if len(finished) == 3:
                    later_done.set()
        return i * i

    got: list[tuple[int, int]] = []
    LocalBackend(2).run(work, range(4), lambda i, v: got.append((i, v)))
    assert got == [(0, 0), (1, 1), (2, 4), (3, 9)]


def test_local_backend_unordered_and_subset():
    got: dict[int, int] = {}
    n = LocalBackend(2).run(lambda i: -i, [5, 2, 9], lambda i, v: got.__setitem__(i, v),
                            ordered=False)
    assert n == 3 and got == {5: -5, 2: -2, 9: -9}


def test_stop_flag_stops_submitting():
    stop = threading.Event()
    ran: list[int] = []

    def work(i: int) -> int:
        ran.append(i)
        if i == 3:
            stop.set()
        return i

    taken: list[int] = []
    LocalBackend(1).run(work, range(100), lambda i, v: taken.append(i), stop=stop)
    assert taken == [0, 1, 2, 3]
    taken.clear()
    stop.clear()
    ran.clear()
    LocalBackend(2).run(work, range(100), lambda i, v: taken.append(i), stop=stop)
    # a bounded window: only the chunks already in flight when it was set still finish
    assert 3 in ran and len(ran) <= 3 + 2 * 2 and taken == sorted(taken)


def test_error_in_a_chunk_propagates():
    def work(i: int) -> int:
        if i == 5:
            raise RuntimeError("boom")
        return i

    with pytest.raises(RuntimeError, match="boom"):
        LocalBackend(2).run(work, range(20), lambda i, v: None)


# ----- the picklable job -----------------------------------------------------------------------

def test_chunk_task_pickles_without_the_job_and_rebuilds_the_same_tables():
    v = load("hoffer", 4)
    job = make_job(v, 5, 10_000, 3, "precision", "table", None, {2: "HIJO AS KS 9H 10D"}, None)
    spec = JobSpec.of(job, 1000, "summary")

    task = ChunkTask(spec, job)
    blob = pickle.dumps(task)
    assert len(blob) < 20_000, "only the spec travels"
    clone = pickle.loads(blob)
    assert clone.job is None and clone.spec == spec
    assert tables_digest(spec.build()) == spec.digest
    for a, b in zip(task(3), clone(3), strict=True):
        np.testing.assert_array_equal(a, b)


def test_variant_spec_of_an_edited_file_carries_its_bytes(tmp_path: Path):
    text = (VARIANTS_DIR / "hoffer.toml").read_text(encoding="utf-8")
    path = tmp_path / "mine.toml"
    path.write_text(text + "\n# a comment makes it another file\n", encoding="utf-8")
    v = sim.load_variant(str(path), players=3)
    spec = VariantSpec.of(v)
    assert spec.toml is not None and "@" in spec.canonical
    path.unlink()                                   # a worker never needs the file itself
    assert spec.load().canonical == v.canonical
    shipped = VariantSpec.of(load("hoffer", 3))
    assert shipped.toml is None and shipped.load().canonical == shipped.canonical


def test_spec_with_other_tables_is_refused():
    v = load("oh_hell", 4)
    job = make_job(v, 5, 1000, 0, "greedy", "greedy", None, None, None)
    spec = JobSpec.of(job, 500, "summary")
    bad = JobSpec(**{**spec.__dict__, "digest": "0" * 64})
    with pytest.raises(sim.BidlabInputError, match="different rule tables"):
        bad.build()


# ----- dask ----------------------------------------------------------------------------------

@pytest.mark.parametrize("game,players,h,play,bid", [
    ("hoffer", 4, 5, "precision", "table"),
    ("hasenpfeffer", 4, 6, "precision", "heuristic"),     # calibration runs on the workers too
])
def test_dask_summary_equals_local_bit_for_bit(dask_backend, game, players, h, play, bid):
    v = load(game, players)
    job = make_job(v, h, 9_000, 11, play, bid, None, None, None)
    local, smin = summary_arrays(job, 2, 2_000, card_stats=True)
    remote, smin2 = summary_arrays(job, 2, 2_000, card_stats=True, backend=dask_backend)
    assert smin == smin2
    for a, b in zip(local, remote, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert local[0].sum() == 9_000 * players


def test_dask_records_equal_local_bit_for_bit(dask_backend):
    v = load("kings_and_fools", 3)
    job = make_job(v, 4, 5_000, 7, "precision", "table", None, {1: "KS FOOL 7H 2C"}, None)
    local = records_arrays(job, 1, 700)
    remote = records_arrays(job, 1, 700, backend=dask_backend)
    for a, b in zip(local, remote, strict=True):
        np.testing.assert_array_equal(a, b)


def test_dask_runs_an_edited_variant_file(dask_backend, tmp_path: Path):
    text = (VARIANTS_DIR / "oh_hell.toml").read_text(encoding="utf-8")
    path = tmp_path / "oh_hell_edit.toml"
    path.write_text(text + "\n# edited\n", encoding="utf-8")
    v = sim.load_variant(str(path), players=4)
    a = sim.simulate_hands(v, 5, 3_000, seed=2, keep="summary", chunk_size=1_000)
    b = sim.simulate_hands(v, 5, 3_000, seed=2, keep="summary", chunk_size=1_000,
                           backend=dask_backend)
    for x, y in zip(a._summary, b._summary, strict=True):
        np.testing.assert_array_equal(x, y)


def test_dask_backend_only_runs_chunk_tasks(dask_backend):
    with pytest.raises(TypeError):
        dask_backend.run(lambda i: i, range(3), lambda i, v: None)


def test_cli_scheduler_gives_the_same_output_as_local(dask_cluster, capsys):
    args = ["simulate", "oh_hell", "-p", "4", "-c", "6", "--hands", "4000", "--chunk-size",
            "900", "--no-progress"]
    outputs = []
    for extra in ([], ["--scheduler", dask_cluster.scheduler_address]):
        with pytest.raises(SystemExit) as exc:
            main(args + extra)
        assert exc.value.code == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


# ----- bad input ---------------------------------------------------------------------------

def test_unreachable_scheduler_is_one_clear_error():
    with pytest.raises(sim.BidlabInputError, match="cannot reach the dask scheduler"):
        DaskBackend(scheduler="tcp://127.0.0.1:9", connect_timeout=0.5)


def test_missing_dask_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)     # import now raises ImportError
    with pytest.raises(sim.BidlabInputError, match="dist extra") as info:
        make_backend(dask="local")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("args,needle", [
    (["--dask", "remote"], "allowed: local"),
    (["--dask", "local", "--scheduler", "tcp://x:1"], "not both"),
    (["--chunk-size", "0"], "--chunk-size must be a positive"),
    (["--run-dir", "a", "--resume", "b"], "not both"),
])
def test_cli_backend_options_bad_input(args, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "hoffer", "--hands", "100", "--no-progress", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bidlab: error:") and needle in err[0], err
    assert list(tmp_path.iterdir()) == []
