"""Bid odds for one hand: what every legal bid is worth, on the same deals.

In an auction game (Hasenpfeffer) every contract step is evaluated as if this seat had won
the auction with it: it takes the widow, names trump and plays; P(made) replaces P(exact).

The focal hand is fixed, the unseen cards are dealt at random, and the whole hand is played
once per candidate bid with the same random numbers (common random numbers): the deals,
and every other player's choices up to the consequences of that bid, are identical, so the
differences between bids are measured, not sampled twice.

Conditioning is by rejection, on what is decided before this seat bids: `bids_before` keeps
only deals on which the earlier bidders' policy made exactly those bids, and a trump named
by another player (Hoffer's dealer, Horseshoes' first bidder) keeps only deals on which
that player's policy named it — the trump is not forced on a player who chooses it. A
turned-up trump is a condition on the deal itself; a trump this seat names is given.
`samples` counts accepted deals.

Bids the rules forbid on a deal (the dealer's hook total, Max Bet) are not counted for that
deal. For the dealer under the hook without `bids_before`, the table is split by the sum of
the earlier bids, so the forbidden bid of each sum shows as a row of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.hands.forced import earlier_seats
from simulate.hands.job import Job, make_job
from simulate.hands.odds_pass import OddsSums, play_odds
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.tables import policies
from simulate.util.checks import check_seed, positive_int
from simulate.util.stats import Z95, holm_z, two_sided_p

# a bid stops racing when the best beats it by more than this many standard errors of the
# paired difference (two-sided 99.9%), and never before MIN_PAIRED shared accepted deals
Z_STOP = 3.2905267314918945
MIN_PAIRED = 1_000
# the racing stages: after 1/100, 1/20 and 1/5 of the accepted deals (at least MIN_PAIRED),
# then all. Each look drops a bid only at 99.9%, so three looks leave a bid that is in fact
# as good as the best a chance under 0.15% of being dropped; at 13 cards most of the 14
# candidates are out after the first 1,000 deals, which halves the hands played.
PILOT_ACCEPTED = MIN_PAIRED
# dealing stops at MAX_DEALT_FACTOR * samples dealt (at least MAX_DEALT_FLOOR), and gives up
# sooner when after GIVE_UP_FACTOR * samples dealt fewer than GIVE_UP_RATE of them matched
MAX_DEALT_FACTOR, MAX_DEALT_FLOOR = 200, 2_000_000
GIVE_UP_FACTOR, GIVE_UP_RATE = 20, 0.01
# fewer accepted deals than this: a warning that the conditioning is thin
THIN = 5_000
# a group of the dealer's table (one sum of earlier bids) shows with at least this many deals
MIN_GROUP = 200


@dataclass
class _Query:
    """A validated bid_odds query: the job and what the kernel conditions on."""

    v: Variant
    base: Job
    seat: int
    side: list[int]
    bids: np.ndarray
    earlier: list[int]
    before: list[int]
    want_trump: int
    groups: int
    better_low: bool
    trump: str | None
    trump_mode: str
    condition: str          # what a rejected deal failed, for messages
    namer: str              # who names the trump, for messages
    warnings: list[str] = field(default_factory=list)


Progress = Callable[[int, int], None]


def _play(q: _Query, active: np.ndarray, start: int, count: int, acc: OddsSums,
          workers: int | None, progress: Progress | None = None) -> None:
    """Play deals start..start+count-1 for the active bids, adding into acc (chunk order);
    progress(accepted, dealt) after each chunk."""
    tick = None if progress is None else (lambda: progress(acc.accepted, acc.dealt))
    play_odds(q.base, q.seat, np.array(q.side, np.int64), q.bids, active,
              np.array(q.earlier, np.int64), np.array(q.before, np.int64), q.want_trump,
              start, count, acc, workers, tick)


def _stages(samples: int) -> list[int]:
    """Accepted-deal counts after which the field is thinned: 1/100, 1/20 and 1/5 of the
    samples (at least PILOT_ACCEPTED), then all of them."""
    return sorted({min(samples, max(PILOT_ACCEPTED, samples // k)) for k in (100, 20, 5)}
                  | {samples})


def _mean_ci(total: float, square: float, n: int) -> tuple[float, float]:
    mean = total / n
    sd = math.sqrt(max(square / n - mean ** 2, 0.0))
    return mean, (Z95 * sd / math.sqrt(n - 1) if n > 1 else math.nan)


def _best(acc: OddsSums, g: int, better_low: bool) -> int:
    """The bid with the best mean in group g (-1: none played)."""
    n = acc.counts[g].sum(axis=1)
    if not (n > 0).any():
        return -1
    means = np.where(n > 0, acc.sums[g] / np.maximum(n, 1), np.nan)
    return int(np.nanargmin(means) if better_low else np.nanargmax(means))


def _contenders(acc: OddsSums, better_low: bool, min_paired: int) -> np.ndarray:
    """active[g, k] for the next stage: per group the best so far, and every bid whose
    paired difference from it is not clearly worse or rests on fewer than min_paired
    shared deals. A bid never allowed in a group whose best has min_paired deals is dropped
    there (the hook forbids it)."""
    ng, nb = acc.sums.shape
    keep = np.ones((ng, nb), np.bool_)
    for g in range(ng):
        best = _best(acc, g, better_low)
        if best < 0:
            continue
        n = acc.counts[g].sum(axis=1)
        for k in range(nb):
            if k == best:
                continue
            if n[k] == 0:
                keep[g, k] = n[best] < min_paired
                continue
            m, d, se = acc.paired(g, k, best)
            if m < min_paired or se != se:
                continue
            keep[g, k] = not (d - Z_STOP * se > 0 if better_low else d + Z_STOP * se < 0)
    return keep


def _deal(q: _Query, samples: int, exhaustive: bool, workers: int | None,
          progress: Progress | None = None) -> tuple[OddsSums, np.ndarray, str]:
    """Deal until `samples` deals are accepted (or the caps: see MAX_DEALT_FACTOR,
    GIVE_UP_FACTOR), racing the bids at each stage. Returns the sums, the bids active at
    the end by group, and why dealing stopped short of `samples` ("" when it did not)."""
    h = q.base.config.hand_size
    acc = OddsSums(q.groups, len(q.bids), h)
    active = np.ones((q.groups, len(q.bids)), np.bool_)
    cap = max(MAX_DEALT_FACTOR * samples, MAX_DEALT_FLOOR)
    give_up = GIVE_UP_FACTOR * samples
    min_paired = min(MIN_PAIRED, samples)
    short = ""
    for target in ([samples] if exhaustive else _stages(samples)):
        if acc.accepted and not exhaustive:
            active &= _contenders(acc, q.better_low, min_paired)
        while acc.accepted < target:
            dealt, got = acc.dealt, acc.accepted
            if dealt >= cap:
                short = f"dealing stopped at the cap of {cap:,} deals"
                break
            if dealt >= give_up and got < GIVE_UP_RATE * dealt:
                short = (f"dealing stopped after {dealt:,} deals, as under "
                         f"{100 * GIVE_UP_RATE:g} % matched")
                break
            need = target - got
            if dealt == 0:
                batch = need
            elif got == 0:
                batch = dealt                       # nothing matched yet: double the deals
            elif got == dealt:
                batch = need
            else:
                batch = max(256, math.ceil(need * dealt / got))
            batch = min(batch, cap - dealt)
            if dealt < give_up:
                batch = min(batch, give_up - dealt)  # look again at the give-up point
            _play(q, active, dealt, batch, acc, workers, progress)
        if short:
            break
    return acc, active, short


def _parse_bids_before(v: Variant, seat: int, bids_before: Any, hand_size: int) -> list[int]:
    earlier = list(earlier_seats(v, seat))
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


def _first_bidder(v: Variant) -> int:
    return v.seat_of_offset(int(v.rule("bidding.first", 1)))


def _trump_plan(v: Variant, seat: int, trump: str | None,
                h: int) -> tuple[str | None, int, str | None, str]:
    """(trump to force, trump to condition on (-1: none), the trump's name, trump_mode)."""
    chooser = v.trump_chooser
    names = ", ".join(v.trump_choices)
    if chooser == "fixed":
        fixed = v.trump_choices[0] if len(v.trump_choices) == 1 else None
        if trump is not None:
            t = TRUMP_NAMES[v.trump_index(trump)]
            return None, -1, t, "fixed"
        return None, -1, fixed, "fixed"
    if chooser == "turn_up":
        undealt = len(v.cards) - h * v.players - int(v.rule("deal.widow", 0) or 0)
        if undealt <= 0:
            if trump is not None and TRUMP_NAMES[v.trump_index(trump)] != "NT":
                raise BidlabInputError(
                    f"trump {trump}: with {h} cards every card is dealt, nothing is turned up "
                    "and the hand is played without trump; allowed: NT (or no trump given)")
            return None, -1, "NT", "no card turned up: no trump"
        if trump is None:
            suits = ", ".join(t for t in v.trump_choices if t != "NT")
            raise BidlabInputError(
                f"trump: in {v.name} the trump is turned up before anyone bids, so it is known "
                f"at this point; give it (--trump), one of {suits}")
        t = TRUMP_NAMES[v.trump_index(trump)]
        return t, -1, t, "turned up (conditioned)"
    if chooser == "maker":
        if trump is None:
            return None, -1, None, "chosen by this seat"
        t = TRUMP_NAMES[v.trump_index(trump)]
        return t, -1, t, "given (this seat names it)"
    who = v.players - 1 if chooser == "dealer" else _first_bidder(v)
    role = "the dealer" if chooser == "dealer" else "the first bidder"
    if seat == who:
        if trump is None:
            return None, -1, None, "chosen by this seat"
        t = TRUMP_NAMES[v.trump_index(trump)]
        return t, -1, t, "given (this seat names it)"
    if trump is None:
        raise BidlabInputError(
            f"trump: in {v.name} {role} (seat {who}) names trump before seat {seat} bids, so it "
            f"is known at this point; give it (--trump), one of {names}")
    i = v.trump_index(trump)
    return None, i, TRUMP_NAMES[i], f"named by {role} (seat {who}) (conditioned)"


def _check_fields(v: Variant, fields: Sequence[str]) -> list[str]:
    out = []
    for f in fields:
        name = str(f).strip()
        policies.resolve("bid", name, v.players)
        out.append(name)
    if not out:
        raise BidlabInputError(f"fields: none given; allowed: {', '.join(policies.BID)}")
    return out


def _query(v: Variant, hand: str | Sequence[str], seat: int, trump: str | None, bids_before: Any,
           samples: int, seed: int, play: str, bid: str, round_index: int | None) -> tuple[_Query, int]:
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
    force, want, name, mode = _trump_plan(v, seat, trump, h)
    base = make_job(v, h, samples, seed, play, bid, force, {seat: hand}, round_index)
    earlier = list(earlier_seats(v, seat))
    last = v.bidding_form == "sequential" and len(earlier) == v.players - 1
    groups = h + 2 if (last and base.constrained and not before) else 1
    side = [s for s in range(v.players) if v.team_of(s) == v.team_of(seat)] if auction \
        else [seat]
    bids = np.array(list(range(1, len(v.ladder) + 1)) if auction else list(range(h + 1)),
                    np.int64)
    parts = []
    if before:
        parts.append(f"the {bid} policy made the bids {','.join(map(str, before))} before "
                     f"seat {seat}")
    if want >= 0:
        parts.append(f"trump {name} was named")
    q = _Query(v, base, seat, side, bids, earlier, before, want, groups,
               v.rule("end.better", "higher") == "lower", name, mode, " and ".join(parts),
               mode.removeprefix("named by ").removesuffix(" (conditioned)"))
    if h not in v.schedule:
        q.warnings.append(f"{h} cards is not a hand size of this game's schedule; the "
                          "opponents bid by a fallback")
    return q, samples


def check_query(v: Variant, hand: str | Sequence[str], seat: int = 0, trump: str | None = None,
                bids_before: Any = None, samples: int = 100_000, seed: int = 0,
                play: str = "precision", bid: str = "table",
                round_index: int | None = None) -> None:
    """Raise the BidlabInputError bid_odds would raise for these arguments before it deals
    (cards, seat, hand size, trump, earlier bids, samples, seed, policies), without dealing:
    a server checks a query so before it queues it."""
    _query(v, hand, seat, trump, bids_before, samples, seed, play, bid, round_index)


def _pair_columns(acc: OddsSums, g: int, best: int, nb: int) -> list[dict[str, Any]]:
    """diff_to_best, diff_low, diff_high and tie for every bid of group g, the intervals
    Holm-corrected over the bids compared with the best (95% family-wise)."""
    stats = []
    for k in range(nb):
        if k == best:
            stats.append((0, 0.0, 0.0))
            continue
        stats.append(acc.paired(g, k, best))
    others = [k for k in range(nb) if k != best and stats[k][0] > 1 and stats[k][2] == stats[k][2]]
    pvals = [two_sided_p(stats[k][1] / stats[k][2]) if stats[k][2] > 0
             else (1.0 if stats[k][1] == 0 else 0.0) for k in others]
    zs = dict(zip(others, holm_z(pvals), strict=True))
    out = []
    for k in range(nb):
        m, d, se = stats[k]
        if k == best:
            out.append({"diff_to_best": 0.0, "diff_low": 0.0, "diff_high": 0.0,
                        "diff_low_raw": 0.0, "diff_high_raw": 0.0, "tie": False})
        elif k in zs:
            z = zs[k]
            out.append({"diff_to_best": d, "diff_low": d - z * se, "diff_high": d + z * se,
                        "diff_low_raw": d - Z95 * se, "diff_high_raw": d + Z95 * se,
                        "tie": bool(d - z * se <= 0 <= d + z * se)})
        else:
            out.append({"diff_to_best": d, "diff_low": math.nan, "diff_high": math.nan,
                        "diff_low_raw": math.nan, "diff_high_raw": math.nan, "tie": False})
    return out


def _rows(q: _Query, acc: OddsSums, active: np.ndarray) -> list[dict[str, Any]]:
    v, h = q.v, q.base.config.hand_size
    auction = v.bidding_form == "auction"
    nb = len(q.bids)
    rows: list[dict[str, Any]] = []
    for g in range(q.groups):
        n_group = int(acc.seen[2 + g])
        if n_group == 0 or (q.groups > 1 and n_group < MIN_GROUP):
            continue
        best = _best(acc, g, q.better_low)
        pairs = _pair_columns(acc, g, best, nb)
        for k, b in enumerate(q.bids):
            dist = acc.counts[g, k]
            n = int(dist.sum())
            row: dict[str, Any] = {}
            if q.groups > 1:
                row["bids_before_sum"] = g
            row.update({"bid": int(b), "n": n})
            if n == 0:
                row.update({"p_exact": math.nan, "expected_score": math.nan,
                            "ci_low": math.nan, "ci_high": math.nan, "mean_tricks": math.nan})
                row.update({f"P{t}": math.nan for t in range(h + 1)})
                row.update({"diff_to_best": math.nan, "diff_low": math.nan,
                            "diff_high": math.nan, "diff_low_raw": math.nan,
                            "diff_high_raw": math.nan, "tie": False})
            else:
                mean, half = _mean_ci(float(acc.sums[g, k]), float(acc.squares[g, k]), n)
                row.update({
                    "p_exact": (float(dist[v.ladder[b - 1].tricks:].sum()) / n) if auction
                    else float(dist[b] / n if b <= h else 0.0),
                    "expected_score": mean, "ci_low": mean - half, "ci_high": mean + half,
                    "mean_tricks": float(np.dot(np.arange(len(dist)), dist) / n)})
                for t in range(h + 1):
                    row[f"P{t}"] = dist[t] / n
                row.update(pairs[k])
            if auction:
                row["contract"] = v.ladder[b - 1].name
            row["forbidden"] = n == 0
            row["stopped_early"] = n > 0 and not bool(active[g, k])
            row["best"] = k == best
            rows.append(row)
    return rows


def bid_odds(v: Variant, hand: str | Sequence[str], seat: int = 0, trump: str | None = None,
             bids_before: Any = None, samples: int = 100_000, seed: int = 0,
             play: str = "precision", bid: str = "table", round_index: int | None = None,
             workers: int | None = None, exhaustive: bool = False,
             progress: Progress | None = None) -> pd.DataFrame:
    """For every legal bid of `seat` holding `hand`: P(exactly that bid), expected score with
    a 95% CI, the trick distribution and the paired difference to the best bid; the best bid
    is marked. Seat 0 is the dealer's left, n-1 the dealer.

    Columns: bid, n, p_exact (P(made) in an auction), expected_score, ci_low, ci_high,
    mean_tricks, P0..Ph (chance of taking k tricks), diff_to_best (E[score_bid -
    score_best] on the shared deals), diff_low, diff_high (95% Holm-corrected over the
    bids compared with the best), diff_low_raw, diff_high_raw (uncorrected), tie (the
    interval covers 0), forbidden (the rules never allowed it: NaN figures), stopped_early
    (raced out), best; contract in an auction; bids_before_sum for the dealer under the
    hook without bids_before (one block of rows per sum of the earlier bids, MIN_GROUP
    deals at least; the sum h + 1 stands for every sum above h).

    attrs: variant, hand, seat, trump, trump_mode, samples, accepted, dealt, bids_before,
    seed, play, bid, better, auction, exhaustive, too_close (another bid ties the best),
    ties (those bids), warnings (one line each), side (the seats whose score it is),
    grouped, groups_hidden ({sum of earlier bids: accepted deals} of blocks too small to
    show).

    Bids race on the same deals: after 1/100, 1/20 and 1/5 of the accepted deals (at
    least MIN_PAIRED), a bid whose paired difference from the best so far is clearly
    negative (99.9% CI, at least MIN_PAIRED shared deals) stops and is marked
    `stopped_early`, with its own n; the contenders play every deal. exhaustive=True plays
    every bid on every deal.

    v: the variant. hand: the focal hand's cards ("AS KS 9H" or a list). seat: its seat.
    trump: where the trump is known when this seat bids (turned up, or named by another
    player) the deals are conditioned on it, and it is required; where this seat names it,
    it is given (None: its policy chooses). bids_before: the earlier bidders' bids ("1,0"
    or a list), kept by rejection. samples: accepted deals wanted; dealing stops at
    MAX_DEALT_FACTOR times that, or at GIVE_UP_FACTOR times that when under GIVE_UP_RATE
    match. seed: the deals' seed. play, bid: the other players' policies. round_index: the
    round these hands stand for (default: the first of this size). workers: local threads
    (default: every core). progress: called as progress(accepted, dealt) after every chunk
    of deals; an exception it raises stops the run there (a server so drops a query its
    client abandoned)."""
    if not isinstance(exhaustive, bool):
        raise BidlabInputError(f"exhaustive must be true or false, got {exhaustive!r}")
    q, samples = _query(v, hand, seat, trump, bids_before, samples, seed, play, bid, round_index)
    acc, active, short = _deal(q, samples, exhaustive, workers, progress)
    accepted, dealt = acc.accepted, acc.dealt
    if accepted == 0:
        if q.before:
            raise BidlabInputError(
                f"bids before {','.join(map(str, q.before))}: the {bid} policy never made those "
                f"bids in {dealt:,} deals tried" + (f" with trump {q.trump}" if q.want_trump >= 0
                                                   else "")
                + "; give bids it can produce")
        if q.want_trump >= 0:
            raise BidlabInputError(
                f"trump {q.trump}: {q.namer}, bidding by the {bid} policy, never named it "
                f"while seat {seat} holds this hand in {dealt:,} deals tried, so the odds "
                "cannot be conditioned on it; try another trump")
        raise BidlabInputError(f"no bid could be evaluated for this hand in {dealt:,} deals")
    rows = _rows(q, acc, active)
    if not rows:
        raise BidlabInputError(f"no bid could be evaluated for this hand in {dealt:,} deals")
    df = pd.DataFrame(rows)
    warnings = list(q.warnings)
    if accepted < THIN and (q.before or q.want_trump >= 0):
        warnings.insert(0, f"thin conditioning: only {accepted:,} of {dealt:,} deals matched "
                           f"({q.condition})" + (f"; {short}" if short else ""))
    elif short:
        warnings.insert(0, f"{short}: {accepted:,} of {samples:,} deals wanted were accepted")
    ties = sorted({int(r["bid"]) for r in df.to_dict("records") if r["tie"]})
    h = q.base.config.hand_size
    df.attrs.update({"variant": v.canonical, "hand": " ".join(v.cards.names[c] for c in
                     sorted(v.cards.parse_hand(hand, "hand"))), "seat": seat, "trump": q.trump,
                     "trump_mode": q.trump_mode, "samples": samples, "accepted": accepted,
                     "dealt": dealt, "bids_before": q.before, "seed": q.base.config.seed,
                     "play": play, "bid": bid, "bid_label": policies.bid_policy_label(v, bid, [h]),
                     "better": "lower" if q.better_low else "higher",
                     "auction": v.bidding_form == "auction", "exhaustive": exhaustive,
                     "too_close": bool(ties), "ties": ties, "warnings": warnings,
                     "side": q.side if q.v.teams else [seat], "teams": bool(v.teams),
                     "constraint": str(v.rule("bidding.constraint", "none") or "none"),
                     "hand_size": h, "grouped": q.groups > 1,
                     "groups_hidden": {g: int(acc.seen[2 + g]) for g in range(q.groups)
                                       if q.groups > 1 and 0 < acc.seen[2 + g] < MIN_GROUP}})
    return df


def field_panel(v: Variant, hand: str | Sequence[str], seat: int = 0, trump: str | None = None,
                bids_before: Any = None, samples: int = 100_000, seed: int = 0,
                play: str = "precision", fields: Sequence[str] = ("table", "heuristic", "greedy"),
                round_index: int | None = None, workers: int | None = None,
                exhaustive: bool = False,
                progress: Callable[[int, int, int], None] | None = None) -> pd.DataFrame:
    """The same bid_odds query (same seed, so the same deals) once per opponents' bid
    policy in `fields`. Columns: field, (bids_before_sum,) best_bid, expected_score, ci_low,
    ci_high, accepted, dealt. attrs: robust (the best bid is the same in every field, per
    sum of earlier bids where the table is split), tables ({field: its bid_odds table}).
    progress: called as progress(field index, accepted, dealt) (see bid_odds)."""
    names = _check_fields(v, [fields] if isinstance(fields, str) else list(fields))
    rows = []
    tables = {}
    for i, f in enumerate(names):
        tick = None if progress is None else (
            lambda a, d, i=i: progress(i, a, d))
        df = bid_odds(v, hand, seat=seat, trump=trump, bids_before=bids_before, samples=samples,
                      seed=seed, play=play, bid=f, round_index=round_index, workers=workers,
                      exhaustive=exhaustive, progress=tick)
        tables[f] = df
        for r in df[df.best].to_dict("records"):
            row: dict[str, Any] = {"field": f, "bidder": df.attrs["bid_label"]}
            if "bids_before_sum" in df.columns:
                row["bids_before_sum"] = int(r["bids_before_sum"])
            row.update({"best_bid": int(r["bid"]), "expected_score": r["expected_score"],
                        "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                        "accepted": df.attrs["accepted"], "dealt": df.attrs["dealt"]})
            rows.append(row)
    panel = pd.DataFrame(rows)
    keys = ["bids_before_sum"] if "bids_before_sum" in panel.columns else []
    if keys:
        robust = bool((panel.groupby(keys).best_bid.nunique() == 1).all())
    else:
        robust = panel.best_bid.nunique() == 1
    panel.attrs.update({"robust": robust, "tables": tables, "fields": names})
    return panel


def format_panel(panel: pd.DataFrame) -> str:
    """The text `bidlab odds --field` prints after the main table."""
    lines = ["", "field sensitivity (the same deals, the opponents bid by each policy):"]
    # the bidder as outputs name it: a table field without a trained table is the heuristic
    w = max(10, *(len(str(b)) for b in panel.bidder))
    head = f"{'field':>{w}}" + (f" {'sum':>4}" if "bids_before_sum" in panel.columns else "") + \
        f" {'best bid':>8} {'E[score]':>9} {'95% CI':>19} {'accepted':>10}"
    lines.append(head)
    for r in panel.itertuples():
        ci = f"[{r.ci_low:.2f}, {r.ci_high:.2f}]"
        lines.append(f"{r.bidder:>{w}}"
                     + (f" {r.bids_before_sum:>4}" if "bids_before_sum" in panel.columns else "")
                     + f" {r.best_bid:>8} {r.expected_score:9.3f} {ci:>19} {r.accepted:>10,}")
    lines.append(f"best bid robust across fields: {'yes' if panel.attrs['robust'] else 'no'}")
    return "\n".join(lines)


def _percent(k: int, n: int) -> str:
    p = 100 * k / max(n, 1)
    return f"{p:.1f} %" if p >= 1 or p == 0 else f"{p:.2g} %"


def _whose(a: Mapping[Any, Any]) -> str:
    if a.get("teams"):
        seats = a["side"]
        return (f"E[score] is the partnership's (seats {', '.join(map(str, seats[:-1]))} and "
                f"{seats[-1]})")
    return f"E[score] is seat {a['seat']}'s own score for the hand"


def format_odds(df: pd.DataFrame) -> str:
    """The text `bidlab odds` prints for a bid_odds table."""
    a = df.attrs
    trump = a["trump"]
    mode = a.get("trump_mode", "")
    if trump is None:
        trump_line = "trump: chosen by this seat's policy" if mode == "chosen by this seat" \
            else "trump: as the rules choose it"
    else:
        trump_line = f"trump: {trump}, {mode}"
    dealt, acc = a.get("dealt", a["accepted"]), a["accepted"]
    lines = [f"{a['variant']}",
             f"hand {a['hand']} in seat {a['seat']}"
             + (f", after bids {','.join(map(str, a['bids_before']))}" if a["bids_before"] else ""),
             trump_line,
             f"{acc:,} of {dealt:,} deals accepted ({_percent(acc, dealt)}); others "
             f"play {a['play']} and bid {a.get('bid_label', a['bid'])}; seed {a['seed']}",
             _whose(a) + ("; LOWER scores are better" if a["better"] == "lower" else "")]
    if a.get("auction"):
        lines.append("each contract as if this seat won the auction with it; P(made) and the "
                     "trick distribution are its side's")
    for w in a.get("warnings", []):
        lines.append(f"warning: {w}")
    lines.append("")
    ks = [c for c in df.columns if c.startswith("P") and c[1:].isdigit()]
    grouped = "bids_before_sum" in df.columns
    head = ((f"{'sum':>4} " if grouped else "")
            + f"{'bid':>4} {'n':>8} {'P(made)' if a.get('auction') else 'P(exact)':>9} "
              f"{'E[score]':>9} {'95% CI':>19} {'vs best (Holm 95%)':>19}  ")
    width = 7 * len(ks) - 1
    title = "chance of taking k tricks" + (" (its side)" if a.get("auction") else "")
    lines.append(" " * len(head) + f"{title:^{width}}".rstrip())
    lines.append(head + " ".join(f"{k[1:]:>6}" for k in ks))
    bound = "the sum of the earlier bids" if grouped else ""
    for r in df.to_dict("records"):
        lead = f"{r['bids_before_sum']:>4} " if grouped else ""
        if r["forbidden"]:
            what = "max bet" if a.get("constraint") == "max_bet" else "hook"
            lines.append(f"{lead}{r['bid']:>4} {'-':>8}  forbidden ({what})")
            continue
        ci = f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}]"
        diff = "" if r["best"] else (f"[{r['diff_low']:+.2f}, {r['diff_high']:+.2f}]"
                                     if r["diff_low"] == r["diff_low"] else "n/a")
        if r["best"]:
            mark = "  <- best"
        elif r["stopped_early"]:
            mark = "  raced out: clearly worse"
        elif r["tie"]:
            mark = "  tie"
        else:
            mark = ""
        lines.append(f"{lead}{r['bid']:>4} {r['n']:>8,} {r['p_exact']:9.3f} "
                     f"{r['expected_score']:9.3f} {ci:>19} {diff:>19}  "
                     + " ".join(f"{r[k]:6.3f}" for k in ks) + mark)
    if grouped:
        lines += ["", f"sum: {bound}, in blocks of at least {MIN_GROUP} deals; "
                      f"{a.get('hand_size', 0) + 1} stands for every sum above "
                      f"{a.get('hand_size', 0)}"]
        hidden = a.get("groups_hidden") or {}
        if hidden:
            lines.append("not shown, too few deals: " + ", ".join(
                f"sum {g} ({n:,} deals)" for g, n in sorted(hidden.items())))
    if a.get("too_close"):
        lines.append("")
        blocks = [(int(g), df[df.bids_before_sum == g])
                  for g in sorted(set(df.bids_before_sum))] if grouped else [(-1, df)]
        for g, block in blocks:
            tied = block[block.best | block.tie]
            if len(tied) < 2:
                continue
            where = f" (earlier bids summing to {g})" if g >= 0 else ""
            lines.append(f"too close to call{where}: bids {', '.join(map(str, tied.bid))} are "
                         "within the interval (the Holm 95% interval of the difference to the "
                         "best covers 0)")
    if df.stopped_early.any():
        lines += ["", "raced out: clearly worse than the best on the same deals (paired "
                      "99.9% CI), so played on fewer deals; --exhaustive plays every bid on "
                      "every deal"]
    return "\n".join(lines)
