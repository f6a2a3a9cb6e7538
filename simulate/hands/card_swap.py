"""Marginal card values: each card swapped for a reference card on the same deals.

A pair is one deal played twice with the same seed: as dealt, and with the card x and the
reference card r exchanging places in the deck (simulate.hands.relabel), so the seat that
held x holds r instead and every other card of every seat (and the turned-up card) is the
same. Where the deck leaves cards outside the hands, a pair counts only when r lay outside
every hand (undealt, in the stock or the widow), so the swap touches that seat's hand alone;
where every card is dealt (Horseshoes), r can only come from another seat's hand, and the
pair counts when it did (column `swapped_with`). The paired differences in tricks and in
score of x's seat are summed per card and seat; each deal gives at most one pair per card,
so the deal is the unit of the intervals.

The trump is given (forced on whoever names it; a turned-up trump is a condition on the
deal), and the values hold for the policies that played (bidding included: the seat bids
its changed hand).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from simulate.hands.card_attribution import is_trump
from simulate.hands.chunks import RecordArrays, run_records_chunk
from simulate.hands.job import Job, make_job
from simulate.hands.relabel import swap_cards
from simulate.kernel.hand import H_TURN, S_SCORE, S_TRICKS
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.runner.backends import run_local
from simulate.util.checks import worker_count
from simulate.util.stats import Z95

ONE = np.uint64(1)


def reference_card(v: Variant, t: int, use: Sequence[int] | np.ndarray | None = None) -> int:
    """The default reference card under trump t among the cards `use` (default: the deck):
    the lowest natural card of a side suit (the lowest card overall under no trump), a card
    that takes almost nothing."""
    power, eff = v.power_table[t], v.eff_suit_table[t]
    pool_all = [int(c) for c in (range(len(v.cards)) if use is None else use)]
    plain = [c for c in pool_all if not v.cards.cards[c].special and eff[c] >= 0 and
             (t == 4 or eff[c] != t)]
    return min(plain or pool_all, key=lambda c: (power[c], c))


def _holders(masks: np.ndarray, card: int, n: int) -> np.ndarray:
    """The seat holding `card` in each deal (-1: no seat)."""
    out = np.full(len(masks), -1, np.int64)
    bit = ONE << np.uint64(card)
    for s in range(n):
        out[(masks[:, s] & bit) != 0] = s
    return out


def pair_differences(a: RecordArrays, b: RecordArrays, x: int, r: int, n: int,
                     outside: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seat, tricks difference, score difference) of each usable pair: the deal as dealt
    (a) minus the same deal with x and r exchanged (b), for the seat that held x. Usable:
    both runs dealt the same deal (a turned-up trump redealt alike), x's seat does not also
    hold r, neither card was turned up, and r lay outside every hand (`outside`) or in
    another seat's."""
    seat = _holders(a.masks, x, n)
    same = (a.masks == b.masks).all(axis=1) & (a.hand_out[:, H_TURN] == b.hand_out[:, H_TURN])
    keep = same & (seat >= 0)
    if x != r:
        other = _holders(a.masks, r, n)
        turn = a.hand_out[:, H_TURN]
        keep &= (other != seat) & (turn != x) & (turn != r)
        keep &= (other < 0) if outside else (other >= 0)
    idx = np.flatnonzero(keep)
    s = seat[idx]
    tricks = a.seat_out[idx, s, S_TRICKS] - b.seat_out[idx, s, S_TRICKS]
    score = a.seat_out[idx, s, S_SCORE] - b.seat_out[idx, s, S_SCORE]
    return s, tricks.astype(np.float64), score.astype(np.float64)


def _summaries(seat: np.ndarray, d: np.ndarray, n: int) -> list[tuple[str, int, float, float]]:
    """(seat, pairs, mean, standard error) by seat and pooled ("all")."""
    out = []
    for label, m in [(str(s), seat == s) for s in range(n)] + [("all", np.ones_like(seat, bool))]:
        x = d[m]
        k = len(x)
        mean = float(x.mean()) if k else np.nan
        se = float(x.std(ddof=1) / np.sqrt(k)) if k > 1 else np.nan
        out.append((label, k, mean, se))
    return out


def marginal_values(v: Variant, hand_size: int, trump: str, deals: int, seed: int = 0,
                    play: str | Sequence[str] = "precision",
                    bid: str | Sequence[str] = "table", round_index: int | None = None,
                    cards: Sequence[str] | None = None, reference: str | None = None,
                    workers: int | None = None) -> pd.DataFrame:
    """Marginal value of each card (default: every card) against the reference card under
    trump `trump`, from `deals` deals played as dealt and once more per card with the two
    cards exchanged (see the module notes). One row per (card, seat) and per card pooled
    (seat "all"): pairs, the mean paired difference in tricks and in score with 95% normal
    intervals (the deal as unit), the reference card and where it came from. The
    reference's own row is exactly 0. Raises BidlabInputError for a trump the rules cannot
    have here."""
    base = make_job(v, hand_size, deals, seed, play, bid, trump, None, round_index)
    n = v.players
    t = v.trump_index(trump)        # a fixed trump is not "forced": the job keeps -1
    r = v.deck.index(reference) if reference else reference_card(v, t)
    xs = [v.deck.index(c) for c in cards] if cards else list(range(len(v.cards)))
    outside = len(v.cards) > n * hand_size
    trump_name = TRUMP_NAMES[t]
    a = run_records_chunk(base, 0, deals)

    def work(i: int) -> list[dict[str, object]]:
        x = xs[i]
        job: Job = dataclasses.replace(base, tables=swap_cards(base.tables, x, r))
        b = a if x == r else run_records_chunk(job, 0, deals)
        seat, dt, ds = pair_differences(a, b, x, r, n, outside)
        rows = []
        for (label, k, mt, st), (_, _, ms, ss) in zip(_summaries(seat, dt, n),
                                                    _summaries(seat, ds, n), strict=True):
            rows.append({"trump": trump_name, "card": v.cards.names[x], "seat": label,
                         "is_trump": is_trump(v, trump_name, v.cards.names[x]),
                         "pairs": k, "tricks": mt, "tricks_lo": mt - Z95 * st,
                         "tricks_hi": mt + Z95 * st, "score": ms, "score_lo": ms - Z95 * ss,
                         "score_hi": ms + Z95 * ss, "reference": v.cards.names[r],
                         "swapped_with": "undealt" if outside else "another hand",
                         "deals": deals})
        return rows

    parts = run_local(len(xs), work, worker_count(workers))
    return pd.DataFrame([row for part in parts for row in part])
