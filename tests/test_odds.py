"""Bid odds for a fixed hand: every legal bid on the same deals, conditioning, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import simulate as sim
from simulate.cli.main import main
from simulate.hands.odds import format_odds

CASES = [
    ("hoffer", 4, "HIJO AS KS 9H 10D", 2, "S", None),
    ("hoffer", 4, "LOJO 9S 10H", 3, "NT", None),
    ("horseshoes", 4, "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S", 0, "S", None),
    ("hyjack", 4, "HJ_BLUE AS 2H 3D", 1, None, "1"),
    ("kings_and_fools", 4, "KS FOOL 7H 2C", 3, None, "0,0,2"),
    ("oh_hell", 4, "AS KH 7D 2C 9C", 1, "S", "2"),
    ("hasenpfeffer", 4, "JOKER JS JC AS KS 9H", 0, None, None),
    ("hasenpfeffer", 4, "9H 10H QD 10C 9C KC", 2, "H", None),
]


@pytest.mark.parametrize("game,players,hand,seat,trump,before", CASES)
def test_odds_for_every_per_player_bidding_game(game: str, players: int, hand: str, seat: int,
                                                 trump: str | None, before: str | None) -> None:
    v = sim.load_variant(game, players=players)
    df = sim.bid_odds(v, hand, seat=seat, trump=trump, bids_before=before, samples=4_000)
    h = len(hand.split())
    ks = [f"P{k}" for k in range(h + 1)]
    if df.attrs["auction"]:
        assert list(df.contract) == [step.name for step in v.ladder]
        assert (df.p_exact.diff().dropna() <= 1e-12).all()   # higher contracts are harder
        return
    assert (df.forbidden == df.n.eq(0)).all()
    df = df[~df.forbidden]
    assert np.allclose(df[ks].sum(axis=1), 1.0)
    assert df.best.sum() == 1
    better = df.expected_score.min() if v.rule("end.better") == "lower" else \
        df.expected_score.max()
    assert df.loc[df.best, "expected_score"].iloc[0] == better
    for r in df.itertuples():
        assert r.p_exact == pytest.approx(getattr(r, f"P{r.bid}"))
        assert r.ci_low <= r.expected_score <= r.ci_high
    if before:
        assert 0 < df.attrs["accepted"] <= df.attrs["dealt"]
        assert df.attrs["accepted"] >= 4_000 or df.attrs["warnings"]


def test_hook_total_is_never_offered_to_the_dealer() -> None:
    v = sim.load_variant("kings_and_fools", players=4)
    df = sim.bid_odds(v, "KS FOOL 7H 2C", seat=3, bids_before="0,0,2", samples=4_000)
    forbidden = df[df.forbidden]
    assert list(forbidden.bid) == [2]        # 0 + 0 + 2 + 2 would make the total 4
    assert forbidden[["expected_score", "P0"]].isna().all().all()
    assert "forbidden (hook)" in format_odds(df)


def test_common_random_numbers_make_bids_comparable() -> None:
    """A bid only changes its own consequences: with a sure hand the trick distribution barely
    moves between bids, and the same seed gives identical odds."""
    v = sim.load_variant("hoffer", players=4)
    a = sim.bid_odds(v, "HIJO JS JC AS KS", seat=3, trump="S", samples=3_000, seed=7)
    b = sim.bid_odds(v, "HIJO JS JC AS KS", seat=3, trump="S", samples=3_000, seed=7)
    assert a.attrs["trump_mode"] == "given (this seat names it)"
    assert a.equals(b)
    assert a.loc[a.best, "bid"].iloc[0] >= 4      # five top trumps: bid high


@pytest.mark.parametrize("args,needle", [
    (["odds", "hoffer", "--hand", "HIJO AS KS 9H 10D", "--seat", "7"], "not a seat"),
    (["odds", "hoffer", "--hand", "HIJO AS KS 9H XX"], "malformed card"),
    (["odds", "hoffer", "--hand", "AS AS"], "more times"),
    (["odds", "hoffer", "--hand", "2S"], "not in this game's deck"),
    (["odds", "hoffer", "--hand", "AS", "--bids-before", "1"], "simultaneously"),
    (["odds", "oh_hell", "--hand", "AS KH", "--seat", "2", "--bids-before", "1"], "give 2"),
    (["odds", "oh_hell", "--hand", "AS KH", "--seat", "1", "--bids-before", "5"],
     "not a legal bid"),
    (["odds", "kings_and_fools", "--hand", "KS FOOL 7H 2C", "--seat", "3", "--bids-before",
      "1,1,1", "--samples", "2000"], "never made those bids"),
    (["odds", "hasenpfeffer", "--hand", "JS AS KS QS 10S 9S", "--bids-before", "1"], "auction"),
    (["odds", "hoffer", "--hand", "AS", "--trump", "X"], "trump"),
    (["odds", "hoffer", "--hand", "AS", "--samples", "0"], "samples"),
])
def test_odds_bad_input(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bidlab: error:") and needle in err[0], err


def _per_bid_runs(v: sim.Variant, hand: str, seat: int, samples: int, seed: int,
                  trump: str | None) -> dict:
    """Each bid played on its own through the ordinary hand kernel (forced bid)."""
    import dataclasses

    from simulate.hands.job import make_job
    from simulate.hands.simulate import records_arrays
    from simulate.kernel.hand import H_OVERRIDDEN, S_SCORE, S_TRICKS
    from simulate.tables import layout as L

    h = len(hand.split())
    base = make_job(v, h, samples, seed, "precision", "table", trump, {seat: hand}, None)
    out = {}
    for b in range(h + 1):
        P = base.tables.P.copy()
        P[L.OVERRIDE_SEAT], P[L.OVERRIDE_BID] = seat, b
        job = dataclasses.replace(base, tables=dataclasses.replace(base.tables, P=P))
        hand_out, seat_out, _, _ = records_arrays(job, 1)
        ok = hand_out[:, H_OVERRIDDEN] == 1
        out[b] = (np.bincount(seat_out[ok, seat, S_TRICKS], minlength=h + 1),
                  int(seat_out[ok, seat, S_SCORE].sum()))
    return out


@pytest.mark.parametrize("game,hand,seat,trump", [("oh_hell", "AS KH 7D 2C 9C", 2, "H"),
                                                  ("hyjack", "HJ_BLUE AS 2H 3D", 1, None)])
def test_one_pass_over_all_bids_equals_each_bid_on_its_own(game: str, hand: str, seat: int,
                                                           trump: str | None) -> None:
    """The turned-up trump conditions the deal the same way when forced in a plain run."""
    v = sim.load_variant(game, players=4)
    df = sim.bid_odds(v, hand, seat=seat, trump=trump, samples=3_000, seed=5, exhaustive=True)
    df = df[~df.forbidden]
    alone = _per_bid_runs(v, hand, seat, 3_000, 5, trump)
    h = len(hand.split())
    for r in df.itertuples():
        dist, total = alone[r.bid]
        assert r.n == dist.sum()
        assert [round(getattr(r, f"P{k}") * r.n) for k in range(h + 1)] == list(dist)
        assert r.expected_score * r.n == pytest.approx(total)


def test_racing_stops_only_clearly_worse_bids_and_keeps_the_rest_exact() -> None:
    """Bids that race to the end are played on exactly the deals of an exhaustive run, so
    their rows agree to the last digit; stopped bids have fewer deals and are worse."""
    v = sim.load_variant("oh_hell", players=4)
    hand = "AS KS 9H 10D 2C 7C 5D"
    fast = sim.bid_odds(v, hand, seat=0, trump="S", samples=40_000, seed=3)
    full = sim.bid_odds(v, hand, seat=0, trump="S", samples=40_000, seed=3, exhaustive=True)
    assert fast.stopped_early.any() and not full.stopped_early.any()
    assert not fast.loc[fast.best, "stopped_early"].iloc[0]
    assert (full.n == 40_000).all()
    raced = fast[~fast.stopped_early].set_index("bid")
    assert (raced.n == 40_000).all()
    # the Holm intervals depend on the whole family, which racing changes
    pd_cols = [c for c in full.columns
               if c not in ("best", "stopped_early", "diff_low", "diff_high", "tie")]
    assert raced[pd_cols[1:]].equals(full.set_index("bid").loc[raced.index, pd_cols[1:]])
    stopped = fast[fast.stopped_early]
    assert (stopped.n < 40_000).all()
    best = fast.loc[fast.best, "expected_score"].iloc[0]
    assert (stopped.expected_score < best).all()
    assert full.loc[full.best, "bid"].iloc[0] == fast.loc[fast.best, "bid"].iloc[0]


def test_odds_do_not_depend_on_the_number_of_workers() -> None:
    v = sim.load_variant("kings_and_fools", players=4)
    one = sim.bid_odds(v, "KS FOOL 7H 2C", seat=3, bids_before="0,0,2", samples=20_000,
                       workers=1)
    two = sim.bid_odds(v, "KS FOOL 7H 2C", seat=3, bids_before="0,0,2", samples=20_000,
                       workers=2)
    assert one.equals(two)


def _forced_bid_run(v: sim.Variant, hand: str, seat: int, bid: int, hands: int,
                    seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The ordinary hand kernel with the seat's bid forced: (hand outputs, seat outputs)."""
    import dataclasses

    from simulate.hands.job import make_job
    from simulate.hands.simulate import records_arrays
    from simulate.tables import layout as L

    job = make_job(v, len(hand.split()), hands, seed, "precision", "table", None, {seat: hand},
                   None)
    P = job.tables.P.copy()
    P[L.OVERRIDE_SEAT], P[L.OVERRIDE_BID] = seat, bid
    job.tables = dataclasses.replace(job.tables, P=P)
    hand_out, seat_out, _, _ = records_arrays(job, None)
    return hand_out, seat_out


@pytest.mark.parametrize("game,hand,seat,bid,mode", [
    ("hoffer", "AS KS 9H 10D QC", 0, 1, "named by the dealer (seat 3) (conditioned)"),
    ("horseshoes", "AS KS QS 9H 10D QC 2C 3C 4D 5D 7H 8S 6C", 1, 4,
     "named by the first bidder (seat 0) (conditioned)"),
])
def test_a_trump_named_by_another_player_is_conditioned_like_filtering(
        game: str, hand: str, seat: int, bid: int, mode: str) -> None:
    """Conditioning on the trump the chooser named agrees with filtering plain hands on it:
    the chooser names trump before this seat bids, on the same random numbers, so the kept
    deals are the same ones."""
    from simulate.kernel.hand import H_OVERRIDDEN, H_TRUMP, S_SCORE, S_TRICKS

    v = sim.load_variant(game, players=4)
    df = sim.bid_odds(v, hand, seat=seat, trump="S", samples=3_000, seed=11, exhaustive=True)
    assert df.attrs["trump_mode"] == mode
    assert df.attrs["accepted"] >= 3_000 and df.attrs["dealt"] > df.attrs["accepted"]
    hand_out, seat_out = _forced_bid_run(v, hand, seat, bid, df.attrs["dealt"], 11)
    keep = (hand_out[:, H_TRUMP] == 0) & (hand_out[:, H_OVERRIDDEN] == 1)
    score = seat_out[keep, seat, S_SCORE].astype(float)
    row = df.set_index("bid").loc[bid]
    se = score.std() / np.sqrt(len(score))
    assert abs(row.expected_score - score.mean()) <= 4 * se + 1e-12
    assert abs(row.mean_tricks - seat_out[keep, seat, S_TRICKS].mean()) <= 0.2
    assert row.n == keep.sum()          # the very same deals, in fact


def test_a_named_trump_and_earlier_bids_keep_the_deals_filtering_keeps() -> None:
    """Both conditions at once (Horseshoes: the first bidder names spades and bids 4, seat
    1 then bids; one deal in about a hundred): the look at each deal stops once the trump
    is named otherwise, or once the focal seat's turn comes, and keeps exactly the deals a
    plain run filtered on the same trump and bid keeps, with their scores."""
    from simulate.kernel.hand import H_OVERRIDDEN, H_TRUMP, S_BID, S_SCORE

    v = sim.load_variant("horseshoes", players=4)
    hand, seat, bid = "AS KS QS 9H 10D QC 2C 3C 4D 5D 7H 8S 6C", 1, 4
    df = sim.bid_odds(v, hand, seat=seat, trump="S", bids_before="4", samples=1_000, seed=13,
                      exhaustive=True)
    assert df.attrs["dealt"] > 50 * df.attrs["accepted"] >= 50 * 150
    hand_out, seat_out = _forced_bid_run(v, hand, seat, bid, df.attrs["dealt"], 13)
    keep = (hand_out[:, H_TRUMP] == 0) & (seat_out[:, 0, S_BID] == 4) & \
        (hand_out[:, H_OVERRIDDEN] == 1)
    row = df.set_index("bid").loc[bid]
    assert row.n == keep.sum()
    assert row.expected_score * row.n == pytest.approx(seat_out[keep, seat, S_SCORE].sum())


def test_rare_earlier_bids_keep_dealing_instead_of_dropping_every_bid() -> None:
    """The pilot stage used to accept no deal here and drop every bid."""
    v = sim.load_variant("oh_hell", players=4)
    df = sim.bid_odds(v, "AS KH 7D 2C", seat=3, trump="H", bids_before="3,2,1", samples=2_000,
                      seed=1)
    assert 0 < df.attrs["accepted"] < df.attrs["dealt"]
    assert not df.forbidden.all() and df.best.sum() == 1
    assert list(df[df.forbidden].bid) == []            # 3 + 2 + 1 > 4: nothing is hooked
    if df.attrs["accepted"] < 5_000:
        assert df.attrs["warnings"][0].startswith("thin conditioning: only ")
        assert "warning: thin conditioning" in format_odds(df)


@pytest.mark.parametrize("exhaustive", [False, True])
def test_a_trump_the_chooser_never_names_is_an_input_error(exhaustive: bool) -> None:
    v = sim.load_variant("hoffer", players=4)
    with pytest.raises(sim.BidlabInputError, match=r"never named it .* in 40,000 deals tried"):
        sim.bid_odds(v, "HIJO JS JC AS KS", seat=0, trump="S", samples=2_000,
                     exhaustive=exhaustive)


@pytest.mark.parametrize("args,needle", [
    (["odds", "hoffer", "--hand", "HIJO JS JC AS KS", "--trump", "S", "--samples", "2000"],
     "deals tried"),
    (["odds", "hoffer", "--hand", "AS KS 9H 10D QC"], "known at this point"),
    (["odds", "oh_hell", "--hand", "AS KH 7D", "--seat", "1"], "turned up"),
    (["odds", "horseshoes", "--hand", "AS KS QS 9H 10D QC 2C 3C 4D 5D 7H 8S 6C", "--seat", "2"],
     "first bidder"),
    (["odds", "hyjack", "--hand", "HJ_BLUE AS 2H", "--trump", "H"], "allowed: S"),
    (["odds", "kings_and_fools", "--hand", "KS FOOL", "--field", "table,nonsense"],
     "unknown bid policy"),
])
def test_conditioning_errors_are_one_line(args: list[str], needle: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bidlab: error:") and needle in err[0], err
    assert "RULES.md" not in err[0] and "A-" not in err[0]


def test_the_chooser_names_its_own_trump() -> None:
    v = sim.load_variant("horseshoes", players=4)
    hand = "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"
    df = sim.bid_odds(v, hand, seat=0, samples=2_000)
    assert df.attrs["trump_mode"] == "chosen by this seat"
    assert "chosen by this seat" in format_odds(df)
    given = sim.bid_odds(v, hand, seat=0, trump="S", samples=2_000)
    assert given.attrs["trump_mode"] == "given (this seat names it)"
    assert given.attrs["accepted"] == given.attrs["dealt"] == 2_000


def test_difference_to_the_best_with_holm_intervals_and_ties() -> None:
    v = sim.load_variant("oh_hell", players=4)
    df = sim.bid_odds(v, "AS KH 7D 2C 9C", seat=1, trump="S", samples=4_000, seed=2,
                      exhaustive=True)
    best = df[df.best].iloc[0]
    assert best.diff_to_best == 0 and not best.tie
    others = df[~df.best & ~df.forbidden]
    assert ((others.diff_high - others.diff_low)
            >= (others.diff_high_raw - others.diff_low_raw) - 1e-12).all()
    assert ((others.diff_high - others.diff_low)
            > (others.diff_high_raw - others.diff_low_raw)).any()
    assert (others.tie == ((others.diff_low <= 0) & (others.diff_high >= 0))).all()
    mean_diff = others.expected_score - best.expected_score
    assert np.allclose(others.diff_to_best, mean_diff)     # every bid on every deal
    # a hand where two bids score almost alike: the tie is flagged and said
    close = sim.bid_odds(v, "AS KH 7D 2C 9C", seat=1, trump="S", samples=300, seed=2,
                         exhaustive=True)
    assert close.attrs["too_close"] == bool(close.tie.any())
    if close.attrs["too_close"]:
        assert "too close to call: bids " in format_odds(close)
        tied = close[close.best | close.tie].bid
        assert f"bids {', '.join(map(str, tied))} are within the interval" in format_odds(close)


def test_the_dealer_under_the_hook_is_split_by_the_sum_of_earlier_bids() -> None:
    v = sim.load_variant("oh_hell", players=4)
    df = sim.bid_odds(v, "AS KH 7D 2C", seat=3, trump="S", samples=6_000, seed=4)
    assert "bids_before_sum" in df.columns and df.attrs["grouped"]
    for g, rows in df.groupby("bids_before_sum"):
        assert rows.best.sum() == 1
        forbidden = list(rows[rows.forbidden].bid)
        assert forbidden == ([4 - int(g)] if g <= 4 else []), (g, forbidden)
    assert df.forbidden.any()
    text = format_odds(df)
    assert "forbidden (hook)" in text and "sum" in text
    plain = sim.bid_odds(v, "AS KH 7D 2C", seat=2, trump="S", samples=2_000, seed=4)
    assert "bids_before_sum" not in plain.columns


def test_field_panel_runs_the_same_deals_with_each_field(capsys: pytest.CaptureFixture[str]) -> None:
    from simulate.hands.odds import field_panel

    v = sim.load_variant("kings_and_fools", players=4)
    panel = field_panel(v, "KS FOOL 7H 2C", seat=0, samples=2_000, seed=3)
    assert list(panel.field) == ["table", "heuristic", "greedy"]
    assert (panel.accepted == 2_000).all() and (panel.dealt == 2_000).all()
    assert panel.attrs["robust"] == (panel.best_bid.nunique() == 1)
    with pytest.raises(SystemExit) as exc:
        main(["odds", "kings_and_fools", "--hand", "KS FOOL 7H 2C", "--samples", "2000",
              "--field", "table,greedy"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "best bid robust across fields: " in out and "chance of taking k tricks" in out


def test_output_names_whose_score_and_the_schedule() -> None:
    v = sim.load_variant("hasenpfeffer", players=4)
    df = sim.bid_odds(v, "JOKER JS JC AS KS 9H", seat=0, samples=2_000)
    assert "E[score] is the partnership's (seats 0 and 2)" in format_odds(df)
    hyjack = sim.load_variant("hyjack", players=4)
    off = sim.bid_odds(hyjack, "HJ_BLUE AS", seat=0, samples=2_000)    # its rounds deal 3 to 9
    assert any("not a hand size of this game's schedule" in w for w in off.attrs["warnings"])


def test_max_bet_leaves_the_dealer_one_bid_per_sum() -> None:
    v = sim.load_variant("hyjack", players=4, countdown=True, max_bet=True)
    df = sim.bid_odds(v, "HJ_BLUE AS 2H", seat=3, samples=4_000, round_index=len(v.schedule) - 1)
    for g, rows in df.groupby("bids_before_sum"):
        assert list(rows[~rows.forbidden].bid) == [3 - int(g)]
    assert "forbidden (max bet)" in format_odds(df)
    shown = int(df[~df.forbidden].n.sum())     # one allowed bid per sum, on all its deals
    assert shown + sum(df.attrs["groups_hidden"].values()) == df.attrs["accepted"]
