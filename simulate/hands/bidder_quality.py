"""The bidder's quality, measured, stored beside it and read back: exploitability per hand size.

For each hand size, simulate.hands.exploit measures on held-out deals how far the current
bidder (the `table` bid policy of the configuration, everyone playing precision) is from a
best response:

  class level   every candidate bid forced on `deals` deals per seat, grouped by the table
                bidder's cells; the cells whose best deviation gains significantly (Holm
                over every cell and candidate), how many of them gain more than 0.2 points,
                and the largest such gain with its corrected interval;
  hand level    `hands` held-out hands, each replayed with every bid on `deals_per_hand`
                matching deals of the other cards: the mean loss of the bidder's bid against
                the hand's own best, with its 95% interval (the hand is the unit), the share
                of hands losing more than half a point and the share not bid best.

`bidlab train` measures every size it trains and stores the figures in the trained file
(tables.trained.Quality), `bidlab exploit` measures any configuration and, with
`--record`, stores them in the file the bidder is read from; the report shows the stored
figures (measuring them there would cost minutes). Every figure depends on the field (the
other seats bid with the same bidder), which the outputs say.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from simulate.hands.exploit import HELD_OUT_SEED, exploitability
from simulate.rules.variant import Variant
from simulate.tables.compile import compile_tables, trained_sizes
from simulate.tables.trained import (
    Quality,
    is_shipped,
    model_sizes,
    store_quality,
    trained_source,
)

DEALS = 50_000            # held-out deals per seat at class level
HANDS = 400               # held-out hands at hand level
DEALS_PER_HAND = 1_500    # accepted deals of the other cards per hand
TARGET_LOSS = 0.25        # issue 14: mean hand-level loss at the largest hand
TARGET_GAIN = 0.2         # issue 14: no cell with a significant gain above this

# the stored figures, in this order (see exploit.Exploitability.summary)
COLUMNS = ("hand_size", "hands", "hand_loss", "hand_loss_lo", "hand_loss_hi",
           "big_loss_share", "not_best", "cells", "cells_gaining", "cells_gaining_over_0.2",
           "max_gain", "max_gain_lo", "max_gain_hi", "max_gain_share", "deals",
           "deals_per_hand", "seed")
COUNTS = ("hand_size", "hands", "cells", "cells_gaining", "cells_gaining_over_0.2", "deals",
          "deals_per_hand", "seed")


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """The figures with the counts as integers (the file stores every figure as a float)."""
    return frame.astype({c: "int64" for c in COUNTS})


def bidder_source(v: Variant, hand_size: int) -> str:
    """What the `table` bid policy of `v` bids from at `hand_size`."""
    tables = compile_tables(v)
    if hand_size == 1 and tables.one_card.shape[0] == v.players:
        return "exact one-card optimum"
    if hand_size in model_sizes(tables.bid_model):
        return "learned model"
    if hand_size in trained_sizes(v):
        return "class table"
    return "heuristic: no trained table"


def measure(v: Variant, hand_sizes: Sequence[int], deals: int = DEALS, hands: int = HANDS,
            deals_per_hand: int = DEALS_PER_HAND, workers: int | None = None,
            echo: Callable[[str], None] | None = None) -> pd.DataFrame:
    """The quality figures (COLUMNS) of the current `table` bidder at each of `hand_sizes`,
    one row per size; echo(line) after each (see describe_row)."""
    rows = []
    for h in hand_sizes:
        e = exploitability(v, h, deals, hands, deals_per_hand, workers=workers)
        row = {"hand_size": float(h)} | e.summary() | {
            "deals": float(deals), "deals_per_hand": float(deals_per_hand),
            "seed": float(HELD_OUT_SEED)}
        rows.append({c: row[c] for c in COLUMNS})
        if echo is not None:
            echo(f"  {describe_row(rows[-1])}")
            where = describe_situations(e.hands.by_situation(), v.players)
            if where:
                echo(f"    {where}")
    return _typed(pd.DataFrame(rows, columns=list(COLUMNS)))


def describe_row(row: dict[str, float] | pd.Series) -> str:
    """One line for a size's figures: the hand-level loss and the class-level gains."""
    gain = (f"largest {row['max_gain']:.2f} {_ci(row['max_gain_lo'], row['max_gain_hi'])}"
            if row["cells_gaining"] else "none")
    return (f"{cards(int(row['hand_size']))}: loss per hand against each hand's best "
            f"{row['hand_loss']:.2f} {_ci(row['hand_loss_lo'], row['hand_loss_hi'])} "
            f"(n={int(row['hands'])} hands), {row['big_loss_share']:.0%} lose > 0.5; "
            f"{int(row['cells_gaining'])} of {int(row['cells'])} cells gain by deviating "
            f"(Holm; {int(row['cells_gaining_over_0.2'])} by more than {TARGET_GAIN}): {gain}")


SITUATIONS = 3            # situations named in the line on where the loss sits
MIN_SITUATION = 10        # hands a situation needs to be named there


def describe_situations(situations: pd.DataFrame, players: int) -> str:
    """One line naming the situations (seat, sum of the bids heard) that hold the largest
    shares of the hand-level loss, each with at least MIN_SITUATION hands ('' when the
    bidder lost nothing): where a player should check the bid with `bidlab odds`."""
    named = situations[(situations["hands"] >= MIN_SITUATION) & (situations["share"] > 0)]
    parts = []
    for r in named.head(SITUATIONS).to_dict("records"):
        s, prev, cost, half = int(r["seat"]), int(r["prev_sum"]), r["cost"], r["cost_half"]
        seat = f"seat {s}" + (" (dealer)" if s == players - 1 else "")
        heard = "hearing no bid" if prev < 0 else f"after bids summing to {prev}"
        parts.append(f"{seat} {heard}: {r['share']:.0%} of it, {cost:.2f} "
                     f"{_ci(cost - half, cost + half)} per hand (n={int(r['hands'])})")
    return "the loss sits most in " + "; ".join(parts) if parts else ""


def cards(h: int) -> str:
    """'1 card', '7 cards'."""
    return f"{h} card{'' if h == 1 else 's'}"


def _ci(lo: float, hi: float) -> str:
    return f"[{lo:.2f}, {hi:.2f}]"


def as_quality(frame: pd.DataFrame) -> Quality:
    """The figures as the trained file stores them."""
    return Quality(COLUMNS, frame[list(COLUMNS)].to_numpy(dtype=np.float64))


def merged(old: pd.DataFrame | None, new: pd.DataFrame) -> pd.DataFrame:
    """`new`'s rows, and `old`'s for the sizes `new` did not measure (their bidder did not
    change), by hand size."""
    if old is None or old.empty:
        return new.sort_values("hand_size").reset_index(drop=True)
    keep = old[~old["hand_size"].isin(new["hand_size"])]
    return pd.concat([keep, new]).sort_values("hand_size").reset_index(drop=True)


def stored_figures(v: Variant) -> pd.DataFrame | None:
    """The figures (COLUMNS) stored in the trained file the bidder of `v` is read from, or
    None where there are none."""
    source = trained_source(v, compile_tables(v).bid_table.shape)
    if source is None or source[1] is None:
        return None
    frame = pd.DataFrame(source[1].values, columns=source[1].columns)
    return _typed(frame[list(COLUMNS)]) if set(COLUMNS) <= set(frame.columns) else None


def stored(v: Variant) -> pd.DataFrame | None:
    """stored_figures with a `bidder` column (bidder_source) for the sizes the configuration
    plays, or None where there are none."""
    frame = stored_figures(v)
    if frame is None:
        return None
    frame = frame[frame["hand_size"].isin(v.schedule)].reset_index(drop=True)
    frame["bidder"] = [bidder_source(v, int(h)) for h in frame["hand_size"]]
    return frame


def bidder_file(v: Variant) -> tuple[str, bool] | None:
    """(file name, shipped with bidlab?) of the trained file the `table` bidder of `v` and
    its stored figures are read from (the user's own comes before the shipped one), or None
    where the configuration has none."""
    source = trained_source(v, compile_tables(v).bid_table.shape)
    return None if source is None else (source[0].name, is_shipped(source[0]))


def record_file(v: Variant) -> Path:
    """The trained file the bidder of `v` is read from, where record() stores the figures.
    Raises ValueError where the configuration has none."""
    source = trained_source(v, compile_tables(v).bid_table.shape)
    if source is None:
        raise ValueError(f"{v.canonical} has no trained file to record the figures in; "
                         "`bidlab train` writes one")
    return source[0]


def record(v: Variant, frame: pd.DataFrame) -> str:
    """Store `frame` (measure's figures) in the trained file the bidder of `v` is read from,
    beside the figures of the sizes it did not measure; returns the file's path. Raises
    ValueError where the configuration has no trained file."""
    path = record_file(v)
    return str(store_quality(v, path, as_quality(merged(stored_figures(v), frame))))


def table_text(frame: pd.DataFrame) -> str:
    """The figures as a plain table, one line per hand size."""
    head = (f"{'cards':>5}  {'loss/hand':>9}  {'95% interval':<16} {'> 0.5':>6} {'not best':>8}"
            f"  {'hands':>5}  {'cells':>5}  {'gaining':>7}  {'> 0.2':>5}  largest gain")
    lines = [head]
    for _, r in frame.iterrows():
        gain = (f"{r['max_gain']:.2f} {_ci(r['max_gain_lo'], r['max_gain_hi'])}"
                if r["cells_gaining"] else "-")
        lines.append(
            f"{int(r['hand_size']):>5}  {r['hand_loss']:>9.2f}  "
            f"{_ci(r['hand_loss_lo'], r['hand_loss_hi']):<16} {r['big_loss_share']:>6.0%} "
            f"{r['not_best']:>8.0%}  {int(r['hands']):>5}  {int(r['cells']):>5}  "
            f"{int(r['cells_gaining']):>7}  {int(r['cells_gaining_over_0.2']):>5}  {gain}")
    return "\n".join(lines)


def meets_targets(frame: pd.DataFrame) -> tuple[bool, bool]:
    """(the largest size's mean hand-level loss is at most TARGET_LOSS, no size has a cell
    whose significant gain exceeds TARGET_GAIN)."""
    top = frame.sort_values("hand_size").iloc[-1]
    loss_ok = not math.isnan(top["hand_loss"]) and top["hand_loss"] <= TARGET_LOSS
    return bool(loss_ok), bool((frame["cells_gaining_over_0.2"] == 0).all())
