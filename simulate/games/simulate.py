"""Whole games: `simulate_games` runs them in the kernel, in seeded chunks, and keeps either
one row per game (keep="records") or the running sums the balance metrics need
(keep="summary", memory flat in the number of games).

Seats are absolute: seat 0 sits on the first dealer's left, seat n-1 is the first dealer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.hands.results import hand_record
from simulate.kernel import game as K
from simulate.kernel.hand import H_SIZE, S_SIZE, make_scratch, max_decisions
from simulate.reference.engine import GameRecord, HandRecord, replay_game
from simulate.rules.variant import Variant
from simulate.runner.plan import chunks
from simulate.tables import layout as L
from simulate.tables import policies as pol
from simulate.tables.compile import RuleTables, compile_tables
from simulate.util.checks import check_seed, positive_int
from simulate.util.progress import new_bar

GAME_CHUNK = 2048
MAX_HANDS = 10_000            # the reference engine's safety cap for target games
DEFAULT_STAR_THRESHOLD = 2
MAX_PLAYERS = 16              # variant files allow 2..16 players


@dataclass(frozen=True)
class GameConfig:
    """The exact configuration behind a games result."""

    variant: str
    games: int
    seed: int
    policies: tuple[str, ...]      # "play+bid" by absolute seat
    stars: tuple[int, ...]         # star-spending threshold by seat (Horseshoes with stars)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_policies(v: Variant, policies: str | Sequence[str]) -> tuple[list[str], list[str]]:
    """"play+bid" (everyone) or one per seat → (play names, bid names), checked."""
    items = [policies] * v.players if isinstance(policies, str) else list(policies)
    if len(items) != v.players:
        raise BidlabInputError(f"policies: {len(items)} given for {v.players} seats; give one "
                               "PLAY+BID for everyone or one per seat")
    plays, bids = [], []
    for item in items:
        play, sep, bid = str(item).partition("+")
        if not sep:
            raise BidlabInputError(f"policy {item!r}: write PLAY+BID, e.g. precision+table; "
                                   f"play: {', '.join(pol.PLAY)}; bid: {', '.join(pol.BID)}")
        plays.append(play.strip())
        bids.append(bid.strip())
    pol.resolve("play", plays, v.players)
    pol.resolve("bid", bids, v.players)
    return plays, bids


def tracked_cards(v: Variant) -> list[int]:
    """Cards whose holders the balance metrics follow: every special (non-natural) card and
    every card a capture event names (the Beanie and Frilly Jacks)."""
    out = [i for i, c in enumerate(v.cards.cards) if c.special]
    for e in v.events:
        if e.card not in out:
            out.append(e.card)
    return out


@dataclass
class GameJob:
    v: Variant
    tables: RuleTables
    config: GameConfig
    G: np.ndarray
    sched: np.ndarray
    con_rounds: np.ndarray
    specials: np.ndarray
    play_ids: np.ndarray
    bid_ids: np.ndarray
    star_thr: np.ndarray
    subs: dict[int, Variant]          # k-player versions for tied-only tie-break rounds
    SP: np.ndarray                    # [MAX_PLAYERS+1, P_SIZE]: row k = P of the k-player game
    stabs: tuple[tuple[np.ndarray, ...], ...]   # k → rule tables of the k-player game

    @property
    def width(self) -> int:
        return K.C_FIXED + self.v.players * K.seat_width(len(self.specials), len(self.v.events))

    @property
    def max_size(self) -> int:
        return int(max(self.v.schedule))

    def scratch(self) -> tuple[np.ndarray, ...]:
        v = self.v
        return make_scratch(v.players, len(v.cards),
                            max_decisions(v.players, self.max_size,
                                          int(v.rule("deal.widow", 0) or 0), len(v.ladder)))

    def run(self, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Games start..start+count-1: (rows [count, width], by_size [4, n, H+1])."""
        n = self.v.players
        rows = np.zeros((count, self.width), np.int64)
        by_size = np.zeros((4, n, self.max_size + 1), np.int64)
        empty_i, empty_m, empty_d = _empty_trace(n)
        K.run_games(self.tables.P, self.tables.as_tuple(), self.SP, self.stabs, self.G,
                    self.sched, self.con_rounds,
                    self.specials, np.uint64(self.config.seed), start, count, self.play_ids,
                    self.bid_ids, self.star_thr, self.scratch(), K.make_game_scratch(n), rows,
                    by_size, empty_i, empty_m, empty_d)
        return rows, by_size

    def trace(self, game: int, max_hands: int = 512) -> tuple[np.ndarray, list[HandRecord]]:
        """One game hand by hand: (its row, the hands as reference-engine records, each
        with its star decisions appended as the reference engine records them)."""
        v, n = self.v, self.v.players
        scratch = self.scratch()
        max_dec = scratch[13].shape[0]
        tr_int = np.zeros((max_hands, K.trace_width(n)), np.int64)
        tr_masks = np.zeros((max_hands, n + 1), np.uint64)
        tr_dec = np.zeros((max_hands, max_dec, 3), np.int64)
        row = np.zeros(self.width, np.int64)
        by_size = np.zeros((4, n, self.max_size + 1), np.int64)
        played = K.trace_game(self.tables.P, self.tables.as_tuple(), self.SP, self.stabs,
                              self.G, self.sched,
                              self.con_rounds, self.specials, np.uint64(self.config.seed), game,
                              self.play_ids, self.bid_ids, self.star_thr, scratch,
                              K.make_game_scratch(n), row, by_size, tr_int, tr_masks, tr_dec)
        if played > max_hands:
            raise ValueError(f"game {game} lasted {played} hands; trace at most {max_hands}")
        records = []
        so = K.T_HOUT + H_SIZE
        for k in range(played):
            t = tr_int[k]
            rnd = int(t[K.T_ROUND])
            hp = int(t[K.T_PLAYERS])
            hv = v if hp == n else self.subs[hp]
            rec = hand_record(hv, int(t[K.T_SIZE]), None if rnd < 0 else rnd,
                              tr_dec[k, :t[K.T_NDEC]], t[K.T_HOUT:so],
                              t[so:so + hp * S_SIZE].reshape(hp, S_SIZE), tr_masks[k, :hp + 1],
                              t[so + n * S_SIZE + n:])
            for u in range(n):
                spent = int(t[so + n * S_SIZE + u])
                if spent >= 0:
                    lead_rel = _lead_rel(v, u, int(t[K.T_DEALER]))
                    rec.decisions.append(("spend_star", lead_rel, bool(spent)))
            records.append(rec)
        return row, records

    def replay(self, game: int) -> tuple[GameRecord | None, list[str]]:
        """Replay one kernel game in the reference engine; problems found, if any, including
        any difference in totals, winners, stars or length."""
        row, records = self.trace(game)
        ref, problems = replay_game(self.v, records, int(self.G[K.G_MAX_HANDS]))
        if ref is None:
            return None, problems
        lay = Layout(self.v, len(self.specials))
        n = self.v.players
        totals = [int(row[lay.col(a, K.P_TOTAL)]) for a in range(n)]
        winners = [a for a in range(n) if row[lay.col(a, K.P_WIN)]]
        stars = [int(row[lay.col(a, K.P_STARS)]) for a in range(n)]
        for what, mine, theirs in (("totals", totals, ref.totals),
                                   ("winners", winners, ref.winners),
                                   ("stars", stars, ref.stars),
                                   ("hands", int(row[K.C_HANDS]), ref.rounds),
                                   ("tie-break rounds", int(row[K.C_TIEBREAKS]),
                                    ref.tiebreak_rounds)):
            if mine != theirs:
                problems.append(f"{what}: kernel {mine!r}, reference {theirs!r}")
        return ref, problems


def _lead_rel(v: Variant, unit: int, dealer: int) -> int:
    n = v.players
    members = [a for a in range(n) if (a % v.teams if v.teams else a) == unit]
    return min((a - dealer - 1) % n for a in members)


def _empty_trace(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.zeros((0, K.trace_width(n)), np.int64), np.zeros((0, n + 1), np.uint64),
            np.zeros((0, 1, 3), np.int64))


class Layout:
    """Column positions of a game row."""

    def __init__(self, v: Variant, n_specials: int) -> None:
        self.n = v.players
        self.n_specials = n_specials
        self.n_events = len(v.events)
        self.sw = K.seat_width(n_specials, self.n_events)

    def col(self, seat: int, field: int) -> int:
        return K.C_FIXED + seat * self.sw + field

    def held(self, seat: int, e: int) -> int:
        return self.col(seat, K.SEAT_BASE + e)

    def held_ok(self, seat: int, e: int) -> int:
        return self.col(seat, K.SEAT_BASE + self.n_specials + e)

    def captured(self, seat: int, e: int) -> int:
        return self.col(seat, K.SEAT_BASE + 2 * self.n_specials + e)


def game_params(v: Variant) -> np.ndarray:
    """The end rule as the G vector the game kernel reads."""
    from simulate.rules.play import constraint_active

    G = np.zeros(K.G_PARAMS, np.int64)
    end = v.rule("end.rule")
    G[K.G_TARGET_RULE] = 1 if end == "target" else 0
    if end == "target":
        G[K.G_TARGET] = int(v.rule("end.target"))
    G[K.G_LOWER] = 1 if v.rule("end.better", "higher") == "lower" else 0
    G[K.G_RIVER] = 1 if v.rule("end.tiebreak", "none") == "river" else 0
    G[K.G_TB_CAP] = int(v.rule("end.tiebreak_cap", 50))
    G[K.G_TB_PEAK] = max(v.schedule)
    G[K.G_TIES_MAKERS] = 1 if v.rule("end.ties", "shared") == "makers" else 0
    star_rule = v.rule("scoring.stars") or {}
    G[K.G_STARS] = 1 if star_rule.get("enabled") else 0
    G[K.G_STAR_WIN] = int(star_rule.get("win_at", 5))
    G[K.G_TB_CONSTRAINED] = 1 if constraint_active(v, None) else 0
    G[K.G_MAX_HANDS] = MAX_HANDS
    return G


def make_game_job(v: Variant, games: int, seed: int, policies: str | Sequence[str],
                  stars: int | Sequence[int]) -> GameJob:
    games = positive_int(games, "games")
    seed = check_seed(seed)
    plays, bids = parse_policies(v, policies)
    thr = [stars] * v.players if isinstance(stars, (int, np.integer)) and \
        not isinstance(stars, bool) else list(stars)  # type: ignore[arg-type]
    if len(thr) != v.players or any(isinstance(t, bool) or not isinstance(t, (int, np.integer))
                                    or t < -1 for t in thr):
        raise BidlabInputError(f"stars: a threshold in points (a whole number ≥ 0, or -1 for "
                               f"never spending) for everyone or for each of {v.players} seats; "
                               f"got {stars!r}")
    tables = compile_tables(v)
    play_ids = np.array(pol.resolve("play", plays, v.players), np.int64)
    bid_ids = np.array(pol.resolve("bid", bids, v.players), np.int64)
    if any(b >= L.BID_HEURISTIC for b in bid_ids):
        from simulate.hands.job import card_rates as calibrate_card_rates

        sizes = set(v.schedule)
        if v.rule("end.tiebreak", "none") == "river":
            sizes |= set(range(1, max(v.schedule) + 1))
        for h in sorted(sizes):
            calibrate_card_rates(v, h)
    from simulate.rules.play import constraint_active

    con = np.array([1 if constraint_active(v, r) else 0 for r in range(len(v.schedule))],
                   np.int64)
    G = game_params(v)
    subs, SP, stabs = _sub_tables(v, tables, bid_ids)
    G[K.G_TIED_ONLY] = 1 if subs else 0
    config = GameConfig(v.canonical, games, seed,
                        tuple(f"{p}+{b}" for p, b in zip(plays, bids, strict=True)),
                        tuple(int(t) for t in thr))
    return GameJob(v, tables, config, G, np.array(v.schedule, np.int64), con,
                   np.array(tracked_cards(v), np.int64), play_ids, bid_ids,
                   np.array(thr, np.int64), subs, SP, stabs)


def _sub_tables(v: Variant, tables: RuleTables, bid_ids: np.ndarray
                ) -> tuple[dict[int, Variant], np.ndarray, tuple[tuple[np.ndarray, ...], ...]]:
    """For tied-only tie-break rounds: the game for every smaller player count that a tie
    can leave (2 .. n-1 players), as the kernel reads it; unused slots hold this game's own
    tables (the kernel needs one type for every slot)."""
    n = v.players
    subs: dict[int, Variant] = {}
    if _tied_only(v):
        from simulate.rules.variant import load_variant

        lo = v.player_range[0]
        for k in range(max(2, lo), n):
            subs[k] = load_variant(v.path, players=k, **v.options)
    # one length for every game (players ≤ MAX_PLAYERS), so the kernel compiles once
    SP = np.stack([compile_tables(subs[k]).P if k in subs else tables.P
                   for k in range(MAX_PLAYERS + 1)])
    if any(b >= L.BID_HEURISTIC for b in bid_ids):
        from simulate.hands.job import card_rates as calibrate_card_rates

        for sub in subs.values():
            for h in range(1, max(v.schedule) + 1):
                calibrate_card_rates(sub, h)
    stabs = tuple(compile_tables(subs[k]).as_tuple() if k in subs else tables.as_tuple()
                  for k in range(MAX_PLAYERS + 1))
    return subs, SP, stabs


def _tied_only(v: Variant) -> bool:
    return v.rule("end.tiebreak", "none") == "river" and not v.teams and \
        v.rule("end.tiebreak_participants", "all") == "tied_only"


def simulate_games(v: Variant, games: int, seed: int = 0,
                   policies: str | Sequence[str] = "precision+table",
                   stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD, keep: str = "summary",
                   workers: int | None = None, chunk_size: int = GAME_CHUNK,
                   progress: Any = False, backend: Any = None) -> GameResults:
    """Play `games` whole games of `v` with fixed policies ("play+bid" for everyone or one
    per seat; `stars` is the star-spending threshold where Horseshoes stars are on).

    keep="records" keeps one row per game (GameResults.frame()); keep="summary" keeps only
    the sums behind the balance metrics, so memory does not grow with the number of games.
    Either way GameResults.metrics() gives every balance metric with its 95% CI.
    `backend` (simulate.backends: LocalBackend, DaskBackend) runs the chunks elsewhere with
    identical results; by default they run on `workers` local threads.
    """
    from simulate.games.metrics import MetricSums, metric_defs
    from simulate.games.tasks import GameSpec, GameTask, run_task

    if keep not in ("records", "summary"):
        raise BidlabInputError(f"keep={keep!r}; allowed: records, summary")
    job = make_game_job(v, games, seed, policies, stars)
    chunk_size = positive_int(chunk_size, "chunk_size")
    task = GameTask("games", (GameSpec.of(job),), chunk_size, keep, jobs=(job,))
    plan = chunks(job.config.games, chunk_size)
    defs = metric_defs(job)
    sums = MetricSums(len(defs))
    by_size = np.zeros((4, v.players, job.max_size + 1), np.int64)
    kept: list[np.ndarray] = []
    lengths = np.zeros(1, np.int64)
    own_bar = isinstance(progress, bool)
    bar = _progress_bar_games(job.config.games, progress) if own_bar else progress
    tick = (lambda i: bar.update(plan[i][1])) if bar else None

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

    try:
        run_task(task, backend, workers, take, tick)
    finally:
        if bar and own_bar:
            bar.close()
    rows = np.concatenate(kept) if kept else None
    return GameResults(v, job, defs, sums, by_size, rows, lengths)


def _progress_bar_games(total: int, enabled: bool) -> Any:
    return new_bar(total, unit="game") if enabled else None


class GameResults:
    """What a run of whole games produced: balance metrics with CIs, bid accuracy by seat
    and hand size, and (keep="records") one row per game."""

    def __init__(self, v: Variant, job: GameJob, defs: list[Any], sums: Any,
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
        self.layout = Layout(v, len(job.specials))

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """Every balance metric: value, 95% CI, games; `fair` where chance gives a value."""
        from simulate.games.metrics import metrics_frame

        return metrics_frame(self.defs, self.sums)

    def accuracy(self, by: str = "seat") -> pd.DataFrame:
        """Bid accuracy (exact bids; made contracts for the maker's side) by seat (absolute,
        by="seat") or by position from the dealer (by="position") and hand size, with n and
        a 95% Wilson interval."""
        from simulate.games.metrics import wilson

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
