"""How good is a cheat sheet? Held-out hands scored against their own forced-bid best.

For hands dealt on a seed the sheet never saw, each hand is played with every candidate
bid on many deals of the other cards (the hand fixed, common random numbers: the kernel's
one-pass bid odds, simulate.kernel.odds.run_odds), keeping only the deals that match what
the player knows when bidding — the trump (turned up: a condition on the deal; named by a
player: by rejection on that player's policy naming it) and, where bids are sequential,
the sum of the earlier bids (by rejection). Both are decided before the tricks, so a
rejected deal costs the deal and the bids, not a hand per candidate. Dealing goes on until
`deals_per_hand` deals are accepted (at least MIN_ACCEPTED), or the cap of MAX_FACTOR times
that many dealt. The sheet's bid for the hand (its cell, or the cell's alternative when the
rules forbid the best) is then compared with that hand's best bid:

  agree      the sheet's bid is the hand's best (`same`); or the paired 95% interval of
             (best - sheet bid) on the hand's deals covers 0 (`hand_tie`: a tie for this
             hand, judged only on at least MIN_ACCEPTED accepted deals — a hand with fewer
             is `thin` and cannot tie); or the sheet's cell is marked too close to call and
             names the hand's best as its other bid (`marked_close`);
  cost       E[score | hand's best] - E[score | sheet's bid] on the same deals, in points
             (the hand's best is the larger estimate, so the cost is, if anything,
             overstated by the noise of picking it);

averaged over the sampled hands with a 95% interval (the unit of independence is the hand).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simulate.hands.forced import ForcedRun, candidate_bids, earlier_seats, forced_run
from simulate.hands.job import make_job
from simulate.hands.odds_pass import OddsSums, play_odds
from simulate.hands.sheet import SheetAnswer
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.util.stats import Z95


@dataclass(frozen=True)
class SheetCheck:
    """Per-hand results (`hands`) and the summary figures of one sheet at one hand size."""

    hands: pd.DataFrame

    def summary(self) -> dict[str, float]:
        """agree share, cost mean and its 95% half-width, share where the bid was not the
        best at all (ties counted as not best), hand ties, marked-close, thin hands, hands
        without a cell, hands answered by the nearest cell (their class has none), the
        median accepted deals per hand, and hands n."""
        df = self.hands
        n = len(df)
        cost = df["cost"].dropna().to_numpy()
        half = Z95 * cost.std(ddof=1) / np.sqrt(len(cost)) if len(cost) > 1 else float("nan")
        return {"hands": n, "agree": float(df["agree"].mean()),
                "not_best": float((~df["same"]).mean()),
                "hand_tie": float(df["hand_tie"].mean()),
                "marked_close": float(df["marked_close"].mean()),
                "cost": float(cost.mean()) if len(cost) else float("nan"),
                "cost_half": float(half), "accepted_median": float(df["accepted"].median()),
                "thin": float(df["thin"].mean()), "no_cell": float(df["no_cell"].mean()),
                "nearest_cell": float(df["nearest_cell"].mean()) if "nearest_cell" in df else 0.0,
                "forbidden_bid": float(df["forbidden_bid"].mean())}

    def by_situation(self) -> pd.DataFrame:
        """Where the cost sits: per (seat, sum of the bids the seat heard; -1 where it heard
        none) with a cost, the hands n, their mean cost with its 95% half-width (the hand is
        the unit; NaN under two hands) and the situation's share of the total cost, largest
        share first."""
        df = self.hands.dropna(subset=["cost"])
        seats = df["seat"].to_numpy(dtype=np.int64)
        prevs = df["prev_sum"].to_numpy(dtype=np.int64)
        costs = df["cost"].to_numpy(dtype=float)
        total = float(costs.sum())
        rows = []
        for seat, prev in sorted(set(zip(seats.tolist(), prevs.tolist(), strict=True))):
            cost = costs[(seats == seat) & (prevs == prev)]
            half = Z95 * cost.std(ddof=1) / np.sqrt(len(cost)) if len(cost) > 1 else np.nan
            rows.append({"seat": seat, "prev_sum": prev, "hands": len(cost),
                         "cost": float(cost.mean()), "cost_half": float(half),
                         "share": float(cost.sum()) / total if total > 0 else 0.0})
        out = pd.DataFrame(rows, columns=["seat", "prev_sum", "hands", "cost", "cost_half",
                                          "share"])
        return out.sort_values(["share", "seat", "prev_sum"], ascending=[False, True, True],
                               ignore_index=True)


MIN_ACCEPTED = 1_000      # matching deals a hand needs before it can be judged a tie
MAX_FACTOR = 400          # dealing stops at this many times deals_per_hand dealt

SheetFor = Callable[[int, int, int, int | None], SheetAnswer | None]


@dataclass(frozen=True)
class HandOdds:
    """Every candidate bid of one fixed hand on the accepted deals, signed so that larger is
    better: deals n[k] where bid k was allowed and its score sums[k]; the paired sums stay
    in `pairs` (group `group` of the one-pass sums)."""

    bids: np.ndarray
    n: np.ndarray
    sums: np.ndarray
    accepted: int
    dealt: int
    pairs: OddsSums
    group: int
    sign: float

    def means(self) -> np.ndarray:
        """E[signed score | bid] (NaN where never allowed)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n > 0, self.sums / np.maximum(self.n, 1), np.nan)

    def best(self) -> int:
        """Index of the bid with the best mean."""
        m = self.means()
        return int(np.argmax(np.where(np.isnan(m), -np.inf, m)))

    def paired(self, a: int, b: int) -> tuple[int, float, float]:
        """(shared deals, mean of signed score_a - score_b, its standard error)."""
        m, d, se = self.pairs.paired(self.group, a, b)
        return m, self.sign * d, se


def hand_odds(v: Variant, hand_size: int, seat: int, cards: str, trump: int, prev: int | None,
              deals_per_hand: int, seed: int, play: str = "precision", bid: str = "table",
              workers: int | None = None, round_index: int | None = None) -> HandOdds:
    """Every candidate bid of `seat` holding `cards`, on deals conditioned on trump index
    `trump` and (prev not None) on the earlier bids summing to `prev`, until
    max(deals_per_hand, MIN_ACCEPTED) deals are accepted or MAX_FACTOR times that many
    were dealt (see the module notes)."""
    want = max(deals_per_hand, MIN_ACCEPTED)
    turned = v.trump_chooser == "turn_up"
    undealt = len(v.cards) - hand_size * v.players - int(v.rule("deal.widow", 0) or 0)
    force = TRUMP_NAMES[trump] if turned and undealt > 0 else None
    want_trump = -1 if v.trump_chooser == "fixed" or turned else trump
    base = make_job(v, hand_size, want, seed, play, bid, force, {seat: cards}, round_index)
    bids = candidate_bids(v, hand_size)
    auction = v.bidding_form == "auction"
    earlier = np.array(earlier_seats(v, seat), np.int64)
    # a deal falls in group min(sum of earlier bids, G - 1): only the group `prev` is played
    groups = prev + 2 if prev is not None and len(earlier) else 1
    g = prev if groups > 1 and prev is not None else 0
    active = np.zeros((groups, len(bids)), np.bool_)
    active[g] = True
    side = np.array([s for s in range(v.players) if v.team_of(s) == v.team_of(seat)]
                    if auction else [seat], np.int64)
    total = OddsSums(groups, len(bids), hand_size)
    cap = MAX_FACTOR * want
    no_bids = np.zeros(0, np.int64)
    while total.seen[2 + g] < want and total.seen[0] < cap:
        dealt, got = int(total.seen[0]), int(total.seen[2 + g])
        batch = want if dealt == 0 else (dealt if got == 0 else
                                         math.ceil((want - got) * dealt / got * 1.1) + 64)
        play_odds(base, seat, side, bids, active, earlier, no_bids, want_trump, dealt,
                  min(batch, cap - dealt), total, workers)
    sign = -1.0 if v.rule("end.better", "higher") == "lower" else 1.0
    return HandOdds(bids, total.counts[g].sum(axis=1), sign * total.sums[g],
                    int(total.seen[2 + g]), int(total.seen[0]), total, g, sign)


def held_out(v: Variant, hand_size: int, seats: list[int], per_seat: int, seed: int,
             play: str = "precision", bid: str = "table",
             workers: int | None = None) -> dict[int, ForcedRun]:
    """The held-out deals of each seat (their hands, trumps and earlier bids): forced runs on
    a seed of their own (the hands do not depend on the forced bid)."""
    return {s: forced_run(v, hand_size, s, per_seat, seed=seed, play=play, bid=bid,
                          workers=workers) for s in seats}


def check_sheet(v: Variant, hand_size: int, bid_for: SheetFor, hands: int = 100,
                deals_per_hand: int = 4_000, seed: int = 0x5EE7, seats: list[int] | None = None,
                play: str = "precision", bid: str = "table",
                workers: int | None = None) -> SheetCheck:
    """Score a sheet on `hands` held-out hands (seats taken in turn from `seats`, default all).

    bid_for(mask, trump, seat, prev_sum) -> the bid the sheet gives (None: no cell); prev_sum
    is the sum of the earlier bids of the held-out deal (None where the seat hears none), so
    the sheet's answer to the hook is used as a player would. deals_per_hand: accepted
    deals of the other cards per hand (at least MIN_ACCEPTED; see the module notes).
    """
    return check_sheets(v, hand_size, {"sheet": bid_for}, hands, deals_per_hand, seed, seats,
                        play, bid, workers)["sheet"]


def check_sheets(v: Variant, hand_size: int, sheets: dict[str, SheetFor], hands: int = 100,
                 deals_per_hand: int = 4_000, seed: int = 0x5EE7,
                 seats: list[int] | None = None, play: str = "precision", bid: str = "table",
                 workers: int | None = None) -> dict[str, SheetCheck]:
    """check_sheet for several sheets on the same held-out hands and the same deals of each
    hand (each hand's odds are computed once): {name: SheetCheck}."""
    seats = list(range(v.players)) if seats is None else seats
    pool = held_out(v, hand_size, seats, -(-hands // len(seats)), seed + 1, play, bid, workers)
    rows: dict[str, list[dict[str, object]]] = {name: [] for name in sheets}
    for i in range(hands):
        seat, j = seats[i % len(seats)], i // len(seats)
        src = pool[seat]
        mask, trump, prev = int(src.masks[j]), int(src.trumps[j]), int(src.prev[j])
        hears = bool(earlier_seats(v, seat))
        cards = " ".join(v.cards.names_of_mask(mask))
        odds = hand_odds(v, hand_size, seat, cards, trump, prev if hears else None,
                         deals_per_hand, seed + 2 + i, play, bid, workers)
        for name, bid_for in sheets.items():
            answer = bid_for(mask, trump, seat, prev if hears else None)
            rows[name].append(_judge(odds, answer) | {
                "seat": seat, "hand": cards, "trump": TRUMP_NAMES[trump],
                "prev_sum": prev if hears else -1})
    return {name: SheetCheck(pd.DataFrame(r)) for name, r in rows.items()}


def _judge(odds: HandOdds, answer: SheetAnswer | None) -> dict[str, object]:
    """One hand's row: its best bid, the sheet's, the cost and whether they agree."""
    best_k = odds.best()
    hand_best = int(odds.bids[best_k])
    thin = odds.accepted < MIN_ACCEPTED
    row: dict[str, object] = {"accepted": odds.accepted, "dealt": odds.dealt,
                              "hand_best": hand_best, "thin": thin,
                              "sheet_bid": -1 if answer is None else int(answer.bid),
                              "no_cell": answer is None, "forbidden_bid": False,
                              "nearest_cell": answer is not None and answer.nearest}
    cost, tie, same = math.nan, False, False
    if answer is not None:
        hit = np.flatnonzero(odds.bids == answer.bid)
        row["forbidden_bid"] = not len(hit) or odds.n[hit[0]] == 0
        if not row["forbidden_bid"]:
            sk = int(hit[0])
            same = sk == best_k
            m, d, se = odds.paired(best_k, sk)
            if same:
                cost = 0.0
            elif m > 1 and d == d:
                cost = d
                tie = not thin and bool(d - Z95 * (se if se == se else 0.0) <= 0)
    marked = answer is not None and answer.close == hand_best and not (same or tie)
    row.update({"cost": cost, "same": same, "hand_tie": tie, "marked_close": marked,
                "agree": same or tie or marked})
    return row
