"""Charts of the Balance page: seat bars, game lengths, bid accuracy by position and hand
size, and paired differences with error bars. Same palette and conventions as
reports.charts.style (seat colours, 95% error bars, PNG + SVG written atomically).

Seats here are absolute seats of a whole game: 0 sits on the first dealer's left, the last
seat is the first dealer (hatched).
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from reports.charts.style import ERR, OKABE_ITO, has_rows, save, seat_colour
from simulate.util.format import seat_label


def seat_metric_chart(metrics: pd.DataFrame | None, prefix: str, stem: str | os.PathLike[str],
                      players: int, ylabel: str, title: str) -> list[Path]:
    """Bars of one per-seat metric (rows `prefix[s]` of GameResults.metrics) with 95% CIs and
    the value chance gives, if any, as a dashed line."""
    if not has_rows(metrics):
        return []
    rows = metrics[metrics.metric.str.startswith(prefix + "[")].copy()
    if rows.empty:
        return []
    seats = rows.seat.astype(int).to_numpy()
    value = rows.value.to_numpy(float)
    err = np.nan_to_num(np.vstack([value - rows.lo.to_numpy(float),
                                   rows.hi.to_numpy(float) - value]))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(seats) + 2), 3.6))
    x = np.arange(len(seats))
    bars = ax.bar(x, value, color=[seat_colour(s) for s in seats], yerr=err, **ERR)
    for bar, s in zip(bars, seats, strict=True):
        if s == players - 1:
            bar.set_hatch("//")
            bar.set_edgecolor("white")
    fair = rows.fair.dropna()
    if len(fair):
        ax.axhline(float(fair.iloc[0]), color="#555555", linestyle="--", linewidth=1,
                   label=f"chance {float(fair.iloc[0]):.3f}")
        ax.legend(frameon=False, fontsize=8, loc="lower right")
        lo = min(float(rows.lo.min()), float(fair.iloc[0]))
        hi = max(float(rows.hi.max()), float(fair.iloc[0]))
        pad = (hi - lo) * 0.6 + 1e-9
        ax.set_ylim(max(0.0, lo - pad), hi + pad)
    ax.set_xticks(x, [seat_label(s, players, "first dealer") for s in seats])
    ax.set_xlabel("seat (0 = first dealer's left)")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title)
    return save(fig, stem)


def length_chart(lengths: pd.DataFrame | None, stem: str | os.PathLike[str],
                 title: str = "Game length") -> list[Path]:
    """Share of games by number of hands played."""
    if not has_rows(lengths) or len(lengths) < 2:
        return []      # a fixed schedule: every game lasts as long
    total = float(lengths.games.sum())
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.bar(lengths.hands, lengths.games / total, color=OKABE_ITO["blue"], width=0.85)
    mean = float((lengths.hands * lengths.games).sum() / total)
    ax.axvline(mean, color=OKABE_ITO["vermillion"], linestyle="--", linewidth=1.2,
               label=f"mean {mean:.2f} hands")
    ax.legend(frameon=False, fontsize=8)
    ax.set_xlabel("hands in the game")
    ax.set_ylabel("share of games")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title)
    return save(fig, stem)


def accuracy_chart(accuracy: pd.DataFrame | None, stem: str | os.PathLike[str], players: int,
                   title: str = "Bid accuracy by position and hand size",
                   ylabel: str = "share of hands bid exactly") -> list[Path]:
    """Exact-bid rate (made rate for contracts) by hand size, one line per position from the
    dealer (GameResults.accuracy(by="position")), with 95% intervals."""
    if not has_rows(accuracy) or "position" not in accuracy.columns:
        return []
    fig, ax = plt.subplots(figsize=(6.8, 3.8))
    if accuracy.hand_size.nunique() == 1:
        # one hand size (a constant deal): bars by position
        part = accuracy.sort_values("position")
        pos = part.position.astype(int).to_numpy()
        ax.bar(np.arange(len(pos)), part.rate, color=[seat_colour(p) for p in pos],
               yerr=[part.rate - part.lo, part.hi - part.rate], **ERR)
        ax.set_xticks(np.arange(len(pos)), ["dealer" if p == players - 1 else
                                            "dealer's left" if p == 0 else f"position {p}"
                                            for p in pos])
        lo, hi = float(part.lo.min()), float(part.hi.max())
        ax.set_ylim(max(0.0, lo - (hi - lo)), min(1.0, hi + (hi - lo)))
        ax.set_xlabel(f"position from the dealer ({int(part.hand_size.iloc[0])} cards)")
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(title.replace(" and hand size", ""))
        return save(fig, stem)
    positions = accuracy["position"].to_numpy()
    for position in np.unique(positions):          # the sorted groups of groupby("position")
        part = accuracy[positions == position].sort_values("hand_size")
        label = "dealer" if position == players - 1 else (
            "dealer's left" if position == 0 else f"position {position}")
        ax.errorbar(part.hand_size, part.rate, yerr=[part.rate - part.lo, part.hi - part.rate],
                    color=seat_colour(int(position)), marker="o", markersize=3, capsize=2,
                    linewidth=1.2, label=label)
    ax.set_xlabel("hand size")
    ax.set_ylabel(ylabel)
    ax.legend(frameon=False, fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    return save(fig, stem)


def difference_chart(paired: pd.DataFrame | None, stem: str | os.PathLike[str],
                     title: str) -> list[Path]:
    """Paired differences B − A as a percentage of A, with raw 95% error bars; the ones
    significant after Holm's correction (the frame's `significant`) in vermillion."""
    if not has_rows(paired):
        return []
    rows = paired[np.isfinite(paired.a) & (paired.a.abs() > 1e-9) &
                  np.isfinite(paired.se)].copy()
    if rows.empty:
        return []
    rows["pct"] = rows["diff"] / rows.a.abs() * 100
    rows["pct_lo"] = rows.lo / rows.a.abs() * 100
    rows["pct_hi"] = rows.hi / rows.a.abs() * 100
    # seat rows repeat "seat 0, seat 1, ...": name the measure too
    rows["text"] = [f"{g.split(' by seat')[0]}: {lab}" if pd.notna(seat) else lab
                    for g, lab, seat in zip(rows.group, rows.label, rows.seat, strict=True)]
    rows = rows.iloc[::-1]
    fig, ax = plt.subplots(figsize=(8.6, 0.32 * len(rows) + 1.4))
    y = np.arange(len(rows))
    colours = [OKABE_ITO["vermillion"] if s else OKABE_ITO["blue"] for s in rows.significant]
    ax.errorbar(rows.pct, y, xerr=[rows.pct - rows.pct_lo, rows.pct_hi - rows.pct],
                fmt="none", ecolor="#333333", capsize=2, linewidth=1)
    ax.scatter(rows.pct, y, c=colours, zorder=3, s=18)
    ax.axvline(0, color="#555555", linewidth=1)
    ax.set_yticks(y, rows.text.str.slice(0, 60))
    ax.set_xlabel("change B − A, % of A (95% CI; vermillion: Holm-corrected difference)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title)
    return save(fig, stem)


SWEEP_METRICS = ("win_share", "score", "exact", "made", "length", "margin", "spread",
                 "skill")


def sweep_chart(sweep: pd.DataFrame | None, stem: str | os.PathLike[str], option: str,
                title: str = "") -> list[Path]:
    """A sweep's paired differences by option value: one panel per measure (win share,
    final score, exact bids by seat; game length, margin, spread, skill), B − A against the
    value with raw 95% error bars, one line per seat; filled markers where the difference
    is significant after Holm's correction. sweep: the frames of every B concatenated, a
    `value` column naming the option value of each row."""
    if not has_rows(sweep):
        return []
    base = sweep.metric.str.partition("[")[0]
    keys = [k for k in SWEEP_METRICS if (base == k).any()]
    if not keys:
        return []
    values = list(dict.fromkeys(sweep["value"]))
    x = np.arange(len(values))
    cols = min(3, len(keys))
    rows_n = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.2 * cols, 3.0 * rows_n), squeeze=False)
    for ax, key in zip(axes.ravel(), keys, strict=False):
        part = sweep[base == key]
        for j, (label, line) in enumerate(part.groupby("label", sort=False)):
            line = line.set_index("value").reindex(values)
            seat = line.seat.dropna()
            colour = seat_colour(int(seat.iloc[0])) if len(seat) else OKABE_ITO["blue"]
            d = line["diff"].to_numpy(float)
            err = np.nan_to_num(np.vstack([d - line.lo.to_numpy(float),
                                           line.hi.to_numpy(float) - d]))
            xs = x + (j - 0.5 * (part.label.nunique() - 1)) * 0.06
            ax.errorbar(xs, d, yerr=err, color=colour, marker="", capsize=2, linewidth=1,
                        label=str(label))
            sig = line.significant.fillna(False).to_numpy(bool)
            ax.scatter(xs[sig], d[sig], color=colour, s=22, zorder=3)
            ax.scatter(xs[~sig], d[~sig], facecolor="white", edgecolor=colour, s=22, zorder=3)
        ax.axhline(0, color="#555555", linewidth=0.8)
        ax.set_xticks(x, [str(v) for v in values])
        one = part.label.nunique() == 1
        ax.set_title(str(part.label.iloc[0] if one else part.group.iloc[0])[:48], fontsize=9)
        ax.grid(alpha=0.3)
        if part.label.nunique() > 1:
            ax.legend(frameon=False, fontsize=6)
    for ax in axes.ravel()[len(keys):]:
        ax.set_visible(False)
    fig.supxlabel(option)
    fig.supylabel("B − A (raw 95% CI; filled: Holm-significant)")
    if title:
        fig.suptitle(title[:110], fontsize=9)
    fig.tight_layout()
    return save(fig, stem)


def seat_score_chart(seats: pd.DataFrame | None, stem: str | os.PathLike[str], players: int,
                     title: str = "Mean score per hand by hand size and seat") -> list[Path]:
    """Mean score per hand by hand size, one line per absolute seat (GameResults.
    seat_diagnostics()): where in the game a seat's edge is won or lost."""
    if not has_rows(seats) or seats.hand_size.nunique() < 2:
        return []
    fig, ax = plt.subplots(figsize=(6.8, 3.8))
    for seat in sorted(int(x) for x in seats.seat.unique()):
        part = seats[seats.seat == seat].sort_values("hand_size")
        ax.plot(part.hand_size, part.mean_score, marker="o", markersize=3, linewidth=1.2,
                color=seat_colour(seat), label=seat_label(seat, players, "first dealer"))
    ax.set_xlabel("hand size")
    ax.set_ylabel("mean score per hand")
    ax.legend(frameon=False, fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    return save(fig, stem)
