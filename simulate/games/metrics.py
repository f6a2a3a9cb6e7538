"""Balance metrics of whole games, their 95% CIs, and paired differences between two
configurations played on the same deals.

Every metric is a ratio of per-game sums, sum(x) / sum(y) (y = 1 per game for plain means):
win share by seat, final score by seat, bid accuracy by seat (exact hands / hands played),
game length, ties, everyone-exact hands, hook-forced bids, the win share of a special card's
holders, ... Its CI comes from the linearised per-game values z = (x - r*y) / mean(y) (the
delta method), and a paired difference between configurations A and B played on the same
game seeds uses z_A - z_B per game, so the deals' luck cancels. Only five (ten, paired) sums
per metric are kept, so runs of any length use the same memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simulate.games.job import GameJob
from simulate.kernel import game as K
from simulate.rules.codes import FOOLS_KING
from simulate.util.format import fmt_num, fmt_signed, seat_label
from simulate.util.stats import Z95, holm_z, two_sided_p


@dataclass(frozen=True)
class Metric:
    """One balance metric: what it is called and grouped by, and its chance value."""

    key: str            # unique, stable: "win_share[0]", "length", ...
    group: str          # what the report groups by: "win share by seat", ...
    label: str          # what a reader sees
    seat: int | None = None
    fair: float | None = None   # the value chance (equal seats, no effect) would give



def metric_defs(job: GameJob) -> list[Metric]:
    """The metrics that mean something for this variant (no hook metric without a hook)."""
    v = job.v
    n = v.players
    units = v.teams or n
    contract = v.is_contract
    out: list[Metric] = []

    def label(s: int) -> str:
        return f"seat {seat_label(s, n, 'first dealer')}"

    for s in range(n):
        out.append(Metric(f"win_share[{s}]", "win share by seat (ties split)",
                          label(s), s, 1 / units))
    for s in range(n):
        out.append(Metric(f"score[{s}]", "final score by seat", label(s), s))
    for s in range(n):
        if contract:
            out.append(Metric(f"made[{s}]", "contracts made by seat (as maker)",
                              label(s), s))
        else:
            out.append(Metric(f"exact[{s}]", "exact bids by seat", label(s), s))
    out.append(Metric("length", "game", "hands per game"))
    if job.G[K.G_RIVER]:
        out.append(Metric("tiebreaks", "game", "tie-break rounds per game"))
    out.append(Metric("tied", "game", "games won jointly (tie)"))
    out.append(Metric("spread", "game", "score spread (best − worst final total)"))
    out.append(Metric("margin", "game", "margin of victory (winner vs runner-up)"))
    if not contract:
        out.append(Metric("all_exact", "game", "hands where everyone is exact"))
    if v.rule("bidding.constraint", "none") != "none":
        rule = "the hook" if v.rule("bidding.constraint") == "hook" else "Max Bet"
        out.append(Metric("forced", "game", f"last bids {rule} moved off their estimate"))
    if job.G[K.G_STARS]:
        out.append(Metric("star_win", "game", "games ended by five stars"))
        out.append(Metric("stars_spent", "game", "stars spent per game"))
    if contract:
        out.append(Metric("made", "game", "contracts made"))
        if v.rule("bidding.allow_alone") or any(step.alone for step in v.ladder):
            out.append(Metric("alone", "game", "lone contracts per game"))
        out.append(Metric("voided", "game", "hands thrown in (everyone passed)"))
    if any(m == FOOLS_KING for row in v.mechanic_table for m in row):
        out.append(Metric("fooled", "special cards", "Kings fooled per game"))
    for name in dict.fromkeys(v.cards.names[int(c)] for c in job.specials):
        out.append(Metric(f"holder_win[{name}]", "special cards",
                          f"win share of the {name} holder (per hand held)", None, 1 / units))
        out.append(Metric(f"holder_ok[{name}]", "special cards",
                          f"{'made' if contract else 'exact'} rate of the {name} holder"))
    for ev in v.events:
        out.append(Metric(f"captures[{ev.name}]", "special cards", f"{ev.name} captures per game"))
        out.append(Metric(f"capturer_win[{ev.name}]", "special cards",
                          f"win share of the {ev.name} taker (per capture)", None, 1 / units))
    return out


def union_defs(first: list[Metric], second: list[Metric]) -> list[Metric]:
    """The metrics of `first`, then those of `second` that `first` lacks (two variants
    compared: each metric either has)."""
    keys = {m.key for m in first}
    return first + [m for m in second if m.key not in keys]


def metric_values(job: GameJob, defs: Sequence[Metric],
                  rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-game values of each metric: (x, y), float64 [games, metrics], so that the metric
    is sum(x) / sum(y).

    job: the configuration that played `rows` (its game rows, GameJob.run); defs: the metrics
    (metric_defs, or union_defs of two jobs': a metric this job has no card, seat or event
    for gets x = y = 0).
    """
    v = job.v
    n = v.players
    lay = job.layout
    g = len(rows)
    seat = lambda f: rows[:, [lay.col(s, f) for s in range(n)]].astype(np.float64)  # noqa: E731
    # ties split: each winning unit (player or team) gets 1/k of the win; a team's members
    # each count their unit's part
    won_units = np.maximum(rows[:, K.C_UNITS_WON], 1).astype(np.float64)
    share = seat(K.P_WIN) / won_units[:, None]
    totals = seat(K.P_TOTAL)
    unit_totals = totals[:, [u for u in range(v.teams or n)]]
    ones = np.ones(g)
    cards: dict[str, list[int]] = {}
    for e, c in enumerate(job.specials):
        cards.setdefault(v.cards.names[int(c)], []).append(e)
    events = {ev.name: e for e, ev in enumerate(v.events)}
    x = np.zeros((g, len(defs)))
    y = np.zeros((g, len(defs)))
    lower = bool(job.G[K.G_LOWER])
    for j, m in enumerate(defs):
        key, _, arg = m.key.partition("[")
        arg = arg[:-1]
        i = int(arg) if arg.isdigit() else -1
        held_idx: list[int] = []
        if key in ("holder_win", "holder_ok"):
            # identical copies (two Fools) count as one kind of card
            held_idx = cards.get(arg, [])
            i = 0 if held_idx else -1
        elif key in ("captures", "capturer_win"):
            i = events.get(arg, -1)
        yy = ones
        if i < 0 and arg:
            # compared with a variant that has no such card, seat or event: no value
            x[:, j] = 0.0
            y[:, j] = 0.0
            continue
        if key == "win_share":
            xx = share[:, i]
        elif key == "score":
            xx = totals[:, i]
        elif key == "exact":
            xx, yy = seat(K.P_EXACT)[:, i], seat(K.P_PLAYED)[:, i]
        elif key == "made" and m.seat is not None:
            xx, yy = seat(K.P_MADE)[:, i], seat(K.P_MAKER)[:, i]
        elif key == "length":
            xx = rows[:, K.C_HANDS]
        elif key == "tiebreaks":
            xx = rows[:, K.C_TIEBREAKS]
        elif key == "tied":
            xx = (rows[:, K.C_UNITS_WON] > 1).astype(np.float64)
        elif key == "spread":
            xx = unit_totals.max(axis=1) - unit_totals.min(axis=1)
        elif key == "margin":
            srt = np.sort(unit_totals, axis=1)
            xx = (srt[:, 1] - srt[:, 0]) if lower else (srt[:, -1] - srt[:, -2])
        elif key == "all_exact":
            xx = rows[:, K.C_ALL_EXACT]
            yy = rows[:, K.C_HANDS] - rows[:, K.C_VOIDED]
        elif key == "forced":
            xx, yy = rows[:, K.C_FORCED], rows[:, K.C_CONSTRAINED]
        elif key == "star_win":
            xx = rows[:, K.C_STAR_WIN]
        elif key == "stars_spent":
            xx = seat(K.P_SPENT)[:, [u for u in range(v.teams or n)]].sum(axis=1)
        elif key == "made":
            xx, yy = seat(K.P_MADE).sum(axis=1), seat(K.P_MAKER).sum(axis=1)
        elif key == "alone":
            xx = seat(K.P_ALONE).sum(axis=1)
        elif key == "voided":
            xx, yy = rows[:, K.C_VOIDED], rows[:, K.C_HANDS]
        elif key == "fooled":
            xx = seat(K.P_FOOLED).sum(axis=1)
        elif key == "holder_win":
            held = _sum_columns(rows, [[lay.held(s, e) for s in range(n)] for e in held_idx])
            xx, yy = (held * share).sum(axis=1), held.sum(axis=1)
        elif key == "holder_ok":
            xx = _sum_columns(rows, [[lay.held_ok(s, e) for s in range(n)]
                                     for e in held_idx]).sum(axis=1)
            yy = _sum_columns(rows, [[lay.held(s, e) for s in range(n)]
                                     for e in held_idx]).sum(axis=1)
        elif key == "captures":
            xx = rows[:, [lay.captured(s, i) for s in range(n)]].sum(axis=1)
        elif key == "capturer_win":
            cap = rows[:, [lay.captured(s, i) for s in range(n)]]
            xx, yy = (cap * share).sum(axis=1), cap.sum(axis=1)
        else:
            raise AssertionError(f"unknown metric {m.key}")
        x[:, j] = xx
        y[:, j] = yy
    return x, y


def _sum_columns(rows: np.ndarray, groups: list[list[int]]) -> np.ndarray:
    """rows[:, g] summed over the column groups g (integer counts: exact in any order)."""
    total = np.zeros((len(rows), len(groups[0])), rows.dtype)
    for cols in groups:
        total += rows[:, cols]
    return total


class MetricSums:
    """Running sums per metric: games, Σx, Σy, Σx², Σy², Σxy."""

    def __init__(self, m: int) -> None:
        self.games = 0
        self.s = np.zeros((5, m))

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        """Add the per-game values x, y [games, metrics] of some more games."""
        self.games += len(x)
        self.s += np.stack([x.sum(0), y.sum(0), (x * x).sum(0), (y * y).sum(0),
                            (x * y).sum(0)])

    def ratio(self) -> np.ndarray:
        """Each metric's value Σx / Σy (nan where Σy = 0)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.s[0] / self.s[1]

    def ss_z(self) -> np.ndarray:
        """Σ z² of the linearised values (times mean(y)², divided out in se())."""
        r = np.nan_to_num(self.ratio())
        sx, sy, sxx, syy, sxy = self.s
        return np.maximum(sxx - 2 * r * sxy + r * r * syy, 0.0)

    def se(self) -> np.ndarray:
        """Each metric's standard error (delta method); nan with fewer than two games."""
        g = self.games
        ybar = self.s[1] / max(g, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt(self.ss_z() / (g * (g - 1))) / ybar if g > 1 else \
                np.full(self.s.shape[1], np.nan)


class PairedSums:
    """The cross sums a paired difference of two ratio metrics needs, per metric."""

    def __init__(self, m: int) -> None:
        self.a = MetricSums(m)
        self.b = MetricSums(m)
        self.c = np.zeros((4, m))     # Σ xA xB, Σ xA yB, Σ yA xB, Σ yA yB

    def add(self, xa: np.ndarray, ya: np.ndarray, xb: np.ndarray, yb: np.ndarray) -> None:
        """Add the per-game values of A and B on the same games."""
        self.a.add(xa, ya)
        self.b.add(xb, yb)
        self.c += np.stack([(xa * xb).sum(0), (xa * yb).sum(0), (ya * xb).sum(0),
                            (ya * yb).sum(0)])

    def _variances(self) -> tuple[np.ndarray, np.ndarray]:
        """Per metric, (the variance sum of A's and B's ratio terms, as if on independent
        deals; the variance of their difference paired on the same deals), per game."""
        g = self.a.games
        ra, rb = np.nan_to_num(self.a.ratio()), np.nan_to_num(self.b.ratio())
        ya, yb = self.a.s[1] / max(g, 1), self.b.s[1] / max(g, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            zaa = self.a.ss_z() / ya ** 2
            zbb = self.b.ss_z() / yb ** 2
            xaxb, xayb, yaxb, yayb = self.c
            zab = (xaxb - rb * xayb - ra * yaxb + ra * rb * yayb) / (ya * yb)
            paired = zaa + zbb - 2 * zab
            # identical A and B leave only rounding: call a variance that small zero
            paired = np.where(paired > 1e-12 * (zaa + zbb), paired, 0.0)
        return zaa + zbb, paired

    def diff(self) -> tuple[np.ndarray, np.ndarray]:
        """(rB - rA, its standard error)."""
        g = self.a.games
        _, paired = self._variances()
        var = paired / (g * (g - 1)) if g > 1 else np.full(len(paired), np.nan)
        return self.b.ratio() - self.a.ratio(), np.sqrt(var)

    def variance_reduction(self) -> np.ndarray:
        """Per metric, the variance of B − A had A and B been played on independent deals
        over its variance paired on the same deals (> 1: pairing narrows the interval by
        its square root); nan where the paired variance is 0."""
        independent, paired = self._variances()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(paired > 0, independent / paired, np.nan)


def metrics_frame(defs: Sequence[Metric], sums: MetricSums) -> pd.DataFrame:
    """One row per metric of `defs` (in the order of `sums`' columns): value, 95% CI (lo,
    hi), se, games, the denominator Σy and the chance value `fair`."""
    r, se = sums.ratio(), sums.se()
    rows = []
    for j, m in enumerate(defs):
        rows.append({"metric": m.key, "group": m.group, "label": m.label, "seat": m.seat,
                     "value": r[j], "lo": r[j] - Z95 * se[j], "hi": r[j] + Z95 * se[j],
                     "se": se[j], "games": sums.games, "denominator": sums.s[1, j],
                     "fair": m.fair})
    return pd.DataFrame(rows)


def paired_frame(defs: Sequence[Metric], paired: PairedSums, label_a: str,
                 label_b: str) -> pd.DataFrame:
    """One row per metric of `defs`: A and B with their standard errors, the paired
    difference B − A with its raw 95% CI (lo, hi) and se, the realised variance reduction
    `vr` (independent over paired variance), and the significance marks of holm_marks.
    label_a and label_b name the configurations (columns config_a, config_b)."""
    ra, rb = paired.a.ratio(), paired.b.ratio()
    sa, sb = paired.a.se(), paired.b.se()
    d, sd = paired.diff()
    vr = paired.variance_reduction()
    rows = []
    for j, m in enumerate(defs):
        lo, hi = d[j] - Z95 * sd[j], d[j] + Z95 * sd[j]
        rows.append({"metric": m.key, "group": m.group, "label": m.label, "seat": m.seat,
                     "a": ra[j], "a_se": sa[j], "b": rb[j], "b_se": sb[j], "diff": d[j],
                     "lo": lo, "hi": hi, "se": sd[j], "games": paired.a.games,
                     "vr": vr[j], "config_a": label_a, "config_b": label_b})
    return holm_marks(pd.DataFrame(rows))


def holm_marks(df: pd.DataFrame) -> pd.DataFrame:
    """Mark the differences of a comparison frame (one or several B configurations) after
    Holm's step-down correction over every difference in it with a finite standard error
    (family-wise 5%): p (raw two-sided), significant_raw (the raw 95% CI excludes 0),
    lo_holm/hi_holm (the interval at Holm's critical value: it excludes 0 exactly where
    Holm rejects) and significant (Holm). Returns a copy."""
    out = df.copy()
    z = out["diff"] / out["se"]
    ok = np.isfinite(z.to_numpy(dtype=float))
    p = np.array([two_sided_p(float(v)) if f else np.nan for v, f in zip(z, ok, strict=True)])
    crit = np.full(len(out), np.nan)
    if ok.any():
        crit[ok] = holm_z([float(x) for x in p[ok]])
    out["p"] = p
    out["significant_raw"] = ok & ((out["lo"] > 0) | (out["hi"] < 0)).to_numpy()
    out["lo_holm"] = out["diff"] - crit * out["se"]
    out["hi_holm"] = out["diff"] + crit * out["se"]
    out["significant"] = ok & ((out["lo_holm"] > 0) | (out["hi_holm"] < 0)).to_numpy()
    return out


def holm_note(df: pd.DataFrame) -> str:
    """The line that says how the marks of a comparison frame were corrected."""
    m = int(np.isfinite((df["diff"] / df["se"]).to_numpy(dtype=float)).sum())
    raw = int(df["significant_raw"].sum())
    return (f"* significant after Holm's correction over the {m} differences shown "
            f"(family-wise 5%; {int(df['significant'].sum())} marked, {raw} by the raw "
            "95% CIs printed, kept in the --out table as lo/hi with lo_holm/hi_holm)")


def variance_note(df: pd.DataFrame) -> str:
    """The realised variance reduction of pairing, for the final scores and over every
    metric: var(independent) / var(paired) of B − A."""
    vr = df["vr"].to_numpy(dtype=float)
    vr = vr[np.isfinite(vr)]
    score = df.loc[df.metric.str.startswith("score["), "vr"].to_numpy(dtype=float)
    score = score[np.isfinite(score)]
    if not len(vr):
        return "variance reduction of pairing: — (no metric varies)"
    head = (f"final score by seat {np.median(score):.2f}× (median; "
            f"{score.min():.2f}–{score.max():.2f}), " if len(score) else "")
    return (f"variance reduction of pairing (var independent / var paired of B − A): {head}"
            f"all metrics median {np.median(vr):.2f}×, range {vr.min():.2f}–{vr.max():.2f}×")


def format_metrics(df: pd.DataFrame, skill: dict[str, Any] | None = None) -> str:
    """The metrics as a plain-text table, grouped, with CIs and chance values.

    df: GameResults.metrics (metrics_frame); skill: a skill_index result, shown last.
    """
    lines: list[str] = []
    width = min(48, max(30, int(df.label.str.len().max()) + 2)) if len(df) else 44
    for group, part in df.groupby("group", sort=False):
        lines.append(f"{group}")
        for r in part.itertuples():
            fair = f"   chance {fmt_num(r.fair)}" if isinstance(r.fair, float) and \
                math.isfinite(r.fair) else ""
            lines.append(f"  {r.label:<{width}} {fmt_num(r.value):>9}  "
                         f"[{fmt_num(r.lo)}, {fmt_num(r.hi)}]{fair}")
    if skill is not None:
        lines.append("skill")
        lines.append(f"  {'one ' + skill['strong'] + ' vs ' + skill['weak']:<{width}} "
                     f"{fmt_num(skill['skill']):>9}  [{fmt_num(skill['skill_lo'])}, "
                     f"{fmt_num(skill['skill_hi'])}]   win share {fmt_num(skill['win_share'])} vs "
                     f"chance {fmt_num(skill['fair'])} (×{skill['ratio']:.2f})")
    return "\n".join(lines)


def format_paired(df: pd.DataFrame, notes: bool = True) -> str:
    """A comparison (compare_games, paired_frame) as a plain-text table: A, B, B − A with
    its raw 95% CI, the variance reduction of pairing (×), and * where the difference is
    significant after Holm's correction (holm_marks); with `notes`, the lines saying so."""
    width = min(48, max(30, int(df.label.str.len().max()) + 2)) if len(df) else 44
    lines = [f"  {'':<{width}} {'A':>9} {'B':>9} {'B − A':>9}  {'95% CI (raw)':<22} "
             f"{'var ×':>6}"]
    for group, part in df.groupby("group", sort=False):
        lines.append(f"{group}")
        for r in part.itertuples():
            mark = " *" if r.significant else ""
            ci = f"[{fmt_signed(r.lo)}, {fmt_signed(r.hi)}]"
            vr = f"{float(r.vr):.1f}" if math.isfinite(float(r.vr)) else "—"  # type: ignore[arg-type]
            lines.append(f"  {r.label:<{width}} {fmt_num(r.a):>9} {fmt_num(r.b):>9} "
                         f"{fmt_signed(r.diff):>9}  {ci:<22} {vr:>6}{mark}")
    if notes:
        lines.append(holm_note(df))
        lines.append(variance_note(df))
    return "\n".join(lines)
