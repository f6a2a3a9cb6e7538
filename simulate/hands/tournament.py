"""Tournaments: several (play, bid) policy pairs at one table, on the same deals, every entrant
in every seat, with confidence intervals that respect how the hands depend on one another.

Seating
    The table is cut into *units*: each seat on its own, or in a partnership game (v.teams = k)
    each team (seat s is in team s % k), so partners always play the same entrant (two
    entrants in a team game play team against team). A seating lists the E entrants in some
    order and gives unit u to order[u % E]: the units hold the entrants round-robin.

    seating="cyclic": the E orders (r, r+1, ..., r+E-1) mod E, r = 0 .. E-1, i.e. seating r
    gives unit u to entrant (u + r) % E. Over the E seatings every unit, hence every seat,
    holds every entrant exactly once, whatever E and the number of units U are: when E
    divides U each entrant holds U / E units in every seating; when it does not, an entrant
    holds more units in some seatings than in others (and may face itself); when E > U some
    entrants sit out each seating. This balances seats but not neighbours: with E >= 3 an
    entrant always finds the same entrants at the same distance, and in a 4-player Oh Hell
    tournament of greedy, greedy and random the two identical greedy entrants then differ by
    about 0.03 points a hand, well outside the 95% interval at 100,000 deals.

    seating="all": every one of the E! orders, which includes the cyclic ones. Every seat
    still holds every entrant equally often ((E-1)! times), and the entrants are now
    exchangeable, so two copies of one policy get exactly the same figures.

    seating="auto" (the default): "all" for up to 4 entrants (at most 24 seatings), "cyclic"
    beyond. With 2 entrants the two schemes coincide. A seating that puts the same policies in
    the same seats as another (repeated entrants) is played once and counted for both.

Deals
    Deals depend only on (seed, hand index, hand size), never on the policies, so every seating
    replays the same deals: a *deal* is one hand index, played once per seating, and each
    entrant's per-deal figure is its mean over every seat it held in that deal (each seat
    equally often). Several hand sizes are strata: the hands are shared out among the rounds of
    the schedule (each round counts once, so a size dealt twice in a game gets twice the
    hands) and each size has its own seed, derived from the seed and the size (the seed itself
    when only one size is played), so the strata are independent.

Two tables
    Bid policy `table@FILE` is the table bidder reading the trained table in FILE (a file
    of exactly this configuration, e.g. a copy of an older shipped table) instead of the
    configuration's own: `precision+table,precision+table@old.npz` plays the current table
    against the old one on the same deals. The kernel's bid table has a row per seat, so
    each seating gives every seat its own entrant's rows; the card rates (which make the
    hand classes) are shared, so both files must have the same ones.

Confidence intervals
    Per-deal figures are independent across deals (not across seats or seatings of one deal),
    so every interval is a normal 95% interval over deals, stratified by hand size: the estimate
    is sum_h w_h * mean_h and its variance sum_h w_h**2 * var_h / n_h, with w_h the share of the
    schedule's rounds dealing h cards. Paired differences use, deal by deal, entrant A's
    per-deal mean minus entrant B's.

Exact bids
    In bid-per-player games the rate is the share of the entrant's seat-hands with bid ==
    tricks (in a partnership game: the team's total bid == its total tricks). In contract games
    (v.is_contract) one player makes a contract per hand, so the rate is the share of the
    entrant's contracts that were made (the maker's side took at least the contract's tricks),
    counted only on hands where the entrant's seat was the maker: a ratio estimator (made /
    contracts, each summed per deal), its interval from the usual linearisation over deals
    (NaN if the entrant was never the maker). Rate intervals are clipped to [0, 1].
    Thrown-in (voided) hands count as hands scoring 0 and have no contract.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.hands.job import card_rates, make_job
from simulate.hands.simulate import records_arrays, simulate_hands
from simulate.kernel.hand import H_CONTRACT, H_MAKER, S_BID, S_SCORE, S_TRICKS
from simulate.rules.variant import Variant
from simulate.tables import policies
from simulate.tables.compile import compile_tables
from simulate.tables.trained import TableFile, read_table_file
from simulate.util.checks import check_seed, positive_int, worker_count
from simulate.util.stats import Z95

SEATINGS = ("auto", "cyclic", "all")
TABLE_FILE = "table@"    # bid policy `table@FILE`: the table bidder reading the table in FILE
AUTO_ALL_UP_TO = 4       # seating="auto": every ordering for up to 4 entrants (24 seatings)
MAX_ALL_SEATINGS = 720   # E! seatings; 6 entrants at most with seating="all"


# ----- input -------------------------------------------------------------------------------

def _check_entrants(entrants: Sequence[Any]) -> list[tuple[str, str]]:
    if isinstance(entrants, (str, bytes)) or not isinstance(entrants, Sequence):
        raise BidlabInputError("entrants must be a list of (play, bid) policy pairs")
    out: list[tuple[str, str]] = []
    for item in entrants:
        if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 2:
            raise BidlabInputError(f"entrant {item!r} must be a (play, bid) pair of policy names")
        play, bid = item
        if play not in policies.PLAY:
            raise BidlabInputError(f"entrant {play}+{bid}: unknown play policy {play!r}; "
                                   f"allowed play policies: {', '.join(policies.PLAY)}")
        if isinstance(bid, str) and bid.startswith(TABLE_FILE):
            if not Path(bid[len(TABLE_FILE):]).is_file():
                raise BidlabInputError(f"entrant {play}+{bid}: no such trained-table file "
                                       f"{bid[len(TABLE_FILE):]!r}")
        elif bid not in policies.BID:
            raise BidlabInputError(f"entrant {play}+{bid}: unknown bid policy {bid!r}; "
                                   f"allowed bid policies: {', '.join(policies.BID)}")
        out.append((str(play), str(bid)))
    if len(out) < 2:
        raise BidlabInputError(f"a tournament needs at least 2 entrants, got {len(out)}")
    return out


def parse_entrants(text: str) -> list[tuple[str, str]]:
    """`precision+table,greedy+greedy` → [("precision", "table"), ("greedy", "greedy")],
    checked against the policy names (at least two entrants)."""
    pairs: list[tuple[str, str]] = []
    for item in str(text).split(","):
        play, sep, bid = item.strip().partition("+")
        if not sep or not play.strip() or not bid.strip() or "+" in bid:
            raise BidlabInputError(
                f"--seats {text!r}: write PLAY+BID entrants separated by commas, e.g. "
                f"greedy+greedy,random+random (play policies: {', '.join(policies.PLAY)}; "
                f"bid policies: {', '.join(policies.BID)})")
        pairs.append((play.strip(), bid.strip()))
    return _check_entrants(pairs)


def entrant_labels(entrants: Sequence[tuple[str, str]], v: Variant | None = None,
                   hand_sizes: Sequence[int] | None = None) -> list[str]:
    """`play+bid`, with `#2`, `#3`, ... on repeats of the same pair; with v, the bid policy
    as outputs name it for v over hand_sizes (a table bidder without a trained table is
    named as the heuristic it falls back to)."""
    seen: Counter[str] = Counter()
    labels = []
    for play, bid in entrants:
        if bid.startswith(TABLE_FILE):
            base = f"{play}+{TABLE_FILE}{Path(bid[len(TABLE_FILE):]).name}"
        else:
            base = f"{play}+{bid}" if v is None else \
                policies.pair_label(v, f"{play}+{bid}", hand_sizes)
        seen[base] += 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


def size_seed(seed: int, hand_size: int) -> int:
    """The deal seed of one hand size when several sizes are played (independent strata)."""
    digest = hashlib.blake2b(f"bidlab-tournament:{seed}:{hand_size}".encode(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def allocate_hands(rounds: Sequence[int], hands: int) -> dict[int, int]:
    """Share `hands` among the distinct sizes in proportion to their rounds (largest
    remainder, ties to the smaller size), in increasing size order."""
    counts = Counter(rounds)
    total = len(rounds)
    sizes = sorted(counts)
    exact = {h: hands * counts[h] / total for h in sizes}
    out = {h: int(math.floor(exact[h])) for h in sizes}
    left = hands - sum(out.values())
    for h in sorted(sizes, key=lambda h: (-(exact[h] - out[h]), h))[:left]:
        out[h] += 1
    return out


# ----- seating -----------------------------------------------------------------------------

def units_of(v: Variant) -> list[int]:
    """Unit of each seat: the seat itself, or its team (s % k) in a partnership game."""
    return [s % v.teams if v.teams else s for s in range(v.players)]


def resolve_seating(seating: str, n_entrants: int) -> str:
    """"auto" → "all" for up to AUTO_ALL_UP_TO entrants, "cyclic" beyond."""
    if seating not in SEATINGS:
        raise BidlabInputError(f"seating {seating!r}; allowed: {', '.join(SEATINGS)}")
    if seating == "auto":
        return "all" if n_entrants <= AUTO_ALL_UP_TO else "cyclic"
    if seating == "all" and math.factorial(n_entrants) > MAX_ALL_SEATINGS:
        raise BidlabInputError(f"seating 'all' with {n_entrants} entrants means "
                               f"{math.factorial(n_entrants):,} seatings; use at most 6 "
                               "entrants, or seating 'cyclic'")
    return seating


def make_seatings(v: Variant, n_entrants: int, seating: str = "auto") -> list[tuple[int, ...]]:
    """Entrant index of every seat, for each seating (see the module notes).

    Unit u (a seat, or a team) holds order[u % E]; "cyclic" takes the E orders
    (r, r+1, ..., r+E-1) mod E, "all" every permutation of the entrants."""
    seating = resolve_seating(seating, n_entrants)
    units = units_of(v)
    if seating == "cyclic":
        orders = [tuple((j + r) % n_entrants for j in range(n_entrants))
                  for r in range(n_entrants)]
    else:
        orders = list(itertools.permutations(range(n_entrants)))
    return [tuple(order[u % n_entrants] for u in units) for order in orders]


def seat_counts(seatings: Sequence[Sequence[int]], n_entrants: int, players: int) -> np.ndarray:
    """[entrant, seat] → how many seatings put the entrant in that seat (per deal)."""
    counts = np.zeros((n_entrants, players), np.int64)
    for seats in seatings:
        for s, e in enumerate(seats):
            counts[e, s] += 1
    return counts


def _play_table(v: Variant, h: int, hands: int, seed: int, table: Sequence[tuple[str, str]],
                files: dict[str, TableFile], workers: int | None) -> Any:
    """One seating's hands. A seat whose bid policy is `table@FILE` bids as the table
    bidder reading FILE's cells and learned weights for that seat (the kernel's bid table
    and weights have a row per seat, so each seat can hold its own entrant's); every other
    seat reads this configuration's own, on the same deals."""
    plays = [p for p, _ in table]
    bids = ["table" if b.startswith(TABLE_FILE) else b for _, b in table]
    if not files:
        return simulate_hands(v, h, hands, seed=seed, play=plays, bid=bids, keep="records",
                              workers=workers)
    job = make_job(v, h, hands, seed, plays, bids, None, None, None)
    bid_table = job.tables.bid_table.copy()
    shape = next(iter(files.values())).bid_model.shape
    bid_model = job.tables.bid_model.copy() if job.tables.bid_model.shape == shape \
        else np.full(shape, np.nan, dtype=np.float32)
    for s, (_, b) in enumerate(table):
        if b in files:
            bid_table[:, s] = files[b].bid_table[:, s]
            bid_model[:, s] = files[b].bid_model[:, s]
    job = dataclasses.replace(job, tables=dataclasses.replace(job.tables, bid_table=bid_table,
                                                              bid_model=bid_model))
    return SimpleNamespace(records_data=records_arrays(job, worker_count(workers)))


# ----- per-seat outcomes of one run --------------------------------------------------------

def _raw_columns(v: Variant, res: Any) -> dict[str, np.ndarray]:
    """bid, tricks, score (and maker, contract in contract games) as [deal, seat] arrays.

    Read from the run's kernel arrays when it has them (the public `records` table also
    spells out every hand's cards, which costs far more than playing the hands); otherwise
    from `records`. tests/test_tournament.py checks that the two agree."""
    n = v.players
    raw = getattr(res, "records_data", None)
    if raw is not None:
        hand_out, seat_out = raw.hand_out, raw.seat_out
        cols = {"bid": seat_out[:, :, S_BID], "tricks": seat_out[:, :, S_TRICKS],
                "score": seat_out[:, :, S_SCORE]}
        if v.is_contract:
            cols["maker"] = hand_out[:, H_MAKER][:, None] == np.arange(n)[None, :]
            cols["contract"] = np.repeat(hand_out[:, H_CONTRACT][:, None], n, axis=1)
        return cols
    df = res.records
    names = ["bid", "tricks", "score"] + (["maker", "contract"] if v.is_contract else [])
    return {k: df[k].to_numpy().reshape(-1, n) for k in names}


def _seat_arrays(v: Variant, res: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(score, success, chance) per [deal, seat] of a records run.

    success/chance: exact bid of the seat (of its team in a partnership game) and 1 on every
    row; in contract games: contract made, and 1 on the maker's row only."""
    cols = _raw_columns(v, res)
    score = cols["score"].astype(np.float64)
    bid = cols["bid"].astype(np.int64)
    tricks = cols["tricks"].astype(np.int64)
    units = np.array(units_of(v))
    # unit totals broadcast back to the seats: same[s, t] = 1 when s and t share a unit
    same = (units[:, None] == units[None, :]).astype(np.int64)
    unit_tricks = tricks @ same
    if v.is_contract:
        maker = cols["maker"].astype(bool)
        step = cols["contract"].astype(np.int64)
        need = np.array([0] + [s.tricks for s in v.ladder], np.int64)
        need_at = need[np.clip(step, 0, len(v.ladder))]
        chance = maker.astype(np.float64)
        success = (maker & (unit_tricks >= need_at)).astype(np.float64)
    else:
        chance = np.ones(score.shape, np.float64)
        success = ((bid @ same) == unit_tricks).astype(np.float64)
    return score, success, chance


# ----- statistics --------------------------------------------------------------------------

def _stratified_mean(strata: Sequence[tuple[float, np.ndarray]]) -> tuple[float, float, float]:
    """(estimate, low, high): sum_h w_h mean_h with a normal 95% interval."""
    est = sum(w * float(x.mean()) for w, x in strata)
    var = sum(w * w * float(x.var(ddof=1)) / len(x) for w, x in strata if len(x) > 1)
    half = Z95 * math.sqrt(var)
    return est, est - half, est + half


def _stratified_ratio(strata: Sequence[tuple[float, np.ndarray, np.ndarray]]
                      ) -> tuple[float, float, float]:
    """(R, low, high) for R = sum_h w_h mean(x_h) / sum_h w_h mean(y_h), a rate (x <= y), with
    the linearised normal interval clipped to [0, 1]; NaN when y is always 0."""
    top = sum(w * float(x.mean()) for w, x, _ in strata)
    bottom = sum(w * float(y.mean()) for w, _, y in strata)
    if bottom <= 0:
        return math.nan, math.nan, math.nan
    r = top / bottom
    var = sum(w * w * float((x - r * y).var(ddof=1)) / len(x)
              for w, x, y in strata if len(x) > 1) / bottom**2
    half = Z95 * math.sqrt(var)
    return r, max(0.0, r - half), min(1.0, r + half)


# ----- the tournament ----------------------------------------------------------------------

@dataclass
class TournamentResult:
    """Per-entrant figures (`table`), paired differences (`pairs`) and the `config` behind
    them; `format()` gives the text `bidlab tournament` prints."""

    table: pd.DataFrame
    pairs: pd.DataFrame
    config: dict[str, Any]
    per_deal: dict[int, pd.DataFrame] = field(default_factory=dict, repr=False)

    def format(self) -> str:
        """The text `bidlab tournament` prints."""
        c = self.config
        sizes = c["hand_sizes"]
        if len(sizes) == 1:
            size_text = f"hand size {sizes[0]}"
        else:
            size_text = (f"hand sizes {', '.join(map(str, sizes))} (each round of the schedule "
                         "counts once)")
        E = len(c["entrants"])
        how = ("cyclic shifts of the entrant order" if c["seating"] == "cyclic"
               else "every order of the entrants")
        unit = f"team (teams of {c['players'] // c['teams']})" if c["teams"] else "seat"
        lines = [
            f"{c['variant']}: tournament of {E} entrants, {c['hands']:,} deals, seed {c['seed']}",
            f"  {size_text}",
            f"  {len(c['seatings'])} seatings ({how}, one entrant per {unit}): every entrant "
            "plays every seat equally often on the same deals",
            "  mean score per player per hand; 95% normal intervals over deals (deal = one hand "
            "index across all seatings)",
        ]
        if c.get("better") == "lower":
            lines.append("  LOWER scores are better in this game: a negative difference A - B "
                         "means A did better")
        if c["seating"] == "cyclic" and E >= 3:
            lines.append("  note: cyclic seating balances seats, not neighbours; differences "
                         "may partly reflect who sits next to whom")
        lines.append("")
        rate = "made" if c["contract"] else "exact"
        labels = list(self.table.entrant)
        w = max(len("entrant"), *(len(x) for x in labels))
        lines.append(f"{'entrant':<{w}}  {'mean score':>10}  {'95% CI':<19}  "
                     f"{rate + ' rate':>10}  95% CI")
        for row in self.table.itertuples():
            ci = f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
            # itertuples fields are typed as any pandas scalar; these columns hold floats
            exact, low, high = (cast(float, row.exact_rate), cast(float, row.exact_ci_low),
                                cast(float, row.exact_ci_high))
            if math.isnan(exact):
                ex = f"{'n/a':>10}"
            else:
                ex = f"{100 * exact:9.2f}%  [{100 * low:.2f}%, {100 * high:.2f}%]"
            lines.append(f"{row.entrant:<{w}}  {row.mean_score:10.3f}  {ci:<19}  {ex}")
        if c["contract"]:
            lines.append("  made rate: share of the entrant's contracts (as maker) its side made")
        else:
            lines.append("  exact rate: share of the entrant's hands with bid == tricks"
                         + (" (team totals)" if c["teams"] else ""))
        lines += ["", "paired differences in mean score (A - B, same deals):"]
        pw = max(len(f"{a} - {b}") for a, b in zip(self.pairs.a, self.pairs.b, strict=True))
        for row in self.pairs.itertuples():
            name = f"{row.a} - {row.b}"
            verdict = "CI excludes 0" if row.excludes_zero else "CI contains 0"
            lines.append(f"  {name:<{pw}}  {row.diff:+9.3f}  [{row.ci_low:+.3f}, "
                         f"{row.ci_high:+.3f}]  {verdict}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def run_tournament(v: Variant, entrants: Sequence[tuple[str, str]], hands: int, seed: int = 0,
                   hand_sizes: Sequence[int] | None = None, workers: int | None = None,
                   seating: str = "auto", keep_deals: bool = False) -> TournamentResult:
    """Play the entrants against each other on the same deals, every entrant in every seat.

    entrants: (play, bid) policy pairs (repeats allowed: `#2` marks the second copy).
    hands: deals in all, shared among the hand sizes (default: the rounds of v.schedule, each
    round counting once; a list may repeat a size to weight it). seating: "cyclic" (E
    seatings), "all" (E! seatings) or "auto" ("all" up to 4 entrants, else "cyclic").
    keep_deals: keep the per-deal mean score of every entrant, by size, in `result.per_deal`.
    Tables that seat the same policies in the same seats are played once and reused.
    See the module notes for the seating, the intervals and what an exact bid means.
    """
    pairs_in = _check_entrants(entrants)
    hands = positive_int(hands, "hands")
    seed = check_seed(seed)
    rounds = list(v.schedule) if hand_sizes is None else list(hand_sizes)
    if not rounds:
        raise BidlabInputError("hand_sizes is empty; give at least one hand size")
    for h in rounds:
        v.check_hand_size(h)
    alloc = allocate_hands(rounds, hands)
    sizes = sorted(alloc)
    if any(alloc[h] < 2 for h in sizes):
        need = math.ceil(2 * len(rounds) / min(Counter(rounds).values()))
        raise BidlabInputError(f"{hands} hands are too few for {len(sizes)} hand sizes (each "
                               f"needs at least 2); play at least {need} hands, or a single "
                               "hand size")
    labels = entrant_labels(pairs_in, v, sizes)
    if any(bid.startswith(TABLE_FILE) for _, bid in pairs_in):
        for h in sizes:
            card_rates(v, h)     # this configuration's, which a file's must equal
    files = {bid: read_table_file(v, Path(bid[len(TABLE_FILE):]), compile_tables(v), sizes)
             for _, bid in pairs_in if bid.startswith(TABLE_FILE)}
    weights = {h: Counter(rounds)[h] / len(rounds) for h in sizes}
    seeds = {h: seed if len(sizes) == 1 else size_seed(seed, h) for h in sizes}
    E = len(pairs_in)
    seating = resolve_seating(seating, E)
    seats = make_seatings(v, E, seating)
    counts = seat_counts(seats, E, v.players)
    rows_per_deal = counts.sum(axis=1)  # seat-hands of each entrant per deal
    # seatings that put the same policies in the same seats play identical hands: run once
    tables: dict[tuple[tuple[str, str], ...], list[tuple[int, ...]]] = {}
    for assignment in seats:
        tables.setdefault(tuple(pairs_in[e] for e in assignment), []).append(assignment)

    # per size: per-deal mean score, successes and chances of every entrant
    mean_by: dict[int, np.ndarray] = {}
    succ_by: dict[int, np.ndarray] = {}
    chance_by: dict[int, np.ndarray] = {}
    for h in sizes:
        n_h = alloc[h]
        total = np.zeros((E, n_h))
        succ = np.zeros((E, n_h))
        chance = np.zeros((E, n_h))
        for table, assignments in tables.items():
            res = _play_table(v, h, n_h, seeds[h], table, files, workers)
            score, ok, tried = _seat_arrays(v, res)
            del res
            for assignment in assignments:
                for e in set(assignment):
                    cols = [s for s, x in enumerate(assignment) if x == e]
                    total[e] += score[:, cols].sum(axis=1)
                    succ[e] += ok[:, cols].sum(axis=1)
                    chance[e] += tried[:, cols].sum(axis=1)
        mean_by[h] = total / rows_per_deal[:, None]
        succ_by[h], chance_by[h] = succ, chance

    table_rows = []
    for e, (label, (play, bid)) in enumerate(zip(labels, pairs_in, strict=True)):
        m, lo, hi = _stratified_mean([(weights[h], mean_by[h][e]) for h in sizes])
        r, rlo, rhi = _stratified_ratio([(weights[h], succ_by[h][e], chance_by[h][e])
                                         for h in sizes])
        table_rows.append({"entrant": label, "play": play, "bid": bid, "mean_score": m,
                           "ci_low": lo, "ci_high": hi, "exact_rate": r, "exact_ci_low": rlo,
                           "exact_ci_high": rhi, "hands": hands})
    pair_rows = []
    for a, b in itertools.combinations(range(E), 2):
        d, lo, hi = _stratified_mean([(weights[h], mean_by[h][a] - mean_by[h][b])
                                      for h in sizes])
        pair_rows.append({"a": labels[a], "b": labels[b], "diff": d, "ci_low": lo,
                          "ci_high": hi, "excludes_zero": bool(lo > 0 or hi < 0)})
    config = {
        "variant": v.canonical,
        "players": v.players,
        "teams": v.teams,
        "contract": bool(v.is_contract),
        "better": str(v.rule("end.better", "higher")),
        "entrants": labels,
        "policies": [list(p) for p in pairs_in],
        "hands": hands,
        "seed": seed,
        "hand_sizes": sizes,
        "hands_by_size": {h: alloc[h] for h in sizes},
        "weights": weights,
        "deal_seeds": seeds,
        "seating": seating,
        "seatings": [list(s) for s in seats],
        "tables_played": len(tables),
        "seat_counts": counts.tolist(),
        "exact_means": ("maker's side made its contract (maker hands only)" if v.is_contract
                        else "team bid total == team tricks" if v.teams else "bid == tricks"),
        "ci": "95% normal over deals, stratified by hand size",
    }
    per_deal: dict[int, pd.DataFrame] = {}
    if keep_deals:
        for h in sizes:
            per_deal[h] = pd.DataFrame({label: mean_by[h][e] for e, label in enumerate(labels)})
    return TournamentResult(pd.DataFrame(table_rows), pd.DataFrame(pair_rows), config, per_deal)
