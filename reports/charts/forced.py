"""The forced-bid chart: E[score] by bid with 95% intervals for the most frequent hand
classes of each seat (simulate.hands.class_table), one panel per seat. Every bid was played
on the same deals of a cell, so the curves compare bids, not hands. The best bid of each
class is drawn as a filled orange marker, a bid the rules forbid in the cell (the dealer's
hook) as an x on the axis. Writes <stem>.png and <stem>.svg; [] when there is nothing to
draw.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from reports.analysis.forced import bid_text, class_label
from reports.charts.style import BEST_COLOUR, OKABE_ITO, has_rows, save
from simulate.util.format import seat_label

__all__ = ["forced_bids_chart", "CLASSES_PER_SEAT"]

CLASSES_PER_SEAT = 4
LINE_COLOURS = [OKABE_ITO[k] for k in ("blue", "vermillion", "green", "purple", "sky")]


def _panel(ax: plt.Axes, cells: pd.DataFrame, bids: pd.DataFrame, features: Sequence[str],
           keys: list[str], names: Sequence[str], top: int) -> None:
    shown = cells.sort_values("n", ascending=False, kind="stable").head(top)
    offsets = np.linspace(-0.15, 0.15, max(len(shown), 1))
    for i, cell in enumerate(shown.to_dict("records")):
        match = bids
        for k in keys:
            # a seat that bids first has no sum of earlier bids (NA, which equals nothing)
            match = match[match[k].isna()] if pd.isna(cell[k]) else match[match[k] == cell[k]]
        match = match.sort_values("bid")
        x = match["bid"].to_numpy(float) + offsets[i]
        y = match["e_score"].to_numpy(float)
        err = np.nan_to_num(np.vstack([y - match["ci_low"].to_numpy(float),
                                       match["ci_high"].to_numpy(float) - y]))
        colour = LINE_COLOURS[i % len(LINE_COLOURS)]
        label = class_label(cell, features)
        if "prev_sum" in cell and not pd.isna(cell["prev_sum"]):
            label += f"; earlier bids sum {int(cell['prev_sum'])}"
        ax.errorbar(x, y, yerr=err, color=colour, marker="o", markersize=3.5, linewidth=1.2,
                    capsize=2, label=f"{label} (n={int(cell['n']):,})")
        best = match["bid"].to_numpy() == cell["best"]
        ax.plot(x[best], y[best], marker="*", markersize=12, color=BEST_COLOUR,
                markeredgecolor="#333333", linestyle="none")
        bad = match["forbidden"].to_numpy(bool)
        if bad.any():
            ax.plot(x[bad], np.zeros(int(bad.sum())), marker="x", markersize=9, color=colour,
                    markeredgewidth=2, linestyle="none", clip_on=False,
                    transform=ax.get_xaxis_transform())
    ticks = sorted(int(b) for b in bids["bid"].unique())
    ax.set_xticks(ticks, [bid_text(b, names) for b in ticks],
                  rotation=30 if names else 0, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncols=1)


def forced_bids_chart(cells: pd.DataFrame | None, bids: pd.DataFrame | None,
                      stem: str | os.PathLike[str], players: int, names: Sequence[str] = (),
                      better: str = "higher", title: str = "", top: int = CLASSES_PER_SEAT
                      ) -> list[Path]:
    """E[score] by bid (95% intervals) for the `top` most frequent cells of every seat, a
    panel per seat; the best bid starred, forbidden bids as x on the axis."""
    if not has_rows(cells) or not has_rows(bids):
        return []
    features = list(cells.attrs.get("features") or [])
    keys = ["seat"] + (["prev_sum"] if "prev_sum" in cells.columns else []) + features
    seats = sorted(int(s) for s in cells["seat"].unique())
    ncols = 2 if len(seats) > 1 else 1
    nrows = -(-len(seats) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.2 * ncols, 4.6 * nrows), squeeze=False)
    for ax, seat in zip(axes.flat, seats, strict=False):
        _panel(ax, cells[cells["seat"] == seat], bids[bids["seat"] == seat], features, keys,
               names, top)
        ax.set_title(f"seat {seat_label(seat, players)}", fontsize=10)
        ax.set_xlabel("contract" if names else "bid", fontsize=9)
        ax.set_ylabel("E[score]" + (" (lower is better)" if better == "lower" else ""),
                      fontsize=9)
    for ax in list(axes.flat)[len(seats):]:
        ax.set_visible(False)
    fig.suptitle(title or "Expected score by bid, most frequent hand classes", fontsize=11)
    fig.legend(handles=[Line2D([], [], marker="*", color=BEST_COLOUR, markeredgecolor="#333333",
                               markersize=11, linestyle="none", label="best legal bid"),
                        Line2D([], [], marker="x", color="#555555", markeredgewidth=2,
                               linestyle="none", label="forbidden bid")],
               loc="upper right", ncols=2, frameon=False, fontsize=8)
    fig.tight_layout(h_pad=2.0)
    return save(fig, stem)
