"""How good is a cheat sheet? Held-out hands scored against their own forced-bid best.

For hands dealt on a seed the sheet never saw, each hand is played with every candidate
bid on many deals of the other cards (the hand fixed, the trump and the bids before it as
the rules let them fall, common random numbers), keeping only the deals whose trump is the
hand's own — the player knows the trump when bidding, so the per-hand answer is
conditioned on it by rejection. The sheet's bid for the hand (its cell, or the cell's
alternative when the rules forbid the best) is then compared with that hand's best bid:

  agree      the sheet's bid is the hand's best (`same`); or the paired 95% interval of
             (best - sheet bid) on the hand's deals covers 0 (`hand_tie`: a tie for this
             hand); or the sheet's cell is marked too close to call and names the hand's
             best as its other bid (`marked_close`);
  cost       E[score | hand's best] - E[score | sheet's bid] on the same deals, in points
             (the hand's best is the larger estimate, so the cost is, if anything,
             overstated by the noise of picking it);

averaged over the sampled hands with a 95% interval (the unit of independence is the hand).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simulate.hands.forced import forced_run
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
        best at all (ties counted as not best), and hands n."""
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
                "no_cell": float(df["no_cell"].mean())}


MIN_ACCEPTED = 1_000      # matching deals a hand needs before its own best is trusted
MAX_GROWTH = 16           # at most this many times deals_per_hand per hand

SheetFor = Callable[[int, int, int, int | None], SheetAnswer | None]


def check_sheet(v: Variant, hand_size: int, bid_for: SheetFor, hands: int = 100,
                deals_per_hand: int = 8_000, seed: int = 0x5EE7, seats: list[int] | None = None,
                play: str = "precision", bid: str = "table",
                workers: int | None = None) -> SheetCheck:
    """Score a sheet on `hands` held-out hands (seats taken in turn from `seats`, default all).

    bid_for(mask, trump, seat, prev_sum) -> the bid the sheet gives (None: no cell); the
    dealer's prev_sum is that of the held-out deal, so the sheet's hook alternative is used
    as a player would. deals_per_hand: deals of the other cards per hand before keeping
    the hand's trump.
    """
    seats = list(range(v.players)) if seats is None else seats
    per_seat = -(-hands // len(seats))
    # the held-out deals: a seed of their own, used only for their hands, trumps and earlier
    # bids (one forced bid is enough: the hands do not depend on it)
    pool = {s: forced_run(v, hand_size, s, per_seat, seed=seed + 1, play=play, bid=bid,
                          workers=workers) for s in seats}
    rows = []
    for i in range(hands):
        seat, j = seats[i % len(seats)], i // len(seats)
        src = pool[seat]
        mask, trump, prev = int(src.masks[j]), int(src.trumps[j]), int(src.prev[j])
        cards = " ".join(v.cards.names_of_mask(mask))
        turn_up = TRUMP_NAMES[trump] if v.trump_chooser == "turn_up" else None
        # what the player knows when bidding: the trump, and the sum of the earlier bids;
        # a rare combination is dealt again on more deals until enough match
        deals = deals_per_hand
        while True:
            run = forced_run(v, hand_size, seat, deals, seed=seed + 2 + i, play=play, bid=bid,
                             workers=workers, hand=cards, turn_up=turn_up)
            keep = (run.trumps == trump) & (run.prev == prev)
            if keep.sum() >= MIN_ACCEPTED or deals >= MAX_GROWTH * deals_per_hand:
                break
            deals *= 4
        signed = run.signed()[keep]
        answer = bid_for(mask, trump, seat, prev if src.earlier else None)
        sheet = None if answer is None else answer.bid
        played = ~np.isnan(signed)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(played, signed, 0.0).sum(axis=0) / played.sum(axis=0)
        best_k = int(np.nanargmax(np.where(np.isnan(means), -np.inf, means)))
        row: dict[str, object] = {"seat": seat, "hand": cards, "trump": TRUMP_NAMES[trump],
                                  "prev_sum": prev, "accepted": int(keep.sum()),
                                  "hand_best": int(run.bids[best_k]),
                                  "sheet_bid": -1 if sheet is None else int(sheet),
                                  "no_cell": sheet is None}
        cost, agree, tie = float("nan"), False, False
        if sheet is not None:
            sk = int(np.flatnonzero(run.bids == sheet)[0])
            d = signed[:, best_k] - signed[:, sk]
            d = d[~np.isnan(d)]
            if len(d) > 1:
                cost = float(d.mean())
                se = float(d.std(ddof=1) / np.sqrt(len(d)))
                tie = bool(sk != best_k and cost - Z95 * se <= 0)
            elif sk == best_k:
                cost = 0.0
            agree = sk == best_k or tie
        marked = answer is not None and answer.close == row["hand_best"]
        row.update({"cost": cost, "agree": agree or marked, "same": sheet == row["hand_best"],
                    "hand_tie": tie, "marked_close": marked and not agree})
        rows.append(row)
    return SheetCheck(pd.DataFrame(rows))
