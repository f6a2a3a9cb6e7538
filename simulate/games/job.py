"""One whole-games configuration as the game kernel reads it: `make_game_job` checks the
arguments (policies, star thresholds) and compiles the tables; `GameJob.run` plays a chunk of
games; `Layout` says where each field of a game row sits.

Seats are absolute: seat 0 sits on the first dealer's left, seat n-1 is the first dealer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from simulate.errors import BidlabInputError
from simulate.hands.job import card_rates as calibrate_card_rates
from simulate.kernel import game as K
from simulate.kernel.hand import HandScratch, make_scratch, max_decisions
from simulate.rules.load import load_variant
from simulate.rules.play import constraint_active
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables import policies as pol
from simulate.tables.compile import RuleTables, compile_tables
from simulate.util.checks import check_seed, positive_int

GAME_CHUNK = 2048             # games per chunk (one task on a thread or dask worker)
MAX_HANDS = 10_000            # the reference engine's safety cap for target games
DEFAULT_STAR_THRESHOLD = 2
MAX_PLAYERS = 16              # variant files allow 2..16 players
CLAIRVOYANT = "clairvoyant"   # a whole-game bidder that knows the deal (the luck ceiling)
CLAIRVOYANT_BASE = "heuristic"   # what it is in the tables: every bid is forced over it


@dataclass(frozen=True)
class GameConfig:
    """The exact configuration behind a games result."""

    variant: str
    games: int
    seed: int
    policies: tuple[str, ...]      # "play+bid" by absolute seat
    stars: tuple[int, ...]         # star-spending threshold by seat (Horseshoes with stars)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain values (for JSON)."""
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
    if CLAIRVOYANT in bids and v.is_contract:
        raise BidlabInputError(f"bid policy {CLAIRVOYANT!r} is for bidding games; {v.name} "
                               "bids by auction")
    pol.resolve("play", plays, v.players)
    pol.resolve("bid", _table_bids(bids), v.players)
    return plays, bids


def _table_bids(bids: list[str]) -> list[str]:
    """Bid names as the policy tables know them: the clairvoyant bidder runs over the
    heuristic one (every bid it makes is forced)."""
    return [CLAIRVOYANT_BASE if b == CLAIRVOYANT else b for b in bids]


def tracked_cards(v: Variant) -> list[int]:
    """Cards whose holders the balance metrics follow: every special (non-natural) card and
    every card a capture event names (the Beanie and Frilly Jacks)."""
    out = [i for i, c in enumerate(v.cards.cards) if c.special]
    for e in v.events:
        if e.card not in out:
            out.append(e.card)
    return out


class Layout:
    """Column positions of a game row."""

    def __init__(self, v: Variant, n_specials: int) -> None:
        self.n = v.players
        self.n_specials = n_specials
        self.n_events = len(v.events)
        self.sw = K.seat_width(n_specials, self.n_events)

    def col(self, seat: int, field: int) -> int:
        """The column of a per-seat field (K.P_*) of `seat`."""
        return K.C_FIXED + seat * self.sw + field

    def held(self, seat: int, e: int) -> int:
        """The column counting the hands in which `seat` held tracked card e."""
        return self.col(seat, K.SEAT_BASE + e)

    def held_ok(self, seat: int, e: int) -> int:
        """The column counting the hands `seat` made (or was exact in) holding card e."""
        return self.col(seat, K.SEAT_BASE + self.n_specials + e)

    def captured(self, seat: int, e: int) -> int:
        """The column counting `seat`'s captures of event e."""
        return self.col(seat, K.SEAT_BASE + 2 * self.n_specials + e)


@dataclass
class GameJob:
    """Everything the game kernel reads for one configuration (see `make_game_job`)."""

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
    card_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    clair_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def width(self) -> int:
        """Columns of a game row."""
        return K.C_FIXED + self.v.players * K.seat_width(len(self.specials), len(self.v.events))

    @property
    def max_size(self) -> int:
        """The largest hand size of the schedule."""
        return int(max(self.v.schedule))

    @property
    def layout(self) -> Layout:
        """Where each field of this job's game rows sits."""
        return Layout(self.v, len(self.specials))

    def scratch(self) -> HandScratch:
        """Fresh per-hand kernel scratch arrays sized for this game."""
        v = self.v
        return make_scratch(v.players, len(v.cards),
                            max_decisions(v.players, self.max_size,
                                          int(v.rule("deal.widow", 0) or 0), len(v.ladder)))

    def run(self, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Games start..start+count-1: (rows [count, width], by_size [planes, n, H+1])."""
        n = self.v.players
        rows = np.zeros((count, self.width), np.int64)
        by_size = np.zeros((K.BY_SIZE_PLANES, n, self.max_size + 1), np.int64)
        empty_i, empty_m, empty_d = _empty_trace(n)
        K.run_games(self.tables.P, self.tables.as_tuple(), self.SP, self.stabs, self.G,
                    self.sched, self.con_rounds, self.specials, self.card_ids,
                    np.uint64(self.config.seed), start, count, self.play_ids,
                    self.bid_ids, self.clair_ids, self.star_thr, self.scratch(),
                    K.make_game_scratch(n), rows, by_size, empty_i, empty_m, empty_d)
        return rows, by_size


def _empty_trace(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zero-length trace buffers: run_games shares play_game with trace_game and records none."""
    return (np.zeros((0, K.trace_width(n)), np.int64), np.zeros((0, n + 1), np.uint64),
            np.zeros((0, 1, 3), np.int64))


def card_ids(v: Variant) -> np.ndarray:
    """Each card's identity for the coupled deal, uint64[D]: a hash of its name and copy
    number (the second JOKER is "JOKER#1"), so the same card has the same id in every deck
    and a deck that adds or lacks cards still deals the others alike."""
    seen: dict[str, int] = {}
    out = np.zeros(len(v.cards), np.uint64)
    for i, name in enumerate(v.deck):
        copy = seen.get(name, 0)
        seen[name] = copy + 1
        digest = hashlib.blake2b(f"{name}#{copy}".encode(), digest_size=8).digest()
        out[i] = np.uint64(int.from_bytes(digest, "little"))
    return out


def game_params(v: Variant) -> np.ndarray:
    """The end rule as the G vector the game kernel reads."""
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
    """Check the arguments and compile everything the game kernel needs.

    v: the variant; games: how many games (positive); seed: 0 .. 2**63-1 (game g is dealt
    from its own stream of this seed); policies: "play+bid" for everyone or one per seat;
    stars: the star-spending threshold in points (-1: never spend), for everyone or per seat.
    Heuristic bidders get their card rates calibrated here (cached per variant and size).
    """
    games = positive_int(games, "games")
    seed = check_seed(seed)
    plays, bids = parse_policies(v, policies)
    if isinstance(stars, (int, np.integer)):    # a bool too: the check below refuses it
        thr: list[Any] = [stars] * v.players
    else:
        thr = list(stars)
    if len(thr) != v.players or any(isinstance(t, bool) or not isinstance(t, (int, np.integer))
                                    or t < -1 for t in thr):
        raise BidlabInputError(f"stars: a threshold in points (a whole number ≥ 0, or -1 for "
                               f"never spending) for everyone or for each of {v.players} seats; "
                               f"got {stars!r}")
    tables = compile_tables(v)
    play_ids = np.array(pol.resolve("play", plays, v.players), np.int64)
    bid_ids = np.array(pol.resolve("bid", _table_bids(bids), v.players), np.int64)
    clair_ids = np.array([1 if b == CLAIRVOYANT else 0 for b in bids], np.int64)
    if any(b >= L.BID_HEURISTIC for b in bid_ids):
        sizes = set(v.schedule)
        if v.rule("end.tiebreak", "none") == "river":
            sizes |= set(range(1, max(v.schedule) + 1))
        for h in sorted(sizes):
            calibrate_card_rates(v, h)
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
                   np.array(thr, np.int64), subs, SP, stabs, card_ids(v), clair_ids)


def _sub_tables(v: Variant, tables: RuleTables, bid_ids: np.ndarray
                ) -> tuple[dict[int, Variant], np.ndarray, tuple[tuple[np.ndarray, ...], ...]]:
    """For tied-only tie-break rounds: the game for every smaller player count that a tie
    can leave (2 .. n-1 players), as the kernel reads it; unused slots hold this game's own
    tables (the kernel needs one type for every slot)."""
    n = v.players
    subs: dict[int, Variant] = {}
    if _tied_only(v):
        lo = v.player_range[0]
        for k in range(max(2, lo), n):
            subs[k] = load_variant(v.path, players=k, **v.options)
    # one length for every game (players ≤ MAX_PLAYERS), so the kernel compiles once
    SP = np.stack([compile_tables(subs[k]).P if k in subs else tables.P
                   for k in range(MAX_PLAYERS + 1)])
    if any(b >= L.BID_HEURISTIC for b in bid_ids):
        for sub in subs.values():
            for h in range(1, max(v.schedule) + 1):
                calibrate_card_rates(sub, h)
    stabs = tuple(compile_tables(subs[k]).as_tuple() if k in subs else tables.as_tuple()
                  for k in range(MAX_PLAYERS + 1))
    return subs, SP, stabs


def _tied_only(v: Variant) -> bool:
    return v.rule("end.tiebreak", "none") == "river" and not v.teams and \
        v.rule("end.tiebreak_participants", "all") == "tied_only"
