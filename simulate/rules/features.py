"""Named hand features ("hand classes"), computed vectorised from (mask, trump) columns.

Every feature is a whole number from 0 to the hand size, computed from the hand's card mask
(uint64 of deck indices) and the trump of its deal (S H D C NT) with the variant's own tables
(`eff_suit_table`, `power_table`, `mechanic_table`), so rule changes in a variant file (a
different bower, a new special) change the features with them. For every trump index t the
feature is a bit mask M[t] of the deck (or four per-suit masks), and a hand's value is a
popcount of `mask & M[t]`.

Definitions (t is the deal's trump; "effective suit" is `v.eff_suit_table[t][c]`, -1 for
suitless specials):

trumps   Cards whose effective suit is the trump suit: the trump suit itself plus any card
         the rules move into it (Hoffer's and Hasenpfeffer's Little Jack — the other jack of
         the trump's colour — and Hasenpfeffer's Joker as top trump). Suitless specials
         (HiJo, HyJackers, Fools, Horseshoes jokers) are not trumps. Always 0 in no trump.
specials Special cards held: deck cards that are not natural cards (HIJO, LOJO, JOKER, FOOL,
         HJ_BLUE, HJ_GREEN), whatever the trump and whatever their mechanic (Hoffer's LoJo and
         the Kings-and-Fools Fools count too).
top3     Cards held among the three strongest of the deck under the trump. Strength is the
         order in which a card takes tricks: a key (class, power) with class
           4  last-played-wins specials (HyJackers: they beat everything, even an always-wins),
           3  always-wins specials (HiJo; Hasenpfeffer's Joker in no trump),
           2  trumps (effective suit = trump, t != NT), ordered by power (so bowers and a
              top-trump Joker sit above the Ace where the rules put them),
           1  other suited cards, ordered by power within their suit (plain powers are the
              same scale in every suit, so the Aces of all side suits tie),
         and cards that never win, win only when led (Horseshoes jokers) or only fool a King
         (Fools) are never top cards. A card counts when fewer than three cards of the deck
         are strictly stronger (competition ranking, ties share the best place): with trump
         that is normally exactly three cards (Hoffer S: HIJO, JS, JC; Oh Hell S: AS, KS, QS;
         HyJack: HJ_BLUE, HJ_GREEN, AS; Kings and Fools: KS, QS, JS since Aces are low),
         in no trump the tied top ranks all count (Hoffer NT: HIJO and the four Aces; Oh Hell
         NT: the four Aces), so in no trump the value can exceed 3.
aces     Natural Aces held (by identity: rank A, any suit; in Kings and Fools Aces are low
         but still count here).
kings    Natural Kings held (rank K, any suit).
side_high Natural cards of a side suit (effective suit other than the trump; every suit in
         no trump) among the two highest ranks of that suit: Aces and Kings, or in Kings and
         Fools (Aces low) Kings and Queens.
voids    Suits of the deck (0..3, by effective suit under the trump) with no card of the
         hand in them: a Little Jack counts for the trump suit, not its printed suit;
         suitless specials fill no suit.
longest  Length of the longest effective suit in the hand (same counting as voids; 0 for a
         hand of suitless specials only).

A DataFrame without a `mask` column may give `cards` (space-separated card names) instead;
the trump column holds "S".."NT" (a categorical from `res.records` or plain strings).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.codes import ALWAYS_WINS, LAST_PLAYED_WINS, NT, PLAIN
from simulate.rules.variant import Variant
from simulate.util.memo import KeyedCache

__all__ = ["FEATURES", "FEATURE_HELP", "add_features", "check_features", "feature_masks",
           "hand_masks", "trump_codes", "top_cards"]

_ONE = np.uint64(1)


def _mask_of(indices: Iterable[int]) -> np.uint64:
    m = 0
    for c in indices:
        m |= 1 << int(c)
    return np.uint64(m)


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(x, dtype=np.uint64)).astype(np.int16)


def _strength(v: Variant, t: int, c: int) -> tuple[int, int] | None:
    """Trick-taking strength key of card c under trump t; None for cards never counted top."""
    mech = v.mechanic_table[t][c]
    if mech == LAST_PLAYED_WINS:
        return (4, 0)
    if mech == ALWAYS_WINS:
        return (3, 0)
    if mech != PLAIN:          # NEVER_WINS, WINS_IF_LED, FOOLS_KING: never a top card
        return None
    s = v.eff_suit_table[t][c]
    if s < 0:
        return None
    if t != NT and s == t:
        return (2, v.power_table[t][c])
    return (1, v.power_table[t][c])


def top_cards(v: Variant, t: int, k: int = 3) -> list[int]:
    """Deck indices of the top-k cards under trump index t (see the module doc: a card is
    a top card when fewer than k deck cards are strictly stronger)."""
    keys = {c: _strength(v, t, c) for c in range(len(v.cards))}
    ranked = [(key, c) for c, key in keys.items() if key is not None]
    out = []
    for key, c in ranked:
        stronger = sum(1 for other, _ in ranked if other > key)
        if stronger < k:
            out.append(c)
    return sorted(out)


# variant canonical string -> its feature masks
_FEATURE_MASKS: KeyedCache[str, dict[str, np.ndarray]] = KeyedCache()


def feature_masks(v: Variant) -> dict[str, np.ndarray]:
    """Per-trump deck masks behind the features: name -> uint64[5] (or uint64[5, 4] for
    'suits', the cards of each effective suit). Built once per variant."""
    return _FEATURE_MASKS.get_or_build(v.canonical, lambda: _build_feature_masks(v))


def _build_feature_masks(v: Variant) -> dict[str, np.ndarray]:
    D = len(v.cards)
    cards = v.cards.cards
    trumps = np.zeros(5, np.uint64)
    top3 = np.zeros(5, np.uint64)
    suits = np.zeros((5, 4), np.uint64)
    for t in range(5):
        eff = v.eff_suit_table[t]
        if t != NT:
            trumps[t] = _mask_of(c for c in range(D) if eff[c] == t)
        top3[t] = _mask_of(top_cards(v, t, 3))
        for s in range(4):
            suits[t, s] = _mask_of(c for c in range(D) if eff[c] == s)
    side_high = np.zeros(5, np.uint64)
    for t in range(5):
        eff, power = v.eff_suit_table[t], v.power_table[t]
        for s in range(4):
            if s == t:
                continue
            natural = [c for c in range(D) if eff[c] == s and not cards[c].special]
            tops = sorted({power[c] for c in natural}, reverse=True)[:2]
            side_high[t] |= _mask_of(c for c in natural if power[c] in tops)
    specials = _mask_of(c for c in range(D) if cards[c].special)
    aces = _mask_of(c for c in range(D) if not cards[c].special and cards[c].rank == 14)
    kings = _mask_of(c for c in range(D) if not cards[c].special and cards[c].rank == 13)
    out = {"trumps": trumps, "top3": top3, "suits": suits, "side_high": side_high,
           "specials": np.full(5, specials, np.uint64), "aces": np.full(5, aces, np.uint64),
           "kings": np.full(5, kings, np.uint64)}
    return out


def trump_codes(trump: pd.Series | Sequence[str] | np.ndarray) -> np.ndarray:
    """Trump names (S H D C NT, categorical or strings) -> indices 0..4."""
    s = pd.Series(trump) if not isinstance(trump, pd.Series) else trump
    if isinstance(s.dtype, pd.CategoricalDtype) and list(s.cat.categories) == list(TRUMP_NAMES):
        codes = s.cat.codes.to_numpy().astype(np.int64)
    else:
        lookup = {name: i for i, name in enumerate(TRUMP_NAMES)}
        codes = np.array([lookup.get(str(x).strip().upper(), -1) for x in s], dtype=np.int64)
    if (codes < 0).any():
        bad = sorted({str(x) for x, c in zip(s, codes, strict=True) if c < 0})
        raise BidlabInputError(f"trump {', '.join(bad)} is not a trump; allowed: "
                               f"{', '.join(TRUMP_NAMES)}")
    return codes


def hand_masks(df: pd.DataFrame, v: Variant) -> np.ndarray:
    """The hands as uint64 masks: the `mask` column, or `cards` parsed with the deck."""
    if "mask" in df.columns:
        return df["mask"].to_numpy().astype(np.uint64)
    if "cards" in df.columns:
        return np.array([v.cards.mask(v.cards.parse_hand(str(text), f"row {i}"))
                         for i, text in enumerate(df["cards"])], dtype=np.uint64)
    raise BidlabInputError("hand features need a 'mask' or 'cards' column")


def _by_mask(name: str) -> Callable[[np.ndarray, np.ndarray, Variant], np.ndarray]:
    def feature(masks: np.ndarray, t: np.ndarray, v: Variant) -> np.ndarray:
        """Cards of each hand in the feature's mask under its deal's trump."""
        return _popcount(masks & feature_masks(v)[name][t])

    feature.__name__ = name
    return feature


def _suit_counts(masks: np.ndarray, t: np.ndarray, v: Variant) -> np.ndarray:
    suits = feature_masks(v)["suits"][t]                       # [rows, 4]
    return _popcount(masks[:, None] & suits)


def _voids(masks: np.ndarray, t: np.ndarray, v: Variant) -> np.ndarray:
    suits = feature_masks(v)["suits"][t]
    present = suits != 0                                       # suits the deck has under t
    return ((_suit_counts(masks, t, v) == 0) & present).sum(axis=1).astype(np.int16)


def _longest(masks: np.ndarray, t: np.ndarray, v: Variant) -> np.ndarray:
    return _suit_counts(masks, t, v).max(axis=1).astype(np.int16)


FEATURES: dict[str, Callable[[np.ndarray, np.ndarray, Variant], np.ndarray]] = {
    "trumps": _by_mask("trumps"),
    "specials": _by_mask("specials"),
    "top3": _by_mask("top3"),
    "aces": _by_mask("aces"),
    "kings": _by_mask("kings"),
    "side_high": _by_mask("side_high"),
    "voids": _voids,
    "longest": _longest,
}

FEATURE_HELP = {
    "trumps": "cards whose effective suit is the trump (0 in no trump)",
    "specials": "special (non-natural) cards held",
    "top3": "cards held among the deck's three strongest under the trump (ties at the top all count)",
    "aces": "natural Aces held",
    "kings": "natural Kings held",
    "side_high": "cards of the two highest ranks of a side (non-trump) suit",
    "voids": "suits of the deck (by effective suit) with no card in hand",
    "longest": "length of the longest effective suit",
}


def check_features(names: str | Iterable[str]) -> list[str]:
    """The feature names as a list (one name or several); BidlabInputError for a name that is
    not in FEATURES."""
    names = [names] if isinstance(names, str) else list(names)
    bad = [n for n in names if n not in FEATURES]
    if bad:
        raise BidlabInputError(f"unknown hand feature(s) {', '.join(map(repr, bad))}; "
                               f"allowed: {', '.join(FEATURES)}")
    return names


def add_features(df: pd.DataFrame, v: Variant, names: str | Iterable[str] | None = None
                 ) -> pd.DataFrame:
    """A copy of df with one int16 column per feature (default: the variant's hand_classes).

    df needs `trump` and `mask` (or `cards`). Unknown names raise BidlabInputError.
    """
    names = check_features(v.hand_classes if names is None else names)
    out = df.copy()
    if not names:
        return out
    if "trump" not in df.columns:
        raise BidlabInputError("hand features need a 'trump' column (S H D C NT)")
    masks = hand_masks(df, v)
    t = trump_codes(df["trump"])
    for name in names:
        out[name] = FEATURES[name](masks, t, v)
    return out


def card_labels(v: Variant, t: int) -> list[str]:
    """A short player's name for every deck card under trump index t, the same for cards
    that play alike: specials by name, trumps as "trump A", side-suit cards by rank only
    (with one or two cards, the card itself is the hand class)."""
    out = []
    for c, card in enumerate(v.cards.cards):
        if card.special:
            out.append(v.cards.names[c])
        elif t != NT and v.eff_suit_table[t][c] == t:
            name = v.cards.names[c]
            # a card moved into the trump suit (a Little Jack) keeps its printed name
            out.append(f"trump {name[:-1]}" if card.suit == t
                       else f"trump {name[:-1]} (same colour)")
        else:
            out.append(v.cards.names[c][:-1])
    return out


def strongest_card(v: Variant, masks: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Deck index of each hand's strongest card under its trump (the card ranking of
    top_cards; a hand of never-winning cards gives its first card)."""
    D = len(v.cards)
    order = np.zeros((5, D), np.int64)             # larger = stronger
    for tt in range(5):
        keys = [_strength(v, tt, c) for c in range(D)]
        ranked = sorted(range(D), key=lambda c: (keys[c] is not None, keys[c] or (0, 0)))
        order[tt, ranked] = np.arange(D)
    bits = ((masks[:, None] >> np.arange(D, dtype=np.uint64)) & _ONE).astype(bool)
    score = np.where(bits, order[t], -1)
    return score.argmax(axis=1)
