"""Whole games in the kernel against the reference engine, and the balance metrics.

Every kernel game below is replayed by the reference engine's play_game with the recorded
deals and decisions (star spending included): each decision must be legal and in turn,
and every hand's outcome, the final totals, the winners, the stars, the number of hands and
the tie-break rounds must be identical.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import simulate as sim
from simulate.cli.main import cli, main
from simulate.errors import BidlabInputError
from simulate.games.compare import compare_games, skill_index
from simulate.games.job import Layout, make_game_job
from simulate.games.metrics import metric_defs
from simulate.games.replay import kernel_game_records, replay_kernel_game
from simulate.games.simulate import simulate_games
from simulate.kernel import game as K

POLICIES = ["random+random", "greedy+greedy", "precision+heuristic"]

PLAYER_COUNTS = {g: range(lo, hi + 1) for g in sim.shipped_variants()
                 for lo, hi in [sim.load_variant(g).player_range]}
OPTION_SETS = [
    ("hoffer", 4, {"partnership": True}),
    ("hoffer", 2, {"two_player_max": 9, "peak_twice": True}),
    ("horseshoes", 6, {"partnership": "triples", "jokers": 2, "breaking_trump": True,
                       "aces": "high_low", "stars": True}),
    ("horseshoes", 4, {"stars": True, "partnership": "pairs"}),
    ("horseshoes", 3, {"stars": True, "target": 5}),
    ("hyjack", 5, {"countdown": True, "max_bet": True, "frilly_mode": "as_exact",
                   "beanie_mode": "lose_bonus"}),
    ("hyjack", 4, {"countdown": True, "max_bet": True, "max_bet_from": "below_peak"}),
    ("hasenpfeffer", 4, {"bidding_form": "pepper", "allow_alone": True,
                         "defenders_score_tricks": True}),
    ("hasenpfeffer", 4, {"all_pass": "redeal"}),
    ("hasenpfeffer", 4, {"all_pass": "stick_dealer", "target": 5}),
    ("kings_and_fools", 5, {"bonus_requires_exact": True}),
    ("oh_hell", 4, {"scoring": "exact_only", "schedule": "down_up"}),
    ("oh_hell", 6, {"hook": False}),
]
CONFIGS = [(g, n, {}) for g, counts in PLAYER_COUNTS.items() for n in counts
           if n in (min(counts), 4, max(counts))] + OPTION_SETS


def _replay(v: sim.Variant, policies: str, games: list[int], seed: int) -> int:
    """Replay these kernel games (skipping any that ran into the 10,000-hand safety cap);
    return how many were replayed."""
    job = make_game_job(v, max(games) + 1, seed, policies, 2)
    rows, _ = job.run(0, max(games) + 1)
    done = 0
    for g in games:
        if rows[g, K.C_HANDS] > 300:
            continue
        _, problems = replay_kernel_game(job, g)
        assert not problems, f"{v.canonical} {policies} game {g}: {problems[:4]}"
        done += 1
    return done


# the fast lane keeps these (stars with a short target; an auction with the dealer stuck);
# every other configuration is `slow`
FAST_CONFIGS = {"horseshoes-3p-stars=True+target=5", "hasenpfeffer-4p-all_pass=stick_dealer+target=5"}
CONFIG_IDS = [f"{g}-{n}p-{'+'.join(f'{k}={v}' for k, v in o.items()) or 'default'}"
              for g, n, o in CONFIGS]


@pytest.mark.parametrize("game,players,options", [
    pytest.param(*c, id=i, marks=() if i in FAST_CONFIGS else pytest.mark.slow)
    for c, i in zip(CONFIGS, CONFIG_IDS, strict=True)])
def test_kernel_games_replay_identically(game: str, players: int, options: dict) -> None:
    v = sim.load_variant(game, players=players, **options)
    per = 2 if v.rule("end.rule") == "target" and max(v.schedule) >= 10 else 4
    # random bids in an auction with negative scores rarely reach the target: the safety
    # cap ends those games, so contract games replay random play with greedy bids
    policies = POLICIES if not v.is_contract else ["random+greedy"] + POLICIES[1:]
    for k, pol in enumerate(policies):
        assert _replay(v, pol, list(range(per)), seed=100 + k) > 0


@pytest.mark.parametrize("game,options,policies,column", [
    ("hoffer", {}, "random+random", K.C_TIEBREAKS),      # tie-break rounds up the river
    ("hoffer", {"partnership": True}, "random+random", K.C_TIEBREAKS),
    ("horseshoes", {"stars": True}, "precision+heuristic", K.C_STAR_WIN),  # five stars win
    ("kings_and_fools", {}, "random+random", K.C_UNITS_WON),             # shared wins
])
def test_rare_endings_replay_identically(game: str, options: dict, policies: str,
                                         column: int) -> None:
    """Games that reach the rarer end rules, found in a records run, replay exactly."""
    v = sim.load_variant(game, **options)
    res = simulate_games(v, 3000, seed=7, policies=policies, keep="records", workers=1)
    rows = res.rows
    assert rows is not None
    wanted = np.flatnonzero((rows[:, column] > (1 if column == K.C_UNITS_WON else 0)) &
                            (rows[:, K.C_HANDS] <= 300))[:4]
    assert len(wanted) > 0, f"no game in 3000 reached column {column}"
    assert _replay(v, policies, [int(g) for g in wanted], seed=7) > 0


def test_safety_cap_and_thrown_in_hands_replay_identically() -> None:
    """Random Hasenpfeffer bidders rarely reach the target and throw hands in when all
    pass: with the safety cap lowered to 40 hands, capped games with voided hands replay."""
    v = sim.load_variant("hasenpfeffer", all_pass="redeal")
    job = make_game_job(v, 1500, 8, "random+random", 2)
    job.G[K.G_MAX_HANDS] = 40
    rows, _ = job.run(0, 1500)
    voided = np.flatnonzero(rows[:, K.C_VOIDED] > 0)
    assert len(voided) > 0 and rows[voided[0], K.C_CAPPED] == 1
    for g in [0, *voided[:3]]:
        assert replay_kernel_game(job, int(g))[1] == [], g


def test_replay_catches_a_tampered_game() -> None:
    from simulate.reference.engine import replay_game

    v = sim.load_variant("horseshoes", stars=True)
    job = make_game_job(v, 1, 3, "precision+heuristic", 1)   # spends a star on any loss
    _, records = kernel_game_records(job, 0)
    assert replay_game(v, records)[1] == []
    records[-1].scores[0] += 1                       # a hand's score
    assert replay_game(v, records)[1]
    _, records = kernel_game_records(job, 0)
    records.pop()                                    # a hand missing at the end
    assert replay_game(v, records)[1]
    _, records = kernel_game_records(job, 0)
    spent = [(r, i) for r in records for i, d in enumerate(r.decisions) if d[0] == "spend_star"]
    assert spent, "the game should hold a star decision"
    r, i = spent[0]
    kind, seat, value = r.decisions[i]
    r.decisions[i] = (kind, seat, not value)         # a star decision flipped
    assert replay_game(v, records)[1]


def test_same_seed_same_games_for_any_chunking_and_threads() -> None:
    v = sim.load_variant("horseshoes")
    base = simulate_games(v, 3000, seed=5, keep="records", workers=1, chunk_size=3000)
    for workers, chunk in ((2, 700), (2, 64), (1, 1000)):
        other = simulate_games(v, 3000, seed=5, keep="records", workers=workers,
                               chunk_size=chunk)
        assert np.array_equal(base.rows, other.rows)
        assert np.array_equal(base.by_size, other.by_size)
        assert np.allclose(base.metrics.value, other.metrics.value, equal_nan=True)
    two = simulate_games(v, 3000, seed=5, keep="summary", workers=2, chunk_size=700)
    again = simulate_games(v, 3000, seed=5, keep="summary", workers=1, chunk_size=700)
    assert two.metrics.equals(again.metrics)
    assert not np.array_equal(base.rows, simulate_games(v, 3000, seed=6, keep="records").rows)


def test_metrics_agree_with_the_game_rows() -> None:
    v = sim.load_variant("kings_and_fools")
    res = simulate_games(v, 4000, seed=2, keep="records")
    df = res.frame()
    m = res.metrics.set_index("metric")
    per_game = df.groupby("game")
    winners = per_game.win.transform("sum")
    share = (df.win / winners).groupby(df.seat).mean()
    for s in range(4):
        assert m.loc[f"win_share[{s}]", "value"] == pytest.approx(share[s])
        rows = df[df.seat == s]
        assert m.loc[f"exact[{s}]", "value"] == pytest.approx(rows.exact.sum() / rows.played.sum())
        assert m.loc[f"score[{s}]", "value"] == pytest.approx(rows.score.mean())
    assert sum(m.loc[f"win_share[{s}]", "value"] for s in range(4)) == pytest.approx(1.0)
    assert m.loc["length", "value"] == len(v.schedule)
    assert m.loc["all_exact", "value"] == 0.0          # the hook makes it impossible
    # CIs cover their estimate and shrink with more games
    assert (m.lo <= m.value).all() and (m.value <= m.hi).all()
    small = simulate_games(v, 1000, seed=2).metrics.set_index("metric")
    assert (small.hi - small.lo)["score[0]"] > (m.hi - m.lo)["score[0]"]
    # bid accuracy by seat and size adds up to the per-game counts
    acc = res.accuracy()
    assert acc.n.sum() == df.played.sum()
    assert (acc.rate * acc.n).round().sum() == df.exact.sum()


def test_first_dealer_deals_twice_in_seven_rounds() -> None:
    """Kings and Fools: 7 rounds among 4 players, so the first dealer (hooked twice)
    makes fewer exact bids than seat 2, who deals once — a clear, known effect."""
    m = simulate_games(sim.load_variant("kings_and_fools"), 20_000, seed=1).metrics
    m = m.set_index("metric")
    assert m.loc["exact[3]", "hi"] < m.loc["exact[2]", "lo"]


def test_compare_pairs_the_same_deals() -> None:
    v = sim.load_variant("kings_and_fools")
    same = compare_games(v, v, 2000, seed=3, skill=False)
    assert (same["diff"].fillna(0) == 0).all() and (same["se"].fillna(0) == 0).all()
    other = sim.load_variant("kings_and_fools", bonus_requires_exact=True)
    df = compare_games(v, other, 5000, seed=3, skill=False).set_index("metric")
    # a Fool bonus that needs an exact bid pays less often: lower scores, and holding a
    # Fool is worth less for winning
    for key in ("score[0]", "score[3]", "holder_win[FOOL]"):
        assert df.loc[key, "hi"] < 0 and df.loc[key, "significant"], key
    # paired CIs are much narrower than unpaired ones would be
    unpaired = np.sqrt(df.loc["score[0]", "a_se"] ** 2 + df.loc["score[0]", "b_se"] ** 2)
    assert df.loc["score[0]", "se"] < unpaired / 3


def test_skill_index_rewards_the_strong_policy() -> None:
    sk = skill_index(sim.load_variant("hyjack"), 3000, seed=4)
    assert sk["skill_lo"] > 0 and sk["ratio"] > 1
    weak_vs_weak = skill_index(sim.load_variant("hyjack"), 3000, seed=4,
                               strong="greedy+heuristic", weak="greedy+heuristic")
    # the same policy everywhere: the seat shares of each game sum to 1, so exactly chance
    assert weak_vs_weak["win_share"] == pytest.approx(0.25)


def test_metric_list_fits_the_variant() -> None:
    keys = lambda v: {m.key for m in metric_defs(make_game_job(v, 1, 0, "random+random", 2))}  # noqa: E731
    hoffer = keys(sim.load_variant("hoffer"))
    assert "tiebreaks" in hoffer and "forced" not in hoffer and "holder_win[HIJO]" in hoffer
    assert "forced" in keys(sim.load_variant("oh_hell"))
    hasen = keys(sim.load_variant("hasenpfeffer"))
    assert "made" in hasen and "all_exact" not in hasen
    assert "star_win" in keys(sim.load_variant("horseshoes", stars=True))
    assert "captures[beanie]" in keys(sim.load_variant("hyjack"))


def test_layout_columns_are_distinct() -> None:
    v = sim.load_variant("hyjack")
    job = make_game_job(v, 1, 0, "random+random", 2)
    lay = Layout(v, len(job.specials))
    cols = [lay.col(s, f) for s in range(v.players) for f in range(K.SEAT_BASE)]
    cols += [lay.held(s, e) for s in range(v.players) for e in range(len(job.specials))]
    cols += [lay.captured(s, e) for s in range(v.players) for e in range(len(v.events))]
    assert len(set(cols)) == len(cols) and max(cols) < job.width


@pytest.mark.parametrize("kwargs,fragment", [
    ({"policies": "precision"}, r"PLAY\+BID"),
    ({"policies": "precision+oracle"}, "unknown bid policy"),
    ({"policies": ["random+random"] * 3}, "for 4 seats"),
    ({"games": 0}, "games must be a positive"),
    ({"stars": -5}, "stars"),
    ({"keep": "all"}, "keep="),
])
def test_bad_game_input(kwargs: dict, fragment: str) -> None:
    args = {"games": 10, **kwargs}
    with pytest.raises(BidlabInputError, match=fragment):
        simulate_games(sim.load_variant("oh_hell"), **args)


@pytest.mark.parametrize("players", [3, 4])
def test_tied_only_tiebreak_rounds_replay_identically(players: int) -> None:
    """tiebreak_participants=tied_only: tie-break rounds are dealt to the tied players only
    (a smaller game: the last of them deals); such games replay exactly."""
    v = sim.load_variant("hoffer", players=players, tiebreak_participants="tied_only")
    res = simulate_games(v, 2000, seed=7, policies="random+random", keep="records", workers=1)
    rows = res.rows
    assert rows is not None
    wanted = np.flatnonzero(rows[:, K.C_TIEBREAKS] > 0)[:5]
    assert len(wanted) > 0
    smaller = 0
    for g in wanted:
        _, records = kernel_game_records(res.job, int(g))
        smaller += sum(len(r.hands) < players for r in records)
        assert replay_kernel_game(res.job, int(g))[1] == [], g
    assert smaller > 0, "no tie-break round was played by the tied players only"


def test_games_and_compare_commands(capsys: pytest.CaptureFixture[str]) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["games", "hoffer", "--games", "500", "--no-skill"])
    assert out.exit_code == 0, out.output
    assert "win share by seat" in out.output and "tie-break rounds per game" in out.output
    out = runner.invoke(cli, ["compare", "horseshoes", "--set", "breaking_trump=true",
                              "--games", "500", "--no-skill"])
    assert out.exit_code == 0, out.output
    assert "B − A" in out.output and "breaking_trump=true" in out.output
    out = runner.invoke(cli, ["compare", "oh_hell", "--sweep", "hook=false,true", "--games",
                              "300", "--no-skill"])
    assert out.exit_code == 0, out.output
    assert "same configuration as A; skipped" in out.output
    for argv, fragment in [
        (["compare", "oh_hell", "--games", "10"], "nothing to compare"),
        (["compare", "oh_hell", "--sweep", "hook", "--games", "10"], "OPTION=V1,V2"),
        (["compare", "oh_hell", "--set", "hook=maybe", "--games", "10"], "hook"),
        (["compare", "oh_hell", "-p", "7", "--vs", "hoffer", "--games", "10"], "hoffer"),
        (["games", "oh_hell", "--policies", "greedy", "--games", "10"], "PLAY+BID"),
        (["games", "oh_hell", "--skill-policies", "greedy+greedy", "--games", "10"],
         "STRONG,FIELD"),
        (["games", "oh_hell", "--out", "x.txt"], ".parquet or .csv"),
        (["games", "oh_hell", "--out", "a\x00b.csv"], "not a usable file name"),
        (["report", "hoffer", "--out", "a\x00b"], "not a usable folder name"),
        (["report", "hoffer", "--out", "pyproject.toml"], "is a file"),
        (["train", "hoffer", "--out", "pyproject.toml"], "is a file"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert fragment in err and "Traceback" not in err and err.count("\n") == 1, err


def test_compare_train_trains_only_what_lacks_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """--train trains configurations without a trained table (not the shipped defaults) and
    then compares with precision+table."""
    import simulate.hands.train as train_mod

    trained: list[str] = []
    monkeypatch.setattr(train_mod, "train", lambda v, **kw: trained.append(v.canonical))
    runner = CliRunner()
    out = runner.invoke(cli, ["compare", "kings_and_fools", "--set", "bonus_requires_exact=true",
                              "--train", "--games", "200", "--no-skill"])
    assert out.exit_code == 0, out.output
    assert len(trained) == 1 and "bonus_requires_exact=true" in trained[0]
    assert "precision+table in every seat" in out.output
    trained.clear()
    out = runner.invoke(cli, ["compare", "hasenpfeffer", "--set", "allow_alone=true", "--train",
                              "--games", "200", "--no-skill"])
    assert out.exit_code == 0, out.output
    assert trained == []


def test_seat_diagnostics_count_deals_hooks_and_scores() -> None:
    """Oh Hell 4p plays 23 rounds: the first dealer (seat 3) and seats 0, 1 deal six hands
    each and seat 2 five (the deal passes left); the hook binds every dealer's bid but the
    hands where the rules lift it; score sums by seat and size add up to the final scores."""
    v = sim.load_variant("oh_hell")
    res = simulate_games(v, 300, seed=3, policies="greedy+heuristic", workers=1)
    diag = res.seat_diagnostics()
    dealt = diag.groupby("seat").dealt.sum()
    assert dealt.tolist() == [6 * 300, 6 * 300, 5 * 300, 6 * 300]
    assert (diag.groupby("seat").hooked.sum() > 0).all()
    assert (diag.hooked <= diag.dealt).all()
    metrics = res.metrics.set_index("metric")
    for s in range(4):
        part = diag[diag.seat == s]
        total = (part.mean_score * part.played).sum() / 300
        assert np.isclose(total, metrics.loc[f"score[{s}]", "value"])
