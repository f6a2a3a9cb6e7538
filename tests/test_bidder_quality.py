"""The bidder's quality figures (simulate.hands.bidder_quality): measured from the held-out
exploitability, stored beside the bidder, merged by hand size, read back for the report;
`bidlab exploit` and `bidlab train` measure and store them; every shipped bidder has them."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_cli import assert_one_line_error, run_main

import simulate as sim
import simulate.tables.trained as trained_mod
from simulate.hands import bidder_quality as bq
from simulate.hands.exploit import exploitability
from simulate.hands.train_auction import stored_figures as stored_auction_figures
from simulate.tables.trained import SHIPPED_DIR, table_file

DEALS, HANDS, PER_HAND = 1_000, 20, 1_000     # a small measurement


@pytest.fixture(scope="module")
def oh2() -> pd.DataFrame:
    return bq.measure(sim.load_variant("oh_hell"), [2], DEALS, HANDS, PER_HAND, workers=1)


def test_measured_figures_are_the_exploitability_summary(oh2: pd.DataFrame) -> None:
    v = sim.load_variant("oh_hell")
    s = exploitability(v, 2, DEALS, HANDS, PER_HAND, workers=1).summary()
    row = oh2.iloc[0]
    assert list(oh2.columns) == list(bq.COLUMNS)
    assert row["hand_size"] == 2 and row["hands"] == 20 and row["deals"] == 1_000
    for name in ("hand_loss", "big_loss_share", "not_best", "cells", "max_gain"):
        assert row[name] == pytest.approx(s[name])
    assert row["hand_loss_lo"] <= row["hand_loss"] <= row["hand_loss_hi"]
    assert oh2["cells"].dtype == np.int64
    text = bq.table_text(oh2)
    assert text.splitlines()[1].split()[0] == "2"


def test_figures_are_stored_merged_by_size_and_read_back(
        oh2: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """record() writes into the file the bidder is read from, keeps the sizes it did not
    measure, replaces the one it did, and changes no other array."""
    v = sim.load_variant("oh_hell")
    shipped = table_file(v, SHIPPED_DIR)
    copy = tmp_path / shipped.name
    shutil.copy(shipped, copy)
    monkeypatch.setattr(trained_mod, "SHIPPED_DIR", tmp_path)
    before = bq.stored_figures(v)
    assert before is not None and 2 in set(before["hand_size"])
    changed = oh2.assign(hand_loss=123.0)
    assert bq.record(v, changed) == str(copy)
    after = bq.stored_figures(v)
    assert after is not None
    assert sorted(after["hand_size"]) == sorted(before["hand_size"])
    assert after.loc[after["hand_size"] == 2, "hand_loss"].tolist() == [123.0]
    others = after["hand_size"] != 2
    pd.testing.assert_frame_equal(after[others].reset_index(drop=True),
                                  before[before["hand_size"] != 2].reset_index(drop=True))
    with np.load(shipped) as a, np.load(copy) as b:
        for name in a.files:
            if name not in (trained_mod.QUALITY, trained_mod.QUALITY_COLUMNS):
                floats = a[name].dtype.kind == "f"
                assert np.array_equal(a[name], b[name], equal_nan=floats), name
    shown = bq.stored(v)
    assert shown is not None and set(shown["bidder"]) >= {"learned model",
                                                          "exact one-card optimum"}


def test_a_configuration_without_a_trained_file_has_nothing_to_record(oh2: pd.DataFrame
                                                                      ) -> None:
    v = sim.load_variant("oh_hell", zero_bid="adjusted")
    assert bq.stored(v) is None
    with pytest.raises(ValueError, match="bidlab train"):
        bq.record(v, oh2)


def test_every_shipped_bidder_publishes_its_figures() -> None:
    """Every shipped configuration's file stores the figures of every hand size it plays,
    measured with the default budget; an auction game's default file, its auction table's
    figures (simulate.hands.train_auction.FIGURES) instead."""
    for path in sorted(SHIPPED_DIR.glob("*.npz")):
        name, players = path.stem.rsplit("-", 2)[:2]
        v = sim.load_variant(name, players=int(players.rstrip("p")))
        if v.bidding_form == "auction":
            auction = stored_auction_figures(v)
            assert auction is not None, path.name
            assert sorted(auction["hand_size"]) == sorted(set(v.schedule)), path.name
            assert (auction["margin_vs_heuristic"] > 0).all(), path.name
            continue
        q = bq.stored(v)
        assert q is not None, path.name
        assert sorted(q["hand_size"]) == sorted(set(v.schedule)), path.name
        assert (q["hands"] >= bq.HANDS).all() and q["hand_loss"].notna().all(), path.name


def test_exploit_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_main(capsys, "exploit", "oh_hell", "-c", "2", "--hands", "20", "--deals",
                          "1000", "--deals-per-hand", "1000", "--workers", "1", "--csv",
                          str(tmp_path / "q"))
    assert code == 0, err
    assert "other seats bidding with the same bidder" in out and "targets:" in out
    assert pd.read_csv(tmp_path / "q.csv")["hand_size"].tolist() == [2]


@pytest.mark.parametrize(("args", "needle"), [
    (["exploit", "hasenpfeffer"], "auction"),
    (["exploit", "oh_hell", "--hands", "5"], "--hands 5"),
    (["exploit", "oh_hell", "--deals", "10"], "--deals 10"),
    (["exploit", "hoffer", "-c", "7"], "allowed: 1 to 6"),
    (["exploit", "oh_hell", "-c", "2", "--hands", "20", "--deals", "1000", "--deals-per-hand",
      "1000", "--record", "-s", "zero_bid=adjusted"], "no trained file"),
    (["train", "oh_hell", "--quality-hands", "3"], "--quality-hands 3"),
])
def test_exploit_bad_input(args: list[str], needle: str,
                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, *args)
    assert_one_line_error(code, err, needle)
    assert out == ""


def test_the_loss_is_placed_by_seat_and_bids_heard() -> None:
    """SheetCheck.by_situation splits the hand-level cost by (seat, sum of the bids heard):
    hands, mean cost with its interval over hands, share of the total, largest share first;
    the line names the largest shares among situations with enough hands."""
    from simulate.hands.sheet_check import SheetCheck

    rows = ([(1, 0, 2.0)] * 6 + [(1, 0, 4.0)] * 6 + [(3, 2, 1.0)] * 12 + [(0, -1, 0.0)] * 20
            + [(2, 5, 9.0)] * 3 + [(2, 1, np.nan)])
    hands = pd.DataFrame(rows, columns=["seat", "prev_sum", "cost"])
    where = SheetCheck(hands).by_situation()
    assert where[["seat", "prev_sum"]].values.tolist() == [[1, 0], [2, 5], [3, 2], [0, -1]]
    assert where["hands"].tolist() == [12, 3, 12, 20]
    total = 36.0 + 27.0 + 12.0
    assert where["share"].tolist() == pytest.approx([36 / total, 27 / total, 12 / total, 0.0])
    assert where["cost"].tolist() == pytest.approx([3.0, 9.0, 1.0, 0.0])
    assert where["cost_half"].iloc[0] == pytest.approx(1.96 * np.std([2.0] * 6 + [4.0] * 6,
                                                                      ddof=1) / np.sqrt(12),
                                                       rel=1e-3)
    line = bq.describe_situations(where, players=4)
    # seat 2 after 5 holds more of the loss but on 3 hands: too few to be named
    assert line == ("the loss sits most in seat 1 after bids summing to 0: 48% of it, 3.00 "
                    "[2.41, 3.59] per hand (n=12); seat 3 (dealer) after bids summing to 2: "
                    "16% of it, 1.00 [1.00, 1.00] per hand (n=12)")
    assert bq.describe_situations(where[where["share"] == 0], players=4) == ""
