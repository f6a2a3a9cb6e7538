"""The cheat-sheet cell a hand falls in, read from the tables a report stored.

`bidlab report` stores, per game and hand size, the full cheat sheet (one cell per seat and
hand class, simulate.hands.sheet) and the compact printable sheet (one line per seat,
simulate.hands.compact_sheet) under out/report/data, with a manifest naming each game's
canonical configuration. A query whose configuration matches one there gets the cell its
hand falls in and the compact sheet's bid; any other query gets a sentence saying why not.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simulate.hands.classes import class_columns
from simulate.hands.compact_sheet import compact_bid
from simulate.hands.sheet import find_cell
from simulate.rules.variant import Variant


class SheetStore:
    """Sheets of the report whose data folder is `data_dir` (manifest.json beside them)."""

    def __init__(self, data_dir: Path | None) -> None:
        self.data_dir = data_dir
        self._lock = threading.Lock()
        self._frames: dict[tuple[str, int], tuple[dict[str, Any], pd.DataFrame | None,
                                                  pd.DataFrame | None] | None] = {}
        self._manifest: dict[str, Any] | None = None

    def _manifest_games(self) -> list[dict[str, Any]]:
        if self.data_dir is None:
            return []
        if self._manifest is None:
            path = self.data_dir / "manifest.json"
            try:
                self._manifest = json.loads(path.read_text()) if path.is_file() else {}
            except (OSError, ValueError):
                self._manifest = {}
        return list((self._manifest or {}).get("games", []))

    def _tables(self, v: Variant, h: int) -> tuple[dict[str, Any], pd.DataFrame | None,
                                                    pd.DataFrame | None] | None:
        key = (v.canonical, h)
        with self._lock:
            if key in self._frames:
                return self._frames[key]
            found = None
            for game in self._manifest_games():
                if game.get("canonical") != v.canonical:
                    continue
                for entry in game.get("sizes", []):
                    if int(entry.get("hand_size", -1)) == h:
                        found = (game, entry)
            out = None
            if found is not None and self.data_dir is not None:
                game, entry = found
                folder = self.data_dir / str(game["name"])
                frames = []
                for name in ("sheet", "compact"):
                    stem = entry.get("tables", {}).get(name)
                    try:
                        frames.append(pd.read_parquet(folder / f"{stem}.parquet")
                                      if stem else None)
                    except (OSError, ValueError):
                        frames.append(None)
                out = (entry, frames[0], frames[1])
            self._frames[key] = out
            return out

    def cell(self, v: Variant, hand: list[int], seat: int, trump: str | None,
             bids_before: list[int]) -> dict[str, Any]:
        """The sheet cell of a hand (deck indices) in `seat` under `trump`, after
        `bids_before`: {"text", "class", "n", "thin", "nearest", "compact_bid", ...}, or
        {"missing": why there is none}. Where the hand's own class has no cell, "nearest"
        is true and the cell shown is the one a reader of the printed sheet would take
        (hands.sheet.find_cell), its class in "cell_class"."""
        h = len(hand)
        tables = self._tables(v, h)
        if tables is None or tables[1] is None:
            where = "no report data is served" if self.data_dir is None or not \
                self._manifest_games() else f"the report has no sheet for {v.canonical} " \
                f"with {h} cards"
            return {"missing": f"{where}; `make report` (or `bidlab report`) writes the "
                               "cheat sheets of the shipped games"}
        entry, sheet, compact = tables
        assert sheet is not None
        if trump is None:
            if len(v.trump_choices) != 1:
                return {"missing": "the cell depends on the trump; give the trump to see it"}
            trump = v.trump_choices[0]
        t = v.trump_index(trump)
        mask = np.array([v.cards.mask(hand)], np.uint64)
        features = [str(f) for f in entry.get("class_features", [])]
        key = class_columns(v, h, mask, np.array([t], np.int64), features).iloc[0]
        rows, nearest = find_cell(sheet[sheet.seat == seat], key)
        cls = _plain(key)
        if rows.empty:
            return {"missing": "the sheet has no cell for this hand class or one near it "
                               "(too few deals)", "class": cls}
        row = rows.iloc[0]
        out: dict[str, Any] = {"class": cls, "text": str(row["text"]), "n": int(row["n"]),
                               "thin": bool(row["thin"]), "best": int(row["best"]),
                               "too_close": bool(row["too_close"]), "hand_size": h,
                               "seat": seat, "trump": trump, "nearest": nearest}
        if nearest:
            # the printed sheet lists no hand like this one; a reader takes the nearest cell
            out["cell_class"] = _plain(row[[k for k in key.index if k in row.index]])
        if compact is not None and not compact.empty:
            compact = compact.copy()
            compact.attrs["hand_size"] = h
            answer = compact_bid(compact, v, int(mask[0]), t, seat,
                                 sum(bids_before) if bids_before else None)
            if answer is not None:
                out["compact_bid"] = int(answer.bid)
        return out


def _plain(values: pd.Series) -> dict[str, Any]:
    """A class key as JSON-ready {feature: value}."""
    return {str(k): (x.item() if hasattr(x, "item") else x) for k, x in values.items()}
