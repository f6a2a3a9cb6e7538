"""Compiling the kernel's entry points in parallel processes before a long job on a cold cache.

numba compiles an entry point on its first call and writes it to the on-disk cache; within a
process the calls compile one after another (threads wait on numba's compile lock). A first
`make report` on a fresh clone spent about 5 of its 12 minutes compiling some ten entry
points in turn. Where the cache does not hold them yet, `warm_kernels` compiles them in one
subprocess per GROUP, side by side, each running small workloads that reach its share of the
entry points with the same argument types as the real jobs (a policy is a number in the rule
tables, so random play compiles the same code as precision play, without its calibration
runs); the job then loads them from the cache. A stamp per group in the cache folder
records a finished warm-up for the kernel sources as they are, so later runs skip it.

The test suite (tests/conftest.py) warms every group and waits before its workers start.
`bidlab report` starts the groups it reaches later (forced bids, whole games) and begins at
once, compiling the hand runs it needs first itself: the two background compiles finish
while it simulates its first game, so compiling overlaps the work instead of preceding it.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# The workloads, each a group of entry points for one process: on a cold cache, with the
# three side by side on two cores, forced bids took about 2 minutes, the others 3 to 3 1/2.
GROUPS = ("hands", "forced", "games")


def warm_group(name: str) -> None:
    """Reach the entry points of one group with small workloads (in a process of its own)."""
    import simulate as sim

    v = sim.load_variant("hoffer", players=4)
    if name == "hands":
        # per-hand summaries, records and traces, with and without fixed cards
        fixed_cards: list[dict[int, str] | None] = [None, {2: "HIJO AS KS 9H 10D"}]
        for fixed, trump in zip(fixed_cards, (None, "S"), strict=True):
            for keep in ("summary", "records"):
                res = sim.simulate_hands(v, 5, 300, seed=1, play="random", bid="random",
                                         trump=trump, fixed=fixed, keep=keep, workers=1)
            res.traces(2)
    elif name == "forced":
        # every candidate bid on the same deals: class tables, cheat sheets, training, odds
        from simulate.hands.forced import forced_run

        forced_run(v, 5, 2, 300, seed=1, play="random", bid="random", workers=1)
        sim.bid_odds(v, "HIJO AS KS 9H 10D", seat=2, trump="S", samples=2000, play="random",
                     bid="random", workers=1)
    elif name == "games":
        # whole games (records, summaries, the clairvoyant ceiling) and one replayed game
        from simulate.games.job import make_game_job
        from simulate.games.replay import replay_kernel_game
        from simulate.games.simulate import simulate_games
        from simulate.games.skill import skill_profile

        stars = sim.load_variant("horseshoes", stars=True)
        for keep in ("records", "summary"):
            simulate_games(stars, 20, seed=1, policies="random+greedy", keep=keep, workers=1)
        job = make_game_job(stars, 2, 3, "random+greedy", 1)
        job.run(0, 2)
        replay_kernel_game(job, 0)
        skill_profile(v, 20, seed=1, ceiling_games=20, workers=1)
    else:
        raise ValueError(f"no warm-up group {name!r}; groups: {', '.join(GROUPS)}")


def warm_stamp(group: str) -> tuple[Path, str]:
    """Where a finished warm-up of `group` is recorded, and what it records: the kernel
    sources' sizes and times, whose change makes numba compile again (their folder names the
    stamp)."""
    import numba

    import simulate.kernel as kernel  # sets numba's cache folder

    here = Path(kernel.__file__).resolve().parent
    tag = hashlib.sha1(str(here).encode()).hexdigest()[:16]
    state = "\n".join(f"{p.name} {p.stat().st_mtime_ns} {p.stat().st_size}"
                      for p in sorted(here.glob("*.py")))
    # set by simulate.kernel (numba's stubs omit the settings numba.config builds at import)
    folder = numba.config.CACHE_DIR  # type: ignore[attr-defined]
    return Path(folder) / f"warm-{tag}-{group}.txt", state


def is_warm(group: str) -> bool:
    """Whether a warm-up of `group` finished for the kernel sources as they are."""
    stamp, state = warm_stamp(group)
    return stamp.is_file() and stamp.read_text() == state


Started = list[tuple[str, "subprocess.Popen[str]"]]


def start_warm(groups: Sequence[str]) -> Started:
    """Start one subprocess per group not yet warm, compiling its entry points into the
    on-disk cache; return them for finish_warm (nothing when every group is warm)."""
    for g in groups:
        if g not in GROUPS:
            raise ValueError(f"no warm-up group {g!r}; groups: {', '.join(GROUPS)}")
    root = Path(__file__).resolve().parent.parent.parent
    # `python -c` in the project root imports this tree's simulate, as the caller does
    return [(g, subprocess.Popen(
        [sys.executable, "-c", f"from simulate.cli.warm import warm_group; warm_group({g!r})"],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        for g in groups if not is_warm(g)]


def finish_warm(started: Started) -> list[str]:
    """Wait for the warm-up subprocesses, stamp each group that finished, and return the
    failures (a group's last error line: the job compiles what it needs itself then, as it
    would have without the warm-up)."""
    failed = []
    for group, proc in started:
        _, err = proc.communicate()
        if proc.returncode != 0:
            last = err.strip().splitlines()[-1:] or [f"status {proc.returncode}"]
            failed.append(f"{group}: {last[0]}")
            continue
        stamp, state = warm_stamp(group)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(state)
    return failed


def stop_warm(started: Started) -> None:
    """End the warm-up subprocesses (the job failed or was interrupted): nothing is stamped,
    and a later run warms again."""
    for _, proc in started:
        proc.kill()
        proc.communicate()


def warm_kernels(groups: Sequence[str] = GROUPS) -> list[str]:
    """Compile the groups' entry points in parallel subprocesses and wait for them (groups
    already warm for these kernel sources are skipped); return the failures."""
    return finish_warm(start_warm(groups))
