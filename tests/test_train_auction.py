"""The table bidder's auction (simulate.hands.train_auction; issue 14 part 6): the kernel
raises to the highest step its table gives each hand class and calls alone by it, the
Python classing equals the kernel's, training gains on held-out deals, and a worse table
is refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_cli import assert_one_line_error, run_main

import simulate as sim
from simulate.hands import train_auction as ta
from simulate.kernel.hand import H_ALONE, H_CONTRACT, H_MAKER, H_TRUMP, H_VOIDED
from simulate.reference.engine import replay_hand
from simulate.tables import layout as L
from simulate.tables.compile import compile_tables

H = 6


def _restored(v: sim.Variant) -> Iterator[sim.Variant]:
    tables = compile_tables(v)
    saved = tables.bid_table.copy()
    try:
        yield v
    finally:
        np.copyto(compile_tables(v).bid_table, saved)


@pytest.fixture
def standard() -> Iterator[sim.Variant]:
    """Hasenpfeffer at its defaults, its in-process tables put back after the test."""
    yield from _restored(sim.load_variant("hasenpfeffer"))


@pytest.fixture
def alone() -> Iterator[sim.Variant]:
    """Hasenpfeffer where the maker may go alone, its tables put back after the test."""
    yield from _restored(sim.load_variant("hasenpfeffer", allow_alone=True))


def _planted_limits(v: sim.Variant) -> np.ndarray:
    """A table giving every (seat, class) its own highest step, so that a wrong class or
    seat shows up as a wrong action."""
    table = compile_tables(v).bid_table
    n_steps = int(compile_tables(v).P[L.N_STEPS])
    seat, k, t = np.meshgrid(np.arange(table.shape[1]), np.arange(table.shape[2]),
                             np.arange(table.shape[3]), indexing="ij")
    return ((3 * seat + k + 2 * t) % (n_steps + 1)).astype(np.int8)


def test_kernel_raises_to_the_planted_step_of_each_class(standard: sim.Variant) -> None:
    v = standard
    tables = compile_tables(v)
    limits = _planted_limits(v)
    tables.bid_table[H, :, :, :, L.AUCTION_LIMIT_AT] = limits
    n_steps = int(tables.P[L.N_STEPS])
    res = sim.simulate_hands(v, H, 400, seed=11, workers=1)
    records = res.traces(400)
    checked = 0
    for rec in records:
        assert replay_hand(v, rec) == []          # every decision legal and in turn
        masks = np.array([sum(1 << c for c in hand) for hand in rec.hands], dtype=np.uint64)
        k, held = ta.auction_class(v, H, masks)
        high = 0
        for kind, seat, value in rec.decisions:
            if kind != "auction":
                continue
            limit = int(limits[seat, k[seat], held[seat]])
            want = high + 1 if high < n_steps and high + 1 <= limit else 0
            assert value == want, (rec.hands[seat], seat, high, limit, value)
            high = max(high, value)
            checked += 1
    assert checked > 1000


def test_lone_calls_follow_the_planted_table(alone: sim.Variant) -> None:
    v = alone
    tables = compile_tables(v)
    tables.bid_table[H, :, :, :, L.AUCTION_LIMIT_AT] = _planted_limits(v)
    seat, k, t = np.meshgrid(np.arange(v.players), np.arange(tables.bid_table.shape[2]),
                             np.arange(tables.bid_table.shape[3]), indexing="ij")
    calls = ((seat + k + t) % 2).astype(np.int8)
    tables.bid_table[H, :, :, :, L.ALONE_AT] = calls
    data = sim.simulate_hands(v, H, 3000, seed=5, workers=1).records_data
    assert data is not None
    hand_out, masks = data.hand_out, data.masks
    maker = hand_out[:, H_MAKER]
    step = hand_out[:, H_CONTRACT]
    choice = (hand_out[:, H_VOIDED] == 0) & (maker >= 0) & \
        (tables.ladder[np.maximum(step, 0), 2] == 0)
    rows = np.flatnonzero(choice)
    m = maker[rows]
    with_widow = masks[rows, m] | masks[rows, v.players]
    kk, tt = ta.class_under(v, H, with_widow, hand_out[rows, H_TRUMP].astype(np.int64))
    want = calls[m, kk, tt] == 1
    went = hand_out[rows, H_ALONE] == m
    assert want.any() and (~want).any()
    np.testing.assert_array_equal(went, want)


def test_training_gains_on_held_out_deals_and_a_worse_table_is_refused(
        standard: sim.Variant) -> None:
    v = standard
    tables = compile_tables(v)
    tables.bid_table[H] = -1                      # start from the heuristic
    out = ta.train_auction(v, H, 6_000, seed=3, max_iter=1, workers=1, echo=lambda s: None)
    first = out["iterations"][0]
    assert first["kept"] and first["gain"] > 3 * first["se"], first
    assert first["auction_cells"] > 20
    trained = tables.bid_table[H, :, :, :, L.AUCTION_LIMIT_AT]
    assert (trained >= 0).sum() == first["auction_cells"]
    # a table that never bids is worse than the trained one, on deals of its own seed
    never = tables.bid_table[H].copy()
    never[:, :, :, L.AUCTION_LIMIT_AT] = np.where(never[:, :, :, L.AUCTION_LIMIT_AT] >= 0, 0, -1)
    gain, se = ta.deviation_gain(v, H, never, 6_000, seed=99, workers=1)
    assert gain + 3 * se < 0, (gain, se)
    np.testing.assert_array_equal(tables.bid_table[H, :, :, :, L.AUCTION_LIMIT_AT], trained)


def test_training_and_held_out_seeds_are_apart() -> None:
    held = ta.auction_held_out_seed(1, H)
    assert all(ta.auction_iteration_seed(1, H, i) != held for i in range(50))
    assert len({ta.auction_iteration_seed(1, H, i) for i in range(50)}) == 50


def test_train_refuses_an_auction_without_iterations(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    """An auction game trains only its auction table: `--iterations 0` gets one line, exit
    status 2, and no file is written."""
    code, out, err = run_main(capsys, "train", "hasenpfeffer", "--iterations", "0",
                              "--out", str(tmp_path))
    assert_one_line_error(code, err, "iterations=0", "auction")
    assert list(tmp_path.iterdir()) == []


def test_training_stores_the_kept_tables_figures(standard: sim.Variant, tmp_path: Path) -> None:
    """`bidlab train` on an auction game stores the kept table's figures with it (its margin
    over the heuristic auction and the gain of one more best response, on deals no step
    saw), and they read back from the file."""
    import simulate.hands.train as train_mod

    v = standard
    compile_tables(v).bid_table[H] = -1
    path = train_mod.train(v, deals=4_000, max_iter=1, held_out=4_000, workers=1,
                           folder=tmp_path, echo=lambda s: None)
    with np.load(path) as data:
        columns = [str(c) for c in data["quality_columns"]]
        row = dict(zip(columns, data["quality"][0], strict=True))
    assert tuple(columns) == ta.FIGURES and row["hand_size"] == H
    assert row["deals"] == 4_000 and row["iterations"] == 1
    assert row["margin_vs_heuristic"] > 3 * row["margin_vs_heuristic_se"]
    assert row["deviation_se"] > 0
