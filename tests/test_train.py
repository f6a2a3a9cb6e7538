"""Training the table bidder (simulate.hands.train): fresh deals every iteration, a held-out
seed no iteration trains on, the best held-out table kept, the file keeping its one-card
table; and a tournament entrant `table@FILE` playing another file's table."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simulate as sim
import simulate.hands.train as train_mod
from simulate.hands.exploit import HELD_OUT_SEED
from simulate.hands.tournament import run_tournament
from simulate.tables import layout as L
from simulate.tables.compile import (
    compile_tables,
    record_model,
    record_trained_sizes,
    trained_sizes,
)
from simulate.tables.trained import SHIPPED_DIR, model_sizes, table_file


@pytest.fixture
def restored() -> Iterator[sim.Variant]:
    """Kings and Fools with 2 players, its in-process table put back after the test (training
    writes into the compiled tables other tests read)."""
    v = sim.load_variant("kings_and_fools", players=2)
    tables = compile_tables(v)
    saved, sizes, model = tables.bid_table.copy(), trained_sizes(v), tables.bid_model
    yield v
    np.copyto(compile_tables(v).bid_table, saved)
    record_model(v, model)
    record_trained_sizes(v, sizes)


def test_every_iteration_trains_on_fresh_deals_and_never_on_the_held_out_seed(
        restored: sim.Variant, monkeypatch: pytest.MonkeyPatch) -> None:
    v, h, seed = restored, 3, 5
    runs: list[tuple[int, int]] = []   # (seed, forced seat or -1) of every run
    real = train_mod._run_records

    def spy(job, workers):  # type: ignore[no-untyped-def]
        runs.append((int(job.config.seed), int(job.tables.P[L.OVERRIDE_SEAT])))
        return real(job, workers)

    monkeypatch.setattr(train_mod, "_run_records", spy)
    out = train_mod.train_hand_size(v, h, 1_000, seed, 3, 1, lambda _: None, held_out=1_000,
                                    patience=3)
    training = [s for s, seat in runs if seat >= 0]
    held = {s for s, seat in runs if seat < 0}
    per_iteration = [it["seed"] for it in out["iterations"]]
    assert len(per_iteration) == 3 and len(set(per_iteration)) == 3      # fresh every time
    assert per_iteration == [train_mod.iteration_seed(seed, h, i) for i in range(3)]
    assert set(training) == set(per_iteration)
    assert len(training) == 3 * v.players * (h + 1)   # every seat, every candidate bid
    assert held == {train_mod.held_out_seed(seed, h)} == {out["held_out_seed"]}
    assert not held & set(training)
    assert len(runs) - len(training) == 4             # the start and each iteration's candidate
    # the held-out seed is apart from every training seed of any size and from the
    # exploitability measurement's seeds
    others = {train_mod.iteration_seed(seed, k, i) for k in range(1, 20) for i in range(50)}
    assert train_mod.held_out_seed(seed, h) not in others
    assert not {train_mod.held_out_seed(seed, k) for k in range(1, 20)} & \
        {HELD_OUT_SEED + d for d in range(16)}


def test_the_table_kept_is_the_best_on_the_held_out_deals(restored: sim.Variant) -> None:
    v, h = restored, 3
    out = train_mod.train_hand_size(v, h, 1_000, 9, 3, 1, lambda _: None, held_out=2_000,
                                    patience=3)
    scored = [(it["held_out"], it["iteration"]) for it in out["iterations"]]
    kept = train_mod.held_out_scores(v, h, 2_000, out["held_out_seed"], 1, 1).mean()
    best = out["best_iteration"]
    if best:
        assert kept == pytest.approx(max(scored)[0]) and max(scored)[1] == best
    else:                                   # no candidate beat the starting table
        assert all(score <= kept + 1e-12 for score, _ in scored)


def test_a_retrained_file_keeps_its_one_card_table(restored: sim.Variant,
                                                   tmp_path: Path) -> None:
    v = restored
    shipped = np.load(table_file(v, SHIPPED_DIR))["one_card"]
    lines: list[str] = []
    path = train_mod.train(v, [1, 2], deals=1_000, max_iter=1, workers=1, folder=tmp_path,
                           echo=lines.append, patience=1, model_deals=4_000, quality_hands=20)
    with np.load(path) as data:
        assert np.array_equal(data["one_card"], shipped)
        assert 2 in set(data["sizes"].tolist())
        assert str(data["canonical"]) == v.canonical
        # the learned model was trained on top (kept or not, its held-out verdict printed)
        assert any("2 cards, model iteration 1" in line for line in lines)
        # the sizes not retrained keep the model they shipped with
        shipped_model = np.load(table_file(v, SHIPPED_DIR))["bid_model"]
        assert set(model_sizes(shipped_model)) - {2} <= set(model_sizes(data["bid_model"]))
        # the bidder's figures: measured at the sizes trained (before and after training
        # them), the shipped ones kept for the others
        columns = [str(c) for c in data["quality_columns"]]
        quality = pd.DataFrame(data["quality"], columns=columns)
        assert quality.loc[quality["hand_size"] <= 2, "hands"].tolist() == [20, 20]
        assert sorted(quality["hand_size"]) == sorted(set(v.schedule))
        assert any("2 cards, the bidder before training" in line for line in lines)


def test_a_table_file_entrant_plays_that_files_table(tmp_path: Path) -> None:
    """The same table from a copy of its file is the same bidder (identical figures); a file
    whose cells are all untrained is the heuristic (identical figures too)."""
    v = sim.load_variant("hoffer")
    copy = tmp_path / "old.npz"
    shutil.copy(table_file(v, SHIPPED_DIR), copy)
    res = run_tournament(v, [("precision", "table"), ("precision", f"table@{copy}")], 2_000,
                         seed=3, hand_sizes=[4], workers=1)
    assert res.table["entrant"].tolist() == ["precision+table", "precision+table@old.npz"]
    assert res.pairs["diff"].iloc[0] == 0.0
    with np.load(copy) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["bid_table"] = np.full_like(arrays["bid_table"], -1)
    arrays.pop("bid_model", None)     # nor learned weights: the file's entrant has none
    empty = tmp_path / "empty.npz"
    np.savez_compressed(empty, **arrays)
    a = run_tournament(v, [("precision", f"table@{empty}"), ("random", "random")], 2_000,
                       seed=3, hand_sizes=[4], workers=1)
    b = run_tournament(v, [("precision", "heuristic"), ("random", "random")], 2_000, seed=3,
                       hand_sizes=[4], workers=1)
    assert a.table["mean_score"].tolist() == b.table["mean_score"].tolist()
    t = run_tournament(v, [("precision", "table"), ("precision", f"table@{empty}")], 2_000,
                       seed=3, hand_sizes=[4], workers=1)
    assert t.pairs["diff"].iloc[0] != 0.0


def test_a_table_file_of_another_configuration_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.npz"
    shutil.copy(table_file(sim.load_variant("oh_hell"), SHIPPED_DIR), other)
    with pytest.raises(sim.BidlabInputError, match="trained for"):
        run_tournament(sim.load_variant("hoffer"),
                       [("precision", "table"), ("precision", f"table@{other}")], 200,
                       hand_sizes=[4], workers=1)
    with pytest.raises(sim.BidlabInputError, match="no such trained-table file"):
        run_tournament(sim.load_variant("hoffer"),
                       [("precision", "table"), ("precision", f"table@{tmp_path}/none.npz")],
                       200, hand_sizes=[4], workers=1)


def test_a_trained_files_card_rates_are_not_measured_again() -> None:
    """The first card_rates call of a process, before anything compiled the configuration,
    returns the shipped file's rates (its bid table was trained on their hand classes); it
    used to measure them again, and training then saved the re-measured ones."""
    import subprocess
    import sys

    code = ("import numpy as np, simulate as sim\n"
            "from simulate.hands.job import card_rates\n"
            "from simulate.tables.trained import SHIPPED_DIR, model_sizes, table_file\n"
            "v = sim.load_variant('hyjack')\n"
            "rate = card_rates(v, 3)\n"
            "print(np.array_equal(rate, np.load(table_file(v, SHIPPED_DIR))['card_rate'][3]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parent.parent)
    assert out.stdout.strip() == "True", out.stderr


def _users_copy(v: sim.Variant, folder: Path) -> Path:
    """A copy of v's shipped file in `folder` whose every trained cell bids 0 and whose
    learned weights are all 0: a table the user trained, and unlike the shipped one."""
    with np.load(table_file(v, SHIPPED_DIR)) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["bid_table"] = np.where(arrays["bid_table"] >= 0, 0, arrays["bid_table"])
    arrays["bid_model"] = np.where(np.isnan(arrays["bid_model"]), np.nan, 0.0).astype(np.float32)
    path = table_file(v, folder)
    np.savez_compressed(path, **arrays)
    return path


def test_a_table_the_user_trained_comes_before_the_shipped_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configuration the user retrained (its file in the user's folder) bids with the
    user's table, weights and figures, not the shipped ones, which it used to do silently;
    without the user's file the shipped one is read again."""
    import dataclasses

    import simulate.tables.trained as trained_mod

    v = sim.load_variant("hoffer")
    monkeypatch.setattr(trained_mod, "user_dir", lambda: tmp_path)
    mine = _users_copy(v, tmp_path)
    have = compile_tables(v)

    def loaded() -> tuple[np.ndarray, np.ndarray | None, Path | None]:
        tables = dataclasses.replace(have, bid_table=have.bid_table.copy(),
                                     card_rate=have.card_rate.copy())
        trained_mod.load_trained(v, tables)
        source = trained_mod.trained_source(v, tables.bid_table.shape)
        weights = trained_mod.load_model(v, have.bid_model.shape)
        return tables.bid_table, weights, None if source is None else source[0]

    table, weights, source = loaded()
    assert source == mine
    assert ((table == 0) | (table == -1)).all() and (table == 0).any()
    assert weights is not None and np.nanmax(np.abs(weights)) == 0.0
    mine.unlink()
    table, weights, source = loaded()
    assert source == table_file(v, SHIPPED_DIR)
    with np.load(source) as data:
        assert np.array_equal(table, data["bid_table"])
        assert np.array_equal(weights, data["bid_model"], equal_nan=True)


@pytest.mark.parametrize("into_users_folder", [True, False])
def test_train_says_whether_the_bidder_reads_its_file(
        into_users_folder: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`bidlab train` ends by saying whether the `table` bidder reads the file it wrote from
    now on (the user's folder; in place of the shipped one), or how to use it (elsewhere)."""
    import simulate.tables.trained as trained_mod
    from tests.test_cli import run_main

    users, elsewhere = tmp_path / "users", tmp_path / "elsewhere"
    users.mkdir()
    elsewhere.mkdir()
    monkeypatch.setattr(trained_mod, "user_dir", lambda: users)
    monkeypatch.setattr(train_mod, "train",
                        lambda v, sizes=None, folder=None, **kw: _users_copy(v, folder or users))
    args = ["train", "hoffer", "--iterations", "1"]
    code, out, err = run_main(capsys, *args, *([] if into_users_folder else
                                              ["--out", str(elsewhere)]))
    assert code == 0, err
    last = out.strip().splitlines()[-1]
    if into_users_folder:
        assert "reads this file from now on instead of the shipped one" in last, out
    else:
        assert f"reads trained files from {users}" in last and "table@" in last, out
