"""Hand classes a player can count at the table: the cells of class tables and cheat sheets.

With one card the class is the card itself (by what it is under the trump: "trump K",
"A", "HIJO"); with two, the stronger card and the trumps held; with more, the hand's point
count (each card's measured trick rate, averaged over the cards a player cannot tell apart
and rounded so a sheet can print them) in half-trick classes, the trumps held, the top
cards held (the three strongest of the deck under the trump: a trump Ace or King turns a
weak count into a sure trick), the high side-suit cards held and, where the deck has
specials that are never top cards (a LoJo, the Fools, jokers that win only when led), how
many of those are held.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulate.hands.job import card_rates
from simulate.rules.features import FEATURES, card_labels, strongest_card, top_cards
from simulate.rules.variant import Variant

CAP = 3                   # counts other than trumps above this are pooled ("3" = 3 or more)


def sheet_features(v: Variant, hand_size: int) -> list[str]:
    """The features of the hand class at this hand size (see the module notes)."""
    if hand_size == 1:
        return ["card"]
    if hand_size == 2:
        return ["card", "trumps"]
    out = ["points", "trumps", "top3", "side_high"]
    if _has_low_specials(v):
        out.append("specials")
    return out


def _has_low_specials(v: Variant) -> bool:
    """Whether some special card is never among the top three (a LoJo, a Fool, a joker that
    wins only when led): what it does to a score is not in its trick rate, so holding one is
    part of the class."""
    tops: set[int] = set()
    for t in range(5):
        tops |= set(top_cards(v, t, 3))
    return any(c.special and i not in tops for i, c in enumerate(v.cards.cards))


POINT_STEP = 0.5          # the sheet's point classes are this many tricks wide


def point_table(v: Variant, hand_size: int) -> np.ndarray:
    """float64[5, D]: the points the sheet gives each card under each trump — the tricks a
    card takes on average (the heuristic bidder's measured card rates), averaged over the
    cards a player cannot tell apart (one name of card_labels, over every suit trump that
    occurs; no trump apart), rounded to 0.05 so the sheet can print them."""
    rate = card_rates(v, hand_size)                     # float64[5, D]
    out = np.zeros_like(rate)
    suits = [t for t in range(4) if rate[t].sum() > 0]
    for group in (suits, [4]):
        values: dict[str, list[float]] = {}
        for t in group:
            for c, name in enumerate(card_labels(v, t)):
                values.setdefault(name, []).append(float(rate[t, c]))
        for t in group:
            for c, name in enumerate(card_labels(v, t)):
                out[t, c] = np.round(np.mean(values[name]) / 0.05) * 0.05
    return out


def point_frame(v: Variant, hand_size: int) -> pd.DataFrame:
    """The point table as the sheet prints it: card name, points with a suit trump, points
    in no trump (NaN where that trump does not occur)."""
    rate = card_rates(v, hand_size)
    table = point_table(v, hand_size)
    rows: dict[str, dict[str, float]] = {}
    for t in range(5):
        if rate[t].sum() <= 0:
            continue
        col = "no_trump" if t == 4 else "suit_trump"
        for c, name in enumerate(card_labels(v, t)):
            rows.setdefault(name, {})[col] = float(table[t, c])
    df = pd.DataFrame([{"card": k, **x} for k, x in rows.items()])
    for col in ("suit_trump", "no_trump"):
        if col not in df:
            df[col] = np.nan
    return df.sort_values("suit_trump", ascending=False, na_position="last").reset_index(drop=True)


def hand_points(v: Variant, hand_size: int, masks: np.ndarray, trumps: np.ndarray) -> np.ndarray:
    """The sheet's point count of each hand: the sum of its cards' points (point_table)."""
    return weighted_sum(masks, trumps, point_table(v, hand_size))


def weighted_sum(masks: np.ndarray, trumps: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """sum of weights[trump, c] over the cards c of each hand (uint64 masks, one trump index
    per hand). A byte of the mask at a time through a 256-entry table of partial sums: eight
    lookups per hand, instead of a hands x cards matrix (the report sums 200,000 hands per
    seat and size, many times)."""
    masks = np.asarray(masks, dtype=np.uint64)
    trumps = np.asarray(trumps, dtype=np.int64)
    n_trumps, n_cards = weights.shape
    padded = np.zeros((n_trumps, 64))
    padded[:, :n_cards] = weights
    # partial[t, k, b]: the weights of the cards 8k.. 8k+7 whose bits are set in byte b
    byte_bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(float)     # [256, 8]
    partial = np.einsum("bj,tkj->tkb", byte_bits, padded.reshape(n_trumps, 8, 8))
    out = np.zeros(len(masks))
    for k in range(8):
        byte = ((masks >> np.uint64(8 * k)) & np.uint64(255)).astype(np.intp)
        out += partial[trumps, k, byte]
    return out


def class_columns(v: Variant, hand_size: int, masks: np.ndarray, trumps: np.ndarray,
                  features: list[str] | None = None) -> pd.DataFrame:
    """The hand class of each hand as columns: counts other than trumps capped at CAP ("3"
    means 3 or more); points in POINT_STEP classes (the lower edge);
    the "card" feature is the strongest card's player's name under the deal's trump
    ("trump A", "K", "HIJO")."""
    features = sheet_features(v, hand_size) if features is None else features
    masks = np.asarray(masks, dtype=np.uint64)
    trumps = np.asarray(trumps, dtype=np.int64)
    out: dict[str, np.ndarray] = {}
    for name in features:
        if name == "points":
            pts = hand_points(v, hand_size, masks, trumps)
            out[name] = np.floor(pts / POINT_STEP + 1e-9) * POINT_STEP
        elif name == "card":
            best = strongest_card(v, masks, trumps)
            labels = np.array([card_labels(v, t) for t in range(5)], dtype=object)
            out[name] = labels[trumps, best]
        else:
            value = FEATURES[name](masks, trumps, v).astype(np.int64)
            # trump length decides long hands, so trumps keep every count
            out[name] = value if name == "trumps" else np.minimum(value, CAP)
    return pd.DataFrame(out, index=pd.RangeIndex(len(masks)))


