"""The `bidlab` command line: listing, rules text, variant files by path, and bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import simulate
from simulate.cli.main import cli, main
from simulate.rules.describe import suit_label
from simulate.rules.load import VARIANTS_DIR, load_variant, shipped_variants

ALL_GAMES = shipped_variants()


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `bidlab ARGS` in-process through main() (the real error handling)."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (0 if code is None else int(code)), out, err


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bidlab: error: ")
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0]


def rules_text(*args: str) -> str:
    result = CliRunner().invoke(cli, ["rules", *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


# ----- bidlab variants -----------------------------------------------------------------------

def test_variants_lists_all_six_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "variants")
    assert code == 0 and err == ""
    assert len(ALL_GAMES) == 6
    for name in ALL_GAMES:
        v = load_variant(name)
        assert f"{name} — {v.title}" in out
        lo, hi = v.player_range
        assert (f"players: {lo} to {hi}" if lo != hi else f"players: {lo}") in out
        for spec in v.option_specs.values():
            assert f"{spec.name}={spec.show(spec.default)}" in out
            assert spec.allowed() in out
    assert "peak_twice=false" in out and "two_player_max=8" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "--version")
    assert code == 0
    assert out.strip() == f"bidlab {simulate.__version__}"


def test_no_arguments_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys)
    assert code == 0 and err == ""
    assert "variants" in out and "rules" in out


# ----- bidlab rules --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL_GAMES)
def test_rules_every_game_every_player_count(name: str) -> None:
    lo, hi = load_variant(name).player_range
    for players in range(lo, hi + 1):
        v = load_variant(name, players=players)
        text = rules_text(name, "--players", str(players))
        assert text.startswith(v.title)
        assert f"canonical: {v.canonical}" in text
        for heading in ("Deck (", "Trump", "Ranking, high → low", "Deal", "Bidding", "Play",
                        "Teams", "Scoring", "End"):
            assert f"\n{heading}" in text, heading
        assert f"\n  {players} (this game allows" in text
        for choice in v.trump_choices:
            assert ("No trump (NT)" if choice == "NT" else f"Trump {suit_label(choice)}") in text
        assert " ".join(str(h) for h in v.schedule) in text


def test_rules_hoffer_content() -> None:
    text = rules_text("hoffer")
    assert "HIJO" in text and "LOJO" in text
    assert "always wins the trick" in text and "never wins a trick" in text
    # Spades trump: the Big Jack, then the Little Jack (J♣), then the Ace.
    spade_line = next(line for line in text.splitlines() if line.strip().startswith("♠ S trump"))
    assert spade_line.split()[3:] == ["JS", "(Big", "Jack)", "JC", "(Little", "Jack)", "AS",
                                      "KS", "QS", "10S", "9S"]
    assert "Little Jack" in text
    # ♣ loses its jack when spades are trump.
    assert "♣ C          AC  KC  QC  10C  9C" in text
    assert "10 + bid" in text and "took - bid" in text
    assert "1 2 3 4 5 6 5 4 3 2 1" in text
    assert "simultaneous" in text
    assert "seat 0" in text and "3 = the dealer" in text


def test_rules_hoffer_with_options() -> None:
    text = rules_text("hoffer", "--players", "3", "--set", "peak_twice=true")
    assert "peak_twice=true" in text and "changed from false" in text
    assert "1 2 3 4 5 6 7 8 8 7 6 5 4 3 2 1" in text
    partners = rules_text("hoffer", "-s", "partnership=true")
    assert "2 teams of 2" in partners and "{0,2}  {1,3}" in partners
    assert "in turn, clockwise" in partners


def test_rules_hasenpfeffer_joker_is_highest_trump() -> None:
    text = rules_text("hasenpfeffer")
    trump_lines = [line.split() for line in text.splitlines() if " trump  " in line]
    assert [words[:3] for words in trump_lines] == [[glyph, letter, "trump"] for glyph, letter
                                                    in zip("♠♥♦♣", "SHDC", strict=True)]
    for words in trump_lines:
        assert words[3] == "JOKER", words
    assert "the highest trump" in text
    assert "auction" in text and "ladder:" in text
    assert "2 teams of 2" in text
    assert "reaches 10" in text
    nt = rules_text("hasenpfeffer", "--set", "allow_no_trump=true")
    assert "No trump (NT)" in nt and "JOKER always wins" in nt


def test_rules_other_games_spot_checks() -> None:
    kf = rules_text("kings_and_fools")
    assert "FOOL ×2" in kf and "fools the King" in kf and "KS  QS" in kf and "2S  AS" in kf
    assert "hook" in kf and "first lead: the dealer" in kf
    hj = rules_text("hyjack", "--set", "countdown=true", "--set", "max_bet=true")
    assert "HJ_BLUE" in hj and "last one played wins" in hj
    assert "max bet" in hj and "only in rounds" in hj
    assert "beanie (JC)" in hj and "scores 0 for the hand" in hj
    hs = rules_text("horseshoes", "-p", "6", "-s", "even_deal=true")
    assert "JOKER ×2" in hs and "wins only when led" in hs and "lowest total wins" in hs
    oh = rules_text("oh_hell", "--set", "trump=spades")
    assert "choices: ♠ S" in oh and "trump is fixed" in oh


def test_rules_of_an_edited_copy(tmp_path: Path) -> None:
    source = (VARIANTS_DIR / "hoffer.toml").read_text(encoding="utf-8")
    assert 'exact = "10 + bid"' in source
    edited = source.replace('exact = "10 + bid"', 'exact = "20 + 2 * bid"')
    edited = edited.replace('title = "Hoffer"', 'title = "Hoffer, double stakes"')
    path = tmp_path / "my_hoffer.toml"
    path.write_text(edited, encoding="utf-8")
    text = rules_text(str(path), "--players", "3")
    assert text.startswith("Hoffer, double stakes")
    assert "20 + 2 * bid" in text and "10 + bid" not in text
    assert "hoffer@" in text  # a changed file gets a content digest in its canonical name
    assert str(path) in text


# ----- bad input: one line on stderr, exit status 2 ------------------------------------------

def _bad_toml(tmp_path: Path) -> str:
    path = tmp_path / "broken.toml"
    path.write_text("[game\nname = 'x'\n", encoding="utf-8")
    return str(path)


def _bad_scoring(tmp_path: Path) -> str:
    source = (VARIANTS_DIR / "hoffer.toml").read_text(encoding="utf-8")
    path = tmp_path / "bad_formula.toml"
    path.write_text(source.replace('exact = "10 + bid"', 'exact = "10 + import"'),
                    encoding="utf-8")
    return str(path)


BAD_INPUT = {
    "unknown variant": (lambda tmp: ["rules", "no_such_game"], ["no_such_game"]),
    "too many players": (lambda tmp: ["rules", "hoffer", "--players", "9"], ["9"]),
    "players not a number": (lambda tmp: ["rules", "hoffer", "--players", "four"], ["players"]),
    "unknown option": (lambda tmp: ["rules", "hoffer", "--set", "nonsense=1"], ["nonsense"]),
    "bad option value": (lambda tmp: ["rules", "hoffer", "--set", "peak_twice=maybe"],
                         ["peak_twice", "maybe"]),
    "set without =": (lambda tmp: ["rules", "hoffer", "--set", "peak_twice"], ["peak_twice"]),
    "malformed toml": (lambda tmp: ["rules", _bad_toml(tmp)], ["broken.toml"]),
    "bad formula": (lambda tmp: ["rules", _bad_scoring(tmp)], []),
    "missing file": (lambda tmp: ["rules", str(tmp / "nope.toml")], ["nope.toml"]),
    "unknown command option": (lambda tmp: ["rules", "hoffer", "--frobnicate"],
                               ["--frobnicate"]),
    "missing argument": (lambda tmp: ["rules"], ["VARIANT"]),
    "unknown command": (lambda tmp: ["frobnicate"], ["frobnicate"]),
    "option conflict": (lambda tmp: ["rules", "horseshoes", "-p", "5", "-s",
                                     "partnership=pairs"], ["partnership"]),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_one_line_exit_2(case: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    make_args, needles = BAD_INPUT[case]
    code, out, err = run_main(capsys, *make_args(tmp_path))
    assert_one_line_error(code, err, *needles)
    assert out == ""


def test_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("simulate.cli.options.load_from_cli", interrupted)
    code, _, err = run_main(capsys, "rules", "hoffer")
    assert code == 130
    assert "Traceback" not in err and "error" not in err


COMMANDS = ["variants", "rules", "simulate", "odds", "train", "exploit", "tournament", "games",
            "compare", "report", "bench", "serve"]


@pytest.mark.parametrize("command", [[]] + [[c] for c in COMMANDS])
def test_dash_h_is_help_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, *command, "-h")
    assert code == 0, err
    assert out.startswith("Usage: bidlab") and "-h, --help" in out
    assert set(cli.commands) == set(COMMANDS)


@pytest.mark.parametrize("args", [
    ["simulate", "hoffer", "-h", "5", "--hands", "10"],
    ["simulate", "hoffer", "-h5"],
    ["tournament", "hoffer", "--seats", "greedy+greedy,random+random", "-h", "5"],
    ["train", "hoffer", "-h", "5", "-h", "6"],
])
def test_old_hand_size_spelling_refused(args: list[str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, *args)
    assert_one_line_error(code, err, "-h is help now", "-c 5", "--hand-size 5")
    assert out == ""


def test_hand_size_short_flag_is_free_everywhere() -> None:
    """-c means the hand size wherever it exists and nothing else anywhere."""
    for name, command in cli.commands.items():
        for param in command.params:
            if "-c" in param.opts:
                assert param.name in ("hand_size", "hand_sizes"), name


# ----- the installed entry points ------------------------------------------------------------

def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def test_python_dash_m_entry_point(tmp_path: Path) -> None:
    ok = subprocess.run([sys.executable, "-m", "simulate", "rules", "hoffer", "-p", "2"],
                        capture_output=True, text=True, encoding="utf-8", env=_env(),
                        check=False)
    assert ok.returncode == 0, ok.stderr
    assert "HIJO" in ok.stdout and ok.stderr == ""
    bad = subprocess.run([sys.executable, "-m", "simulate", "rules", _bad_toml(tmp_path)],
                         capture_output=True, text=True, encoding="utf-8", env=_env(),
                         check=False)
    assert_one_line_error(bad.returncode, bad.stderr, "invalid TOML")


def test_console_script_if_installed() -> None:
    script = Path(sys.executable).with_name("bidlab")
    if not script.exists():
        pytest.skip("the bidlab console script is not installed next to this Python")
    bad = subprocess.run([str(script), "rules", "hoffer", "--players", "9"],
                         capture_output=True, text=True, encoding="utf-8", env=_env(),
                         check=False)
    assert_one_line_error(bad.returncode, bad.stderr, "players")
    ok = subprocess.run([str(script), "variants"], capture_output=True, text=True,
                        encoding="utf-8", env=_env(), check=False)
    assert ok.returncode == 0 and all(name in ok.stdout for name in ALL_GAMES)
