"""Training the learned bidder (simulate.tables.bid_model) by iterated best response on fresh
deals, each step accepted only on held-out deals.

For one hand size, starting from the configuration's current bidder (its learned weights
where it has them, else its class table, else the heuristic), iterate:

  fit      Deal `deals` FRESH deals (a new seed per iteration). For every seat play each
           candidate bid on every deal (simulate.hands.forced.forced_run: everyone else on
           the current bidder, common random numbers), and fit, per (seat, sum of the heard
           bids capped at H + 1) group, one ridge regression per bid of the seat's
           signed score on the hand's model columns. A group with fewer than MIN_GROUP
           deals (or none) uses the seat's fit over all its deals. The seat that names
           trump as it bids (trump_chooser_seat: Horseshoes' first bidder) plays every deal
           under every trump choice, so its fit predicts each (trump, bid) and the kernel
           names the trump whose best bid scores best (kernel.policies.joint_trump). The
           candidate is then the best response to the current field as far as the model
           can tell.
  judge    On HELD-OUT deals (a seed no iteration deals from), every seat again plays every
           candidate bid against the current field; the candidate's gain is, per deal, the
           mean over seats of (score of the candidate's bid - score of the current bidder's
           own bid), signed so that larger is better: the held-out value of deviating to the
           candidate, one seat at a time, measured on outcomes of exactly those bids.
  accept   the candidate when that gain is positive; it becomes the field of the next
           iteration. Stop after `patience` rejections in a row or `max_iter` iterations.
  cells    Then, on deals of a seed of their own, every seat plays every candidate bid once
           more against the trained field (seat by seat in bidding order, the earlier
           seats' cells as already changed), and within each of the model's cells (seat, sum
           of the heard bids, expected tricks in half tricks x trumps held: its strength
           column) the model's hand-by-hand bids are compared with every constant bid on the
           same deals. Where one constant bid beats them by more than CELL_Z standard errors
           (on at least MIN_CELL deals), the cell bids it: that bid's weight in the cell's
           strength column is raised by CELL_BID, above any prediction, so the model bids
           it wherever the rules allow it and bids as before where they do not. Each such
           cell is kept only when its own hands gain on the held-out deals above, its seat
           deviating alone to the constant bid. The trump chooser's deals count in the
           cell of the trump its model names, and the kernel compares trumps with a cell's
           constant bid left out (kernel.policies.model_expects), so a cell changes the bid
           made under a trump, never which trump is named.

Nothing is decided on the training deals' own fit. The weights live in the tables (and in the
trained file once saved); the kernel bids from them wherever a size has them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simulate.hands.forced import ForcedRun, bidding_order, forced_run
from simulate.hands.job import card_rates, make_job
from simulate.hands.simulate import records_arrays
from simulate.kernel.hand import H_TRUMP, S_BID
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.tables.bid_model import active_columns, design_matrix, predict
from simulate.tables.compile import compile_tables, model_shape, record_model
from simulate.tables.layout import CELL_BID
from simulate.util.stats import Z95

RIDGE = 1.0         # ridge penalty per weight, in squared points
MIN_GROUP = 2_000   # deals a (seat, heard-bids) group needs for a fit of its own
MIN_ROWS = 200      # deals a bid needs in a group before it gets weights
PATIENCE = 1        # rejected candidates in a row before stopping
MIN_CELL = 300      # deals a model cell needs before a constant bid may replace its model
CELL_Z = 2.0        # standard errors by which the constant bid must beat the model there


def model_iteration_seed(seed: int, hand_size: int, iteration: int) -> int:
    """The seed of the fresh deals the model of one iteration (0-based) is fitted on."""
    return _derive(f"bidlab-model:{seed}:{hand_size}:{iteration}")


def model_held_out_seed(seed: int, hand_size: int) -> int:
    """The seed of the held-out deals that judge every candidate of one hand size."""
    return _derive(f"bidlab-model-held-out:{seed}:{hand_size}")


def model_cells_seed(seed: int, hand_size: int) -> int:
    """The seed of the deals on which the model's cells are compared with constant bids."""
    return _derive(f"bidlab-model-cells:{seed}:{hand_size}")


def _derive(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


def ridge(x: np.ndarray, y: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """float64[B, F]: per column of y (a bid), the ridge coefficients of y on x over `rows`
    where y is not NaN; NaN rows for a bid with fewer than MIN_ROWS such deals. The normal
    equations share one X'X per group, less the few rows a bid is forbidden on."""
    xr, yr = x[rows], y[rows]
    played = ~np.isnan(yr)
    gram = xr.T @ xr
    rhs = xr.T @ np.where(played, yr, 0.0)
    eye = RIDGE * np.eye(x.shape[1])
    out = np.full((y.shape[1], x.shape[1]), np.nan)
    for k in range(y.shape[1]):
        if played[:, k].sum() < MIN_ROWS:
            continue
        gone = xr[~played[:, k]]
        out[k] = np.linalg.solve(gram - gone.T @ gone + eye, rhs[:, k])
    return out


@dataclass(frozen=True)
class SeatData:
    """One seat's forced run with its model columns and heard-bid groups. For the seat that
    names trump as it bids (trump_chooser_seat) the run holds every deal once per trump
    choice, block after block (`choices` blocks of `deals` rows each)."""

    run: ForcedRun
    columns: np.ndarray     # int64[N, h + 2] active model columns
    group: np.ndarray       # int64[N] sum of heard bids, capped at H + 1 (0: none heard)
    choices: int = 1        # trump choices stacked (1: the deal's own trump only)

    @property
    def deals(self) -> int:
        """Deals (rows per trump choice)."""
        return self.run.deals // self.choices


def trump_chooser_seat(v: Variant) -> int | None:
    """The seat that names trump as it bids, where the rules have one (the first bidder
    choosing trump, Horseshoes): its model is fitted on every deal under every trump choice,
    and the kernel's table bidder names the trump whose best bid the model predicts to score
    best (kernel.policies.joint_trump). None elsewhere."""
    if v.trump_chooser != "first_bidder" or v.bidding_form == "auction":
        return None
    return bidding_order(v)[0]


def seat_data(v: Variant, h: int, seat: int, deals: int, seed: int,
              workers: int | None) -> SeatData:
    """Every candidate bid of `seat` on `deals` deals of `seed`, the rest on the current
    bidder, with the hands' model columns (for the trump chooser, under every trump choice
    in turn, on the same deals)."""
    tables = compile_tables(v)
    if seat == trump_chooser_seat(v):
        runs = [forced_run(v, h, seat, deals, seed=seed, workers=workers, trump=name)
                for name in v.trump_choices]
        run = dataclasses.replace(
            runs[0], scores=np.concatenate([r.scores for r in runs]),
            exact=np.concatenate([r.exact for r in runs]),
            masks=np.concatenate([r.masks for r in runs]),
            trumps=np.concatenate([r.trumps for r in runs]),
            prev=np.concatenate([r.prev for r in runs]), raced=None)
    else:
        run = forced_run(v, h, seat, deals, seed=seed, workers=workers)
        runs = [run]
    H = tables.score.shape[0] - 1
    cols = active_columns(tables.model_label, tables.card_rate[h], tables.suit_mask, h, H,
                          run.masks, run.trumps)
    group = np.minimum(run.prev, H + 1) if run.earlier else np.zeros(run.deals, np.int64)
    return SeatData(run, cols, group.astype(np.int64), len(runs))


def fit_seat(v: Variant, data: SeatData) -> np.ndarray:
    """float32[G, F, B+1]: one seat's weights at data's hand size (NaN where none)."""
    shape = model_shape(v, compile_tables(v))
    out = np.full((shape[2], shape[4], shape[3]), np.nan)       # [G, B+1, F] while fitting
    x = design_matrix(data.columns, shape[3])
    y = data.run.signed()
    bids = data.run.bids
    pooled = ridge(x, y, np.ones(len(x), np.bool_))
    # every group a seat can hear gets weights (its own fit, or the seat's over all deals),
    # so the kernel never falls back to the class table for a sum these deals missed
    for g in range(shape[2] if data.run.earlier else 1):
        rows = data.group == g
        out[g][bids] = ridge(x, y, rows) if rows.sum() >= MIN_GROUP else pooled
    return np.ascontiguousarray(out.transpose(0, 2, 1), dtype=np.float32)


def _best_bids(weights: np.ndarray, data: SeatData) -> tuple[np.ndarray, np.ndarray]:
    """(int64[rows] the bid index model_bid chooses on each row of data's run, -1 where no
    allowed bid has weights; float64[rows] what the model expects of the row: its best
    prediction with a cell's constant bid left out, as the kernel's model_expects)."""
    bids = data.run.bids
    out = np.full(data.run.deals, -1, np.int64)
    value = np.full(data.run.deals, -np.inf)
    for g in np.unique(data.group):
        rows = np.flatnonzero(data.group == g)
        pred = predict(weights[g][:, bids], data.columns[rows])
        pred = np.where(np.isnan(data.run.scores[rows]) | np.isnan(pred), -np.inf, pred)
        best = np.argmax(pred, axis=1)
        top = pred[np.arange(len(rows)), best]
        out[rows] = np.where(np.isfinite(top), best, -1)
        # the trump comparison leaves a cell's constant bid out (kernel model_expects)
        value[rows] = np.where(pred > CELL_BID / 2, pred - CELL_BID, pred).max(axis=1)
    return out, value


def model_choice(weights: np.ndarray, data: SeatData) -> np.ndarray:
    """int64[rows]: the index (into data.run.bids) of the bid the weights (float32[G, F,
    B+1], one seat) choose on each row of data's run, among the bids allowed there (-1: none
    has weights), as the kernel's model_bid chooses (the largest prediction, ties to the
    lower bid). For the trump chooser, each deal under each trump choice."""
    return _best_bids(weights, data)[0]


def joint_choice(weights: np.ndarray, data: SeatData) -> tuple[np.ndarray, np.ndarray]:
    """(int64[N] the row of data's run, int64[N] the bid index) the trump chooser's weights
    choose on each deal: the trump choice whose best bid has the largest prediction (ties to
    the earlier choice), then that bid, as the kernel's joint_trump; bid -1 where none has
    weights. Without stacked choices, each deal's own row and model_choice."""
    k, value = _best_bids(weights, data)
    n = data.deals
    block = np.argmax(value.reshape(data.choices, n), axis=0)
    rows = block * n + np.arange(n)
    return rows, k[rows]


def deviation_gain(v: Variant, h: int, candidate: np.ndarray, deals: int, seed: int,
                   workers: int | None) -> tuple[float, float, int]:
    """(mean gain, its standard error, deals): the held-out value of each seat deviating
    from the current bidder to `candidate` (float32[n, G, F, B+1] at size h), see the module
    notes."""
    per_deal = np.zeros(deals)
    for gain, _, _ in seat_gains(v, h, candidate, deals, seed, workers,
                              range(v.players)).values():
        per_deal += gain / v.players
    return (float(per_deal.mean()), float(per_deal.std(ddof=1) / math.sqrt(deals)), deals)


# per seat: (gains per deal, its forced run, each deal's row in that run as the seat chose)
SeatGains = dict[int, tuple[np.ndarray, SeatData, np.ndarray]]


def seat_gains(v: Variant, h: int, candidate: np.ndarray, deals: int, seed: int,
               workers: int | None, seats: Iterable[int]) -> SeatGains:
    """Per seat of `seats`: (float64[deals] the signed points each deal gains when that seat
    alone bids by `candidate` instead of the current bidder, every other seat on the current
    bidder; the seat's forced run on those deals; int64[deals] the row of that run each deal's
    candidate bid is read from: for the trump chooser, the trump it names)."""
    job = make_job(v, h, deals, seed, "precision", "table", None, None, None)
    out = records_arrays(job, workers)
    natural = out.seat_out[:, :, S_BID].astype(np.int64)
    trump_index = {TRUMP_NAMES.index(name): i for i, name in enumerate(v.trump_choices)}
    named = np.array([trump_index.get(int(t), 0) for t in out.hand_out[:, H_TRUMP]])
    gains: SeatGains = {}
    for seat in seats:
        data = seat_data(v, h, seat, deals, seed, workers)
        y = data.run.signed()
        deal = np.arange(deals)
        # the seat's own outcome: its own bid under the trump it named (forcing both
        # replays the deal exactly), or its bid on the deal's own trump
        own_rows = named * deals + deal if data.choices > 1 else deal
        own = y[own_rows, natural[:, seat] - data.run.bids[0]]
        rows, k = joint_choice(candidate[seat], data)
        new = np.where(k >= 0, y[rows, np.maximum(k, 0)], own)
        gains[seat] = (np.nan_to_num(new - own), data, rows)
    return gains


class CellBid(NamedTuple):
    """A model cell where a constant bid beat the model's own bids."""

    group: int          # sum of the heard bids, capped (0: none heard)
    column: int         # the cell's strength column
    bid: int
    gain: float         # mean signed points per deal over the model's bids
    se: float           # its standard error
    deals: int


def cell_bids(weights: np.ndarray, data: SeatData) -> list[CellBid]:
    """The model cells of one seat where a constant bid beats the model's own bids by more
    than CELL_Z standard errors on data's deals (see the module notes). weights:
    float32[G, F, B+1], the seat's current weights. For the trump chooser a deal counts
    once, in the cell of the trump its model names (a constant bid there changes the bid
    under that trump, not the trump: kernel.policies.model_expects)."""
    y = data.run.signed()
    rows, k = joint_choice(weights, data)
    y = y[rows]
    own = y[np.arange(len(rows)), np.maximum(k, 0)]
    valid = (k >= 0) & ~np.isnan(own)
    h = data.columns.shape[1] - 2
    cell = data.group[rows] * weights.shape[1] + data.columns[rows, h + 1]
    out: list[CellBid] = []
    for key in np.unique(cell[valid]):
        idx = valid & (cell == key)
        n = int(idx.sum())
        if n < MIN_CELL:
            continue
        # where the rules forbid the constant bid the gated cell bids as the model did
        gain = np.nan_to_num(y[idx] - own[idx, None])
        mean = gain.mean(axis=0)
        se = gain.std(axis=0, ddof=1) / math.sqrt(n)
        best = int(np.argmax(mean))
        g, col = divmod(int(key), weights.shape[1])
        if mean[best] > CELL_Z * se[best] and not np.isnan(weights[g, col, data.run.bids[best]]):
            out.append(CellBid(g, col, int(data.run.bids[best]), float(mean[best]),
                               float(se[best]), n))
    return out


def _set_cell_bid(column: np.ndarray, bid: int) -> None:
    """Make a strength column's cell bid `bid` (float32[B+1], in place): CELL_BID on that
    bid's weight, taken off any other bid an earlier check gave the cell."""
    column[column > CELL_BID / 2] -= CELL_BID
    column[bid] += CELL_BID


def gate_cells(v: Variant, h: int, deals: int, seed: int, workers: int | None,
               echo: Callable[[str], None],
               held_out: int | None = None) -> dict[str, float | int | bool]:
    """Give the model's cells at size h a constant bid where one beats the model (see the
    module notes). Each cell found is judged on its own on the held-out deals, as the
    deviation of its seat alone: kept when the cell's hands gain there. (Judging the cells
    together drowned a cell's gain, a few points per hundred of its seat's hands, in the
    noise of every other seat's, and a cell that lost on fresh deals took down those that
    gained.) Returns how many cells were found, how many kept, the kept cells' held-out gain
    per seat-hand with its standard error and whether any was kept."""
    tables = compile_tables(v)
    shape = model_shape(v, tables)
    if tables.bid_model.shape != shape or np.isnan(tables.bid_model[h]).all():
        return {"cells": 0, "kept_cells": 0, "kept": False}
    model = tables.bid_model.copy()
    gated = model[h].copy()
    found: list[tuple[int, CellBid]] = []
    cell_seed = model_cells_seed(seed, h)
    trial = model.copy()
    # seat by seat in bidding order, each against the earlier seats' cells as changed: a
    # later seat's best bid after a sum of earlier bids depends on which hands make them
    for s in bidding_order(v):
        for c in cell_bids(model[h, s], seat_data(v, h, s, deals, cell_seed, workers)):
            _set_cell_bid(gated[s, c.group, c.column], c.bid)
            found.append((s, c))
        trial[h] = gated
        record_model(v, trial)
    record_model(v, model)            # judged as a deviation from the bidder before
    if not found:
        echo(f"  {h} cards: no model cell where a constant bid beats the model")
        return {"cells": 0, "kept_cells": 0, "kept": False}
    n = held_out or deals
    gains = seat_gains(v, h, gated, n, model_held_out_seed(seed, h), workers,
                       sorted({s for s, _ in found}))
    kept = model[h].copy()
    per_deal = np.zeros(n)
    cells = 0
    top = tables.score.shape[0]          # the cap of a heard sum: H + 1, "or more"
    echo(f"  {h} cards: {len(found)} model cell{'s' if len(found) > 1 else ''} where a "
         f"constant bid beat the model ({deals} deals per seat); each judged on {n} "
         f"held-out deals:")
    for s, c in found:
        gain, data, rows = gains[s]     # rows: the trump the seat names, for the chooser
        inside = (data.group[rows] == c.group) & (data.columns[rows, h + 1] == c.column)
        cell_gain = gain[inside]
        m = len(cell_gain)
        mean = float(cell_gain.mean()) if m else 0.0
        se = float(cell_gain.std(ddof=1) / math.sqrt(m)) if m > 1 else math.inf
        keep = m > 1 and mean > 0
        if keep:
            _set_cell_bid(kept[s, c.group, c.column], c.bid)
            cells += 1
            per_deal += np.where(inside, gain, 0.0) / v.players
        heard = "hearing no bid" if not data.run.earlier else \
            f"after bids summing to {c.group}{' or more' if c.group == top else ''}"
        echo(f"    seat {s}, {heard}, strength column {c.column}: bid {c.bid} gains "
             f"{mean:+.3f} ± {Z95 * se:.3f} per hand of the cell (n={m}): "
             f"{'kept' if keep else 'not kept'}")
    if cells:
        model[h] = kept
        record_model(v, model)
    gain_all = float(per_deal.mean())
    se_all = float(per_deal.std(ddof=1) / math.sqrt(n))
    echo(f"  {h} cards: {cells} of {len(found)} cells kept; together they gain "
         f"{gain_all:+.4f} ± {Z95 * se_all:.4f} per seat-hand on the held-out deals that "
         f"chose them")
    return {"cells": len(found), "kept_cells": cells, "gain": gain_all, "se": se_all,
            "kept": cells > 0}


def train_model_size(v: Variant, h: int, deals: int, seed: int, max_iter: int,
                     workers: int | None, echo: Callable[[str], None],
                     held_out: int | None = None, patience: int = PATIENCE) -> list[dict]:
    """Train the learned bidder at hand size h in place (see the module notes); returns one
    record per iteration (seed, held-out gain and its standard error, accepted)."""
    card_rates(v, h)
    tables = compile_tables(v)
    shape = model_shape(v, tables)
    model = tables.bid_model.copy() if tables.bid_model.shape == shape \
        else np.full(shape, np.nan, dtype=np.float32)
    check = model_held_out_seed(seed, h)
    held_n = held_out or deals
    history: list[dict] = []
    rejected = 0
    for it in range(max_iter):
        it_seed = model_iteration_seed(seed, h, it)
        if it_seed == check:
            raise RuntimeError("a training seed equals the held-out seed")
        candidate = np.stack([fit_seat(v, seat_data(v, h, s, deals, it_seed, workers))
                              for s in range(v.players)])
        gain, se, n = deviation_gain(v, h, candidate, held_n, check, workers)
        accepted = gain > 0
        if accepted:
            model[h] = candidate
            record_model(v, model)
            rejected = 0
        else:
            rejected += 1
        history.append({"iteration": it + 1, "seed": it_seed, "gain": gain, "se": se,
                        "held_out": n, "accepted": accepted})
        echo(f"  {h} cards, model iteration {it + 1}: fitted on {deals} fresh deals per seat; "
             f"held-out gain of deviating to it {gain:+.4f} ± {2 * se:.4f} per seat-hand "
             f"({n} deals): {'accepted' if accepted else 'rejected'}")
        if rejected >= patience:
            break
    return history
