"""Training the table bidder's auction (Hasenpfeffer): how high each seat bids, and when a
maker goes alone, chosen by forced decisions on common random numbers.

The auction table (RuleTables.bid_table of an auction game, see tables.layout.
AUCTION_LIMIT_AT and ALONE_AT) gives, per seat and hand class (expected tricks in half
tricks and trumps held, under the trump the seat would name), the highest ladder step the
seat bids to: it raises by one step while the next step is within that limit, else passes.
Raising by one is enough because a made contract scores the tricks taken, not the step
bid; the step only sets what the makers must take. Where the rules allow going alone, a
second entry per (maker seat, class of the maker's hand with the widow, under the trump it
named) says whether the maker goes alone.

For one hand size, starting from the current bidder (the table where it has entries, else
the heuristic), each iteration:

  auction  Deal `deals` FRESH deals (a new seed per iteration). Seat by seat in auction
           order, play every deal once per highest step 0..S of that seat (the kernel's
           L.AUCTION_SEAT / L.AUCTION_LIMIT slots: the deal, the others' policies and every
           random number the same each time), everyone else on the table as the earlier
           seats have just left it. The value of a deal is the seat's side's score minus the
           other side's (the hand's share of a race to a target). Per class with at least
           MIN_CELL deals the step with the best mean is the cell's, moving off the current
           step only when its paired gain is above two standard errors (noise cannot make
           cells cycle).
  alone    (allow_alone) Every deal once with the maker going alone and once not
           (L.ALONE_FORCE), the same rule per (maker seat, class).
  judge    On HELD-OUT deals (a seed no iteration deals from), the new table is played by
           one seat at a time against the previous one for the others; its gain is the mean
           over seats of that seat's side's paired gain. It goes on only when that gain is
           positive (a refused table is dropped and the next iteration starts again from
           the previous one on new deals); training stops after PATIENCE refusals in a row
           or max_iter iterations.
  keep     Best responses in a partnership game can cycle (each table beats the one before
           it), so the table kept is the iterate, the start included, with the best mean
           head-to-head margin over all the others on the held-out deals (a round robin:
           one side bids by one table, the other side by the other, both seatings).
  check    On deals no step saw (auction_check_seeds), the kept table's margin over the
           heuristic auction, head to head, and the gain of one seat deviating to one more
           best response from it: the figures `bidlab train` stores with the table (FIGURES)
           and the report shows.

Nothing is decided on the deals it was fitted on. Defending alone is never chosen (as the
heuristic), and the discard stays the heuristic's: both are named in the note of the policy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from simulate.hands.job import Job, make_job
from simulate.hands.simulate import records_arrays
from simulate.kernel.hand import H_CONTRACT, H_MAKER, H_TRUMP, H_VOIDED, S_SCORE
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables.bidder import table_hand_class
from simulate.tables.compile import compile_tables
from simulate.tables.trained import trained_source

MIN_CELL = 300     # deals a class needs before its entry is trained
SIGNIFICANT = 2.0  # standard errors by which a new entry must beat the current one
PATIENCE = 2       # refused tables in a row (each from fresh deals) before training stops


def auction_iteration_seed(seed: int, hand_size: int, iteration: int) -> int:
    """The seed of the fresh deals of one auction-training iteration (0-based)."""
    return _derive(f"bidlab-auction:{seed}:{hand_size}:{iteration}")


def auction_held_out_seed(seed: int, hand_size: int) -> int:
    """The seed of the held-out deals that judge every candidate auction table."""
    return _derive(f"bidlab-auction-held-out:{seed}:{hand_size}")


def auction_check_seeds(seed: int, hand_size: int) -> tuple[int, int]:
    """The seeds of the kept table's check: the fresh deals of one more best response, and
    the deals that judge it (and the kept table against the heuristic auction)."""
    return (_derive(f"bidlab-auction-check:{seed}:{hand_size}"),
            _derive(f"bidlab-auction-judge:{seed}:{hand_size}"))


FIGURES = ("hand_size", "deals", "held_out", "iterations", "kept_iteration",
           "margin_vs_heuristic", "margin_vs_heuristic_se", "deviation_gain", "deviation_se")


def _derive(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


def auction_order(v: Variant) -> list[int]:
    """Seats in the order they first speak in the auction."""
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    return [(first + j) % v.players for j in range(v.players)]


def auction_class(v: Variant, h: int, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(expected-tricks bin, trumps held) of each hand before the widow, under the trump its
    holder would name (the largest expected tricks among the rules' trump choices, the first
    on a tie), exactly as the kernel's table_auction classes it."""
    tables = compile_tables(v)
    rate = tables.card_rate[h]
    choices = [int(t) for t in tables.P[L.TRUMP_CHOICE0:L.TRUMP_CHOICE0
                                        + int(tables.P[L.N_TRUMP_CHOICES])]]
    masks = np.asarray(masks, dtype=np.uint64)
    D = rate.shape[1]
    bits = ((masks[:, None] >> np.arange(D, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    est = np.stack([np.where(bits, rate[t], 0.0).cumsum(axis=1)[:, -1] for t in choices], axis=1)
    named = np.array(choices, dtype=np.int64)[np.argmax(est, axis=1)]
    return class_under(v, h, masks, named)


def class_under(v: Variant, h: int, masks: np.ndarray, trumps: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(expected-tricks bin, trumps held, capped as the table is) of each hand under the
    given trumps, exactly as the kernel's auction_entry classes it."""
    tables = compile_tables(v)
    k, held = table_hand_class(tables.card_rate[h], tables.suit_mask,
                               tables.bid_table.shape[2], masks, trumps)
    return k, np.minimum(held, tables.bid_table.shape[3] - 1)


def _records(job: Job, slots: dict[int, int], workers: int | None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hand_out, seat_out, dealt masks) of the job's hands with rule-vector slots set."""
    P = job.tables.P.copy()
    for slot, value in slots.items():
        P[slot] = value
    out = records_arrays(dataclasses.replace(job, tables=dataclasses.replace(job.tables, P=P)),
                         workers)
    return out.hand_out, out.seat_out, out.masks


def side_margin(v: Variant, seat_out: np.ndarray, seat: int) -> np.ndarray:
    """float64[N]: the seat's side's score minus the mean score of the other sides' seats."""
    score = seat_out[:, :, S_SCORE].astype(np.float64)
    own = np.array([v.team_of(s) == v.team_of(seat) for s in range(v.players)])
    return score[:, own].mean(axis=1) - score[:, ~own].mean(axis=1)


def _choose(values: np.ndarray, keys: np.ndarray, entries: np.ndarray) -> tuple[int, int]:
    """Set each class (keys: int[N, 2]) with at least MIN_CELL deals to the column of
    `values` (float64[N, K]) with the best mean, off its current entry only on a clear
    paired gain; entries: the table's view [k, trumps] (int8, -1 untrained) changed in
    place. Returns (classes trained, classes changed)."""
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    trained = changed = 0
    for g, (k, t) in enumerate(uniq):
        rows = values[inverse == g]
        if len(rows) < MIN_CELL:
            continue
        trained += 1
        best = int(np.argmax(rows.mean(axis=0)))
        current = int(entries[k, t])
        if current == best:
            continue
        if 0 <= current < rows.shape[1]:
            diff = rows[:, best] - rows[:, current]
            if diff.mean() <= SIGNIFICANT * diff.std(ddof=1) / math.sqrt(len(diff)):
                continue
        entries[k, t] = best
        changed += 1
    return trained, changed


def train_auction_step(v: Variant, h: int, deals: int, seed: int, workers: int | None
                       ) -> dict[str, int]:
    """One iteration on the deals of `seed`, in the configuration's own table (which the
    kernel reads) at size h: every seat's highest steps in auction order, each a best
    response to the table as the earlier seats have just left it, then the lone calls."""
    tables = compile_tables(v)
    table = tables.bid_table[h]
    n_steps = int(tables.P[L.N_STEPS])
    base = make_job(v, h, deals, seed, "precision", "table", None, None, None)
    out = {"auction_cells": 0, "auction_changed": 0, "alone_cells": 0, "alone_changed": 0}
    for s in auction_order(v):
        margins = np.empty((deals, n_steps + 1))
        masks = np.zeros(deals, np.uint64)
        for limit in range(n_steps + 1):
            _, seat_out, dealt = _records(base, {L.AUCTION_SEAT: s, L.AUCTION_LIMIT: limit},
                                          workers)
            margins[:, limit] = side_margin(v, seat_out, s)
            masks = dealt[:, s]                # the same deals every time
        k, held = auction_class(v, h, masks)
        a, c = _choose(margins, np.stack([k, held], axis=1),
                       table[s, :, :, L.AUCTION_LIMIT_AT])
        out["auction_cells"] += a
        out["auction_changed"] += c
    if not int(tables.P[L.ALLOW_ALONE]):
        return out
    plays = [_records(base, {L.ALONE_FORCE: call}, workers) for call in (0, 1)]
    hand_out, _, dealt = plays[0]
    maker = hand_out[:, H_MAKER].astype(np.int64)
    contract = hand_out[:, H_CONTRACT].astype(np.int64)
    # a call is a choice only where a maker stands and its step is not played alone anyway
    choice = (hand_out[:, H_VOIDED] == 0) & (maker >= 0) & \
        (tables.ladder[np.maximum(contract, 0), 2] == 0)
    for s in range(v.players):
        rows = np.flatnonzero(choice & (maker == s))
        if not len(rows):
            continue
        margins = np.stack([side_margin(v, p[1][rows], s) for p in plays], axis=1)
        with_widow = dealt[rows, s] | dealt[rows, v.players]
        k, held = class_under(v, h, with_widow, hand_out[rows, H_TRUMP].astype(np.int64))
        a, c = _choose(margins, np.stack([k, held], axis=1), table[s, :, :, L.ALONE_AT])
        out["alone_cells"] += a
        out["alone_changed"] += c
    return out


def head_to_head(v: Variant, h: int, a: np.ndarray, b: np.ndarray, deals: int, seed: int,
                 workers: int | None) -> np.ndarray:
    """float64[deals]: per deal of `seed`, the margin of the side bidding by auction table
    `a` (at size h) over the side bidding by `b`, averaged over both seatings (a on the
    first bidder's side, then on the other)."""
    tables = compile_tables(v)
    live = tables.bid_table[h].copy()
    job = make_job(v, h, deals, seed, "precision", "table", None, None, None)
    sides = sorted({v.team_of(s) for s in range(v.players)})
    margin = np.zeros(deals)
    try:
        for side in sides:
            own = [s for s in range(v.players) if v.team_of(s) == side]
            for s in range(v.players):
                tables.bid_table[h, s] = a[s] if s in own else b[s]
            _, seat_out, _ = _records(job, {}, workers)
            margin += side_margin(v, seat_out, own[0]) / len(sides)
    finally:
        tables.bid_table[h] = live
    return margin


def round_robin(v: Variant, h: int, candidates: list[np.ndarray], deals: int, seed: int,
                workers: int | None) -> np.ndarray:
    """float64[m, m]: the mean head-to-head margin of each candidate table over each other
    on the deals of `seed` (antisymmetric, 0 on the diagonal)."""
    m = len(candidates)
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            out[i, j] = float(head_to_head(v, h, candidates[i], candidates[j], deals, seed,
                                           workers).mean())
            out[j, i] = -out[i, j]
    return out


def deviation_gain(v: Variant, h: int, candidate: np.ndarray, deals: int, seed: int,
                   workers: int | None) -> tuple[float, float]:
    """(mean gain, its standard error) on the deals of `seed`: each seat in turn bids by
    `candidate` (its auction table at size h) while the others keep the current one; the
    gain of a deal is the mean over seats of the deviating seat's side's margin change."""
    tables = compile_tables(v)
    current = tables.bid_table[h].copy()
    job = make_job(v, h, deals, seed, "precision", "table", None, None, None)
    _, seat_out, _ = _records(job, {}, workers)
    base = [side_margin(v, seat_out, s) for s in range(v.players)]
    gain = np.zeros(deals)
    try:
        for s in range(v.players):
            tables.bid_table[h, s] = candidate[s]
            _, seat_out, _ = _records(job, {}, workers)
            gain += (side_margin(v, seat_out, s) - base[s]) / v.players
            tables.bid_table[h, s] = current[s]
    finally:
        tables.bid_table[h] = current
    return float(gain.mean()), float(gain.std(ddof=1) / math.sqrt(deals))


def train_auction(v: Variant, h: int, deals: int, seed: int, max_iter: int,
                  workers: int | None, echo: Callable[[str], None],
                  held_out: int | None = None, patience: int = PATIENCE) -> dict[str, Any]:
    """Train the auction table at hand size h in place (see the module notes); returns the
    iterations' figures and the round robin that chose among them."""
    if v.bidding_form != "auction":
        raise ValueError(f"{v.name} has no auction")
    tables = compile_tables(v)
    check_seed = auction_held_out_seed(seed, h)
    held_n = held_out or deals
    iterates = [tables.bid_table[h].copy()]
    numbers = [0]                 # the iteration each iterate came from (0: the start)
    history = []
    refused = 0
    for it in range(max_iter):
        it_seed = auction_iteration_seed(seed, h, it)
        if it_seed == check_seed:
            raise RuntimeError("a training seed equals the held-out seed")
        figures = train_auction_step(v, h, deals, it_seed, workers)
        candidate = tables.bid_table[h].copy()
        tables.bid_table[h] = iterates[-1]
        gain, se = deviation_gain(v, h, candidate, held_n, check_seed, workers)
        kept = gain > 0
        tables.bid_table[h] = candidate if kept else iterates[-1]
        history.append(figures | {"iteration": it + 1, "gain": gain, "se": se, "kept": kept})
        alone = (f", lone calls: {figures['alone_cells']} classes, "
                 f"{figures['alone_changed']} changed" if int(tables.P[L.ALLOW_ALONE]) else "")
        echo(f"  {h} cards, auction iteration {it + 1}: highest steps: "
             f"{figures['auction_cells']} classes, {figures['auction_changed']} changed{alone}"
             f" on fresh deals; held-out gain of one seat deviating {gain:+.4f} ± {2 * se:.4f}"
             f" points per hand ({held_n} deals, {'kept' if kept else 'not kept'})")
        if not kept:
            refused += 1
            if refused >= patience:
                break
            continue
        refused = 0
        iterates.append(candidate)
        numbers.append(it + 1)
    # best responses in a partnership game can cycle (each beats the one before), so the
    # table kept is the iterate with the best mean margin over all the others, head to head
    table = round_robin(v, h, iterates, held_n, check_seed, workers)
    mean = table.sum(axis=1) / max(len(iterates) - 1, 1)
    best = int(np.argmax(mean))
    tables.bid_table[h] = iterates[best]
    echo(f"  {h} cards: kept the table of "
         f"{'iteration ' + str(numbers[best]) if best else 'the start'}"
         f" (mean head-to-head margin over the {len(iterates) - 1} other tables "
         f"{mean[best]:+.4f} points per hand; over the start {table[best, 0]:+.4f}; "
         f"{held_n} held-out deals)")
    checked = check_kept(v, h, deals, held_n, seed, workers, echo)
    return {"hand_size": h, "held_out_seed": check_seed, "iterations": history,
            "round_robin": table, "kept": numbers[best],
            "figures": checked | {"iterations": float(len(history)),
                                  "kept_iteration": float(numbers[best])}}


def stored_figures(v: Variant) -> pd.DataFrame | None:
    """The kept auction tables' figures (FIGURES, one row per hand size) stored in the
    trained file the bidder of `v` is read from, or None where there are none."""
    source = trained_source(v, compile_tables(v).bid_table.shape)
    if source is None or source[1] is None or not set(FIGURES) <= set(source[1].columns):
        return None
    frame = pd.DataFrame(source[1].values, columns=source[1].columns)[list(FIGURES)]
    return frame.astype({"hand_size": int, "deals": int, "held_out": int, "iterations": int,
                         "kept_iteration": int})


def check_kept(v: Variant, h: int, deals: int, judged: int, seed: int, workers: int | None,
               echo: Callable[[str], None]) -> dict[str, float]:
    """The kept table's published figures, on deals no training step saw: its mean
    head-to-head margin over the heuristic auction, and how much one seat gains by deviating
    to one more best response from it (fitted on fresh deals, judged on others), each with
    its standard error. The configuration's table is left as it was."""
    tables = compile_tables(v)
    kept = tables.bid_table[h].copy()
    fresh_seed, judge_seed = auction_check_seeds(seed, h)
    margin = head_to_head(v, h, kept, np.full_like(kept, -1), judged, judge_seed, workers)
    try:
        train_auction_step(v, h, deals, fresh_seed, workers)
        fresh = tables.bid_table[h].copy()
    finally:
        tables.bid_table[h] = kept
    gain, se = deviation_gain(v, h, fresh, judged, judge_seed, workers)
    out = {"hand_size": float(h), "deals": float(deals), "held_out": float(judged),
           "margin_vs_heuristic": float(margin.mean()),
           "margin_vs_heuristic_se": float(margin.std(ddof=1) / math.sqrt(len(margin))),
           "deviation_gain": gain, "deviation_se": se}
    echo(f"  {h} cards, the kept table on {judged} new deals: "
         f"{out['margin_vs_heuristic']:+.4f} ± {2 * out['margin_vs_heuristic_se']:.4f} points "
         f"per hand head to head over the heuristic auction; one seat deviating to a fresh "
         f"best response gains {gain:+.4f} ± {2 * se:.4f}")
    return out
