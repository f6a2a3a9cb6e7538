"""Card values: the tricks each card adds to a hand, by trump, from a least-squares fit.

tricks = sum over the hand's cards of value[card] (no intercept: the indicators of a hand
always add up to the hand size, so an intercept would only be shared out among them). The
fit runs per trump on the normal equations, accumulated in blocks, so a million hands cost a
few D×D matrices. 95% intervals come from the residual variance and (XᵀX)⁻¹.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.util.stats import Z95

BLOCK = 200_000


def _bits(masks: np.ndarray, D: int) -> np.ndarray:
    return ((masks[:, None] >> np.arange(D, dtype=np.uint64)) & np.uint64(1)).astype(np.float64)


def card_values(records: pd.DataFrame, v: Variant, min_holding: int = 30) -> pd.DataFrame:
    """One row per (trump, card) seen in `records` (a HandResults.records frame of one hand
    size): value (tricks the card adds), its 95% CI, whether the card is a trump there, and
    how many hands held it. Cards held fewer than `min_holding` times get no value."""
    D = len(v.cards)
    rows = []
    trumps = records["trump"].astype(str).to_numpy()
    masks = records["mask"].to_numpy(dtype=np.uint64)
    tricks = records["tricks"].to_numpy(dtype=np.float64)
    for t_name in dict.fromkeys(trumps):
        t = TRUMP_NAMES.index(t_name)
        idx = np.flatnonzero(trumps == t_name)
        xtx = np.zeros((D, D))
        xty = np.zeros(D)
        yty = 0.0
        held = np.zeros(D, dtype=np.int64)
        for start in range(0, len(idx), BLOCK):
            part = idx[start:start + BLOCK]
            X = _bits(masks[part], D)
            y = tricks[part]
            xtx += X.T @ X
            xty += X.T @ y
            yty += float(y @ y)
            held += X.sum(axis=0).astype(np.int64)
        use = np.flatnonzero(held >= min_holding)
        if use.size == 0:
            continue
        A = xtx[np.ix_(use, use)]
        beta, *_ = np.linalg.lstsq(A, xty[use], rcond=None)
        n = len(idx)
        rss = max(float(yty - 2 * beta @ xty[use] + beta @ A @ beta), 0.0)
        sigma2 = rss / max(n - use.size, 1)
        se = np.sqrt(np.maximum(np.diag(np.linalg.pinv(A)) * sigma2, 0.0))
        for j, c in enumerate(use):
            rows.append({"trump": t_name, "card": v.cards.names[c],
                         "is_trump": bool(t < 4 and v.eff_suit_table[t][c] == t),
                         "value": beta[j], "ci_low": beta[j] - Z95 * se[j],
                         "ci_high": beta[j] + Z95 * se[j], "held": int(held[c]), "hands": n})
    return pd.DataFrame(rows)
