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
           "pick_trump", "card_values_chart", "seat_advantage_chart"]


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


def card_values_chart(card_values: pd.DataFrame | None, stem: str | os.PathLike[str],
                      title: str = "", trump: str | None = None, top: int = 16) -> list[Path]:
    """Top `top` cards by value (tricks the card adds) under one trump, 95% CIs; trumps in
    vermillion, other cards in blue."""
    if not has_rows(card_values):
        return []
    trump = trump or pick_trump(card_values)
    df = card_values[card_values["trump"].astype(str) == str(trump)]
    if df.empty:
        return []
    df = df.sort_values("value", ascending=False).head(top).iloc[::-1]
    fig, ax = plt.subplots(figsize=(6.5, max(3.0, 0.28 * len(df) + 1.2)))
    y = np.arange(len(df))
    colours = [TRUMP_COLOUR if t else PLAIN_COLOUR for t in df["is_trump"]]
    v = df["value"].to_numpy(float)
    err = np.nan_to_num(np.vstack([v - df["ci_low"].to_numpy(float),
                                   df["ci_high"].to_numpy(float) - v]))
    ax.barh(y, v, color=colours, xerr=err, **ERR)
    ax.axvline(0, color="#555555", linewidth=0.8)
    ax.set_yticks(y, list(df["card"]))
    ax.set_xlabel("tricks the card adds to a hand (least-squares value)")
    ax.set_ylabel("card")
    ax.grid(axis="x", alpha=0.3)
    hands = int(df["hands"].iloc[0]) if "hands" in df.columns else 0
    ax.set_title(title or f"Card values, trump {trump} ({hands:,} hands)")
    ax.legend(handles=[Patch(color=TRUMP_COLOUR, label="trump"),
                       Patch(color=PLAIN_COLOUR, label="not trump")],
              loc="lower right", frameon=False, fontsize=8)
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
