"""The frozen Variant: one game at one player count with every option resolved.

Built by `simulate.rules.load.load_variant` (which reads and checks the file) and
`simulate.rules.assemble` (which builds its tables); this module holds only the data and the
questions a caller asks of it. The rules of play themselves live in `simulate.rules.play`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from simulate.errors import BidlabInputError
from simulate.rules import play
from simulate.rules.cards import TRUMP_NAMES, Deck
from simulate.rules.codes import NT

if TYPE_CHECKING:
    from simulate.rules.load import OptionSpec


@dataclass(frozen=True)
class LadderStep:
    """One auction bid of the ladder: its name, the tricks it contracts for, its score
    multiplier, and whether the maker plays alone."""

    name: str
    tricks: int
    multiplier: int = 1
    alone: bool = False


@dataclass(frozen=True)
class CaptureEvent:
    """A card whose capture changes the capturer's score ([events.NAME] with an effect)."""

    name: str
    card: int  # deck index
    effect: str
    points: int


@dataclass(frozen=True, eq=False)
class Variant:
    """One game at one player count with every option resolved. Immutable.

    Load one with `simulate.rules.load.load_variant`. Equal (and hashed) by `canonical`.
    """

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
    toml_bytes: bytes | None = field(default=None, repr=False, compare=False)  # the file loaded

    # ----- plain facts -------------------------------------------------------------------
    @property
    def deck(self) -> list[str]:
        """The card names in deck order (card index → name)."""
        return list(self.cards.names)

    def rule(self, dotted: str, default: Any = None) -> Any:
        """The resolved value of `section.key` (e.g. "bidding.form"), or `default`."""
        section, _, key = dotted.partition(".")
        return self.rules.get(section, {}).get(key, default)

    @property
    def trump_chooser(self) -> str:
        """Who names trump: fixed, dealer, first_bidder, maker or turn_up."""
        return str(self.rule("trump.chooser"))

    @property
    def bidding_form(self) -> str:
        """How bids are made: simultaneous, sequential or auction."""
        return str(self.rule("bidding.form"))

    @property
    def is_contract(self) -> bool:
        """Whether the scoring is by contract (an auction's maker against defenders)."""
        return self.rule("scoring.kind") == "contract"

    def seat_of_offset(self, offset: int) -> int:
        """Seat (0 = dealer's left, n-1 = dealer) of the player `offset` places left of the dealer."""
        return (offset - 1) % self.players

    def team_of(self, seat: int) -> int:
        """The scoring unit of `seat`: its team, or the seat itself without teams."""
        return seat % self.teams if self.teams else seat

    def trump_index(self, trump: str | int) -> int:
        """Trump as an index 0..4 (S H D C NT) from a name ("H", "♥", "NT") or an index.

        Raises BidlabInputError when this variant does not allow that trump.
        """
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
        """Raise BidlabInputError unless `hand_size` cards can be dealt to every player."""
        if not isinstance(hand_size, int) or isinstance(hand_size, bool):
            raise BidlabInputError(f"hand size {hand_size!r} must be a whole number")
        need = hand_size * self.players + int(self.rule("deal.widow", 0) or 0)
        if hand_size < 1 or need > len(self.cards):
            biggest = (len(self.cards) - int(self.rule("deal.widow", 0) or 0)) // self.players
            raise BidlabInputError(
                f"hand size {hand_size} cannot be dealt to {self.players} players from "
                f"{len(self.cards)} cards in {self.name}; allowed: 1 to {biggest}")

    # ----- rules of play (strings in, strings out; the reference engine implements them) --
    def legal_moves(self, hand: Any, trick: Any = (), trump: str | int = "NT", **state: Any) -> list[str]:
        """The cards of `hand` that may be played to `trick` under `trump`.

        hand, trick: card strings ("AS 9H JD HIJO" or a list); an Ace in the trick may be
        marked "AH:low" under ace_choice. state: trump_broken=True once trump has been led.
        """
        return play.legal_moves_api(self, hand, trick, trump, **state)

    def trick_winner(self, trick: Any, trump: str | int = "NT") -> int:
        """The position (0 = the lead) in `trick` (card strings) of the card that takes it."""
        return play.trick_winner_api(self, trick, trump)

    def legal_bids(self, hand_size: int, bids_so_far: Sequence[int] = (), **state: Any) -> list[int]:
        """The bids the next bidder may make, after `bids_so_far` in a hand of `hand_size`.

        state: round_index (for constraints that bind only some rounds); high (an auction's
        standing ladder step). In an auction the answer is 0 (pass) and the ladder steps above.
        """
        return play.legal_bids_api(self, hand_size, bids_so_far, **state)

    def score_hand(self, bids: Sequence[int], tricks: Sequence[int], hand_size: int,
                   events: Mapping[str, Any] | None = None) -> list[int]:
        """Each seat's score for one hand: `bids` and `tricks` taken per seat.

        events: kings_fooled (count per seat), alone (the seat playing alone), and each
        capture event's name → the seat that captured its card (or a per-seat list of flags).
        """
        return play.score_hand_api(self, bids, tricks, hand_size, events)

    def __repr__(self) -> str:
        return f"Variant({self.canonical})"

    def __hash__(self) -> int:
        return hash(self.canonical)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and other.canonical == self.canonical

    @cached_property
    def option_env(self) -> dict[str, Any]:
        """The variables a formula sees besides bid, took and h: n, deck and the options."""
        return {"n": self.players, "deck": len(self.cards), **self.options}
