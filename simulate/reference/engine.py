"""Whole hands and whole games in plain Python, driven by policy callbacks: the oracle.

A hand runs: deal → trump → bids (or auction, widow, discard, going alone) → tricks → score.
Every choice goes through `policy.choose(kind, decision)` and is checked against the legal
options, so replaying a recorded list of decisions through `ScriptedPolicy` checks a hand
played elsewhere (the numba kernel) move by move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from simulate.rules import play as rules
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import NT
from simulate.rules.load import load_variant
from simulate.rules.variant import Variant

# Decision kinds, in the order a hand asks for them.
TRUMP, BID, AUCTION, DISCARD, ALONE, DEFEND_ALONE, PLAY, SPEND_STAR = (
    "trump", "bid", "auction", "discard", "alone", "defend_alone", "play", "spend_star")


class IllegalDecision(Exception):
    """A scripted decision that the rules do not allow, or that comes out of turn."""


@dataclass(frozen=True)
class SeatView:
    """What one seat may know when it decides, and nothing more (RULES.md: hands are
    private; a turned-up card, face-up leftovers, played cards, tricks taken and public
    bids are seen by all). Built fresh for every decision from copies, so a policy can
    neither read another seat's cards nor change the hand being played.

    bids: the bids this seat has heard, by seat (sequential bidding: the earlier seats';
    simultaneous bidding: none until every bid is placed, then all of them); trump: None
    while the seat may not know it yet. widow and discards: only for the maker who took
    the widow (the cards it picked up and put away)."""

    v: Variant
    seat: int
    hand_size: int
    round_index: int | None
    hand: tuple[int, ...]
    trump: int | None
    bids: tuple[tuple[int, int], ...]
    auction: tuple[tuple[int, int], ...]
    turn_up: int | None
    face_up: tuple[int, ...]
    maker: int | None
    contract: int
    alone: int | None
    defender_alone: int | None
    sitting_out: frozenset[int]
    trick: tuple[tuple[int, int, bool], ...]
    played: tuple[tuple[int, int, bool], ...]
    tricks: tuple[int, ...]
    trump_broken: bool
    widow: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()


@dataclass
class Decision:
    """What a policy is asked: `options` are the legal answers; `hand` its own cards;
    `view` everything else its seat may know (see SeatView)."""

    kind: str
    seat: int
    options: list[Any]
    hand: list[int]
    view: SeatView
    points: int = 0          # spend_star: the points the unit took this hand
    stars: int = 0           # spend_star: the stars the unit holds


class Policy(Protocol):
    """Anything that answers decisions: returns one of `decision.options`."""

    def choose(self, kind: str, decision: Decision) -> Any:
        """The answer to one decision of kind `kind` (trump, bid, ..., play, spend_star)."""
        ...


class RandomPolicy:
    """Uniform over the legal options of every decision."""

    name = "random"

    def __init__(self, seed: int | random.Random = 0) -> None:
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)

    def choose(self, kind: str, decision: Decision) -> Any:
        """One of `decision.options` (see the class)."""
        return self.rng.choice(decision.options)


class StarThreshold:
    """Wraps a policy; spends a Horseshoes star when the hand's points reach `threshold`
    (the stars rule, A-HS-9). Every other decision goes to the wrapped policy."""

    def __init__(self, inner: Policy, threshold: int = 2) -> None:
        self.inner, self.threshold = inner, threshold

    def choose(self, kind: str, decision: Decision) -> Any:
        """One of `decision.options` (see the class)."""
        if kind == SPEND_STAR:
            return decision.points >= self.threshold
        return self.inner.choose(kind, decision)


class ScriptedPolicy:
    """Answers from a recorded decision list; raises IllegalDecision on any deviation."""

    def __init__(self, decisions: Sequence[tuple[str, int, Any]]) -> None:
        self.decisions = list(decisions)
        self.position = 0

    def choose(self, kind: str, decision: Decision) -> Any:
        """One of `decision.options` (see the class)."""
        if self.position >= len(self.decisions):
            raise IllegalDecision(f"decision {self.position}: the record ends but the rules ask "
                                  f"seat {decision.seat} for {kind}")
        want_kind, want_seat, value = self.decisions[self.position]
        if (want_kind, want_seat) != (kind, decision.seat):
            raise IllegalDecision(
                f"decision {self.position}: recorded {want_kind} by seat {want_seat}, but the "
                f"rules ask seat {decision.seat} for {kind}")
        if value not in decision.options:
            raise IllegalDecision(
                f"decision {self.position}: {kind} {value!r} by seat {decision.seat} is illegal; "
                f"legal: {decision.options}")
        self.position += 1
        return value


@dataclass
class HandState:
    """Everything a hand has settled so far (what a policy sees through its Decision)."""

    v: Variant
    hand_size: int
    round_index: int | None
    hands: list[list[int]]
    widow: list[int]
    stock: list[int]
    trump: int = NT
    bids: list[int] = field(default_factory=list)
    auction: list[tuple[int, int]] = field(default_factory=list)
    maker: int | None = None
    contract: int = 0
    alone: int | None = None
    defender_alone: int | None = None
    sitting_out: set[int] = field(default_factory=set)
    trick: list[tuple[int, int, bool]] = field(default_factory=list)   # (seat, card, low)
    played: list[tuple[int, int, bool]] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    trump_broken: bool = False
    kings_fooled: list[int] = field(default_factory=list)
    captured: dict[str, int | None] = field(default_factory=dict)
    decisions: list[tuple[str, int, Any]] = field(default_factory=list)
    trump_known: bool = False      # has trump been named or turned up (for everyone)?
    bids_heard: list[tuple[int, int]] = field(default_factory=list)   # public bids, in order
    turn_up: int | None = None


def seat_view(st: HandState, seat: int, blind: bool = False) -> SeatView:
    """The part of the hand state `seat` may know (see SeatView); blind: the seat has not
    looked at its hand yet (a Hoffer dealer naming trump before looking)."""
    v = st.v
    face_up = tuple(st.stock) if v.options.get("face_up_leftovers") else ()
    took_widow = st.maker == seat and v.bidding_form == "auction"
    discards = tuple(c for k, s, c in st.decisions if k == DISCARD and s == seat)
    return SeatView(v, seat, st.hand_size, st.round_index, () if blind else tuple(st.hands[seat]),
                    st.trump if st.trump_known else None, tuple(st.bids_heard),
                    tuple(st.auction), st.turn_up, face_up, st.maker, st.contract, st.alone,
                    st.defender_alone, frozenset(st.sitting_out), tuple(st.trick),
                    tuple(st.played), tuple(st.tricks), st.trump_broken,
                    tuple(st.widow) if took_widow else (), discards if took_widow else ())


@dataclass
class HandRecord:
    """A played hand: the deal, every decision in order, and the outcome."""

    hand_size: int
    round_index: int | None
    hands: list[list[int]]
    widow: list[int]
    stock: list[int]
    decisions: list[tuple[str, int, Any]]
    trump: int
    bids: list[int]
    tricks: list[int]
    scores: list[int]
    kings_fooled: list[int]
    captured: dict[str, int | None]
    maker: int | None = None
    contract: int = 0
    alone: int | None = None
    voided: bool = False

    def outcome(self) -> dict[str, Any]:
        """The hand's result as a plain dict: trump, bids, tricks, scores, events, maker."""
        return {"trump": self.trump, "bids": self.bids, "tricks": self.tricks,
                "scores": self.scores, "kings_fooled": self.kings_fooled,
                "captured": self.captured, "maker": self.maker, "contract": self.contract,
                "alone": self.alone, "voided": self.voided}


def deal(v: Variant, hand_size: int, rng: random.Random,
         fixed: dict[int, list[int]] | None = None) -> tuple[list[list[int]], list[int], list[int]]:
    """Shuffle and deal: hands by seat, the widow, and the undealt stock (top card first)."""
    v.check_hand_size(hand_size)
    fixed = fixed or {}
    pinned = {c for cards in fixed.values() for c in cards}
    pool = [c for c in range(len(v.cards)) if c not in pinned]
    rng.shuffle(pool)
    hands = []
    for seat in range(v.players):
        if seat in fixed:
            hands.append(sorted(fixed[seat]))
        else:
            hands.append(sorted(pool[:hand_size]))
            del pool[:hand_size]
    widow_n = int(v.rule("deal.widow", 0) or 0)
    widow, stock = pool[:widow_n], pool[widow_n:]
    return hands, widow, stock


def _ask(policies: Sequence[Policy], st: HandState, kind: str, seat: int,
         options: list[Any], blind: bool = False) -> Any:
    if not options:
        raise AssertionError(f"no legal {kind} for seat {seat}")
    hand = [] if blind else list(st.hands[seat])
    choice = policies[seat].choose(kind, Decision(kind, seat, list(options), hand,
                                                  seat_view(st, seat, blind)))
    if choice not in options:
        raise IllegalDecision(f"{kind} {choice!r} by seat {seat} is not legal; legal: {options}")
    st.decisions.append((kind, seat, choice))
    return choice


def _trump_options(v: Variant) -> list[int]:
    return [TRUMP_NAMES.index(t) for t in v.trump_choices]


def play_hand(v: Variant, hand_size: int, hands: list[list[int]], widow: list[int],
              stock: list[int], policies: Sequence[Policy],
              round_index: int | None = None) -> HandRecord:
    """Play one dealt hand through `policies` (one per seat) and record every decision.

    hands, widow, stock: the deal (deck indices); round_index: the round in the game's
    schedule (for bid constraints that bind only some rounds).
    """
    n = v.players
    st = HandState(v, hand_size, round_index, [sorted(h) for h in hands], list(widow),
                   list(stock), bids=[0] * n, tricks=[0] * n, kings_fooled=[0] * n,
                   captured={e.name: None for e in v.events})
    chooser = v.trump_chooser
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    order = [(first + i) % n for i in range(n)]

    if chooser == "fixed":
        st.trump = TRUMP_NAMES.index(v.trump_choices[0])
        st.trump_known = True
    elif chooser == "turn_up":
        top = st.stock[0] if st.stock else None
        card = v.cards.cards[top] if top is not None else None
        st.trump = card.suit if card is not None and not card.special else NT
        st.turn_up = top
        st.trump_known = True
    elif chooser == "dealer":
        # the dealer may have to name trump before looking at its hand (trump.before_looking)
        st.trump = _ask(policies, st, TRUMP, n - 1, _trump_options(v),
                        blind=bool(v.rule("trump.before_looking")))
        st.trump_known = True

    if v.bidding_form == "auction":
        if not _auction(v, st, policies, order):
            return _record(st, voided=True)
    else:
        _bids(v, st, policies, order, round_index)

    _play_tricks(v, st, policies)
    scores = rules.score_units(v, st.bids, st.tricks, hand_size, st.kings_fooled, st.captured,
                               st.alone)
    return _record(st, scores=scores)


def _bids(v: Variant, st: HandState, policies: Sequence[Policy], order: list[int],
          round_index: int | None) -> None:
    """Per-player bids in turn from the first bidder. Sequential bids are heard as they are
    made (and bound by the hook or Max Bet); simultaneous bids are revealed together once
    every seat has bid, so no seat hears another's bid before its own."""
    active = rules.constraint_active(v, round_index)
    simultaneous = v.bidding_form == "simultaneous"
    placed: list[int] = []
    for seat in order:
        if v.trump_chooser == "first_bidder" and seat == order[0]:
            st.trump = _ask(policies, st, TRUMP, seat, _trump_options(v))
            st.trump_known = True
        options = rules.legal_bids(v, st.hand_size, [] if simultaneous else placed, active)
        bid = _ask(policies, st, BID, seat, options)
        placed.append(bid)
        st.bids[seat] = bid
        if not simultaneous:
            st.bids_heard.append((seat, bid))
    if simultaneous:
        st.bids_heard.extend((seat, st.bids[seat]) for seat in order)


def _auction(v: Variant, st: HandState, policies: Sequence[Policy], order: list[int]) -> bool:
    """Run the auction, widow and discard. False when the hand is thrown in."""
    n = v.players
    high, high_seat = 0, None
    passed: set[int] = set()
    i = 0
    while True:
        if high_seat is not None and len(passed) == n - 1:
            break
        if len(passed) == n:
            break
        seat = order[i % n]
        i += 1
        if seat in passed:
            continue
        action = _ask(policies, st, AUCTION, seat, rules.legal_auction_actions(v, high))
        st.auction.append((seat, action))
        if action == 0:
            passed.add(seat)
        else:
            high, high_seat = action, seat
    if high_seat is None:
        mode = v.rule("bidding.all_pass", "redeal")
        if mode == "redeal":
            return False
        if mode == "joker_holder":
            card_name = v.rule("bidding.all_pass_card")
            holders = [s for s in range(n) for c in st.hands[s] if v.cards.names[c] == card_name]
            if not holders:
                return False
            high_seat = holders[0]
            high = _ladder_step_for(v, int(v.rule("bidding.all_pass_bid", 3)))
        else:
            high_seat = n - 1
            high = _ladder_step_for(v, int(v.rule("bidding.stick_dealer_min", 1)))
    maker = high_seat
    st.maker, st.contract = maker, high
    st.bids[maker] = high
    st.hands[maker] = sorted(st.hands[maker] + st.widow)
    st.trump = _ask(policies, st, TRUMP, maker, _trump_options(v))
    st.trump_known = True
    for _ in range(int(v.rule("deal.discard", 0) or 0)):
        card = _ask(policies, st, DISCARD, maker, sorted(st.hands[maker]))
        st.hands[maker].remove(card)
    step = v.ladder[high - 1]
    go_alone = step.alone
    if not go_alone and v.rule("bidding.allow_alone"):
        go_alone = _ask(policies, st, ALONE, maker, [False, True])
    if go_alone:
        st.alone = maker
        partner_seats = [s for s in range(n) if s != maker and v.team_of(s) == v.team_of(maker)]
        st.sitting_out.update(partner_seats)
        if v.rule("bidding.allow_alone"):
            for k in range(1, n):
                seat = (maker + k) % n
                if v.team_of(seat) == v.team_of(maker):
                    continue
                if _ask(policies, st, DEFEND_ALONE, seat, [False, True]):
                    st.defender_alone = seat
                    st.sitting_out.update(s for s in range(n) if s != seat
                                          and v.team_of(s) == v.team_of(seat))
                    break
    return True


def _ladder_step_for(v: Variant, tricks: int) -> int:
    for k, step in enumerate(v.ladder, start=1):
        if step.tricks >= tricks:
            return k
    return len(v.ladder)


def _first_leader(v: Variant, st: HandState) -> int:
    n = v.players
    if st.defender_alone is not None:
        return st.defender_alone
    if st.alone is not None:
        return (st.alone + 1) % n if (st.alone + 1) % n not in st.sitting_out else (st.alone + 2) % n
    lead = v.rule("play.first_lead", "1")
    if lead == "maker" and st.maker is not None:
        return st.maker
    seat = v.seat_of_offset(int(lead) if lead != "maker" else 1)
    while seat in st.sitting_out:
        seat = (seat + 1) % n
    return seat


def _play_tricks(v: Variant, st: HandState, policies: Sequence[Policy]) -> None:
    n = v.players
    leader = _first_leader(v, st)
    active = [s for s in range(n) if s not in st.sitting_out]
    for _ in range(st.hand_size):
        st.trick = []
        seat = leader
        while len(st.trick) < len(active):
            if seat not in st.sitting_out:
                plays = rules.legal_plays(v, st.hands[seat], [(c, lo) for _, c, lo in st.trick],
                                          st.trump, st.trump_broken)
                card, low = _ask(policies, st, PLAY, seat, plays)
                st.hands[seat].remove(card)
                st.trick.append((seat, card, low))
                st.played.append((seat, card, low))
            seat = (seat + 1) % n
        for _, card, _ in st.trick:
            if st.trump != NT and rules.eff_suit(v, card, st.trump) == st.trump:
                st.trump_broken = True
        idx, fooled = rules.trick_winner(v, [(c, lo) for _, c, lo in st.trick], st.trump)
        winner = st.trick[idx][0]
        st.tricks[winner] += 1
        if fooled:
            st.kings_fooled[winner] += 1
        for event in v.events:
            if any(card == event.card for _, card, _ in st.trick):
                st.captured[event.name] = winner
        leader = winner


def _record(st: HandState, scores: list[int] | None = None, voided: bool = False) -> HandRecord:
    n = st.v.players
    return HandRecord(st.hand_size, st.round_index, [list(h) for h in st.hands] if voided else
                      _initial_hands(st), st.widow, st.stock, st.decisions, st.trump,
                      st.bids, st.tricks, scores if scores is not None else [0] * n,
                      st.kings_fooled, st.captured, st.maker, st.contract, st.alone, voided)


def _initial_hands(st: HandState) -> list[list[int]]:
    """The dealt hands, rebuilt from what was played (the widow exchange undone)."""
    hands = [sorted(h) for h in st.hands]
    for seat, card, _ in st.played:
        hands[seat].append(card)
    if st.maker is not None:
        hands[st.maker].extend(c for k, s, c in st.decisions if k == DISCARD)
        hands[st.maker] = [c for c in hands[st.maker] if c not in st.widow]
    return [sorted(h) for h in hands]


def simulate_hand(v: Variant, hand_size: int, policies: Sequence[Policy], rng: random.Random,
                  round_index: int | None = None) -> HandRecord:
    """Deal a hand of `hand_size` from `rng` and play it (see play_hand)."""
    hands, widow, stock = deal(v, hand_size, rng)
    return play_hand(v, hand_size, hands, widow, stock, policies, round_index)


def replay_hand(v: Variant, record: HandRecord) -> list[str]:
    """Replay a recorded hand; return the problems found (empty when it matches exactly)."""
    problems: list[str] = []
    dealt = sorted(c for h in record.hands for c in h) + sorted(record.widow) + \
        sorted(record.stock)
    if sorted(dealt) != list(range(len(v.cards))):
        problems.append("the deal does not account for every card exactly once")
        return problems
    if any(len(h) != record.hand_size for h in record.hands):
        problems.append(f"a hand does not hold {record.hand_size} cards")
        return problems
    # Star spending is a game-level decision that play_game appends after the hand; a hand
    # replay checks only the decisions the hand itself asks for.
    in_hand = [d for d in record.decisions if d[0] != SPEND_STAR]
    script = ScriptedPolicy(in_hand)
    try:
        again = play_hand(v, record.hand_size, record.hands, record.widow, record.stock,
                          [script] * v.players, record.round_index)
    except IllegalDecision as exc:
        return [str(exc)]
    if script.position != len(in_hand):
        problems.append(f"{len(in_hand) - script.position} recorded decisions left over")
    mine, theirs = again.outcome(), record.outcome()
    for key, value in mine.items():
        if theirs[key] != value:
            problems.append(f"{key}: recorded {theirs[key]!r}, reference {value!r}")
    return problems


# ----- whole games -----------------------------------------------------------------------

@dataclass
class GameRecord:
    """A whole game: every hand's record, the totals and how the game ended."""

    first_dealer: int
    hands: list[HandRecord]
    dealers: list[int]
    totals: list[int]            # by absolute seat
    winners: list[int]           # absolute seats (all members of a winning team)
    rounds: int
    stars: list[int]
    tiebreak_rounds: int = 0


def _units(v: Variant) -> list[list[int]]:
    if v.teams:
        return [[s for s in range(v.players) if s % v.teams == t] for t in range(v.teams)]
    return [[s] for s in range(v.players)]


def _leaders(v: Variant, totals: list[int], among: list[list[int]]) -> list[list[int]]:
    values = [totals[u[0]] for u in among]
    best = max(values) if v.rule("end.better", "higher") == "higher" else min(values)
    return [u for u, x in zip(among, values, strict=True) if x == best]


Deals = Callable[[int], tuple[list[list[int]], list[int], list[int]]]


def play_game(v: Variant, policies: Sequence[Policy], rng: random.Random,
              first_dealer: int = 0, max_hands: int = 10_000,
              deals: Deals | None = None) -> GameRecord:
    """A whole game by absolute seats; the dealer passes left after every hand.

    `deals(k)` gives hand k's deal (hands by relative seat, widow, stock) instead of
    shuffling with `rng`: replay_game uses it to replay a recorded game."""
    n = v.players
    totals = [0] * n
    stars = [0] * n
    hands: list[HandRecord] = []
    dealers: list[int] = []
    units = _units(v)
    star_rule = v.rule("scoring.stars") or {}
    stars_on = bool(star_rule.get("enabled"))
    end_rule = v.rule("end.rule")
    winners: list[int] = []
    tiebreaks = 0

    def play_round(size: int, round_index: int | None) -> HandRecord:
        dealer = (first_dealer + len(hands)) % n
        rel = [policies[(dealer + 1 + s) % n] for s in range(n)]   # relative seat → policy
        if deals is None:
            rec = simulate_hand(v, size, rel, rng, round_index)
        else:
            dealt, widow, stock = deals(len(hands))
            rec = play_hand(v, size, dealt, widow, stock, rel, round_index)
        hands.append(rec)
        dealers.append(dealer)
        for s in range(n):
            totals[(dealer + 1 + s) % n] += rec.scores[s]
        if stars_on and not rec.voided:
            _stars(v, rec, dealer, rel, totals, stars, units)
        return rec

    if end_rule == "schedule":
        for r, size in enumerate(v.schedule):
            play_round(size, r)
        leaders = _leaders(v, totals, units)
        if len(leaders) > 1 and v.rule("end.tiebreak", "none") == "river":
            peak = max(v.schedule)
            size, step = 2, 1
            cap = int(v.rule("end.tiebreak_cap", 50))
            tied_only = v.rule("end.tiebreak_participants", "all") == "tied_only" and not v.teams
            while len(leaders) > 1 and tiebreaks < cap:
                if tied_only and len(leaders) < n:
                    _tied_round(v, policies, rng, first_dealer + len(hands), min(size, peak),
                                sorted(s for u in leaders for s in u), totals, hands, dealers,
                                deals)
                else:
                    play_round(min(size, peak), None)
                tiebreaks += 1
                if size >= peak:
                    step = -1
                elif size <= 1:
                    step = 1
                size += step
                leaders = _leaders(v, totals, units)
        winners = sorted(s for u in leaders for s in u)
    else:
        target = int(v.rule("end.target"))
        size = v.schedule[0]
        while len(hands) < max_hands:
            rec = play_round(size, 0)
            if stars_on:
                starred = [u for u in units if stars[u[0]] >= int(star_rule.get("win_at", 5))]
                if starred:
                    winners = sorted(s for u in _leaders(v, totals, starred) for s in u)
                    break
            reached = [u for u in units if totals[u[0]] >= target]
            if reached:
                if v.rule("end.better") == "lower":
                    winners = sorted(s for u in _leaders(v, totals, units) for s in u)
                else:
                    best = _leaders(v, totals, reached)
                    if len(best) > 1 and v.rule("end.ties", "shared") == "makers" and \
                            rec.maker is not None:
                        dealer = dealers[-1]
                        maker_abs = (dealer + 1 + rec.maker) % n
                        best = [u for u in best if maker_abs in u] or best
                    winners = sorted(s for u in best for s in u)
                break
    if not winners and len(hands) >= max_hands:
        winners = sorted(s for u in _leaders(v, totals, units) for s in u)  # safety cap reached
    return GameRecord(first_dealer, hands, dealers, totals, winners, len(hands), stars, tiebreaks)


def replay_game(v: Variant, records: Sequence[HandRecord],
                max_hands: int = 10_000) -> tuple[GameRecord | None, list[str]]:
    """Replay a recorded whole game (first dealer: seat n-1, so seat 0 is on its left):
    the recorded deals, and every decision in order, star spending included.

    Returns the reference's game and the problems found (empty when every decision was
    legal and in turn, and each hand's outcome matches its record)."""
    script = ScriptedPolicy([d for r in records for d in r.decisions])
    n = v.players

    def deals(k: int) -> tuple[list[list[int]], list[int], list[int]]:
        if k >= len(records):
            raise IllegalDecision(f"the record holds {len(records)} hands but the game goes on")
        r = records[k]
        return r.hands, r.widow, r.stock

    try:
        game = play_game(v, [script] * n, random.Random(0), first_dealer=n - 1,
                         max_hands=max_hands, deals=deals)
    except IllegalDecision as exc:
        return None, [str(exc)]
    problems: list[str] = []
    if script.position != len(script.decisions):
        problems.append(f"{len(script.decisions) - script.position} recorded decisions left over")
    if game.rounds != len(records):
        problems.append(f"the reference game lasted {game.rounds} hands, the record "
                        f"{len(records)}")
    for k, (mine, theirs) in enumerate(zip(game.hands, records, strict=False)):
        a, b = mine.outcome(), theirs.outcome()
        for key, value in a.items():
            if b[key] != value:
                problems.append(f"hand {k} {key}: recorded {b[key]!r}, reference {value!r}")
    return game, problems


def _tied_round(v: Variant, policies: Sequence[Policy], rng: random.Random, turn: int,
                size: int, tied: list[int], totals: list[int], hands: list[HandRecord],
                dealers: list[int], deals: Deals | None = None) -> None:
    """A tie-break round for the tied players only (tiebreak_participants=tied_only).

    The deal passes left as usual; the tied players sit in their clockwise order from the
    dealer's left, and the last of them deals this smaller hand. The hand's record holds
    only their seats, so it replays with the same game loaded for len(tied) players.
    """
    n = v.players
    dealer = turn % n
    order = [(dealer + 1 + k) % n for k in range(n)]
    seats = [a for a in order if a in tied]
    sub = load_variant(v.path, players=len(seats), **v.options)
    if deals is None:
        rec = simulate_hand(sub, size, [policies[a] for a in seats], rng, None)
    else:
        dealt, widow, stock = deals(len(hands))
        rec = play_hand(sub, size, dealt, widow, stock, [policies[a] for a in seats], None)
    hands.append(rec)
    dealers.append(seats[-1])
    for rel, a in enumerate(seats):
        totals[a] += rec.scores[rel]


def _stars(v: Variant, rec: HandRecord, dealer: int, rel: Sequence[Policy], totals: list[int],
           stars: list[int], units: list[list[int]]) -> None:
    """Stars: a star per exact unit; then a unit that scored may spend one to score 0."""
    n = v.players
    abs_of = [(dealer + 1 + s) % n for s in range(n)]
    rel_of = {a: s for s, a in enumerate(abs_of)}
    for unit in units:
        rs = [rel_of[a] for a in unit]
        if sum(rec.bids[s] for s in rs) == sum(rec.tricks[s] for s in rs):
            for a in unit:
                stars[a] += 1
    for unit in units:
        lead_rel = min(rel_of[a] for a in unit)
        points = rec.scores[lead_rel]
        if points > 0 and stars[unit[0]] > 0:
            st = HandState(v, rec.hand_size, None, [[] for _ in range(n)], [], [],
                           rec.trump, list(rec.bids), tricks=list(rec.tricks),
                           trump_known=True,
                           bids_heard=[(s, rec.bids[s]) for s in range(n)])
            decision = Decision(SPEND_STAR, lead_rel, [False, True], [],
                                seat_view(st, lead_rel), points, stars[unit[0]])
            if rel[lead_rel].choose(SPEND_STAR, decision):
                rec.decisions.append((SPEND_STAR, lead_rel, True))
                for a in unit:
                    stars[a] -= 1
                    totals[a] -= points
            else:
                rec.decisions.append((SPEND_STAR, lead_rel, False))
