"""Load a variant file, apply options, validate everything once, and return a frozen Variant.

Loading order: parse TOML → check the shape against `schema` → read the options (defaults,
then the caller's values) → apply the `[[when]]` patches whose conditions hold → resolve
expressions and "$option" references → build the deck, rankings and schedule → check that
the result is playable. Every failure is a BidlabInputError naming the file, key and value.
"""

from __future__ import annotations

import copy
import hashlib
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from simulate.errors import BidlabInputError
from simulate.rules import schema
from simulate.rules.cards import NT, RANK_VALUES, SAME_COLOUR, SUITS, TRUMP_NAMES, Card, Deck, parse_card
from simulate.rules.expr import compile_expression, evaluate

VARIANTS_DIR = Path(__file__).parent.parent / "variants"
SHIPPED = ("hoffer", "horseshoes", "hyjack", "hasenpfeffer", "kings_and_fools", "oh_hell")

# Mechanic codes shared by the reference engine and the rule tables.
PLAIN, ALWAYS_WINS, LAST_PLAYED_WINS, NEVER_WINS, WINS_IF_LED, FOOLS_KING = range(6)
MECHANIC_CODE = {"always_wins": ALWAYS_WINS, "last_played_wins": LAST_PLAYED_WINS,
                 "never_wins": NEVER_WINS, "wins_if_led": WINS_IF_LED, "fools_king": FOOLS_KING}
TRUMP_BASE = 100  # trump powers sit above every plain power
INT_LIMIT = 10**9  # whole numbers in a rules file: far from int64 overflow in any table
MAX_EVENTS = 4     # = kernel.layout.MAX_EVENTS, not imported from there: that would load numba


def shipped_variants() -> list[str]:
    return list(SHIPPED)


def _fail(where: str, message: str) -> BidlabInputError:
    return BidlabInputError(f"{where}: {message}")


def _locate(name_or_path: str | Path) -> tuple[Path, str]:
    text = str(name_or_path)
    if text in SHIPPED:
        return VARIANTS_DIR / f"{text}.toml", text
    path = Path(text)
    if path.suffix == ".toml" or path.exists():
        if not path.is_file():
            raise BidlabInputError(f"variant file {text!r} does not exist")
        return path, str(path)
    raise BidlabInputError(
        f"unknown variant {text!r}: use one of {', '.join(SHIPPED)} or a path to a .toml file")


def _read_toml(path: Path, label: str) -> tuple[dict[str, Any], bytes]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BidlabInputError(f"{label}: cannot read ({exc.strerror})") from None
    try:
        return tomllib.loads(raw.decode("utf-8")), raw
    except UnicodeDecodeError:
        raise BidlabInputError(f"{label}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise BidlabInputError(f"{label}: invalid TOML ({exc})") from None


@dataclass(frozen=True)
class OptionSpec:
    name: str
    type: str
    default: Any
    help: str
    values: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None

    def allowed(self) -> str:
        if self.type == "bool":
            return "true or false"
        if self.type == "choice":
            return "one of " + ", ".join(self.values)
        return f"a whole number from {self.min} to {self.max}"

    def coerce(self, value: Any, where: str) -> Any:
        """A value from the API (typed) or the CLI (a string) → the option's type."""
        bad = _fail(where, f"option {self.name}={value!r} is not allowed; {self.allowed()}")
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "on", "off",
                                                             "yes", "no", "1", "0"):
                return value.lower() in ("true", "on", "yes", "1")
            raise bad
        if self.type == "int":
            if isinstance(value, bool):
                raise bad
            if isinstance(value, str):
                try:
                    value = int(value.strip())
                except ValueError:
                    raise bad from None
            if not isinstance(value, int) or not (self.min <= value <= self.max):  # type: ignore[operator]
                raise bad
            return value
        if not isinstance(value, str) or value not in self.values:
            if isinstance(value, str) and value.upper() in self.values:
                return value.upper()
            raise bad
        return value

    def show(self, value: Any) -> str:
        return str(value).lower() if isinstance(value, bool) else str(value)


def _parse_option_specs(data: Mapping[str, Any], label: str) -> dict[str, OptionSpec]:
    if not isinstance(data, dict):
        raise _fail(label, f"options={data!r} must be a table of [options.NAME] tables")
    specs: dict[str, OptionSpec] = {}
    for name, spec in data.items():
        where = f"{label}: [options.{name}]"
        if not isinstance(spec, dict):
            raise _fail(where, "must be a table")
        unknown = set(spec) - schema.OPTION_KEYS
        if unknown:
            raise _fail(where, f"unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                               f"{', '.join(sorted(schema.OPTION_KEYS))}")
        kind = spec.get("type")
        if kind not in ("bool", "int", "choice"):
            raise _fail(where, f"type={kind!r}; allowed: bool, int, choice")
        if name in ("n", "deck", "h", "bid", "took", "players", "mult"):
            raise _fail(where, f"option name {name!r} is reserved")
        values: tuple[str, ...] = ()
        if kind == "choice":
            raw_values = spec.get("values")
            if not isinstance(raw_values, list) or not raw_values or \
                    not all(isinstance(v, str) for v in raw_values):
                raise _fail(where, "a choice option needs values = [\"a\", \"b\", ...]")
            values = tuple(raw_values)
        lo, hi = spec.get("min"), spec.get("max")
        if kind == "int" and not (isinstance(lo, int) and isinstance(hi, int) and lo <= hi):
            raise _fail(where, "an int option needs whole numbers min <= max")
        opt = OptionSpec(name, kind, None, str(spec.get("help", "")), values, lo, hi)
        if "default" not in spec:
            raise _fail(where, "needs a default")
        opt = OptionSpec(name, kind, opt.coerce(spec["default"], where), opt.help, values, lo, hi)
        specs[name] = opt
    return specs


def _condition_holds(cond: Mapping[str, Any], options: Mapping[str, Any], players: int,
                     where: str) -> bool:
    for key, want in cond.items():
        if key == "players":
            allowed = want if isinstance(want, list) else [want]
            if players not in allowed:
                return False
            continue
        if key not in options:
            raise _fail(where, f"condition on unknown option {key!r}")
        if options[key] != want:
            return False
    return True


def _set_path(rules: dict[str, Any], dotted: str, value: Any, where: str) -> None:
    parts = dotted.split(".")
    if parts[0] not in schema.TOP_LEVEL - {"options", "when"}:
        raise _fail(where, f"cannot set {dotted!r}: unknown section {parts[0]!r}")
    node = rules
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise _fail(where, f"cannot set {dotted!r}: {part!r} is not a table")
    node[parts[-1]] = copy.deepcopy(value)


@dataclass(frozen=True)
class LadderStep:
    name: str
    tricks: int
    multiplier: int = 1
    alone: bool = False


@dataclass(frozen=True)
class CaptureEvent:
    name: str
    card: int  # deck index
    effect: str
    points: int


@dataclass(frozen=True, eq=False)
class Variant:
    """One game at one player count with every option resolved. Immutable."""

    name: str
    title: str
    summary: str
    source: str
    path: str
    players: int
    player_range: tuple[int, int]
    usual_players: int
    options: Mapping[str, Any]
    option_specs: Mapping[str, OptionSpec]
    canonical: str
    cards: Deck
    schedule: tuple[int, ...]
    constrained_rounds: tuple[bool, ...]
    trump_choices: tuple[str, ...]
    rules: Mapping[str, Mapping[str, Any]]
    eff_suit_table: tuple[tuple[int, ...], ...]   # [trump][card] → 0..3 or -1
    power_table: tuple[tuple[int, ...], ...]      # [trump][card] → order within eff suit
    mechanic_table: tuple[tuple[int, ...], ...]   # [trump][card] → mechanic code
    wild: tuple[bool, ...]                        # [card]
    foolable: tuple[bool, ...]                    # [card]: a fools_king card beats it
    ladder: tuple[LadderStep, ...]
    events: tuple[CaptureEvent, ...]
    hand_classes: tuple[str, ...]
    teams: int = 0
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # ----- plain facts -------------------------------------------------------------------
    @property
    def deck(self) -> list[str]:
        return list(self.cards.names)

    def rule(self, dotted: str, default: Any = None) -> Any:
        section, _, key = dotted.partition(".")
        return self.rules.get(section, {}).get(key, default)

    @property
    def trump_chooser(self) -> str:
        return str(self.rule("trump.chooser"))

    @property
    def bidding_form(self) -> str:
        return str(self.rule("bidding.form"))

    @property
    def is_contract(self) -> bool:
        return self.rule("scoring.kind") == "contract"

    @property
    def max_hand_size(self) -> int:
        return max(self.schedule)

    def seat_of_offset(self, offset: int) -> int:
        """Seat (0 = dealer's left, n-1 = dealer) of the player `offset` places left of the dealer."""
        return (offset - 1) % self.players

    def team_of(self, seat: int) -> int:
        return seat % self.teams if self.teams else seat

    def trump_index(self, trump: str | int) -> int:
        if isinstance(trump, int) and not isinstance(trump, bool):
            if 0 <= trump <= NT and TRUMP_NAMES[trump] in self.trump_choices:
                return trump
        else:
            t = str(trump).strip().upper().replace("♠", "S").replace("♥", "H") \
                .replace("♦", "D").replace("♣", "C")
            if t in ("N", "NOTRUMP", "NO_TRUMP"):
                t = "NT"
            if t in self.trump_choices:
                return TRUMP_NAMES.index(t)
        raise BidlabInputError(
            f"trump {trump!r} is not allowed in {self.name}; allowed: {', '.join(self.trump_choices)}")

    def check_hand_size(self, hand_size: int) -> None:
        if not isinstance(hand_size, int) or isinstance(hand_size, bool):
            raise BidlabInputError(f"hand size {hand_size!r} must be a whole number")
        need = hand_size * self.players + int(self.rule("deal.widow", 0) or 0)
        if hand_size < 1 or need > len(self.cards):
            biggest = (len(self.cards) - int(self.rule("deal.widow", 0) or 0)) // self.players
            raise BidlabInputError(
                f"hand size {hand_size} cannot be dealt to {self.players} players from "
                f"{len(self.cards)} cards in {self.name}; allowed: 1 to {biggest}")

    # ----- rules of play (the reference engine implements them) --------------------------
    def legal_moves(self, hand: Any, trick: Any = (), trump: str | int = "NT", **state: Any) -> list[str]:
        from simulate.rules import play as rules
        return rules.legal_moves_api(self, hand, trick, trump, **state)

    def trick_winner(self, trick: Any, trump: str | int = "NT") -> int:
        from simulate.rules import play as rules
        return rules.trick_winner_api(self, trick, trump)

    def legal_bids(self, hand_size: int, bids_so_far: Sequence[int] = (), **state: Any) -> list[int]:
        from simulate.rules import play as rules
        return rules.legal_bids_api(self, hand_size, bids_so_far, **state)

    def score_hand(self, bids: Sequence[int], tricks: Sequence[int], hand_size: int,
                   events: Mapping[str, Any] | None = None) -> list[int]:
        from simulate.rules import play as rules
        return rules.score_hand_api(self, bids, tricks, hand_size, events)

    def __repr__(self) -> str:
        return f"Variant({self.canonical})"

    def __hash__(self) -> int:
        return hash(self.canonical)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and other.canonical == self.canonical

    @cached_property
    def option_env(self) -> dict[str, Any]:
        return {"n": self.players, "deck": len(self.cards), **self.options}


def parse_option_assignments(items: Iterable[str]) -> dict[str, str]:
    """CLI `--set key=value` strings → a dict (values typed later by the variant's specs)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BidlabInputError(f"--set {item!r}: write option=value")
        out[key.strip()] = value.strip()
    return out


def load_variant(name_or_path: str | Path, players: int | None = None, **options: Any) -> Variant:
    """Load a shipped game by name or a variant file by path, for `players` and `options`."""
    path, label = _locate(name_or_path)
    data, raw = _read_toml(path, label)
    return _build(data, raw, label, path, players, options)


def _build(data: dict[str, Any], raw: bytes, label: str, path: Path, players: int | None,
           user_options: Mapping[str, Any]) -> Variant:
    unknown = set(data) - schema.TOP_LEVEL
    if unknown:
        raise _fail(label, f"unknown section(s) {', '.join(sorted(unknown))}; allowed: "
                           f"{', '.join(sorted(schema.TOP_LEVEL))}")
    game = data.get("game")
    if not isinstance(game, dict):
        raise _fail(label, "missing [game] section")
    name = game.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise _fail(label, f"[game] name={name!r} must be an identifier like my_game")
    prange = game.get("players")
    if not (isinstance(prange, list) and len(prange) == 2 and all(isinstance(p, int) and
            not isinstance(p, bool) for p in prange) and 2 <= prange[0] <= prange[1] <= 16):
        raise _fail(label, f"[game] players={prange!r} must be [min, max] with 2 <= min <= max <= 16")
    usual = game.get("usual_players", prange[0])
    if isinstance(usual, bool) or not isinstance(usual, int) or not prange[0] <= usual <= prange[1]:
        raise _fail(label, f"[game] usual_players={usual!r} must be a whole number from "
                           f"{prange[0]} to {prange[1]}")
    classes = game.get("hand_classes", [])
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise _fail(label, f"[game] hand_classes={classes!r} must be a list of feature names")

    specs = _parse_option_specs(data.get("options", {}), label)
    opts = {k: s.default for k, s in specs.items()}
    for key, value in user_options.items():
        if key not in specs:
            allowed = ", ".join(sorted(specs)) or "none"
            raise BidlabInputError(f"{name}: unknown option {key!r}; options of {name}: {allowed}")
        opts[key] = specs[key].coerce(value, name)

    if players is None:
        players = usual
    if isinstance(players, str) and players.strip().isdigit():
        players = int(players)
    if not isinstance(players, int) or isinstance(players, bool) or \
            not prange[0] <= players <= prange[1]:
        raise BidlabInputError(
            f"{name}: {players!r} players is not allowed; allowed: {prange[0]} to {prange[1]}")

    rules: dict[str, Any] = {k: copy.deepcopy(v) for k, v in data.items()
                             if k not in ("options", "when")}
    when = data.get("when", [])
    if not isinstance(when, list):
        raise _fail(label, "[[when]] must be an array of tables")
    for i, patch in enumerate(when):
        where = f"{label}: [[when]] #{i + 1}"
        if not isinstance(patch, dict) or set(patch) - {"if", "set", "error"} or "if" not in patch:
            raise _fail(where, "needs 'if' and 'set' or 'error' (and nothing else)")
        if not isinstance(patch["if"], dict):
            raise _fail(where, "'if' must be a table of option = value")
        if _condition_holds(patch["if"], opts, players, where):
            if "error" in patch:
                raise BidlabInputError(f"{name}: {patch['error']}")
            for dotted, value in (patch.get("set") or {}).items():
                _set_path(rules, dotted, value, where)

    _check_sections(rules, label)
    env = {"n": players, **opts}
    return _assemble(rules, raw, label, path, name, game, prange, usual, players, opts, specs, env)


def _check_sections(rules: Mapping[str, Any], label: str) -> None:
    for section, keys in schema.SECTIONS.items():
        body = rules.get(section, {})
        if not isinstance(body, dict):
            raise _fail(label, f"[{section}] must be a table")
        unknown = set(body) - set(keys)
        if unknown:
            raise _fail(label, f"[{section}] unknown key(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(keys))}")
    for section in ("specials", "events"):
        if not isinstance(rules.get(section, {}), dict):
            raise _fail(label, f"[{section}] must be a table of [{section}.NAME] tables")
    for sname, body in rules.get("specials", {}).items():
        unknown = set(body) - set(schema.SPECIAL_KEYS) if isinstance(body, dict) else {"?"}
        if unknown:
            raise _fail(label, f"[specials.{sname}] unknown key(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(schema.SPECIAL_KEYS))}")
    for ename, body in rules.get("events", {}).items():
        unknown = set(body) - set(schema.EVENT_KEYS) if isinstance(body, dict) else {"?"}
        if unknown:
            raise _fail(label, f"[events.{ename}] unknown key(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(schema.EVENT_KEYS))}")


class _Resolver:
    """Reads typed values out of the patched rules, evaluating expressions and $option."""

    def __init__(self, rules: Mapping[str, Any], label: str, env: dict[str, Any],
                 opts: Mapping[str, Any]) -> None:
        self.rules, self.label, self.env, self.opts = rules, label, env, opts

    def raw(self, section: str, key: str, default: Any = None) -> Any:
        return self.rules.get(section, {}).get(key, default)

    def value(self, kind: str, value: Any, where: str, allowed: Any = None) -> Any:
        if kind in ("int", "bool"):
            if isinstance(value, str):
                try:
                    value = evaluate(value, self.env, f"{self.label}: {where}")
                except BidlabInputError as exc:
                    if str(exc).startswith(self.label):
                        raise
                    raise _fail(self.label, f"{where}: {exc}") from None
            if kind == "int":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise _fail(self.label, f"{where}={value!r} must be a whole number")
                if not -INT_LIMIT <= value <= INT_LIMIT:   # the kernel's tables are int64
                    raise _fail(self.label, f"{where}={value!r} is out of range "
                                            f"(-{INT_LIMIT:,} to {INT_LIMIT:,})")
            elif not isinstance(value, bool):
                if isinstance(value, int) and value in (0, 1):
                    value = bool(value)
                else:
                    raise _fail(self.label, f"{where}={value!r} must be true or false")
            return value
        if kind == "str":
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise _fail(self.label, f"{where}={value!r} must be text")
            value = str(value)
            if value.startswith("$"):
                ref = value[1:]
                if ref not in self.opts:
                    raise _fail(self.label, f"{where}={value!r} names an unknown option")
                value = str(self.opts[ref]).lower() if isinstance(self.opts[ref], bool) \
                    else str(self.opts[ref])
            if allowed and value not in allowed:
                raise _fail(self.label, f"{where}={value!r}; allowed: {', '.join(allowed)}")
            return value
        if kind == "list" and not isinstance(value, list):
            raise _fail(self.label, f"{where}={value!r} must be a list [...]")
        if kind == "table" and not isinstance(value, dict):
            raise _fail(self.label, f"{where}={value!r} must be a table {{...}}")
        if kind == "expr":
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise _fail(self.label, f"{where}={value!r} must be a formula in quotes")
            try:
                compile_expression(str(value))
            except BidlabInputError as exc:
                raise _fail(self.label, f"{where}: {exc}") from None
            return str(value)
        return value

    def get(self, section: str, key: str, default: Any = None, required: bool = False) -> Any:
        value = self.raw(section, key)
        if value is None:
            if required:
                raise _fail(self.label, f"[{section}] needs {key}")
            return default
        kind, allowed, _ = schema.SECTIONS[section][key]
        return self.value(kind, value, f"[{section}] {key}", allowed)


def _card_list(values: Any, where: str) -> list[Card]:
    if not isinstance(values, list):
        raise BidlabInputError(f"{where} must be a list of cards")
    try:
        return [parse_card(str(v)) for v in values]
    except BidlabInputError as exc:
        raise BidlabInputError(f"{where}: {exc}") from None


def _assemble(rules: dict[str, Any], raw: bytes, label: str, path: Path, name: str,
              game: Mapping[str, Any], prange: list[int], usual: Any, players: int,
              opts: dict[str, Any], specs: dict[str, OptionSpec], env: dict[str, Any]) -> Variant:
    r = _Resolver(rules, label, env, opts)

    # --- deck
    suits = r.get("deck", "suits", required=True)
    ranks = r.get("deck", "ranks", required=True)
    if not isinstance(suits, list) or not suits or any(s not in SUITS for s in suits) \
            or len(set(suits)) != len(suits):
        raise _fail(label, f"[deck] suits={suits!r}; allowed: distinct letters among S H D C")
    if not isinstance(ranks, list) or any(str(x).upper() not in RANK_VALUES for x in ranks) \
            or len({RANK_VALUES[str(x).upper()] for x in ranks}) != len(ranks):
        raise _fail(label, f"[deck] ranks={ranks!r}; allowed: distinct names among 2-10 J Q K A")
    rank_values = [RANK_VALUES[str(x).upper()] for x in ranks]
    removed = set(_card_list(r.get("deck", "remove", []), f"{label}: [deck] remove"))
    cards: list[Card] = [Card(rank=v, suit=SUITS.index(s)) for s in suits for v in rank_values]
    for c in removed:
        if c not in cards:
            raise _fail(label, f"[deck] remove: {c} is not in the deck")
    cards = [c for c in cards if c not in removed]
    special_counts = r.raw("deck", "specials", {}) or {}
    if not isinstance(special_counts, dict):
        raise _fail(label, "[deck] specials must be a table NAME = count")
    special_defs = rules.get("specials", {})
    for sname, count in special_counts.items():
        card = parse_card(sname) if sname.upper() in ("HIJO", "LOJO", "JOKER", "FOOL",
                                                      "HJ_BLUE", "HJ_GREEN") else None
        if card is None or not card.is_special:
            raise _fail(label, f"[deck] specials: {sname!r} is not a special card; allowed: "
                               "HIJO LOJO JOKER FOOL HJ_BLUE HJ_GREEN")
        k = r.value("int", count, f"[deck] specials.{sname}")
        if k < 0 or k > 8:
            raise _fail(label, f"[deck] specials.{sname}={k}; allowed: 0 to 8")
        if k and card.special not in special_defs:
            raise _fail(label, f"special card {card.special} needs a [specials.{card.special}] table")
        cards.extend([card] * k)
    deck = Deck(cards, f"{label}: [deck]")
    env["deck"] = len(deck)
    if players * 1 > len(deck):
        raise _fail(label, f"{players} players cannot be dealt from {len(deck)} cards")

    # --- trump choices
    chooser = r.get("trump", "chooser", required=True)
    choices = r.get("trump", "choices", required=True)
    if not isinstance(choices, list) or not choices or any(c not in TRUMP_NAMES for c in choices) \
            or len(set(choices)) != len(choices):
        raise _fail(label, f"[trump] choices={choices!r}; allowed: distinct among S H D C NT")
    for c in choices:
        if c != "NT" and c not in suits:
            raise _fail(label, f"[trump] choices: {c} is not a suit of this deck")
    if chooser == "fixed" and len(choices) != 1:
        raise _fail(label, "[trump] chooser=fixed needs exactly one choice")

    # --- rankings per trump
    plain = [str(x).upper() for x in r.get("ranking", "plain", required=True)]
    trump_order = [str(x).upper() for x in r.get("ranking", "trump", plain)]
    if sorted(RANK_VALUES[x] for x in plain if x in RANK_VALUES) != sorted(rank_values) or \
            len(plain) != len(rank_values):
        raise _fail(label, f"[ranking] plain={plain!r} must list each rank of the deck once")
    bowers = "LEFT_BOWER" in trump_order or "RIGHT_BOWER" in trump_order
    trump_ranks = [x for x in trump_order if x in RANK_VALUES]
    expected = sorted(v for v in rank_values if not (bowers and v == 11))
    if sorted(RANK_VALUES[x] for x in trump_ranks) != expected or len(trump_ranks) != len(expected):
        raise _fail(label, f"[ranking] trump={trump_order!r} must list each rank once "
                           "(the jack appears as LEFT_BOWER/RIGHT_BOWER when bowers are used)")
    if bowers and 11 not in rank_values:
        raise _fail(label, "[ranking] trump uses bowers but the deck has no jacks")
    if bowers and "RIGHT_BOWER" not in trump_order:
        raise _fail(label, "[ranking] trump has LEFT_BOWER without RIGHT_BOWER (the jack of trump "
                           "needs a place)")
    for x in trump_order:
        if x not in RANK_VALUES and x not in ("LEFT_BOWER", "RIGHT_BOWER") and x not in special_defs:
            raise _fail(label, f"[ranking] trump: {x!r} is not a rank, a bower or a special card")

    wild: list[bool] = []
    foolable = [False] * len(deck)
    special_info: dict[str, tuple[int, int, bool]] = {}  # name → (mechanic, nt mechanic, wild)
    for sname, body in special_defs.items():
        where = f"[specials.{sname}]"
        if sname not in ("HIJO", "LOJO", "JOKER", "FOOL", "HJ_BLUE", "HJ_GREEN"):
            raise _fail(label, f"{where}: not a special card name")
        mech = r.value("str", body.get("mechanic", ""), f"{where} mechanic", schema.MECHANICS)
        nt_mech = r.value("str", body.get("no_trump_mechanic", mech), f"{where} no_trump_mechanic",
                          schema.MECHANICS)
        is_wild = r.value("bool", body.get("wild", False), f"{where} wild")
        if mech == "top_trump" and sname not in trump_order:
            raise _fail(label, f"{where}: mechanic top_trump needs {sname} in [ranking] trump")
        if nt_mech == "top_trump" and "NT" in choices:
            raise _fail(label, f"{where}: no_trump_mechanic cannot be top_trump when NT is allowed")
        if mech == "fools_king":
            fooled = str(body.get("fools", "K")).upper()
            if fooled not in RANK_VALUES:
                raise _fail(label, f"{where} fools={fooled!r} must be a rank")
            for i, c in enumerate(deck.cards):
                if not c.special and c.rank == RANK_VALUES[fooled]:
                    foolable[i] = True
        special_info[sname] = (
            PLAIN if mech == "top_trump" else MECHANIC_CODE[mech],
            PLAIN if nt_mech == "top_trump" else MECHANIC_CODE[nt_mech], is_wild)
    eff_table, power_table, mech_table = [], [], []
    for t in range(5):
        effs, powers, mechs = [], [], []
        for c in deck.cards:
            if c.special:
                mech, nt_mech, _ = special_info[c.special]
                if t != NT and c.special in trump_order:
                    effs.append(t)
                    powers.append(TRUMP_BASE + trump_order.index(c.special))
                    mechs.append(PLAIN)
                else:
                    effs.append(-1)
                    powers.append(0)
                    mechs.append(nt_mech if t == NT else mech)
                continue
            rname = "10" if c.rank == 10 else next(k for k, v in RANK_VALUES.items()
                                                    if v == c.rank and k != "T")
            if t != NT and bowers and c.rank == 11 and c.suit == t and "RIGHT_BOWER" in trump_order:
                effs.append(t)
                powers.append(TRUMP_BASE + trump_order.index("RIGHT_BOWER"))
            elif t != NT and bowers and c.rank == 11 and c.suit == SAME_COLOUR[t] \
                    and "LEFT_BOWER" in trump_order:
                effs.append(t)
                powers.append(TRUMP_BASE + trump_order.index("LEFT_BOWER"))
            elif t != NT and c.suit == t:
                effs.append(t)
                powers.append(TRUMP_BASE + trump_order.index(rname))
            else:
                effs.append(c.suit)
                powers.append(plain.index(rname))
            mechs.append(PLAIN)
        eff_table.append(tuple(effs))
        power_table.append(tuple(powers))
        mech_table.append(tuple(mechs))
    for c in deck.cards:
        wild.append(bool(c.special and special_info[c.special][2]))

    # --- schedule
    shape = r.get("deal", "schedule", required=True)
    start = r.get("deal", "start", required=True)
    widow = r.get("deal", "widow", 0)
    discard = r.get("deal", "discard", 0)
    if widow < 0 or discard < 0 or discard > widow:
        raise _fail(label, f"[deal] widow={widow}, discard={discard}: need 0 <= discard <= widow")
    if shape == "constant":
        schedule = [start]
        peak = start
    else:
        peak = r.get("deal", "peak", required=True)
        repeat = r.get("deal", "repeat_peak", False)
        if peak < start:
            raise _fail(label, f"[deal] peak={peak} is below start={start}")
        up = list(range(start, peak + 1))
        down = list(range(peak if repeat else peak - 1, start - 1, -1))
        if shape == "up":
            schedule = up
        elif shape == "up_down":
            schedule = up + down
        else:
            schedule = list(reversed(up)) + (up if repeat else up[1:])   # M..1..M
    if start < 1:
        raise _fail(label, f"[deal] start={start}: a hand needs at least 1 card")
    if peak * players + widow > len(deck):
        raise BidlabInputError(
            f"{name}: a hand of {peak} cards for {players} players needs {peak * players + widow} "
            f"cards but the deck has {len(deck)}; allowed hand sizes: 1 to "
            f"{(len(deck) - widow) // players}")
    ascending_end = schedule.index(max(schedule))
    constraint_rounds = r.get("bidding", "constraint_rounds", "all")
    constrained = []
    for i, h in enumerate(schedule):
        if constraint_rounds == "all":
            constrained.append(True)
        elif constraint_rounds == "descending":
            constrained.append(i > ascending_end)
        else:
            constrained.append(i > ascending_end and h < peak)

    # --- bidding, play, teams, scoring, end (resolve everything now so errors surface at load)
    form = r.get("bidding", "form", required=True)
    r.get("bidding", "first", 1)
    r.get("bidding", "constraint", "none")
    ladder: list[LadderStep] = []
    if form == "auction":
        raw_ladder = r.raw("bidding", "ladder")
        if not isinstance(raw_ladder, list) or not raw_ladder:
            raise _fail(label, "[bidding] an auction needs a ladder")
        for j, step in enumerate(raw_ladder):
            if not isinstance(step, dict) or set(step) - schema.LADDER_KEYS or "tricks" not in step:
                raise _fail(label, f"[bidding] ladder[{j}] must be {{name, tricks, multiplier, alone}}")
            for key, lo, hi in (("tricks", 1, 64), ("multiplier", 1, 1000)):
                x = step.get(key, 1)
                if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
                    raise _fail(label, f"[bidding] ladder[{j}] {key}={x!r} must be a whole number "
                                       f"from {lo} to {hi}")
            if not isinstance(step.get("alone", False), bool) or \
                    not isinstance(step.get("name", ""), (str, int)):
                raise _fail(label, f"[bidding] ladder[{j}]: alone must be true or false and name "
                                   "a text")
            ladder.append(LadderStep(str(step.get("name", step["tricks"])), int(step["tricks"]),
                                     int(step.get("multiplier", 1)), bool(step.get("alone", False))))
        if chooser != "maker":
            raise _fail(label, "[bidding] form=auction needs [trump] chooser = \"maker\"")
        r.get("bidding", "all_pass", "redeal")
        apc = r.get("bidding", "all_pass_card", None)
        if apc is not None and not deck.indices_of(parse_card(apc)):
            raise _fail(label, f"[bidding] all_pass_card={apc!r} is not in the deck")
        r.get("bidding", "all_pass_bid", 3)
        r.get("bidding", "stick_dealer_min", 1)
        r.get("bidding", "allow_alone", False)
    elif chooser == "maker":
        raise _fail(label, "[trump] chooser=maker needs an auction")
    if chooser == "turn_up" and len(choices) != 5:
        raise _fail(label, "[trump] chooser=turn_up needs choices S H D C NT")
    first_lead = r.get("play", "first_lead", "1")
    if first_lead != "maker" and not first_lead.lstrip("-").isdigit():
        raise _fail(label, f"[play] first_lead={first_lead!r}; allowed: an offset or 'maker'")
    r.get("play", "breaking_trump", False)
    r.get("ranking", "ace_choice", False)
    teams = r.get("teams", "count", 0)
    if teams and (teams < 2 or players % teams or players // teams < 2):
        raise BidlabInputError(f"{name}: {teams} teams cannot be seated with {players} players")
    kind = r.get("scoring", "kind", "bids")
    for key in ("exact", "exact_zero", "over", "under", "missed_zero", "everyone_exact", "made",
                "failed", "defenders"):
        r.get("scoring", key)
    needed = ("exact", "over", "under") if kind == "bids" else ("made", "failed")
    for key in needed:
        r.get("scoring", key, required=True)
    r.get("scoring", "alone_multiplier", 1)
    for sub, keys in (("stars", {"enabled", "win_at"}), ("fool_bonus", {"points", "requires_exact"})):
        body = r.raw("scoring", sub)
        body = {} if body is None else body
        if not isinstance(body, dict):
            raise _fail(label, f"[scoring] {sub}={body!r} must be a table {{{', '.join(sorted(keys))}}}")
        if set(body) - keys:
            raise _fail(label, f"[scoring.{sub}] unknown keys; allowed: {', '.join(sorted(keys))}")
    events: list[CaptureEvent] = []
    for ename, body in (rules.get("events") or {}).items():
        effect = r.value("str", body.get("effect", "none"), f"[events.{ename}] effect",
                         schema.EVENT_EFFECTS)
        card_text = r.value("str", body.get("card", ""), f"[events.{ename}] card")
        idx = deck.indices_of(parse_card(card_text))
        if len(idx) != 1:
            raise _fail(label, f"[events.{ename}] card={card_text!r} must be one card of the deck")
        points = r.value("int", body.get("points", 0), f"[events.{ename}] points")
        if effect != "none":
            events.append(CaptureEvent(ename, idx[0], effect, points))
    if len(events) > MAX_EVENTS:
        raise _fail(label, f"{len(events)} capture events; at most {MAX_EVENTS} are supported")
    if len({e.card for e in events}) != len(events):
        raise BidlabInputError(f"{name}: the special jacks must be two different cards "
                               f"({', '.join(deck.names[e.card] for e in events)})")
    r.get("end", "rule", required=True)
    if r.get("end", "rule") == "target":
        r.get("end", "target", required=True)
    for key in ("better", "tiebreak", "tiebreak_participants", "tiebreak_cap", "ties"):
        r.get("end", key)

    resolved: dict[str, dict[str, Any]] = {}
    for section, keys in schema.SECTIONS.items():
        resolved[section] = {}
        for key, (kind_, _, _) in keys.items():
            value = r.raw(section, key)
            if value is None:
                continue
            if kind_ in ("int", "bool", "str", "expr"):
                value = r.get(section, key)
            elif section == "scoring" and key in ("stars", "fool_bonus"):
                value = {k: (r.value("bool" if k in ("enabled", "requires_exact") else "int", v,
                                     f"[scoring.{key}] {k}")) for k, v in value.items()}
            resolved[section][key] = value
    resolved["deal"]["widow"] = widow
    resolved["deal"]["discard"] = discard

    shipped_name = name if name in SHIPPED else None
    digest = ""
    if shipped_name is None or (VARIANTS_DIR / f"{name}.toml").read_bytes() != raw:
        digest = "@" + hashlib.sha256(raw).hexdigest()[:10]
    opt_text = ",".join(f"{k}={specs[k].show(v)}" for k, v in sorted(opts.items()))
    canonical = f"{name}{digest}(players={players}" + (f",{opt_text}" if opt_text else "") + ")"
    hand_classes = game.get("hand_classes", ["trumps", "top3"])
    return Variant(
        name=name, title=str(game.get("title", name)), summary=str(game.get("summary", "")),
        source=str(game.get("source", "")), path=str(path), players=players,
        player_range=(prange[0], prange[1]), usual_players=int(usual), options=dict(opts),
        option_specs=specs, canonical=canonical, cards=deck, schedule=tuple(schedule),
        constrained_rounds=tuple(constrained), trump_choices=tuple(choices), rules=resolved,
        eff_suit_table=tuple(eff_table), power_table=tuple(power_table),
        mechanic_table=tuple(mech_table), wild=tuple(wild), foolable=tuple(foolable),
        ladder=tuple(ladder), events=tuple(events), hand_classes=tuple(hand_classes),
        teams=teams,
    )
