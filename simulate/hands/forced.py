"""Forced-bid evaluation: every candidate bid of one seat played on the same deals.

This is the one source of every "best bid" bidlab prints for a class of hands (class tables,
cheat sheets). For a seat, the same `deals` deals are played once per candidate bid with
that seat's bid forced (the kernel's override slots) and everyone else on their policies.
Hands draw their random numbers from streams keyed by (seed, hand, purpose), so the deal,
the bids before the focal seat and every choice that does not depend on the forced bid are
the same for every candidate (common random numbers): the difference between two bids on
a deal is the consequence of the bid alone, and cell means are compared by paired
differences. A bid the rules forbid on a deal (the dealer's hook, Max Bet) is recorded as
not played there (NaN), never scored on another bid's outcome.

In an auction game (Hasenpfeffer) the candidates are the contract steps, each played as if
the seat had won the auction with it; "exact" then means the contract was made.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from simulate.hands.job import make_job
from simulate.hands.simulate import records_arrays
from simulate.kernel.hand import H_OVERRIDDEN, H_TRUMP, S_BID, S_SCORE, S_TRICKS
from simulate.rules.play import legal_bids
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.util.checks import positive_int


@dataclass(frozen=True)
class ForcedRun:
    """One seat's candidate bids played on the same deals (arrays are one row per deal)."""

    variant: str               # the variant's canonical string
    hand_size: int
    seat: int                  # 0 = the dealer's left, n-1 = the dealer
    seed: int
    bids: np.ndarray           # int64[B] candidate bids (contract steps in an auction)
    scores: np.ndarray         # float64[N, B] the seat's score per bid; NaN where forbidden
    exact: np.ndarray          # bool[N, B] bid exactly made (auction: contract made)
    masks: np.ndarray          # uint64[N] the seat's hand
    trumps: np.ndarray         # int64[N] the deal's trump (4 = no trump), as for the first bid
    prev: np.ndarray           # int64[N] sum of the bids this seat heard (0 if none)
    earlier: tuple[int, ...]   # the seats whose bids this one hears, in order (none when
                               # bids are simultaneous or in an auction)
    better_low: bool           # lower scores win (Horseshoes)
    auction: bool
    constrained: bool = False  # the bid constraint (hook, Max Bet) applies in this round

    @property
    def deals(self) -> int:
        """Deals played (each once per candidate bid)."""
        return int(self.scores.shape[0])

    def signed(self) -> np.ndarray:
        """Scores with the sign that makes larger better (NaN kept)."""
        return -self.scores if self.better_low else self.scores


def bidding_order(v: Variant) -> list[int]:
    """Seats in the order they bid (the first bidder first)."""
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    return [(first + j) % v.players for j in range(v.players)]


def earlier_seats(v: Variant, seat: int) -> tuple[int, ...]:
    """The seats that bid before `seat` and whose bids it hears: none unless bids are
    sequential (simultaneous bids and an auction's contract steps hear none)."""
    if v.bidding_form != "sequential":
        return ()
    order = bidding_order(v)
    return tuple(order[:order.index(seat)])


def legal_after(v: Variant, hand_size: int, run: ForcedRun, prev: int) -> set[int]:
    """The candidate bids the rules allow `run`'s seat after earlier bids summing to `prev`
    (the hook and Max Bet look only at that sum, and at whether the seat bids last)."""
    if run.auction or not run.earlier:
        return set(run.bids.tolist())
    bids_so_far, rest = [], prev
    for _ in run.earlier:
        bids_so_far.append(min(rest, hand_size))
        rest -= bids_so_far[-1]
    return set(legal_bids(v, hand_size, bids_so_far, run.constrained))


def candidate_bids(v: Variant, hand_size: int) -> np.ndarray:
    """Every bid a seat could make: 0..h, or the contract steps 1..S of an auction."""
    if v.bidding_form == "auction":
        return np.arange(1, len(v.ladder) + 1, dtype=np.int64)
    return np.arange(hand_size + 1, dtype=np.int64)


def forced_run(v: Variant, hand_size: int, seat: int, deals: int, seed: int = 0,
               play: str = "precision", bid: str = "table", workers: int | None = None,
               round_index: int | None = None, hand: str | None = None,
               turn_up: str | None = None) -> ForcedRun:
    """Play `deals` deals once per candidate bid of `seat` (see the module notes).

    v: the variant. hand_size: cards per hand. seat: the focal seat. deals: how many deals.
    seed: the deals' seed (the same seed gives the same deals for every seat and bid). play,
    bid: everyone's play and bid policies (the focal seat's bid is forced). workers: local
    threads. round_index: the round the hands stand for (default: the first of this size).
    hand: a fixed hand for the seat ("AS KS 9H"), the rest dealt at random (per-hand odds).
    turn_up: in a game whose trump is a turned-up card, deal only deals that turn up this
    suit (a condition on the deal, as bid odds apply it).
    """
    if turn_up is not None and v.trump_chooser != "turn_up":
        raise ValueError("turn_up conditions only a turned-up trump; filter other trumps")
    deals = positive_int(deals, "deals")
    bids = candidate_bids(v, hand_size)
    auction = v.bidding_form == "auction"
    earlier = earlier_seats(v, seat)
    side = [s for s in range(v.players) if v.team_of(s) == v.team_of(seat)] if auction \
        else [seat]
    scores = np.full((deals, len(bids)), np.nan)
    exact = np.zeros((deals, len(bids)), np.bool_)
    masks = trumps = prev = None
    base = make_job(v, hand_size, deals, seed, play, bid, turn_up,
                    {seat: hand} if hand is not None else None, round_index)
    for k, b in enumerate(bids):
        P = base.tables.P.copy()
        P[L.OVERRIDE_SEAT], P[L.OVERRIDE_BID] = seat, int(b)
        job = dataclasses.replace(base, tables=dataclasses.replace(base.tables, P=P))
        out = records_arrays(job, workers)
        ok = out.hand_out[:, H_OVERRIDDEN] == 1
        scores[ok, k] = out.seat_out[ok, seat, S_SCORE]
        took = out.seat_out[:, side, S_TRICKS].sum(axis=1)
        exact[:, k] = ok & ((took >= v.ladder[int(b) - 1].tricks) if auction else (took == b))
        if masks is None:
            masks = out.masks[:, seat].copy()
            trumps = out.hand_out[:, H_TRUMP].astype(np.int64)
            prev = out.seat_out[:, list(earlier), S_BID].sum(axis=1).astype(np.int64) \
                if earlier else np.zeros(deals, np.int64)
    assert masks is not None and trumps is not None and prev is not None
    return ForcedRun(v.canonical, hand_size, seat, int(seed), bids, scores, exact, masks, trumps,
                     prev, earlier, v.rule("end.better", "higher") == "lower", auction,
                     bool(base.constrained))
