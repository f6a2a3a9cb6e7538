"""Self-play training of the `table` bidder, and the files its tables live in.

For each hand size: start from the heuristic bidder; deal `deals` hands; for every seat
replay each deal once per candidate bid (the seat's bid forced, everyone else bidding from
the current table, common random numbers: the deals and every later choice are the same
but for the consequences of that bid); set each (seat, hand class, bids before) cell to the
bid with the best mean score — highest, or lowest where low totals win (moving off a
cell's bid only for a gain of two standard errors of the paired difference); repeat until
fewer than 1% of the trained cells change. "Bids before" is the sum of the bids the seat
has heard: the earlier seats' where bidding is sequential, none where bids are simultaneous
(Hoffer), as in the kernel.

The files the tables live in (format, folders, load and save) are simulate.tables.trained.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simulate.errors import BidlabInputError
from simulate.hands.job import Job, card_rates, make_job
from simulate.hands.simulate import records_arrays
from simulate.kernel.hand import H_OVERRIDDEN, H_TRUMP, S_BID, S_SCORE
from simulate.reference.informed import informed_one_card_optimum
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables.bidder import table_hand_class
from simulate.tables.compile import compile_tables, record_one_card
from simulate.tables.trained import save_trained, user_dir

MIN_CELL = 40              # deals a cell needs before its bid is trusted
TRAIN_SEED = 0x7AB1E


def train_hand_size(v: Variant, h: int, deals: int, seed: int, max_iter: int,
                    workers: int | None, echo: Callable[[str], None]) -> dict[str, Any]:
    """Train the table bidder's cells for hand size h in place (see the module notes);
    returns how many cells each iteration trained and changed."""
    card_rates(v, h)
    tables = compile_tables(v)
    n = v.players
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    order = [(first + j) % n for j in range(n)]
    prev_cap = tables.bid_table.shape[4] - 1
    sign = -1 if v.rule("end.better", "higher") == "lower" else 1   # maximise sign * score
    history = []
    heard = v.bidding_form != "simultaneous"   # simultaneous bidders hear no earlier bid
    if not heard:
        tables.bid_table[h, :, :, :, 1:] = -1   # cells by a sum of bids nobody hears
    for it in range(max_iter):
        changed = trained = 0
        for s in order:
            earlier = order[:order.index(s)] if heard else []
            scores = np.full((deals, h + 1), -np.inf)
            cls = held = prev = None
            for b in range(h + 1):
                job = make_job(v, h, deals, seed, "precision", "table", None, None, None)
                P = job.tables.P.copy()
                P[L.OVERRIDE_SEAT], P[L.OVERRIDE_BID] = s, b
                job.tables = dataclasses.replace(job.tables, P=P)
                hand_out, seat_out, mask_out = _run_records(job, workers)
                ok = hand_out[:, H_OVERRIDDEN] == 1
                scores[ok, b] = sign * seat_out[ok, s, S_SCORE]
                if cls is None:
                    cls, held = table_hand_class(tables.card_rate[h], tables.suit_mask,
                                                 tables.bid_table.shape[2], mask_out[:, s],
                                                 hand_out[:, H_TRUMP])
                    prev = np.minimum(seat_out[:, earlier, S_BID].sum(axis=1), prev_cap) \
                        if earlier else np.zeros(deals, np.int64)
            assert cls is not None and held is not None and prev is not None
            keys = np.stack([cls, held, prev], axis=1)
            uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
            for g, (k, t, p) in enumerate(uniq):
                rows = scores[inverse.ravel() == g]
                if len(rows) < MIN_CELL:
                    continue
                valid = np.isfinite(rows).all(axis=0)
                if not valid.any():
                    continue
                filled = np.where(np.isfinite(rows), rows, 0.0)
                means = np.where(valid, filled.mean(axis=0), -np.inf)
                best = int(np.argmax(means))
                trained += 1
                current = int(tables.bid_table[h, s, k, t, p])
                if current == best:
                    continue
                if current >= 0 and valid[current]:
                    # move off the current bid only when the paired gain is clear (two
                    # standard errors on the same deals), so noise cannot make cells cycle
                    diff = filled[:, best] - filled[:, current]
                    if diff.mean() <= 2.0 * diff.std(ddof=1) / np.sqrt(len(diff)):
                        continue
                changed += 1
                tables.bid_table[h, s, k, t, p] = best
        share = changed / max(trained, 1)
        history.append({"iteration": it + 1, "cells": trained, "changed": changed})
        echo(f"  {h} cards, iteration {it + 1}: {trained} cells, {changed} changed "
             f"({100 * share:.1f}%)")
        if share < 0.01:
            break
    return {"hand_size": h, "iterations": history}


def _run_records(job: Job, workers: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = records_arrays(job, workers)
    return out.hand_out, out.seat_out, out.masks


def train(v: Variant, hand_sizes: list[int] | None = None, deals: int = 30_000,
          seed: int = TRAIN_SEED, max_iter: int = 8, workers: int | None = None,
          folder: Path | None = None, echo: Callable[[str], None] = print) -> Path:
    """Train the `table` bidder by self-play and save its tables; returns the file written.

    v: the variant (per-player bidding only). hand_sizes: the sizes to train (default: every
    size of the schedule). deals: deals per candidate bid and seat (at least 1000). seed:
    the deals' seed. max_iter: iterations per size at most (fewer once under 1% of the
    cells change). workers: local threads. folder: where the file goes (default: the user's
    cache folder). echo: where progress lines go.
    """
    if v.bidding_form == "auction":
        raise BidlabInputError(
            f"{v.name} bids in an auction: the table bidder applies to per-player bids; its "
            "auction choices use the heuristic")
    sizes = sorted(set(hand_sizes or v.schedule))
    for h in sizes:
        v.check_hand_size(h)
    if deals < 1_000:
        raise BidlabInputError(f"deals={deals}: training needs at least 1000 deals per hand size")
    one_card = one_card_table(v) if 1 in sizes else None
    if one_card is not None:
        echo("  1 card: the exact informed optimum (simulate.reference.informed)")
        record_one_card(v, one_card)
    for h in sizes:
        train_hand_size(v, h, deals, seed, max_iter, workers, echo)
    tables = compile_tables(v)
    return save_trained(v, tables, sizes, folder or user_dir(), one_card)


def one_card_table(v: Variant) -> np.ndarray | None:
    """The exact informed one-card bids of `v` as the kernel reads them (RuleTables.one_card:
    int8[n, 2**(n-1), U, D] by seat, earlier bids as bits in bidding order, turned-up card
    + 1 or 0 where trump is fixed, and card); None where the one-card round has a choice
    or a score the optimum does not cover."""
    try:
        opt = informed_one_card_optimum(v)
    except ValueError:
        return None
    n, D = v.players, len(v.cards)
    turned = any(u >= 0 for u, _, _ in opt.rules)
    table = np.full((n, 2 ** (n - 1), D + 1 if turned else 1, D), -1, dtype=np.int8)
    for (u, seat, hist), rule in opt.rules.items():
        code = sum(b << i for i, b in enumerate(hist))
        for card, bid in rule.items():
            table[seat, code, u + 1 if turned else 0, card] = bid
    return table
