"""How well the forced-bid cheat sheet answers held-out hands, per game at a chosen hand size.

    python scripts/sheet_accuracy.py [--deals 200000] [--hands 120] [--deals-per-hand 4000]
                                     [--old] [--compact] [GAME:SIZE ...]

For each game and size: build the cheat sheet from forced runs of every seat (`--deals`
deals per seat, seed 0), then score it on `--hands` held-out hands (seat by seat in turn)
against each hand's own forced-bid best (simulate.hands.sheet_check): the share of hands
where the sheet's bid agrees (the best, a tie for that hand, or named as too close to call
by the cell), the share where it is not the hand's best, and the average cost in points per
hand with its 95% interval. `--compact` also scores the compact (printable) sheet fitted on
the same forced runs (simulate.hands.compact_sheet: the bid by points, a shift by the sum of
earlier bids, a rule for a forbidden bid; in an auction its answer is how high to go, not
the best contract to play, so it is not comparable there). `--old` also scores the old
sheet (the counterfactual class table the report printed before forced bids) on the same
hands and deals. `--deals-per-hand`
counts the deals accepted per hand (matching its trump and sum of earlier bids), at least
1,000. The old sheet has no bids for a contract game (Hasenpfeffer): "no cell". Prints one line per game and a
Markdown table at the end; with `--csv F` the per-hand rows go to F.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

import simulate as sim
from reports.analysis.tables import expected_tricks_table
from simulate.hands.compact_sheet import compact_lookup, compact_sheet
from simulate.hands.forced import forced_run
from simulate.hands.sheet import SheetAnswer, cheat_sheet, sheet_lookup
from simulate.hands.sheet_check import check_sheets
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.features import add_features

DEFAULT = ["oh_hell:7", "kings_and_fools:6", "hoffer:5", "hyjack:7", "horseshoes:13"]


def old_sheet(v: sim.Variant, h: int, hands: int, seed: int
              ) -> Callable[[int, int, int, int | None], SheetAnswer | None]:
    """The report's old cheat sheet: the counterfactual class table by the game's two hand
    features, all seats pooled, read as the old page printed it (its best bid per cell)."""
    res = sim.simulate_hands(v, h, hands, seed=seed, keep="records")
    frame = res.frame(cards=False)
    features = list(v.hand_classes)[:2]
    table = expected_tricks_table(frame, v, h, by=features, counterfactual=True)
    best = {tuple(int(r[f]) for f in features): int(r["best_bid_if_independent"]) for _, r in table.iterrows()
            if not pd.isna(r.get("best_bid_if_independent"))}

    def bid_for(mask: int, trump: int, seat: int, prev: int | None) -> SheetAnswer | None:
        row = add_features(pd.DataFrame({"mask": [np.uint64(mask)],
                                         "trump": [TRUMP_NAMES[trump]]}), v, features).iloc[0]
        b = best.get(tuple(int(row[f]) for f in features))
        if b is None:
            return None
        legal = v.legal_bids(h, _bids_summing(prev or 0, seat, h)) if seat else None
        if legal is not None and b not in legal:
            wanted: int = b
            b = min(legal, key=lambda x: abs(x - wanted))
        return SheetAnswer(b, -1)

    return bid_for


def _bids_summing(total: int, k: int, h: int) -> list[int]:
    """k bids of at most h each that sum to total (the hook looks only at the sum)."""
    out = []
    for _ in range(k):
        b = min(total, h)
        out.append(b)
        total -= b
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", default=DEFAULT)
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--hands", type=int, default=120)
    ap.add_argument("--deals-per-hand", type=int, default=4_000,
                    help="accepted deals per held-out hand (at least 1,000)")
    ap.add_argument("--old", action="store_true", help="also score the old sheet")
    ap.add_argument("--compact", action="store_true",
                    help="also score the compact (printable) sheet")
    ap.add_argument("--csv", default=None)
    args = ap.parse_args()
    lines, frames = [], []
    for cfg in args.configs:
        game, size = cfg.split(":")
        v, h = sim.load_variant(game), int(size)
        t0 = time.time()
        runs = [forced_run(v, h, s, args.deals) for s in range(v.players)]
        sheet = cheat_sheet(runs, v)
        built = time.time() - t0
        sheets = {"new": sheet_lookup(sheet, v)}
        if args.compact:
            sheets["compact"] = compact_lookup(compact_sheet(runs, v), v)
        if args.old:
            sheets["old"] = old_sheet(v, h, 1_000_000, 0)
        checks = check_sheets(v, h, sheets, hands=args.hands,
                              deals_per_hand=args.deals_per_hand)
        for label, chk in checks.items():
            s = chk.summary()
            frames.append(chk.hands.assign(game=game, size=h, sheet=label))
            line = (f"| {game} | {h} | {label} | {s['hands']} | {100 * s['agree']:.1f}% | "
                    f"{100 * s['not_best']:.1f}% | {s['cost']:.3f} ± {s['cost_half']:.3f} | "
                    f"{100 * s['no_cell']:.1f}% | {built:.0f} s |")
            print(line, flush=True)
            lines.append(line)
    print("\n| game | cards | sheet | hands | agree | not best | cost (points/hand, 95%) "
          "| no cell | sheet built |\n|---|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    if args.csv:
        pd.concat(frames).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
