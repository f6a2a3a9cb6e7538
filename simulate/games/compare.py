"""Paired comparisons of two game configurations, and the skill index.

Both configurations play game g from the same seed, so hand k of game g is dealt from the
same stream in both (the same cards wherever the deck and hand size agree): the luck of
the deal cancels in every paired difference.

The skill index: one seat plays a strong policy, everyone else a weaker one; the strong
seat moves round the table (one run per seat, the same deals in each), and its win share
is compared with what chance gives (1 / number of players or teams).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.games.metrics import Metric, MetricSums, PairedSums, metric_defs, paired_frame
from simulate.games.simulate import (
    DEFAULT_STAR_THRESHOLD,
    GAME_CHUNK,
    GameJob,
    _progress_bar_games,
    make_game_job,
    parse_policies,
)
from simulate.games.tasks import GameSpec, GameTask, run_task, union_defs
from simulate.rules.variant import Variant
from simulate.runner.plan import chunks
from simulate.util.checks import positive_int

STRONG = "precision+table"
WEAK = "greedy+heuristic"
Z95 = 1.959963984540054


def skill_jobs(v: Variant, games: int, seed: int, strong: str = STRONG, weak: str = WEAK,
               stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD) -> list[GameJob]:
    """One job per seat: the strong policy in that seat, the weak one elsewhere."""
    parse_policies(v, strong)
    parse_policies(v, weak)
    jobs = []
    for seat in range(v.players):
        seats = [weak] * v.players
        seats[seat] = strong
        jobs.append(make_game_job(v, games, seed, seats, stars))
    return jobs


SKILL = Metric("skill", "skill", "skill index (strong seat's win share − chance)")


def skill_index(v: Variant, games: int, seed: int = 0, strong: str = STRONG, weak: str = WEAK,
                stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD,
                workers: int | None = None, chunk_size: int = GAME_CHUNK,
                backend: Any = None) -> dict[str, Any]:
    """How much more often one strong-policy seat wins against weaker players than chance:
    its win share (ties split, averaged over the seats it can sit in) minus 1/units, with a
    95% CI; `ratio` is the win share over chance."""
    jobs = skill_jobs(v, games, seed, strong, weak, stars)
    task = GameTask("skill", tuple(GameSpec.of(j) for j in jobs),
                    positive_int(chunk_size, "chunk_size"), jobs=tuple(jobs))
    sums = MetricSums(1)

    def take(part: tuple[np.ndarray, ...]) -> None:
        x = part[0]
        sums.add(x[:, None], np.ones((len(x), 1)))

    run_task(task, backend, workers, take)
    p, se = float(sums.ratio()[0]), float(sums.se()[0])
    fair = 1 / (v.teams or v.players)
    return {"strong": strong, "weak": weak, "games": games, "win_share": p,
            "lo": p - Z95 * se, "hi": p + Z95 * se, "fair": fair, "skill": p - fair,
            "skill_lo": p - fair - Z95 * se, "skill_hi": p - fair + Z95 * se,
            "ratio": p / fair}


def compare_games(a: Variant, b: Variant, games: int, seed: int = 0,
                  policies: str | Sequence[str] = "precision+heuristic",
                  stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD, skill: bool = True,
                  skill_policies: tuple[str, str] = ("precision+heuristic", WEAK),
                  workers: int | None = None, chunk_size: int = GAME_CHUNK,
                  progress: Any = False, label_a: str | None = None,
                  label_b: str | None = None, backend: Any = None) -> pd.DataFrame:
    """Every balance metric of configurations a and b played on the same deals, with the
    paired difference b - a and its 95% CI (and the skill index, when `skill`)."""
    if a.players != b.players:
        raise BidlabInputError(f"compare: both configurations need the same number of players "
                               f"({a.players} and {b.players} given)")
    if a.name != b.name and (a.is_contract != b.is_contract):
        raise BidlabInputError("compare: a contract game cannot be compared with a bidding "
                               "game metric by metric")
    ja = make_game_job(a, games, seed, policies, stars)
    jb = make_game_job(b, games, seed, policies, stars)
    defs = union_defs(metric_defs(ja), metric_defs(jb))
    jobs = [ja, jb]
    if skill:
        jobs += skill_jobs(a, games, seed, *skill_policies, stars)
        jobs += skill_jobs(b, games, seed, *skill_policies, stars)
    task = GameTask("compare", tuple(GameSpec.of(j) for j in jobs),
                    positive_int(chunk_size, "chunk_size"), jobs=tuple(jobs))
    plan = chunks(ja.config.games, task.chunk_size)
    paired = PairedSums(len(defs) + (1 if skill else 0))
    own_bar = isinstance(progress, bool)
    bar = _progress_bar_games(ja.config.games, progress) if own_bar else progress
    tick = (lambda i: bar.update(plan[i][1])) if bar else None
    try:
        run_task(task, backend, workers, lambda p: paired.add(*p), tick)
    finally:
        if bar and own_bar:
            bar.close()
    return paired_frame(defs + ([SKILL] if skill else []), paired, label_a or a.canonical,
                        label_b or b.canonical)


def untrained_note(configs: Sequence[Variant], policies: str | Sequence[str]) -> str | None:
    """A warning when a `table` bidder has trained tables in some configurations and not in
    others: it then bids by the heuristic there, and a difference mixes rules and policy."""
    from simulate.tables.compile import trained_sizes

    items = [policies] if isinstance(policies, str) else list(policies)
    if not any(str(p).partition("+")[2].strip() == "table" for p in items):
        return None
    missing = [v for v in configs if not set(v.schedule) <= set(trained_sizes(v))]
    if not missing or len(missing) == len(configs):
        return None
    names = "; ".join(v.canonical for v in missing)
    return (f"note: no trained bid table for {names}: its table bidder bids by the heuristic, "
            "so differences mix the rule change with a change of bidder. Add --train to train "
            "it first, or compare with --policies precision+heuristic (the default).")
