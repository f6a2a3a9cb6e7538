"""Kernel games checked against the reference engine: a game traced hand by hand in the
kernel, its hands turned into reference-engine records, and the whole game replayed there.
"""

from __future__ import annotations

import numpy as np

from simulate.games.job import GameJob
from simulate.hands.results import hand_record
from simulate.kernel import game as K
from simulate.kernel.hand import H_SIZE, S_SIZE
from simulate.reference.engine import GameRecord, HandRecord, replay_game
from simulate.rules.variant import Variant


def kernel_game_records(job: GameJob, game: int,
                        max_hands: int = 512) -> tuple[np.ndarray, list[HandRecord]]:
    """One game of `job` hand by hand.

    game: its index (dealt from its own stream of the job's seed); max_hands: the trace
    buffer's length (ValueError if the game lasted longer). Returns (its row, the hands as
    reference-engine records, each with its star decisions appended as the reference engine
    records them).
    """
    v, n = job.v, job.v.players
    scratch = job.scratch()
    max_dec = scratch.trace.shape[0]
    tr_int = np.zeros((max_hands, K.trace_width(n)), np.int64)
    tr_masks = np.zeros((max_hands, n + 1), np.uint64)
    tr_dec = np.zeros((max_hands, max_dec, 3), np.int64)
    row = np.zeros(job.width, np.int64)
    by_size = np.zeros((K.BY_SIZE_PLANES, n, job.max_size + 1), np.int64)
    played = K.trace_game(job.tables.P, job.tables.as_tuple(), job.SP, job.stabs,
                          job.G, job.sched,
                          job.con_rounds, job.specials, job.card_ids,
                          np.uint64(job.config.seed), game,
                          job.play_ids, job.bid_ids, job.clair_ids, job.star_thr, scratch,
                          K.make_game_scratch(n), row, by_size, tr_int, tr_masks, tr_dec)
    if played > max_hands:
        raise ValueError(f"game {game} lasted {played} hands; trace at most {max_hands}")
    records = []
    so = K.T_HOUT + H_SIZE
    for k in range(played):
        t = tr_int[k]
        rnd = int(t[K.T_ROUND])
        hp = int(t[K.T_PLAYERS])
        hv = v if hp == n else job.subs[hp]
        rec = hand_record(hv, int(t[K.T_SIZE]), None if rnd < 0 else rnd,
                          tr_dec[k, :t[K.T_NDEC]], t[K.T_HOUT:so],
                          t[so:so + hp * S_SIZE].reshape(hp, S_SIZE), tr_masks[k, :hp + 1],
                          t[so + n * S_SIZE + n:])
        for u in range(n):
            spent = int(t[so + n * S_SIZE + u])
            if spent >= 0:
                lead_rel = _lead_rel(v, u, int(t[K.T_DEALER]))
                rec.decisions.append(("spend_star", lead_rel, bool(spent)))
        records.append(rec)
    return row, records


def replay_kernel_game(job: GameJob, game: int) -> tuple[GameRecord | None, list[str]]:
    """Replay game `game` of `job` in the reference engine: (the reference's record, or None
    if it could not replay it; the problems found, including any difference in totals,
    winners, stars or length — empty when kernel and reference agree)."""
    row, records = kernel_game_records(job, game)
    ref, problems = replay_game(job.v, records, int(job.G[K.G_MAX_HANDS]))
    if ref is None:
        return None, problems
    lay = job.layout
    n = job.v.players
    totals = [int(row[lay.col(a, K.P_TOTAL)]) for a in range(n)]
    winners = [a for a in range(n) if row[lay.col(a, K.P_WIN)]]
    stars = [int(row[lay.col(a, K.P_STARS)]) for a in range(n)]
    for what, mine, theirs in (("totals", totals, ref.totals),
                               ("winners", winners, ref.winners),
                               ("stars", stars, ref.stars),
                               ("hands", int(row[K.C_HANDS]), ref.rounds),
                               ("tie-break rounds", int(row[K.C_TIEBREAKS]),
                                ref.tiebreak_rounds)):
        if mine != theirs:
            problems.append(f"{what}: kernel {mine!r}, reference {theirs!r}")
    return ref, problems


def _lead_rel(v: Variant, unit: int, dealer: int) -> int:
    """The lead-relative position (0 = dealer's left) of the first seat of star unit `unit`."""
    n = v.players
    members = [a for a in range(n) if (a % v.teams if v.teams else a) == unit]
    return min((a - dealer - 1) % n for a in members)
