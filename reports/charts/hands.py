"""Report charts (matplotlib, Agg): one function per chart, each writing <stem>.png and
<stem>.svg and returning the paths written ([] when there is nothing to draw: an empty or
missing frame, or a chart that does not apply).

Colours come from reports.charts.style and mean the same thing on every page: seats always
have the same colour, trumps are vermillion and other cards blue, the best bid is orange and
other bids blue. Error bars are 95% confidence intervals. Files are written to a temporary name and
renamed into place.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from reports.charts.style import (
    BEST_COLOUR,
    ERR,
    OTHER_COLOUR,
    PLAIN_COLOUR,
    TRUMP_COLOUR,
    has_rows,
    save,
    seat_colour,
)
from simulate.util.format import seat_label
from simulate.util.stats import Z95

__all__ = ["trick_distribution_chart", "bid_odds_chart",
           "pick_trump", "card_values_chart", "card_seat_chart", "seat_advantage_chart"]


def _players(df: pd.DataFrame, players: int | None) -> int:
    return int(players) if players else int(df["seat"].to_numpy().max()) + 1


# ----- charts ------------------------------------------------------------------------------
def trick_distribution_chart(seat_tricks: pd.DataFrame | None, stem: str | os.PathLike[str],
                             title: str = "", players: int | None = None) -> list[Path]:
    """Grouped bars of P(tricks = k) per seat (an expected_tricks_table by ["seat"])."""
    if not has_rows(seat_tricks) or "seat" not in seat_tricks.columns:
        return []
    ks = sorted(int(c.rsplit("_", 1)[1]) for c in seat_tricks.columns
                if c.startswith("p_tricks_"))
    if not ks:
        return []
    n_players = _players(seat_tricks, players)
    seats = list(seat_tricks["seat"].astype(int))
    width = 0.8 / max(len(seats), 1)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(ks) + 3), 3.8))
    x = np.arange(len(ks))
    for i, row in enumerate(seat_tricks.to_dict("records")):
        seat = int(row["seat"])
        vals = [row[f"p_tricks_{k}"] for k in ks]
        ax.bar(x + (i - (len(seats) - 1) / 2) * width, vals, width,
               color=seat_colour(seat), label=f"seat {seat_label(seat, n_players)}",
               hatch="//" if seat == n_players - 1 else None, edgecolor="white", linewidth=0.5)
    ax.set_xticks(x, [str(k) for k in ks])
    ax.set_xlabel("tricks taken")
    ax.set_ylabel("share of hands, P(tricks = k)")
    ax.set_title(title or "Trick distribution by seat")
    ax.legend(frameon=False, fontsize=8, ncols=2)
    ax.grid(axis="y", alpha=0.3)
    return save(fig, stem)


def bid_odds_chart(odds: pd.DataFrame | None, stem: str | os.PathLike[str], title: str = ""
                   ) -> list[Path]:
    """P(exact) and expected score by bid for one hand (simulate.odds.bid_odds), 95% CIs,
    the best bid in orange."""
    if not has_rows(odds) or not {"bid", "p_exact", "expected_score"} <= set(odds.columns):
        return []
    bids = odds["bid"].astype(int).to_numpy()
    best = odds["best"].to_numpy(bool) if "best" in odds.columns else np.zeros(len(odds), bool)
    colours = [BEST_COLOUR if b else OTHER_COLOUR for b in best]
    n = odds["n"].to_numpy(float) if "n" in odds.columns else np.full(len(odds), np.nan)
    p = odds["p_exact"].to_numpy(float)
    p_half = Z95 * np.sqrt(np.maximum(p * (1 - p), 0) / np.maximum(n, 1))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(8.0, 0.9 * len(bids) + 5), 3.8))
    x = np.arange(len(bids))
    a1.bar(x, p, color=colours, yerr=np.vstack([np.minimum(p_half, p), p_half]), **ERR)
    auction = "contract" in odds.columns
    a1.set_ylabel("P(contract made)" if auction else "P(exactly the bid)")
    a1.set_ylim(0, min(1.05, max(0.1, float(np.nanmax(p + p_half)) * 1.15)))
    mean = odds["expected_score"].to_numpy(float)
    if {"ci_low", "ci_high"} <= set(odds.columns):
        err = np.vstack([mean - odds["ci_low"].to_numpy(float),
                         odds["ci_high"].to_numpy(float) - mean])
        err = np.nan_to_num(err)
    else:
        err = None
    a2.bar(x, mean, color=colours, yerr=err, **ERR)
    a2.axhline(0, color="#555555", linewidth=0.8)
    better = odds.attrs.get("better", "higher")
    a2.set_ylabel("expected score" + (" (lower is better)" if better == "lower" else ""))
    labels = list(odds["contract"].astype(str)) if auction else [str(b) for b in bids]
    for ax in (a1, a2):
        ax.set_xticks(x, labels, rotation=30 if auction else 0)
        ax.set_xlabel("contract" if auction else "bid")
        ax.grid(axis="y", alpha=0.3)
    for i in np.flatnonzero(best):
        a2.annotate("best", (x[i], mean[i]), xytext=(0, 14), textcoords="offset points",
                    ha="center", fontsize=9, fontweight="bold", color="#8a5a00")
    a = odds.attrs
    sub = ", ".join(s for s in [f"hand {a['hand']}" if a.get("hand") else "",
                                f"seat {a['seat']}" if "seat" in a else "",
                                f"trump {a['trump']}" if a.get("trump") else ""] if s)
    fig.suptitle(title or f"Bid odds — {sub}", fontsize=11)
    fig.legend(handles=[Patch(color=BEST_COLOUR, label="best bid"),
                        Patch(color=OTHER_COLOUR, label="other bids")],
               loc="lower center", ncols=2, frameon=False, fontsize=8,
               bbox_to_anchor=(0.5, -0.06))
    fig.tight_layout()
    return save(fig, stem)


def pick_trump(card_values: pd.DataFrame) -> str | None:
    """The trump the card-value chart shows: the suit trump with the most hands (NT only if
    there is no suit trump)."""
    if not has_rows(card_values):
        return None
    hands = card_values.groupby("trump", observed=True)["hands"].first()
    suits = hands[hands.index.astype(str) != "NT"]
    pool = suits if len(suits) else hands
    order = ["S", "H", "D", "C", "NT"]
    return str(sorted(pool.index.astype(str), key=lambda t: (-pool[t], order.index(t)
                                                            if t in order else 9))[0])


def card_values_chart(table: pd.DataFrame | None, stem: str | os.PathLike[str],
                      title: str = "", top: int = 16) -> list[Path]:
    """The top `top` cards of one trump (reports.analysis.card_values.card_value_table) by
    marginal value: bars, the tricks the seat takes more holding the card than holding the
    reference card on the same deals; dots, the tricks the card itself takes per hand held
    (direct attribution); both with 95% CIs. Trumps vermillion, other cards blue."""
    if not has_rows(table) or not {"tricks", "direct", "ls"} & set(table.columns):
        return []
    key = next(k for k in ("tricks", "direct", "ls") if k in table.columns)
    df = table.dropna(subset=[key]).sort_values(key, ascending=False).head(top).iloc[::-1]
    if df.empty:
        return []
    fig, ax = plt.subplots(figsize=(6.5, max(3.0, 0.3 * len(df) + 1.4)))
    y = np.arange(len(df))
    colours = [TRUMP_COLOUR if t else PLAIN_COLOUR for t in df["is_trump"]]
    handles: list[Artist] = [Patch(color=TRUMP_COLOUR, label="trump"),
               Patch(color=PLAIN_COLOUR, label="not trump")]
    if "tricks" in df.columns:
        v = df["tricks"].to_numpy(float)
        # clipped at 0: an interval end can sit a rounding error inside its estimate
        err = np.maximum(np.nan_to_num(np.vstack([v - df["tricks_lo"].to_numpy(float),
                                                  df["tricks_hi"].to_numpy(float) - v])), 0)
        ax.barh(y, v, color=colours, xerr=err, **ERR)
        ref = str(df["reference"].dropna().iloc[0]) if df["reference"].notna().any() else "?"
        handles.append(Patch(color="#bbbbbb", label=f"marginal vs {ref} (bars)"))
    elif "direct" not in df.columns:
        # only the least-squares fit (a report stored before the marginal values)
        v = df["ls"].to_numpy(float)
        err = np.maximum(np.nan_to_num(np.vstack([v - df["ls_lo"].to_numpy(float),
                                                  df["ls_hi"].to_numpy(float) - v])), 0)
        ax.barh(y, v, color=colours, xerr=err, **ERR)
        ref = str(df["ls_reference"].dropna().iloc[0]) if df["ls_reference"].notna().any() \
            else "?"
        handles.append(Patch(color="#bbbbbb", label=f"least squares vs {ref} (bars)"))
    if "direct" in df.columns:
        d = df["direct"].to_numpy(float)
        derr = np.maximum(np.nan_to_num(np.vstack([d - df["direct_lo"].to_numpy(float),
                                                   df["direct_hi"].to_numpy(float) - d])), 0)
        ax.errorbar(d, y, xerr=derr, fmt="o", color="#222222", markersize=4, capsize=2,
                    linewidth=1)
        handles.append(Line2D([], [], marker="o", color="#222222", linestyle="",
                              label="direct (dots)"))
    ax.axvline(0, color="#555555", linewidth=0.8)
    ax.set_yticks(y, list(df["card"]))
    ax.set_xlabel("tricks per hand held")
    ax.set_ylabel("card")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title or f"Card values, trump {df['trump'].iloc[0]}")
    ax.legend(handles=handles, loc="lower right", frameon=False, fontsize=8)
    return save(fig, stem)


def card_seat_chart(by_seat: pd.DataFrame | None, stem: str | os.PathLike[str],
                    cards: list[str], players: int, title: str = "") -> list[Path]:
    """Marginal value by seat (reports.analysis.card_values.marginal_by_seat) of `cards`:
    one group of bars per card, one bar per seat in its colour, 95% CIs; the dealer hatched."""
    if not has_rows(by_seat) or "tricks" not in by_seat.columns or not cards:
        return []
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(cards) + 2), 3.6))
    width = 0.8 / players
    for s in range(players):
        rows = by_seat[by_seat["seat"].astype(str) == str(s)].set_index("card")
        rows = rows.reindex(cards)
        v = rows["tricks"].to_numpy(float)
        err = np.maximum(np.nan_to_num(np.vstack([v - rows["tricks_lo"].to_numpy(float),
                                                  rows["tricks_hi"].to_numpy(float) - v])), 0)
        x = np.arange(len(cards)) + (s - (players - 1) / 2) * width
        bars = ax.bar(x, v, width, color=seat_colour(s), yerr=err,
                      label=seat_label(s, players), **ERR)
        if s == players - 1:
            for bar in bars:
                bar.set_hatch("//")
                bar.set_edgecolor("white")
    ax.axhline(0, color="#555555", linewidth=0.8)
    ax.set_xticks(np.arange(len(cards)), cards)
    ax.set_xlabel("card")
    ax.set_ylabel("marginal value (tricks)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize=8, ncols=players, loc="upper center",
              bbox_to_anchor=(0.5, -0.18))
    ax.set_title(title or "Marginal value by seat")
    return save(fig, stem)


def seat_advantage_chart(seat_table: pd.DataFrame | None, stem: str | os.PathLike[str],
                         title: str = "", players: int | None = None, better: str = "higher"
                         ) -> list[Path]:
    """Mean score by seat with 95% CIs (reports.tables.seat_summary); the dealer hatched."""
    if not has_rows(seat_table) or "mean_score" not in seat_table.columns:
        return []
    n_players = _players(seat_table, players)
    seats = seat_table["seat"].astype(int).to_numpy()
    mean = seat_table["mean_score"].to_numpy(float)
    if {"mean_score_ci_low", "mean_score_ci_high"} <= set(seat_table.columns):
        err = np.nan_to_num(np.vstack([mean - seat_table["mean_score_ci_low"].to_numpy(float),
                                       seat_table["mean_score_ci_high"].to_numpy(float) - mean]))
    else:
        err = None
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(seats) + 2), 3.6))
    x = np.arange(len(seats))
    bars = ax.bar(x, mean, color=[seat_colour(s) for s in seats], yerr=err, **ERR)
    for bar, s in zip(bars, seats, strict=True):
        if s == n_players - 1:
            bar.set_hatch("//")
            bar.set_edgecolor("white")
    if "n" in seat_table.columns:
        overall = float(np.average(mean, weights=seat_table["n"].to_numpy(float)))
        ax.axhline(overall, color="#555555", linestyle="--", linewidth=1,
                   label=f"all seats {overall:.2f}")
        ax.legend(frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    ax.set_xticks(x, [seat_label(s, n_players) for s in seats])
    ax.set_xlabel("seat (0 = dealer's left)")
    ax.set_ylabel("mean score per hand" + (" (lower is better)" if better == "lower" else ""))
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title or "Seat advantage: mean score by seat")
    return save(fig, stem)
