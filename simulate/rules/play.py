"""The rules of one trick, one bid and one hand's score, written for reading, not for speed.

Cards are deck indices; a play is (card, ace_low). Everything is driven by the Variant's
resolved rules and its per-trump tables of effective suit, power and mechanic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from simulate.errors import BidlabInputError
from simulate.rules.cards import split_cards
from simulate.rules.codes import ALWAYS_WINS, FOOLS_KING, LAST_PLAYED_WINS, NT, TRUMP_BASE, WINS_IF_LED
from simulate.rules.expr import evaluate

if TYPE_CHECKING:   # the Variant calls these functions; they only read its tables
    from simulate.rules.variant import Variant

Play = tuple[int, bool]  # (card index, declared low) — only Aces under ace_choice are low


def eff_suit(v: Variant, card: int, trump: int) -> int:
    """The suit `card` counts as under `trump` (0..3; -1 for a suitless special)."""
    return v.eff_suit_table[trump][card]


def mechanic(v: Variant, card: int, trump: int) -> int:
    """The Mechanic code of `card` under `trump`."""
    return v.mechanic_table[trump][card]


def is_ace(v: Variant, card: int) -> bool:
    """Whether `card` is a natural Ace."""
    c = v.cards.cards[card]
    return not c.special and c.rank == 14


def power(v: Variant, play: Play, trump: int) -> int:
    """The order of a play within its effective suit (trumps above TRUMP_BASE)."""
    card, low = play
    if low:  # an Ace declared low sits below every card of its effective suit
        return (TRUMP_BASE if eff_suit(v, card, trump) == trump else 0) - 1
    return v.power_table[trump][card]


# ----- legal moves -----------------------------------------------------------------------

def led_suit(v: Variant, trick: Sequence[Play], trump: int) -> int | None:
    """The eff suit of the first suited card; None while only suitless cards are down."""
    for card, _ in trick:
        s = eff_suit(v, card, trump)
        if s >= 0:
            return s
    return None


def legal_cards(v: Variant, hand: Sequence[int], trick: Sequence[Play], trump: int,
                trump_broken: bool = False) -> list[int]:
    """The cards of `hand` that may be played to `trick`: follow the led suit (wild cards
    always may), anything when void, and no trump lead before trump is broken if so ruled."""
    if not trick:
        if v.rule("play.breaking_trump") and trump != NT and not trump_broken:
            non_trumps = [c for c in hand if eff_suit(v, c, trump) != trump]
            if non_trumps:
                return non_trumps
        return list(hand)
    if mechanic(v, trick[0][0], trump) == WINS_IF_LED:
        return list(hand)  # a led Horseshoes joker frees everyone from following
    ls = led_suit(v, trick, trump)
    if ls is None:
        return list(hand)
    follow = [c for c in hand if eff_suit(v, c, trump) == ls]
    if not follow:
        return list(hand)
    return follow + [c for c in hand if v.wild[c] and c not in follow]


def legal_plays(v: Variant, hand: Sequence[int], trick: Sequence[Play], trump: int,
                trump_broken: bool = False) -> list[Play]:
    """legal_cards as plays, with each Ace twice (high and low) under ace_choice."""
    plays: list[Play] = []
    for c in legal_cards(v, hand, trick, trump, trump_broken):
        plays.append((c, False))
        if v.rule("ranking.ace_choice") and is_ace(v, c):
            plays.append((c, True))
    return plays


# ----- trick winner ----------------------------------------------------------------------

def trick_winner(v: Variant, trick: Sequence[Play], trump: int) -> tuple[int, bool]:
    """(index into the trick of the winner, whether a King was fooled).

    Precedence: a led wins_if_led card; the last last_played_wins card; the first
    always_wins card; otherwise the highest trump, else the highest card of the led suit
    among suited cards — unless that card is foolable and a fools_king card is in the
    trick, when the first such card wins. A trick of suitless losers goes to its first card.
    """
    mechs = [mechanic(v, c, trump) for c, _ in trick]
    if mechs[0] == WINS_IF_LED:
        return 0, False
    last = [i for i, m in enumerate(mechs) if m == LAST_PLAYED_WINS]
    if last:
        return last[-1], False
    always = [i for i, m in enumerate(mechs) if m == ALWAYS_WINS]
    if always:
        return always[0], False
    suited = [i for i, (c, _) in enumerate(trick) if eff_suit(v, c, trump) >= 0]
    fools = [i for i, m in enumerate(mechs) if m == FOOLS_KING]
    if not suited:
        return 0, False
    ls = eff_suit(v, trick[suited[0]][0], trump)
    trumps = [i for i in suited if trump != NT and eff_suit(v, trick[i][0], trump) == trump]
    contenders = trumps or [i for i in suited if eff_suit(v, trick[i][0], trump) == ls]
    best = max(contenders, key=lambda i: power(v, trick[i], trump))
    if fools and v.foolable[trick[best][0]]:
        return fools[0], True
    return best, False


# ----- bids ------------------------------------------------------------------------------

def constraint_active(v: Variant, round_index: int | None) -> bool:
    """Whether the bid constraint binds in round `round_index` (None: any round, so yes)."""
    if v.rule("bidding.constraint", "none") == "none":
        return False
    if round_index is None:
        return True
    return v.constrained_rounds[round_index % len(v.schedule)]


def legal_bids(v: Variant, hand_size: int, bids_so_far: Sequence[int],
               active: bool = True) -> list[int]:
    """Sequential and simultaneous bids (0..h under the hook or Max Bet); auctions separately."""
    every = list(range(hand_size + 1))
    if v.bidding_form == "simultaneous" or not active:
        return every
    constraint = v.rule("bidding.constraint", "none")
    last = len(bids_so_far) == v.players - 1
    total = sum(bids_so_far)
    if constraint == "hook" and last:
        return [b for b in every if total + b != hand_size]
    if constraint == "max_bet":
        rest = hand_size - total
        return [rest] if last else list(range(0, rest + 1))
    return every


def legal_auction_actions(v: Variant, high: int) -> list[int]:
    """0 is pass; k >= 1 is the k-th ladder step; any step above the standing high bid."""
    return [0] + [k for k in range(1, len(v.ladder) + 1) if k > high]


# ----- scoring ---------------------------------------------------------------------------

def _formula(v: Variant, key: str, bid: int, took: int, h: int) -> int:
    text = v.rule(f"scoring.{key}")
    return int(evaluate(str(text), {"bid": bid, "took": took, "h": h, **v.option_env},
                        f"[scoring] {key}"))


def bids_base_score(v: Variant, bid: int, took: int, h: int) -> int:
    """A unit's score for `took` tricks on `bid` in a hand of `h`, before events and bonuses."""
    if took == bid:
        key = "exact_zero" if bid == 0 and v.rule("scoring.exact_zero") is not None else "exact"
    elif bid == 0 and v.rule("scoring.missed_zero") is not None:
        key = "missed_zero"
    else:
        key = "over" if took > bid else "under"
    return _formula(v, key, bid, took, h)


def score_units(v: Variant, bids: Sequence[int], tricks: Sequence[int], h: int,
                kings_fooled: Sequence[int], captured: Mapping[str, int | None],
                alone: int | None = None) -> list[int]:
    """One score per seat (partners share their unit's score)."""
    n = v.players
    unit_of = [v.team_of(s) for s in range(n)]
    units = sorted(set(unit_of))
    ubid = {u: sum(bids[s] for s in range(n) if unit_of[s] == u) for u in units}
    utook = {u: sum(tricks[s] for s in range(n) if unit_of[s] == u) for u in units}
    score: dict[int, int] = {}
    if v.is_contract:
        makers = [u for u in units if ubid[u] > 0]
        for u in units:
            if u in makers:
                step = v.ladder[ubid[u] - 1]
                mult = step.multiplier
                if alone is not None and unit_of[alone] == u:
                    mult *= int(v.rule("scoring.alone_multiplier", 1))
                key = "made" if utook[u] >= step.tricks else "failed"
                score[u] = mult * _formula(v, key, step.tricks, utook[u], h)
            else:
                score[u] = _formula(v, "defenders", 0, utook[u], h) \
                    if v.rule("scoring.defenders") is not None else 0
        return [score[unit_of[s]] for s in range(n)]

    exact = {u: ubid[u] == utook[u] for u in units}
    for u in units:
        score[u] = bids_base_score(v, ubid[u], utook[u], h)
    if all(exact.values()):
        stars = v.rule("scoring.stars") or {}
        if stars.get("enabled"):
            score = {u: 0 for u in units}
        elif v.rule("scoring.everyone_exact") is not None:
            score = {u: _formula(v, "everyone_exact", ubid[u], utook[u], h) for u in units}
    fool = v.rule("scoring.fool_bonus") or {}
    zeroed: set[int] = set()
    granted: set[int] = set()  # units a Frilly as_exact scored as if made (A-HJ-6)
    for s in range(n):
        u = unit_of[s]
        if kings_fooled[s] and (not fool.get("requires_exact") or exact[u]):
            score[u] += int(fool.get("points", 0)) * kings_fooled[s]
    for event in v.events:
        who = captured.get(event.name)
        if who is None:
            continue
        u = unit_of[who]
        if event.effect == "add":
            score[u] += event.points
        elif event.effect == "lose_bonus" and exact[u]:
            score[u] += _formula(v, "over", ubid[u], utook[u], h) - \
                bids_base_score(v, ubid[u], utook[u], h)
        elif event.effect == "lose_bonus" and u in granted:
            # Beanie is applied last (A-HJ-7): it also takes back a bonus Frilly granted
            score[u] += _formula(v, "over", utook[u], utook[u], h) - \
                _formula(v, "exact", utook[u], utook[u], h)
        elif event.effect == "as_exact" and not exact[u]:
            score[u] += _formula(v, "exact", utook[u], utook[u], h) - \
                bids_base_score(v, ubid[u], utook[u], h)
            granted.add(u)
        elif event.effect == "zero_hand":
            zeroed.add(u)
    for u in zeroed:
        score[u] = 0
    return [score[unit_of[s]] for s in range(n)]


# ----- the public Variant methods (strings in, strings out) ------------------------------

def _trump(v: Variant, trump: str | int) -> int:
    return v.trump_index(trump)


def parse_trick(v: Variant, trick: Any, exclude: Sequence[int] = ()) -> list[Play]:
    """Card strings (an Ace may be marked ":low" or ":high") → plays, skipping `exclude`."""
    tokens = split_cards(trick)
    plays: list[Play] = []
    taken = list(exclude)
    for token in tokens:
        base, _, decl = token.partition(":")
        decl = decl.strip().lower()
        if decl not in ("", "high", "low"):
            raise BidlabInputError(f"trick: {token!r}: an Ace may be marked :high or :low only")
        (card,) = v.cards.parse_hand([base], "trick", exclude=taken)
        if decl == "low" and not (is_ace(v, card) and v.rule("ranking.ace_choice")):
            raise BidlabInputError(
                f"trick: {token!r}: only an Ace can be declared low, and only with aces=high_low")
        taken.append(card)
        plays.append((card, decl == "low"))
    return plays


def legal_moves_api(v: Variant, hand: Any, trick: Any, trump: str | int,
                    trump_broken: bool = False, **_: Any) -> list[str]:
    """Variant.legal_moves: card strings in, the legal cards' names out."""
    t = _trump(v, trump)
    plays = parse_trick(v, trick)
    cards = v.cards.parse_hand(hand, "hand", exclude=[c for c, _ in plays])
    return [v.cards.names[c] for c in legal_cards(v, cards, plays, t, trump_broken)]


def trick_winner_api(v: Variant, trick: Any, trump: str | int) -> int:
    """Variant.trick_winner: the position in the trick of the card that takes it."""
    plays = parse_trick(v, trick)
    if not plays:
        raise BidlabInputError("trick: no cards given")
    if len(plays) > v.players:
        raise BidlabInputError(f"trick: {len(plays)} cards but {v.players} players")
    return trick_winner(v, plays, _trump(v, trump))[0]


def legal_bids_api(v: Variant, hand_size: int, bids_so_far: Sequence[int],
                   round_index: int | None = None, high: int | None = None, **_: Any) -> list[int]:
    """Variant.legal_bids, with the arguments checked."""
    v.check_hand_size(hand_size)
    if v.bidding_form == "auction":
        standing = max([0, *bids_so_far]) if high is None else high
        return legal_auction_actions(v, standing)
    if len(bids_so_far) >= v.players:
        raise BidlabInputError(f"bids so far: {len(bids_so_far)} bids but {v.players} players")
    for b in bids_so_far:
        if not isinstance(b, int) or not 0 <= b <= hand_size:
            raise BidlabInputError(f"bids so far: {b!r} is not a bid from 0 to {hand_size}")
    return legal_bids(v, hand_size, bids_so_far, constraint_active(v, round_index))


def score_hand_api(v: Variant, bids: Sequence[int], tricks: Sequence[int], hand_size: int,
                   events: Mapping[str, Any] | None = None) -> list[int]:
    """Variant.score_hand, with the arguments checked."""
    n = v.players
    if len(bids) != n or len(tricks) != n:
        raise BidlabInputError(f"score_hand: need {n} bids and {n} trick counts")
    events = dict(events or {})
    kings = list(events.pop("kings_fooled", [0] * n))
    alone = events.pop("alone", None)
    captured: dict[str, int | None] = {}
    for e in v.events:
        who = events.pop(e.name, None)
        if isinstance(who, (list, tuple)):
            who = next((i for i, x in enumerate(who) if x), None)
        captured[e.name] = who
    if events:
        allowed = ["kings_fooled", "alone", *[e.name for e in v.events]]
        raise BidlabInputError(f"score_hand: unknown event(s) {', '.join(events)}; "
                               f"allowed: {', '.join(allowed)}")
    return score_units(v, list(bids), list(tricks), hand_size, kings, captured, alone)

