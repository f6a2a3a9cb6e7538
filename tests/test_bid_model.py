"""The learned bidder (simulate.tables.bid_model, simulate.hands.train_model): the kernel bids
exactly what the fitted weights predict, seat by seat, under the hook and with simultaneous
bids; the ridge fit recovers a linear law; training keeps only candidates that gain on
held-out deals; trained files carry the weights."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import simulate as sim
import simulate.hands.train_model as tm
import simulate.tables.trained as trained_mod
from simulate.hands.exploit import natural_bids
from simulate.hands.job import make_job
from simulate.hands.player import Player
from simulate.kernel.hand import H_TRUMP, S_BID, bid_limits, bid_weights
from simulate.kernel.jit import kernel_jit
from simulate.kernel.policies import joint_trump
from simulate.tables import layout as L
from simulate.tables.bid_model import NO_MODEL, active_columns, design_matrix, predict
from simulate.tables.compile import compile_tables, model_shape, record_model
from simulate.tables.layout import CELL_BID
from simulate.tables.trained import load_model, model_sizes, save_trained, table_file


@pytest.fixture
def oh_hell_3p() -> Iterator[sim.Variant]:
    """Classic Oh Hell with 3 players (sequential bids, the dealer's hook), its in-process
    learned weights put back after the test (fitting writes into the compiled tables other
    tests read)."""
    v = sim.load_variant("oh_hell", players=3)
    saved = compile_tables(v).bid_model
    yield v
    record_model(v, saved)


@pytest.fixture
def hoffer_3p() -> Iterator[sim.Variant]:
    """Hoffer with 3 players (simultaneous bids), its learned weights put back after."""
    v = sim.load_variant("hoffer", players=3)
    saved = compile_tables(v).bid_model
    yield v
    record_model(v, saved)


def _fit_and_use(v: sim.Variant, h: int, deals: int, seed: int) -> np.ndarray:
    cand = np.stack([tm.fit_seat(v, tm.seat_data(v, h, s, deals, seed, 1))
                     for s in range(v.players)])
    model = np.full(model_shape(v, compile_tables(v)), np.nan, np.float32)
    model[h] = cand
    record_model(v, model)
    return cand


@pytest.fixture
def horseshoes_4p() -> Iterator[sim.Variant]:
    """Horseshoes with 4 players (the first bidder names trump), its learned weights put
    back after."""
    v = sim.load_variant("horseshoes", players=4)
    saved = compile_tables(v).bid_model
    yield v
    record_model(v, saved)


def test_the_trump_chooser_names_trump_and_bid_together(horseshoes_4p: sim.Variant) -> None:
    """The first bidder's model is fitted on every deal under every trump choice, and the
    kernel names the trump whose best bid the weights predict to score best, then bids it
    (tm.joint_choice is the same rule in numpy); no other seat's data is stacked."""
    v = horseshoes_4p
    h = 5
    chooser = tm.trump_chooser_seat(v)
    assert chooser == 0
    data = tm.seat_data(v, h, chooser, 1_000, 5, 1)
    assert data.choices == len(v.trump_choices) == 5 and data.deals == 1_000
    assert sorted(set(data.run.trumps.tolist())) == [0, 1, 2, 3, 4]
    assert tm.seat_data(v, h, 1, 1_000, 5, 1).choices == 1
    cand = _fit_and_use(v, h, 4_000, seed=13)
    job_seed, n = 77, 2_000
    out = sim.simulate_hands(v, h, n, seed=job_seed, workers=1).records_data
    assert out is not None
    data = tm.seat_data(v, h, chooser, n, job_seed, 1)
    rows, k = tm.joint_choice(cand[chooser], data)
    assert (k >= 0).all()
    np.testing.assert_array_equal(data.run.trumps[rows], out.hand_out[:, H_TRUMP])
    np.testing.assert_array_equal(data.run.bids[k], out.seat_out[:, chooser, S_BID])
    # the joint choice is not the heuristic's: some hands name another trump than the
    # hand's weight would
    heuristic = sim.simulate_hands(v, h, n, seed=job_seed, bid="heuristic",
                                   workers=1).records_data
    assert heuristic is not None
    assert (heuristic.hand_out[:, H_TRUMP] != out.hand_out[:, H_TRUMP]).any()


@kernel_jit()
def _joint_choices(P, tabs, h, hands, wants, value, out):
    """joint_trump of seat 0 (first to bid) for each hand into out[N, 2 + 2 * len(wants)]:
    the full choice (want -1), then the look's answer for each wanted trump."""
    lo, hi, excluded = bid_limits(P, False, False, h, 0)
    rate = bid_weights(L.BID_TABLE, tabs.card_rate, tabs.win_weight)
    for r in range(hands.shape[0]):
        out[r, 0], out[r, 1] = joint_trump(P, lo, hi, excluded, hands[r], h, 0, rate, tabs,
                                           value, -1)
        for k in range(wants.shape[0]):
            out[r, 2 + 2 * k], out[r, 3 + 2 * k] = joint_trump(
                P, lo, hi, excluded, hands[r], h, 0, rate, tabs, value, wants[k])


@pytest.mark.parametrize("players", [4, 6])
def test_a_look_for_one_trump_gets_the_full_choices_answer(players: int) -> None:
    """Bid odds conditioned on the trump the first bidder names look at a deal only until
    that is decided (joint_trump with `want`): the wanted choice scored first, then the
    others, shortest suit first, until one would be named before it. For random hands and
    hands with two suits alike (equal predictions, so the tie rule decides) the answer is
    the full choice's, and where the wanted trump is named, so is the same bid."""
    v = sim.load_variant("horseshoes", players=players)
    h = max(v.schedule)
    a = make_job(v, h, 1, 0, "precision", "table", None, None, None).args()
    rng = np.random.default_rng(players)
    hands = [sorted(rng.choice(len(v.cards), h, replace=False).tolist()) for _ in range(600)]
    for _ in range(200):
        # the same ranks in two suits (cards are suit-major: index = 13 * suit + rank)
        s1, s2 = (int(x) for x in rng.choice(4, 2, replace=False))
        ranks = rng.choice(13, h // 2, replace=False)
        rest = [c for c in range(52) if c // 13 not in (s1, s2)]
        hands.append([13 * s1 + int(r) for r in ranks] + [13 * s2 + int(r) for r in ranks]
                     + rng.choice(rest, h - 2 * (h // 2), replace=False).tolist())
    masks = np.array([sum(1 << c for c in hand) for hand in hands], np.uint64)
    wants = np.array([v.trump_index(t) for t in v.trump_choices], np.int64)
    out = np.zeros((len(masks), 2 + 2 * len(wants)), np.int64)
    _joint_choices(a.P, a.tables, h, masks, wants, np.zeros(64), out)
    full_trump, full_bid = out[:, 0], out[:, 1]
    assert (full_trump >= 0).all() and len(set(full_trump.tolist())) == len(wants)
    for k, want in enumerate(wants):
        trump, bid = out[:, 2 + 2 * k], out[:, 3 + 2 * k]
        named = full_trump == want
        np.testing.assert_array_equal(trump == want, named)
        np.testing.assert_array_equal(bid[named], full_bid[named])


@pytest.mark.parametrize("fixture", ["oh_hell_3p", "hoffer_3p"])
def test_the_kernel_bids_what_the_weights_predict(fixture: str,
                                                  request: pytest.FixtureRequest) -> None:
    v: sim.Variant = request.getfixturevalue(fixture)
    h = 4
    cand = _fit_and_use(v, h, 6_000, seed=11)
    nat = natural_bids(v, h, 3_000, 77, workers=1)
    for s in range(v.players):
        data = tm.seat_data(v, h, s, 3_000, 77, 1)
        k = tm.model_choice(cand[s], data)
        assert (k >= 0).all()
        assert np.array_equal(data.run.bids[k], nat[:, s]), f"seat {s}"
        if v.bidding_form == "simultaneous":
            assert not data.run.earlier and (data.group == 0).all()
    # the dealer's model never names the hook's forbidden bid, and sometimes wanted it
    dealer = tm.seat_data(v, h, v.players - 1, 3_000, 77, 1)
    if v.name == "oh_hell":
        forbidden = np.isnan(dealer.run.scores).any(axis=1)
        assert forbidden.any()
        assert not np.isnan(dealer.run.scores[np.arange(3_000),
                                              tm.model_choice(cand[-1], dealer)]).any()
    # one decision at a time (the Player) reads the same weights; Hoffer's dealer names
    # trump, so each hand is asked under its deal's trump (no earlier bid is heard)
    if v.bidding_form == "simultaneous":
        player = Player(v, h)
        for s in range(v.players):
            data = tm.seat_data(v, h, s, 40, 77, 1)
            for i in range(40):
                mask = int(data.run.masks[i])
                hand = [c for c in range(len(v.cards)) if mask >> c & 1]
                assert player.bid(s, hand, trump=int(data.run.trumps[i])) == nat[i, s]


def test_a_size_without_weights_bids_from_the_class_table(oh_hell_3p: sim.Variant) -> None:
    v = oh_hell_3p
    record_model(v, NO_MODEL)
    before = natural_bids(v, 5, 2_000, 5, workers=1)
    _fit_and_use(v, 4, 4_000, seed=3)          # weights at 4 cards only
    assert np.array_equal(natural_bids(v, 5, 2_000, 5, workers=1), before)
    assert not np.array_equal(natural_bids(v, 4, 2_000, 5, workers=1),
                              _without_model(v, 4, 2_000, 5))


def _without_model(v: sim.Variant, h: int, deals: int, seed: int) -> np.ndarray:
    kept = compile_tables(v).bid_model
    record_model(v, NO_MODEL)
    try:
        return natural_bids(v, h, deals, seed, workers=1)
    finally:
        record_model(v, kept)


def test_columns_and_prediction_follow_the_layout() -> None:
    v = sim.load_variant("oh_hell")
    tables = compile_tables(v)
    H, h = tables.score.shape[0] - 1, 3
    mask = sum(1 << v.cards.names.index(c) for c in ("AS", "KS", "2H"))
    cols = active_columns(tables.model_label, tables.card_rate[h], tables.suit_mask, h, H,
                          np.array([mask], np.uint64), np.array([0]))[0]
    labels = tables.model_label[0]
    assert labels[v.cards.names.index("AS")] != labels[v.cards.names.index("AH")]   # trump A
    assert labels[v.cards.names.index("2H")] == labels[v.cards.names.index("2D")]   # side 2
    assert sorted(cols[:3].tolist()) == sorted(labels[v.cards.names.index(c)]
                                               for c in ("AS", "KS", "2H"))
    n_labels = int(tables.model_label.max()) + 1
    assert cols[3] == n_labels + 2                                     # two trumps held
    x = design_matrix(cols[None, :], model_shape(v, tables)[3])
    assert x.sum() == h + 2
    w = np.arange(2 * x.shape[1], dtype=np.float32).reshape(-1, 2)     # [F, 2 bids]
    assert np.allclose(predict(w, cols[None, :])[0], x[0] @ w.astype(float))


def test_ridge_recovers_a_linear_law_and_skips_forbidden_rows() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(5_000, 6)).astype(float)
    true = np.array([[1.0, -2.0, 0.5, 3.0, 0.0, 1.5], [0.0, 1.0, 1.0, -1.0, 2.0, 0.5]])
    y = x @ true.T + rng.normal(0, 0.01, size=(5_000, 2))
    y[:300, 1] = np.nan                       # bid 1 forbidden on some deals
    y[300:, 1] = (x[300:] @ true[1])
    coef = tm.ridge(x, y, np.ones(5_000, np.bool_))
    assert np.allclose(coef, true, atol=0.01)
    few = tm.ridge(x, y, np.arange(5_000) < 100)
    assert np.isnan(few).all()                 # under MIN_ROWS deals: no weights


def test_a_candidate_that_loses_on_held_out_deals_is_rejected(
        oh_hell_3p: sim.Variant, monkeypatch: pytest.MonkeyPatch) -> None:
    v, h = oh_hell_3p, 4
    record_model(v, NO_MODEL)
    shape = model_shape(v, compile_tables(v))

    def always_bid_everything(v: sim.Variant, data: tm.SeatData) -> np.ndarray:
        w = np.zeros((shape[2], shape[3], shape[4]), np.float32)
        w[:, :, h] = 100.0         # every column favours bidding all four tricks
        return w

    seeds: list[int] = []
    real = tm.seat_data

    def spy(v, h, seat, deals, seed, workers):  # type: ignore[no-untyped-def]
        seeds.append(seed)
        return real(v, h, seat, deals, seed, workers)

    monkeypatch.setattr(tm, "fit_seat", always_bid_everything)
    monkeypatch.setattr(tm, "seat_data", spy)
    history = tm.train_model_size(v, h, 2_000, 5, 3, 1, lambda _: None, held_out=2_000,
                                  patience=2)
    assert [it["accepted"] for it in history] == [False, False]
    assert all(it["gain"] + 2 * it["se"] < 0 for it in history)
    assert compile_tables(v).bid_model.shape == NO_MODEL.shape      # nothing recorded
    check = tm.model_held_out_seed(5, h)
    assert check in seeds and set(seeds) - {check} == {tm.model_iteration_seed(5, h, i)
                                                        for i in range(2)}


def test_a_fitted_candidate_gains_on_held_out_deals_and_is_kept(
        oh_hell_3p: sim.Variant) -> None:
    """Against the class table, the model fitted on fresh deals gains when judged on other
    deals (3 players, 5 cards, fixed seeds)."""
    v, h = oh_hell_3p, 5
    record_model(v, NO_MODEL)
    history = tm.train_model_size(v, h, 20_000, 1, 1, 1, lambda _: None, held_out=10_000)
    assert history[0]["accepted"] and history[0]["gain"] > 2 * history[0]["se"]
    assert model_sizes(compile_tables(v).bid_model) == [h]


def test_a_trained_file_carries_the_weights(oh_hell_3p: sim.Variant, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    v = oh_hell_3p
    cand = _fit_and_use(v, 3, 3_000, seed=2)
    tables = compile_tables(v)
    assert model_sizes(tables.bid_model) == [3]
    path = save_trained(v, tables, [3], tmp_path)
    assert path == table_file(v, tmp_path)
    monkeypatch.setattr(trained_mod, "SHIPPED_DIR", tmp_path / "none")
    monkeypatch.setattr(trained_mod, "user_dir", lambda: tmp_path)
    shape = model_shape(v, tables)
    loaded = load_model(v, shape)
    assert loaded is not None and np.array_equal(loaded[3], cand, equal_nan=True)
    assert load_model(v, (1, *shape[1:])) is None    # weights of another shape are not read


def test_every_shipped_model_is_read() -> None:
    """A shipped file's weights must have its configuration's shape, or the kernel would
    silently bid from the cells (a change of the model's columns must retrain them)."""
    shipped = sorted(trained_mod.SHIPPED_DIR.glob("*.npz"))
    with_model = 0
    for path in shipped:
        game, players = path.name.split("-")[0], int(path.name.split("-")[1][:-1])
        v = sim.load_variant(game, players=players)
        with np.load(path) as data:
            if "bid_model" not in data:
                continue
            with_model += 1
            assert data["bid_model"].shape == model_shape(v, compile_tables(v)), path.name
        assert model_sizes(compile_tables(v).bid_model), path.name
    assert with_model >= 5     # at least the four-player files of the five table games


def test_a_cell_the_model_bids_badly_gets_a_constant_bid(oh_hell_3p: sim.Variant) -> None:
    """Plant a bad bid in one model cell (seat 0, every hand of the most common strength
    column bids the hand size): the cell check finds that cell, gives it a constant bid the
    data prefer, and the gated bidder is kept because it gains on held-out deals."""
    v, h, seed = oh_hell_3p, 3, 21
    model = compile_tables(v).bid_model.copy()
    data = tm.seat_data(v, h, 0, 4_000, tm.model_cells_seed(seed, h), 1)
    column = int(np.bincount(data.columns[data.group == 0, h + 1]).argmax())
    model[h, 0, 0, column, h] += 1_000.0       # below CELL_BID, above any prediction
    record_model(v, model)
    found = tm.cell_bids(model[h, 0], data)
    planted = [c for c in found if (c.group, c.column) == (0, column)]
    assert len(planted) == 1 and planted[0].bid != h
    assert planted[0].gain > tm.CELL_Z * planted[0].se
    lines: list[str] = []
    out = tm.gate_cells(v, h, 4_000, seed, 1, lines.append, held_out=4_000)
    assert out["kept"] and out["gain"] > 0 and "kept" in lines[-1]
    gated = compile_tables(v).bid_model[h, 0, 0, column]
    assert gated[planted[0].bid] - model[h, 0, 0, column, planted[0].bid] == CELL_BID
    # the kernel now bids the constant bid on every hand of that cell where it is allowed
    nat = natural_bids(v, h, 4_000, tm.model_cells_seed(seed, h), workers=1)
    inside = (data.group == 0) & (data.columns[:, h + 1] == column)
    assert (nat[inside, 0] == planted[0].bid).all()


def test_a_cell_that_loses_on_held_out_deals_is_not_kept(
        oh_hell_3p: sim.Variant, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cell the check finds is judged on its own on the held-out deals: a cell whose
    constant bid loses there (here planted: the most common cell of seat 0 told to bid the
    hand size, far worse than the model) is not kept, and the weights stay as they were,
    while a cell that gains beside it in the same check is kept."""
    v, h, seed = oh_hell_3p, 3, 21
    model = compile_tables(v).bid_model.copy()
    data = tm.seat_data(v, h, 0, 4_000, tm.model_cells_seed(seed, h), 1)
    column = int(np.bincount(data.columns[data.group == 0, h + 1]).argmax())
    bad = tm.CellBid(0, column, h, 1.0, 0.1, 1_000)
    cell_bids = tm.cell_bids
    lines: list[str] = []
    monkeypatch.setattr(tm, "cell_bids", lambda w, d: [bad] if d.run.seat == 0 else [])
    out = tm.gate_cells(v, h, 4_000, seed, 1, lines.append, held_out=4_000)
    assert out == {"cells": 1, "kept_cells": 0, "gain": 0.0, "se": 0.0, "kept": False}
    assert f"bid {h} gains -" in lines[-2] and lines[-2].endswith("not kept")
    assert np.array_equal(compile_tables(v).bid_model, model, equal_nan=True)
    # beside a cell the model bids badly (seat 1's most common cell after a sum of 0 told,
    # in the weights, to bid the hand size; its constant bid found by the real check): only
    # the cell whose constant bid gains is kept
    data1 = tm.seat_data(v, h, 1, 4_000, tm.model_cells_seed(seed, h), 1)
    column1 = int(np.bincount(data1.columns[data1.group == 0, h + 1]).argmax())
    model[h, 1, 0, column1, h] += 1_000.0
    record_model(v, model)
    good = [c for c in cell_bids(model[h, 1], data1) if (c.group, c.column) == (0, column1)]
    assert len(good) == 1 and good[0].bid != h
    monkeypatch.setattr(tm, "cell_bids", lambda w, d: {0: [bad], 1: good}.get(d.run.seat, []))
    lines.clear()
    out = tm.gate_cells(v, h, 4_000, seed, 1, lines.append, held_out=4_000)
    assert out["cells"] == 2 and out["kept_cells"] == 1 and out["gain"] > 0
    after = compile_tables(v).bid_model
    assert np.array_equal(after[h, 0], model[h, 0], equal_nan=True)
    assert after[h, 1, 0, column1, good[0].bid] - model[h, 1, 0, column1, good[0].bid] \
        == CELL_BID


def test_a_constant_bid_in_the_trump_choosers_cell_changes_the_bid_not_the_trump(
        horseshoes_4p: sim.Variant) -> None:
    """The trump chooser's cell check counts a deal in the cell of the trump its model names.
    A constant bid there (CELL_BID on the bid's weight) leaves every deal's named trump as
    it was (the kernel compares trumps with it taken off) and makes the chooser bid it on
    the deals of that cell; the kernel and joint_choice agree deal by deal. Planted: the
    cell told to bid the hand size; the check finds it and keeps a better constant bid."""
    v, h, seed = horseshoes_4p, 5, 5
    chooser = tm.trump_chooser_seat(v)
    assert chooser is not None
    cand = _fit_and_use(v, h, 4_000, seed=13)
    model = compile_tables(v).bid_model.copy()
    n, job_seed = 3_000, 77
    data = tm.seat_data(v, h, chooser, n, job_seed, 1)
    rows, k = tm.joint_choice(cand[chooser], data)
    column = int(np.bincount(data.columns[rows, h + 1]).argmax())
    inside = data.columns[rows, h + 1] == column
    before = sim.simulate_hands(v, h, n, seed=job_seed, workers=1).records_data
    assert before is not None
    common = int(np.bincount(k[inside]).argmax())
    bid = int(data.run.bids[1 if common == 0 else 0])      # not the cell's usual bid
    gated = model.copy()
    gated[h, chooser, 0, column, bid] += CELL_BID
    record_model(v, gated)
    after = sim.simulate_hands(v, h, n, seed=job_seed, workers=1).records_data
    assert after is not None
    np.testing.assert_array_equal(after.hand_out[:, H_TRUMP], before.hand_out[:, H_TRUMP])
    made = after.seat_out[:, chooser, S_BID]
    assert (made[inside] == bid).all() and (made[~inside] == before.seat_out[~inside, chooser,
                                                                             S_BID]).all()
    rows_g, k_g = tm.joint_choice(gated[h, chooser], data)
    np.testing.assert_array_equal(rows_g, rows)
    np.testing.assert_array_equal(data.run.bids[k_g], made)
    # a cell the model bids badly (the hand size, planted below CELL_BID, so it also sways
    # the trump): the check finds it and keeps a constant bid that gains on held-out deals
    model[h, chooser, 0, column, h] += 1_000.0
    record_model(v, model)
    cells = tm.seat_data(v, h, chooser, 3_000, tm.model_cells_seed(seed, h), 1)
    found = [c for c in tm.cell_bids(model[h, chooser], cells) if c.column == column]
    assert len(found) == 1 and found[0].bid != h
    lines: list[str] = []
    out = tm.gate_cells(v, h, 3_000, seed, 1, lines.append, held_out=3_000)
    assert out["kept"], lines
    assert any(line.startswith(f"    seat {chooser}, hearing no bid, strength column {column}:")
               and line.endswith(": kept") for line in lines), lines
