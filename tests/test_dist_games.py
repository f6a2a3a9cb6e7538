"""Whole games, comparisons and the skill index on a dask LocalCluster equal the local run
bit for bit (the game tasks are portable: workers rebuild the jobs from their specs)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import simulate as sim
from simulate.errors import BidlabInputError
from simulate.games.compare import compare_games, skill_index
from simulate.games.job import make_game_job
from simulate.games.simulate import simulate_games
from simulate.games.tasks import GameSpec, GameTask
from simulate.rules.load import VARIANTS_DIR
from simulate.runner.backends import DaskBackend, LocalBackend

distributed = pytest.importorskip("distributed")


def test_games_on_dask_equal_local(dask_backend: DaskBackend) -> None:
    v = sim.load_variant("horseshoes", stars=True)
    local = simulate_games(v, 1500, seed=3, keep="records", chunk_size=400, workers=2)
    remote = simulate_games(v, 1500, seed=3, keep="records", chunk_size=400,
                            backend=dask_backend)
    assert np.array_equal(local.rows, remote.rows)
    assert np.array_equal(local.by_size, remote.by_size)
    assert local.metrics.equals(remote.metrics)
    threads = simulate_games(v, 1500, seed=3, keep="records", chunk_size=400,
                             backend=LocalBackend(2))
    assert np.array_equal(local.rows, threads.rows)


def test_compare_and_skill_on_dask_equal_local(dask_backend: DaskBackend,
                                               tmp_path: Path) -> None:
    a = sim.load_variant("kings_and_fools")
    # a designer's own file travels to the workers as bytes
    text = (VARIANTS_DIR / "kings_and_fools.toml").read_text()
    own = tmp_path / "my_kf.toml"
    own.write_text(text.replace('exact = "10 * bid"', 'exact = "10 * bid + 2"', 1))
    b = sim.load_variant(str(own))
    assert "@" in b.canonical
    local = compare_games(a, b, 600, seed=2, chunk_size=200, workers=2)
    remote = compare_games(a, b, 600, seed=2, chunk_size=200, backend=dask_backend)
    assert local.equals(remote)
    assert skill_index(a, 600, seed=2, chunk_size=200) == \
        skill_index(a, 600, seed=2, chunk_size=200, backend=dask_backend)


def test_game_tasks_pickle_without_their_jobs() -> None:
    job = make_game_job(sim.load_variant("hoffer"), 100, 0, "greedy+greedy", 2)
    task = GameTask("games", (GameSpec.of(job),), 50, jobs=(job,))
    again = pickle.loads(pickle.dumps(task))
    assert again.jobs is None and again.specs == task.specs
    assert all(np.array_equal(x, y) for x, y in zip(task(1), again(1), strict=True))


def test_a_worker_with_other_tables_refuses() -> None:
    job = make_game_job(sim.load_variant("hoffer"), 100, 0, "greedy+greedy", 2)
    spec = GameSpec.of(job)
    wrong = GameSpec(spec.variant, spec.games, spec.seed, spec.policies, spec.stars, "0" * 64)
    with pytest.raises(BidlabInputError, match="different rule tables"):
        wrong.build()


@pytest.mark.dist
def test_games_command_on_a_local_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    from simulate.cli.main import main

    def run(argv: list[str]) -> str:
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        return capsys.readouterr().out

    local = run(["games", "hoffer", "--games", "300", "--no-skill"])
    assert run(["games", "hoffer", "--games", "300", "--no-skill", "--dask", "local",
                "--workers", "1"]) == local
    with pytest.raises(SystemExit) as exc:
        main(["games", "hoffer", "--games", "30", "--dask", "remote"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "allowed: local" in err and err.count("\n") == 1
