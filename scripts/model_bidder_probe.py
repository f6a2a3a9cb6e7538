"""Would a small learned bidder beat the table bidder hand by hand? A probe for issue 14.

    python scripts/model_bidder_probe.py [--deals 200000] [--hands 120] [--deals-per-hand 3000]
                                         [--workers N] [GAME:SIZE ...]

For each game and size (default: the sizes of the README's exploitability tables), fit per
seat and per sum of the earlier bids the seat hears (capped at PREV_CAP) one ridge
regression per candidate bid of the seat's signed score on hand features, from forced runs
(every bid played on the same `--deals` deals, everyone else on precision+table). Features:
the count of each card name a player tells apart under the trump (simulate.rules.features.
card_labels: "trump A", "K", "FOOL", ...); one-hot classes of trumps held, voids, top cards
(top3), high side cards (side_high), the longest suit and the sheet's point count in half
tricks; and one-hot classes of (points, trumps) together, the interaction that mattered most
(Kings and Fools 6: loss 0.75 without it, 0.49 with it). The probe bidder bids the allowed
bid with the largest predicted score.

Then the probe bidder and the table bidder are judged on the same held-out hands, each
played with every bid on `--deals-per-hand` accepted deals of the other cards
(simulate.hands.sheet_check): the mean loss against each hand's forced-bid best, with its
95% interval, the hand being the unit. A seat whose (prev) group has too few deals uses the
seat's model fitted on all its deals. Nothing here is used by the package: it measures
whether the model is worth building into the kernel.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import simulate as sim
from simulate.hands.classes import hand_points
from simulate.hands.exploit import HELD_OUT_SEED, policy_sheet
from simulate.hands.forced import ForcedRun, forced_run, legal_after
from simulate.hands.sheet import SheetAnswer
from simulate.hands.sheet_check import SheetFor, check_sheets
from simulate.rules.features import FEATURES, card_labels
from simulate.util.stats import Z95

DEFAULT = ["oh_hell:7", "kings_and_fools:6", "hoffer:5", "hyjack:7", "oh_hell:12",
           "kings_and_fools:7", "hoffer:6", "hyjack:9", "horseshoes:13"]
FIT_SEED = 12345          # the forced runs the models are fitted on (not the held-out seed)
PREV_CAP = 8              # sums of earlier bids above this share one model
RIDGE = 1.0               # the ridge penalty (per coefficient, in squared points)
MIN_ROWS = 200            # deals a bid needs in a group before its regression is fitted
MIN_GROUP = 2_000         # deals a (seat, prev) group needs for a model of its own


class Features:
    """The hand features of one variant and hand size (see the module notes)."""

    def __init__(self, v: sim.Variant, hand_size: int) -> None:
        self.v, self.h = v, hand_size
        names = sorted({name for t in range(5) for name in card_labels(v, t)})
        index = {name: i for i, name in enumerate(names)}
        self.deck = len(v.cards)
        self.n_labels = len(names)
        self.label = np.array([[index[name] for name in card_labels(v, t)] for t in range(5)])

    def __call__(self, masks: np.ndarray, trumps: np.ndarray) -> np.ndarray:
        """float64[N, F] for hands (uint64 masks) under their trumps."""
        masks = np.asarray(masks, np.uint64)
        trumps = np.asarray(trumps, np.int64)
        n, h = len(masks), self.h
        bits = ((masks[:, None] >> np.arange(self.deck, dtype=np.uint64)) & np.uint64(1)
                ).astype(np.float64)
        counts = np.zeros((n, self.n_labels))
        for t in range(5):
            rows = trumps == t
            if rows.any():
                onehot = np.zeros((self.deck, self.n_labels))
                onehot[np.arange(self.deck), self.label[t]] = 1.0
                counts[rows] = bits[rows] @ onehot
        held = np.minimum(FEATURES["trumps"](masks, trumps, self.v).astype(np.int64), h + 1)
        voids = FEATURES["voids"](masks, trumps, self.v).astype(np.int64)
        points = np.clip((2 * hand_points(self.v, h, masks, trumps)).astype(np.int64), 0,
                         2 * h + 1)
        classes = [_onehot(held, h + 2), _onehot(np.minimum(voids, 4), 5),
                   _onehot(points, 2 * h + 2), _onehot(points * (h + 2) + held,
                                                       (2 * h + 2) * (h + 2))]
        for name in ("top3", "side_high", "longest"):
            value = FEATURES[name](masks, trumps, self.v).astype(np.int64)
            classes.append(_onehot(np.minimum(value, h + 1), h + 2))
        return np.hstack([np.ones((n, 1)), counts, *classes])


def _onehot(values: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((len(values), width))
    out[np.arange(len(values)), values] = 1.0
    return out


def fit(x: np.ndarray, y: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """float64[B, F]: per bid, the ridge coefficients of y[:, bid] on x over `rows` where the
    bid was played (NaN rows for a bid with fewer than MIN_ROWS)."""
    out = np.full((y.shape[1], x.shape[1]), np.nan)
    for k in range(y.shape[1]):
        ok = rows & ~np.isnan(y[:, k])
        if ok.sum() >= MIN_ROWS:
            xk = x[ok]
            out[k] = np.linalg.solve(xk.T @ xk + RIDGE * np.eye(x.shape[1]), xk.T @ y[ok, k])
    return out


def probe_sheet(v: sim.Variant, h: int, deals: int, workers: int | None) -> SheetFor:
    """The probe bidder as a sheet_check "sheet": (mask, trump, seat, prev) -> its bid."""
    features = Features(v, h)
    models: dict[int, tuple[ForcedRun, dict[int, np.ndarray]]] = {}
    for seat in range(v.players):
        run = forced_run(v, h, seat, deals, seed=FIT_SEED, workers=workers)
        x = features(run.masks, run.trumps)
        y = run.signed()
        prev = np.minimum(run.prev, PREV_CAP) if run.earlier else np.zeros(run.deals, np.int64)
        pooled = fit(x, y, np.ones(run.deals, np.bool_))
        by_prev = {p: fit(x, y, prev == p) if (prev == p).sum() >= MIN_GROUP else pooled
                   for p in range(PREV_CAP + 1)}
        models[seat] = (run, by_prev)

    def bid_for(mask: int, trump: int, seat: int, prev: int | None) -> SheetAnswer | None:
        run, by_prev = models[seat]
        x = features(np.array([mask], np.uint64), np.array([trump]))[0]
        predicted = by_prev[min(prev or 0, PREV_CAP)] @ x
        allowed = legal_after(v, h, run, prev or 0)
        best, best_value = None, -np.inf
        for k, b in enumerate(run.bids):
            if int(b) in allowed and not np.isnan(predicted[k]) and predicted[k] > best_value:
                best, best_value = int(b), float(predicted[k])
        return None if best is None else SheetAnswer(best, -1)

    return bid_for


def main() -> None:
    """Parse the arguments, fit and judge every GAME:SIZE, print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("targets", nargs="*", default=DEFAULT, metavar="GAME:SIZE")
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--hands", type=int, default=120)
    ap.add_argument("--deals-per-hand", type=int, default=3_000)
    ap.add_argument("--workers", type=int, default=None, help="threads (default: all cores)")
    args = ap.parse_args()
    print("| game | cards | hands | table bidder: loss | probe model: loss | model - table | s |")
    print("|---|---:|---:|---|---|---|---:|")
    for target in args.targets:
        game, _, size = target.partition(":")
        v = sim.load_variant(game)
        h = int(size) if size else max(v.schedule)
        started = time.perf_counter()
        seed = HELD_OUT_SEED + 7         # the held-out hands of `bidlab exploit`
        sheets = {"table": policy_sheet(v, h, args.hands, seed, workers=args.workers),
                  "model": probe_sheet(v, h, args.deals, args.workers)}
        res = check_sheets(v, h, sheets, args.hands, args.deals_per_hand, seed,
                           workers=args.workers)
        table, model = res["table"].hands["cost"], res["model"].hands["cost"]
        d = (model - table).dropna()
        half = Z95 * d.std(ddof=1) / np.sqrt(len(d))
        s_t, s_m = res["table"].summary(), res["model"].summary()
        print(f"| {game} | {h} | {len(d)} | {s_t['cost']:.2f} ± {s_t['cost_half']:.2f} | "
              f"{s_m['cost']:.2f} ± {s_m['cost_half']:.2f} | {d.mean():+.2f} ± {half:.2f} | "
              f"{time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
