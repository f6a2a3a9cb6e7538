"""The rules of a loaded variant as text for a person to read (`bidlab rules`, `bidlab
variants`).

Pure Python on top of simulate.rules: no click, no numba, so the rules text is quick to print.
"""

from __future__ import annotations

import difflib
import textwrap
from collections import Counter

from simulate.rules.cards import RANK_NAMES, SUIT_GLYPH, SUITS, TRUMP_NAMES
from simulate.rules.codes import ALWAYS_WINS, FOOLS_KING, LAST_PLAYED_WINS, NEVER_WINS, PLAIN, WINS_IF_LED
from simulate.rules.load import load_variant, shipped_variants
from simulate.rules.variant import Variant

WIDTH = 96   # columns of the rules text

MECHANIC_TEXT = {
    ALWAYS_WINS: "always wins the trick",
    LAST_PLAYED_WINS: "beats every other card; with two in one trick the last one played wins",
    NEVER_WINS: "never wins a trick",
    WINS_IF_LED: "wins the trick when it is led (and nobody has to follow); never wins otherwise",
}

CHOOSER_TEXT = {
    "fixed": "nobody: trump is fixed",
    "dealer": "the dealer, after looking at their hand, before the bidding",
    "first_bidder": "the first bidder, together with their bid",
    "maker": "the maker (the auction winner), after taking the widow",
    "turn_up": "the turned-up card: the suit of the top undealt card (no trump when no card is "
               "left or a special card turns up)",
}

RANK_WORDS = {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"}

EVENT_TEXT = {
    "add": "scores {points:+d}",
    "zero_hand": "scores 0 for the hand",
    "lose_bonus": "loses the exact-bid bonus",
    "as_exact": "scores the hand as if the bid were exact",
}


def suit_label(suit: int | str) -> str:
    """`♠ S`, `♥ H`, ... or `NT`."""
    name = SUITS[suit] if isinstance(suit, int) else suit
    return "NT" if name == "NT" else f"{SUIT_GLYPH[name]} {name}"


def _wrap(label: str, text: str, indent: int = 11, margin: int = 2) -> list[str]:
    """`label` in a column, `text` wrapped beside it; a long label pushes the text right."""
    head = " " * margin + label
    head = f"{head:<{indent}}" if len(head) < indent else head + " "
    return textwrap.wrap(text, width=WIDTH, initial_indent=head, subsequent_indent=" " * indent,
                         break_on_hyphens=False) or [head.rstrip()]


def _para(text: str, margin: int = 2, hang: int = 2) -> list[str]:
    """A sentence wrapped at WIDTH, continuation lines indented by `hang` more."""
    return textwrap.wrap(text, width=WIDTH, initial_indent=" " * margin,
                         subsequent_indent=" " * (margin + hang), break_on_hyphens=False)


def _offset_text(offset: int, n: int) -> str:
    seat = (offset - 1) % n
    if offset % n == 0:
        who = "the dealer"
    elif offset % n == 1:
        who = "the player on the dealer's left"
    else:
        who = f"the player {offset % n} places left of the dealer"
    return f"{who} (seat {seat})"


def _deck_suits(v: Variant) -> list[int]:
    return [s for s in range(4) if any(c.suit == s and not c.special for c in v.cards.cards)]


def _suitless_somewhere(v: Variant, index: int) -> bool:
    return any(v.eff_suit_table[TRUMP_NAMES.index(name)][index] < 0 for name in v.trump_choices)


def _mechanic_text(v: Variant, mech: int) -> str:
    if mech == FOOLS_KING:
        fooled = sorted({v.deck[i][:-1] for i, f in enumerate(v.foolable) if f})
        rank = "/".join(RANK_WORDS.get(r, r) for r in fooled) or "King"
        return (f"loses every trick, unless the card that would win it is a {rank}: then the "
                f"first such card played wins (it fools the {rank})")
    if mech == PLAIN:
        return "has no suit and ranks below every card"
    return MECHANIC_TEXT[mech]


def _is_top_trump(v: Variant, t: int, index: int) -> bool:
    power = v.power_table[t]
    same = [i for i in range(len(v.deck)) if v.eff_suit_table[t][i] == t]
    return power[index] == max(power[i] for i in same)


def _special_text(v: Variant, index: int) -> str:
    """What a special card does under each allowed trump choice, in words."""
    by_text: dict[str, list[str]] = {}
    for name in v.trump_choices:
        t = TRUMP_NAMES.index(name)
        if v.eff_suit_table[t][index] >= 0:
            text = "the highest trump" if _is_top_trump(v, t, index) else "a trump"
        else:
            text = _mechanic_text(v, v.mechanic_table[t][index])
        by_text.setdefault(text, []).append("no trump" if name == "NT" else name)
    if len(by_text) == 1:
        parts = [next(iter(by_text))]
    else:
        parts = [f"with {'/'.join(when)}: {text}" if when != ["no trump"]
                 else f"with no trump: {text}" for text, when in by_text.items()]
    if v.wild[index]:
        parts.append("wild: may be played even when able to follow suit")
    elif _suitless_somewhere(v, index):
        parts.append("may be led, but not played while able to follow suit")
    else:
        parts.append("follows as a trump")
    return "; ".join(parts)


def _deck_lines(v: Variant) -> list[str]:
    lines = [f"Deck ({len(v.deck)} cards)"]
    for s in _deck_suits(v):
        ranks = [RANK_NAMES[c.rank] for c in v.cards.cards if not c.special and c.suit == s]
        lines.append(f"  {suit_label(s):<9}{' '.join(ranks)}")
    counts = Counter(c.special for c in v.cards.cards if c.special)
    for special, k in counts.items():
        copies = f" ×{k}" if k > 1 else ""
        lines += _wrap(f"{special}{copies}", _special_text(v, v.deck.index(special)))
    return lines


# what each game calls its bowers (the jack of trump, the jack of the same colour);
# Euchre's names for every other game
BOWER_NAMES = {"hoffer": ("Big Jack", "Little Jack")}
EUCHRE_BOWERS = ("right bower", "left bower")


def _card_note(v: Variant, t: int, index: int) -> str:
    """Bowers: the jacks that rank at the top of trump, by the game's own names (Hoffer's
    Big and Little Jack, Hasenpfeffer's right and left bower)."""
    card = v.cards.cards[index]
    if card.special or t == 4 or card.rank != 11 or v.eff_suit_table[t][index] != t:
        return ""
    right, left = BOWER_NAMES.get(v.name, EUCHRE_BOWERS)
    trump_order = [str(x).upper() for x in (v.rule("ranking.trump") or [])]
    if card.suit == t:
        return right if "RIGHT_BOWER" in trump_order else ""
    return left


def _ranking_lines(v: Variant) -> list[str]:
    lines = ["Ranking, high → low in each effective suit (a trump beats every non-trump)"]
    n_cards = len(v.deck)
    for name in v.trump_choices:
        t = TRUMP_NAMES.index(name)
        eff, power = v.eff_suit_table[t], v.power_table[t]
        lines.append("  No trump (NT)" if t == 4 else f"  Trump {suit_label(name)}")
        for s in ([t] if t != 4 else []) + [s for s in _deck_suits(v) if s != t]:
            members = sorted((i for i in range(n_cards) if eff[i] == s),
                             key=lambda i: power[i], reverse=True)
            if not members:
                continue
            shown = []
            for i in members:
                note = _card_note(v, t, i)
                shown.append(f"{v.deck[i]} ({note})" if note else v.deck[i])
            tag = f"{suit_label(s)} trump" if s == t else suit_label(s)
            lines += _wrap(tag, "  ".join(shown), indent=17, margin=4)
        suitless = list(dict.fromkeys(v.deck[i] for i in range(n_cards) if eff[i] == -1))
        if suitless:
            text = "; ".join(f"{c} {_short_mechanic(v.mechanic_table[t][v.deck.index(c)])}"
                             for c in suitless)
            lines += _wrap("no suit", text, indent=17, margin=4)
    if v.rule("ranking.ace_choice"):
        lines += _para("each Ace played is declared high (above the K) or low (below the lowest "
                       "card)")
    return lines


def _short_mechanic(mech: int) -> str:
    return {ALWAYS_WINS: "always wins", LAST_PLAYED_WINS: "beats all (last one played wins)",
            NEVER_WINS: "never wins", WINS_IF_LED: "wins only when led",
            FOOLS_KING: "wins only over a King that would win", PLAIN: "ranks lowest"}[mech]


def _deal_lines(v: Variant) -> list[str]:
    n = v.players
    widow = int(v.rule("deal.widow", 0) or 0)
    peak = max(v.schedule)
    lines = ["Deal"]
    if v.rule("end.rule") == "target" and len(v.schedule) == 1:
        lines.append(f"  every hand: {peak} cards each, until the game ends")
    else:
        sizes = " ".join(str(h) for h in v.schedule)
        lines += _wrap("hand sizes:", f"{sizes}  ({len(v.schedule)} rounds, peak {peak})",
                       indent=14)
    dealt = peak * n + widow
    text = f"  at the peak: {peak * n} cards to the players"
    text += f" + {widow} to the widow" if widow else ""
    left = len(v.deck) - dealt
    if v.trump_chooser == "turn_up":
        text += (f"; of the {left} left over, the top card is turned up for trump (seen by "
                 f"all) and {left - 1} stay undealt and unseen" if left > 0 else
                 f"; the whole deck of {len(v.deck)}, so no card is turned up (no trump)")
    else:
        text += (f"; {left} of {len(v.deck)} stay undealt and unseen" if left > 0
                 else f"; the whole deck of {len(v.deck)}")
    lines += _para(text.strip())
    if widow:
        discard = int(v.rule("deal.discard", 0) or 0)
        lines.append(f"  widow: {widow} face down; the maker adds it to their hand and discards "
                     f"{discard}")
    lines.append("  the deal passes left after every hand")
    return lines


def _bidding_lines(v: Variant) -> list[str]:
    n = v.players
    form = v.rule("bidding.form")
    first = int(v.rule("bidding.first", 1))
    lines = ["Bidding"]
    if form == "simultaneous":
        lines += _para("simultaneous: everyone picks a bid from 0 to the hand size in secret; "
                       "the bids are revealed together")
    elif form == "sequential":
        last = ", so the dealer bids last" if first % n == 1 else ""
        lines += _para(f"in turn, clockwise, starting with {_offset_text(first, n)}{last}; "
                       "bids from 0 to the hand size, seen by all")
    else:
        lines += _para(f"auction, clockwise from {_offset_text(first, n)}: pass or bid a higher "
                       "step; a player who passes is out; the last bidder left is the maker, "
                       "whose side must take at least the bid's tricks")
        steps = []
        for step in v.ladder:
            extra = [] if step.name == str(step.tricks) else [f"{step.tricks} tricks"]
            extra += [f"×{step.multiplier}"] if step.multiplier != 1 else []
            extra += ["alone"] if step.alone else []
            steps.append(step.name + (f" ({', '.join(extra)})" if extra else ""))
        lines += _wrap("ladder:", ", ".join(steps))
        mode = v.rule("bidding.all_pass", "redeal")
        if mode == "joker_holder":
            text = (f"all pass: the holder of {v.rule('bidding.all_pass_card')} must bid "
                    f"{v.rule('bidding.all_pass_bid', 3)} (redeal when that card is in the widow)")
        elif mode == "stick_dealer":
            text = f"all pass: the dealer must bid at least {v.rule('bidding.stick_dealer_min', 1)}"
        else:
            text = "all pass: the hand is thrown in and redealt"
        lines += _para(text)
        if v.rule("bidding.allow_alone"):
            lines += _para("the maker may go alone (their partner sits out); a defender may then "
                           "defend alone")
        return lines
    constraint = v.rule("bidding.constraint", "none")
    if constraint == "hook":
        text = "hook: the last bidder may not make the bids total the hand size"
    elif constraint == "max_bet":
        text = ("max bet: the bids must total the hand size; each bid keeps the running total "
                "at most the hand size; the last bid is forced")
    else:
        text = "no rule on the total of the bids"
    if constraint != "none" and not all(v.constrained_rounds):
        rounds = [str(i + 1) for i, on in enumerate(v.constrained_rounds) if on]
        text += f" (only in rounds {' '.join(rounds)})" if rounds else " (in no round)"
    return lines + _para(text)


def _play_lines(v: Variant) -> list[str]:
    lead = str(v.rule("play.first_lead", "1"))
    who = "the maker" if lead == "maker" else _offset_text(int(lead), v.players)
    lines = ["Play"]
    lines += _para(f"first lead: {who}; the winner of each trick leads the next")
    lines += _para("follow the led (effective) suit if you can; otherwise play any card")
    wild = list(dict.fromkeys(v.deck[i] for i, w in enumerate(v.wild) if w))
    if wild:
        lines += _para(f"wild (playable even when able to follow): {', '.join(wild)}")
    cards = range(len(v.deck))
    if any(v.mechanic_table[t][i] == WINS_IF_LED for t in range(5) for i in cards):
        lines += _para("when a card that wins if led is led, nobody has to follow suit")
    if any(_suitless_somewhere(v, i) and v.mechanic_table[t][i] != WINS_IF_LED
           for t in range(5) for i in cards):
        lines += _para("when a suitless card is led, the first suited card played sets the suit "
                       "to follow")
    if v.rule("play.breaking_trump"):
        lines += _para("breaking trump: trump may not be led until a trump has been played, "
                       "unless the leader holds only trumps")
    return lines


def _teams_lines(v: Variant) -> list[str]:
    k = v.teams
    if not k:
        return ["Teams", "  none: everyone plays for themselves"]
    teams = [[s for s in range(v.players) if s % k == j] for j in range(k)]
    text = "  ".join("{" + ",".join(str(s) for s in team) + "}" for team in teams)
    return ["Teams", f"  {k} teams of {v.players // k} (seat s plays in team s mod {k}): {text}",
            "  partners add up their bids and tricks and score as one"]


def _scoring_lines(v: Variant) -> list[str]:
    r = v.rule
    lines = ["Scoring (bid = the bid, took = tricks taken, h = hand size, n = players)"]
    if v.is_contract:
        lines.append("  one contract per hand, scored for the maker's side:")
        lines.append(f"  made (took >= bid):    {r('scoring.made')}")
        lines.append(f"  failed (took < bid):   {r('scoring.failed')}")
        lines.append(f"  defenders:             {r('scoring.defenders') or '0'}")
        mult = int(r("scoring.alone_multiplier", 1) or 1)
        if mult != 1 and (r("bidding.allow_alone") or any(s.alone for s in v.ladder)):
            lines.append(f"  a lone maker scores ×{mult}")
        if any(step.multiplier != 1 for step in v.ladder):
            lines.append("  a ladder step's multiplier applies to the makers' score")
    else:
        lines.append("  each team scores its partners' total bid and tricks:" if v.teams
                     else "  each player scores their own bid:")
        lines.append(f"  exact (took == bid):   {r('scoring.exact')}")
        if r("scoring.exact_zero") is not None:
            lines.append(f"  exact zero bid:        {r('scoring.exact_zero')}")
        lines.append(f"  over (took > bid):     {r('scoring.over')}")
        lines.append(f"  under (took < bid):    {r('scoring.under')}")
        if r("scoring.missed_zero") is not None:
            lines.append(f"  missed zero bid:       {r('scoring.missed_zero')}")
        stars = r("scoring.stars") or {}
        if stars.get("enabled"):
            lines += _para(f"stars: a star per exact bid; when everyone is exact nobody scores; "
                           f"a star may be spent to score 0 for a hand; {stars.get('win_at', 5)} "
                           "stars end the game")
        elif r("scoring.everyone_exact") is not None:
            unit = "team" if v.teams else "player"
            lines.append(f"  everyone exact:        each {unit} scores "
                         f"{r('scoring.everyone_exact')} instead")
    fool = r("scoring.fool_bonus") or {}
    if fool.get("points"):
        cond = ", only with an exact bid" if fool.get("requires_exact") else ", exact or not"
        lines += _para(f"fooling a King: +{fool['points']} for each trick won that way{cond}")
    for e in v.events:
        effect = EVENT_TEXT.get(e.effect, e.effect).format(points=e.points)
        lines += _para(f"{e.name} ({v.deck[e.card]}): whoever takes the trick holding it {effect}")
    return lines


def _end_lines(v: Variant) -> list[str]:
    r = v.rule
    better = "highest" if r("end.better", "higher") == "higher" else "lowest"
    lines = ["End"]
    if r("end.rule") == "target":
        lines += _para(f"after the hand in which a total reaches {r('end.target')}; the {better} "
                       "total wins")
        lines += _para("a tie past the target goes to the makers" if r("end.ties") == "makers"
                       else "a tie is a shared win")
    else:
        lines += _para(f"after the last round of the schedule; the {better} total wins")
        if r("end.tiebreak", "none") == "river":
            who = "only the tied players" if r("end.tiebreak_participants") == "tied_only" \
                else "all players"
            lines += _para(f"a tie for the lead: tie-break rounds up the river again (2, 3, …), "
                           f"{who} taking part, until there is one leader; after "
                           f"{r('end.tiebreak_cap', 50)} such rounds the win is shared")
        else:
            lines += _para("a tie is a shared win")
    return lines


def describe_rules(v: Variant) -> str:
    """The whole rules of a loaded variant, for a person to read."""
    lo, hi = v.player_range
    lines = [v.title, "=" * len(v.title)]
    lines.append(f"  canonical: {v.canonical}")  # never wrapped: it is meant to be copied
    if v.source:
        lines += _wrap("source:", v.source, indent=13)
    lines.append(f"  file:      {v.path}")
    if v.summary:
        lines += _wrap("summary:", v.summary, indent=13)
    allowed = f"{lo}" if lo == hi else f"{lo} to {hi}"
    lines += ["", "Players",
              f"  {v.players} (this game allows {allowed}; usually {v.usual_players})",
              f"  seats: 0 = the dealer's left, ..., {v.players - 1} = the dealer; "
              "play runs clockwise"]
    if v.option_specs:
        lines += ["", "Options (change with --set option=value)"]
        width = max(len(f"{k}={spec.show(v.options[k])}") for k, spec in v.option_specs.items())
        for spec in v.option_specs.values():
            value = f"{spec.name}={spec.show(v.options[spec.name])}"
            note = spec.allowed()
            if v.options[spec.name] != spec.default:
                note = f"changed from {spec.show(spec.default)}; {note}"
            lines.append(f"  {value:<{width}}  ({note})")
    lines += [""] + _deck_lines(v)
    lines += ["", "Trump",
              f"  choices: {', '.join(suit_label(t) for t in v.trump_choices)}"]
    lines += _para(f"chosen by: {CHOOSER_TEXT.get(v.trump_chooser, v.trump_chooser)}")
    for section in (_ranking_lines, _deal_lines, _bidding_lines, _play_lines, _teams_lines,
                    _scoring_lines, _end_lines):
        lines += [""] + section(v)
    return "\n".join(lines)


def describe_variants(names: list[str] | None = None) -> str:
    """The `bidlab variants` listing: each game's title, player counts and options.

    names: the games to list, by shipped name (default: every shipped game).
    """
    lines: list[str] = []
    for name in shipped_variants() if names is None else names:
        v = load_variant(name)
        lo, hi = v.player_range
        count = f"{lo}" if lo == hi else f"{lo} to {hi}"
        lines.append(f"{name} — {v.title}")
        lines.append(f"  players: {count} (usually {v.usual_players})")
        lines.append("  options: none" if not v.option_specs
                     else "  options (--set option=value):")
        for spec in v.option_specs.values():
            setting = f"{spec.name}={spec.show(spec.default)}"
            lines.append(f"    {setting:<28} {spec.allowed()}")
            if spec.help:
                lines += _para(spec.help, margin=6, hang=0)
        lines.append("")
    return "\n".join(lines)


def _flat_rules(v: Variant) -> dict[str, str]:
    """Every fact the diff compares, as `where` → text: options, deck, schedule, each rule
    key, and each trump's ranking."""
    out: dict[str, str] = {"players": str(v.players)}
    for k, value in sorted(v.options.items()):
        out[f"option {k}"] = v.option_specs[k].show(value)
    out["deck"] = " ".join(v.deck)
    out["hand sizes"] = " ".join(str(h) for h in v.schedule)
    for section, keys in v.rules.items():
        for key, value in keys.items():
            out[f"[{section}] {key}"] = str(value)
    return out


def _count(card: str, k: int) -> str:
    return f"{card} ×{k}" if k > 1 else card


def describe_diff(a: Variant, b: Variant) -> str:
    """What configuration b changes against a: every option, deck card, hand size and rule
    key that differs (a's value → b's value), then the lines of the full rules text that
    differ (`bidlab rules --diff A B`)."""
    fa, fb = _flat_rules(a), _flat_rules(b)
    lines = [f"A: {a.canonical}", f"B: {b.canonical}"]
    changed = [k for k in dict.fromkeys([*fa, *fb]) if fa.get(k) != fb.get(k)]
    if not changed:
        lines.append("no difference: B plays by the same rules as A")
        return "\n".join(lines)
    lines.append("")
    lines.append(f"What B changes ({len(changed)})")
    indent = max(24, max(len(k) for k in changed) + 5)
    for key in changed:
        if key == "deck":
            da, db = a.deck, b.deck
            gone = [_count(c, da.count(c) - db.count(c)) for c in dict.fromkeys(da)
                    if da.count(c) > db.count(c)]
            new = [_count(c, db.count(c) - da.count(c)) for c in dict.fromkeys(db)
                    if db.count(c) > da.count(c)]
            text = (f"{len(da)} → {len(db)} cards" + (f"; adds {' '.join(new)}" if new else "")
                    + (f"; removes {' '.join(gone)}" if gone else ""))
            lines += _wrap("  deck", text, indent=indent)
            continue
        lines += _wrap(f"  {key}", f"{fa.get(key, '(none)')} → {fb.get(key, '(none)')}",
                       indent=indent)
    ta, tb = describe_rules(a).splitlines(), describe_rules(b).splitlines()
    body = [line for line in difflib.unified_diff(ta, tb, "A", "B", n=0, lineterm="")
            if not line.startswith(("---", "+++", "@@"))]
    if body:
        lines += ["", "The rules text, line by line (- A, + B)"] + [f"  {x}" for x in body]
    return "\n".join(lines)
