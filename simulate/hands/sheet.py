"""The cheat sheet: exactly the cells a player reads, and the bid each hand gets from them.

One cell per (seat, hand class). Where the seat bids after others, what it should bid
depends on the sum of their bids, so the cell lists its bid by that sum as a few ranges
("2; 4+: 1" = bid 2, or 1 once the earlier bids sum to 4 or more), each range's bid the
best legal bid of the forced-bid class table for those sums (under the hook the dealer's
forbidden bid is never the answer). A sum whose own cell is thin takes the bid of the
pooled cell. `too_close` marks a range whose best and runner-up cannot be told apart
(their paired 95% interval covers 0): the sheet then names both ("2/1").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from simulate.hands.class_table import MIN_CELL, forced_class_table
from simulate.hands.classes import POINT_STEP, class_columns
from simulate.hands.forced import ForcedRun, legal_after
from simulate.rules.variant import Variant


class Range(NamedTuple):
    """The cell's bid for earlier bids summing to lo..hi (hi -1: no upper end)."""

    lo: int
    hi: int
    bid: int
    close: int          # the runner-up when too close to call, else -1


class SheetAnswer(NamedTuple):
    """What the printed sheet says for a hand: the bid to make, the other bid the cell
    names as too close to call (-1: none), and whether the hand's own class has no cell so
    the answer is the nearest cell's (sheet_bid)."""

    bid: int
    close: int
    nearest: bool = False


def cheat_sheet(runs: list[ForcedRun], v: Variant, min_cell: int = MIN_CELL) -> pd.DataFrame:
    """The printable cheat sheet of one hand size from forced runs of every seat: one row per
    (seat, hand class) with n, the pooled best bid and its E[score], `ranges` (the bid by
    the sum of earlier bids, see the module notes), `text` (what the sheet prints), `thin`
    and `too_close`. These are exactly the printed cells; sheet_bid reads them."""
    pooled, pooled_bids = forced_class_table(runs, v, by_prev=False, min_cell=min_cell)
    by_prev, _ = forced_class_table(runs, v, by_prev=True, min_cell=min_cell)
    features = list(pooled.attrs["features"])
    key = ["seat", *features]
    h = int(pooled.attrs["hand_size"])
    sums = by_prev[by_prev["prev_sum"].notna()] if "prev_sum" in by_prev else by_prev.iloc[:0]
    own = _own_answers(sums, key, min_cell)
    ranked = _rankings(pooled_bids, key, pooled.attrs["better"] == "lower")
    # the bids the rules allow after each sum of earlier bids, once per seat (not per cell)
    allowed_by_sum = {r.seat: [legal_after(v, h, r, p) for p in range(len(r.earlier) * h + 1)]
                      for r in runs}
    ranges: list[list[Range]] = []
    texts: list[str] = []
    row: Any
    for row in pooled.itertuples(index=False):
        cell = tuple(getattr(row, c) for c in key)
        allowed = allowed_by_sum[int(row.seat)]
        rs = _ranges(row, own.get(cell, {}), ranked.get(cell, []), len(allowed) - 1,
                     allowed.__getitem__)
        ranges.append(rs)
        texts.append(range_text(rs, bool(row.thin)))
    out = pooled[[*key, "n", "best", "e_score", "ci_low", "ci_high", "p_exact", "runner_up",
                  "diff", "diff_low", "diff_high", "too_close", "thin", "alt"]].copy()
    out["ranges"] = pd.Series(ranges, index=out.index, dtype=object)
    out["text"] = texts
    out.attrs.update(pooled.attrs)
    return out


def _own_answers(sums: pd.DataFrame, key: list[str], min_cell: int
                 ) -> dict[tuple[Any, ...], dict[int, tuple[int, int]]]:
    """For each cell, the sums of earlier bids with min_cell deals of their own: sum ->
    (best, the runner-up when too close to call, else -1). One pass over the table."""
    out: dict[tuple[Any, ...], dict[int, tuple[int, int]]] = {}
    if not len(sums):
        return out
    rows = sums[sums["n"] >= min_cell]
    close = np.where(rows["too_close"].to_numpy(bool), rows["runner_up"].to_numpy(), -1)
    for cell, p, best, other in zip(rows[key].itertuples(index=False, name=None),
                                    rows["prev_sum"].to_numpy(), rows["best"].to_numpy(),
                                    close, strict=True):
        out.setdefault(cell, {})[int(p)] = (int(best), int(other))
    return out


def _rankings(bids: pd.DataFrame, key: list[str], better_low: bool
              ) -> dict[tuple[Any, ...], list[int]]:
    """Each cell's bids from best to worst by pooled E[score] (bids never allowed left out),
    sorted once for the whole table."""
    ok = bids[~bids["forbidden"]].sort_values(
        [*key, "e_score"], ascending=[True] * len(key) + [better_low], kind="stable")
    out: dict[tuple[Any, ...], list[int]] = {}
    for cell, b in zip(ok[key].itertuples(index=False, name=None), ok["bid"].to_numpy(),
                       strict=True):
        out.setdefault(cell, []).append(int(b))
    return out


def _ranges(row: Any, own: dict[int, tuple[int, int]], ranking: list[int], top: int,
            legal: Callable[[int], set[int]]) -> list[Range]:
    """The cell's bid for every sum of earlier bids 0..top, consecutive sums with the same
    answer merged. A sum with enough deals of its own (`own`: sum -> best, too-close other)
    gives its own answer; any other sum the pooled answer, where the rules allow it there —
    else the cell's answer on the deals where its best was forbidden (alt), else its best
    allowed bid by pooled E[score]. A too-close other bid the rules forbid is left out."""
    pooled = (int(row.best), int(row.runner_up) if bool(row.too_close) else -1)
    out: list[Range] = []
    for p in range(top + 1):
        allowed = legal(p)
        bid, close = own.get(p, pooled)
        if bid not in allowed:
            alt = int(row.alt)
            bid = alt if alt in allowed else next((b for b in ranking if b in allowed), bid)
            close = -1
        if close not in allowed or close == bid:
            close = -1
        if out and out[-1].bid == bid and out[-1].close == close:
            out[-1] = out[-1]._replace(hi=p)
        else:
            out.append(Range(p, p, bid, close))
    return [r._replace(hi=-1) if i == len(out) - 1 else r for i, r in enumerate(out)]


def range_text(ranges: list[Range], thin: bool = False) -> str:
    """A cell as the sheet prints it: "2", "2/1" (too close to call), "2; 4+: 1"."""
    parts = []
    for i, r in enumerate(ranges):
        bid = f"{r.bid}/{r.close}" if r.close >= 0 else str(r.bid)
        parts.append(bid if i == 0 else f"{r.lo}+: {bid}")
    return "; ".join(parts) + ("?" if thin else "")


def sheet_bid(sheet: pd.DataFrame, v: Variant, mask: int, trump: int, seat: int,
              prev: int | None = None) -> SheetAnswer | None:
    """What the printed sheet gives a hand (mask) under trump index `trump` in `seat` after
    earlier bids summing to `prev` (None: the seat bids first): the bid of the cell's range
    for that sum; None when the sheet has no cell for the hand."""
    h = int(sheet.attrs["hand_size"])
    key = class_columns(v, h, np.array([mask], np.uint64), np.array([trump]),
                        list(sheet.attrs["features"])).iloc[0]
    rows, nearest = find_cell(sheet[sheet.seat == seat], key)
    if rows.empty:
        return None
    ranges: list[Range] = rows.iloc[0]["ranges"]
    p = 0 if prev is None else prev
    for r in ranges:
        if r.lo <= p and (r.hi < 0 or p <= r.hi):
            return SheetAnswer(r.bid, r.close, nearest)
    return SheetAnswer(ranges[-1].bid, ranges[-1].close, nearest)


def find_cell(seat_rows: pd.DataFrame, key: pd.Series) -> tuple[pd.DataFrame, bool]:
    """The cell (a one-row frame) of one seat's sheet rows that a player reads for a hand of
    class `key`, and whether it is the nearest cell because the hand's own class has none;
    an empty frame when there is none near it either. A class feature the rows do not
    carry is not matched."""
    key = key[[name for name in key.index if name in seat_rows.columns]]
    rows = seat_rows
    for name, value in key.items():
        rows = rows[rows[name] == value]
    if not rows.empty:
        return rows.iloc[:1], False
    return _nearest_cell(seat_rows, key), True


def _nearest_cell(rows: pd.DataFrame, key: pd.Series) -> pd.DataFrame:
    """The cell a player reading the printed sheet would use for a class it does not list
    (a hand rarer than any the sheet's deals held): the same named card where the sheet
    has one, then the fewest steps away over the counted features (a point class, a trump,
    a top card each count one step), the cell with the most deals among equals."""
    for name, value in key.items():
        if not pd.api.types.is_numeric_dtype(rows[name]):
            rows = rows[rows[name] == value]
    if rows.empty:
        return rows
    steps = sum(((rows[name] - value).abs() / (POINT_STEP if name == "points" else 1))
                for name, value in key.items() if pd.api.types.is_numeric_dtype(rows[name]))
    order = pd.DataFrame({"steps": steps, "n": -rows["n"]}).sort_values(["steps", "n"])
    return rows.loc[order.index[:1]]


def sheet_lookup(sheet: pd.DataFrame, v: Variant
                 ) -> Callable[[int, int, int, int | None], SheetAnswer | None]:
    """bid_for(mask, trump, seat, prev_sum): sheet_bid on this sheet."""
    def bid_for(mask: int, trump: int, seat: int, prev: int | None) -> SheetAnswer | None:
        return sheet_bid(sheet, v, mask, trump, seat, prev)

    return bid_for
