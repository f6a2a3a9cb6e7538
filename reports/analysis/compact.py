"""Reading the compact cheat sheet (simulate.hands.compact_sheet) for the printable page: one
row per hand size and seat with the points from which each bid starts, the rule for the sum
of the earlier bids and the rule for a forbidden bid, in a player's words.

A row's bid cells follow one reading rule: bid the highest bid whose number your points
reach. A bid the line starts from shows "0" (any hand reaches it), a bid it never gives is
blank, and a bid it skips shows the same number as the next one. Nothing here simulates or
changes a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from simulate.hands.compact_sheet import TICK, parse_shifts, parse_thresholds

__all__ = ["bid_columns", "threshold_rows", "shift_words", "fallback_words", "printed_bid"]


def _points(ticks: int) -> str:
    return f"{ticks * TICK:.2f}".rstrip("0").rstrip(".")


def bid_columns(sheets: Mapping[int, pd.DataFrame]) -> tuple[int, list[int]]:
    """(lowest, columns): the bid a hand gets when it reaches no number (the lowest bid any
    line starts from: 0 in a bid game, the first contract in an auction), and the bids the
    printed table needs a column for, from the next one to the highest any line gives."""
    lows, highs = [], []
    for sheet in sheets.values():
        for text in sheet["thresholds"]:
            pairs = parse_thresholds(str(text))
            lows.append(pairs[0][0])
            highs.append(pairs[-1][0])
    if not highs:
        return 0, []
    return min(lows), list(range(min(lows) + 1, max(highs) + 1))


def shift_words(text: str) -> str:
    """The earlier-bids rule as printed: "≤2 +1 · 7–9 −1 · 10+ −2" (bands with a shift of
    0 left out; "" when there is none)."""
    parts = []
    for lo, hi, s in parse_shifts(text):
        if not s:
            continue
        span = (f"{lo}+" if hi < 0 else str(lo) if lo == hi else f"≤{hi}" if lo == 0
                else f"{lo}–{hi}")
        parts.append(f"{span} {'+' if s > 0 else '−'}{abs(s)}")
    return " · ".join(parts)


def fallback_words(fallback: int) -> str:
    """The rule for a forbidden bid as printed: "1 less", "1 more" or ""."""
    return "" if not fallback else ("1 less" if fallback < 0 else "1 more")


def threshold_rows(sheets: Mapping[int, pd.DataFrame], columns: list[int]
                   ) -> pd.DataFrame:
    """One row per hand size and seat: `cards`, `seat`, a column per bid in `columns` (the
    points from which that bid or a higher one is made, "0" for any hand, "" never),
    `earlier` (shift_words) and `forbidden` (fallback_words), `n` and `e_score`."""
    rows: list[dict[str, Any]] = []
    for h in sorted(sheets):
        for rec in sheets[h].sort_values("seat").to_dict("records"):
            pairs = parse_thresholds(str(rec["thresholds"]))
            row: dict[str, Any] = {"cards": h, "seat": int(rec["seat"])}
            for b in columns:
                reached = [t for bid, t in pairs if bid >= b]
                row[str(b)] = "" if not reached else \
                    "0" if b <= pairs[0][0] else _points(min(reached))
            row["earlier"] = shift_words(str(rec.get("shifts") or ""))
            row["forbidden"] = fallback_words(int(rec.get("fallback") or 0))
            row["n"] = int(rec["n"])
            row["e_score"] = float(rec["e_score"])
            rows.append(row)
    return pd.DataFrame(rows)


def printed_bid(row: Mapping[str, Any], columns: list[int], points: float, earlier: int,
                lowest: int = 0) -> int:
    """The bid a player reads off a printed row (threshold_rows) for a hand of `points`
    after earlier bids summing to `earlier`, before the rule for a forbidden bid: the highest
    bid whose number the points reach (`lowest` when none), shifted by the earlier-bids
    rule."""
    bid = lowest
    for b in columns:
        cell = str(row[str(b)])
        if cell and points + 1e-9 >= float(cell):
            bid = b
    for part in str(row["earlier"]).split(" · "):
        if not part:
            continue
        span, shift = part.split(" ")
        s = int(shift.replace("−", "-"))
        if span.endswith("+"):
            hit = earlier >= int(span[:-1])
        elif span.startswith("≤"):
            hit = earlier <= int(span[1:])
        elif "–" in span:
            lo, hi = span.split("–")
            hit = int(lo) <= earlier <= int(hi)
        else:
            hit = earlier == int(span)
        if hit:
            bid += s
    return bid
