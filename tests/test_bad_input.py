"""Every class of bad input raises BidlabInputError (never another exception) naming the value.

Variant files are made by copying a shipped TOML into tmp_path and editing one thing.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from _support import load

import simulate as sim
from simulate.reference.engine import deal
from simulate.rules.cards import Card, Deck, parse_card
from simulate.rules.expr import compile_expression, evaluate
from simulate.rules.load import VARIANTS_DIR


def raises_naming(fn, *needles: str) -> str:
    """Call fn; it must raise BidlabInputError (exactly, a ValueError) naming every needle."""
    with pytest.raises(sim.BidlabInputError) as info:
        fn()
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert message and "\n" not in message.strip(), "one clear line"
    for needle in needles:
        assert needle in message, (needle, message)
    return message


def shipped_text(name: str) -> str:
    return (VARIANTS_DIR / f"{name}.toml").read_text(encoding="utf-8")


def edited(tmp_path: Path, name: str, old: str, new: str, filename: str | None = None) -> Path:
    text = shipped_text(name)
    assert text.count(old) == 1, f"{old!r} not found once in {name}.toml"
    path = tmp_path / (filename or f"{name}_edited.toml")
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


# ----- options ---------------------------------------------------------------------------

@pytest.mark.parametrize("game,players,opts,needles", [
    pytest.param("hoffer", 4, {"bogus": 1}, ["'bogus'", "peak_twice"], id="unknown-option"),
    pytest.param("horseshoes", 4, {"joker": 1}, ["'joker'", "jokers"], id="unknown-option-typo"),
    pytest.param("hoffer", 4, {"peak_twice": "maybe"}, ["peak_twice", "'maybe'"],
                 id="bool-wrong-type"),
    pytest.param("hoffer", 4, {"peak_twice": 3}, ["peak_twice", "3"], id="bool-as-int"),
    pytest.param("hoffer", 2, {"two_player_max": "x"}, ["two_player_max", "'x'"],
                 id="int-wrong-type"),
    pytest.param("hoffer", 2, {"two_player_max": 8.5}, ["two_player_max", "8.5"],
                 id="int-as-float"),
    pytest.param("hoffer", 2, {"two_player_max": True}, ["two_player_max", "True"],
                 id="int-as-bool"),
    pytest.param("hoffer", 2, {"two_player_max": 14}, ["two_player_max", "14", "8 to 13"],
                 id="int-above-range"),
    pytest.param("hoffer", 2, {"two_player_max": 7}, ["two_player_max", "7"],
                 id="int-below-range"),
    pytest.param("horseshoes", 4, {"jokers": -1}, ["jokers", "-1"], id="jokers-negative"),
    pytest.param("horseshoes", 4, {"aces": "sideways"}, ["aces", "'sideways'", "high_low"],
                 id="choice-not-allowed"),
    pytest.param("horseshoes", 4, {"aces": 3}, ["aces", "3"], id="choice-wrong-type"),
    pytest.param("oh_hell", 4, {"max_hand": 18}, ["max_hand", "18"], id="max-hand-range"),
    pytest.param("hasenpfeffer", 4, {"target": 0}, ["target", "0"], id="target-range"),
    pytest.param("hyjack", 4, {"beanie_jack": "QS"}, ["beanie_jack", "'QS'"],
                 id="beanie-not-a-jack"),
])
def test_bad_options(game, players, opts, needles):
    raises_naming(lambda: sim.load_variant(game, players=players, **opts), *needles)


@pytest.mark.parametrize("game,players,opts,needles", [
    pytest.param("hoffer", 3, {"partnership": True}, ["3 players"], id="hoffer-partnership-3p"),
    pytest.param("horseshoes", 5, {"partnership": "pairs"}, ["pairs", "4 or 6"],
                 id="horseshoes-pairs-5p"),
    pytest.param("horseshoes", 4, {"partnership": "triples"}, ["triples", "6 players"],
                 id="horseshoes-triples-4p"),
    pytest.param("hyjack", 4, {"max_bet": True}, ["max_bet", "countdown"],
                 id="hyjack-maxbet-without-countdown"),
    pytest.param("hyjack", 4, {"beanie_jack": "JD"}, ["JD"], id="hyjack-same-special-jacks"),
    pytest.param("hasenpfeffer", 4, {"pepper_is_alone": True}, ["pepper_is_alone", "pepper"],
                 id="hasenpfeffer-pepper-alone-standard"),
    pytest.param("oh_hell", 4, {"max_hand": 14}, ["14", "1 to 13"], id="oh-hell-hand-too-big"),
    pytest.param("hoffer", 2, {"two_player_max": 13, "peak_twice": True}, [], id="ok-control"),
])
def test_option_combinations(game, players, opts, needles):
    if not needles:   # control: a legal combination loads
        assert sim.load_variant(game, players=players, **opts).schedule
        return
    raises_naming(lambda: sim.load_variant(game, players=players, **opts), *needles)


def test_options_given_as_cli_strings_are_typed():
    v = sim.load_variant("hoffer", players="2", two_player_max="13", peak_twice="true")
    assert v.players == 2 and v.options["two_player_max"] == 13 and v.options["peak_twice"] is True
    raises_naming(lambda: sim.load_variant("hoffer", players=2, peak_twice="perhaps"), "perhaps")


# ----- variant names, files and player counts -------------------------------------------

def test_unknown_variant_name():
    raises_naming(lambda: sim.load_variant("nosuchgame", players=4), "'nosuchgame'", "hoffer")


def test_missing_file(tmp_path):
    missing = tmp_path / "absent.toml"
    raises_naming(lambda: sim.load_variant(str(missing), players=4), str(missing))
    raises_naming(lambda: sim.load_variant(missing, players=4), "absent.toml")


def test_directory_named_like_a_variant(tmp_path):
    d = tmp_path / "dir.toml"
    d.mkdir()
    raises_naming(lambda: sim.load_variant(d, players=4), "dir.toml")


def test_malformed_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(shipped_text("hoffer") + "\n[deck\nsuits = [\n", encoding="utf-8")
    raises_naming(lambda: sim.load_variant(path, players=4), "broken.toml", "invalid TOML")
    path.write_bytes(b"\xff\xfe\x00 not text")
    raises_naming(lambda: sim.load_variant(path, players=4), "broken.toml", "UTF-8")


def test_unknown_section(tmp_path):
    path = tmp_path / "sect.toml"
    path.write_text(shipped_text("hoffer") + "\n[bogus_section]\nx = 1\n", encoding="utf-8")
    raises_naming(lambda: sim.load_variant(path, players=4), "sect.toml", "bogus_section")


@pytest.mark.parametrize("game,old,new,needles", [
    pytest.param("hoffer", "[play]\n", "[play]\nwibble = 3\n", ["[play]", "wibble"],
                 id="unknown-key-play"),
    pytest.param("hoffer", "[specials.HIJO]\n", "[specials.HIJO]\ncolour = \"red\"\n",
                 ["HIJO", "colour"], id="unknown-key-special"),
    pytest.param("hyjack", "[events.beanie]\n", "[events.beanie]\nflavour = 1\n",
                 ["beanie", "flavour"], id="unknown-key-event"),
    pytest.param("hoffer", "[options.peak_twice]\n", "[options.peak_twice]\ncolour = 1\n",
                 ["peak_twice", "colour"], id="unknown-key-option"),
    pytest.param("hoffer", 'chooser = "dealer"', 'chooser = "nobody"', ["chooser", "'nobody'"],
                 id="value-not-allowed"),
    pytest.param("hoffer", "start = 1", "start = [1]", ["start", "[1]"], id="value-wrong-type"),
    pytest.param("hoffer", "start = 1", 'start = "one"', ["start", "one"], id="value-unknown-name"),
    pytest.param("hoffer", 'name = "hoffer"', 'name = "hof fer"', ["'hof fer'"],
                 id="game-name-not-identifier"),
    pytest.param("hoffer", "players = [2, 4]", "players = [4, 2]", ["players", "[4, 2]"],
                 id="player-range-backwards"),
    pytest.param("hoffer", 'specials = { HIJO = 1, LOJO = 1 }',
                 'specials = { HIJO = 1, LOJO = 1, WIZARD = 1 }', ["'WIZARD'"],
                 id="special-unknown"),
    pytest.param("hoffer", 'specials = { HIJO = 1, LOJO = 1 }',
                 'specials = { HIJO = 1, LOJO = 9 }', ["LOJO", "9"], id="special-count-range"),
    pytest.param("hyjack", "specials = { HJ_BLUE = 1, HJ_GREEN = 1 }",
                 "specials = { HJ_BLUE = 8, HJ_GREEN = 8 }", ["68 cards", "64"],
                 id="deck-over-64"),
    pytest.param("horseshoes", 'specials = { JOKER = "jokers" }',
                 'specials = { JOKER = "jokers + 12" }', ["JOKER", "12"], id="deck-special-expr"),
    pytest.param("hoffer", 'ranks = ["9", "10", "J", "Q", "K", "A"]',
                 'ranks = ["9", "10", "J", "Q", "K", "A", "A"]', ["ranks", "'A', 'A'"],
                 id="deck-duplicate-rank"),
    pytest.param("hoffer", 'ranks = ["9", "10", "J", "Q", "K", "A"]',
                 'ranks = ["9", "10", "T", "J", "Q", "K", "A"]', ["ranks", "'T'"],
                 id="deck-duplicate-rank-alias"),
    pytest.param("hoffer", 'suits = ["S", "H", "D", "C"]', 'suits = ["S", "H", "D", "S"]',
                 ["suits", "'S', 'H', 'D', 'S'"], id="deck-duplicate-suit"),
    pytest.param("hoffer", "[ranking]", 'remove = ["2S"]\n[ranking]', ["remove", "2S"],
                 id="deck-remove-not-in-deck"),
    pytest.param("hoffer", "[ranking]", 'remove = ["XX"]\n[ranking]', ["remove", "'XX'"],
                 id="deck-remove-malformed"),
    pytest.param("hoffer", 'peak = "two_player_max if n == 2 else deck // n"', "peak = 9",
                 ["9 cards", "26"], id="peak-too-big"),
    pytest.param("hoffer", 'exact = "10 + bid"', "exact = \"__import__('os')\"",
                 ["[scoring] exact", "__import__"], id="formula-import"),
    pytest.param("hoffer", 'exact = "10 + bid"', 'exact = "bid.real"',
                 ["[scoring] exact", "bid.real", "Attribute"], id="formula-attribute"),
    pytest.param("hoffer", 'exact = "10 + bid"', 'exact = "(lambda: 1)()"',
                 ["[scoring] exact", "(lambda: 1)()"], id="formula-lambda"),
    pytest.param("hoffer", 'exact = "10 + bid"', 'exact = "10 +"', ["[scoring] exact", "'10 +'"],
                 id="formula-syntax"),
    pytest.param("hoffer", 'exact = "10 + bid"', 'exact = "10.5 + bid"',
                 ["[scoring] exact", "10.5"], id="formula-float"),
    pytest.param("hoffer", 'peak = "two_player_max if n == 2 else deck // n"',
                 "peak = \"__import__('os').getpid()\"", ["[deal] peak", "__import__"],
                 id="formula-in-deal"),
    pytest.param("hoffer", 'peak = "two_player_max if n == 2 else deck // n"',
                 'peak = "nplayers // 2"', ["[deal] peak", "nplayers"], id="formula-unknown-name"),
    pytest.param("hoffer", 'choices = ["S", "H", "D", "C", "NT"]',
                 'choices = ["S", "H", "X"]', ["choices", "'X'"], id="trump-choice-bad"),
    pytest.param("hyjack", 'card = "$frilly_jack"', 'card = "$frilly"', ["'$frilly'"],
                 id="option-reference-unknown"),
    pytest.param("hasenpfeffer", 'all_pass_card = "JOKER"', 'all_pass_card = "FOOL"',
                 ["all_pass_card", "'FOOL'"], id="all-pass-card-not-in-deck"),
    pytest.param("hoffer", "if = { partnership = true }", "if = { partnershipp = true }",
                 ["partnershipp"], id="when-unknown-option"),
])
def test_bad_variant_files(tmp_path, game, old, new, needles):
    path = edited(tmp_path, game, old, new)
    players = {"hoffer": 4, "hyjack": 4, "horseshoes": 4, "hasenpfeffer": 4}[game]
    raises_naming(lambda: sim.load_variant(path, players=players), *needles)


def test_deck_with_duplicate_cards():
    raises_naming(lambda: Deck([parse_card("AS"), parse_card("KS"), parse_card("AS")]), "AS")
    # identical specials are allowed (two Fools), natural cards are not
    assert len(Deck([Card(special="FOOL"), Card(special="FOOL")])) == 2
    raises_naming(lambda: Deck([Card(rank=2 + i % 13, suit=i // 13 % 4) for i in range(52)]
                               + [Card(special="JOKER")] * 13), "65 cards", "64")


@pytest.mark.parametrize("game,players", [
    pytest.param("hoffer", 5, id="hoffer-5"), pytest.param("hoffer", 1, id="hoffer-1"),
    pytest.param("horseshoes", 2, id="horseshoes-2"), pytest.param("horseshoes", 7, id="hs-7"),
    pytest.param("hyjack", 11, id="hyjack-11"), pytest.param("hyjack", 2, id="hyjack-2"),
    pytest.param("hasenpfeffer", 3, id="hasenpfeffer-3"),
    pytest.param("hasenpfeffer", 5, id="hasenpfeffer-5"),
    pytest.param("kings_and_fools", 8, id="kf-8"), pytest.param("kings_and_fools", 1, id="kf-1"),
    pytest.param("oh_hell", 2, id="oh-hell-2"), pytest.param("oh_hell", 8, id="oh-hell-8"),
    pytest.param("hoffer", "four", id="hoffer-text"), pytest.param("hoffer", 4.0, id="float"),
    pytest.param("hoffer", True, id="bool"),
])
def test_player_count_not_allowed(game, players):
    raises_naming(lambda: sim.load_variant(game, players=players), repr(players), "allowed")


# ----- hand sizes, cards, tricks, trump, bids, scores -----------------------------------

@pytest.mark.parametrize("game,players,size", [
    ("hoffer", 4, 7), ("hoffer", 4, 0), ("hoffer", 2, 14), ("kings_and_fools", 7, 8),
    ("hyjack", 10, 6), ("hasenpfeffer", 4, 7), ("oh_hell", 5, 11), ("horseshoes", 4, -1),
])
def test_hand_size_the_deck_cannot_deal(game, players, size):
    v = load(game, players)
    raises_naming(lambda: v.check_hand_size(size), str(size))
    raises_naming(lambda: deal(v, size, random.Random(0)), str(size))
    raises_naming(lambda: v.legal_bids(size, []), str(size))
    raises_naming(lambda: v.check_hand_size("3"), "'3'")


@pytest.mark.parametrize("call,needles", [
    pytest.param(lambda v: v.trick_winner("AH JD 9X", "H"), ["'9X'"], id="malformed-card"),
    pytest.param(lambda v: v.trick_winner("AH 1H", "H"), ["'1H'"], id="malformed-rank"),
    pytest.param(lambda v: v.trick_winner("AH Q", "H"), ["'Q'"], id="malformed-no-suit"),
    pytest.param(lambda v: v.trick_winner("AH JOKERS", "H"), ["'JOKERS'"], id="malformed-special"),
    pytest.param(lambda v: v.trick_winner("AH AH", "H"), ["AH", "more times"],
                 id="duplicated-in-trick"),
    pytest.param(lambda v: v.legal_moves("AH AH", "", "H"), ["AH", "more times"],
                 id="duplicated-in-hand"),
    pytest.param(lambda v: v.legal_moves("AH 9S", "AH", "H"), ["AH", "more times"],
                 id="duplicated-hand-and-trick"),
    pytest.param(lambda v: v.trick_winner("2H AH", "H"), ["2H", "not in this game's deck"],
                 id="not-in-deck"),
    pytest.param(lambda v: v.legal_moves("AH FOOL", "", "H"), ["FOOL", "not in this game"],
                 id="special-not-in-deck"),
    pytest.param(lambda v: v.legal_moves("ZZ", "", "H"), ["'ZZ'"], id="hand-malformed"),
    pytest.param(lambda v: v.trick_winner("AH JD", "X"), ["'X'", "S, H, D, C, NT"],
                 id="bad-trump"),
    pytest.param(lambda v: v.legal_moves("AH", "", "spades!"), ["'spades!'"],
                 id="bad-trump-word"),
    pytest.param(lambda v: v.trick_winner("AH JD", 7), ["7"], id="bad-trump-int"),
    pytest.param(lambda v: v.trick_winner("", "H"), ["no cards"], id="empty-trick"),
    pytest.param(lambda v: v.trick_winner("AH JD 9H KH QH", "H"), ["5 cards", "4 players"],
                 id="trick-too-long"),
    pytest.param(lambda v: v.trick_winner("AC:low 9C", "H"), ["'AC:low'", "aces=high_low"],
                 id="ace-low-without-option"),
    pytest.param(lambda v: v.trick_winner("AC:sideways 9C", "H"), ["'AC:sideways'"],
                 id="ace-bad-declaration"),
    pytest.param(lambda v: v.legal_bids(3, [5]), ["5", "0 to 3"], id="bid-out-of-range"),
    pytest.param(lambda v: v.legal_bids(3, [1, 1, 1, 0]), ["4 bids", "4 players"],
                 id="too-many-bids"),
    pytest.param(lambda v: v.score_hand([1, 2], [1, 2], 3), ["4 bids"], id="score-wrong-length"),
    pytest.param(lambda v: v.score_hand([1, 0, 0, 0], [1, 0, 0, 0], 3, {"zap": 1}),
                 ["zap", "kings_fooled"], id="score-unknown-event"),
])
def test_bad_cards_tricks_trump_bids(call, needles):
    raises_naming(lambda: call(load("hoffer", 4)), *needles)


def test_bad_cards_in_other_games():
    hs = load("horseshoes", 4, aces="high_low")
    raises_naming(lambda: hs.trick_winner("KC:low 2C", "H"), "'KC:low'")
    hj = load("hyjack", 4)
    raises_naming(lambda: hj.trick_winner("AH KH", "H"), "'H'", "allowed: S")
    raises_naming(lambda: hj.trick_winner("AH LOJO", "S"), "LOJO")
    kf = load("kings_and_fools", 4)
    raises_naming(lambda: kf.legal_moves("FOOL FOOL FOOL", "", "S"), "FOOL", "(2)")
    raises_naming(lambda: kf.trick_winner("FOOL FOOL FOOL", "S"), "FOOL")
    hp = load("hasenpfeffer", 4)
    raises_naming(lambda: hp.trick_winner("JOKER JOKER", "S"), "JOKER")
    raises_naming(lambda: hp.trick_winner("2S 9S", "S"), "2S")


def test_parse_card_messages():
    for text in ["", "11H", "AX", "A", "HIJOO", "10"]:
        raises_naming(lambda t=text: parse_card(t), repr(text.strip()))
    assert str(parse_card(" 10h ")) == "10H" and str(parse_card("T♥")) == "10H"
    assert str(parse_card("hj-blue")) == "HJ_BLUE"


@pytest.mark.parametrize("text,needle", [
    ("__import__('os')", "__import__"), ("open('x')", "open"), ("x.y", "Attribute"),
    ("[1, 2]", "List"), ("lambda: 1", "Lambda"), ("1 +", "does not parse"),
    ("1.5", "1.5"), ("'a'", "'a'"), ("max(a=1)", "max(a=1)"), ("(1).real", "Attribute"),
    ("bid ** 2", "Pow"), ("bid / 2", "Div"),
])
def test_formula_disallowed_syntax(text, needle):
    raises_naming(lambda: compile_expression(text), needle)
    raises_naming(lambda: evaluate(text, {"bid": 1, "x": 1, "a": 1}), needle)


def test_formula_unknown_name():
    raises_naming(lambda: evaluate("foo + 1", {"bid": 1}), "foo")
    assert evaluate("10 + bid if took == bid else 0", {"bid": 3, "took": 3}) == 13


# ----- an edited copy of a shipped file is a different game ---------------------------

def test_edited_copy_loads_and_scores_differently(tmp_path):
    shipped = sim.load_variant("hoffer", players=4)
    path = edited(tmp_path, "hoffer", 'over = "took - bid"', 'over = "took"', "hoffer.toml")
    mine = sim.load_variant(path, players=4)
    assert mine.name == shipped.name == "hoffer"
    # bid 2, took 5: the shipped rule scores 3 (A-HOF-6), the edited one 5
    assert shipped.score_hand([2, 0, 0, 0], [5, 0, 0, 1], 6)[0] == 3
    assert mine.score_hand([2, 0, 0, 0], [5, 0, 0, 1], 6)[0] == 5
    # everything else is unchanged
    assert mine.score_hand([3, 0, 0, 0], [3, 1, 1, 1], 6) == shipped.score_hand(
        [3, 0, 0, 0], [3, 1, 1, 1], 6)
    assert mine.deck == shipped.deck and mine.schedule == shipped.schedule
    # the canonical string marks the file's content, so results never mix
    assert mine.canonical != shipped.canonical and mine != shipped
    assert re.fullmatch(r"hoffer@[0-9a-f]{10}\(players=4,.*\)", mine.canonical)
    assert shipped.canonical == ("hoffer(players=4,partnership=false,peak_twice=false,"
                                 "tiebreak_participants=all,trump_before_looking=false,"
                                 "two_player_max=8)")
    # an unedited copy is the same game as the shipped one
    same = tmp_path / "copy.toml"
    same.write_text(shipped_text("hoffer"), encoding="utf-8")
    assert sim.load_variant(same, players=4).canonical == shipped.canonical
    # options still apply to the copy
    assert sim.load_variant(path, players=4, peak_twice=True).schedule.count(6) == 2


def test_canonical_distinguishes_options_and_players():
    seen = {load("hoffer", n, **o).canonical for n in (2, 3, 4) for o in ({}, {"peak_twice": True})}
    assert len(seen) == 6
    assert load("hoffer", 4).canonical == sim.load_variant("hoffer", players=4).canonical
