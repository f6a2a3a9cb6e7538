"""Class tables from forced-bid runs: for each (seat, earlier bids, hand class) cell, every
candidate bid's E[score] and P(exact) with intervals, the best legal bid, the runner-up and
the paired difference between them, on the same deals (simulate.hands.forced)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulate.hands.classes import class_columns, sheet_features
from simulate.hands.forced import ForcedRun
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.util.stats import Z95, group_sums, wilson

MIN_CELL = 100            # deals a cell needs before its best bid is printed without "thin"


def _group(keys: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """Group index of every row and the distinct key rows (sorted)."""
    codes = keys.groupby(list(keys.columns), sort=True, observed=True).ngroup().to_numpy()
    uniq = keys.drop_duplicates().sort_values(list(keys.columns)).reset_index(drop=True)
    return codes, uniq


def forced_class_table(runs: list[ForcedRun], v: Variant, features: list[str] | None = None,
                       by_prev: bool = True, min_cell: int = MIN_CELL
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Class tables from forced runs: (cells, bids).

    Cells are (seat, sum of earlier bids when by_prev and the seat bids after others, the
    hand class); `bids` has one row per cell and candidate bid: deals n where the bid was
    allowed, E[score | bid] with its 95% interval, P(exact | bid) with its Wilson interval,
    and `forbidden` when the rules never allowed it in the cell. `cells` has one row per
    cell: n, the best bid (the best *legal* one: a bid is compared only on the deals where
    it was allowed), its E[score] and P(exact), the runner-up, the paired difference
    best - runner-up on the deals both were allowed with its 95% interval, `too_close`
    when that interval covers 0, `thin` when n < min_cell, the forbidden bids, and `alt`:
    the best bid on the deals of the cell where the best one was forbidden (the dealer's
    answer to the hook when the sum of earlier bids is pooled), -1 when it never was.
    Scores are the seat's own; "better" follows the game (lower wins in Horseshoes).
    """
    if not runs:
        raise ValueError("forced_class_table needs at least one forced run")
    h = runs[0].hand_size
    features = sheet_features(v, h) if features is None else features
    cell_parts, bid_parts = [], []
    for run in runs:
        keys = class_columns(v, h, run.masks, run.trumps, features)
        keys.insert(0, "seat", run.seat)
        if by_prev and run.earlier:
            keys.insert(1, "prev_sum", run.prev)
        cells, bids = _tables_for(run, keys, min_cell)
        cell_parts.append(cells)
        bid_parts.append(bids)
    cells = pd.concat(cell_parts, ignore_index=True)
    bids = pd.concat(bid_parts, ignore_index=True)
    if by_prev and "prev_sum" in cells:
        cells["prev_sum"] = cells["prev_sum"].astype("Int64")
        bids["prev_sum"] = bids["prev_sum"].astype("Int64")
    cells.attrs.update({"features": features, "hand_size": h, "by_prev": by_prev,
                        "deals_per_seat": runs[0].deals, "min_cell": min_cell,
                        "better": "lower" if runs[0].better_low else "higher"})
    return cells, bids


def _tables_for(run: ForcedRun, keys: pd.DataFrame, min_cell: int
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    g, uniq = _group(keys)
    G, B = len(uniq), len(run.bids)
    signed = run.signed()
    allowed = ~np.isnan(signed)
    # a raced-out bid (forced_run(race=True)) holds its cell's mean over the deals it was
    # played on: it counts toward the mean (so a coarser group averages its cells with
    # their weights), not toward n, the spread or P(exact)
    played = allowed & ~run.raced if run.raced is not None else allowed
    n_allowed = group_sums(allowed.astype(np.float64), g, G)
    n = group_sums(played.astype(np.float64), g, G)
    total = group_sums(signed, g, G)
    observed = np.where(played, signed, np.nan)
    square = group_sums(observed * observed, g, G)
    hits = group_sums((run.exact & played).astype(np.float64), g, G)
    deals = np.bincount(g, minlength=G)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n_allowed
        own_mean = group_sums(observed, g, G) / n
        sd = np.sqrt(np.maximum(square / n - own_mean * own_mean, 0.0))
        half = Z95 * sd / np.sqrt(n)
    mean = np.where(n > 0, mean, np.nan)
    sign = -1.0 if run.better_low else 1.0
    order = np.argsort(np.where(np.isnan(mean), -np.inf, mean), axis=1)[:, ::-1]
    best, runner = order[:, 0], order[:, 1] if B > 1 else order[:, 0]
    has_runner = (B > 1) & (n[np.arange(G), runner] > 0)
    # paired best - runner-up per deal of each cell, on the deals both were allowed
    d = observed[np.arange(len(g)), best[g]] - observed[np.arange(len(g)), runner[g]]
    both = ~np.isnan(d)
    m = np.bincount(g, weights=both.astype(np.float64), minlength=G)
    dsum = np.bincount(g, weights=np.where(both, d, 0.0), minlength=G)
    dsq = np.bincount(g, weights=np.where(both, d * d, 0.0), minlength=G)
    with np.errstate(invalid="ignore", divide="ignore"):
        dmean = dsum / m
        dse = np.sqrt(np.maximum(dsq / m - dmean * dmean, 0.0) / np.maximum(m - 1, 1))
    # the best bid where the best was forbidden on a deal (pooled sums of earlier bids)
    missing = np.isnan(signed[np.arange(len(g)), best[g]])
    alt = np.full(G, -1, np.int64)
    if missing.any():
        rows = signed[missing]
        gm = g[missing]
        with np.errstate(invalid="ignore", divide="ignore"):
            am = group_sums(rows, gm, G) / group_sums((~np.isnan(rows)).astype(np.float64), gm, G)
        am = np.where(np.isnan(am), -np.inf, am)
        has = np.bincount(gm, minlength=G) > 0
        alt = np.where(has, np.argmax(am, axis=1), -1)
    idx = np.arange(G)
    cells = uniq.copy()
    cells["n"] = deals
    cells["best"] = run.bids[best]
    cells["e_score"] = sign * mean[idx, best]
    cells["ci_low"] = sign * mean[idx, best] - half[idx, best]
    cells["ci_high"] = sign * mean[idx, best] + half[idx, best]
    cells["p_exact"] = hits[idx, best] / np.maximum(n[idx, best], 1)
    cells["runner_up"] = np.where(has_runner, run.bids[runner], -1)
    cells["e_runner_up"] = np.where(has_runner, sign * mean[idx, runner], np.nan)
    # differences are reported as "how much better the best is", in score points
    cells["diff"] = np.where(has_runner, dmean, np.nan)
    cells["diff_low"] = np.where(has_runner, dmean - Z95 * dse, np.nan)
    cells["diff_high"] = np.where(has_runner, dmean + Z95 * dse, np.nan)
    cells["too_close"] = has_runner & ~(cells["diff_low"].to_numpy() > 0)
    cells["thin"] = deals < min_cell
    cells["forbidden"] = [" ".join(str(int(b)) for b in run.bids[(n_allowed[i] == 0)])
                          for i in idx]
    cells["alt"] = np.where(alt >= 0, run.bids[np.maximum(alt, 0)], -1)
    cells["trumps_named"] = _trump_names(run.trumps, g, G)
    bid_rows = uniq.loc[np.repeat(idx, B)].reset_index(drop=True)
    flat_n = n.ravel()
    p = hits.ravel() / np.maximum(flat_n, 1)
    low, high = wilson(hits.ravel(), flat_n)
    bid_rows["bid"] = np.tile(run.bids, G)
    bid_rows["n"] = flat_n.astype(np.int64)
    bid_rows["e_score"] = sign * mean.ravel()
    bid_rows["ci_low"] = sign * mean.ravel() - half.ravel()
    bid_rows["ci_high"] = sign * mean.ravel() + half.ravel()
    bid_rows["p_exact"] = np.where(flat_n > 0, p, np.nan)
    bid_rows["p_low"], bid_rows["p_high"] = low, high
    bid_rows["forbidden"] = n_allowed.ravel() == 0
    bid_rows["raced"] = (n_allowed.ravel() > flat_n)
    return cells, bid_rows


def _trump_names(trumps: np.ndarray, g: np.ndarray, G: int) -> list[str]:
    """The trumps the deals of each cell were played in (a class pools trumps)."""
    present = np.zeros((G, 5), np.bool_)
    present[g, trumps] = True
    # one text per pattern of trumps present (32 at most), looked up by the pattern's bits
    pattern = present @ (1 << np.arange(5))
    text = [" ".join(TRUMP_NAMES[t] for t in range(5) if k >> t & 1) for k in range(32)]
    return [text[k] for k in pattern]
