"""Bid odds for one hand: what every legal bid is worth, on the same deals.

In an auction game (Hasenpfeffer) every contract step is evaluated as if this seat had won
the auction with it: it takes the widow, names trump and plays; P(made) replaces P(exact).

The focal hand is fixed, the unseen cards are dealt at random, and the whole hand is played
once per candidate bid with the same random numbers (common random numbers): the deals,
and every other player's choices up to the consequences of that bid, are identical, so the
differences between bids are measured, not sampled twice. Bids the rules forbid on a deal
(the dealer's hook total, Max Bet) are not counted for that deal. `bids_before` conditions on
the bids of the players who bid earlier, by rejection: only deals on which their policy made
exactly those bids are kept, and how many were is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.hands.job import Job, make_job
from simulate.kernel.odds import run_odds
from simulate.rules.variant import Variant
from simulate.runner.backends import run_local
from simulate.runner.plan import ChunkPlan
from simulate.util.checks import check_seed, positive_int, worker_count
from simulate.util.stats import Z95

# a bid stops after the pilot deals when the best beats it by more than this many standard
# errors of the paired difference (two-sided 99.9%)
Z_STOP = 3.2905267314918945
PILOT_DEALS = 5_000
ODDS_CHUNK = 8192


class _Accumulators:
    """Per-bid sums over deals, plus paired sums over the deals two bids share."""

    def __init__(self, nb: int, h: int) -> None:
        self.counts = np.zeros((nb, h + 1), np.int64)
        self.sums = np.zeros(nb, np.float64)
        self.squares = np.zeros(nb, np.float64)
        self.npair = np.zeros((nb, nb), np.int64)
        self.dsum = np.zeros((nb, nb), np.float64)
        self.dsq = np.zeros((nb, nb), np.float64)
        self.seen = np.zeros(2, np.int64)

    def parts(self) -> tuple[np.ndarray, ...]:
        """The arrays in the kernel's argument order."""
        return (self.counts, self.sums, self.squares, self.npair, self.dsum, self.dsq,
                self.seen)

    def add(self, other: _Accumulators) -> None:
        """Add another chunk's sums into these."""
        for total, piece in zip(self.parts(), other.parts(), strict=True):
            total += piece


def _play(base: Job, seat: int, side: list[int], bids: np.ndarray, active: np.ndarray,
          earlier: list[int], before: list[int], start: int, count: int, acc: _Accumulators,
          workers: int | None) -> None:
    """Play deals start..start+count-1 for the active bids, adding into acc (chunk order)."""
    args = base.args()
    # small stages (the pilot) are cut finer so every worker has work; sums of integer
    # scores are exact, so the cut never changes a result
    n_workers = worker_count(workers)
    size = min(ODDS_CHUNK, max(1024, -(-count // (2 * n_workers))))
    plan = [(start + a, c) for a, c in ChunkPlan(count, size)]
    side_a = np.array(side, np.int64)
    earlier_a = np.array(earlier, np.int64)
    before_a = np.array(before, np.int64)
    h = base.config.hand_size

    def work(i: int) -> _Accumulators:
        first, n = plan[i]
        part = _Accumulators(len(bids), h)
        run_odds(args.P.copy(), args.tables, args.seed, first, n, args.hand_size, args.constrained,
                 args.fixed, args.forced_trump, args.play_pol, args.bid_pol, base.scratch(), seat,
                 side_a, bids, active, earlier_a, before_a, np.zeros(len(bids)), *part.parts())
        return part

    run_local(len(plan), work, n_workers, reduce=acc.add)


def _stages(samples: int) -> list[int]:
    """Deal counts after which the field is thinned: 1/20 and 1/5 of the samples (at least
    PILOT_DEALS), then all of them."""
    stops = sorted({min(samples, max(PILOT_DEALS, samples // 20)),
                    min(samples, max(PILOT_DEALS, samples // 5)), samples})
    return stops


def _mean_ci(total: float, square: float, n: int) -> tuple[float, float]:
    mean = total / n
    sd = np.sqrt(max(square / n - mean ** 2, 0.0))
    return mean, (Z95 * sd / np.sqrt(n) if n > 1 else float("nan"))


def _contenders(acc: _Accumulators, better_low: bool) -> np.ndarray:
    """Bids still in the running: the best so far, and every bid whose paired difference
    from it is not clearly worse."""
    n = acc.counts.sum(axis=1)
    played = n > 0
    means = np.where(played, acc.sums / np.maximum(n, 1), np.nan)
    if not played.any():
        return played
    best = int(np.nanargmin(means) if better_low else np.nanargmax(means))
    keep = np.zeros(len(n), np.bool_)
    keep[best] = True
    for k in np.flatnonzero(played):
        if k == best:
            continue
        a, b, sign = (k, best, 1.0) if k < best else (best, k, -1.0)
        m = int(acc.npair[a, b])
        if m < 2:
            keep[k] = True
            continue
        d = sign * acc.dsum[a, b] / m          # mean of score_k - score_best
        sd = np.sqrt(max(acc.dsq[a, b] / m - d * d, 0.0))
        se = sd / np.sqrt(m)
        worse = d + Z_STOP * se < 0 if not better_low else d - Z_STOP * se > 0
        keep[k] = not worse
    return keep


def _parse_bids_before(v: Variant, seat: int, bids_before: Any, hand_size: int) -> list[int]:
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    earlier = [(first + j) % v.players for j in range(v.players)]
    earlier = earlier[:earlier.index(seat)]
    if bids_before is None:
        return []
    if isinstance(bids_before, str):
        try:
            bids = [int(x) for x in bids_before.replace(" ", "").split(",") if x != ""]
        except ValueError:
            raise BidlabInputError(
                f"bids before {bids_before!r}: write whole numbers like 1,0") from None
    else:
        bids = [int(x) for x in bids_before]
    if v.bidding_form == "simultaneous":
        raise BidlabInputError(f"{v.name} bids simultaneously: nobody bids before seat {seat}")
    if len(bids) != len(earlier):
        raise BidlabInputError(
            f"bids before: seat {seat} bids after {len(earlier)} player(s) (seats "
            f"{', '.join(map(str, earlier)) or 'none'}), so give {len(earlier)} bid(s), "
            f"not {len(bids)}")
    running: list[int] = []
    for b in bids:
        legal = v.legal_bids(hand_size, running)
        if b not in legal:
            raise BidlabInputError(f"bids before: {b} is not a legal bid after {running or 'no bids'}"
                                   f"; allowed: {', '.join(map(str, legal))}")
        running.append(b)
    return bids


def bid_odds(v: Variant, hand: str | Sequence[str], seat: int = 0, trump: str | None = None,
             bids_before: Any = None, samples: int = 100_000, seed: int = 0,
             play: str = "precision", bid: str = "table", round_index: int | None = None,
             workers: int | None = None, exhaustive: bool = False) -> pd.DataFrame:
    """For every legal bid of `seat` holding `hand`: P(exactly that bid), expected score with
    a 95% CI, and the trick distribution; the best bid is marked. Seat 0 is the dealer's
    left, n-1 the dealer. DataFrame.attrs holds the configuration and accepted deals.

    Bids race on the same deals: after 1/20 and again after 1/5 of the samples (at least
    PILOT_DEALS), a bid whose paired difference from the best so far is clearly negative
    (99.9% CI) stops and is marked `stopped_early`, with its own n; the contenders play
    every deal. exhaustive=True plays every bid on every deal.

    v: the variant. hand: the focal hand's cards ("AS KS 9H" or a list). seat: its seat.
    trump: force a trump. bids_before: the earlier bidders' bids ("1,0" or a list), kept by
    rejection. samples: deals. seed: the deals' seed. play, bid: the other players'
    policies. round_index: the round these hands stand for (default: the first of this
    size). workers: local threads (default: every core)."""
    auction = v.bidding_form == "auction"
    if auction and bids_before is not None:
        raise BidlabInputError(f"{v.name} bids in an auction: each contract is evaluated as if "
                               "this seat won it, so there are no earlier bids to give")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < v.players:
        raise BidlabInputError(f"seat {seat!r} is not a seat; allowed: 0 to {v.players - 1} "
                               f"(0 = dealer's left, {v.players - 1} = dealer)")
    samples = positive_int(samples, "samples")
    seed = check_seed(seed)
    cards = v.cards.parse_hand(hand, "hand")
    h = len(cards)
    if h == 0:
        raise BidlabInputError("hand: no cards given")
    v.check_hand_size(h)
    before = _parse_bids_before(v, seat, bids_before, h)
    base = make_job(v, h, samples, seed, play, bid, trump, {seat: hand}, round_index)
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    order = [(first + j) % v.players for j in range(v.players)]
    earlier = order[:order.index(seat)] if before else []
    better_low = v.rule("end.better", "higher") == "lower"
    if not isinstance(exhaustive, bool):
        raise BidlabInputError(f"exhaustive must be true or false, got {exhaustive!r}")

    side = [s for s in range(v.players) if v.team_of(s) == v.team_of(seat)] if auction \
        else [seat]
    bids = np.array(list(range(1, len(v.ladder) + 1)) if auction else list(range(h + 1)),
                    np.int64)
    acc = _Accumulators(len(bids), h)
    active = np.ones(len(bids), np.bool_)
    done = 0
    for stop in ([samples] if exhaustive else _stages(samples)):
        if done:
            active &= _contenders(acc, better_low)
        _play(base, seat, side, bids, active, earlier, before, done, stop - done, acc, workers)
        done = stop
    accepted = int(acc.seen[1])

    rows = []
    for k, b in enumerate(bids):
        dist = acc.counts[k]
        n = int(dist.sum())
        if n == 0:
            continue
        mean, half = _mean_ci(float(acc.sums[k]), float(acc.squares[k]), n)
        row = {"bid": int(b), "n": n,
               "p_exact": (float(dist[v.ladder[b - 1].tricks:].sum()) / n) if auction
               else float(dist[b] / n if b <= h else 0.0),
               "expected_score": mean, "ci_low": mean - half, "ci_high": mean + half,
               "mean_tricks": float(np.dot(np.arange(len(dist)), dist) / n)}
        for t in range(h + 1):
            row[f"P{t}"] = dist[t] / n
        if auction:
            row["contract"] = v.ladder[b - 1].name
        row["stopped_early"] = not bool(active[k])
        rows.append(row)
    if before and accepted == 0:
        raise BidlabInputError(
            f"bids before {','.join(map(str, before))}: the {bid} policy never made those bids "
            f"in {samples:,} deals; allowed are bids it can produce — try other bids or more "
            "samples")
    if not rows:
        raise BidlabInputError("no bid could be evaluated for this hand")
    df = pd.DataFrame(rows)
    best = df.expected_score.idxmin() if better_low else df.expected_score.idxmax()
    df["best"] = False
    df.loc[best, "best"] = True
    df.attrs.update({"variant": v.canonical, "hand": " ".join(v.cards.names[c] for c in
                     sorted(cards)), "seat": seat, "trump": trump, "samples": samples,
                     "accepted": accepted, "bids_before": before, "seed": seed, "play": play,
                     "bid": bid, "better": "lower" if better_low else "higher",
                     "auction": auction, "exhaustive": exhaustive})
    return df


def format_odds(df: pd.DataFrame) -> str:
    """The text `bidlab odds` prints for a bid_odds table."""
    a = df.attrs
    lines = [f"{a['variant']}",
             f"hand {a['hand']} in seat {a['seat']}" + (f", trump {a['trump']}" if a["trump"]
                                                       else "")
             + (f", after bids {','.join(map(str, a['bids_before']))}" if a["bids_before"] else ""),
             f"{a['samples']:,} deals" + (f", {a['accepted']:,} accepted (earlier bids matched)"
                                          if a["bids_before"] else "")
             + f"; others play {a['play']} and bid {a['bid']}; seed {a['seed']}"
             + ("; LOWER scores are better" if a["better"] == "lower" else ""),
             ""]
    if a.get("auction"):
        lines.insert(-1, "each contract as if this seat won the auction with it; P(made) and the "
                         "trick distribution are its side's")
    ks = [c for c in df.columns if c.startswith("P") and c[1:].isdigit()]
    lines.append(f"{'bid':>4} {'n':>8} {'P(made)' if a.get('auction') else 'P(exact)':>9} "
                 f"{'E[score]':>9} {'95% CI':>19}  "
                 + " ".join(f"{k:>6}" for k in ks))
    for r in df.itertuples():
        ci = f"[{r.ci_low:.2f}, {r.ci_high:.2f}]"
        mark = "  <- best" if r.best else ("  (stopped early)" if r.stopped_early else "")
        lines.append(f"{r.bid:>4} {r.n:>8,} {r.p_exact:9.3f} {r.expected_score:9.3f} {ci:>19}  "
                     + " ".join(f"{getattr(r, k):6.3f}" for k in ks) + mark)
    if df.stopped_early.any():
        lines += ["", "stopped early: clearly worse than the best on the same deals (paired "
                      "99.9% CI), so played on fewer deals; --exhaustive plays every bid on "
                      "every deal"]
    return "\n".join(lines)
