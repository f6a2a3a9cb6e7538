"""A run of hands, validated and turned into kernel arguments: the Job every chunk runs.

make_job checks every input (with one clear message per bad value), resolves policies,
fixed hands, a forced trump and the round, compiles the rule tables and, when a heuristic
bidder needs them, fills the tables' per-card win rates (simulate.hands.calibrate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from simulate.errors import BidlabInputError
from simulate.hands.calibrate import CALIBRATION_HANDS, CALIBRATION_SEED, calibrate_card_rates
from simulate.hands.results import HandConfig
from simulate.kernel.hand import HandScratch, make_scratch, max_decisions
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import NT
from simulate.rules.play import constraint_active
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables import policies
from simulate.tables.compile import KernelTables, RuleTables, compile_tables
from simulate.util.checks import check_seed, positive_int


def resolve_fixed(v: Variant, hand_size: int, fixed: Mapping[int, Any] | None) -> np.ndarray:
    """{seat: cards} → per-seat masks; every fixed hand must be a full hand of this deck."""
    masks = np.zeros(v.players, dtype=np.uint64)
    if not fixed:
        return masks
    taken: list[int] = []
    for seat, cards in fixed.items():
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or \
                not 0 <= seat < v.players:
            raise BidlabInputError(f"fixed: seat {seat!r} is not a seat; allowed: 0 to "
                                   f"{v.players - 1} (0 = dealer's left, {v.players - 1} = dealer)")
        idx = v.cards.parse_hand(cards, f"fixed hand of seat {seat}", exclude=taken)
        if len(idx) != hand_size:
            raise BidlabInputError(f"fixed hand of seat {seat}: {len(idx)} cards given, a hand "
                                   f"of this round holds {hand_size}")
        taken.extend(idx)
        masks[seat] = np.uint64(v.cards.mask(idx))
    return masks


def resolve_trump(v: Variant, trump: str | int | None, hand_size: int,
                  fixed: np.ndarray) -> int:
    """Kernel code of a forced trump (-1 for none). With a turned-up trump, forcing it
    conditions the deal on the turn-up, so it must be possible at all."""
    if trump is None:
        return -1
    t = v.trump_index(trump)
    if v.trump_chooser == "fixed":
        return -1
    if v.trump_chooser == "turn_up":
        undealt = len(v.cards) - hand_size * v.players - int(v.rule("deal.widow", 0) or 0)
        pinned = int(np.bitwise_or.reduce(fixed)) if len(fixed) else 0
        if t == NT and undealt > 0:
            raise BidlabInputError(
                f"trump NT cannot be forced with {hand_size} cards: in {v.name} the trump is the "
                f"turned-up card and {undealt} cards are left to turn up")
        if t != NT and (undealt == 0 or not any(
                not c.special and c.suit == t and not pinned >> i & 1
                for i, c in enumerate(v.cards.cards))):
            raise BidlabInputError(
                f"trump {TRUMP_NAMES[t]} cannot be forced with {hand_size} cards in {v.name}: "
                "no card of that suit can be turned up")
    return t


def effective_round(v: Variant, hand_size: int, round_index: int | None) -> tuple[int | None, bool]:
    """(round of the schedule these hands stand for, whether the bid constraint applies).

    Without a round, the first round of that size stands; a size outside the schedule
    follows the reference engine's default (the constraint applies if it has one).
    """
    if round_index is None:
        rounds = [i for i, h in enumerate(v.schedule) if h == hand_size]
        round_index = rounds[0] if rounds else None
    elif isinstance(round_index, bool) or not isinstance(round_index, int) or \
            not 0 <= round_index < len(v.schedule):
        raise BidlabInputError(f"round {round_index!r} is not a round of {v.name}; allowed: 0 to "
                               f"{len(v.schedule) - 1}")
    elif v.schedule[round_index] != hand_size:
        raise BidlabInputError(f"round {round_index} of {v.name} deals {v.schedule[round_index]} "
                               f"cards, not {hand_size}")
    return round_index, constraint_active(v, round_index)


class KernelArgs(NamedTuple):
    """A job's inputs as the hand kernels take them (simulate.kernel.chunk.run_records)."""

    P: np.ndarray                  # int64 rule parameters (tables.layout slots)
    tables: KernelTables           # the rule and bidder tables
    seed: np.uint64                # the run's seed: hand i draws from streams keyed (seed, i)
    hand_size: int
    constrained: bool              # whether the bid constraint (hook, max bet) applies
    fixed: np.ndarray              # uint64 mask per seat: a fixed hand, or 0
    forced_trump: int              # trump index forced on every hand, or -1
    play_pol: np.ndarray           # play policy id per seat
    bid_pol: np.ndarray            # bid policy id per seat


@dataclass
class Job:
    """Everything a chunk needs, validated and turned into kernel arguments."""

    v: Variant
    tables: RuleTables
    config: HandConfig
    fixed: np.ndarray
    forced_trump: int
    play_pol: np.ndarray
    bid_pol: np.ndarray
    constrained: bool

    def args(self) -> KernelArgs:
        """The arguments every hand kernel entry point takes, by name (the entry points take
        them in this order, with the hands to play after `seed`)."""
        c = self.config
        return KernelArgs(self.tables.P, self.tables.as_tuple(), np.uint64(c.seed), c.hand_size,
                          self.constrained, self.fixed, self.forced_trump, self.play_pol,
                          self.bid_pol)

    def scratch(self) -> HandScratch:
        """Fresh working arrays for one thread running this job's hands."""
        v = self.v
        return make_scratch(v.players, len(v.cards),
                            max_decisions(v.players, self.config.hand_size,
                                          int(v.rule("deal.widow", 0) or 0), len(v.ladder)))


def build_job(v: Variant, hand_size: int, hands: int, seed: int, play: str | Sequence[str],
              bid: str | Sequence[str], trump: str | int | None, fixed: Mapping[int, Any] | None,
              round_index: int | None) -> Job:
    """A validated Job whose tables are used as compiled: a heuristic bidder's card rates
    are not filled here (make_job does that)."""
    v.check_hand_size(hand_size)
    hands = positive_int(hands, "hands")
    seed = check_seed(seed)
    play_ids = policies.resolve("play", play, v.players)
    bid_ids = policies.resolve("bid", bid, v.players)
    fixed_masks = resolve_fixed(v, hand_size, fixed)
    forced = resolve_trump(v, trump, hand_size, fixed_masks)
    round_index, constrained = effective_round(v, hand_size, round_index)
    names_play = [play] * v.players if isinstance(play, str) else list(play)
    names_bid = [bid] * v.players if isinstance(bid, str) else list(bid)
    config = HandConfig(v.canonical, hand_size, hands, seed, tuple(names_play), tuple(names_bid),
                        None if forced < 0 else TRUMP_NAMES[forced],
                        {int(s): v.cards.names_of_mask(int(m)) for s, m in enumerate(fixed_masks)
                         if m}, round_index, constrained)
    tables = compile_tables(v)
    return Job(v, tables, config, fixed_masks, forced, np.array(play_ids, np.int64),
               np.array(bid_ids, np.int64), constrained)


def calibration_jobs(v: Variant, hand_size: int) -> list[Job]:
    """The jobs whose card statistics calibrate the heuristic bidder: precision play and
    greedy bids under every trump the rules let a player choose (or as dealt)."""
    forced: list[str | None] = [None]
    if v.trump_chooser in ("dealer", "first_bidder", "maker"):
        forced = list(v.trump_choices)
    return [build_job(v, hand_size, CALIBRATION_HANDS // len(forced), CALIBRATION_SEED,
                      "precision", "greedy", trump, None, None) for trump in forced]


def card_rates(v: Variant, hand_size: int) -> np.ndarray:
    """The heuristic bidder's per-card win rates for this hand size, measured the first
    time (see simulate.hands.calibrate): float64[5, D]."""
    return calibrate_card_rates(v, hand_size, calibration_jobs)


def make_job(v: Variant, hand_size: int, hands: int, seed: int, play: str | Sequence[str],
             bid: str | Sequence[str], trump: str | int | None, fixed: Mapping[int, Any] | None,
             round_index: int | None) -> Job:
    """A validated Job for `hands` hands of `hand_size` cards (arguments as simulate_hands),
    with the card rates a heuristic or table bidder reads filled in."""
    job = build_job(v, hand_size, hands, seed, play, bid, trump, fixed, round_index)
    if any(b >= L.BID_HEURISTIC for b in job.bid_pol):
        card_rates(v, hand_size)
    return job
