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
from simulate.games.job import (
    DEFAULT_STAR_THRESHOLD,
    GAME_CHUNK,
    GameJob,
    make_game_job,
    parse_policies,
)
from simulate.games.metrics import (
    Metric,
    MetricSums,
    PairedSums,
    metric_defs,
    paired_frame,
    union_defs,
)
from simulate.games.skill import role_jobs, skill_roles
from simulate.games.tasks import GameSpec, GameTask, chunk_ticker, run_task
from simulate.rules.variant import Variant
from simulate.tables.compile import trained_sizes
from simulate.util.checks import positive_int
from simulate.util.progress import Bar, progress_bar
from simulate.util.stats import normal_interval

STRONG = "precision+table"
WEAK = "greedy+heuristic"


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
    95% CI; `ratio` is the win share over chance.

    v: the variant; games: games per seat of the strong policy (the same deals for each
    seat); seed: their seed; strong, weak: "play+bid" policies; stars: the star-spending
    threshold (everyone, or per seat); workers: local threads (every core for None);
    chunk_size: games per task; backend: where the chunks run (None: local threads).
    Returns a dict: strong, weak, games, win_share with lo/hi, fair (chance), skill
    (win_share − fair) with skill_lo/skill_hi, ratio (win_share / fair).
    """
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
    lo, hi = normal_interval(p, se)
    skill_lo, skill_hi = normal_interval(p - fair, se)
    return {"strong": strong, "weak": weak, "games": games, "win_share": p,
            "lo": lo, "hi": hi, "fair": fair, "skill": p - fair,
            "skill_lo": skill_lo, "skill_hi": skill_hi, "ratio": p / fair}


def compare_games(a: Variant, b: Variant, games: int, seed: int = 0,
                  policies: str | Sequence[str] = "precision+heuristic",
                  stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD, skill: bool = True,
                  skill_policies: tuple[str, str] = ("precision+heuristic", WEAK),
                  workers: int | None = None, chunk_size: int = GAME_CHUNK,
                  progress: bool | Bar | None = False, label_a: str | None = None,
                  label_b: str | None = None, backend: Any = None) -> pd.DataFrame:
    """Every balance metric of configurations a and b played on the same deals, with the
    paired difference b - a and its 95% CI (and the skill index, when `skill`).

    a, b: the variants (the same number of players); games, seed: the games both play
    (game g from the same stream in each); policies: "play+bid" for everyone or per seat;
    stars: the star-spending threshold; skill: add the skill index of (strong, field) =
    `skill_policies` in each, with its bidding and play parts where strong and field differ
    in both (simulate.games.skill); workers: local threads (every core for None); chunk_size:
    games per task; progress: True for a bar of its own, a bar with update(n) to tick, or
    False; label_a, label_b: the configurations' names in the frame (default: canonical
    names); backend: where the chunks run (None: local threads). Returns paired_frame's
    frame, one row per metric.
    """
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
    roles = skill_roles(*skill_policies) if skill else []
    for v in (a, b):
        for role in roles:
            jobs += role_jobs(v, games, seed, role, skill_policies[1], stars)
    task = GameTask("compare", tuple(GameSpec.of(j) for j in jobs),
                    positive_int(chunk_size, "chunk_size"), jobs=tuple(jobs))
    skill_defs = [Metric(r.key, "skill (win share − chance)", r.label) for r in roles]
    paired = PairedSums(len(defs) + len(skill_defs))
    with progress_bar(progress, ja.config.games, unit="game") as bar:
        run_task(task, backend, workers, lambda p: paired.add(*p), chunk_ticker(task, bar))
    return paired_frame(defs + skill_defs, paired, label_a or a.canonical,
                        label_b or b.canonical)


def untrained_note(configs: Sequence[Variant], policies: str | Sequence[str]) -> str | None:
    """A warning when a `table` bidder has trained tables in some configurations and not in
    others: it then bids by the heuristic there, and a difference mixes rules and policy."""
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
