"""The benchmark: fixed workloads, medians over repeats, ratios against peers, JSON out.

Speed here is a measurement, not a test. Every figure is hands (or deals) per second,
median over repeats, measured in one run on this machine; ratios compare runs made
side by side in that same run. Peers: OpenSpiel's C++ Oh Hell (uniform random bots through
`pyspiel.evaluate_bots`, one process per core) and bidlab's own reference engine.

Strength is measured too (the outside yardstick): bidlab's default policies against
OpenSpiel's ISMCTS and MCTS bots in OpenSpiel's oh_hell (simulate.openspiel), points per
hand with a paired 95% interval over deals.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from simulate.games.simulate import simulate_games
from simulate.hands.chunks import run_summary_chunk
from simulate.hands.job import make_job
from simulate.hands.odds import bid_odds
from simulate.hands.simulate import simulate_hands
from simulate.kernel.bits import SELECT_PATH
from simulate.kernel.chunk import STAGE_BIDS, STAGE_DEAL, STAGE_HAND, STAGE_SCORE, run_stages
from simulate.kernel.deal import run_deals
from simulate.reference.engine import RandomPolicy, simulate_hand
from simulate.rules.load import load_variant
from simulate.tables.compile import compile_tables
from simulate.util.files import write_atomically

# The kernel's targets on 2 cores: random 4x7, dealing alone and every seed game with its
# default policies from the kernel-speed issue (17: 10 M, 50 M and 3 M); greedy 4x10 and
# the many-player workloads from earlier issues, still held.
TARGETS = {
    "oh_hell 4p x7 random": 10_000_000,
    "oh_hell 4p x10 greedy": 1_500_000,
    "deal only 4p x10": 50_000_000,
}
SEED_GAME_TARGET, MANY_PLAYERS_TARGET = 3_000_000, 600_000
ODDS_TARGET_S, ODDS_SAMPLES = 0.3, 100_000
# bid-odds workloads: (game, hand, seat, trump) at each game's largest hand size, plus the
# 5-card Hoffer hand of the odds issue
ODDS_CASES = [
    ("hoffer", "HIJO AS KS 9H 10D", 2, "S"),
    ("hoffer", "HIJO LOJO AS KS 9H 10D", 1, "S"),
    ("hoffer", "AS KS 9H 10D QC 9C", 0, "S"),      # conditioned on the dealer naming S (~19%)
    ("horseshoes", "AS KS QS 9S 5H 9H KH 4D 8D QD 3C 7C JC", 1, "S"),
    ("hyjack", "HJ_BLUE HJ_GREEN AS KS 2H 9H 3D QD 7C", 1, None),
    ("kings_and_fools", "KS FOOL 7H 2C AD QD 9S", 1, None),
    ("oh_hell", "AS KS 9H 10D 2C 7C 5D QH JH 3S 4C 8D", 1, "S"),
    ("hasenpfeffer", "JOKER JS JC AS KS 9H", 0, None),
]


@dataclass
class Row:
    """One measured workload: its median rate (or seconds), the repeats and its target."""

    name: str
    rate: float                     # median per second
    unit: str = "hands/s"
    repeats: list[float] = field(default_factory=list)
    target: float | None = None
    note: str = ""
    interval: tuple[float, float] | None = None   # a 95% interval of rate, where measured

    @property
    def met(self) -> bool | None:
        """Whether the target is met (None without a target); a rate with an interval
        meets it when the whole interval lies above the target."""
        if self.target is None:
            return None
        if self.interval is not None:
            return self.interval[0] > self.target
        # seconds are better low, rates better high
        return self.rate <= self.target if self.unit == "s" else self.rate >= self.target


def _median_rate(run: Callable[[], int], repeats: int) -> list[float]:
    """Units done per second by run(), once per repeat."""
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        done = run()
        rates.append(done / (time.perf_counter() - t))
    return rates


def _kernel_row(name: str, game: str, players: int, hand_size: int, policy: str,
                hands: int, repeats: int, target: float | None, **options: Any) -> Row:
    """Hands per second of the kernel on one workload; policy: one name for play and bid,
    or PLAY+BID."""
    play, _, bid = policy.partition("+")
    bid = bid or play
    v = load_variant(game, players=players, **options)
    simulate_hands(v, hand_size, 10_000, seed=0, play=play, bid=bid, keep="summary")

    def run() -> int:
        simulate_hands(v, hand_size, hands, seed=1, play=play, bid=bid, keep="summary",
                       workers=2)
        return hands

    rates = _median_rate(run, repeats)
    return Row(name, statistics.median(rates), repeats=rates, target=target,
               note=f"{v.canonical}, {hand_size} cards, {play}+{bid}, 2 threads")


def _probe_row(hands: int, repeats: int) -> Row:
    """The issue's probe workload on one thread: classic Oh Hell, 4 players x 7 cards,
    random bids and play; the note gives ns per card played (28 cards a hand)."""
    v = load_variant("oh_hell", players=4)
    simulate_hands(v, 7, 10_000, seed=0, play="random", bid="random", keep="summary",
                   workers=1)

    def run() -> int:
        simulate_hands(v, 7, hands, seed=1, play="random", bid="random", keep="summary",
                       workers=1)
        return hands

    rates = _median_rate(run, repeats)
    rate = statistics.median(rates)
    return Row("oh_hell 4p x7 random, 1 thread", rate, repeats=rates,
               note=f"{1e9 / (rate * 28):.1f} ns per card played; bit select: {SELECT_PATH}")


# (label, game, players (None: the game's usual), cards (None: its peak hand), play+bid)
STAGE_CASES: list[tuple[str, str, int | None, int | None, str]] = [
    ("oh_hell 4p x7 random", "oh_hell", 4, 7, "random+random"),
    ("oh_hell 4p x10 precision+table", "oh_hell", 4, 10, "precision+table"),
    ("hoffer default", "hoffer", None, None, "precision+table"),
    ("horseshoes default", "horseshoes", None, None, "precision+table"),
    ("hyjack default", "hyjack", None, None, "precision+table"),
    ("hasenpfeffer default", "hasenpfeffer", None, None, "precision+table"),
    ("kings_and_fools default", "kings_and_fools", None, None, "precision+table"),
]
STAGES = ("deal", "bids", "play", "score", "summary")


def _stage_rows(hands: int, repeats: int) -> list[Row]:
    """Nanoseconds per hand of each stage (deal, bids, play, score, summary accumulation),
    one thread: the kernel's stage workload (kernel.chunk.run_stages) taken to each stage in
    turn, interleaved within every repeat, and the differences of the medians. The next
    speed-up is chosen from these."""
    rows = []
    for label, game, players, cards, policy in STAGE_CASES:
        v = load_variant(game, players=players) if players else load_variant(game)
        h = cards or max(v.schedule)
        play, _, bid = policy.partition("+")
        job = make_job(v, h, hands, 1, play, bid, None, None, None)
        args = job.args()
        scratch = job.scratch()

        def stage(upto: int, count: int, a: Any = args, sc: Any = scratch) -> None:
            run_stages(a.P, a.tables, a.seed, 0, count, a.hand_size, a.constrained, a.fixed,
                       a.forced_trump, a.play_pol, a.bid_pol, sc, upto)

        for upto in (STAGE_DEAL, STAGE_BIDS, STAGE_SCORE, STAGE_HAND):
            stage(upto, 1_000)                      # warm: compile untimed
        run_summary_chunk(job, 0, 1_000)
        runs: dict[str, list[float]] = {k: [] for k in ("deal", "bids", "score", "hand", "sum")}
        for _ in range(repeats):
            for key, upto in (("deal", STAGE_DEAL), ("bids", STAGE_BIDS),
                              ("score", STAGE_SCORE), ("hand", STAGE_HAND)):
                t = time.perf_counter()
                stage(upto, hands)
                runs[key].append((time.perf_counter() - t) * 1e9 / hands)
            t = time.perf_counter()
            run_summary_chunk(job, 0, hands)
            runs["sum"].append((time.perf_counter() - t) * 1e9 / hands)
        med = {k: statistics.median(x) for k, x in runs.items()}
        cost = {"deal": med["deal"], "bids": med["bids"] - med["deal"],
                "play": med["hand"] - med["score"], "score": med["score"] - med["bids"],
                "summary": med["sum"] - med["hand"]}
        for name in STAGES:
            rows.append(Row(f"stage {label}: {name}", cost[name], unit="ns/hand",
                            note=f"{v.canonical}, {h} cards, {policy}, 1 thread, differences "
                                 f"of medians (whole hand {med['sum']:.0f} ns)"))
    return rows


def _deal_row(repeats: int) -> Row:
    """Deals per second of the dealing kernel alone, 2 threads."""
    v = load_variant("oh_hell", players=4)
    P = compile_tables(v).P
    fixed = np.zeros(4, np.uint64)
    count = 20_000_000

    def half(start: int) -> None:
        run_deals(P, np.uint64(1), start, count // 2, 10, fixed, np.zeros(5, np.uint64),
                  np.zeros(3, np.uint64))

    half(0)

    def run() -> int:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(half, [0, count // 2]))
        return count

    rates = _median_rate(run, repeats)
    return Row("deal only 4p x10", statistics.median(rates), "deals/s", rates,
               TARGETS["deal only 4p x10"],
               f"draws from the free-card mask, bit select: {SELECT_PATH}, 2 threads")


def _odds_rows(repeats: int) -> list[Row]:
    """Seconds for bid odds over ODDS_SAMPLES accepted deals, every bid evaluated (racing,
    and exhaustive for comparison); sequential games also with the earlier bid given. A
    trump named by another player (Hoffer seats 0-2, Horseshoes seats 1-3) is a condition,
    so more deals are dealt than accepted."""
    rows = []
    for game, hand, seat, trump in ODDS_CASES:
        v = load_variant(game)
        h = len(hand.split())
        befores: list[str | None] = [None]
        if v.bidding_form == "sequential" and seat > 0:
            # the earlier seat's most common bid at this size, so rejection keeps enough deals
            res = simulate_hands(v, h, 4_000, seed=0, keep="summary")
            counts = res.counts[0].sum(axis=1)
            befores.append(str(int(np.argmax(counts))))
        for before in befores:
            for exhaustive in (False, True):
                odds = functools.partial(bid_odds, v, hand, seat=seat, trump=trump,
                                         bids_before=before, samples=ODDS_SAMPLES,
                                         exhaustive=exhaustive, workers=2)
                odds()   # warm: compile and calibrate untimed
                times = []
                for _ in range(repeats):
                    t = time.perf_counter()
                    odds()
                    times.append(time.perf_counter() - t)
                label = f"odds {game} x{h}" + (f" after {before}" if before else "") + \
                    (" exhaustive" if exhaustive else "")
                rows.append(Row(label, statistics.median(times), unit="s", repeats=times,
                                target=None if exhaustive else ODDS_TARGET_S,
                                note=f"{ODDS_SAMPLES:,} accepted deals, every bid; {v.canonical}"))
    return rows


GAMES_TARGET_S = 10.0
GAMES_CASES = [("kings_and_fools", 100_000), ("hoffer", 100_000), ("horseshoes", 100_000),
               ("hyjack", 100_000), ("hasenpfeffer", 100_000), ("oh_hell", 20_000)]


def _games_rows(repeats: int) -> list[Row]:
    """Seconds for whole 4-player games with precision+table, summary kept, 2 threads
    (target: 100,000 Kings and Fools games in 10 s)."""
    rows = []
    for game, games in GAMES_CASES:
        v = load_variant(game)
        simulate_games(v, 2_000, seed=1, workers=2)   # warm: compile and calibrate untimed
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            simulate_games(v, games, seed=0, workers=2)
            times.append(time.perf_counter() - t)
        rows.append(Row(f"games {game} 4p", statistics.median(times), unit="s", repeats=times,
                        target=GAMES_TARGET_S if game == "kings_and_fools" else None,
                        note=f"{games:,} whole games, precision+table; {v.canonical}"))
    return rows


# rule changes compared on the same deals: (game, players, change, target of the realised
# variance reduction on the final-score difference, if any)
PAIRING_CASES: list[tuple[str, int, dict[str, Any], float | None]] = [
    ("horseshoes", 5, {"jokers": 2}, 3.0), ("hoffer", 4, {"peak_twice": True}, 3.0),
    ("hyjack", 4, {"countdown": True}, None),
    ("kings_and_fools", 4, {"bonus_requires_exact": True}, None),
    ("oh_hell", 4, {"schedule": "down_up"}, None),
    ("horseshoes", 4, {"breaking_trump": True}, None),
    ("hasenpfeffer", 4, {"all_pass": "redeal"}, None)]


def pairing_rows(games: int) -> list[Row]:
    """The realised variance reduction of pairing (var of B − A on independent deals over
    var on the same deals) of the final score, the smallest over the seats, for each
    PAIRING_CASES rule change: `games` games each, precision+heuristic."""
    from simulate.games.compare import compare_games

    rows = []
    for game, players, change, target in PAIRING_CASES:
        a = load_variant(game, players=players)
        b = load_variant(game, players=players, **change)
        df = compare_games(a, b, games, seed=0, skill=False, workers=2)
        vr = df[df.metric.str.startswith("score[")].vr.to_numpy(float)
        text = ",".join(f"{k}={v}" for k, v in change.items())
        rows.append(Row(f"pairing {game} {players}p {text}", float(vr.min()), unit="x var",
                        repeats=[float(x) for x in vr], target=target,
                        note=f"final-score variance reduction by seat (min; all in repeats), "
                             f"{games:,} paired games"))
    return rows


def _reference_row(seconds: float) -> Row:
    """Hands per second of the pure-Python reference engine for about `seconds`."""
    v = load_variant("oh_hell", players=4)
    rng = random.Random(1)
    pols = [RandomPolicy(rng) for _ in range(4)]
    done, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        simulate_hand(v, 7, pols, rng)
        done += 1
    rate = done / (time.perf_counter() - t)
    return Row("reference engine oh_hell 4p x7 random", rate, repeats=[rate],
               note="pure Python, 1 core")


def _openspiel_worker(seconds: float, seed: int) -> float:
    """Hands per second of OpenSpiel's Oh Hell with random bots in this process."""
    import pyspiel

    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 7})
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(4)]
    done, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + done)
        done += 1
    return done / (time.perf_counter() - t)


def _openspiel_rows(seconds: float, repeats: int) -> list[Row]:
    """OpenSpiel on 1 and 2 cores, or a not-installed row (open-spiel is optional)."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return [Row("OpenSpiel oh_hell 4p x7 random", float("nan"),
                    note="open-spiel not installed: pip install -e '.[bench]'")]
    ctx = get_context("spawn")
    one, two = [], []
    with ctx.Pool(2) as pool:
        for r in range(repeats):
            one.append(pool.apply(_openspiel_worker, (seconds, 100 * r)))
            two.append(sum(pool.starmap(_openspiel_worker,
                                        [(seconds, 100 * r), (seconds, 100 * r + 50)])))
    return [Row("OpenSpiel oh_hell 4p x7 random, 1 core", statistics.median(one), repeats=one,
                note="C++ game and bots via pyspiel.evaluate_bots"),
            Row("OpenSpiel oh_hell 4p x7 random, 2 cores", statistics.median(two), repeats=two,
                note="two processes side by side")]


@dataclass(frozen=True)
class YardstickPlan:
    """The head-to-head runs of the benchmark: deals per opponent (0: skip it), simulations
    per move of OpenSpiel's search, and an optional time cap per opponent."""

    ismcts_deals: int = 200
    mcts_deals: int = 100
    simulations: int = 1000
    seconds: float | None = None
    arrangement: str = "alternate"

    @classmethod
    def quick(cls) -> YardstickPlan:
        """A smoke run: a few deals at 100 simulations per move."""
        return cls(ismcts_deals=10, mcts_deals=10, simulations=100)


def yardstick_rows(plan: YardstickPlan, echo: Callable[[str], None] = print) -> list[Row]:
    """bidlab's default policies (precision+table) against OpenSpiel's ISMCTS and MCTS bots
    in OpenSpiel's oh_hell, 4 players x 7 cards, every deal in both alternating seatings
    (or `plan.arrangement`) with the same deal: bidlab's points per hand minus the
    opponent's, a 95% interval over deals; target: above 0 (issue 14: beat ISMCTS at 1,000
    simulations per move). One process, one core."""
    try:
        from simulate.openspiel import SearchSettings, head_to_head
    except ImportError:
        return [Row("yardstick bidlab - OpenSpiel ISMCTS", float("nan"), unit="pts/hand",
                    note="open-spiel not installed: pip install -e '.[bench]'")]
    rows = []
    for opponent, deals in (("ismcts", plan.ismcts_deals), ("mcts", plan.mcts_deals)):
        if deals <= 0:
            continue
        res = head_to_head(opponent, deals=deals, players=4, tricks=7,
                           settings=SearchSettings(simulations=plan.simulations),
                           seconds=plan.seconds, arrangement=plan.arrangement,
                           echo=echo)
        label = "ISMCTS" if opponent == "ismcts" else "MCTS"
        rows.append(Row(f"yardstick bidlab - OpenSpiel {label}", res.mean, unit="pts/hand",
                        repeats=[float(x) for x in res.interval], target=0.0,
                        interval=res.interval,
                        note=f"{res.summary()}; {res.seconds:.0f} s, 1 core"))
    return rows


def _subprocess_probe(code: str, env: dict[str, str]) -> dict[str, Any]:
    """Run code in a fresh interpreter; its last stdout line (JSON) plus the wall time."""
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - t
    return result


# Run in a fresh interpreter, so its imports are text here (an import-path rename must
# update them by hand).
# The peak is read from /proc/self/status (VmHWM: this address space's own high-water
# mark) where Linux has it: getrusage's ru_maxrss keeps the larger peak of the process
# before its exec, here the fork of this benchmark, which had every kernel compiled (every
# probe read this process's ~2.3 GB whatever it ran).
PROBE = """
import json, resource, time, sys
t = time.perf_counter()
from simulate.hands.simulate import simulate_hands
from simulate.rules.load import load_variant
v = load_variant("oh_hell", players=4)
res = simulate_hands(v, 7, {hands}, seed=0, play="random", bid="random", keep="summary")
elapsed = time.perf_counter() - t
try:
    with open("/proc/self/status") as f:
        peak = next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"first_result_s": elapsed, "peak_rss_mb": peak,
                  "hands": int(res.counts.sum()) // 4}}))
"""


def _startup_and_memory(memory_hands: list[int]) -> dict[str, Any]:
    """Cold and warm time to a first result, `bidlab --version` time and peak memory in
    summary mode, each in a fresh interpreter with an empty kernel cache."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        env["BIDLAB_CACHE_DIR"] = cache
        env.pop("NUMBA_CACHE_DIR", None)
        cold = _subprocess_probe(PROBE.format(hands=1000), env)
        warm = _subprocess_probe(PROBE.format(hands=1000), env)
        memory = [_subprocess_probe(PROBE.format(hands=h), env) for h in memory_hands]
    cli_start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simulate", "--version"], check=True,
                   capture_output=True)
    return {"cold_compile_s": cold["first_result_s"], "cold_wall_s": cold["wall_s"],
            "warm_start_s": warm["first_result_s"], "warm_wall_s": warm["wall_s"],
            "cli_version_s": time.perf_counter() - cli_start,
            "summary_peak_rss_mb": {str(m["hands"]): round(m["peak_rss_mb"], 1)
                                    for m in memory}}


def _kernel_rows(repeats: int, scale: int) -> tuple[list[Row], list[tuple[str, str]]]:
    """The kernel workloads, and the (greedy, precision+table) row pairs of the policy cost."""
    rows = [
        _kernel_row("oh_hell 4p x7 random", "oh_hell", 4, 7, "random",
                    8_000_000 // scale, repeats, TARGETS["oh_hell 4p x7 random"]),
        _kernel_row("oh_hell 4p x7 greedy", "oh_hell", 4, 7, "greedy",
                    4_000_000 // scale, repeats, None),
        _kernel_row("oh_hell 4p x10 greedy", "oh_hell", 4, 10, "greedy",
                    4_000_000 // scale, repeats, TARGETS["oh_hell 4p x10 greedy"]),
        _kernel_row("oh_hell 4p x10 precision+table", "oh_hell", 4, 10,
                    "precision+table", 4_000_000 // scale, repeats, None),
    ]
    cost_pairs = [("oh_hell 4p x10 greedy", "oh_hell 4p x10 precision+table")]
    for game in ("hoffer", "horseshoes", "hyjack", "hasenpfeffer", "kings_and_fools"):
        v = load_variant(game)
        label = f"{game} {v.players}p x{max(v.schedule)}"
        rows.append(_kernel_row(f"{label} greedy", game, v.players, max(v.schedule), "greedy",
                                4_000_000 // scale, repeats, None))
        rows.append(_kernel_row(f"{label} precision+table (default)", game, v.players,
                                max(v.schedule), "precision+table", 4_000_000 // scale, repeats,
                                SEED_GAME_TARGET))
        cost_pairs.append((f"{label} greedy", f"{label} precision+table (default)"))
    rows.append(_kernel_row("horseshoes 6p x8 precision+table", "horseshoes", 6, 8,
                            "precision+table", 2_000_000 // scale, repeats, MANY_PLAYERS_TARGET))
    rows.append(_kernel_row("kings_and_fools 7p x7 precision+table", "kings_and_fools", 7, 7,
                            "precision+table", 2_000_000 // scale, repeats, MANY_PLAYERS_TARGET))
    return rows, cost_pairs


def _ratios(rows: list[Row]) -> dict[str, float]:
    """bidlab's random-policy rate over each peer's (OpenSpiel, the reference engine)."""
    ours = next(r for r in rows if r.name == "oh_hell 4p x7 random").rate
    ratios = {}
    for row in rows:
        if row.name.startswith("OpenSpiel") or row.name.startswith("reference"):
            if row.rate == row.rate and row.rate > 0:      # not NaN (peer not installed)
                ratios[f"bidlab 2 threads / {row.name}"] = ours / row.rate
    return ratios


def _echo_startup(sm: dict[str, Any], echo: Callable[[str], None]) -> None:
    """Print the start-up and memory figures of _startup_and_memory."""
    echo(f"  cold compile to first result  {sm['cold_compile_s']:7.1f} s   (target <= 60 s)")
    echo(f"  warm start to first result    {sm['warm_start_s']:7.2f} s   (target <= 2 s)")
    echo(f"  bidlab --version              {sm['cli_version_s']:7.2f} s")
    for hands, mb in sm["summary_peak_rss_mb"].items():
        echo(f"  peak memory, {int(hands):>13,} hands in summary mode: {mb:8.1f} MB")


def run_benchmark(quick: bool = False, full: bool = False, out_dir: str | Path | None = None,
                  echo: Callable[[str], None] = print,
                  yardstick: YardstickPlan | None = None) -> dict[str, Any]:
    """Run every workload, print the table, write bench-<time>.json and return its content.

    quick: 3 repeats and a quarter of the hands (else 5 repeats), and a smoke-sized
    head-to-head; full: also summary-mode memory at 1e8 and 1e9 hands; out_dir: folder for
    the JSON (default benchmarks/results); echo: where the lines go; yardstick: the
    head-to-head against OpenSpiel's search bots (default: YardstickPlan(), or its quick
    form with `quick`).
    """
    repeats = 3 if quick else 5
    scale = 1 if not quick else 4
    echo(f"bidlab benchmark: medians over {repeats} repeats, 2 threads unless noted; "
         f"kernel bit select: {SELECT_PATH}")
    rows, cost_pairs = _kernel_rows(repeats, scale)
    rows.append(_probe_row(4_000_000 // scale, repeats))
    rows.extend(_stage_rows(200_000 // scale, repeats))
    rows.append(_deal_row(repeats))
    rows.extend(_odds_rows(repeats))
    rows.extend(_games_rows(repeats))
    rows.extend(pairing_rows(5_000 if quick else 20_000))
    rows.append(_reference_row(2.0 if quick else 5.0))
    rows.extend(_openspiel_rows(1.0 if quick else 3.0, repeats))
    rows.extend(yardstick_rows(yardstick or (YardstickPlan.quick() if quick else
                                             YardstickPlan()), echo))
    for row in rows:
        echo(_format_row(row))

    ratios = _ratios(rows)
    by_name = {r.name: r.rate for r in rows}
    policy_cost = {f"{slow} vs {fast}": by_name[fast] / by_name[slow]
                   for fast, slow in cost_pairs}
    echo("")
    for k, r in ratios.items():
        echo(f"  ratio  {k:<62s} {r:10.1f}x")
    echo("\npolicy cost: greedy hands/s over precision+table hands/s (target <= 2)")
    for k, r in policy_cost.items():
        echo(f"  {k:<80s} {r:6.2f}x")

    echo("\nstart-up and memory (fresh kernel cache, then warm; summary mode)")
    memory_hands = [10**5, 10**6, 10**7] + ([10**8, 10**9] if full else [])
    sm = _startup_and_memory(memory_hands)
    _echo_startup(sm, echo)

    report = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(),
                    "platform": platform.platform(), "processor": _cpu_name(),
                    "bit_select": SELECT_PATH},
        "rows": [asdict(r) | {"met": r.met} for r in rows],
        "ratios": ratios,
        "policy_cost": policy_cost,
        "startup_memory": sm,
        "max_rss_mb_this_process": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    folder = Path(out_dir or "benchmarks/results")
    path = folder / f"bench-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    write_atomically(path, lambda tmp: Path(tmp).write_text(json.dumps(report, indent=2)))
    echo(f"\nwrote {path}")
    return report


def run_yardstick(plan: YardstickPlan, out_dir: str | Path | None = None,
                  echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Only the head-to-head rows of the benchmark (yardstick_rows): print them, write
    yardstick-<time>.json to out_dir (default benchmarks/results) and return its content."""
    echo("bidlab against OpenSpiel's search bots in OpenSpiel's oh_hell, 4 players x 7 cards")
    rows = yardstick_rows(plan, echo)
    for row in rows:
        echo(_format_row(row))
    report = {"when": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": {"python": platform.python_version(), "processor": _cpu_name()},
              "plan": asdict(plan), "rows": [asdict(r) | {"met": r.met} for r in rows]}
    folder = Path(out_dir or "benchmarks/results")
    path = folder / f"yardstick-{datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    write_atomically(path, lambda tmp: Path(tmp).write_text(json.dumps(report, indent=2)))
    echo(f"\nwrote {path}")
    return report


def _format_row(row: Row) -> str:
    """One row of the printed table."""
    seconds = row.unit == "s"
    target = "" if row.target is None else \
        (f"target <= {row.target:9.2f}  " if seconds else f"target {row.target:>12,.0f}  ") + \
        ("met" if row.met else "MISSED")
    if row.unit == "x var":       # a ratio, better high
        target = "" if row.target is None else \
            f"target >= {row.target:9.2f}  " + ("met" if row.met else "MISSED")
    if row.interval is not None:      # a measured difference, better high
        target = "" if row.target is None else \
            f"target: 95% low > {row.target:g}  " + ("met" if row.met else "MISSED")
        lo, hi = row.interval
        target = f"[{lo:+.2f}, {hi:+.2f}]  " + target
    rate = "n/a" if row.rate != row.rate else \
        (f"{row.rate:14.3f}" if seconds or row.unit == "x var" else
         f"{row.rate:+14.2f}" if row.unit == "pts/hand" else f"{row.rate:14,.0f}")
    return f"  {row.name:<44s} {rate:>14s} {row.unit:<8s} {target}"


def _cpu_name() -> str:
    """The CPU model from /proc/cpuinfo, else platform.processor()."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
