"""Card identities, their text form, and parsing.

A card identity is (rank, suit) for a natural card or a special name (HIJO, FOOL, ...).
Inside a variant a card is its index in that variant's deck (0..63), so a hand fits in a
uint64 mask; identical copies (two FOOLs, several JOKERs) get distinct indices.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from simulate.errors import BidlabInputError
from simulate.rules.codes import NT

SUITS = ("S", "H", "D", "C")
TRUMP_NAMES = ("S", "H", "D", "C", "NT")
assert TRUMP_NAMES[NT] == "NT"
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
SUIT_GLYPH = {"S": "♠", "H": "♥", "D": "♦", "C": "♣", "NT": "NT"}
SAME_COLOUR = {0: 3, 3: 0, 1: 2, 2: 1}  # ♠↔♣, ♥↔♦

RANK_NAMES = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K", 14: "A"}
RANK_VALUES = {name: value for value, name in RANK_NAMES.items()}
RANK_VALUES["T"] = 10
SPECIAL_NAMES = ("HIJO", "LOJO", "JOKER", "FOOL", "HJ_BLUE", "HJ_GREEN")

MAX_DECK = 64


@dataclass(frozen=True, order=True)
class Card:
    """A card identity: a natural card (rank 2..14, suit 0..3) or a named special."""

    rank: int = 0
    suit: int = -1
    special: str = ""

    @property
    def is_special(self) -> bool:
        """Whether this is a named special card (HIJO, FOOL, ...), not a rank and suit."""
        return bool(self.special)

    def __str__(self) -> str:
        if self.special:
            return self.special
        return RANK_NAMES[self.rank] + SUITS[self.suit]


def parse_card(text: str) -> Card:
    """Parse one card: `AS`, `10h`, `T♥`, `hijo`. Raises BidlabInputError when malformed."""
    raw = text.strip()
    token = raw.upper().replace("-", "_")
    for symbol, letter in SUIT_SYMBOLS.items():
        token = token.replace(symbol, letter)
    if token in SPECIAL_NAMES:
        return Card(special=token)
    if len(token) >= 2 and token[-1] in SUITS and token[:-1] in RANK_VALUES:
        return Card(rank=RANK_VALUES[token[:-1]], suit=SUITS.index(token[-1]))
    raise BidlabInputError(
        f"malformed card {raw!r}: write rank then suit (2-10, T, J, Q, K, A with S H D C "
        f"or ♠♥♦♣), or one of {', '.join(SPECIAL_NAMES)}"
    )


def split_cards(text: str | Iterable[str]) -> list[str]:
    """Split a hand given as a string ("AS KS, 9H") or a list of card strings."""
    if isinstance(text, str):
        return [t for t in text.replace(",", " ").split() if t]
    return [str(t) for t in text]


class Deck:
    """An ordered deck: card index ↔ identity, with copies of identical specials."""

    def __init__(self, cards: Sequence[Card], label: str = "deck") -> None:
        if len(cards) > MAX_DECK:
            raise BidlabInputError(f"{label}: {len(cards)} cards, at most {MAX_DECK} are allowed")
        seen: set[Card] = set()
        for card in cards:
            if not card.special and card in seen:
                raise BidlabInputError(f"{label}: card {card} appears twice; natural cards are unique")
            seen.add(card)
        self.cards: tuple[Card, ...] = tuple(cards)
        self.names: tuple[str, ...] = tuple(str(c) for c in cards)
        self._indices: dict[Card, list[int]] = {}
        for i, card in enumerate(cards):
            self._indices.setdefault(card, []).append(i)

    def __len__(self) -> int:
        return len(self.cards)

    def indices_of(self, card: Card) -> list[int]:
        """The deck indices of every copy of `card` (empty when the deck lacks it)."""
        return list(self._indices.get(card, []))

    def parse_hand(self, text: str | Iterable[str], what: str = "hand",
                   exclude: Iterable[int] = ()) -> list[int]:
        """Cards as deck indices. Identical specials take successive free copies."""
        taken = set(exclude)
        out: list[int] = []
        for token in split_cards(text):
            card = parse_card(token)
            copies = self._indices.get(card)
            if not copies:
                raise BidlabInputError(
                    f"{what}: card {card} is not in this game's deck "
                    f"({len(self)} cards: {self.summary()})")
            free = [i for i in copies if i not in taken]
            if not free:
                raise BidlabInputError(
                    f"{what}: card {card} given more times than the deck holds it "
                    f"({len(copies)})")
            taken.add(free[0])
            out.append(free[0])
        return out

    def mask(self, indices: Iterable[int]) -> int:
        """Deck indices → a bit mask (bit i set for card i)."""
        m = 0
        for i in indices:
            m |= 1 << i
        return m

    def names_of_mask(self, mask: int) -> list[str]:
        """A bit mask → the names of its cards, in deck order."""
        return [self.names[i] for i in range(len(self)) if mask >> i & 1]

    def summary(self) -> str:
        """The deck in a few words, e.g. "2..A of SHDC; HIJO LOJO"."""
        naturals = [c for c in self.cards if not c.special]
        ranks = sorted({c.rank for c in naturals})
        suits = sorted({c.suit for c in naturals})
        specials = [c.special for c in self.cards if c.special]
        parts = []
        if naturals:
            parts.append(f"{RANK_NAMES[ranks[0]]}..{RANK_NAMES[ranks[-1]]} of "
                         + "".join(SUITS[s] for s in suits))
        if specials:
            parts.append(" ".join(specials))
        return "; ".join(parts)
