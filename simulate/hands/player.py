"""bidlab's policies one decision at a time, from a seat's view of a hand in progress.

A Player asks the kernel's single-decision entry points (simulate.kernel.decide), which run
the same compiled policy functions as every simulated hand, with the same rule and bidder
tables simulate_hands uses: the defaults are precision play and the table bidder (the
trained table where one ships, else the heuristic, as simulate_hands). So a program that
keeps its own game state (another engine, a user interface, an OpenSpiel bot) gets the
decisions bidlab's simulations assume.

Cards are deck indices of the variant (v.deck[i] is card i's name) or card names ("AS",
"10H", "HIJO"); seats are numbered from the dealer's left (0) to the dealer (n - 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from simulate.errors import BidlabInputError
from simulate.hands.job import card_rates, effective_round
from simulate.kernel.decide import decide_bid, decide_play, seed_policy_stream
from simulate.kernel.hand import S_BID, S_SIZE, S_TRICKS
from simulate.kernel.trick import TS_SIZE
from simulate.rules.codes import NT
from simulate.rules.play import parse_trick
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables import policies
from simulate.tables.compile import compile_tables

Cards = str | Iterable[int | str]


class Move(NamedTuple):
    """A card to play: its deck index, whether an Ace is declared low, and its name."""

    card: int
    low: bool
    name: str

    @property
    def code(self) -> int:
        """The kernel's move code: card + 64 when an Ace is declared low."""
        return self.card + 64 * self.low


def policy_stream(seed: int, hand_index: int) -> np.ndarray:
    """The policy random stream of hand `hand_index` of simulate_hands(..., seed=seed), as
    it stands before the hand's first decision: random policies asked in the kernel's
    decision order with it choose what the kernel chose."""
    rs = np.zeros(3, np.uint64)
    seed_policy_stream(rs, np.uint64(seed), hand_index)
    return rs


class Player:
    """The play and bid policies of every seat for hands of `hand_size` cards in variant v,
    asked one decision at a time.

    play, bid: policy names (simulate.tables.policies; the defaults are simulate_hands'
    defaults). round_index: the round of the schedule these hands stand for (it decides
    whether the hook or Max Bet binds; default: the first round of this size). stream: the
    policy random stream (uint64[3]) random policies draw from when a call passes none;
    precision play and the table, heuristic and greedy bidders never draw.
    """

    def __init__(self, v: Variant, hand_size: int, play: str = "precision",
                 bid: str = "table", round_index: int | None = None,
                 stream: np.ndarray | None = None) -> None:
        v.check_hand_size(hand_size)
        if v.bidding_form == "auction":
            raise BidlabInputError(f"{v.name}: auctions are not asked one decision at a time; "
                                   "a Player bids sequential and simultaneous games")
        self.v = v
        self.hand_size = hand_size
        self.play_name, self.bid_name = play, bid
        self.play_policy = policies.resolve("play", play, 1)[0]
        self.bid_policy = policies.resolve("bid", bid, 1)[0]
        _, self.constrained = effective_round(v, hand_size, round_index)
        tables = compile_tables(v)
        if self.bid_policy >= L.BID_HEURISTIC:
            card_rates(v, hand_size)      # fills the tables' card rates, as make_job does
        self._P = tables.P
        self._tabs = tables.as_tuple()
        self.stream = np.zeros(3, np.uint64) if stream is None else stream
        n = v.players
        self._bids_before = np.zeros(n, np.int64)
        self._trick = np.zeros(n, np.int64)
        self._sout = np.zeros((n, S_SIZE), np.int64)
        self._ts = np.zeros(TS_SIZE, np.int64)
        self._bid_value = np.zeros(hand_size + 1)

    # ----- inputs -------------------------------------------------------------------------
    def cards(self, cards: Cards, what: str = "hand") -> list[int]:
        """Deck indices of `cards` (names, a space-separated string, or deck indices)."""
        if isinstance(cards, str):
            return self.v.cards.parse_hand(cards, what)
        out: list[int] = []
        for c in cards:
            if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
                if not 0 <= int(c) < len(self.v.cards):
                    raise BidlabInputError(f"{what}: card index {c} is not in this deck "
                                           f"(0 to {len(self.v.cards) - 1})")
                out.append(int(c))
            else:
                out.extend(self.v.cards.parse_hand([str(c)], what, exclude=out))
        return out

    def _mask(self, cards: Cards, what: str) -> np.uint64:
        return np.uint64(self.v.cards.mask(self.cards(cards, what)))

    def _moves(self, trick: Sequence[Any]) -> list[int]:
        """Kernel move codes of a trick given as names ("AH:low"), indices, move codes
        (card + 64 * low) or (card, low) pairs."""
        if isinstance(trick, str):
            return [c + 64 * low for c, low in parse_trick(self.v, trick)]
        out = []
        for item in trick:
            if isinstance(item, tuple):
                card, low = item
                out.append(self.cards([card], "trick")[0] + 64 * bool(low))
            elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                out.append(self.cards([int(item) & 63], "trick")[0] + (int(item) & 64))
            else:
                out.extend(c + 64 * low for c, low in parse_trick(self.v, [str(item)]))
        if len(out) >= self.v.players:
            raise BidlabInputError(f"trick: {len(out)} cards already played; a trick of "
                                   f"{self.v.players} players is over")
        return out

    def _seat(self, seat: int) -> int:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or \
                not 0 <= seat < self.v.players:
            raise BidlabInputError(f"seat {seat!r}; allowed: 0 (dealer's left) to "
                                   f"{self.v.players - 1} (dealer)")
        return int(seat)

    def trump_of(self, trump: str | int | None, turn_up: int | str | None) -> int:
        """The kernel's trump index (0-3 = S H D C, 4 = no trump): `trump` when given, else
        as the rules fix it (a fixed trump, or the turned-up card's suit; no trump when none
        is turned up)."""
        if trump is not None:
            return self.v.trump_index(trump)
        chooser = self.v.trump_chooser
        if chooser == "fixed":
            return int(self._P[L.FIXED_TRUMP])
        if chooser == "turn_up":
            turn = self._turn(turn_up)
            return NT if turn < 0 else int(self._tabs.card_suit[turn])
        raise BidlabInputError(f"{self.v.name}: trump is named by a player; give the trump "
                               f"({', '.join(self.v.trump_choices)})")

    def _turn(self, turn_up: int | str | None) -> int:
        return -1 if turn_up is None else self.cards([turn_up], "turned-up card")[0]

    # ----- decisions ----------------------------------------------------------------------
    def bid(self, seat: int, hand: Cards, bids_before: Sequence[int] = (),
            trump: str | int | None = None, turn_up: int | str | None = None,
            stream: np.ndarray | None = None) -> int:
        """The bid of `seat` holding `hand`, after the bids `bids_before` made before it in
        bidding order (from the first bidder; heard only where bidding is sequential).
        trump: the trump (default: as the rules fix it, see trump_of); turn_up: the turned-up
        card, if any. The bid obeys the hook or Max Bet where it binds."""
        seat = self._seat(seat)
        before = list(bids_before)
        if len(before) >= self.v.players:
            raise BidlabInputError(f"bids before: {len(before)} bids, but only "
                                   f"{self.v.players - 1} seats bid before the last")
        self._bids_before[:len(before)] = before
        b = decide_bid(self._P, self._tabs, self.bid_policy,
                       self.stream if stream is None else stream, self.hand_size,
                       self.constrained, seat, self._mask(hand, "hand"),
                       self.trump_of(trump, turn_up), self._turn(turn_up), self._bids_before,
                       len(before), self._bid_value)
        return int(b)

    def play(self, seat: int, hand: Cards, bids: Sequence[int], tricks: Sequence[int],
             trick: Sequence[Any] = (), played: Cards = (), trump: str | int | None = None,
             turn_up: int | str | None = None, face_up: Cards = (),
             leader: int | None = None, sitting_out: Iterable[int] = (),
             maker: int | None = None, contract: int = 0,
             stream: np.ndarray | None = None) -> Move:
        """The card `seat` plays from `hand` (the cards it still holds).

        bids, tricks: every seat's bid and tricks taken so far (in a contract game the
        maker's seat holds the contract step, maker names it); trick: the cards of the trick
        so far in play order (names such as "AH:low", deck indices, or (card, low) pairs);
        played: the cards of the finished tricks; trump, turn_up: as for bid; face_up: other
        cards every seat sees (face-up leftovers); leader: who led the trick (default: the
        seat len(trick) places before, skipping seats sitting out); sitting_out: seats out
        of this hand (a lone player's partners).
        """
        seat = self._seat(seat)
        n = self.v.players
        if len(bids) != n or len(tricks) != n:
            raise BidlabInputError(f"bids and tricks: one per seat ({n}), got {len(bids)} "
                                   f"and {len(tricks)}")
        moves = self._moves(trick)
        out_mask = 0
        for s in sitting_out:
            out_mask |= 1 << self._seat(s)
        if leader is None:
            leader = seat
            for _ in range(len(moves)):
                leader = (leader - 1) % n
                while out_mask >> leader & 1:
                    leader = (leader - 1) % n
        self._trick[:len(moves)] = moves
        self._sout[:, S_BID] = bids
        self._sout[:, S_TRICKS] = tricks
        turn = self._turn(turn_up)
        seen = self.v.cards.mask(self.cards(face_up, "face-up cards")) | \
            (0 if turn < 0 else 1 << turn)
        move = int(decide_play(
            self._P, self._tabs, self.play_policy, self.stream if stream is None else stream,
            self._ts, self.hand_size, seat, self._mask(hand, "hand"),
            self.trump_of(trump, turn_up), np.uint64(seen), self._mask(played, "played cards"),
            self._trick, len(moves), self._seat(leader), np.uint64(out_mask),
            -1 if maker is None else self._seat(maker), contract, self._sout))
        card = move & 63
        return Move(card, bool(move >> 6), self.v.deck[card])

    def __repr__(self) -> str:
        return (f"Player({self.v.canonical}, {self.hand_size} cards, "
                f"{self.play_name}+{self.bid_name})")

