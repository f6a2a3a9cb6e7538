"""Designer ergonomics (issue 15): Holm-corrected marks and the variance reduction of
pairing in `compare`, the sweep summary, bad formulas refused by every command at load,
`bidlab rules --diff`, warnings for options that change nothing, and the rules wording."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import simulate as sim
from simulate.cli.main import cli, main
from simulate.errors import BidlabInputError
from simulate.games.metrics import format_paired, holm_marks
from simulate.rules.describe import describe_diff, describe_rules
from simulate.rules.load import inert_options

HOFFER = Path(sim.__file__).parent / "variants" / "hoffer.toml"


def _frame(z: list[float]) -> pd.DataFrame:
    se = np.ones(len(z))
    d = np.array(z)
    return pd.DataFrame({"metric": [f"m[{i}]" for i in range(len(z))], "group": "g",
                         "label": [f"m{i}" for i in range(len(z))], "seat": None,
                         "a": 1.0, "b": 1.0 + d, "diff": d, "se": se, "lo": d - 1.959964 * se,
                         "hi": d + 1.959964 * se, "vr": 4.0})


def test_holm_marks_fewer_than_the_raw_intervals() -> None:
    """Twenty differences at z = 2.1 each pass one by one (p = 0.036) but not Holm's
    family-wise test (the smallest needs p < 0.05 / 20); one at z = 6 stays marked."""
    df = holm_marks(_frame([2.1] * 20 + [6.0]))
    assert df.significant_raw.sum() == 21
    assert df.significant.tolist() == [False] * 20 + [True]
    # Holm's interval is wider than the raw one and excludes 0 exactly where marked
    assert (df.hi_holm - df.lo_holm > df.hi - df.lo).all()
    assert ((df.lo_holm > 0) == df.significant).all()
    text = format_paired(df)
    assert "Holm" in text and "21 differences" in text and "1 marked, 21 by the raw" in text
    assert text.count(" *") == 1


def test_holm_single_metric_is_the_raw_test() -> None:
    df = holm_marks(_frame([2.1]))
    assert df.significant.iloc[0] and df.significant_raw.iloc[0]


def test_compare_reports_variance_reduction_and_corrected_marks() -> None:
    a = sim.load_variant("kings_and_fools")
    b = sim.load_variant("kings_and_fools", bonus_requires_exact=True)
    df = sim.compare_games(a, b, games=2000, skill=False, workers=1)
    assert {"vr", "p", "significant_raw", "lo_holm", "hi_holm"} <= set(df.columns)
    score = df[df.metric.str.startswith("score[")]
    assert (score.vr > 2).all(), score.vr.tolist()      # paired: far narrower than independent
    assert (df.significant <= df.significant_raw).all()  # Holm never marks more
    text = format_paired(df)
    assert "variance reduction of pairing" in text and "Holm" in text


def test_sweep_prints_a_summary_table_and_draws_the_plot(tmp_path: Path) -> None:
    stem = tmp_path / "sweep"
    out = CliRunner().invoke(cli, ["compare", "oh_hell", "--sweep",
                                   "zero_bid=adjusted,reduced", "--games", "300", "--no-skill",
                                   "--workers", "1", "--plot", str(stem)])
    assert out.exit_code == 0, out.output
    text = out.output
    assert "sweep summary" in text and "B − A by zero_bid" in text
    summary = text.split("sweep summary")[1]
    assert "adjusted" in summary.splitlines()[1] and "reduced" in summary.splitlines()[1]
    assert "final score by seat" in summary
    assert "Holm's correction over the" in text
    assert (tmp_path / "sweep.png").stat().st_size > 1000
    assert (tmp_path / "sweep.svg").is_file()


def _bad_file(tmp_path: Path, old: str, new: str) -> Path:
    text = HOFFER.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bad_hoffer.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("argv", [
    ["rules", "{f}"], ["rules", "--diff", "hoffer", "{f}"], ["games", "{f}", "--games", "10"],
    ["compare", "hoffer", "--vs", "{f}", "--games", "10"], ["compare", "{f}", "--set",
                                                             "peak_twice=true"],
    ["odds", "{f}", "--hand", "AS KS", "--seat", "0", "--trump", "S"],
    ["simulate", "{f}", "--hands", "10"], ["train", "{f}"],
])
def test_a_bad_formula_is_refused_by_every_command(tmp_path: Path, argv: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = _bad_file(tmp_path, 'exact = "10 + bid"', 'exact = "10 * bidd"')
    with pytest.raises(SystemExit) as exc:
        main([a.replace("{f}", str(path)) for a in argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert str(path) in err and "[scoring] exact" in err and "bidd" in err and "known here" in err


def test_a_bad_formula_in_an_inactive_patch_is_refused(tmp_path: Path) -> None:
    """A formula that only a [[when]] patch (not in force here) would use is checked too."""
    path = tmp_path / "patched.toml"
    path.write_text(HOFFER.read_text(encoding="utf-8") +
                    '\n[[when]]\nif = { peak_twice = true }\nset = { "scoring.over" = '
                    '"took - bidd" }\n', encoding="utf-8")
    with pytest.raises(BidlabInputError, match=r"\[\[when\]\] #\d+ scoring.over.*bidd"):
        sim.load_variant(path)


def test_a_patch_whose_set_is_not_a_table_is_refused(tmp_path: Path) -> None:
    """Applied or not, a [[when]] patch's 'set' must be a table (the fuzzer found one that
    was a number reach the formula check as a traceback)."""
    path = tmp_path / "patched.toml"
    path.write_text(HOFFER.read_text(encoding="utf-8") +
                    '\n[[when]]\nif = { peak_twice = true }\nset = 1\n', encoding="utf-8")
    with pytest.raises(BidlabInputError, match=r"\[\[when\]\] #\d+: 'set' must be a table"):
        sim.load_variant(path)


def test_rules_diff_names_what_changes(tmp_path: Path) -> None:
    path = _bad_file(tmp_path, 'over = "took - bid"', 'over = "took"')
    text = describe_diff(sim.load_variant("hoffer"), sim.load_variant(path))
    assert "What B changes (1)" in text and "[scoring] over" in text and "took - bid → took" in text
    text = describe_diff(sim.load_variant("horseshoes", players=5),
                         sim.load_variant("horseshoes", players=5, jokers=2))
    assert "52 → 54 cards; adds JOKER ×2" in text and "option jokers" in text
    same = describe_diff(sim.load_variant("oh_hell"), sim.load_variant("oh_hell"))
    assert "no difference" in same
    out = CliRunner().invoke(cli, ["rules", "--diff", "hoffer", "hoffer", "--set",
                                   "peak_twice=true"])
    assert out.exit_code == 0 and "1 2 3 4 5 6 5 4 3 2 1 → 1 2 3 4 5 6 6 5 4 3 2 1" in out.output


def test_options_that_change_nothing_are_named() -> None:
    assert inert_options(sim.load_variant("hoffer", players=4, two_player_max=9)) == \
        ["two_player_max=9"]
    assert inert_options(sim.load_variant("hoffer", players=2, two_player_max=9)) == []
    assert inert_options(sim.load_variant("hoffer", peak_twice=True)) == []
    assert inert_options(sim.load_variant("hyjack", max_bet_from="below_peak")) == \
        ["max_bet_from=below_peak"]
    assert inert_options(sim.load_variant("hyjack", max_bet=True, countdown=True,
                                          max_bet_from="below_peak")) == []
    out = CliRunner().invoke(cli, ["rules", "hoffer", "--set", "two_player_max=9"])
    assert out.exit_code == 0
    assert "warning: two_player_max=9 changes nothing in hoffer with 4 players" in out.output


def test_rules_wording_bowers_and_turn_up() -> None:
    hasen = describe_rules(sim.load_variant("hasenpfeffer"))
    assert "JS (right bower)" in hasen and "JC (left bower)" in hasen
    assert "Big Jack" not in hasen and "Little Jack" not in hasen
    hoffer = describe_rules(sim.load_variant("hoffer"))
    assert "JS (Big Jack)" in hoffer and "JC (Little Jack)" in hoffer and "bower" not in hoffer
    oh = " ".join(describe_rules(sim.load_variant("oh_hell")).split())
    assert "of the 4 left over, the top card is turned up for trump (seen by all) and 3 " \
           "stay undealt and unseen" in oh
    full = " ".join(describe_rules(sim.load_variant("oh_hell", max_hand=13)).split())
    assert "no card is turned up (no trump)" in full
