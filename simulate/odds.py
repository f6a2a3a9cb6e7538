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

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .errors import BidlabInputError
from .kernel import layout as L
from .kernel.hand import H_OVERRIDDEN, S_BID, S_SCORE, S_TRICKS
from .run import Job, check_seed, make_job, positive_int, records_arrays, summary_arrays
from .variant import Variant

Z95 = 1.959963984540054


def _job_for_bid(base: Job, seat: int, bid: int) -> Job:
    P = base.tables.P.copy()
    P[L.OVERRIDE_SEAT], P[L.OVERRIDE_BID] = seat, bid
    return dataclasses.replace(base, tables=dataclasses.replace(base.tables, P=P))


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
             workers: int | None = None) -> pd.DataFrame:
    """For every legal bid of `seat` holding `hand`: P(exactly that bid), expected score with
    a 95% CI, and the trick distribution; the best bid is marked. Seat 0 is the dealer's
    left, n-1 the dealer. DataFrame.attrs holds the configuration and accepted deals."""
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

    rows = []
    accepted = samples
    candidates = range(1, len(v.ladder) + 1) if auction else range(h + 1)
    partners = [s for s in range(v.players) if v.team_of(s) == v.team_of(seat)]
    for b in candidates:
        job = _job_for_bid(base, seat, b)
        if auction:
            # the seat is made maker at contract step b: tricks and P(exact) are its side's
            _, seat_out, _, _ = records_arrays(job, workers)
            tricks = seat_out[:, partners, S_TRICKS].sum(axis=1)
            scores = seat_out[:, seat, S_SCORE].astype(np.float64)
            n = len(tricks)
            dist = np.bincount(tricks, minlength=h + 1)[: h + 1]
            total, square = scores.sum(), (scores ** 2).sum()
            need = v.ladder[b - 1].tricks
            made = float(dist[need:].sum()) / n
        elif before:
            hand_out, seat_out, _, _ = records_arrays(job, workers)
            keep = np.all(seat_out[:, earlier, S_BID] == np.array(before), axis=1)
            accepted = int(keep.sum())
            keep &= hand_out[:, H_OVERRIDDEN] == 1
            tricks = seat_out[keep, seat, S_TRICKS]
            scores = seat_out[keep, seat, S_SCORE].astype(np.float64)
            n = len(tricks)
            dist = np.bincount(tricks, minlength=h + 1)[: h + 1]
            total, square = scores.sum(), (scores ** 2).sum()
        else:
            arrays, _ = summary_arrays(job, workers)
            counts, sums, squares = arrays[0], arrays[1], arrays[2]
            dist = counts[seat, b, : h + 1]
            n = int(dist.sum())
            total, square = float(sums[seat, b].sum()), float(squares[seat, b].sum())
        if n == 0:
            continue
        mean = total / n
        sd = np.sqrt(max(square / n - mean ** 2, 0.0))
        half = Z95 * sd / np.sqrt(n) if n > 1 else float("nan")
        row = {"bid": b, "n": n,
               "p_exact": made if auction else (dist[b] / n if b <= h else 0.0),
               "expected_score": mean, "ci_low": mean - half, "ci_high": mean + half,
               "mean_tricks": float(np.dot(np.arange(len(dist)), dist) / n)}
        for k in range(h + 1):
            row[f"P{k}"] = dist[k] / n
        if auction:
            row["contract"] = v.ladder[b - 1].name
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
                     "auction": auction})
    return df


def format_odds(df: pd.DataFrame) -> str:
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
        mark = "  <- best" if r.best else ""
        lines.append(f"{r.bid:>4} {r.n:>8,} {r.p_exact:9.3f} {r.expected_score:9.3f} {ci:>19}  "
                     + " ".join(f"{getattr(r, k):6.3f}" for k in ks) + mark)
    return "\n".join(lines)
