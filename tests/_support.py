"""Shared helpers for the rules-layer tests: cached variants, policies, hand checks, JSON traces.

Seats in a HandRecord are relative to the dealer: 0 = dealer's left, n-1 = dealer.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from functools import cache
from typing import Any

from _oracle import Oracle

import simulate as sim
from simulate.reference.engine import AUCTION, DISCARD, PLAY, SPEND_STAR, HandRecord, RandomPolicy
from simulate.rules import play as R
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import NT

GAMES = {  # name -> allowed player counts (RULES.md §1.1, §2.1, §3.1/A-HJ-11, §4.3, §5.1, §5.10)
    "hoffer": range(2, 5),
    "horseshoes": range(3, 7),
    "hyjack": range(3, 11),
    "hasenpfeffer": range(4, 5),
    "kings_and_fools": range(2, 8),
    "oh_hell": range(3, 8),
}


@cache
def _load(name: str, players: int, frozen_opts: tuple[tuple[str, Any], ...]) -> sim.Variant:
    return sim.load_variant(name, players=players, **dict(frozen_opts))


def load(name: str, players: int, **opts: Any) -> sim.Variant:
    """A cached variant (variants are immutable)."""
    return _load(name, players, tuple(sorted(opts.items())))


def config_id(name: str, players: int, opts: dict[str, Any]) -> str:
    extra = ",".join(f"{k}={v}" for k, v in sorted(opts.items()))
    return f"{name}-{players}p" + (f"-{extra}" if extra else "")


class TamePolicy(RandomPolicy):
    """Random everywhere except the auction, where it bids low and passes often.

    A uniformly random auction escalates to contracts the makers almost never make, so a
    Hasenpfeffer game played by RandomPolicy drifts negative and never reaches the target.
    """

    name = "tame"

    def choose(self, kind: str, decision: Any) -> Any:
        if kind == AUCTION:
            options = decision.options
            bids = [o for o in options if o != 0]
            if not bids or self.rng.random() < (0.75 if options[1:2] != [1] else 0.4):
                return 0
            return min(bids) if self.rng.random() < 0.7 else self.rng.choice(bids[:3])
        return super().choose(kind, decision)


def policies_for(v: sim.Variant, seed: int) -> list[Any]:
    cls = TamePolicy if v.bidding_form == "auction" else RandomPolicy
    return [cls(seed * 101 + i) for i in range(v.players)]


class Recording:
    """Wraps a policy and logs the options the engine offered at every decision."""

    def __init__(self, inner: Any, log: list[tuple[str, int, list[Any]]]) -> None:
        self.inner, self.log = inner, log

    def choose(self, kind: str, decision: Any) -> Any:
        self.log.append((kind, decision.seat, list(decision.options)))
        return self.inner.choose(kind, decision)


def recorded(policies: list[Any]) -> tuple[list[Any], list[tuple[str, int, list[Any]]]]:
    log: list[tuple[str, int, list[Any]]] = []
    return [Recording(p, log) for p in policies], log


def oracle_for(v: sim.Variant) -> Oracle:
    return Oracle(v.name, dict(v.options), v.players)


# ----- reconstructing and checking a hand ------------------------------------------------

def trump_name(trump: int) -> str:
    return TRUMP_NAMES[trump]


def play_text(v: sim.Variant, card: int, low: bool) -> str:
    return v.cards.names[card] + (":low" if low else "")


def expected_first_leader(v: sim.Variant, rec: HandRecord, sitting_out: set[int]) -> int:
    """RULES.md: Hoffer/HyJack/Oh Hell/Hasenpfeffer dealer+1, Horseshoes dealer+2, K&F dealer."""
    n = v.players
    if v.name == "hasenpfeffer":
        if rec.alone is not None:
            defenders = [s for s in range(n) if s not in sitting_out
                         and v.team_of(s) != v.team_of(rec.maker)]
            if len(defenders) == 1:
                return defenders[0]                    # both alone: the lone defender leads
            return (rec.alone + 1) % n                 # the maker's left
        return rec.maker if v.options["maker_leads"] else 0
    offset = {"hoffer": 1, "horseshoes": 2, "hyjack": 1, "kings_and_fools": 0, "oh_hell": 1}
    return (offset[v.name] - 1) % n


def split_tricks(v: sim.Variant, rec: HandRecord) -> list[list[tuple[int, int, bool]]]:
    plays = [(seat, value[0], value[1]) for kind, seat, value in rec.decisions if kind == PLAY]
    active = len({seat for seat, _, _ in plays})
    assert active >= 2
    assert len(plays) == active * rec.hand_size, "every active player plays hand_size cards"
    return [plays[i:i + active] for i in range(0, len(plays), active)]


def starting_hands(v: sim.Variant, rec: HandRecord) -> list[list[int]]:
    """The hands as play starts: the dealt hands, with the maker's widow exchange applied."""
    hands = [list(h) for h in rec.hands]
    if rec.maker is not None:
        hands[rec.maker] += rec.widow
        for kind, seat, card in rec.decisions:
            if kind == DISCARD:
                assert seat == rec.maker
                hands[seat].remove(card)
        assert len(hands[rec.maker]) == rec.hand_size, "the maker is back to hand_size cards"
    return hands


def check_hand(v: sim.Variant, rec: HandRecord,
               offered: list[tuple[str, int, list[Any]]] | None = None) -> None:
    """Every invariant of RULES.md §0 and §6 that one recorded hand must satisfy.

    Legal moves, trick winners, bids and scores are also checked against the independent
    oracle (tests/_oracle.py). `offered` is the Recording log of the options the engine gave
    at each decision; when present those must be exactly the oracle's legal options.
    """
    n, h = v.players, rec.hand_size
    oracle = oracle_for(v)
    if offered is not None:
        assert [(k, s) for k, s, _ in offered] == [(k, s) for k, s, _ in rec.decisions]
        for (_, _, options), (_, _, choice) in zip(offered, rec.decisions, strict=True):
            assert options and choice in options, "options are never empty"
    options_of = {i: o for i, (_, _, o) in enumerate(offered or [])}
    # every card dealt, in the widow, or undealt, exactly once
    everything = sorted(c for hand in rec.hands for c in hand) + list(rec.widow) + list(rec.stock)
    assert sorted(everything) == list(range(len(v.cards)))
    assert all(len(hand) == h for hand in rec.hands)
    assert len(rec.widow) == int(v.rule("deal.widow", 0) or 0)
    assert len(rec.stock) == len(v.cards) - n * h - len(rec.widow)

    # the auction (§4.3): pass or a step above the standing bid, three passes end it
    if v.bidding_form == "auction":
        high, passed = 0, set()
        for i, (kind, seat, action) in enumerate(rec.decisions):
            if kind != AUCTION:
                continue
            assert seat not in passed, "a pass is final"
            if i in options_of:
                assert options_of[i] == [0] + list(range(high + 1, len(oracle.ladder()) + 1))
            if action == 0:
                passed.add(seat)
            else:
                high = action
        assert len(passed) == n or (len(passed) == n - 1 and high)
    if rec.voided:   # a thrown-in Hasenpfeffer hand: no trump named, nothing played or scored
        assert rec.scores == [0] * n and rec.tricks == [0] * n and rec.maker is None
        assert not [d for d in rec.decisions if d[0] != AUCTION]
        if v.options["all_pass"] == "joker_holder":
            assert v.cards.names[rec.widow[0]] == "JOKER"
        return
    assert trump_name(rec.trump) in oracle.trump_choices()
    for i, (kind, _, _) in enumerate(rec.decisions):
        if kind == "trump" and i in options_of:
            assert [trump_name(t) for t in options_of[i]] == oracle.trump_choices()
    assert sum(rec.tricks) == h, "tricks won sum to the hand size"
    assert all(0 <= b for b in rec.bids)

    # bids and the bidding constraints
    if v.bidding_form != "auction":
        bids = [(i, seat, b) for i, (kind, seat, b) in enumerate(rec.decisions) if kind == "bid"]
        assert [s for _, s, _ in bids] == [(v.seat_of_offset(1) + i) % n for i in range(n)]
        assert all(0 <= b <= h for _, _, b in bids)
        active = R.constraint_active(v, rec.round_index)
        for k, (i, _, _) in enumerate(bids):
            if i in options_of:
                if v.bidding_form == "simultaneous":
                    assert options_of[i] == list(range(h + 1))
                else:
                    assert options_of[i] == oracle.legal_bids(h, [b for _, _, b in bids[:k]],
                                                              active)
        constraint = v.rule("bidding.constraint", "none")
        if active and constraint == "hook":
            assert sum(rec.bids) != h, "hook: the bids never sum to the hand size"
        if active and constraint == "max_bet":
            assert sum(rec.bids) == h, "Max Bet: the bids sum to the hand size"
    else:
        assert rec.maker is not None and 1 <= rec.contract <= len(v.ladder)
        assert rec.bids == [rec.contract if s == rec.maker else 0 for s in range(n)]

    # replay the tricks card by card through the string API and the oracle
    hands = starting_hands(v, rec)
    tricks = split_tricks(v, rec)
    play_options = iter([o for (k, _, o) in (offered or []) if k == PLAY])
    seats_playing = {seat for trick in tricks for seat, _, _ in trick}
    sitting_out = set(range(n)) - seats_playing
    if rec.alone is None:
        assert not sitting_out
    else:
        assert rec.alone in seats_playing
        assert all(v.team_of(s) != v.team_of(rec.alone) or s == rec.alone for s in seats_playing)
    trump = trump_name(rec.trump)
    leader = expected_first_leader(v, rec, sitting_out)
    won = [0] * n
    fooled = [0] * n
    captured: dict[str, int | None] = {e.name: None for e in v.events}
    broken = False
    for trick in tricks:
        assert trick[0][0] == leader, "the previous trick's winner leads"
        order = [s for s in ((leader + k) % n for k in range(n)) if s not in sitting_out]
        assert [seat for seat, _, _ in trick] == order, "play runs clockwise"
        so_far: list[str] = []
        named: list[tuple[str, bool]] = []
        for seat, card, low in trick:
            hand_names = [v.cards.names[c] for c in hands[seat]]
            legal = v.legal_moves(" ".join(hand_names), " ".join(so_far), trump,
                                  trump_broken=broken)
            assert legal, "legal moves are never empty"
            assert sorted(legal) == sorted(oracle.legal(hand_names, named, trump, broken))
            assert v.cards.names[card] in legal
            if offered is not None:
                options = next(play_options)
                assert sorted(v.cards.names[c] for c, lo in options if not lo) == sorted(legal)
                lows = sorted(v.cards.names[c] for c, lo in options if lo)
                aces = sorted(c for c in legal if c.startswith("A"))
                assert lows == (aces if v.rule("ranking.ace_choice") else [])
            if low:
                assert v.rule("ranking.ace_choice") and v.cards.names[card].startswith("A")
            hands[seat].remove(card)
            so_far.append(play_text(v, card, low))
            named.append((v.cards.names[card], low))
        idx = v.trick_winner(" ".join(so_far), trump)
        plays = [(card, low) for _, card, low in trick]
        idx2, was_fooled = R.trick_winner(v, plays, rec.trump)
        assert idx == idx2 and 0 <= idx < len(trick)
        assert oracle.winner(named, trump) == (idx, was_fooled)
        winner = trick[idx][0]
        assert winner in [seat for seat, _, _ in trick], "the winner played a card in the trick"
        won[winner] += 1
        fooled[winner] += was_fooled
        for e in v.events:
            if any(card == e.card for _, card, _ in trick):
                captured[e.name] = winner
        if rec.trump != NT and any(R.eff_suit(v, c, rec.trump) == rec.trump for _, c, _ in trick):
            broken = True
        leader = winner
    assert all(not hand for s, hand in enumerate(hands) if s not in sitting_out)
    assert won == rec.tricks
    assert fooled == rec.kings_fooled
    assert captured == rec.captured
    if v.name == "hyjack" and v.options["special_jacks"]:
        assert {e.name: v.cards.names[e.card] for e in v.events} == \
            {"beanie": v.options["beanie_jack"], "frilly": v.options["frilly_jack"]}

    # scores: the oracle's and the public API's, partners equal
    assert oracle.scores(rec.bids, rec.tricks, h, rec.kings_fooled, rec.captured,
                         rec.alone) == rec.scores
    events: dict[str, Any] = {"kings_fooled": rec.kings_fooled}
    events.update({k: s for k, s in rec.captured.items() if s is not None})
    if rec.alone is not None:
        events["alone"] = rec.alone
    assert v.score_hand(rec.bids, rec.tricks, h, events) == rec.scores
    for s in range(n):
        for t in range(n):
            if v.team_of(s) == v.team_of(t):
                assert rec.scores[s] == rec.scores[t], "partners score the same"


# ----- tampering -------------------------------------------------------------------------

def tamper_play(v: sim.Variant, rec: HandRecord) -> HandRecord | None:
    """A copy of the record with one play changed to an illegal card (None if no play)."""
    hands = starting_hands(v, rec)
    bad = copy.deepcopy(rec)
    fallback = None
    so_far: list[tuple[int, bool]] = []
    plays_seen = 0
    active = None
    for i, (kind, seat, value) in enumerate(rec.decisions):
        if kind != PLAY:
            continue
        if active is None:
            active = len({s for k, s, _ in rec.decisions if k == PLAY})
        if plays_seen % active == 0:
            so_far = []
        legal = set(R.legal_cards(v, hands[seat], so_far, rec.trump,
                                  trump_broken=_broken_before(v, rec, plays_seen, active)))
        illegal = [c for c in hands[seat] if c not in legal]
        if illegal:
            bad.decisions[i] = (PLAY, seat, (illegal[0], False))
            return bad
        if fallback is None:
            others = [c for s, hand in enumerate(hands) if s != seat for c in hand]
            not_held = others[0] if others else (rec.stock + rec.widow)[0]
            fallback = (i, seat, not_held)
        hands[seat].remove(value[0])
        so_far.append(tuple(value))
        plays_seen += 1
    if fallback is None:
        return None
    i, seat, card = fallback
    bad.decisions[i] = (PLAY, seat, (card, False))
    return bad


def _broken_before(v: sim.Variant, rec: HandRecord, plays_seen: int, active: int) -> bool:
    if rec.trump == NT:
        return False
    plays = [value[0] for kind, _, value in rec.decisions if kind == PLAY]
    done = plays[: plays_seen - plays_seen % active]
    return any(R.eff_suit(v, c, rec.trump) == rec.trump for c in done)


def tamper_tricks(rec: HandRecord) -> HandRecord:
    bad = copy.deepcopy(rec)
    bad.tricks = list(bad.tricks)
    bad.tricks[0] += 1
    bad.tricks[-1] -= 1 if len(bad.tricks) > 1 else 0
    return bad


# ----- whole games -----------------------------------------------------------------------

def star_spending(rec: HandRecord) -> list[tuple[int, bool]]:
    return [(seat, value) for kind, seat, value in rec.decisions if kind == SPEND_STAR]


def hand_counter(rec: HandRecord) -> Counter[str]:
    return Counter(kind for kind, _, _ in rec.decisions)


# ----- JSON traces -----------------------------------------------------------------------

def record_to_json(rec: HandRecord) -> dict[str, Any]:
    return {
        "hand_size": rec.hand_size, "round_index": rec.round_index,
        "hands": rec.hands, "widow": rec.widow, "stock": rec.stock,
        "decisions": [[k, s, list(x) if isinstance(x, tuple) else x] for k, s, x in rec.decisions],
        "outcome": rec.outcome(),
    }


def record_from_json(data: dict[str, Any]) -> HandRecord:
    out = data["outcome"]
    return HandRecord(
        hand_size=data["hand_size"], round_index=data["round_index"],
        hands=[list(h) for h in data["hands"]], widow=list(data["widow"]),
        stock=list(data["stock"]),
        decisions=[(k, s, tuple(x) if k == PLAY else x) for k, s, x in data["decisions"]],
        trump=out["trump"], bids=list(out["bids"]), tricks=list(out["tricks"]),
        scores=list(out["scores"]), kings_fooled=list(out["kings_fooled"]),
        captured=dict(out["captured"]), maker=out["maker"], contract=out["contract"],
        alone=out["alone"], voided=out["voided"],
    )


def rng(seed: int) -> random.Random:
    return random.Random(seed)
