"""The compact cheat sheet: one printable line per hand size and seat.

The full sheet (simulate.hands.sheet) gives a bid for every cell of seat x hand class x sum of
earlier bids: right for a web page, far too much to print. The compact sheet keeps what a
player can use at the table, fitted on the same forced runs (simulate.hands.forced):

  thresholds    the bid by the hand's point count only (classes.hand_points: the sum of its
                cards' points from the printed point table), as "bid b from p points up",
                non-decreasing in points (point classes STEP_TICKS * TICK wide);
  earlier bids  where the seat hears bids before its own, a shift by their sum in a few bands
                ("+1 when they sum to 2 or less, -1 from 7 up"), non-increasing in the sum and
                0 at the seat's median sum;
  fallback      where the rules forbid the bid so found (the dealer's hook, Max Bet), the
                nearest allowed bid in one direction ("1 less"), the other way when there is
                none in that direction.

Every part is chosen to maximise the seat's summed score over the forced deals (run.signed():
lower is better in Horseshoes), scoring on each deal the bid a player following the line
would actually have made there, fallback included. The thresholds are the optimal
non-decreasing bid sequence over the point classes (dynamic programming, `monotone_fit`);
with earlier bids, thresholds and shifts are fitted in turn, each optimal given the other,
until neither changes (a local optimum of the joint fit, never worse than no shift); the
fallback direction is the better of the two.

In an auction (Hasenpfeffer) the candidates are the contract steps, each played as if the
seat had won the auction with it. The lowest contract then always scores best (the makers
score the tricks they take whatever they bid), so "the best contract" would print 1
everywhere; the line instead gives how high to go: the highest contract that still scores
above 0 on average when won (passing, which leaves the contract to another seat, taken as
0), rising with the points (fit_line's up_to). Bids are then step numbers; the lookup's
answer is that limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from simulate.hands.classes import hand_points, point_table
from simulate.hands.forced import ForcedRun, candidate_bids, earlier_seats
from simulate.hands.sheet import SheetAnswer
from simulate.rules.play import legal_bids
from simulate.rules.variant import Variant
from simulate.util.stats import group_sums

TICK = 0.05               # classes.point_table rounds every card's points to this
STEP_TICKS = 5            # point classes are STEP_TICKS ticks (0.25 points) wide: 0.05, 0.1
                          # and 0.5 scored no better on held-out hands (scripts/sheet_accuracy)
SHIFTS = (2, 1, 0, -1, -2)  # the shifts by the sum of earlier bids the fit may use
TIE_PENALTY = 1e-6        # per unit of shift: breaks exact ties only (scores are sums over
                          # deals of whole or half points)
MAX_ROUNDS = 20           # alternating fits of thresholds and shifts (they converge in a few)


def monotone_fit(totals: np.ndarray) -> np.ndarray:
    """The non-decreasing column index for each row that maximises the sum of
    totals[k, index[k]] over the rows (exact dynamic programming; -inf marks a column a row
    may not take; ties go to the lower index). totals: float[K, B] -> int64[K]."""
    totals = np.asarray(totals, dtype=np.float64)
    K, B = totals.shape
    best = np.empty((K, B))
    reach = np.zeros(B)        # best total of the rows above, ending at a column <= j
    for k in range(K):
        best[k] = totals[k] + reach
        reach = np.maximum.accumulate(best[k])
    out = np.zeros(K, np.int64)
    limit = B - 1
    for k in range(K - 1, -1, -1):
        out[k] = int(np.argmax(best[k, :limit + 1]))
        limit = int(out[k])
    return out


def played_index(allowed: np.ndarray, direction: int) -> np.ndarray:
    """int64[N, B]: the candidate actually bid on each deal when the line says candidate j:
    j where the rules allow it, else the nearest allowed one in `direction` (-1 lower, +1
    higher), else the nearest the other way. allowed: bool[N, B]."""
    N, B = allowed.shape
    out = np.tile(np.arange(B, dtype=np.int64), (N, 1))
    steps = [direction * k for k in range(1, B)] + [-direction * k for k in range(1, B)]
    for j in range(B):
        bad = ~allowed[:, j]
        if not bad.any():
            continue
        choice = np.full(N, -1, np.int64)
        for step in steps:
            c = j + step
            if 0 <= c < B:
                take = bad & (choice < 0) & allowed[:, c]
                choice[take] = c
        out[bad, j] = np.where(choice >= 0, choice, j)[bad]
    return out


@dataclass(frozen=True)
class Line:
    """One seat's fitted line, in candidate indices (see the module notes): `edges` the
    lower ends (in ticks) of the point classes seen, `base` the candidate index per class;
    `sums` the sums of earlier bids seen, `shift` the shift per sum; `direction` the
    fallback direction; `total` the summed signed score of the line on the deals."""

    edges: np.ndarray
    base: np.ndarray
    sums: np.ndarray
    shift: np.ndarray
    direction: int
    total: float


def fit_line(signed: np.ndarray, ticks: np.ndarray, prev: np.ndarray | None,
             step_ticks: int = STEP_TICKS, up_to: bool = False) -> Line:
    """Fit one seat's line on its forced deals: signed float[N, B] (the seat's score per
    candidate, larger better, NaN where the rules forbid it), ticks int[N] (the hand's points
    in TICKs), prev int[N] (the sum of earlier bids, None where the seat hears none).
    up_to (an auction): the line gives the highest contract still worth winning the auction
    with — the fit maximises, per class, the summed score of every contract up to the
    line's, so it stops before the first contract that scores below 0 (passing, which lets
    another seat make the contract, is taken as 0); `total` stays the score of the line's
    own contract."""
    allowed = ~np.isnan(signed)
    cls_of = (np.asarray(ticks, np.int64) // step_ticks) * step_ticks
    edges, cls = np.unique(cls_of, return_inverse=True)
    if prev is None:
        sums, pos = np.zeros(1, np.int64), np.zeros(len(cls), np.int64)
    else:
        sums, pos = np.unique(np.asarray(prev, np.int64), return_inverse=True)
    directions = (-1, 1) if not allowed.all() else (-1,)
    best: Line | None = None
    best_objective = -np.inf
    for d in directions:
        value = np.take_along_axis(np.where(allowed, signed, 0.0), played_index(allowed, d),
                                   axis=1)
        cube = _class_sum_cube(value, cls, pos, len(edges), len(sums))
        objective = np.cumsum(cube, axis=2) if up_to else cube
        median = int(np.searchsorted(sums, np.median(prev))) if prev is not None else 0
        for start in _starts(sums, prev, median):
            base, shift, total = _alternate(objective, median, start)
            if total > best_objective + 1e-9:
                best_objective = total
                best = Line(edges, base, sums, shift, d if not allowed.all() else 0,
                            _line_total(cube, base, shift))
    assert best is not None
    return best


def _class_sum_cube(value: np.ndarray, cls: np.ndarray, pos: np.ndarray, K: int,
                    P: int) -> np.ndarray:
    """float[K, P, B]: the summed score of candidate j over the deals of point class k and
    earlier-bid sum p (the fits need nothing else of the deals)."""
    return group_sums(value, cls * P + pos, K * P).reshape(K, P, value.shape[1])


def _starts(sums: np.ndarray, prev: np.ndarray | None, median: int) -> list[np.ndarray]:
    """Shifts to start the alternating fit from: none, and one less from the upper
    quartile or decile of the sums, one more up to the lower one, and both (the fit can stop
    at a local optimum; several starts keep it from the poorest)."""
    P = len(sums)
    out = [np.zeros(P, np.int64)]
    if prev is None or P < 2:
        return out
    highs = {int(np.searchsorted(sums, np.quantile(prev, q))) for q in (0.75, 0.9)}
    lows = {int(np.searchsorted(sums, np.quantile(prev, q))) for q in (0.1, 0.25)}
    idx = np.arange(P)
    for hi in [None, *sorted(highs)]:
        for lo in [None, *sorted(lows)]:
            if hi is None and lo is None:
                continue
            start = np.zeros(P, np.int64)
            if hi is not None:
                start[(idx >= max(hi, median + 1))] = -1
            if lo is not None:
                start[(idx <= min(lo, median - 1))] = 1
            if start.any():
                out.append(start)
    return out


def _alternate(cube: np.ndarray, median: int, start: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """Thresholds and shifts fitted in turn on the cube, each optimal given the other, from
    the shifts `start` until neither changes: (base index per class, shift per sum, total)."""
    K, P, B = cube.shape
    shifts = np.array(SHIFTS, np.int64)
    shift = start.copy()
    base = np.zeros(K, np.int64)
    for _ in range(MAX_ROUNDS):
        # thresholds given the shifts: totals[k, j] = sum_p cube[k, p, clip(j + shift[p])]
        target = np.clip(np.arange(B)[None, :] + shift[:, None], 0, B - 1)      # [P, B]
        totals = cube[:, np.arange(P)[:, None], target].sum(axis=1)             # [K, B]
        base = monotone_fit(totals)
        if P == 1:
            break
        # shifts given the thresholds: totals[p, s] = sum_k cube[k, p, clip(base[k] + s)]
        target = np.clip(base[:, None] + shifts[None, :], 0, B - 1)             # [K, S]
        by_sum = cube[np.arange(K)[:, None, None], np.arange(P)[None, :, None],
                      target[:, None, :]].sum(axis=0)                           # [P, S]
        # a shift that changes no bid (it only pushes past the last candidate) is no rule:
        # exact ties go to the smaller shift
        by_sum -= TIE_PENALTY * np.abs(shifts)[None, :]
        by_sum[median, shifts != 0] = -np.inf       # the typical sum keeps the plain line
        new = shifts[monotone_fit(by_sum)]
        if np.array_equal(new, shift):
            break
        shift = new
    return base, shift, _line_total(cube, base, shift)


def _line_total(cube: np.ndarray, base: np.ndarray, shift: np.ndarray) -> float:
    """The cube's summed value of the line: class k at sum p takes base[k] + shift[p]."""
    target = np.clip(base[:, None] + shift[None, :], 0, cube.shape[2] - 1)     # [K, P]
    return float(np.take_along_axis(cube, target[:, :, None], axis=2).sum())


# ----- the sheet as a table -----------------------------------------------------------------
def compact_sheet(runs: list[ForcedRun], v: Variant, step_ticks: int = STEP_TICKS
                  ) -> pd.DataFrame:
    """The compact sheet of one hand size from forced runs of every seat: one row per seat
    with n (deals), `thresholds` ("0:0 1:0.9 2:1.9": bid b from that many points up, the
    first from any), `shifts` ("0-2:+1 3-6:0 7-:-1": the shift by the sum of the earlier
    bids, "" where the seat hears none), `fallback` (-1: bid the nearest allowed lower, +1
    higher, 0: the rules never forbid a bid), `constrained`, `earlier` (seats heard),
    `e_score` (mean score per deal following the line, the game's sign) and `text`."""
    if not runs:
        raise ValueError("compact_sheet needs at least one forced run")
    h = runs[0].hand_size
    rows = []
    for run in sorted(runs, key=lambda r: r.seat):
        ticks = np.rint(hand_points(v, h, run.masks, run.trumps) / TICK).astype(np.int64)
        line = fit_line(run.signed(), ticks, run.prev if run.earlier else None, step_ticks,
                        up_to=run.auction)
        sign = -1.0 if run.better_low else 1.0
        thresholds = _threshold_text(line, run.bids)
        shifts = _shift_text(line) if run.earlier else ""
        rows.append({"seat": run.seat, "n": run.deals, "thresholds": thresholds,
                     "shifts": shifts, "fallback": line.direction,
                     "constrained": bool(run.constrained), "earlier": len(run.earlier),
                     "e_score": sign * line.total / max(run.deals, 1),
                     "text": line_text(thresholds, shifts, line.direction)})
    out = pd.DataFrame(rows)
    out.attrs.update({"hand_size": h, "better": "lower" if runs[0].better_low else "higher",
                      "deals_per_seat": runs[0].deals, "step": step_ticks * TICK,
                      "auction": bool(runs[0].auction)})
    return out


def _points(ticks: int) -> str:
    return f"{ticks * TICK:.2f}".rstrip("0").rstrip(".")


def _threshold_text(line: Line, bids: np.ndarray) -> str:
    """"b:points" for every bid from the lowest the line gives to the highest (a bid the line
    skips shares the next one's points), the first from any points ("0")."""
    lo, hi = int(line.base.min()), int(line.base.max())
    parts = [f"{int(bids[lo])}:0"]
    for j in range(lo + 1, hi + 1):
        first = int(np.argmax(line.base >= j))
        parts.append(f"{int(bids[j])}:{_points(int(line.edges[first]))}")
    return " ".join(parts)


def _shift_text(line: Line) -> str:
    """"lo-hi:+s" bands over the sums 0, 1, ... (a sum never seen takes the band of the sum
    below it, sums below the lowest seen the first band; the last band is open: "7-")."""
    top = int(line.sums.max())
    per_sum = [int(line.shift[max(int(np.searchsorted(line.sums, p, side="right")) - 1, 0)])
               for p in range(top + 1)]
    bands: list[list[int]] = []
    for p, s in enumerate(per_sum):
        if bands and bands[-1][2] == s:
            bands[-1][1] = p
        else:
            bands.append([p, p, s])
    return " ".join(f"{lo}-{hi if i < len(bands) - 1 else ''}:{s:+d}"
                    for i, (lo, hi, s) in enumerate(bands))


def parse_thresholds(text: str) -> list[tuple[int, int]]:
    """(bid, points in TICKs) pairs of a `thresholds` cell, ascending."""
    return [(int(b), int(round(float(p) / TICK))) for b, p in
            (part.split(":") for part in str(text).split())]


def parse_shifts(text: object) -> list[tuple[int, int, int]]:
    """(lo, hi, shift) bands of a `shifts` cell (hi -1: no upper end); [] when empty."""
    out: list[tuple[int, int, int]] = []
    if not isinstance(text, str):         # an empty cell read back from a CSV is NaN
        return out
    for part in text.split():
        span, s = part.split(":")
        lo, hi = span.split("-")
        out.append((int(lo), int(hi) if hi else -1, int(s)))
    return out


def line_text(thresholds: str, shifts: str, fallback: int) -> str:
    """One seat's line in words: "0; 1 from 0.9; 2 from 1.9 | sum 0-2 +1, 7+ -1 | if
    forbidden: 1 less"."""
    pairs = [p.split(":") for p in thresholds.split()]
    out = "; ".join([pairs[0][0]] + [f"{b} from {p}" for b, p in pairs[1:]])
    bands = [(lo, hi, s) for lo, hi, s in parse_shifts(shifts) if s]
    if bands:
        out += " | sum " + ", ".join(
            (f"{lo}+" if hi < 0 else f"{lo}" if lo == hi else f"{lo}-{hi}") + f" {s:+d}"
            for lo, hi, s in bands)
    if fallback:
        out += " | if forbidden: 1 " + ("less" if fallback < 0 else "more")
    return out


# ----- reading the sheet ----------------------------------------------------------------------
def compact_bid(sheet: pd.DataFrame, v: Variant, mask: int, trump: int, seat: int,
                prev: int | None = None) -> SheetAnswer | None:
    """What the compact sheet gives a hand (mask) under trump index `trump` in `seat` after
    earlier bids summing to `prev` (None: it hears none): the threshold bid for the hand's
    points, shifted by the band of `prev`, kept within the candidates, and where the rules
    forbid it the nearest allowed bid in the fallback direction. None without a line."""
    return compact_lookup(sheet, v)(mask, trump, seat, prev)


class _SeatLine(NamedTuple):
    """One row of the sheet, parsed once."""

    thresholds: list[tuple[int, int]]
    shifts: list[tuple[int, int, int]]
    fallback: int
    constrained: bool


def _read_line(line: _SeatLine, v: Variant, h: int, seat: int, ticks: int, prev: int
               ) -> int:
    """The bid of one parsed line for a hand of `ticks` points after earlier bids `prev`."""
    bid = line.thresholds[0][0]
    for b, t in line.thresholds[1:]:
        if ticks >= t:
            bid = b
    for lo, hi, s in line.shifts:
        if lo <= prev and (hi < 0 or prev <= hi):
            bid += s
    bids = [int(b) for b in candidate_bids(v, h)]
    bid = min(max(bid, bids[0]), bids[-1])
    allowed = allowed_bids(v, h, seat, prev, line.constrained)
    if bid not in allowed:
        d = line.fallback or -1
        order = [bid + d * k for k in range(1, len(bids))] + \
                [bid - d * k for k in range(1, len(bids))]
        bid = next((b for b in order if b in allowed), bid)
    return bid


def allowed_bids(v: Variant, hand_size: int, seat: int, prev: int, constrained: bool
                 ) -> set[int]:
    """The candidate bids the rules allow `seat` after earlier bids summing to `prev` (as
    forced.legal_after: the hook and Max Bet look only at that sum and whether the seat bids
    last)."""
    bids = [int(b) for b in candidate_bids(v, hand_size)]
    earlier = earlier_seats(v, seat)
    if v.bidding_form == "auction" or not earlier:
        return set(bids)
    so_far, rest = [], prev
    for _ in earlier:
        so_far.append(min(rest, hand_size))
        rest -= so_far[-1]
    return set(legal_bids(v, hand_size, so_far, constrained))


def compact_lookup(sheet: pd.DataFrame, v: Variant
                   ) -> Callable[[int, int, int, int | None], SheetAnswer | None]:
    """bid_for(mask, trump, seat, prev_sum): the compact sheet's bid (see compact_bid), with
    the signature of sheet.sheet_lookup for sheet_check.check_sheets; the sheet's rows and
    the point table are read once."""
    h = int(sheet.attrs["hand_size"])
    lines = {int(r["seat"]): _SeatLine(parse_thresholds(str(r["thresholds"])),
                                       parse_shifts(r["shifts"]),
                                       int(r["fallback"]), bool(r["constrained"]))
             for r in sheet.to_dict("records")}
    points = point_table(v, h)
    D = len(v.cards)

    def bid_for(mask: int, trump: int, seat: int, prev: int | None) -> SheetAnswer | None:
        line = lines.get(seat)
        if line is None:
            return None
        held = [c for c in range(D) if (int(mask) >> c) & 1]
        # classes.hand_points for one hand: the sum of its cards' points
        ticks = int(np.rint(float(points[trump, held].sum()) / TICK))
        return SheetAnswer(_read_line(line, v, h, seat, ticks, 0 if prev is None else prev),
                           -1)

    return bid_for
