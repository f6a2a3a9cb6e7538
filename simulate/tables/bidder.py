"""Learned bidder data kept apart from the rules: per-card trick rates by (variant, hand
size), measured by simulate.hands.calibrate or loaded with a trained table.

The rates live here, keyed by the variant's canonical string, so a rate measured once is
found again by every caller (and copied into tables compiled later) without any state on
the frozen Variant.
"""

from __future__ import annotations

import numpy as np

from simulate.util.memo import KeyedCache

# (canonical, hand size) -> float64[5, D]; big enough for every hand size of many variants
_card_rates: KeyedCache[tuple[str, int], np.ndarray] = KeyedCache(limit=4096)


def get_card_rate(canonical: str, hand_size: int) -> np.ndarray | None:
    """The card rates recorded for this configuration and hand size, or None."""
    return _card_rates.get((canonical, hand_size))


def set_card_rate(canonical: str, hand_size: int, rate: np.ndarray) -> np.ndarray:
    """Record the card rates of this configuration and hand size; returns `rate`."""
    return _card_rates.put((canonical, hand_size), rate)


def table_hand_class(card_rate: np.ndarray, suit_mask: np.ndarray, n_bins: int,
                     masks: np.ndarray, trumps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The table bidder's hand class of each hand, exactly as the kernel's hand_class
    computes it: (expected tricks in half-trick bins, capped at n_bins - 1; trumps held).

    card_rate: float64[5, D] the hand size's card rates; suit_mask: uint64[5, 4]; masks:
    uint64[N] hands; trumps: int[N] their deals' trumps (4 = no trump). The rates are added
    card by card from the lowest deck index, as the kernel adds them, so a hand on a bin's
    edge falls in the same bin.
    """
    D = card_rate.shape[1]
    bits = ((masks[:, None] >> np.arange(D, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    est = np.where(bits, card_rate[trumps], 0.0).cumsum(axis=1)[:, -1]
    k = np.minimum((2.0 * est).astype(np.int64), n_bins - 1)
    trump_masks = np.array([suit_mask[t, t] if t < 4 else 0 for t in range(5)],
                           dtype=np.uint64)[trumps]
    held = np.bitwise_count(masks & trump_masks).astype(np.int64)
    return k, held
