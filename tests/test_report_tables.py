"""reports.classes (hand features) and reports.tables (expected-tricks tables, best bids)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

import simulate as sim
from reports.analysis.forced import (
    bid_text,
    by_earlier_bids,
    class_label,
    points_by_size,
    sheet_grids,
)
from reports.analysis.tables import counterfactual_scores, expected_tricks_table, seat_summary
from simulate.errors import BidlabInputError
from simulate.rules.features import FEATURES, add_features, top_cards
from simulate.tables.compile import compile_tables
from simulate.util.files import write_table

HANDS = 1500


@cache
def variant(name: str, players: int | None = None, **opts):  # type: ignore[no-untyped-def]
    return sim.load_variant(name, players=players, **opts)


@cache
def run(name: str, hand_size: int = 5, seed: int = 7, **opts):  # type: ignore[no-untyped-def]
    v = variant(name, **opts)
    return sim.simulate_hands(v, hand_size=min(hand_size, max(v.schedule)), hands=HANDS, seed=seed)


# the crafted hands below predate side_high (the cheat-sheet classes): compare the others
CRAFTED = tuple(f for f in FEATURES if f != "side_high")


def features_of(v, cards: str, trump: str, names=CRAFTED) -> dict[str, int]:  # type: ignore[no-untyped-def]
    df = add_features(pd.DataFrame({"cards": [cards], "trump": [trump]}), v, names)
    return {k: int(df[k].iloc[0]) for k in names}


# ----- features on crafted hands ---------------------------------------------------------
def test_hoffer_trump_hand() -> None:
    f = features_of(variant("hoffer", 4), "HIJO JS JC AS 9H", "S")
    # JS is the big jack, JC the little jack (a spade under spades), AS: 3 trumps;
    # the three strongest cards under spades are HIJO, JS, JC
    assert f == {"trumps": 3, "specials": 1, "top3": 3, "aces": 1, "kings": 0,
                 "voids": 2, "longest": 3}          # voids: D and C (JC is a spade now)


def test_hoffer_no_trump_hand() -> None:
    f = features_of(variant("hoffer", 4), "HIJO JS JC AS 9H", "NT")
    # no trumps in NT; the top of NT is HIJO and the four tied Aces; jacks keep their suits
    assert f == {"trumps": 0, "specials": 1, "top3": 2, "aces": 1, "kings": 0,
                 "voids": 1, "longest": 2}
    v = variant("hoffer", 4)
    assert {v.cards.names[c] for c in top_cards(v, 4)} == {"HIJO", "AS", "AH", "AD", "AC"}
    assert {v.cards.names[c] for c in top_cards(v, 1)} == {"HIJO", "JH", "JD"}


def test_hoffer_lojo_is_special_but_never_top() -> None:
    f = features_of(variant("hoffer", 4), "LOJO AH AD KS 9C", "H")
    assert f == {"trumps": 1, "specials": 1, "top3": 0, "aces": 2, "kings": 1,
                 "voids": 0, "longest": 1}


def test_kings_and_fools_fools_are_specials() -> None:
    v = variant("kings_and_fools", 4)
    f = features_of(v, "FOOL FOOL KS AH 2D", "S")
    # Fools are suitless specials; Aces are low, so the top three are KS QS JS
    assert f == {"trumps": 1, "specials": 2, "top3": 1, "aces": 1, "kings": 1,
                 "voids": 1, "longest": 1}
    assert {v.cards.names[c] for c in top_cards(v, 0)} == {"KS", "QS", "JS"}


def test_hyjack_hyjackers_top_the_order() -> None:
    f = features_of(variant("hyjack", 4), "HJ_BLUE HJ_GREEN AS KS 2H", "S")
    assert f["top3"] == 3 and f["specials"] == 2 and f["trumps"] == 2 and f["voids"] == 2


def test_hasenpfeffer_joker_and_bowers_are_trumps() -> None:
    f = features_of(variant("hasenpfeffer", 4), "JOKER JH JD AH 9C", "H")
    assert f == {"trumps": 4, "specials": 1, "top3": 3, "aces": 1, "kings": 0,
                 "voids": 2, "longest": 4}          # voids: S and D (JD is a heart now)


def test_oh_hell_no_trump_top_is_the_aces() -> None:
    f = features_of(variant("oh_hell", 4), "AS AH KD 2C 3C", "NT")
    assert f["top3"] == 2 and f["trumps"] == 0 and f["longest"] == 2 and f["voids"] == 0
    assert features_of(variant("oh_hell", 4), "AS KS QS JS AH", "S")["top3"] == 3


def test_mask_and_cards_columns_agree() -> None:
    res = run("hoffer")
    rec = res.records.head(200)
    names = list(FEATURES)
    by_mask = add_features(rec, res.variant, names)
    by_cards = add_features(rec.drop(columns="mask"), res.variant, names)
    pd.testing.assert_frame_equal(by_mask[names], by_cards[names])


def test_default_features_are_the_variant_hand_classes() -> None:
    res = run("hoffer")
    out = add_features(res.records.head(10), res.variant)
    assert set(res.variant.hand_classes) <= set(out.columns)


def test_bad_feature_name() -> None:
    v = variant("hoffer", 4)
    df = pd.DataFrame({"cards": ["HIJO JS JC AS 9H"], "trump": ["S"]})
    with pytest.raises(BidlabInputError, match="allowed: trumps, specials, top3"):
        add_features(df, v, ["trumps", "honours"])
    with pytest.raises(BidlabInputError, match="honours"):
        expected_tricks_table(run("hoffer"), by=("honours",))


def _slow_features(v, mask: int, t: int) -> dict[str, int]:  # type: ignore[no-untyped-def]
    cards = [c for c in range(len(v.cards)) if mask >> c & 1]
    eff = v.eff_suit_table[t]
    counts = [sum(1 for c in cards if eff[c] == s) for s in range(4)]
    deck_suits = {eff[c] for c in range(len(v.cards)) if eff[c] >= 0}
    top = set(top_cards(v, t))
    return {"trumps": sum(1 for c in cards if t != 4 and eff[c] == t),
            "specials": sum(1 for c in cards if v.cards.cards[c].special),
            "top3": sum(1 for c in cards if c in top),
            "aces": sum(1 for c in cards if v.cards.cards[c].rank == 14
                        and not v.cards.cards[c].special),
            "kings": sum(1 for c in cards if v.cards.cards[c].rank == 13
                         and not v.cards.cards[c].special),
            "voids": sum(1 for s in deck_suits if counts[s] == 0),
            "longest": max(counts)}


@pytest.mark.parametrize("game", sim.shipped_variants())
def test_every_feature_every_game(game: str) -> None:
    res = run(game)
    v, h = res.variant, res.config.hand_size
    out = add_features(res.records, v, list(FEATURES))
    for name in FEATURES:
        col = out[name].to_numpy()
        top = 4 if name == "voids" else h
        assert col.min() >= 0 and col.max() <= top, name
    nt = (out["trump"] == "NT").to_numpy()
    assert (out["trumps"].to_numpy()[nt] == 0).all()
    assert (out["top3"].to_numpy()[~nt] <= 3).all()
    assert (out["longest"] >= out["trumps"]).all()
    assert (out["voids"] >= 4 - h).all()
    codes = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": 4}
    for row in out.head(60).itertuples():
        want = _slow_features(v, int(row.mask), codes[str(row.trump)])
        # side_high (a cheat-sheet class) has no reference here: only its bounds above
        assert {k: int(getattr(row, k)) for k in want} == want, (row.cards, row.trump)


# ----- tables on simulations -------------------------------------------------------------
@pytest.mark.parametrize("game,by", [
    ("hoffer", ("seat",)), ("hoffer", ("trumps", "top3")), ("horseshoes", ("trump", "aces")),
    ("hyjack", ("specials",)), ("kings_and_fools", ("kings", "seat")),
    ("oh_hell", ("top3", "longest", "voids")), ("hasenpfeffer", ("seat", "trumps")),
    ("oh_hell", ()),
])
def test_table_invariants(game: str, by: tuple[str, ...]) -> None:
    res = run(game)
    v, h = res.variant, res.config.hand_size
    tab = expected_tricks_table(res, by=by, counterfactual=True)
    p = tab[[f"p_tricks_{k}" for k in range(h + 1)]].to_numpy()
    assert np.allclose(p.sum(axis=1), 1.0)
    assert tab["n"].sum() == HANDS * v.players
    assert (tab["n"] > 0).all()
    many = tab["n"] >= 2
    assert (tab.loc[many, "mean_tricks_ci_low"] <= tab.loc[many, "mean_tricks"]).all()
    assert (tab.loc[many, "mean_tricks"] <= tab.loc[many, "mean_tricks_ci_high"]).all()
    assert np.allclose((p * np.arange(h + 1)).sum(axis=1), tab["mean_tricks"])
    assert (tab["thin"] == (tab["n"] < 100)).all()
    assert tab.attrs["variant"] == v.canonical and tab.attrs["hand_size"] == h
    if v.is_contract:
        assert "best_bid_if_independent" not in tab.columns
        assert "policy_p_exact" not in tab.columns and "p_maker" in tab.columns
    else:
        best = tab["best_bid_if_independent"].to_numpy()
        assert ((best >= 0) & (best <= h)).all()
        # P(exact) of the best bid is P(T = best bid) without teams
        assert np.allclose(tab["best_bid_p_exact"], p[np.arange(len(tab)), best])
        # expected scores are the trick distribution times the score table
        score = compile_tables(v).score[h]
        for b in range(h + 1):
            assert np.allclose(tab[f"exp_score_if_bid_{b}"], p @ score[b, : h + 1])
        exp = tab[[f"exp_score_if_bid_{b}" for b in range(h + 1)]].to_numpy()
        pick = exp.min(axis=1) if v.rule("end.better") == "lower" else exp.max(axis=1)
        assert np.allclose(tab["best_bid_exp_score"], pick)


def test_thin_threshold_is_configurable_and_nothing_is_dropped() -> None:
    res = run("oh_hell")
    tab = expected_tricks_table(res, by=("top3", "longest"), thin=500)
    assert (tab["thin"] == (tab["n"] < 500)).all() and tab["thin"].any()
    assert tab["n"].sum() == HANDS * res.variant.players
    assert not expected_tricks_table(res, by=("seat",), thin=0)["thin"].any()


def test_tables_are_deterministic() -> None:
    v = variant("hoffer", 4)
    a = sim.simulate_hands(v, hand_size=4, hands=800, seed=11)
    b = sim.simulate_hands(v, hand_size=4, hands=800, seed=11)
    pd.testing.assert_frame_equal(expected_tricks_table(a, by=("trumps", "top3")),
                                  expected_tricks_table(b, by=("trumps", "top3")))


@pytest.mark.parametrize("game,opts", [
    ("hoffer", {}), ("hoffer", {"partnership": True}), ("horseshoes", {}),
    ("horseshoes", {"stars": True}), ("horseshoes", {"partnership": "pairs"}), ("hyjack", {}),
    ("hyjack", {"beanie_mode": "lose_bonus", "frilly_mode": "as_exact"}),
    ("kings_and_fools", {}), ("kings_and_fools", {"bonus_requires_exact": True}),
    ("oh_hell", {}),
])
def test_full_score_model_reproduces_recorded_scores(game: str, opts: dict) -> None:
    res = run(game, **opts)
    rec = res.records
    cf = counterfactual_scores(res, score_model="full").to_numpy()
    own = cf[np.arange(len(rec)), rec["bid"].to_numpy().astype(int)]
    assert (own == rec["score"].to_numpy()).all()


def test_partnership_best_bid_uses_team_totals() -> None:
    res = run("hoffer", partnership=True)
    tab = expected_tricks_table(res, by=("seat",), counterfactual=True)
    rec = res.records
    team_bid = rec.groupby(["deal", "team"])["bid"].transform("sum")
    team_took = rec.groupby(["deal", "team"])["tricks"].transform("sum")
    assert np.allclose(tab["policy_p_exact"],
                       (team_bid == team_took).groupby(rec["seat"]).mean().to_numpy())
    assert tab["best_bid_p_exact"].between(0, 1).all()


# ----- best bid on hand-made records -----------------------------------------------------
def _records(tricks: list[int], bids: list[int] | None = None, trump: str = "S") -> pd.DataFrame:
    k = len(tricks)
    return pd.DataFrame({"deal": np.arange(k), "seat": np.zeros(k, np.int8),
                         "trump": [trump] * k, "bid": bids or [0] * k, "tricks": tricks,
                         "score": np.zeros(k, np.int32)})


def test_best_bid_when_every_hand_takes_two() -> None:
    v = variant("hoffer", 4)
    tab = expected_tricks_table(_records([2] * 50), v, 5, counterfactual=True)
    row = tab.iloc[0]
    assert row["best_bid_if_independent"] == 2
    assert row["best_bid_p_exact"] == 1.0
    assert row["best_bid_exp_score"] == 12          # exact: 10 + bid
    assert row["p_tricks_2"] == 1.0 and row["thin"]   # 50 rows < 100
    assert row["policy_p_exact"] == 0.0


def test_best_bid_weighs_the_score_table() -> None:
    v = variant("hoffer", 4)
    # Hoffer pays 10 + bid for exact, the tricks taken when under, took - bid when over:
    # 60% take 1, 40% take 3 -> bid 1: 0.6*11 + 0.4*2 = 7.4; bid 3: 0.6*1 + 0.4*13 = 5.8
    tab = expected_tricks_table(_records([1] * 60 + [3] * 40), v, 5, by=(), counterfactual=True)
    row = tab.iloc[0]
    assert row["best_bid_if_independent"] == 1
    assert row["exp_score_if_bid_1"] == pytest.approx(7.4)
    assert row["exp_score_if_bid_3"] == pytest.approx(5.8)
    assert row["best_bid_p_exact"] == pytest.approx(0.6)


def test_lower_is_better_takes_the_minimum() -> None:
    v = variant("horseshoes", 4)
    assert v.rule("end.better") == "lower"
    # a point per trick missed: 1,1,1,4 -> bid 1 costs 0.75 on average, the least
    tab = expected_tricks_table(_records([1, 1, 1, 4] * 10), v, 5, by=(), counterfactual=True)
    row = tab.iloc[0]
    assert row["best_bid_if_independent"] == 1
    assert row["best_bid_exp_score"] == pytest.approx(0.75)
    assert row["best_bid_p_exact"] == pytest.approx(0.75)
    exp = [row[f"exp_score_if_bid_{b}"] for b in range(6)]
    assert exp[1] == min(exp) and max(exp) > exp[1]


def test_groups_by_hand_features_on_hand_made_records() -> None:
    v = variant("hoffer", 4)
    df = pd.DataFrame({"deal": [0, 1, 2, 3], "seat": [0, 0, 1, 1],
                       "cards": ["HIJO JS JC AS 9H", "HIJO JS JC AS 9H", "9S 9H 9D 9C 10C",
                                 "9S 9H 9D 9C 10C"],
                       "trump": ["S", "S", "NT", "NT"], "bid": [3, 3, 0, 0],
                       "tricks": [3, 4, 0, 0], "score": [13, 1, 10, 10]})
    tab = expected_tricks_table(df, v, 5, by=("trumps", "top3"), thin=2, counterfactual=True)
    assert tab[["trumps", "top3", "n"]].values.tolist() == [[0, 0, 2], [3, 3, 2]]
    strong = tab.iloc[1]
    assert strong["policy_mean_score"] == 7 and strong["policy_p_exact"] == 0.5
    assert strong["mean_tricks"] == 3.5 and not strong["thin"]
    assert tab.iloc[0]["best_bid_if_independent"] == 0


def test_bad_input() -> None:
    v = variant("hoffer", 4)
    with pytest.raises(BidlabInputError, match="variant and the hand size"):
        expected_tricks_table(_records([1]))
    with pytest.raises(BidlabInputError, match="tricks must be 0..2"):
        expected_tricks_table(_records([3]), v, 2)
    with pytest.raises(BidlabInputError, match="score_model"):
        expected_tricks_table(_records([1]), v, 5, score_model="guess")
    with pytest.raises(BidlabInputError, match="contract"):
        counterfactual_scores(run("hasenpfeffer"))


# ----- seat summary and files ------------------------------------------------------------
def test_seat_summary() -> None:
    res = run("hoffer")
    s = seat_summary(res)
    rec = res.records
    assert s["seat"].tolist() == list(range(4)) and (s["n"] == HANDS).all()
    assert np.allclose(s["p_exact"], (rec.bid == rec.tricks).groupby(rec.seat).mean())
    assert (s["mean_score_ci_low"] <= s["mean_score"]).all()
    hp = seat_summary(run("hasenpfeffer"))
    assert "p_exact" not in hp.columns
    assert hp["p_maker"].sum() == pytest.approx(1.0)   # one maker per (non-voided) deal
    assert hp["p_contract_made_as_maker"].between(0, 1).all()


def test_write_table_atomic(tmp_path) -> None:  # type: ignore[no-untyped-def]
    tab = expected_tricks_table(run("hoffer"), by=("trumps", "top3"))
    paths = write_table(tab, tmp_path / "out" / "hoffer.csv", ("csv", "parquet"))
    assert [p.name for p in paths] == ["hoffer.csv", "hoffer.parquet"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["hoffer.csv",
                                                                     "hoffer.parquet"]
    back = pd.read_parquet(paths[1])
    pd.testing.assert_frame_equal(back, tab, check_dtype=False)
    assert back.attrs["variant"] == tab.attrs["variant"]
    csv = pd.read_csv(paths[0])
    assert list(csv.columns) == list(tab.columns) and len(csv) == len(tab)
    with pytest.raises(BidlabInputError, match="allowed: csv, parquet"):
        write_table(tab, tmp_path / "x", formats=("xlsx",))


def test_counterfactual_columns_only_on_request() -> None:
    res = run("oh_hell")
    plain = expected_tricks_table(res, by=("seat",))
    assert not [c for c in plain.columns if "if_bid" in c or "if_independent" in c]
    asked = expected_tricks_table(res, by=("seat",), counterfactual=True)
    assert "best_bid_if_independent" in asked.columns


# ----- reading the forced-bid tables (reports.analysis.forced) ----------------------------
def test_class_labels_and_bid_text() -> None:
    row = {"points": 2.5, "trumps": 1, "side_high": 3, "specials": 0}
    assert class_label(row, ["points", "trumps", "side_high", "specials"]) == \
        "2.5 pts, 1 trump, 3+ high side cards, 0 low specials"
    assert class_label({"card": "trump K", "trumps": 2}, ["card", "trumps"]) == "trump K, 2 trumps"
    assert bid_text(3) == "3" and bid_text(-1) == "–" and bid_text(None) == "–"
    assert bid_text(2, ["6", "7", "8"]) == "7"


def test_by_earlier_bids_names_forbidden_bids() -> None:
    cells = pd.DataFrame({
        "seat": [3, 3, 3, 1], "prev_sum": pd.array([0, 2, 3, 0], dtype="Int64"),
        "trumps": [1, 1, 1, 1], "n": [500, 400, 50, 300], "best": [1, 0, 1, 2],
        "runner_up": [0, 2, 0, 1], "too_close": [False, True, False, False],
        "thin": [False, False, True, False], "forbidden": ["", "1", "2", ""]})
    out = by_earlier_bids(cells, 3, pd.DataFrame({"trumps": [1]}), ["trumps"])
    assert list(out.columns) == ["class", "0", "2", "3"]
    assert out.iloc[0].tolist() == ["1 trump", "1", "0/2 (no 1)", "1? (no 2)"]
    assert by_earlier_bids(cells.drop(columns="prev_sum"), 3, out, ["trumps"]).empty


def test_sheet_grids_and_points_by_size() -> None:
    sheet = pd.DataFrame({"seat": [0, 0, 0, 1], "points": [1.0, 1.0, 0.5, 1.0],
                          "trumps": [2, 2, 0, 2], "side_high": [0, 1, 0, 0],
                          "text": ["2", "3/2", "0", "1; 3+: 0"], "thin": [False, True, False, False]})
    sheet.attrs["features"] = ["points", "trumps", "side_high"]
    grids = sheet_grids(sheet)
    assert [g.seat for g in grids] == [0, 1]
    g0 = grids[0]
    assert g0.rows == [0.5, 1.0] and g0.cols == [0, 2] and g0.subkeys == [(0,), (1,)]
    assert g0.cells[(1.0, 2)] == (["2", "3/2"], False)
    assert g0.cells[(0.5, 0)] == (["0", "·"], False)
    assert grids[1].cells[(1.0, 2)] == (["1; 3+: 0", "·"], False)
    # one feature (the card, at one card): one column, a cell is thin only when all its
    # rows are
    one = pd.DataFrame({"seat": [2, 2, 2], "card": ["trump A", "K", "K"],
                        "text": ["1", "0", "0"], "thin": [True, True, True]})
    one.attrs["features"] = ["card"]
    (g,) = sheet_grids(one)
    assert g.seat == 2 and g.rows == ["trump A", "K"] and g.cols == [""]
    assert g.cells == {("trump A", ""): (["1"], True), ("K", ""): (["0"], True)}
    points = {3: pd.DataFrame({"card": ["trump A", "A"], "suit_trump": [1.0, 0.65],
                               "no_trump": [float("nan"), 1.0]}),
              5: pd.DataFrame({"card": ["A", "K"], "suit_trump": [0.6, 0.4],
                               "no_trump": [0.9, 0.7]})}
    table = points_by_size(points)
    assert table.columns.tolist() == ["card", "3", "5"]
    assert table.set_index("card").loc["A"].tolist() == ["0.65/1", "0.6/0.9"]
    assert table.set_index("card").loc["trump A"].tolist() == ["1", "–"]
