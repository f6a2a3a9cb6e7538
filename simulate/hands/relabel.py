"""Two cards' labels exchanged in a configuration's compiled rule tables.

The kernel knows a card only by its deck index. Tables in which indices x and r have traded
every property (suit, rank, mechanic, bidder weights, event cards) describe the same game
with the two cards' places in the deck exchanged: the same seed then deals the same
indices to the same seats, so every seat holds the same cards except that whoever held x
now holds r and whoever held r now holds x. That is the whole deal with two cards
transposed, which no choice of fixed hands can give once undealt cards are drawn after the
hands (a turned-up card, a widow): fixing hands changes the pool those draws come from.

Every array of RuleTables is named below with how it is indexed by card, so a table added
later without an entry here fails loudly (`swap_cards` raises) rather than being left
unswapped.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulate.tables import layout as L
from simulate.tables.compile import RuleTables, order_moves

# how each array of RuleTables is indexed by card:
#   "last": its last axis is the card; "rank": its values are cards (by_rank);
#   "masks": its values are card bitmasks; "axis+masks": both (beaters);
#   "one_card": the last axis is the card and axis 2 the turned-up card + 1 (when present);
#   "from srank": rebuilt from the swapped srank (srank_moves); None: no card in it
CARD_AXES: dict[str, str | None] = {
    "P": "P", "eff": "last", "power": "last", "mech": "last", "suit_mask": "masks",
    "masks": "masks", "strength": "last", "win_weight": "last", "score": None,
    "lose_bonus": None, "as_exact": None, "all_exact": None, "defenders": None,
    "ladder": None, "card_suit": "last", "srank": "last", "by_rank": "rank",
    "srank_moves": "from srank",
    "beaters": "axis+masks", "lead_beaters": "axis+masks", "card_rate": "last",
    "bid_table": None, "one_card": "one_card",
    # the learned bidder's weights are by card name, not by card; the names move with cards
    "bid_model": None, "model_label": "last",
}


def swap_bits(masks: np.ndarray, x: int, r: int) -> np.ndarray:
    """uint64 card masks with bits x and r exchanged."""
    m = masks.astype(np.uint64)
    bx = (m >> np.uint64(x)) & np.uint64(1)
    br = (m >> np.uint64(r)) & np.uint64(1)
    diff = bx ^ br
    flip = (diff << np.uint64(x)) | (diff << np.uint64(r))
    return m ^ flip


def _swap_last(a: np.ndarray, x: int, r: int) -> np.ndarray:
    out = a.copy()
    out[..., [x, r]] = a[..., [r, x]]
    return out


def _swap_values(a: np.ndarray, x: int, r: int, D: int) -> np.ndarray:
    """Card values exchanged in the first D columns (later columns are unused padding)."""
    out = a.copy()
    part = a[..., :D]
    out[..., :D][part == x] = r
    out[..., :D][part == r] = x
    return out


def _swap_one_card(a: np.ndarray, x: int, r: int) -> np.ndarray:
    if a.shape == (1, 1, 1, 1):          # no exact one-card table
        return a
    out = _swap_last(a, x, r)
    if out.shape[2] == a.shape[3] + 1:   # axis 2: the turned-up card + 1
        out[:, :, [x + 1, r + 1]] = out[:, :, [r + 1, x + 1]]
    return out


def _swap_p(P: np.ndarray, x: int, r: int) -> np.ndarray:
    out = P.copy()
    slots = [L.ALL_PASS_CARD] + [L.EVENT0 + 3 * e for e in range(int(P[L.N_EVENTS]))]
    for s in slots:
        if out[s] == x:
            out[s] = r
        elif out[s] == r:
            out[s] = x
    return out


def swap_cards(t: RuleTables, x: int, r: int) -> RuleTables:
    """The tables with cards x and r exchanging deck places (see the module notes); the same
    tables when x == r. Raises if RuleTables holds an array this module does not know."""
    fields = {f.name for f in dataclasses.fields(t)}
    if fields != set(CARD_AXES):
        raise RuntimeError(f"relabel.CARD_AXES does not describe RuleTables: "
                           f"{sorted(fields ^ set(CARD_AXES))}")
    if x == r:
        return t
    changes: dict[str, np.ndarray] = {}
    for name, how in CARD_AXES.items():
        a = getattr(t, name)
        if how == "P":
            changes[name] = _swap_p(a, x, r)
        elif how == "last":
            changes[name] = _swap_last(a, x, r)
        elif how == "rank":
            changes[name] = _swap_values(a, x, r, int(t.P[L.DECK_SIZE]))
        elif how == "masks":
            changes[name] = swap_bits(a, x, r)
        elif how == "axis+masks":
            changes[name] = swap_bits(_swap_last(a, x, r), x, r)
        elif how == "one_card":
            changes[name] = _swap_one_card(a, x, r)
        elif how == "from srank":
            changes[name] = order_moves(changes["srank"])     # srank comes first
    return dataclasses.replace(t, **changes)
