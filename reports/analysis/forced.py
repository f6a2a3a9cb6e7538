"""Reading the forced-bid class tables and cheat sheets (simulate.hands.class_table and
simulate.hands.sheet) for pages and charts: a player's words for a hand class, the most
frequent cells of a seat, the best bid by the sum of earlier bids, the cheat sheet as grids
(one per seat: point classes down, trumps across) and the point tables of every hand size
side by side.

Cells are keyed by seat (0 = the dealer's left ... the dealer), `prev_sum` (the sum of the
bids made before the seat, where it bids after others) and the hand-class features listed
in the table's attrs ("features"). Nothing here simulates or changes a number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from simulate.rules.features import FEATURE_HELP

__all__ = ["CLASS_HELP", "class_help", "class_label", "bid_text", "cell_keys", "main_cells",
           "by_earlier_bids", "SheetGrid", "sheet_grids", "points_by_size", "SUBKEY_HELP"]

# what each hand-class feature of a cheat sheet counts, in a player's words
CLASS_HELP = {
    "points": "the sum of the hand's card points from the point table (a trump's value for "
              "trumps), in half-point classes: class 2.5 holds 2.5 to 2.95 points",
    "card": "the hand's strongest card under the trump, by its name (\"trump K\", \"A\")",
    "trumps": "trumps held (0 in no trump)",
    "side_high": "cards of the two highest ranks of a side (not trump) suit; 3 means 3 or more",
    "specials": "special cards held that are never among the strongest (such as a LoJo or a "
                "Fool); 3 means 3 or more",
}
# how a sheet grid cell lists the values of the features beyond its row and column
SUBKEY_HELP = {"side_high": "high side cards 0 | 1 | 2 | 3+",
               "specials": "without | with a low special"}


def class_help(feature: str) -> str:
    """What a hand-class feature counts, for a page's legend."""
    return CLASS_HELP.get(feature) or FEATURE_HELP.get(feature, feature)


def _word(feature: str, value: Any) -> str:
    if feature == "card":
        return str(value)
    if feature == "points":
        return f"{float(value):g} pts"
    count = int(value)
    more = "+" if feature in ("side_high", "specials") and count >= 3 else ""
    noun = {"trumps": ("trump", "trumps"), "side_high": ("high side card", "high side cards"),
            "specials": ("low special", "low specials")}.get(feature, (feature, feature))
    return f"{count}{more} {noun[0] if count == 1 and not more else noun[1]}"


def class_label(row: Mapping[Any, Any], features: Sequence[str]) -> str:
    """A hand class in words: "2.5 pts, 2 trumps, 1 high side card"."""
    return ", ".join(_word(f, row[f]) for f in features if f in row)


def bid_text(bid: Any, names: Sequence[str] = ()) -> str:
    """A bid as a player reads it: the number, or the contract's name in an auction game
    (names[step - 1]); "–" for none (-1 or missing)."""
    try:
        b = int(bid)
    except (TypeError, ValueError):
        return "–"
    if b < 0:
        return "–"
    if names and 1 <= b <= len(names):
        return str(names[b - 1])
    return str(b)


def cell_keys(cells: pd.DataFrame) -> list[str]:
    """The key columns of a class table: seat, prev_sum (when present) and the features."""
    keys = ["seat"] + (["prev_sum"] if "prev_sum" in cells.columns else [])
    return keys + [f for f in cells.attrs.get("features", []) if f in cells.columns]


def main_cells(table: pd.DataFrame, seat: int, top: int) -> tuple[pd.DataFrame, int, int]:
    """The `top` most frequent cells of `seat` (by n), most frequent first; with the number
    of the seat's other cells and the deals they hold."""
    rows = table[table["seat"] == seat].sort_values("n", ascending=False, kind="stable")
    shown = rows.head(top)
    rest = rows.iloc[top:]
    return shown, len(rest), int(rest["n"].sum())


def by_earlier_bids(cells: pd.DataFrame, seat: int, classes: pd.DataFrame,
                    features: Sequence[str], names: Sequence[str] = (),
                    min_n: int = 1) -> pd.DataFrame:
    """For the hand classes in `classes` (rows with the feature columns), the best bid of
    `seat` by the sum of earlier bids: one row per class ("class"), one column per sum
    (a string cell: the best bid, "a/b" too close to call, "?" thin, and the forbidden bids
    as "no 3"); "" where fewer than min_n deals had that sum. Empty without sums."""
    if "prev_sum" not in cells.columns:
        return pd.DataFrame()
    mine = cells[(cells["seat"] == seat) & cells["prev_sum"].notna()]
    if mine.empty:
        return pd.DataFrame()
    sums = sorted(int(s) for s in mine["prev_sum"].unique())
    out = []
    for cls in classes.to_dict("records"):
        match = mine
        for f in features:
            match = match[match[f] == cls[f]]
        row: dict[str, str] = {"class": class_label(cls, features)}
        found = {int(r["prev_sum"]): r for r in match.to_dict("records")}
        for s in sums:
            r = found.get(s)
            row[str(s)] = "" if r is None or int(r["n"]) < min_n else _prev_cell(r, names)
        out.append(row)
    return pd.DataFrame(out, columns=["class", *map(str, sums)])


def _prev_cell(r: Mapping[Any, Any], names: Sequence[str]) -> str:
    text = bid_text(r["best"], names)
    if bool(r["too_close"]):
        text += "/" + bid_text(r["runner_up"], names)
    if bool(r["thin"]):
        text += "?"
    forbidden = str(r.get("forbidden") or "").split()
    if forbidden:
        text += " (no " + ", ".join(bid_text(b, names) for b in forbidden) + ")"
    return text


class SheetGrid(NamedTuple):
    """One seat's cheat sheet as a grid: rows (values of the first feature), columns (values
    of the second, [""] when there is none), and per (row, column) the cell's texts, one per
    value of the remaining features in `subkeys` order ("·" never seen), with whether every
    seen one is thin."""

    seat: int
    row_feature: str
    col_feature: str
    rows: list[Any]
    cols: list[Any]
    subkeys: list[tuple[Any, ...]]
    cells: dict[tuple[Any, Any], tuple[list[str], bool]]


def sheet_grids(sheet: pd.DataFrame) -> list[SheetGrid]:
    """The cheat sheet of one hand size as a grid per seat (see SheetGrid); the texts are
    the sheet's own ("2; 4+: 1", "2/1", trailing "?" thin)."""
    features = list(sheet.attrs.get("features") or [c for c in ("points", "card", "trumps",
                                                                 "side_high", "specials")
                                                     if c in sheet.columns])
    row_f = features[0]
    col_f = features[1] if len(features) > 1 else ""
    rest = features[2:]
    subkeys = sorted({tuple(r) for r in sheet[rest].itertuples(index=False)}) if rest else [()]
    out = []
    for seat, block in sheet.groupby("seat", sort=True):
        rows = _ordered(block[row_f])
        cols = _ordered(block[col_f]) if col_f else [""]
        # one pass over the records (a groupby per cell cost seconds per game at 12 sizes);
        # a record with a missing row or column value has no cell, as groupby would drop it
        texts: dict[tuple[Any, Any], dict[tuple[Any, ...], str]] = {}
        thin: dict[tuple[Any, Any], bool] = {}
        cols_used = [row_f, col_f or row_f, *rest, "text", "thin"]
        for rec in block[cols_used].itertuples(index=False, name=None):
            r, c, sub, text, is_thin = rec[0], rec[1], rec[2:-2], rec[-2], rec[-1]
            if pd.isna(r) or pd.isna(c):
                continue
            key = (r, c if col_f else "")
            texts.setdefault(key, {})[tuple(sub)] = str(text)
            thin[key] = thin.get(key, True) and bool(is_thin)
        cells = {key: ([found.get(k, "·") for k in subkeys], thin[key])
                 for key, found in texts.items()}
        out.append(SheetGrid(int(str(seat)), row_f, col_f, rows, cols, subkeys, cells))
    return out


def _ordered(values: pd.Series) -> list[Any]:
    """Distinct values, numbers ascending, card names strongest first (by first seen in a
    sheet sorted by the point table)."""
    uniq = list(dict.fromkeys(values.tolist()))
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in uniq):
        return sorted(uniq)
    return uniq


def points_by_size(points: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """The point tables of several hand sizes side by side: one row per card name, a column
    per hand size with "suit-trump points / no-trump points" ("0.65/1" , "–" where it does
    not occur), rows ordered by the largest size's suit-trump points."""
    if not points:
        return pd.DataFrame()
    sizes = sorted(points)
    order: list[str] = []
    for h in reversed(sizes):
        order += [c for c in points[h]["card"] if c not in order]
    out = pd.DataFrame({"card": order})
    for h in sizes:
        lookup = {str(rec["card"]): rec for rec in points[h].to_dict("records")}
        out[str(h)] = [_points_cell(lookup[c]) if c in lookup else "–" for c in order]
    return out


def _points_cell(row: Mapping[Any, Any]) -> str:
    def one(x: Any) -> str:
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:g}"

    suit, nt = one(row.get("suit_trump")), one(row.get("no_trump"))
    return suit if nt == "–" else f"{suit}/{nt}" if suit != "–" else f"–/{nt}"
