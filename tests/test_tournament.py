"""`run_tournament` and `bidlab tournament`: seating balance, paired intervals, exact/made rates,
reproducibility and bad input on one line."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

import simulate as sim
from simulate.cli.main import cli, main
from simulate.hands.simulate import simulate_hands
from simulate.hands.tournament import (
    _seat_arrays,
    allocate_hands,
    entrant_labels,
    make_seatings,
    parse_entrants,
    run_tournament,
    seat_counts,
)
from simulate.tables import policies
from simulate.util.stats import Z95

GG, RR = ("greedy", "greedy"), ("random", "random")


@cache
def variant(name: str, players: int | None = None, **opts: object) -> sim.Variant:
    return sim.load_variant(name, players=players, **opts)


# ----- the headline comparison ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["kings_and_fools", "oh_hell"])
def test_greedy_beats_random_with_paired_ci(name: str) -> None:
    # At 4,000 deals the paired interval is about ±0.1 around a gap of 1.5 to 2.5 points a
    # hand: the lower end sits more than 10 standard errors above 0, so this never flakes.
    res = run_tournament(variant(name, 4), [GG, RR], 4000, seed=7)
    (pair,) = res.pairs.itertuples()
    assert (pair.a, pair.b) == ("greedy+greedy", "random+random")
    assert pair.excludes_zero and pair.ci_low > 0.5
    assert pair.ci_low < pair.diff < pair.ci_high
    table = res.table.set_index("entrant")
    assert table.loc["greedy+greedy", "mean_score"] > table.loc["random+random", "mean_score"]
    assert table.loc["greedy+greedy", "exact_rate"] > table.loc["random+random", "exact_rate"]
    for row in res.table.itertuples():
        assert row.ci_low < row.mean_score < row.ci_high
        assert 0 < row.exact_ci_low < row.exact_rate < row.exact_ci_high < 1
        assert row.hands == 4000
    # the difference of the means is the mean of the paired differences
    assert pair.diff == pytest.approx(table.loc["greedy+greedy", "mean_score"]
                                      - table.loc["random+random", "mean_score"])
    assert res.config["hand_sizes"] == sorted(set(variant(name, 4).schedule))


# ----- seating --------------------------------------------------------------------------------

@pytest.mark.parametrize("name,players,n_entrants,seating", [
    ("oh_hell", 4, 2, "cyclic"), ("oh_hell", 4, 3, "cyclic"), ("oh_hell", 4, 4, "cyclic"),
    ("oh_hell", 3, 5, "cyclic"), ("oh_hell", 5, 2, "cyclic"), ("oh_hell", 6, 4, "cyclic"),
    ("oh_hell", 4, 3, "all"), ("oh_hell", 3, 4, "all"), ("oh_hell", 7, 3, "auto"),
    ("hasenpfeffer", 4, 2, "auto"), ("hasenpfeffer", 4, 3, "all"), ("hasenpfeffer", 4, 5, "auto"),
])
def test_every_entrant_sits_every_seat_equally_often(name: str, players: int, n_entrants: int,
                                                     seating: str) -> None:
    v = variant(name, players)
    seats = make_seatings(v, n_entrants, seating)
    counts = seat_counts(seats, n_entrants, players)
    assert (counts == counts[0, 0]).all() and counts[0, 0] >= 1
    expected = math.factorial(n_entrants) if seating == "all" or (
        seating == "auto" and n_entrants <= 4) else n_entrants
    assert len(seats) == expected
    if v.teams:  # partners always play the same entrant
        for assignment in seats:
            for s in range(players):
                assert assignment[s] == assignment[s % v.teams]


def test_two_entrants_in_a_team_game_play_team_against_team() -> None:
    v = variant("hasenpfeffer")
    assert make_seatings(v, 2) == [(0, 1, 0, 1), (1, 0, 1, 0)]


def test_result_config_records_balanced_seats() -> None:
    res = run_tournament(variant("oh_hell", 4), [GG, RR, ("greedy", "random")], 600,
                         hand_sizes=[5], seed=3)
    c = res.config
    counts = np.array(c["seat_counts"])
    assert counts.shape == (3, 4) and (counts == 2).all()  # 3! seatings, each seat 2x each
    assert len(c["seatings"]) == 6 and c["seating"] == "all"
    assert c["hand_sizes"] == [5] and c["hands_by_size"] == {5: 600}
    assert c["deal_seeds"] == {5: 3}  # one size: the seed itself, as in `bidlab simulate`


# ----- null comparisons ------------------------------------------------------------------------

def test_entrant_against_itself_shows_no_difference() -> None:
    res = run_tournament(variant("oh_hell", 4), [GG, GG], 2000, seed=11)
    (pair,) = res.pairs.itertuples()
    assert (pair.a, pair.b) == ("greedy+greedy", "greedy+greedy#2")
    assert pair.ci_low <= 0 <= pair.ci_high and not pair.excludes_zero
    assert res.config["tables_played"] == 1  # both seatings are the same table


def test_copies_of_one_entrant_are_exchangeable_among_others() -> None:
    # with every order of the entrants, two copies of one policy get identical figures
    res = run_tournament(variant("kings_and_fools", 4), [GG, RR, GG], 1500, seed=5)
    pairs = res.pairs.set_index(["a", "b"])
    same = pairs.loc[("greedy+greedy", "greedy+greedy#2")]
    assert same.ci_low <= 0 <= same.ci_high and not same.excludes_zero
    t = res.table.set_index("entrant")
    assert t.loc["greedy+greedy", "mean_score"] == pytest.approx(
        t.loc["greedy+greedy#2", "mean_score"])
    assert res.config["tables_played"] == 3  # 6 orders, 3 distinct tables


# ----- statistics ------------------------------------------------------------------------------

def test_intervals_are_normal_over_deals_and_stratified_by_size() -> None:
    v = variant("kings_and_fools", 4)
    res = run_tournament(v, [GG, RR], 3000, seed=2, hand_sizes=[2, 5, 5], keep_deals=True)
    c = res.config
    assert c["hands_by_size"] == {2: 1000, 5: 2000}
    assert c["weights"] == {2: pytest.approx(1 / 3), 5: pytest.approx(2 / 3)}
    deals = res.per_deal
    for e, row in enumerate(res.table.itertuples()):
        est = sum(c["weights"][h] * deals[h].iloc[:, e].mean() for h in (2, 5))
        var = sum(c["weights"][h] ** 2 * deals[h].iloc[:, e].var(ddof=1) / len(deals[h])
                  for h in (2, 5))
        assert row.mean_score == pytest.approx(est)
        assert row.ci_high - row.ci_low == pytest.approx(2 * Z95 * math.sqrt(var))
    diff = {h: deals[h].iloc[:, 0] - deals[h].iloc[:, 1] for h in (2, 5)}
    (pair,) = res.pairs.itertuples()
    assert pair.diff == pytest.approx(sum(c["weights"][h] * diff[h].mean() for h in (2, 5)))


def test_per_deal_mean_matches_plain_simulation() -> None:
    # one size, one seed: a greedy+greedy table is exactly `simulate_hands` with greedy play
    v = variant("oh_hell", 4)
    res = run_tournament(v, [GG, GG], 500, seed=9, hand_sizes=[4], keep_deals=True)
    plain = simulate_hands(v, 4, 500, seed=9, play="greedy", bid="greedy").records
    per_deal = plain.groupby("deal").score.mean().to_numpy()
    np.testing.assert_allclose(res.per_deal[4].iloc[:, 0].to_numpy(), per_deal)
    exact = (plain.bid == plain.tricks).mean()
    assert res.table.exact_rate.iloc[0] == pytest.approx(exact)


@pytest.mark.parametrize("name,opts", [("oh_hell", {}), ("hasenpfeffer", {}),
                                       ("hasenpfeffer", {"allow_alone": True})])
def test_fast_columns_agree_with_records(name: str, opts: dict[str, object]) -> None:
    v = variant(name, None, **opts)
    res = simulate_hands(v, 5 if name == "oh_hell" else 6, 400, seed=1,
                         play=["greedy", "random"] * 2, bid=["random", "greedy"] * 2)
    slow = SimpleNamespace(records=res.records)  # no kernel arrays: the records path
    for fast_part, slow_part in zip(_seat_arrays(v, res), _seat_arrays(v, slow), strict=True):
        np.testing.assert_array_equal(fast_part, slow_part)


def test_contract_game_reports_made_rate() -> None:
    v = variant("hasenpfeffer")
    res = run_tournament(v, [GG, RR], 1500, seed=4)
    assert res.config["contract"] and "contract" in res.config["exact_means"]
    # recount from the records of the two seatings: greedy holds team 0, then team 1
    made = tried = 0
    for greedy_team, table in ((0, [GG, RR] * 2), (1, [RR, GG] * 2)):
        records = simulate_hands(v, 6, 1500, seed=4, play=[p for p, _ in table],
                                 bid=[b for _, b in table]).records
        team_tricks = records.groupby(["deal", "team"]).tricks.sum()
        makers = records[records.maker & (records.team == greedy_team)]
        for deal, step in zip(makers.deal, makers.contract, strict=True):
            tried += 1
            made += int(team_tricks[(deal, greedy_team)] >= v.ladder[step - 1].tricks)
    greedy = res.table.set_index("entrant").loc["greedy+greedy"]
    assert tried > 0 and greedy.exact_rate == pytest.approx(made / tried)
    for row in res.table.itertuples():
        assert 0 <= row.exact_ci_low <= row.exact_rate <= row.exact_ci_high <= 1
    assert "made rate" in res.format()


def test_allocate_hands_counts_each_round_once() -> None:
    schedule = variant("oh_hell", 4).schedule  # 1..12..1: size 12 once, the others twice
    alloc = allocate_hands(schedule, 23_000)
    assert sum(alloc.values()) == 23_000
    assert alloc[12] == 1000 and all(alloc[h] == 2000 for h in range(1, 12))
    assert sum(allocate_hands(schedule, 100).values()) == 100


# ----- reproducibility -------------------------------------------------------------------------

def test_same_seed_same_results() -> None:
    v = variant("kings_and_fools", 4)
    a = run_tournament(v, [GG, RR], 1000, seed=42)
    b = run_tournament(v, [GG, RR], 1000, seed=42, workers=1)
    c = run_tournament(v, [GG, RR], 1000, seed=43)
    assert a.table.equals(b.table) and a.pairs.equals(b.pairs) and a.config == b.config
    assert a.format() == b.format()
    assert not a.table.mean_score.equals(c.table.mean_score)


# ----- input -----------------------------------------------------------------------------------

def test_parse_entrants_and_labels() -> None:
    assert parse_entrants(" greedy+greedy , random+random") == [GG, RR]
    assert entrant_labels([GG, RR, GG, GG]) == ["greedy+greedy", "random+random",
                                                "greedy+greedy#2", "greedy+greedy#3"]


@pytest.mark.parametrize("entrants,needle", [
    ([GG], "at least 2 entrants"),
    ([GG, ("genius", "greedy")], "unknown play policy 'genius'"),
    ([GG, ("greedy", "psychic")], "unknown bid policy 'psychic'"),
    ([GG, "greedy"], "(play, bid) pair"),
])
def test_run_tournament_bad_entrants(entrants: list[object], needle: str) -> None:
    with pytest.raises(sim.BidlabInputError, match=None) as info:
        run_tournament(variant("oh_hell", 4), entrants, 100)  # type: ignore[arg-type]
    assert needle in str(info.value)


def test_unknown_policy_names_the_allowed_ones() -> None:
    with pytest.raises(sim.BidlabInputError) as info:
        parse_entrants("greedy+greedy,genius+greedy")
    for name in policies.PLAY:
        assert name in str(info.value)


@pytest.mark.parametrize("args,needle", [
    (["--seats", "greedy+greedy,genius+greedy"], "unknown play policy 'genius'"),
    (["--seats", "greedy+greedy,random+psychic"], "unknown bid policy 'psychic'"),
    (["--seats", "greedy+greedy"], "at least 2 entrants"),
    (["--seats", "greedy,random"], "PLAY+BID"),
    (["--seats", "greedy+greedy,,random+random"], "PLAY+BID"),
    (["--seats", "greedy+greedy+random,random+random"], "PLAY+BID"),
    (["--seats", "greedy+greedy,random+random", "--hands", "0"], "hands must be a positive"),
    (["--seats", "greedy+greedy,random+random", "--hands", "5"], "too few"),
    (["--seats", "greedy+greedy,random+random", "-c", "40"], "cannot be dealt"),
    (["--seats", "greedy+greedy,random+random", "--seating", "odd"], "--seating"),
    ([], "--seats"),
])
def test_cli_bad_input_is_one_line_exit_2(args: list[str], needle: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "oh_hell", "-p", "4", *args])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bidlab: error: ") and needle in err[0], err
    assert captured.out == ""


def test_cli_prints_the_table() -> None:
    result = CliRunner().invoke(cli, ["tournament", "kings_and_fools", "-p", "3", "--seats",
                                      "greedy+greedy,random+random", "--hands", "700",
                                      "--seed", "1", "-c", "4"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("kings_and_fools(players=3")
    assert "hand size 4" in out and "700 deals, seed 1" in out
    assert "greedy+greedy - random+random" in out
    lines = out.splitlines()
    assert sum(line.startswith(("greedy+greedy ", "random+random ")) for line in lines) == 2
    assert Counter(x for line in lines for x in line.split())["CI"] >= 2
