"""Whole games: `simulate_games` runs them in the kernel, in seeded chunks, and keeps either
one row per game (keep="records") or the running sums the balance metrics need
(keep="summary", memory flat in the number of games).

Seats are absolute: seat 0 sits on the first dealer's left, seat n-1 is the first dealer.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.games.job import DEFAULT_STAR_THRESHOLD, GAME_CHUNK, GameJob, make_game_job
from simulate.games.metrics import Metric, MetricSums, metric_defs, metrics_frame
from simulate.games.tasks import GameSpec, GameTask, chunk_ticker, run_task
from simulate.kernel import game as K
from simulate.rules.variant import Variant
from simulate.util.checks import positive_int
from simulate.util.progress import Bar, progress_bar
from simulate.util.stats import wilson

# what every whole-game figure assumes about the bidders (the CLI and the Balance page say it)
HAND_BY_HAND = ("Bidding is hand by hand: every bidder bids each hand as if it were the only "
                "one, ignoring the scores and the rounds left (no leader bidding safe, no "
                "trailer gambling), so these figures describe hand-by-hand play.")


def simulate_games(v: Variant, games: int, seed: int = 0,
                   policies: str | Sequence[str] = "precision+table",
                   stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD, keep: str = "summary",
                   workers: int | None = None, chunk_size: int = GAME_CHUNK,
                   progress: bool | Bar | None = False, backend: Any = None) -> GameResults:
    """Play `games` whole games of `v` with fixed policies ("play+bid" for everyone or one
    per seat; `stars` is the star-spending threshold where Horseshoes stars are on).

    keep="records" keeps one row per game (GameResults.frame()); keep="summary" keeps only
    the sums behind the balance metrics, so memory does not grow with the number of games.
    Either way GameResults.metrics gives every balance metric with its 95% CI.

    v: the variant; games: how many (positive); seed: 0 .. 2**63-1 (game g is dealt from its
    own stream, so results do not depend on chunking or workers); policies: "play+bid" for
    everyone or one per seat; stars: the star-spending threshold in points (-1: never), for
    everyone or per seat; keep: "summary" or "records"; workers: local threads (every core
    for None); chunk_size: games per task; progress: True for a bar of its own, a bar with
    update(n) to tick (left open), or False; backend (simulate.runner.backends:
    LocalBackend, DaskBackend): runs the chunks elsewhere with identical results; by
    default they run on `workers` local threads.
    """
    if keep not in ("records", "summary"):
        raise BidlabInputError(f"keep={keep!r}; allowed: records, summary")
    job = make_game_job(v, games, seed, policies, stars)
    chunk_size = positive_int(chunk_size, "chunk_size")
    task = GameTask("games", (GameSpec.of(job),), chunk_size, keep, jobs=(job,))
    defs = metric_defs(job)
    sums = MetricSums(len(defs))
    by_size = np.zeros((K.BY_SIZE_PLANES, v.players, job.max_size + 1), np.int64)
    kept: list[np.ndarray] = []
    lengths = np.zeros(1, np.int64)

    def take(part: tuple[np.ndarray, ...]) -> None:
        nonlocal lengths
        rows, sizes, x, y, hist = part
        by_size[...] += sizes
        sums.add(x, y)
        if len(hist) > len(lengths):
            lengths = np.pad(lengths, (0, len(hist) - len(lengths)))
        lengths[:len(hist)] += hist
        if keep == "records":
            kept.append(rows)

    with progress_bar(progress, job.config.games, unit="game") as bar:
        run_task(task, backend, workers, take, chunk_ticker(task, bar))
    rows = np.concatenate(kept) if kept else None
    return GameResults(v, job, defs, sums, by_size, rows, lengths)


class GameResults:
    """What a run of whole games produced: balance metrics with CIs, bid accuracy by seat
    and hand size, and (keep="records") one row per game."""

    def __init__(self, v: Variant, job: GameJob, defs: list[Metric], sums: MetricSums,
                 by_size: np.ndarray, rows: np.ndarray | None,
                 lengths: np.ndarray | None = None) -> None:
        self.variant = v
        self.job = job
        self.config = job.config
        self.defs = defs
        self.sums = sums
        self.by_size = by_size
        self.rows = rows
        self.lengths = lengths if lengths is not None else np.zeros(1, np.int64)
        self.layout = job.layout

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """Every balance metric: value, 95% CI, games; `fair` where chance gives a value."""
        return metrics_frame(self.defs, self.sums)

    def accuracy(self, by: str = "seat") -> pd.DataFrame:
        """Bid accuracy (exact bids; made contracts for the maker's side) by seat (absolute,
        by="seat") or by position from the dealer (by="position") and hand size, with n and
        a 95% Wilson interval."""
        k = 0 if by == "seat" else 2
        out = []
        n = self.variant.players
        for s in range(n):
            for h in range(1, self.by_size.shape[2]):
                played, ok = int(self.by_size[k, s, h]), int(self.by_size[k + 1, s, h])
                if played == 0:
                    continue
                lo, hi = wilson(ok, played)
                out.append({by: s, "hand_size": h, "n": played, "rate": ok / played,
                            "lo": lo, "hi": hi})
        return pd.DataFrame(out)

    def seat_diagnostics(self) -> pd.DataFrame:
        """What a seat imbalance comes from, by absolute seat and hand size: hands played,
        the mean score per hand (kept as sums, so no interval), hands dealt by
        that seat and hands it dealt under the hook (or Max Bet), and the exact rate.
        Rows: seat, hand_size, played, mean_score, exact_rate, dealt, hooked."""
        b = self.by_size
        out = []
        for s in range(self.variant.players):
            for h in range(1, b.shape[2]):
                played = int(b[K.BY_PLAYED, s, h])
                if played == 0 and b[K.BY_DEALT, s, h] == 0:
                    continue
                out.append({"seat": s, "hand_size": h, "played": played,
                            "mean_score": b[K.BY_SCORE, s, h] / played if played else np.nan,
                            "exact_rate": b[K.BY_EXACT, s, h] / played if played else np.nan,
                            "dealt": int(b[K.BY_DEALT, s, h]),
                            "hooked": int(b[K.BY_HOOKED, s, h])})
        return pd.DataFrame(out)

    def length_hist(self) -> pd.DataFrame:
        """How many games lasted each number of hands."""
        k = np.flatnonzero(self.lengths)
        return pd.DataFrame({"hands": k, "games": self.lengths[k]})

    def frame(self) -> pd.DataFrame:
        """One row per (game, seat) (keep="records" only)."""
        if self.rows is None:
            raise BidlabInputError("per-game rows were not kept; run with keep='records'")
        v, lay, rows = self.variant, self.layout, self.rows
        n, g = v.players, len(rows)
        names = {K.P_TOTAL: "score", K.P_WIN: "win", K.P_STARS: "stars", K.P_EXACT: "exact",
                 K.P_PLAYED: "played", K.P_FOOLED: "fooled", K.P_MAKER: "maker",
                 K.P_MADE: "made", K.P_ALONE: "alone", K.P_BIDS: "bids", K.P_TRICKS: "tricks",
                 K.P_SPENT: "stars_spent"}
        cols: dict[str, Any] = {"game": np.repeat(np.arange(g), n), "seat": np.tile(np.arange(n), g)}
        for f, name in names.items():
            cols[name] = rows[:, [lay.col(s, f) for s in range(n)]].ravel()
        card_names = [v.cards.names[c] for c in self.job.specials]
        for e, name in enumerate(card_names):
            cols[f"held_{name}"] = rows[:, [lay.held(s, e) for s in range(n)]].ravel()
        for e, ev in enumerate(v.events):
            cols[f"captured_{ev.name}"] = rows[:, [lay.captured(s, e) for s in range(n)]].ravel()
        for c, name in ((K.C_HANDS, "hands"), (K.C_TIEBREAKS, "tiebreaks"),
                        (K.C_ALL_EXACT, "all_exact_hands"), (K.C_UNITS_WON, "winning_units"),
                        (K.C_CAPPED, "capped"), (K.C_STAR_WIN, "star_win")):
            cols[name] = np.repeat(rows[:, c], n)
        return pd.DataFrame(cols)
