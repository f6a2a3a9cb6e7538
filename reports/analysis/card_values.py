"""Card values: direct attribution, marginal (swap) values and a least-squares fit.

Three numbers answer three questions. Direct attribution (simulate.hands.card_attribution,
counted from the kernel's traces): the tricks the card itself took per hand its seat held
it. Marginal value (simulate.hands.card_swap): how many more tricks, and how much more score,
the seat made holding the card than on the same deal with the reference card in its place.
`card_value_table` and `marginal_by_seat` put them side by side for one trump. Below, the
least-squares fit:

tricks = level + sum over the hand's cards of value[card] - the reference card's share. Every
hand holds h cards, so a value per card is identified only up to a common shift (a constant
moved from every card into the level changes no fit): the values here are differences to one
reference card (by default the lowest plain card of a side suit held often enough, a card
that takes almost nothing), with the level as the intercept. A value is therefore "the tricks
this hand takes more, on average, holding this card instead of the reference card", for the
policies that played the records, not the tricks the card takes itself.

The fit runs per trump on the normal equations, accumulated in blocks; its 95% intervals are
cluster-robust with the deal as the cluster (the seats of one deal share its cards, and the
residual spread varies across hands, so the classical intervals do not hold), with the CR1
small-sample factor; R² says how much of the trick count the additive model explains.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulate.hands.card_swap import reference_card as swap_reference
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.util.stats import Z95

BLOCK = 200_000


def _bits(masks: np.ndarray, D: int) -> np.ndarray:
    """uint8[len(masks), D]: bit c of each hand mask (card c held), unpacked bytewise (an
    order of magnitude faster than shifting every mask D times)."""
    raw = np.ascontiguousarray(masks, dtype="<u8").view(np.uint8).reshape(len(masks), 8)
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :D]


def _blocks(deals: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges of about BLOCK rows that never split a deal (rows sorted by deal)."""
    out, start, n = [], 0, len(deals)
    while start < n:
        end = min(start + BLOCK, n)
        while end < n and deals[end] == deals[end - 1]:
            end += 1
        out.append((start, end))
        start = end
    return out


def reference_card(v: Variant, t: int, use: np.ndarray) -> int:
    """The default reference card under trump t among the cards `use`: the lowest natural
    card of a side suit (the lowest card overall under no trump), the marginal values' rule."""
    return swap_reference(v, t, use)


def _cluster_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The row sums of each cluster (rows starts[i]..starts[i+1]-1): by a reshape where
    every cluster has the same number of rows (every seat of every deal, the usual case),
    else by reduceat."""
    n = len(values)
    size = n // len(starts) if len(starts) else 0
    if size and size * len(starts) == n and np.all(starts == np.arange(0, n, size)):
        return values.reshape(len(starts), size, values.shape[1]).sum(axis=1)
    return np.add.reduceat(values, starts, axis=0)


def _fit(X_rows: list[np.ndarray], y_rows: list[np.ndarray], deals: list[np.ndarray]
         ) -> tuple[np.ndarray, np.ndarray, float]:
    """(coefficients, cluster-robust covariance, R²) of y on X (the first column 1)."""
    k = X_rows[0].shape[1]
    xtx, xty = np.zeros((k, k)), np.zeros(k)
    n, ysum, yy = 0, 0.0, 0.0
    for X, y in zip(X_rows, y_rows, strict=True):
        xtx += X.T @ X
        xty += X.T @ y
        n += len(y)
        ysum += float(y.sum())
        yy += float(y @ y)
    inv = np.linalg.pinv(xtx)
    beta = inv @ xty
    meat = np.zeros((k, k))
    rss, clusters = 0.0, 0
    for X, y, d in zip(X_rows, y_rows, deals, strict=True):
        e = y - X @ beta
        rss += float(e @ e)
        starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
        clusters += len(starts)
        u = _cluster_sums(X * e[:, None], starts)
        meat += u.T @ u
    tss = yy - ysum * ysum / n
    factor = clusters / max(clusters - 1, 1) * (n - 1) / max(n - k, 1)
    cov = factor * inv @ meat @ inv
    return beta, cov, 1.0 - rss / tss if tss > 0 else float("nan")


def card_values(records: pd.DataFrame, v: Variant, min_holding: int = 30,
                reference: str | None = None, policies: str = "") -> pd.DataFrame:
    """One row per (trump, card) seen in `records` (a HandResults.records frame of one hand
    size, a `deal` column grouping the seats of a deal): value (the tricks a hand takes more
    holding this card instead of the reference card) with its cluster-robust 95% CI,
    whether the card is a trump there, how many hands held it, the reference card, the
    level (tricks of a hand of reference-valued cards), the fit's R², and `policies` (what
    played the records). Cards held fewer than `min_holding` times get no value; the
    reference card's own row has value 0 with no interval."""
    D = len(v.cards)
    rows = []
    trumps = records["trump"].astype(str).to_numpy()
    masks = records["mask"].to_numpy(dtype=np.uint64)
    tricks = records["tricks"].to_numpy(dtype=np.float64)
    deal_ids = records["deal"].to_numpy() if "deal" in records else np.arange(len(records))
    for t_name in dict.fromkeys(trumps):
        t = TRUMP_NAMES.index(t_name)
        idx = np.flatnonzero(trumps == t_name)
        idx = idx[np.argsort(deal_ids[idx], kind="stable")]
        held = np.zeros(D, dtype=np.int64)
        for start, end in _blocks(deal_ids[idx]):
            held += _bits(masks[idx[start:end]], D).sum(axis=0, dtype=np.int64)
        use = np.flatnonzero(held >= min_holding)
        if use.size < 2:
            continue
        ref = v.deck.index(reference) if reference in v.deck else reference_card(v, t, use)
        if ref not in use:
            continue
        cols = [int(c) for c in use if c != ref]
        X_rows, y_rows, d_rows = [], [], []
        for start, end in _blocks(deal_ids[idx]):
            part = idx[start:end]
            bits = _bits(masks[part], D)
            X_rows.append(np.column_stack([np.ones(len(part)), bits[:, cols]]))
            y_rows.append(tricks[part])
            d_rows.append(deal_ids[part])
        beta, cov, r2 = _fit(X_rows, y_rows, d_rows)
        se = np.sqrt(np.maximum(np.diag(cov), 0.0))
        common = {"trump": t_name, "reference": v.cards.names[ref], "level": beta[0],
                  "r2": r2, "hands": len(idx), "policies": policies}
        for j, c in enumerate([int(ref), *cols]):
            value, err = (0.0, np.nan) if j == 0 else (beta[j], se[j])
            rows.append({**common, "card": v.cards.names[c],
                         "is_trump": bool(t < 4 and v.eff_suit_table[t][c] == t),
                         "value": value, "ci_low": value - Z95 * err,
                         "ci_high": value + Z95 * err, "held": int(held[c])})
    return pd.DataFrame(rows)


def direct_card_values(card_rates: pd.DataFrame, v: Variant, policies: str = "") -> pd.DataFrame:
    """Direct attribution, counted in the kernel: per (trump, card), the tricks the card
    itself took per hand that held it (it won the trick it was played to), with a 95%
    Wilson interval over the hands that held it (a card is in at most one hand of a deal,
    so each deal counts once). card_rates: HandResults.card_rates() of a run with
    keep="summary" and card_stats=True; policies: what played it (kept in a column).
    Unlike the fit, this needs no reference card: the values are absolute, and they add up
    over a hand's cards to the tricks the hand took."""
    from simulate.util.stats import wilson

    if card_rates.empty:
        return pd.DataFrame(columns=["trump", "card", "is_trump", "value", "ci_low",
                                     "ci_high", "held", "won", "policies"])
    lo, hi = wilson(card_rates["won"].to_numpy(float), card_rates["dealt"].to_numpy(float))
    is_trump = [t != "NT" and v.eff_suit_table[TRUMP_NAMES.index(t)][v.deck.index(c)] ==
                TRUMP_NAMES.index(t) for t, c in zip(card_rates.trump, card_rates.card,
                                                     strict=True)]
    return pd.DataFrame({"trump": card_rates["trump"], "card": card_rates["card"],
                         "is_trump": is_trump, "value": card_rates["rate"], "ci_low": lo,
                         "ci_high": hi, "held": card_rates["dealt"], "won": card_rates["won"],
                         "policies": policies})


def card_value_table(direct: pd.DataFrame | None, marginal: pd.DataFrame | None,
                     fit: pd.DataFrame | None, trump: str) -> pd.DataFrame:
    """One row per card under `trump`, all seats pooled: direct attribution (`direct`,
    with its interval and hands held), the marginal value in tricks and in score against
    the reference card (with intervals and pairs), and the least-squares value relative
    to the reference (`ls`, with its interval and the fit's R²); missing parts are NaN.
    Sorted by marginal value (or direct, without marginal values)."""
    frames = []
    if direct is not None and len(direct):
        d = direct[(direct["trump"].astype(str) == trump) & (direct["seat"].astype(str) == "all")]
        frames.append(d.set_index("card")[["value", "ci_low", "ci_high", "held"]].rename(
            columns={"value": "direct", "ci_low": "direct_lo", "ci_high": "direct_hi"}))
    if marginal is not None and len(marginal):
        m = marginal[(marginal["trump"].astype(str) == trump) &
                     (marginal["seat"].astype(str) == "all")]
        frames.append(m.set_index("card")[["tricks", "tricks_lo", "tricks_hi", "score",
                                           "score_lo", "score_hi", "pairs", "reference"]])
    if fit is not None and len(fit):
        f = fit[fit["trump"].astype(str) == trump]
        frames.append(f.set_index("card")[["value", "ci_low", "ci_high", "r2", "reference"]]
                      .rename(columns={"value": "ls", "ci_low": "ls_lo", "ci_high": "ls_hi",
                                       "reference": "ls_reference"}))
    if not frames:
        return pd.DataFrame()
    # a deck may hold identical copies of a card (Kings and Fools' two Fools): one row each
    frames = [f[~f.index.duplicated()] for f in frames]
    out = pd.concat(frames, axis=1).reset_index().rename(columns={"index": "card"})
    trump_cards: set[str] = set()
    for part in (direct, marginal, fit):
        if part is not None and "is_trump" in part:
            mine = part[(part["trump"].astype(str) == trump) & part["is_trump"].astype(bool)]
            trump_cards |= set(mine["card"].astype(str))
    out["is_trump"] = out["card"].isin(trump_cards)
    out.insert(0, "trump", trump)
    key = "tricks" if "tricks" in out.columns else "direct" if "direct" in out.columns else "ls"
    return out.sort_values(key, ascending=False, na_position="last").reset_index(drop=True)


def marginal_by_seat(marginal: pd.DataFrame | None, direct: pd.DataFrame | None,
                     trump: str) -> pd.DataFrame:
    """Long table of one trump by (card, seat), seats 0..n-1 (0 = dealer's left, n-1 =
    the dealer): the marginal value in tricks with its interval and pairs, beside the
    direct attribution with its interval and hands held."""
    parts = []
    if marginal is not None and len(marginal):
        m = marginal[(marginal["trump"].astype(str) == trump) &
                     (marginal["seat"].astype(str) != "all")]
        parts.append(m.set_index(["card", "seat"])[["tricks", "tricks_lo", "tricks_hi",
                                                    "pairs"]])
    if direct is not None and len(direct):
        d = direct[(direct["trump"].astype(str) == trump) & (direct["seat"].astype(str) != "all")]
        parts.append(d.set_index(["card", "seat"])[["value", "ci_low", "ci_high", "held"]]
                     .rename(columns={"value": "direct", "ci_low": "direct_lo",
                                      "ci_high": "direct_hi"}))
    if not parts:
        return pd.DataFrame()
    return pd.concat([p[~p.index.duplicated()] for p in parts], axis=1).reset_index()
