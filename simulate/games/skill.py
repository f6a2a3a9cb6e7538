"""The skill index, decomposed, and the luck ceiling (one definition for `games`, `compare`
and the Balance pages).

One seat plays a role, everyone else the field (greedy+heuristic by default); the role's
seat moves round the table, one run per seat on the same deals, and its win share (ties
split, averaged over the seats) is compared with chance (1 / players or teams):

  skill       the strong seat: strong play + the best bidder            (precision+table)
  skill_bid   bidding skill: the best bidder with the field's play      (greedy+table)
  skill_play  play skill: strong play with the field's bidder           (precision+heuristic)
  ceiling     the luck ceiling: strong play + a clairvoyant bidder that knows the deal (it
              plays every legal bid of the hand out on the same deal and keeps the best for
              itself); what no bidder can beat, so each index is also a share of it.

A role identical to the field (the same bidder on both sides, say) is left out. Intervals:
95%, the game as unit (one game's value is the mean over the seats of the role's win share);
a share of the ceiling by the delta method, the ceiling's games counted as independent of
the others' (a conservative interval: they share deals, so the true covariance is positive).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simulate.games.job import (
    CLAIRVOYANT,
    DEFAULT_STAR_THRESHOLD,
    GAME_CHUNK,
    GameJob,
    make_game_job,
    parse_policies,
)
from simulate.games.tasks import GameSpec, GameTask, run_task
from simulate.rules.variant import Variant
from simulate.tables.compile import trained_sizes
from simulate.util.checks import positive_int
from simulate.util.stats import Z95

FIELD = "greedy+heuristic"
STRONG_PLAY = "precision"


@dataclass(frozen=True)
class Role:
    """One skill role: its key, what the reader sees, and the policy of its seat."""

    key: str
    label: str
    policy: str


def best_bidder(configs: Sequence[Variant]) -> str:
    """The strongest bidder every configuration has: the trained table where all of them
    have one for their whole schedule (an auction game: its auction table), else the
    heuristic."""
    ok = all(set(v.schedule) <= set(trained_sizes(v)) for v in configs)
    return "table" if ok else "heuristic"


def skill_roles(strong: str, field: str = FIELD, ceiling: bool = False) -> list[Role]:
    """The roles of a skill profile: the strong seat, then bidding and play skill where the
    strong policy differs from the field in that part, then (ceiling) the clairvoyant."""
    s_play, _, s_bid = strong.partition("+")
    f_play, _, f_bid = field.partition("+")
    roles = [Role("skill", f"skill index: one {strong} among {field}", strong)]
    if s_bid != f_bid and s_play != f_play:
        roles.append(Role("skill_bid", f"bidding skill: {f_play}+{s_bid} (strong bidder, "
                                       "field play)", f"{f_play}+{s_bid}"))
        roles.append(Role("skill_play", f"play skill: {s_play}+{f_bid} (strong play, field "
                                        "bidder)", f"{s_play}+{f_bid}"))
    if ceiling:
        roles.append(Role("ceiling", f"luck ceiling: {s_play}+{CLAIRVOYANT} (knows the deal)",
                          f"{s_play}+{CLAIRVOYANT}"))
    return roles


def role_jobs(v: Variant, games: int, seed: int, role: Role, field: str,
              stars: int | Sequence[int]) -> list[GameJob]:
    """One job per seat: the role's policy in that seat, the field elsewhere."""
    parse_policies(v, role.policy)
    parse_policies(v, field)
    jobs = []
    for seat in range(v.players):
        seats = [field] * v.players
        seats[seat] = role.policy
        jobs.append(make_game_job(v, games, seed, seats, stars))
    return jobs


def _role_shares(v: Variant, roles: Sequence[Role], field: str, games: int, seed: int,
                 stars: int | Sequence[int], workers: int | None, chunk_size: int,
                 backend: Any) -> tuple[np.ndarray, np.ndarray]:
    """(mean win share per role, its covariance matrix of the mean) over `games` games."""
    jobs: list[GameJob] = []
    for role in roles:
        jobs += role_jobs(v, games, seed, role, field, stars)
    task = GameTask("profile", tuple(GameSpec.of(j) for j in jobs),
                    positive_int(chunk_size, "chunk_size"), jobs=tuple(jobs))
    r = len(roles)
    s1 = np.zeros(r)
    s2 = np.zeros((r, r))
    count = 0

    def take(part: tuple[np.ndarray, ...]) -> None:
        nonlocal count
        x = part[0]
        s1[:] += x.sum(0)
        s2[:] += x.T @ x
        count += len(x)

    run_task(task, backend, workers, take)
    mean = s1 / count
    cov = (s2 / count - np.outer(mean, mean)) * count / max(count - 1, 1) / count
    return mean, cov


def skill_profile(v: Variant, games: int, seed: int = 0, strong: str | None = None,
                  field: str = FIELD, ceiling_games: int | None = None,
                  stars: int | Sequence[int] = DEFAULT_STAR_THRESHOLD,
                  workers: int | None = None, chunk_size: int = GAME_CHUNK,
                  backend: Any = None) -> pd.DataFrame:
    """The skill index, its bidding and play parts, and the luck ceiling of v.

    v: the variant; games: games per seating of each role (the same deals for all);
    strong: the strong policy (default precision + best_bidder([v])); field: everyone
    else's; ceiling_games: games per seating of the clairvoyant (slow: it plays every bid
    of its hands; None: the ceiling is left out; bidding games only); stars, workers,
    chunk_size, backend: as for simulate_games. Returns one row per role: key, label,
    policy, field, games, win_share, lo, hi, fair, skill (win share − fair), skill_lo,
    skill_hi, ratio (win share / fair), of_ceiling (skill / the ceiling's skill) with
    of_ceiling_lo/hi.
    """
    strong = strong or f"{STRONG_PLAY}+{best_bidder([v])}"
    games = positive_int(games, "games")
    roles = skill_roles(strong, field)
    mean, cov = _role_shares(v, roles, field, games, seed, stars, workers, chunk_size,
                             backend)
    sizes = [games] * len(roles)
    if ceiling_games and not v.is_contract:
        ceil = skill_roles(strong, field, ceiling=True)[-1]
        cm, cc = _role_shares(v, [ceil], field, positive_int(ceiling_games, "ceiling_games"),
                              seed, stars, workers, chunk_size, backend)
        roles.append(ceil)
        mean = np.append(mean, cm)
        full = np.zeros((len(roles), len(roles)))
        full[:-1, :-1] = cov
        full[-1, -1] = cc[0, 0]
        cov = full
        sizes.append(int(ceiling_games))
    fair = 1 / (v.teams or v.players)
    rows = []
    for i, role in enumerate(roles):
        se = float(np.sqrt(max(cov[i, i], 0.0)))
        p = float(mean[i])
        rows.append({"key": role.key, "label": role.label, "policy": role.policy,
                     "field": field, "games": sizes[i], "win_share": p,
                     "lo": p - Z95 * se, "hi": p + Z95 * se, "fair": fair,
                     "skill": p - fair, "skill_lo": p - fair - Z95 * se,
                     "skill_hi": p - fair + Z95 * se, "ratio": p / fair,
                     **_of_ceiling(mean, cov, i, fair, roles)})
    return pd.DataFrame(rows)


def _of_ceiling(mean: np.ndarray, cov: np.ndarray, i: int, fair: float,
                roles: Sequence[Role]) -> dict[str, float]:
    """Role i's skill as a share of the ceiling's, with a delta-method 95% interval."""
    if roles[-1].key != "ceiling":
        return {"of_ceiling": np.nan, "of_ceiling_lo": np.nan, "of_ceiling_hi": np.nan}
    c = len(roles) - 1
    top = mean[c] - fair
    if top <= 0:
        return {"of_ceiling": np.nan, "of_ceiling_lo": np.nan, "of_ceiling_hi": np.nan}
    r = (mean[i] - fair) / top
    grad = np.zeros(len(mean))
    grad[i] += 1 / top
    grad[c] += -(mean[i] - fair) / top ** 2
    se = float(np.sqrt(max(grad @ cov @ grad, 0.0))) if i != c else 0.0
    return {"of_ceiling": float(r), "of_ceiling_lo": float(r - Z95 * se),
            "of_ceiling_hi": float(r + Z95 * se)}


def format_skill(profile: pd.DataFrame) -> str:
    """The profile as plain-text lines: each role's index with its interval, win share
    against chance, and its share of the luck ceiling."""
    from simulate.util.format import fmt_num, fmt_signed

    lines = ["skill (one seat's win share − chance, moved round every seat on the same deals; "
             "95% CIs)"]
    width = max(44, int(profile.label.str.len().max()) + 2) if len(profile) else 44
    for r in profile.to_dict("records"):
        share = ""
        if np.isfinite(float(r["of_ceiling"])) and r["key"] != "ceiling":
            share = (f"   {100 * float(r['of_ceiling']):.0f}% of the ceiling "
                     f"[{100 * float(r['of_ceiling_lo']):.0f}%, "
                     f"{100 * float(r['of_ceiling_hi']):.0f}%]")
        lines.append(f"  {str(r['label']):<{width}} {fmt_signed(r['skill']):>8}  "
                     f"[{fmt_signed(r['skill_lo'])}, {fmt_signed(r['skill_hi'])}]  win share "
                     f"{fmt_num(r['win_share'])} vs chance {fmt_num(r['fair'])}, "
                     f"n = {int(r['games']):,} games per seat{share}")
    return "\n".join(lines)
