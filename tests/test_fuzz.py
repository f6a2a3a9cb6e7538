"""Hostile input, generated: mutated variant files, random card strings and random CLI option
values. Every failure must be a BidlabInputError (exit status 2 with one line on stderr);
never another exception, never a traceback. Bounded: a few hundred examples, well under a
minute in all.
"""

from __future__ import annotations

import io
import json
import math
import os
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import pytest
from _support import load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simulate as sim
from simulate.cli.main import main
from simulate.rules.load import VARIANTS_DIR

GAMES = sim.shipped_variants()
# BIDLAB_FUZZ_SCALE=20 for a longer, randomly seeded hunt than the fixed one CI runs
SCALE = float(os.environ.get("BIDLAB_FUZZ_SCALE", "1"))
FUZZ = settings(max_examples=60, deadline=None, derandomize=SCALE == 1,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@st.composite
def mostly(draw: st.DrawFn, good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any],
           odds: int = 6) -> Any:
    """A good value most of the time, so that the other options get checked too."""
    # (st.integers would favour its bounds: a plain choice among odds + 1 slots)
    return draw(bad) if draw(st.sampled_from(range(odds + 1))) == odds else draw(good)


# ----- a TOML writer just good enough for variant files ---------------------------------------

def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_str(str(k))} = {_toml_value(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(type(value))


def _toml_str(text: str) -> str:
    # a JSON string is a TOML basic string, except that TOML wants DEL escaped and no
    # surrogate-pair escapes (so non-ASCII stays as it is)
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def to_toml(data: dict[str, Any]) -> str:
    lines = [f"{_toml_str(k)} = {_toml_value(v)}" for k, v in data.items()
             if not isinstance(v, dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines.append(f"[{_toml_str(key)}]")
            lines += [f"{_toml_str(str(k))} = {_toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def test_toml_writer_round_trips_every_shipped_file():
    for game in GAMES:
        data = tomllib.loads((VARIANTS_DIR / f"{game}.toml").read_text(encoding="utf-8"))
        assert tomllib.loads(to_toml(data)) == data


# ----- mutations --------------------------------------------------------------------------

scalars = st.one_of(
    st.integers(min_value=-10**20, max_value=10**20), st.integers(min_value=-3, max_value=70),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.text(max_size=12), st.sampled_from(["", "$", "$nope", "n // 0", "deck ** 99", "1/0",
                                           "bid + took", "NT", "HIJO", "__import__('os')",
                                           "sideways", "up_down", "-1", "S", "AS"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            out.append(prefix + (k,))
            out += _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.append(prefix + (i,))
            out += _paths(v, prefix + (i,))
    return out


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


@st.composite
def mutated_variant(draw: st.DrawFn) -> tuple[str, bytes]:
    game = draw(st.sampled_from(GAMES))
    raw = (VARIANTS_DIR / f"{game}.toml").read_bytes()
    kind = draw(st.sampled_from(["delete", "retype", "retype", "unknown", "bytes", "numbers"]))
    if kind == "bytes":                  # garbage bytes: flip, insert, truncate
        data = bytearray(raw)
        for _ in range(draw(st.integers(1, 4))):
            pos = draw(st.integers(0, max(0, len(data) - 1)))
            op = draw(st.sampled_from(["flip", "insert", "cut"]))
            if op == "flip":
                data[pos] = draw(st.integers(0, 255))
            elif op == "insert":
                data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
            else:
                del data[pos:pos + draw(st.integers(1, 200))]
        return game, bytes(data)
    doc = tomllib.loads(raw.decode("utf-8"))
    paths = _paths(doc)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        if kind == "delete":
            del parent[path[-1]]
        elif kind == "unknown":
            target = parent if isinstance(parent, dict) else doc
            target[draw(st.text(min_size=1, max_size=8))] = draw(values)
        elif kind == "numbers":          # in-range type, out-of-range value
            old = parent[path[-1]]
            if isinstance(old, int) and not isinstance(old, bool):
                parent[path[-1]] = draw(st.sampled_from([-1, 0, 1, 2, 17, 65, 999, -10**9,
                                                          old + 1, old - 1, 2**63]))
            else:
                parent[path[-1]] = draw(st.integers(-5, 70))
        else:
            parent[path[-1]] = draw(values)
    return game, to_toml(doc).encode("utf-8")


def _exercise(v: sim.Variant) -> None:
    """What loading promises: a variant that loads can be described and played."""
    from simulate.rules.describe import describe_rules

    describe_rules(v)
    h = min(v.schedule)
    v.legal_bids(h, [])
    v.score_hand([0] * v.players, [0] * (v.players - 1) + [h], h)
    sim.simulate_hands(v, h, 5, seed=1, keep="summary", play="random", bid="random", workers=1)


@pytest.mark.slow
@settings(FUZZ, max_examples=int(200 * SCALE))
@given(case=mutated_variant(), players=mostly(st.none(), st.integers(-2, 18), 2))
def test_mutated_variant_files_fail_cleanly(tmp_path_factory, case, players):
    game, data = case
    path = tmp_path_factory.mktemp("fuzz") / f"{game}.toml"
    path.write_bytes(data)
    try:
        v = sim.load_variant(str(path), players=players)
    except sim.BidlabInputError as exc:
        assert str(exc).strip() and "\n" not in str(exc).strip()
        return
    _exercise(v)


# ----- cards and hands ----------------------------------------------------------------------

card_tokens = st.sampled_from(["AS", "10H", "T♥", "K♠", "HIJO", "LOJO", "JOKER", "FOOL", "9s",
                               "1S", "0H", "11D", "AX", "", "♣", "A", "10", "Ⅸ♦", "ＡＳ",
                               "A\u0300S", "\x00", "JS:low", "AS:low", "NT", ",", ";"])
card_text = st.one_of(
    st.text(max_size=30),
    st.lists(card_tokens, max_size=8).map(" ".join),
    st.lists(st.one_of(card_tokens, st.text(max_size=3)), max_size=6).map(",".join),
)


@settings(FUZZ, max_examples=int(150 * SCALE))
@given(game=st.sampled_from(GAMES), text=card_text)
def test_hand_parser_never_crashes(game, text):
    v = load(game, load(game, 4 if game != "hoffer" else 3).players)
    try:
        cards = v.cards.parse_hand(text)
    except sim.BidlabInputError as exc:
        assert "\n" not in str(exc).strip()
        return
    assert all(0 <= c < len(v.cards) for c in cards)
    assert len(set(cards)) == len(cards)


@settings(FUZZ, max_examples=int(150 * SCALE))
@given(game=st.sampled_from(GAMES), hand=card_text, trick=card_text,
       trump=st.one_of(st.sampled_from(["S", "H", "D", "C", "NT", "s", "nt"]), st.text(max_size=3),
                       st.integers(-2, 6)))
def test_rules_api_with_random_strings(game, hand, trick, trump):
    v = load(game, 4)
    for call in (lambda: v.legal_moves(hand, trick, trump),
                 lambda: v.trick_winner(trick, trump)):
        try:
            call()
        except sim.BidlabInputError as exc:
            assert "\n" not in str(exc).strip()


# ----- the command line ----------------------------------------------------------------------

def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(args)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def check_cli(args: list[str]) -> None:
    code, out, err = run_cli(args)
    assert "Traceback" not in out + err
    assert code in (0, 2), (args, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("bidlab: error: "), (args, err)


ints = st.one_of(st.integers(-3, 12), st.sampled_from(["x", "", "1.5", "-0", "9" * 30, "٣"]))
game_arg = st.one_of(st.sampled_from(GAMES), st.sampled_from(["", "nope", "x.toml", ".", "/",
                                                              "hoffer.toml", "-", "\x00"]))
option_sets = st.lists(st.one_of(
    st.sampled_from(["peak_twice=true", "peak_twice=maybe", "jokers=-1", "jokers=2",
                     "partnership=pairs", "partnership=true", "max_hand=18", "max_hand=3",
                     "aces=sideways", "target=0", "beanie_jack=QS", "=1", "x", "hook=false",
                     "special_jacks=false", "trump=spades", "schedule=up"]),
    st.text(max_size=10)), max_size=2)


def _opt(name: str, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), strategy.map(lambda v: [name, str(v)]))


@st.composite
def simulate_args(draw: st.DrawFn) -> list[str]:
    game = draw(mostly(st.sampled_from(GAMES), game_arg, 10))
    args = ["simulate", game, "--no-progress", "--workers", "1"]
    v = load(game, load(game, 4 if game != "hoffer" else 3).players) if game in GAMES else None
    lo, hi = v.player_range if v else (2, 8)
    args += draw(_opt("-p", mostly(st.integers(lo, hi), ints)))
    for s in draw(mostly(st.just([]), option_sets, 4)):
        args += ["--set", s]
    sizes = sorted(set(v.schedule)) if v else [1, 5]
    args += draw(_opt("--hand-size", mostly(st.sampled_from(sizes), ints)))
    args += ["--hands", str(draw(mostly(st.integers(1, 60), st.sampled_from(
        [-2, 0, "x", "1e3", ""]))))]
    args += draw(_opt("--seed", mostly(st.integers(0, 5), st.sampled_from(
        [-1, 2**63, 2**63 - 1, 2**64, "s"]))))
    args += draw(_opt("--play", mostly(st.sampled_from(["random", "greedy", "precision"]),
                                       st.sampled_from(["genius", "", "random,greedy", "RANDOM"]))))
    args += draw(_opt("--bid", mostly(st.sampled_from(["random", "greedy", "heuristic", "table"]),
                                      st.sampled_from(["x", "", "table,table"]))))
    args += draw(_opt("--trump", mostly(st.sampled_from(["S", "H", "D", "C", "NT", "s", "nt"]),
                                        st.text(max_size=3))))
    deck = v.deck if v else ["AS"]
    for _ in range(draw(st.integers(0, 2))):
        good = st.tuples(st.integers(0, 3), st.permutations(deck), st.sampled_from(sizes)).map(
            lambda t: f"{t[0]}:{' '.join(t[1][:t[2]])}")
        bad = st.one_of(st.tuples(st.integers(-1, 9), card_text).map(lambda t: f"{t[0]}:{t[1]}"),
                        st.text(max_size=10))
        args += ["--fixed", draw(mostly(good, bad, 3))]
    args += draw(mostly(st.just([]), _opt("--round", mostly(st.integers(0, 12), ints)), 3))
    args += draw(_opt("--chunk-size", mostly(st.integers(1, 70), st.sampled_from([0, -1, "z"]))))
    args += draw(mostly(st.just([]), st.sampled_from([["--dask", "cluster"], ["--dask", ""],
                                                      ["--dask", "LOCAL"]])))
    return args


@pytest.mark.slow
@settings(FUZZ, max_examples=int(150 * SCALE))
@given(args=simulate_args())
def test_cli_simulate_random_options(args):
    check_cli(args)


@st.composite
def odds_args(draw: st.DrawFn) -> list[str]:
    args = ["odds", draw(game_arg), "--hand", draw(card_text), "--play", "random"]
    args += draw(_opt("-p", ints))
    args += draw(_opt("--seat", ints))
    args += draw(_opt("--trump", st.sampled_from(["S", "H", "NT", "x", ""])))
    args += draw(_opt("--bids-before", st.one_of(
        st.lists(st.integers(-2, 9), max_size=4).map(lambda b: ",".join(map(str, b))),
        st.text(max_size=8))))
    args += ["--samples", str(draw(st.one_of(st.integers(-2, 150), st.just("many"))))]
    args += draw(_opt("--seed", st.integers(-2, 3)))
    args += draw(_opt("--bid", st.sampled_from(["random", "table", "nope"])))
    return args


@st.composite
def valid_odds_args(draw: st.DrawFn) -> list[str]:
    """Odds for a real hand of the game, so the fuzzer also gets past the parser."""
    game = draw(st.sampled_from(GAMES))
    v = load(game, load(game, 4 if game != "hoffer" else 3).players)
    h = draw(st.sampled_from(sorted(set(v.schedule))))
    cards = draw(st.permutations(v.deck))[:h]
    args = ["odds", game, "--hand", " ".join(cards), "--samples", "40", "--play", "random",
            "--bid", "random"]
    args += draw(_opt("--seat", st.integers(-1, v.players)))
    args += draw(_opt("--trump", st.sampled_from(["S", "H", "D", "C", "NT"])))
    args += draw(_opt("--bids-before", st.lists(st.integers(-1, h + 1), max_size=v.players).map(
        lambda b: ",".join(map(str, b)))))
    return args


@pytest.mark.slow
@settings(FUZZ, max_examples=int(80 * SCALE))
@given(args=st.one_of(odds_args(), valid_odds_args()))
def test_cli_odds_random_options(args):
    check_cli(args)


@settings(FUZZ, max_examples=int(60 * SCALE))
@given(game=game_arg, players=_opt("-p", ints), sets=option_sets)
def test_cli_rules_random_options(game, players, sets):
    args = ["rules", game, *players]
    for s in sets:
        args += ["--set", s]
    check_cli(args)


@pytest.mark.parametrize("args", [
    ["simulate", "--resume", "\x00"],
    ["simulate", "--run-dir", "/proc/nope/x", "hoffer", "--hands", "5"],
    ["simulate", "hoffer", "--hands", "5", "--out", "/proc/nope/x.csv"],
    ["simulate", "hoffer", "--hands", "5", "--out", "a\x00.csv"],
    ["simulate", "hoffer", "--hands", "5", "--out", "/proc/version/x.parquet"],
    ["simulate", "hoffer", "--hands", "5", "--out", ".parquet/"],
    ["simulate", "hoffer", "--hands", "5", "--run-dir", "\x00"],
    ["simulate", "hoffer", "--hands", "5", "--run-dir", "/proc/version"],
])
def test_cli_paths_that_cannot_work(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(args + ["--no-progress"])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []


def test_loader_knows_the_kernels_event_limit():
    from simulate.rules.codes import MAX_EVENTS
    from simulate.rules.codes import MAX_EVENTS as LOADER_MAX_EVENTS

    assert LOADER_MAX_EVENTS == MAX_EVENTS


def test_fuzz_helpers_find_keys():
    doc = {"a": {"b": [1, {"c": 2}]}}
    assert ("a", "b", 1, "c") in _paths(doc)
