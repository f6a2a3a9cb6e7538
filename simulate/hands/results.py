"""HandResults: what a run of hands produced, as pandas tables, summaries and traces."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from simulate.kernel.chunk import run_traces
from simulate.kernel.hand import (
    H_ALONE,
    H_CONTRACT,
    H_MAKER,
    H_SIZE,
    H_TRUMP,
    H_TURN,
    H_VOIDED,
    S_BID,
    S_FOOLED,
    S_SCORE,
    S_TRICKS,
)
from simulate.reference.engine import HandRecord
from simulate.rules.cards import TRUMP_NAMES
from simulate.rules.variant import Variant
from simulate.tables import layout as L

if TYPE_CHECKING:
    from simulate.hands.chunks import RecordArrays, SummaryArrays
    from simulate.hands.job import Job

DECISION_KINDS = {L.D_TRUMP: "trump", L.D_BID: "bid", L.D_AUCTION: "auction",
                  L.D_DISCARD: "discard", L.D_ALONE: "alone", L.D_DEFEND_ALONE: "defend_alone",
                  L.D_PLAY: "play"}


@dataclass(frozen=True)
class HandConfig:
    """The exact configuration behind a result: label every figure with it."""

    variant: str
    hand_size: int
    hands: int
    seed: int
    play: tuple[str, ...]
    bid: tuple[str, ...]
    trump: str | None
    fixed: dict[int, list[str]] = field(default_factory=dict)
    round_index: int | None = None
    constrained: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain values."""
        return asdict(self)


class _MaskNames:
    """Masks → canonical card strings, a byte at a time through lookup tables."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.tables = []
        for byte in range(8):
            table = []
            for value in range(256):
                table.append(tuple(names[byte * 8 + b] for b in range(8)
                                   if value >> b & 1 and byte * 8 + b < len(names)))
            self.tables.append(table)

    def __call__(self, masks: np.ndarray) -> list[str]:
        as_bytes = masks.astype("<u8").view(np.uint8).reshape(-1, 8)
        tables = self.tables
        out = []
        for row in as_bytes.tolist():
            cards: list[str] = []
            for i, b in enumerate(row):
                if b:
                    cards.extend(tables[i][b])
            out.append(" ".join(cards))
        return out


class HandResults:
    """Results of `simulate_hands`. Seats: 0 = the dealer's left, n-1 = the dealer."""

    def __init__(self, v: Variant, config: HandConfig, job: Job,
                 records_data: RecordArrays | None = None,
                 summary_data: SummaryArrays | None = None, score_min: int = 0) -> None:
        self.variant = v
        self.config = config
        self._job = job
        self._records = records_data
        self._summary = summary_data
        self.score_min = score_min

    @property
    def records_data(self) -> RecordArrays | None:
        """The kernel's per-hand arrays (keep="records"), or None."""
        return self._records

    @property
    def summary_data(self) -> SummaryArrays | None:
        """The kernel's summary arrays (keep="summary"), or None."""
        return self._summary

    @property
    def keep(self) -> str:
        """"records" or "summary": what the run kept."""
        return "records" if self._records is not None else "summary"

    def __repr__(self) -> str:
        c = self.config
        return (f"HandResults({c.variant}, hand_size={c.hand_size}, hands={c.hands}, "
                f"seed={c.seed}, keep={self.keep})")

    # ----- per-hand records ------------------------------------------------------------
    @cached_property
    def records(self) -> pd.DataFrame:
        """One row per (hand, seat), with the cards (see frame)."""
        return self.frame(cards=True)

    def frame(self, cards: bool = True) -> pd.DataFrame:
        """The records; without `cards` the card strings are left out (the `mask` column
        holds the same hand), which makes a million-hand frame several times faster."""
        if self._records is None:
            raise ValueError("this run kept a summary only; run with keep='records' for rows")
        hand_out, seat_out = self._records.hand_out, self._records.seat_out
        mask_out, cap_out = self._records.masks, self._records.captured
        v = self.variant
        n, hands = v.players, hand_out.shape[0]
        masks = mask_out[:, :n].reshape(-1)
        data: dict[str, Any] = {
            "deal": np.repeat(np.arange(hands, dtype=np.int64), n),
            "seat": np.tile(np.arange(n, dtype=np.int8), hands),
            "mask": masks,
            "trump": pd.Categorical.from_codes(np.repeat(hand_out[:, H_TRUMP], n),
                                               categories=pd.Index(list(TRUMP_NAMES))),
            "bid": seat_out[:, :, S_BID].reshape(-1).astype(np.int16),
            "tricks": seat_out[:, :, S_TRICKS].reshape(-1).astype(np.int16),
            "score": seat_out[:, :, S_SCORE].reshape(-1).astype(np.int32),
        }
        if v.rule("scoring.fool_bonus"):
            data["kings_fooled"] = seat_out[:, :, S_FOOLED].reshape(-1).astype(np.int16)
        seats = np.tile(np.arange(n), hands)
        for e, event in enumerate(v.events):
            data[event.name] = np.repeat(cap_out[:, e], n) == seats
        if v.is_contract:
            maker = np.repeat(hand_out[:, H_MAKER], n)
            data["maker"] = maker == seats
            data["contract"] = np.repeat(hand_out[:, H_CONTRACT], n).astype(np.int16)
            data["alone"] = np.repeat(hand_out[:, H_ALONE], n) == seats
            data["voided"] = np.repeat(hand_out[:, H_VOIDED], n).astype(bool)
        if v.teams:
            data["team"] = (seats % v.teams).astype(np.int8)
        df = pd.DataFrame(data)
        if cards:
            df.insert(2, "cards", _MaskNames(v.cards.names)(masks))
        return df

    # ----- summaries (both modes) ------------------------------------------------------
    def _summary_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._summary is not None:
            return self._summary.counts, self._summary.score_sum, self._summary.score_sq
        assert self._records is not None
        seat_out = self._records.seat_out
        counts_shape = (self.variant.players, int(self._job.tables.P[L.MAX_BID]) + 1,
                        int(self._job.tables.P[L.MAX_HAND]) + 1)
        counts = np.zeros(counts_shape, np.int64)
        sums = np.zeros(counts_shape, np.int64)
        squares = np.zeros(counts_shape, np.int64)
        for s in range(self.variant.players):
            b, t, sc = seat_out[:, s, S_BID], seat_out[:, s, S_TRICKS], seat_out[:, s, S_SCORE]
            np.add.at(counts[s], (b, t), 1)
            np.add.at(sums[s], (b, t), sc)
            np.add.at(squares[s], (b, t), sc * sc)
        return counts, sums, squares

    @property
    def counts(self) -> np.ndarray:
        """Hands by [seat, bid, tricks] (voided Hasenpfeffer hands are not counted)."""
        return self._summary_arrays()[0]

    @property
    def summary(self) -> pd.DataFrame:
        """One row per (seat, bid, tricks) that occurred: n, mean score and its spread."""
        counts, sums, squares = self._summary_arrays()
        seat, bid, took = np.nonzero(counts)
        n = counts[seat, bid, took]
        mean = sums[seat, bid, took] / n
        var = np.maximum(squares[seat, bid, took] / n - mean**2, 0.0)
        return pd.DataFrame({"seat": seat, "bid": bid, "tricks": took, "n": n,
                             "score_mean": mean, "score_sd": np.sqrt(var)})

    def trick_distribution(self) -> pd.DataFrame:
        """P(tricks = k) by seat, with the number of hands."""
        counts = self.counts.sum(axis=1)
        total = counts.sum(axis=1, keepdims=True)
        probs = counts / np.maximum(total, 1)
        df = pd.DataFrame(probs, columns=[f"P{k}" for k in range(counts.shape[1])])
        df.insert(0, "n", total[:, 0])
        df.index.name = "seat"
        return df

    def score_distribution(self) -> pd.DataFrame:
        """Hands by (seat, bid, tricks, score): every score that occurred, with its count."""
        if self._summary is not None:
            hist = self._summary.score_hist
            seat, bid, took, k = np.nonzero(hist)
            return pd.DataFrame({"seat": seat, "bid": bid, "tricks": took,
                                 "score": k + self.score_min, "n": hist[seat, bid, took, k]})
        df = self.records
        out = df.groupby(["seat", "bid", "tricks", "score"], observed=True).size()
        return out.rename("n").reset_index()

    def card_rates(self) -> pd.DataFrame:
        """Per card and trump: hands dealt, tricks it took, and tricks per hand dealt
        (needs keep="summary" with card_stats=True)."""
        if self._summary is None or not self._summary.card_dealt.any():
            raise ValueError("run with keep='summary' and card_stats=True for card rates")
        dealt, won = self._summary.card_dealt, self._summary.card_won
        t, c = np.nonzero(dealt)
        return pd.DataFrame({"trump": [TRUMP_NAMES[x] for x in t],
                             "card": [self.variant.cards.names[x] for x in c],
                             "dealt": dealt[t, c], "won": won[t, c],
                             "rate": won[t, c] / dealt[t, c]})

    @property
    def trump_counts(self) -> pd.Series:
        """Hands by trump."""
        if self._summary is not None:
            values = self._summary.trumps
        else:
            assert self._records is not None
            values = np.bincount(self._records.hand_out[:, H_TRUMP], minlength=5)
        return pd.Series(values, index=list(TRUMP_NAMES), name="hands")

    # ----- traces ----------------------------------------------------------------------
    def traces(self, k: int, indices: Any = None) -> list[HandRecord]:
        """Full move histories of k hands (the first k, or the given hand indices), in the
        reference engine's HandRecord form, ready for `reference.engine.replay_hand`."""
        job = self._job
        v = self.variant
        n = v.players
        if indices is None:
            indices = np.arange(min(int(k), self.config.hands), dtype=np.int64)
        indices = np.asarray(indices, dtype=np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= self.config.hands):
            raise ValueError(f"hand indices must be in 0..{self.config.hands - 1}")
        scratch = job.scratch()
        m = len(indices)
        max_dec = scratch.trace.shape[0]
        trace = np.zeros((m, max_dec, 3), np.int64)
        ndec = np.zeros(m, np.int64)
        hand_out = np.zeros((m, H_SIZE), np.int64)
        seat_out = np.zeros((m, n, 4), np.int64)
        mask_out = np.zeros((m, n + 1), np.uint64)
        cap_out = np.zeros((m, L.MAX_EVENTS), np.int64)
        a = job.args()
        run_traces(a.P, a.tables, a.seed, indices, a.hand_size, a.constrained, a.fixed,
                   a.forced_trump, a.play_pol, a.bid_pol, scratch, trace, ndec,
                   hand_out, seat_out, mask_out, cap_out)
        return [self._to_record(trace[j, :ndec[j]], hand_out[j], seat_out[j], mask_out[j],
                                cap_out[j]) for j in range(m)]

    def _to_record(self, trace: np.ndarray, hout: np.ndarray, sout: np.ndarray,
                   masks: np.ndarray, captured: np.ndarray) -> HandRecord:
        return hand_record(self.variant, self.config.hand_size, self.config.round_index, trace,
                           hout, sout, masks, captured)


def hand_record(v: Variant, hand_size: int, round_index: int | None, trace: np.ndarray,
                hout: np.ndarray, sout: np.ndarray, masks: np.ndarray,
                captured: np.ndarray) -> HandRecord:
    """A kernel hand (its deal, decision trace and outputs) as the reference engine's record."""
    n = v.players
    hands = [_cards(int(masks[s])) for s in range(n)]
    widow = _cards(int(masks[n]))
    turn = int(hout[H_TURN])
    rest = sorted(set(range(len(v.cards))) - {c for h in hands for c in h} - set(widow)
                  - {turn})
    stock = ([turn] if turn >= 0 else []) + rest
    decisions: list[tuple[str, int, Any]] = []
    for kind, seat, value in trace.tolist():
        name = DECISION_KINDS[kind]
        if kind == L.D_PLAY:
            decisions.append((name, seat, (value & 63, bool(value >> 6))))
        elif kind in (L.D_ALONE, L.D_DEFEND_ALONE):
            decisions.append((name, seat, bool(value)))
        else:
            decisions.append((name, seat, value))
    voided = bool(hout[H_VOIDED])
    maker = int(hout[H_MAKER])
    return HandRecord(
        hand_size=hand_size, round_index=round_index,
        hands=hands, widow=widow, stock=stock, decisions=decisions,
        trump=int(hout[H_TRUMP]), bids=[int(x) for x in sout[:, S_BID]],
        tricks=[int(x) for x in sout[:, S_TRICKS]],
        scores=[int(x) for x in sout[:, S_SCORE]],
        kings_fooled=[int(x) for x in sout[:, S_FOOLED]],
        captured={e.name: (int(captured[i]) if captured[i] >= 0 else None)
                  for i, e in enumerate(v.events)},
        maker=None if maker < 0 else maker, contract=int(hout[H_CONTRACT]) if maker >= 0
        else 0, alone=None if hout[H_ALONE] < 0 else int(hout[H_ALONE]), voided=voided)


def _cards(mask: int) -> list[int]:
    return [i for i in range(64) if mask >> i & 1]

