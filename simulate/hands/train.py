"""Self-play training of the `table` bidder on fresh deals, selected on held-out deals.

For each hand size, start from the configuration's current table (its trained file where
there is one, else every cell untrained, i.e. the heuristic) and iterate:

  train     Deal `deals` FRESH hands (a new seed each iteration, derived from the training
            seed, the hand size and the iteration, so the table is never fitted to one
            sample). For every seat, replay each deal once per candidate bid (the seat's bid
            forced, everyone else bidding from the current table, common random numbers:
            the deals and every later choice are the same but for the consequences of that
            bid), and set each (seat, hand class, bids before) cell with at least MIN_CELL
            deals to the bid with the best mean score (highest, or lowest where low totals
            win), moving off the cell's current bid only for a gain of two standard errors
            of the paired difference on those deals (so noise cannot make cells cycle).
  select    Play the candidate table in every seat on HELD-OUT deals (a seed derived apart
            from every training seed; no iteration ever deals from it) and take the mean
            score per seat-hand, signed so that larger is better. The same held-out deals
            judge every candidate, so two tables are compared on paired deals. The table
            with the best held-out score so far is kept.
  stop      when the held-out score has not improved on the best for `patience` iterations
            in a row, or after `max_iter` iterations; the best table (possibly the starting
            one) is what is saved. The training deals' own cell changes decide nothing.

"Bids before" is the sum of the bids the seat has heard: the earlier seats' where bidding is
sequential, none where bids are simultaneous (Hoffer), as in the kernel. At one card, where
the configuration has the exact informed one-card table (simulate.reference.informed), the
kernel bids from it and that size's cells are not trained.

The files the tables live in (format, folders, load and save) are simulate.tables.trained.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.hands import bidder_quality
from simulate.hands.bidder_quality import cards
from simulate.hands.job import Job, card_rates, make_job
from simulate.hands.simulate import records_arrays
from simulate.hands.train_auction import FIGURES as AUCTION_FIGURES
from simulate.hands.train_auction import stored_figures as stored_auction_figures
from simulate.hands.train_auction import train_auction
from simulate.hands.train_model import gate_cells, train_model_size
from simulate.kernel.hand import H_OVERRIDDEN, H_TRUMP, S_BID, S_SCORE
from simulate.reference.informed import informed_one_card_optimum
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables.bidder import table_hand_class
from simulate.tables.compile import compile_tables, record_one_card, trained_sizes
from simulate.tables.trained import Quality, save_trained, user_dir

MIN_CELL = 40              # deals a cell needs before its bid is trusted
TRAIN_SEED = 0x7AB1E
PATIENCE = 2               # iterations without a better held-out score before stopping


def iteration_seed(seed: int, hand_size: int, iteration: int) -> int:
    """The seed of the fresh training deals of one iteration (0-based) at one hand size."""
    return _derive(f"bidlab-train:{seed}:{hand_size}:{iteration}")


def held_out_seed(seed: int, hand_size: int) -> int:
    """The seed of the held-out deals that select among the tables of one hand size; no
    iteration_seed of any hand size uses it (checked where it is used)."""
    return _derive(f"bidlab-train-held-out:{seed}:{hand_size}")


def _derive(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


def held_out_scores(v: Variant, h: int, deals: int, seed: int, workers: int | None,
                    sign: int) -> np.ndarray:
    """float64[deals]: each held-out deal's mean score per seat, times `sign` (larger is
    better), with every seat playing precision and bidding from the current table."""
    job = make_job(v, h, deals, seed, "precision", "table", None, None, None)
    _, seat_out, _ = _run_records(job, workers)
    return np.asarray(sign * seat_out[:, :, S_SCORE].mean(axis=1), dtype=np.float64)


def train_hand_size(v: Variant, h: int, deals: int, seed: int, max_iter: int,
                    workers: int | None, echo: Callable[[str], None],
                    held_out: int | None = None, patience: int = PATIENCE) -> dict[str, Any]:
    """Train the table bidder's cells for hand size h in place (see the module notes) and
    leave the table with the best held-out score there; returns, per iteration, the cells
    trained and changed on its fresh deals and the candidate's held-out score."""
    card_rates(v, h)
    tables = compile_tables(v)
    n = v.players
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    order = [(first + j) % n for j in range(n)]
    prev_cap = tables.bid_table.shape[4] - 1
    sign = -1 if v.rule("end.better", "higher") == "lower" else 1   # maximise sign * score
    heard = v.bidding_form != "simultaneous"   # simultaneous bidders hear no earlier bid
    if not heard:
        tables.bid_table[h, :, :, :, 1:] = -1   # cells by a sum of bids nobody hears
    check_seed = held_out_seed(seed, h)
    held_n = held_out or deals
    best_scores = held_out_scores(v, h, held_n, check_seed, workers, sign)
    best_table = tables.bid_table[h].copy()
    best_iter = 0
    echo(f"  {h} cards, start: held-out score {sign * best_scores.mean():+.4f} per seat-hand "
         f"({held_n} deals)")
    history: list[dict[str, Any]] = []
    for it in range(max_iter):
        it_seed = iteration_seed(seed, h, it)
        if it_seed == check_seed:    # never train on the held-out deals
            raise RuntimeError("a training seed equals the held-out seed")
        trained, changed = _train_step(v, h, deals, it_seed, order, heard, prev_cap, sign,
                                       workers, tables.bid_table)
        scores = held_out_scores(v, h, held_n, check_seed, workers, sign)
        diff = scores - best_scores
        gain = float(diff.mean())
        se = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else 0.0
        better = gain > 0
        if better:
            best_scores, best_table, best_iter = scores, tables.bid_table[h].copy(), it + 1
        history.append({"iteration": it + 1, "seed": it_seed, "cells": trained,
                        "changed": changed, "held_out": float(sign * scores.mean()),
                        "gain": gain, "se": se, "kept": better})
        echo(f"  {h} cards, iteration {it + 1}: {trained} cells, {changed} changed "
             f"({100 * changed / max(trained, 1):.1f}%) on fresh deals; held-out score "
             f"{sign * scores.mean():+.4f}, {gain:+.4f} ± {2 * se:.4f} on the best "
             f"({'kept' if better else 'not better'})")
        if it + 1 - best_iter >= patience:
            break
    tables.bid_table[h] = best_table
    echo(f"  {h} cards: kept the table of "
         f"{'iteration ' + str(best_iter) if best_iter else 'the start'} (held-out score "
         f"{sign * best_scores.mean():+.4f})")
    return {"hand_size": h, "held_out_seed": check_seed, "best_iteration": best_iter,
            "iterations": history}


def _train_step(v: Variant, h: int, deals: int, seed: int, order: list[int], heard: bool,
                prev_cap: int, sign: int, workers: int | None,
                bid_table: np.ndarray) -> tuple[int, int]:
    """One iteration on the deals of `seed`: every seat's cells moved, in bidding order, to
    their best bid where the paired gain is clear; returns (cells trained, cells changed)."""
    tables = compile_tables(v)
    changed = trained = 0
    for s in order:
        earlier = order[:order.index(s)] if heard else []
        scores = np.full((deals, h + 1), -np.inf)
        cls = held = prev = None
        base = make_job(v, h, deals, seed, "precision", "table", None, None, None)
        for b in range(h + 1):
            P = base.tables.P.copy()
            P[L.OVERRIDE_SEAT], P[L.OVERRIDE_BID] = s, b
            job = dataclasses.replace(base, tables=dataclasses.replace(base.tables, P=P))
            hand_out, seat_out, mask_out = _run_records(job, workers)
            ok = hand_out[:, H_OVERRIDDEN] == 1
            scores[ok, b] = sign * seat_out[ok, s, S_SCORE]
            if cls is None:
                cls, held = table_hand_class(tables.card_rate[h], tables.suit_mask,
                                             bid_table.shape[2], mask_out[:, s],
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
            current = int(bid_table[h, s, k, t, p])
            if current == best:
                continue
            if current >= 0 and valid[current]:
                # move off the current bid only when the paired gain is clear (two
                # standard errors on the same deals), so noise cannot make cells cycle
                diff = filled[:, best] - filled[:, current]
                if diff.mean() <= 2.0 * diff.std(ddof=1) / np.sqrt(len(diff)):
                    continue
            changed += 1
            bid_table[h, s, k, t, p] = best
    return trained, changed


def _run_records(job: Job, workers: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = records_arrays(job, workers)
    return out.hand_out, out.seat_out, out.masks


def train(v: Variant, hand_sizes: list[int] | None = None, deals: int = 30_000,
          seed: int = TRAIN_SEED, max_iter: int = 8, workers: int | None = None,
          folder: Path | None = None, echo: Callable[[str], None] = print,
          held_out: int | None = None, patience: int = PATIENCE, model_deals: int = 100_000,
          model_iter: int = 3, quality_hands: int = bidder_quality.HANDS) -> Path:
    """Train the `table` bidder by self-play, then its learned model on top
    (simulate.hands.train_model), and save both; returns the file written.

    v: the variant (an auction game trains its auction table instead: deals, seed, max_iter,
    held_out and patience apply, the model and quality options do not). hand_sizes: the
    sizes to train (default: every size of the schedule). deals: fresh deals per iteration,
    candidate bid and seat (at least 1000). seed: the training seed (every iteration's deals
    and the held-out deals derive from it). max_iter: iterations per size at most. held_out:
    held-out deals that select the table (default: `deals`). patience: stop after this many
    iterations without a better held-out score (max_iter 0: keep the class table as it is).
    model_deals: fresh deals per seat and iteration for the learned model (0: no model; its
    held-out deals are half as many), then its cells' constant bids
    (train_model.gate_cells); model_iter: its iterations at most (0: keep its weights,
    choose only the cells' constant bids).
    workers: local threads. folder: where the file goes (default: the user's cache
    folder). echo: where progress lines go.
    quality_hands: held-out hands behind each size's exploitability, measured before and
    after training it and stored with the bidder (simulate.hands.bidder_quality; 0: none).
    """
    sizes = sorted(set(hand_sizes or v.schedule))
    for h in sizes:
        v.check_hand_size(h)
    if max_iter < 0 or model_iter < 0:
        raise BidlabInputError(f"iterations={max_iter}, model iterations={model_iter}: at least "
                               "0 each")
    if model_deals and model_deals < 2_000:
        raise BidlabInputError(f"model_deals={model_deals}: 0 (no model) or at least 2000")
    if deals < 1_000:
        raise BidlabInputError(f"deals={deals}: training needs at least 1000 deals per hand size")
    if held_out is not None and held_out < 1_000:
        raise BidlabInputError(f"held_out={held_out}: at least 1000 held-out deals")
    if patience < 1:
        raise BidlabInputError(f"patience={patience}: at least 1")
    if quality_hands < 0:
        raise BidlabInputError(f"quality_hands={quality_hands}: 0 (not measured) or more")
    if v.bidding_form == "auction":
        if not max_iter:
            raise BidlabInputError("iterations=0: an auction game trains only its auction "
                                   "table, so at least 1 iteration")
        return _train_auction(v, sizes, deals, seed, max_iter, workers, folder, echo, held_out,
                              patience)
    one_card = None
    if 1 in sizes:
        have = compile_tables(v).one_card
        one_card = have if have.shape[0] == v.players else one_card_table(v)
        if one_card is not None:
            echo("  1 card: the exact informed optimum (simulate.reference.informed)")
            record_one_card(v, one_card)
    measured = []
    for h in sizes:
        if h == 1 and one_card is not None:
            card_rates(v, h)  # the kernel bids from the exact one-card table at one card
        else:
            if quality_hands:
                echo(f"  {cards(h)}, the bidder before training:")
                bidder_quality.measure(v, [h], hands=quality_hands, workers=workers, echo=echo)
            if max_iter:
                train_hand_size(v, h, deals, seed, max_iter, workers, echo, held_out, patience)
            if model_deals and model_iter:
                train_model_size(v, h, model_deals, seed, model_iter, workers, echo,
                                 model_deals // 2)
            if model_deals:
                gate_cells(v, h, model_deals, seed, workers, echo, model_deals // 2)
        if quality_hands:
            echo(f"  {cards(h)}, the trained bidder (held-out deals):")
            measured.append(bidder_quality.measure(v, [h], hands=quality_hands,
                                                   workers=workers, echo=echo))
    # sizes trained before (loaded with the table) stay in the file beside the new ones,
    # with the figures measured on them then
    kept = sorted(set(sizes) | set(trained_sizes(v)))
    quality = None
    if measured:
        quality = bidder_quality.as_quality(bidder_quality.merged(
            bidder_quality.stored_figures(v), pd.concat(measured)))
    return save_trained(v, compile_tables(v), kept, folder or user_dir(), one_card, quality)


def _train_auction(v: Variant, sizes: list[int], deals: int, seed: int, max_iter: int,
                   workers: int | None, folder: Path | None, echo: Callable[[str], None],
                   held_out: int | None, patience: int) -> Path:
    """train() for an auction game: the auction table of every size
    (simulate.hands.train_auction), saved with the card rates it classes hands by and the
    kept tables' figures (train_auction.FIGURES, in the file's quality arrays: an auction's
    own figures, not bidder_quality's, which judge per-player bids)."""
    rows = []
    for h in sizes:
        card_rates(v, h)
        echo(f"  {cards(h)}: the auction's highest steps"
             + (" and lone calls" if v.options.get("allow_alone") else "")
             + " by forced decisions")
        out = train_auction(v, h, deals, seed, max_iter, workers, echo, held_out, patience)
        rows.append(out["figures"])
    kept = sorted(set(sizes) | set(trained_sizes(v)))
    # sizes trained before keep the figures stored with them
    frame = pd.DataFrame(rows, columns=list(AUCTION_FIGURES))
    before = stored_auction_figures(v)
    if before is not None:
        frame = pd.concat([before[~before["hand_size"].isin(frame["hand_size"])], frame])
    frame = frame.sort_values("hand_size").reset_index(drop=True)
    quality = Quality(AUCTION_FIGURES, frame.to_numpy(dtype=np.float64))
    return save_trained(v, compile_tables(v), kept, folder or user_dir(), quality=quality)


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
