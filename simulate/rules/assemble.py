"""Build a Variant from a rules file's patched sections: deck, rankings, schedule, bidding, scoring.

The loader (`simulate.rules.load`) has settled who the variant is (name, players, options,
canonical string) and applied the `[[when]]` patches; the builders here read every value once,
in a fixed order (so the first error a file has is the one reported), and turn it into the
Variant's tables. Every failure is a BidlabInputError naming the file, key and value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from simulate.errors import BidlabInputError
from simulate.rules import schema
from simulate.rules.cards import (
    RANK_VALUES,
    SAME_COLOUR,
    SPECIAL_NAMES,
    SUITS,
    TRUMP_NAMES,
    Card,
    Deck,
    parse_card,
)
from simulate.rules.codes import MAX_EVENTS, NT, TRUMP_BASE, Mechanic
from simulate.rules.expr import compile_expression, evaluate
from simulate.rules.schema import input_error
from simulate.rules.variant import CaptureEvent, LadderStep, Variant

if TYPE_CHECKING:
    from simulate.rules.load import OptionSpec

INT_LIMIT = 10**9  # whole numbers in a rules file: far from int64 overflow in any table
# a special card's [specials.NAME] mechanic -> its code (top_trump cards rank as plain trumps)
MECHANIC_CODE = {m.name.lower(): int(m) for m in Mechanic if m != Mechanic.PLAIN}


@dataclass(frozen=True)
class Identity:
    """Who the variant is, settled by the loader before its rules are built."""

    name: str
    title: str
    summary: str
    source: str
    path: str
    players: int
    player_range: tuple[int, int]
    usual_players: int
    options: dict[str, Any]
    option_specs: Mapping[str, OptionSpec]
    canonical: str
    hand_classes: tuple[str, ...]
    toml_bytes: bytes


class RuleReader:
    """Reads typed values out of the patched rules, evaluating expressions and "$option"."""

    def __init__(self, rules: Mapping[str, Any], label: str, env: dict[str, Any],
                 opts: Mapping[str, Any]) -> None:
        self.rules, self.label, self.env, self.opts = rules, label, env, opts

    def raw(self, section: str, key: str, default: Any = None) -> Any:
        """The value as written (after the patches), or `default`."""
        return self.rules.get(section, {}).get(key, default)

    def value(self, kind: str, value: Any, where: str, allowed: Any = None) -> Any:
        """`value` read as a schema kind (int, bool, str, list, table, expr), named `where`."""
        if kind in ("int", "bool"):
            return self._number(kind, value, where)
        if kind == "str":
            return self._text(value, where, allowed)
        if kind == "list" and not isinstance(value, list):
            raise input_error(self.label, f"{where}={value!r} must be a list [...]")
        if kind == "table" and not isinstance(value, dict):
            raise input_error(self.label, f"{where}={value!r} must be a table {{...}}")
        if kind == "expr":
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise input_error(self.label, f"{where}={value!r} must be a formula in quotes")
            try:
                compile_expression(str(value))
            except BidlabInputError as exc:
                raise input_error(self.label, f"{where}: {exc}") from None
            return str(value)
        return value

    def _number(self, kind: str, value: Any, where: str) -> Any:
        if isinstance(value, str):
            try:
                value = evaluate(value, self.env, f"{self.label}: {where}")
            except BidlabInputError as exc:
                if str(exc).startswith(self.label):
                    raise
                raise input_error(self.label, f"{where}: {exc}") from None
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise input_error(self.label, f"{where}={value!r} must be a whole number")
            if not -INT_LIMIT <= value <= INT_LIMIT:   # the kernel's tables are int64
                raise input_error(self.label, f"{where}={value!r} is out of range "
                                              f"(-{INT_LIMIT:,} to {INT_LIMIT:,})")
        elif not isinstance(value, bool):
            if isinstance(value, int) and value in (0, 1):
                value = bool(value)
            else:
                raise input_error(self.label, f"{where}={value!r} must be true or false")
        return value

    def _text(self, value: Any, where: str, allowed: Any) -> str:
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise input_error(self.label, f"{where}={value!r} must be text")
        value = str(value)
        if value.startswith("$"):
            ref = value[1:]
            if ref not in self.opts:
                raise input_error(self.label, f"{where}={value!r} names an unknown option")
            value = str(self.opts[ref]).lower() if isinstance(self.opts[ref], bool) \
                else str(self.opts[ref])
        if allowed and value not in allowed:
            raise input_error(self.label, f"{where}={value!r}; allowed: {', '.join(allowed)}")
        return value

    def get(self, section: str, key: str, default: Any = None, required: bool = False) -> Any:
        """[section] key read as the schema says, or `default` (an error when `required`)."""
        value = self.raw(section, key)
        if value is None:
            if required:
                raise input_error(self.label, f"[{section}] needs {key}")
            return default
        kind, allowed, _ = schema.SECTIONS[section][key]
        return self.value(kind, value, f"[{section}] {key}", allowed)


@dataclass(frozen=True)
class Context:
    """What every builder reads: the patched rules, the file's label and the game's name."""

    rules: dict[str, Any]
    label: str
    name: str
    players: int
    read: RuleReader


@dataclass(frozen=True)
class DeckParts:
    """build_deck's result: the deck and what the later builders check against."""

    deck: Deck
    suits: list[str]
    rank_values: list[int]
    special_defs: dict[str, Any]


@dataclass(frozen=True)
class Rankings:
    """build_rankings' result: the trump rules and the per-trump card tables."""

    chooser: str
    choices: list[str]
    eff_table: tuple[tuple[int, ...], ...]
    power_table: tuple[tuple[int, ...], ...]
    mechanic_table: tuple[tuple[int, ...], ...]
    wild: tuple[bool, ...]
    foolable: tuple[bool, ...]


@dataclass(frozen=True)
class Schedule:
    """build_schedule's result: the hand sizes and the rounds the bid constraint binds."""

    schedule: tuple[int, ...]
    constrained: tuple[bool, ...]
    widow: int
    discard: int


@dataclass(frozen=True)
class Scoring:
    """build_scoring's result: teams, capture events and every section's resolved values."""

    teams: int
    events: tuple[CaptureEvent, ...]
    resolved: dict[str, dict[str, Any]]


def check_sections(rules: Mapping[str, Any], label: str) -> None:
    """Every section a table, and no key the schema does not know."""
    for section, keys in schema.SECTIONS.items():
        body = rules.get(section, {})
        if not isinstance(body, dict):
            raise input_error(label, f"[{section}] must be a table")
        unknown = set(body) - set(keys)
        if unknown:
            raise input_error(label, f"[{section}] unknown key(s) {', '.join(sorted(unknown))}; "
                                     f"allowed: {', '.join(sorted(keys))}")
    for section in ("specials", "events"):
        if not isinstance(rules.get(section, {}), dict):
            raise input_error(label, f"[{section}] must be a table of [{section}.NAME] tables")
    for sname, body in rules.get("specials", {}).items():
        unknown = set(body) - set(schema.SPECIAL_KEYS) if isinstance(body, dict) else {"?"}
        if unknown:
            raise input_error(label, f"[specials.{sname}] unknown key(s) "
                                     f"{', '.join(sorted(unknown))}; "
                                     f"allowed: {', '.join(sorted(schema.SPECIAL_KEYS))}")
    for ename, body in rules.get("events", {}).items():
        unknown = set(body) - set(schema.EVENT_KEYS) if isinstance(body, dict) else {"?"}
        if unknown:
            raise input_error(label, f"[events.{ename}] unknown key(s) {', '.join(sorted(unknown))}; "
                                     f"allowed: {', '.join(sorted(schema.EVENT_KEYS))}")


def assemble_variant(who: Identity, rules: dict[str, Any], label: str) -> Variant:
    """The Variant for `who` from its patched `rules`, checked section by section.

    who: name, players, options and canonical string (from the loader).
    rules: the file's sections after the `[[when]]` patches; label: the file's name in errors.
    """
    check_sections(rules, label)
    env = {"n": who.players, **who.options}
    ctx = Context(rules, label, who.name, who.players, RuleReader(rules, label, env, who.options))
    parts = build_deck(ctx)
    ranks = build_rankings(ctx, parts)
    sched = build_schedule(ctx, parts.deck)
    ladder = build_bidding(ctx, parts.deck, ranks.chooser, ranks.choices)
    scoring = build_scoring(ctx, parts.deck, sched)
    return Variant(
        name=who.name, title=who.title, summary=who.summary, source=who.source, path=who.path,
        players=who.players, player_range=who.player_range, usual_players=who.usual_players,
        options=dict(who.options), option_specs=who.option_specs, canonical=who.canonical,
        cards=parts.deck, schedule=sched.schedule, constrained_rounds=sched.constrained,
        trump_choices=tuple(ranks.choices), rules=scoring.resolved,
        eff_suit_table=ranks.eff_table, power_table=ranks.power_table,
        mechanic_table=ranks.mechanic_table, wild=ranks.wild, foolable=ranks.foolable,
        ladder=ladder, events=scoring.events, hand_classes=who.hand_classes,
        teams=scoring.teams, toml_bytes=who.toml_bytes,
    )


def _card_list(values: Any, where: str) -> list[Card]:
    if not isinstance(values, list):
        raise BidlabInputError(f"{where} must be a list of cards")
    try:
        return [parse_card(str(v)) for v in values]
    except BidlabInputError as exc:
        raise BidlabInputError(f"{where}: {exc}") from None


def build_deck(ctx: Context) -> DeckParts:
    """[deck]: suits × ranks, minus removed cards, plus copies of special cards."""
    r, label = ctx.read, ctx.label
    suits = r.get("deck", "suits", required=True)
    ranks = r.get("deck", "ranks", required=True)
    if not isinstance(suits, list) or not suits or any(s not in SUITS for s in suits) \
            or len(set(suits)) != len(suits):
        raise input_error(label, f"[deck] suits={suits!r}; allowed: distinct letters among S H D C")
    if not isinstance(ranks, list) or any(str(x).upper() not in RANK_VALUES for x in ranks) \
            or len({RANK_VALUES[str(x).upper()] for x in ranks}) != len(ranks):
        raise input_error(label, f"[deck] ranks={ranks!r}; allowed: distinct names among "
                                 "2-10 J Q K A")
    rank_values = [RANK_VALUES[str(x).upper()] for x in ranks]
    removed = set(_card_list(r.get("deck", "remove", []), f"{label}: [deck] remove"))
    cards: list[Card] = [Card(rank=v, suit=SUITS.index(s)) for s in suits for v in rank_values]
    for c in removed:
        if c not in cards:
            raise input_error(label, f"[deck] remove: {c} is not in the deck")
    cards = [c for c in cards if c not in removed]
    special_counts = r.raw("deck", "specials", {}) or {}
    if not isinstance(special_counts, dict):
        raise input_error(label, "[deck] specials must be a table NAME = count")
    special_defs = ctx.rules.get("specials", {})
    for sname, count in special_counts.items():
        card = parse_card(sname) if sname.upper() in SPECIAL_NAMES else None
        if card is None or not card.is_special:
            raise input_error(label, f"[deck] specials: {sname!r} is not a special card; allowed: "
                                     "HIJO LOJO JOKER FOOL HJ_BLUE HJ_GREEN")
        k = r.value("int", count, f"[deck] specials.{sname}")
        if k < 0 or k > 8:
            raise input_error(label, f"[deck] specials.{sname}={k}; allowed: 0 to 8")
        if k and card.special not in special_defs:
            raise input_error(label, f"special card {card.special} needs a "
                                     f"[specials.{card.special}] table")
        cards.extend([card] * k)
    deck = Deck(cards, f"{label}: [deck]")
    r.env["deck"] = len(deck)
    if ctx.players * 1 > len(deck):
        raise input_error(label, f"{ctx.players} players cannot be dealt from {len(deck)} cards")
    return DeckParts(deck, suits, rank_values, special_defs)


def build_rankings(ctx: Context, parts: DeckParts) -> Rankings:
    """[trump] and [ranking] (+ [specials]): each card's effective suit, power and mechanic
    under each trump."""
    r, label = ctx.read, ctx.label
    chooser = r.get("trump", "chooser", required=True)
    choices = r.get("trump", "choices", required=True)
    if not isinstance(choices, list) or not choices or any(c not in TRUMP_NAMES for c in choices) \
            or len(set(choices)) != len(choices):
        raise input_error(label, f"[trump] choices={choices!r}; allowed: distinct among S H D C NT")
    for c in choices:
        if c != "NT" and c not in parts.suits:
            raise input_error(label, f"[trump] choices: {c} is not a suit of this deck")
    if chooser == "fixed" and len(choices) != 1:
        raise input_error(label, "[trump] chooser=fixed needs exactly one choice")

    plain = [str(x).upper() for x in r.get("ranking", "plain", required=True)]
    trump_order = [str(x).upper() for x in r.get("ranking", "trump", plain)]
    if sorted(RANK_VALUES[x] for x in plain if x in RANK_VALUES) != sorted(parts.rank_values) or \
            len(plain) != len(parts.rank_values):
        raise input_error(label, f"[ranking] plain={plain!r} must list each rank of the deck once")
    bowers = "LEFT_BOWER" in trump_order or "RIGHT_BOWER" in trump_order
    trump_ranks = [x for x in trump_order if x in RANK_VALUES]
    expected = sorted(v for v in parts.rank_values if not (bowers and v == 11))
    if sorted(RANK_VALUES[x] for x in trump_ranks) != expected or len(trump_ranks) != len(expected):
        raise input_error(label, f"[ranking] trump={trump_order!r} must list each rank once "
                                 "(the jack appears as LEFT_BOWER/RIGHT_BOWER when bowers are used)")
    if bowers and 11 not in parts.rank_values:
        raise input_error(label, "[ranking] trump uses bowers but the deck has no jacks")
    if bowers and "RIGHT_BOWER" not in trump_order:
        raise input_error(label, "[ranking] trump has LEFT_BOWER without RIGHT_BOWER (the jack "
                                 "of trump needs a place)")
    for x in trump_order:
        if x not in RANK_VALUES and x not in ("LEFT_BOWER", "RIGHT_BOWER") and \
                x not in parts.special_defs:
            raise input_error(label, f"[ranking] trump: {x!r} is not a rank, a bower or a "
                                     "special card")
    special_info, foolable = _special_mechanics(ctx, parts, trump_order, choices)
    eff, power, mech = _trump_tables(parts.deck, plain, trump_order, bowers, special_info)
    wild = tuple(bool(c.special and special_info[c.special][2]) for c in parts.deck.cards)
    return Rankings(chooser, choices, eff, power, mech, wild, tuple(foolable))


def _special_mechanics(ctx: Context, parts: DeckParts, trump_order: list[str], choices: list[str]
                       ) -> tuple[dict[str, tuple[int, int, bool]], list[bool]]:
    """[specials.NAME]: name → (mechanic, no-trump mechanic, wild), and the foolable cards."""
    r, label, deck = ctx.read, ctx.label, parts.deck
    foolable = [False] * len(deck)
    special_info: dict[str, tuple[int, int, bool]] = {}
    for sname, body in parts.special_defs.items():
        where = f"[specials.{sname}]"
        if sname not in SPECIAL_NAMES:
            raise input_error(label, f"{where}: not a special card name")
        mech = r.value("str", body.get("mechanic", ""), f"{where} mechanic", schema.MECHANICS)
        nt_mech = r.value("str", body.get("no_trump_mechanic", mech), f"{where} no_trump_mechanic",
                          schema.MECHANICS)
        is_wild = r.value("bool", body.get("wild", False), f"{where} wild")
        if mech == "top_trump" and sname not in trump_order:
            raise input_error(label, f"{where}: mechanic top_trump needs {sname} in [ranking] trump")
        if nt_mech == "top_trump" and "NT" in choices:
            raise input_error(label, f"{where}: no_trump_mechanic cannot be top_trump when NT is "
                                     "allowed")
        if mech == "fools_king":
            fooled = str(body.get("fools", "K")).upper()
            if fooled not in RANK_VALUES:
                raise input_error(label, f"{where} fools={fooled!r} must be a rank")
            for i, c in enumerate(deck.cards):
                if not c.special and c.rank == RANK_VALUES[fooled]:
                    foolable[i] = True
        special_info[sname] = (
            int(Mechanic.PLAIN) if mech == "top_trump" else MECHANIC_CODE[mech],
            int(Mechanic.PLAIN) if nt_mech == "top_trump" else MECHANIC_CODE[nt_mech], is_wild)
    return special_info, foolable


def _trump_tables(deck: Deck, plain: list[str], trump_order: list[str], bowers: bool,
                  special_info: Mapping[str, tuple[int, int, bool]]
                  ) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """[trump][card] → effective suit (-1 suitless), power, mechanic code."""
    eff_table, power_table, mech_table = [], [], []
    for t in range(NT + 1):
        effs, powers, mechs = [], [], []
        for c in deck.cards:
            if c.special:
                mech, nt_mech, _ = special_info[c.special]
                if t != NT and c.special in trump_order:
                    effs.append(t)
                    powers.append(TRUMP_BASE + trump_order.index(c.special))
                    mechs.append(int(Mechanic.PLAIN))
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
            mechs.append(int(Mechanic.PLAIN))
        eff_table.append(tuple(effs))
        power_table.append(tuple(powers))
        mech_table.append(tuple(mechs))
    return tuple(eff_table), tuple(power_table), tuple(mech_table)


def build_schedule(ctx: Context, deck: Deck) -> Schedule:
    """[deal]: the hand sizes of a game, the widow, and the rounds the bid constraint binds."""
    r, label, players = ctx.read, ctx.label, ctx.players
    shape = r.get("deal", "schedule", required=True)
    start = r.get("deal", "start", required=True)
    widow = r.get("deal", "widow", 0)
    discard = r.get("deal", "discard", 0)
    if widow < 0 or discard < 0 or discard > widow:
        raise input_error(label, f"[deal] widow={widow}, discard={discard}: need 0 <= discard "
                                 "<= widow")
    if shape == "constant":
        schedule = [start]
        peak = start
    else:
        peak = r.get("deal", "peak", required=True)
        repeat = r.get("deal", "repeat_peak", False)
        if peak < start:
            raise input_error(label, f"[deal] peak={peak} is below start={start}")
        up = list(range(start, peak + 1))
        down = list(range(peak if repeat else peak - 1, start - 1, -1))
        if shape == "up":
            schedule = up
        elif shape == "up_down":
            schedule = up + down
        else:
            schedule = list(reversed(up)) + (up if repeat else up[1:])   # M..1..M
    if start < 1:
        raise input_error(label, f"[deal] start={start}: a hand needs at least 1 card")
    if peak * players + widow > len(deck):
        raise BidlabInputError(
            f"{ctx.name}: a hand of {peak} cards for {players} players needs "
            f"{peak * players + widow} cards but the deck has {len(deck)}; allowed hand sizes: "
            f"1 to {(len(deck) - widow) // players}")
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
    return Schedule(tuple(schedule), tuple(constrained), widow, discard)


def build_bidding(ctx: Context, deck: Deck, chooser: str, choices: list[str]
                  ) -> tuple[LadderStep, ...]:
    """[bidding]: the form, and for an auction its ladder and all-pass rules."""
    r, label = ctx.read, ctx.label
    form = r.get("bidding", "form", required=True)
    r.get("bidding", "first", 1)
    r.get("bidding", "constraint", "none")
    ladder: list[LadderStep] = []
    if form == "auction":
        raw_ladder = r.raw("bidding", "ladder")
        if not isinstance(raw_ladder, list) or not raw_ladder:
            raise input_error(label, "[bidding] an auction needs a ladder")
        for j, step in enumerate(raw_ladder):
            ladder.append(_ladder_step(label, j, step))
        if chooser != "maker":
            raise input_error(label, "[bidding] form=auction needs [trump] chooser = \"maker\"")
        r.get("bidding", "all_pass", "redeal")
        apc = r.get("bidding", "all_pass_card", None)
        if apc is not None and not deck.indices_of(parse_card(apc)):
            raise input_error(label, f"[bidding] all_pass_card={apc!r} is not in the deck")
        r.get("bidding", "all_pass_bid", 3)
        r.get("bidding", "stick_dealer_min", 1)
        r.get("bidding", "allow_alone", False)
    elif chooser == "maker":
        raise input_error(label, "[trump] chooser=maker needs an auction")
    if chooser == "turn_up" and len(choices) != 5:
        raise input_error(label, "[trump] chooser=turn_up needs choices S H D C NT")
    return tuple(ladder)


def _ladder_step(label: str, j: int, step: Any) -> LadderStep:
    if not isinstance(step, dict) or set(step) - schema.LADDER_KEYS or "tricks" not in step:
        raise input_error(label, f"[bidding] ladder[{j}] must be {{name, tricks, multiplier, alone}}")
    for key, lo, hi in (("tricks", 1, 64), ("multiplier", 1, 1000)):
        x = step.get(key, 1)
        if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
            raise input_error(label, f"[bidding] ladder[{j}] {key}={x!r} must be a whole number "
                                     f"from {lo} to {hi}")
    if not isinstance(step.get("alone", False), bool) or \
            not isinstance(step.get("name", ""), (str, int)):
        raise input_error(label, f"[bidding] ladder[{j}]: alone must be true or false and name "
                                 "a text")
    return LadderStep(str(step.get("name", step["tricks"])), int(step["tricks"]),
                      int(step.get("multiplier", 1)), bool(step.get("alone", False)))


def build_scoring(ctx: Context, deck: Deck, sched: Schedule) -> Scoring:
    """[play], [teams], [scoring], [events] and [end], then every section's values resolved
    (so every error surfaces at load, not mid-run)."""
    r, label, name = ctx.read, ctx.label, ctx.name
    first_lead = r.get("play", "first_lead", "1")
    if first_lead != "maker" and not first_lead.lstrip("-").isdigit():
        raise input_error(label, f"[play] first_lead={first_lead!r}; allowed: an offset or 'maker'")
    r.get("play", "breaking_trump", False)
    r.get("ranking", "ace_choice", False)
    teams = r.get("teams", "count", 0)
    if teams and (teams < 2 or ctx.players % teams or ctx.players // teams < 2):
        raise BidlabInputError(f"{name}: {teams} teams cannot be seated with {ctx.players} players")
    kind = r.get("scoring", "kind", "bids")
    for key in ("exact", "exact_zero", "over", "under", "missed_zero", "everyone_exact", "made",
                "failed", "defenders"):
        r.get("scoring", key)
    needed = ("exact", "over", "under") if kind == "bids" else ("made", "failed")
    for key in needed:
        r.get("scoring", key, required=True)
    r.get("scoring", "alone_multiplier", 1)
    for sub, sub_keys in (("stars", {"enabled", "win_at"}),
                          ("fool_bonus", {"points", "requires_exact"})):
        body = r.raw("scoring", sub)
        body = {} if body is None else body
        if not isinstance(body, dict):
            raise input_error(label, f"[scoring] {sub}={body!r} must be a table "
                                     f"{{{', '.join(sorted(sub_keys))}}}")
        if set(body) - sub_keys:
            raise input_error(label, f"[scoring.{sub}] unknown keys; allowed: "
                                     f"{', '.join(sorted(sub_keys))}")
    events = _capture_events(ctx, deck)
    r.get("end", "rule", required=True)
    if r.get("end", "rule") == "target":
        r.get("end", "target", required=True)
    for key in ("better", "tiebreak", "tiebreak_participants", "tiebreak_cap", "ties"):
        r.get("end", key)
    resolved = _resolve_sections(r)
    resolved["deal"]["widow"] = sched.widow
    resolved["deal"]["discard"] = sched.discard
    return Scoring(teams, events, resolved)


def _capture_events(ctx: Context, deck: Deck) -> tuple[CaptureEvent, ...]:
    r, label = ctx.read, ctx.label
    events: list[CaptureEvent] = []
    for ename, body in (ctx.rules.get("events") or {}).items():
        effect = r.value("str", body.get("effect", "none"), f"[events.{ename}] effect",
                         schema.EVENT_EFFECTS)
        card_text = r.value("str", body.get("card", ""), f"[events.{ename}] card")
        idx = deck.indices_of(parse_card(card_text))
        if len(idx) != 1:
            raise input_error(label, f"[events.{ename}] card={card_text!r} must be one card of "
                                     "the deck")
        points = r.value("int", body.get("points", 0), f"[events.{ename}] points")
        if effect != "none":
            events.append(CaptureEvent(ename, idx[0], effect, points))
    if len(events) > MAX_EVENTS:
        raise input_error(label, f"{len(events)} capture events; at most {MAX_EVENTS} are "
                                 "supported")
    if len({e.card for e in events}) != len(events):
        raise BidlabInputError(f"{ctx.name}: the special jacks must be two different cards "
                               f"({', '.join(deck.names[e.card] for e in events)})")
    return tuple(events)


def _resolve_sections(r: RuleReader) -> dict[str, dict[str, Any]]:
    """Every schema key present, read as its kind (the Variant's `rules`)."""
    resolved: dict[str, dict[str, Any]] = {}
    for section, keys in schema.SECTIONS.items():
        resolved[section] = {}
        for key, (kind, _, _) in keys.items():
            value = r.raw(section, key)
            if value is None:
                continue
            if kind in ("int", "bool", "str", "expr"):
                value = r.get(section, key)
            elif section == "scoring" and key in ("stars", "fool_bonus"):
                value = {k: (r.value("bool" if k in ("enabled", "requires_exact") else "int", v,
                                     f"[scoring.{key}] {k}")) for k, v in value.items()}
            resolved[section][key] = value
    return resolved
