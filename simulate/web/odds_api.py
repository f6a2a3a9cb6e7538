"""`/api/odds`: a bid-odds query checked, keyed for the cache, run and answered as JSON.

The numbers are simulate.hands.odds' (bid_odds, and field_panel when several opponents'
fields are asked for), called exactly as `bidlab odds` calls them; this module only checks
what the server adds (limits, policies named on the web), builds the cache key from the
canonical variant and the normalised query, and turns the tables into JSON.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.hands.odds import bid_odds, check_query, field_panel
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.tables import policies
from simulate.web.jobs import Job
from simulate.web.sheets import SheetStore

MAX_SAMPLES = 1_000_000
MAX_FIELDS = 4


@dataclass(frozen=True)
class OddsQuery:
    """A checked bid-odds query, normalised (cards in deck order, trump by its name)."""

    game: str
    players: int
    sets: tuple[str, ...]
    hand: str
    seat: int
    trump: str | None
    bids_before: tuple[int, ...] | None
    samples: int
    seed: int
    fields: tuple[str, ...]
    play: str
    exhaustive: bool

    def params(self) -> dict[str, Any]:
        """The query as URL parameters (what a shareable link carries)."""
        out = {k: x for k, x in asdict(self).items() if x not in (None, (), False)}
        out.pop("sets", None)
        out["set"] = list(self.sets)
        out["field"] = ",".join(self.fields)
        out.pop("fields", None)
        if self.bids_before is not None:
            out["bids_before"] = ",".join(map(str, self.bids_before))
        return out


def _names(text: str | None, default: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in (text or default).split(",") if x.strip())


def check_odds(v: Variant, game: str, sets: Sequence[str], hand: str, seat: int,
               trump: str | None, bids_before: str | None, samples: int, seed: int,
               field: str | None, play: str, exhaustive: bool) -> OddsQuery:
    """The query checked as bid_odds checks it (plus the server's limits); one
    BidlabInputError sentence for the first thing wrong."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise BidlabInputError(f"samples {samples:,} is not allowed on the server; allowed: "
                               f"1 to {MAX_SAMPLES:,}")
    fields = _names(field, "table")
    if not fields or len(fields) > MAX_FIELDS:
        raise BidlabInputError(f"field: give 1 to {MAX_FIELDS} bid policies separated by "
                               f"commas; allowed: {', '.join(policies.BID)}")
    if len(set(fields)) != len(fields):
        raise BidlabInputError(f"field {','.join(fields)}: a policy is named twice; name each "
                               "once")
    for name in fields:
        if name not in policies.BID:
            raise BidlabInputError(f"field: unknown bid policy {name!r}; allowed: "
                                   f"{', '.join(policies.BID)}")
    if play not in policies.PLAY:
        raise BidlabInputError(f"play: unknown play policy {play!r}; allowed: "
                               f"{', '.join(policies.PLAY)}")
    text = (hand or "").strip()
    if not text:
        raise BidlabInputError("hand: no cards given; click cards or type them, e.g. KS QH 9H")
    before = None if bids_before is None or not bids_before.strip() else bids_before
    trump = None if trump is None or not trump.strip() else trump.strip()
    check_query(v, text, seat=seat, trump=trump, bids_before=before, samples=samples,
                seed=seed, play=play, bid=fields[0])
    cards = sorted(v.cards.parse_hand(text, "hand"))
    return OddsQuery(game=game, players=v.players, sets=tuple(sorted(sets)),
                     hand=" ".join(v.cards.names[c] for c in cards), seat=seat,
                     trump=None if trump is None else TRUMP_NAMES[v.trump_index(trump)],
                     bids_before=None if before is None else tuple(
                         int(x) for x in before.replace(" ", "").split(",") if x),
                     samples=samples, seed=seed, fields=fields, play=play,
                     exhaustive=exhaustive)


def cache_key(v: Variant, q: OddsQuery) -> tuple[Any, ...]:
    """The canonical variant, the normalised query and the seed."""
    return ("odds", v.canonical, q.hand, q.seat, q.trump, q.bids_before, q.samples, q.seed,
            q.fields, q.play, q.exhaustive)


def plain(x: Any) -> Any:
    """A value as JSON can carry it: numpy scalars as Python numbers, NaN as None."""
    if isinstance(x, dict):
        return {str(k): plain(y) for k, y in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(y) for y in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def table_json(df: pd.DataFrame) -> dict[str, Any]:
    """A bid_odds table: its rows, trick columns and what its attrs say."""
    a = df.attrs
    keep = ("variant", "hand", "seat", "trump", "trump_mode", "samples", "accepted", "dealt",
            "bids_before", "seed", "play", "bid", "bid_label", "better", "auction", "exhaustive",
            "too_close", "ties", "warnings", "side", "teams", "constraint", "hand_size",
            "grouped", "groups_hidden")
    out = {k: plain(a.get(k)) for k in keep}
    out["acceptance"] = a["accepted"] / max(int(a["dealt"]), 1)
    out["tricks"] = [c for c in df.columns if c.startswith("P") and c[1:].isdigit()]
    out["rows"] = [plain(r) for r in df.to_dict("records")]
    out["best"] = [plain(r) for r in df[df.best].to_dict("records")]
    return out


def run_odds(job: Job, v: Variant, q: OddsQuery, sheets: SheetStore) -> dict[str, Any]:
    """Run the query on this thread (job.check() is the progress callback, so a cancelled
    job stops at its next chunk) and return the answer as JSON."""
    started = time.perf_counter()
    before = list(q.bids_before) if q.bids_before is not None else None
    args: dict[str, Any] = {"seat": q.seat, "trump": q.trump, "bids_before": before,
                            "samples": q.samples, "seed": q.seed, "play": q.play,
                            "exhaustive": q.exhaustive}
    n = len(q.fields)
    panel_json = None
    if n == 1:
        df = bid_odds(v, q.hand, bid=q.fields[0], **args,
                      progress=lambda a, d: job.check(a / q.samples,
                                                      f"{a:,} of {d:,} deals accepted"))
    else:
        panel = field_panel(v, q.hand, fields=list(q.fields), **args,
                            progress=lambda i, a, d: job.check(
                                (i + min(1.0, a / q.samples)) / n,   # a batch may overshoot
                                f"field {q.fields[i]}: {a:,} of {d:,} deals accepted"))
        df = panel.attrs["tables"][q.fields[0]]
        panel_json = {"robust": bool(panel.attrs["robust"]),
                      "rows": [plain(r) for r in panel.to_dict("records")],
                      "warnings": {f: list(panel.attrs["tables"][f].attrs.get("warnings", []))
                                   for f in q.fields}}
    out = table_json(df)
    out.update({"query": q.params(), "canonical": v.canonical, "title": v.title,
                "panel": panel_json, "seconds": round(time.perf_counter() - started, 3),
                "sheet": sheets.cell(v, v.cards.parse_hand(q.hand, "hand"), q.seat,
                                     q.trump, list(q.bids_before or ()))})
    return out
