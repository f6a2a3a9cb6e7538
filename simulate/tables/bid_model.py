"""The learned bidder's data: a small linear model of E[score | bid, hand] per seat.

For a hand size h, a seat and the sum of the bids the seat has heard (capped at H + 1, as
the class table caps it; 0 where bids are simultaneous), the model predicts the seat's
signed score (larger is better) of every candidate bid b as a sum of weights over the
hand's features:

  card names   one weight per card a player tells apart under the trump (card_labels:
               "trump A", "K", "FOOL", ...; under no trump apart: "no trump: A"), counted
               over the hand's cards;
  trumps held  one weight for the number of trumps (0..h), or for "no trump";
  strength     one weight for (expected tricks by the card rates, in half tricks, capped
               at 2h + 1) x (trumps held, capped at MODEL_TRUMP_CAP, or no trump): the
               interaction that separates a long weak trump holding from a short strong
               one. With up to MODEL_TRUMP_CAP trumps these are the class table's own cells,
               so within a group every cell of the table has its own level per bid.

Every feature is a count of "active columns", so a hand's prediction for bid b is the sum
of W[h, seat, heard, column, b] over h + 2 columns (a column's weights for every bid lie
side by side, so the kernel adds a card to all candidate bids in one contiguous pass). The
kernel (simulate.kernel.policies.model_bid) adds exactly those, in the same order, and the
fit (simulate.hands.train_model) builds its design matrix from the same columns
(`active_columns`), so the two cannot disagree.

The weights are float32; NaN marks a (hand size, seat, heard, bid) with no fitted model
(the bid is never chosen by the model; a hand size without any bids from the class table).
"""

from __future__ import annotations

import numpy as np

from simulate.rules.codes import NT
from simulate.rules.features import card_labels
from simulate.rules.variant import Variant
from simulate.tables.bidder import table_hand_class
from simulate.tables.layout import MODEL_TRUMP_CAP

NO_MODEL = np.full((1, 1, 1, 1, 1), np.nan, dtype=np.float32)   # no trained model at all


def model_labels(v: Variant) -> np.ndarray:
    """int64[5, D]: the model's card-name column of every card under every trump index (no
    trump has its own names: an Ace there is not a side Ace beside a trump suit)."""
    names = [[name if t != NT else f"no trump: {name}" for name in card_labels(v, t)]
             for t in range(5)]
    index = {name: i for i, name in enumerate(sorted({n for row in names for n in row}))}
    return np.array([[index[name] for name in row] for row in names], dtype=np.int64)


def model_width(n_labels: int, max_hand: int) -> int:
    """Columns of the model: card names, trumps held (0..H or no trump), strength x
    trumps."""
    return n_labels + (max_hand + 2) + (2 * max_hand + 2) * (MODEL_TRUMP_CAP + 2)


def weights_shape(players: int, max_hand: int, max_bid: int,
                  n_labels: int) -> tuple[int, int, int, int, int]:
    """(H+1, n, H+2, F, B+1): the shape of a configuration's weights, by hand size, seat,
    sum of the heard bids (capped at H + 1), column and bid."""
    return (max_hand + 1, players, max_hand + 2, model_width(n_labels, max_hand), max_bid + 1)


def shape_for(players: int, score: np.ndarray, labels: np.ndarray) -> tuple[int, ...]:
    """weights_shape of a configuration from its compiled score table (int64[H+1, B+1, H+1])
    and model_labels."""
    return weights_shape(players, score.shape[0] - 1, score.shape[1] - 1, int(labels.max()) + 1)


def active_columns(labels: np.ndarray, card_rate: np.ndarray, suit_mask: np.ndarray,
                   hand_size: int, max_hand: int, masks: np.ndarray,
                   trumps: np.ndarray) -> np.ndarray:
    """int64[N, h + 2]: the model columns each hand switches on (a card name column once per
    card, so repeats count), as the kernel's model_bid computes them.

    labels: model_labels; card_rate: float64[5, D] this size's card rates; suit_mask:
    uint64[5, 4]; masks: uint64[N] hands of hand_size cards; trumps: int[N] (4 = none)."""
    masks = np.asarray(masks, dtype=np.uint64)
    trumps = np.asarray(trumps, dtype=np.int64)
    h, H = hand_size, max_hand
    n_labels = int(labels.max()) + 1
    D = labels.shape[1]
    bits = ((masks[:, None] >> np.arange(D, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    rows, cards = np.nonzero(bits)
    per_hand = np.bincount(rows, minlength=len(masks))
    if len(masks) and (per_hand != h).any():
        raise ValueError(f"every hand must hold {h} cards")
    out = np.empty((len(masks), h + 2), dtype=np.int64)
    out[:, :h] = labels[trumps[rows], cards].reshape(len(masks), h)
    # the kernel's own bins: expected tricks summed card by card from the lowest index
    half, held = table_hand_class(card_rate, suit_mask, 2 * H + 2, masks, trumps)
    no_trump = trumps == NT
    held = np.minimum(held, h)
    out[:, h] = n_labels + np.where(no_trump, H + 1, held)
    out[:, h + 1] = n_labels + (H + 2) + np.minimum(half, 2 * h + 1) * (MODEL_TRUMP_CAP + 2) \
        + np.where(no_trump, MODEL_TRUMP_CAP + 1, np.minimum(held, MODEL_TRUMP_CAP))
    return out


def design_matrix(columns: np.ndarray, width: int) -> np.ndarray:
    """float64[N, width]: the counts of each column (the rows of active_columns)."""
    x = np.zeros((len(columns), width))
    np.add.at(x, (np.repeat(np.arange(len(columns)), columns.shape[1]), columns.ravel()), 1.0)
    return x


def predict(weights: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """float64[N, B]: each hand's predicted signed score per bid, from weights float32[F, B]
    (one seat, size and heard sum; B the bids wanted) and the hands' active columns; NaN for
    bids without a model. Summed in the kernel's order (held, strength, then the cards)."""
    w = weights.astype(np.float64)
    h = columns.shape[1] - 2
    total = w[columns[:, h]] + w[columns[:, h + 1]]
    for i in range(h):
        total += w[columns[:, i]]
    return total
