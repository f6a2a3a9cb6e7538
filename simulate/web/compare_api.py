"""`/api/compare`: configuration A against one or more B on the same deals, as JSON or CSV.

The numbers are simulate.games.compare.compare_games', called as `bidlab compare` calls it:
A is the game with its `base` options, B is A with `set` options, or the `vs` game with
them, or one B per value of `sweep` ("option=v1,v2"). Each B's rows are paired_frame's, with
the column `change` naming what B changes (as `bidlab compare --out` writes them).
"""

from __future__ import annotations

import time
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from simulate.errors import BidlabInputError
from simulate.games.compare import compare_games, untrained_note
from simulate.games.job import parse_policies
from simulate.rules.variant import Variant
from simulate.web.jobs import Job
from simulate.web.odds_api import plain
from simulate.web.variants import Games

MAX_GAMES = 1_000_000
MAX_SWEEP = 8


class CompareRequest(BaseModel):
    """What to compare (the body of POST /api/compare)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    game: str = Field(description="A shipped game or an uploaded file's id (upload:...)")
    players: int | None = Field(None, description="Players (default: the game's usual count)")
    base: list[str] = Field(default_factory=list, description="option=value for A and B")
    sets: list[str] = Field(default_factory=list, alias="set",
                            description="option=value: what B changes")
    vs: str | None = Field(None, description="B is this game (shipped or uploaded), with set")
    sweep: str | None = Field(None, description="option=v1,v2,...: one B per value")
    games: int = Field(20_000, description=f"whole games per configuration, 1 to {MAX_GAMES:,}")
    seed: int = Field(0, description="the deals' seed")
    policies: str = Field("precision+heuristic", description="PLAY+BID for every seat")
    skill: bool = Field(False, description="also the skill index (slower)")


def configs(games: Games, r: CompareRequest) -> tuple[Variant, list[tuple[str, Variant]]]:
    """A and the B configurations with their labels, every one loaded and checked."""
    if not 1 <= r.games <= MAX_GAMES:
        raise BidlabInputError(f"games {r.games:,} is not allowed on the server; allowed: 1 "
                               f"to {MAX_GAMES:,}")
    if not r.sets and r.vs is None and r.sweep is None:
        raise BidlabInputError("compare: nothing to compare; give set option=value, vs a game "
                               "or sweep option=v1,v2")
    a = games.load(r.game, r.players, r.base)
    b_game = r.vs if r.vs is not None else r.game
    b_sets = list(r.sets) if r.vs is not None else list(r.base) + list(r.sets)
    b_what = "vs" if r.vs is not None else "game"
    out: list[tuple[str, Variant]] = []
    if r.sweep is None:
        label = " ".join(r.sets) if r.vs is None else f"{r.vs} {' '.join(r.sets)}".strip()
        out.append((label, games.load(b_game, a.players, b_sets, b_what)))
    else:
        key, sep, values = r.sweep.partition("=")
        vals = [x.strip() for x in values.split(",") if x.strip()]
        if not sep or not key.strip() or not vals or len(vals) > MAX_SWEEP:
            raise BidlabInputError(f"sweep {r.sweep!r}: write option=v1,v2,... with 1 to "
                                   f"{MAX_SWEEP} values")
        for x in vals:
            item = f"{key.strip()}={x}"
            out.append((item, games.load(b_game, a.players, b_sets + [item], b_what)))
    parse_policies(a, r.policies)
    if all(b.canonical == a.canonical for _, b in out):
        raise BidlabInputError("compare: B is the same configuration as A; change an option "
                               "to something other than its value in A")
    return a, out


def cache_key(a: Variant, bs: list[tuple[str, Variant]], r: CompareRequest) -> tuple[Any, ...]:
    """The canonical configurations, the comparison's settings and the seed."""
    return ("compare", a.canonical, tuple((label, b.canonical) for label, b in bs), r.games,
            r.seed, r.policies, r.skill)


class _Ticks:
    """A progress bar for compare_games that reports to the job (and so can cancel it)."""

    def __init__(self, job: Job, index: int, count: int, total: int) -> None:
        self.job, self.index, self.count, self.total, self.done = job, index, count, total, 0

    def update(self, n: float | None = 1) -> bool | None:
        """Count n more games of configuration pair `index`."""
        self.done += int(n or 0)
        part = min(self.done / max(self.total, 1), 1.0)
        self.job.check((self.index + part) / self.count,
                       f"B {self.index + 1} of {self.count}: {self.done:,} of "
                       f"{self.total:,} games")
        return None


def run_compare(job: Job, a: Variant, bs: list[tuple[str, Variant]],
                r: CompareRequest) -> dict[str, Any]:
    """Play every pair on this thread and return the answer as JSON (rows per B, and the
    rows of all of them in CSV order)."""
    started = time.perf_counter()
    pair = (r.policies, "greedy+heuristic")
    results = []
    frames = []
    for i, (label, b) in enumerate(bs):
        if b.canonical == a.canonical:
            results.append({"label": label, "b": b.canonical, "same": True, "rows": []})
            continue
        df = compare_games(a, b, r.games, seed=r.seed, policies=r.policies, skill=r.skill,
                           skill_policies=pair, progress=_Ticks(job, i, len(bs), r.games),
                           label_a=a.canonical, label_b=b.canonical)
        frames.append(df.assign(change=label))
        results.append({"label": label, "b": b.canonical, "same": False,
                         "rows": [plain(x) for x in df.to_dict("records")]})
    note = untrained_note([a] + [b for _, b in bs], r.policies)
    return {"a": a.canonical, "title": a.title, "games": r.games, "seed": r.seed,
            "policies": r.policies, "skill": r.skill, "note": note, "configs": results,
            "csv": csv_text(frames), "seconds": round(time.perf_counter() - started, 3)}


def csv_text(frames: list[pd.DataFrame]) -> str:
    """The rows of every B as CSV, as `bidlab compare --out FILE.csv` writes them."""
    if not frames:
        return ""
    return str(pd.concat(frames, ignore_index=True).to_csv(index=False))
