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
