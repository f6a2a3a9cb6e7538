"""A/B benchmark: simulate/bench.py's workloads for two source trees, interleaved in one run.

    python benchmarks/ab.py --a /work/baseline --b . [--quick] [--repeats 3] [--startup]
    make ab AB_BASE=/work/baseline [AB_ARGS="--quick --repeats 1"]

The issue's "done when" asks every `make bench` figure to stay within 3% of the old tree's,
medians, same run, same machine. Measuring the two trees hours apart on a shared machine
says little, so this runs them side by side: each repeat runs `run_benchmark` once per tree,
each in a fresh subprocess whose PYTHONPATH (and working folder) is that tree, so it imports
its own `simulate`. The order alternates (A B, B A, A B, ...) so that a drift in machine load
favours neither. Then for every figure (each benchmark row, the policy-cost and peer ratios)
it prints the median over the repeats of both trees, the ratio B/A and whether it is within
±3%. Rows bench.py could not measure (OpenSpiel when open-spiel is not installed) show n/a.

run_benchmark's start-up and memory section compiles the kernel cold in a temporary cache
(a minute or more per call) through a probe script of its own; it is left out of the
interleaved runs. With --startup this script measures the same figures itself, through the
public `simulate.simulate_hands` of each tree: cold compile and warm start to the first
result, `python -m simulate --version`, and summary-mode peak memory.

A measurement, not a test: the exit status is 0 whatever the ratios (1 only when a tree's
benchmark fails to run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TOLERANCE = 0.03

# One benchmark run inside the tree under test. The start-up section is swapped for a stub of
# the same shape (see the module docstring): the figures it would give are measured by
# `startup_figures` instead, when asked for.
RUN_ONE = """
import json, sys
import simulate.bench as bench
tree, quick, out = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
if not bench.__file__.startswith(tree):
    sys.exit(f"imported {bench.__file__}, not the tree {tree}")
nan = float("nan")
bench._startup_and_memory = lambda memory_hands: {
    "cold_compile_s": nan, "cold_wall_s": nan, "warm_start_s": nan, "warm_wall_s": nan,
    "cli_version_s": nan, "summary_peak_rss_mb": {}}
report = bench.run_benchmark(quick=quick, out_dir=out, echo=lambda line: None)
print(json.dumps({"rows": report["rows"], "ratios": report["ratios"],
                  "policy_cost": report["policy_cost"]}))
"""

PROBE = """
import json, resource, sys, time
t = time.perf_counter()
import simulate as sim
v = sim.load_variant("oh_hell", players=4)
res = sim.simulate_hands(v, 7, int(sys.argv[1]), seed=0, play="random", bid="random",
                         keep="summary")
print(json.dumps({"first_result_s": time.perf_counter() - t,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
MEMORY_HANDS = [10**5, 10**6, 10**7]

# (figure, unit) -> one value per run
Figures = dict[tuple[str, str], float]


def tree_env(tree: Path, **extra: str) -> dict[str, str]:
    """The environment of a subprocess that must import `simulate` from `tree` only."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(tree), **extra)
    return env


def run_in(tree: Path, python: str, args: list[str], env: dict[str, str]) -> str:
    """Run `python args` in `tree`; its stdout (a failure exits this script with status 1)."""
    done = subprocess.run([python, *args], cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"ab: the run in {tree} failed (status {done.returncode}):\n{done.stderr}")
    return done.stdout


def bench_figures(tree: Path, python: str, quick: bool, out_dir: Path) -> Figures:
    """One run_benchmark in `tree`: every row's median, and the derived ratios."""
    out = run_in(tree, python, ["-c", RUN_ONE, str(tree), "1" if quick else "0", str(out_dir)],
                 tree_env(tree))
    report = json.loads(out.strip().splitlines()[-1])
    figures: Figures = {(row["name"], row["unit"]): row["rate"] for row in report["rows"]}
    figures.update({(name, "x"): value for name, value in report["ratios"].items()})
    figures.update({(f"policy cost {name}", "x"): value
                    for name, value in report["policy_cost"].items()})
    return figures


def startup_figures(tree: Path, python: str) -> Figures:
    """Cold compile and warm start to the first result, `--version`, summary-mode memory."""
    def probe(hands: int, env: dict[str, str]) -> dict[str, float]:
        return json.loads(run_in(tree, python, ["-c", PROBE, str(hands)], env)
                          .strip().splitlines()[-1])

    with tempfile.TemporaryDirectory() as cache:
        env = tree_env(tree, BIDLAB_CACHE_DIR=cache)
        env.pop("NUMBA_CACHE_DIR", None)
        cold = probe(1000, env)
        warm = probe(1000, env)
        memory = {hands: probe(hands, env)["peak_rss_mb"] for hands in MEMORY_HANDS}
    t = time.perf_counter()
    run_in(tree, python, ["-m", "simulate", "--version"], tree_env(tree))
    figures: Figures = {("cold compile to first result", "s"): cold["first_result_s"],
                        ("warm start to first result", "s"): warm["first_result_s"],
                        ("bidlab --version", "s"): time.perf_counter() - t}
    figures.update({(f"peak memory, {hands:,} hands summary", "MB"): mb
                    for hands, mb in memory.items()})
    return figures


def median(values: list[float]) -> float:
    """The median of the measured values (NaN, a figure not measured, left out)."""
    kept = [v for v in values if not math.isnan(v)]
    return statistics.median(kept) if kept else math.nan


def table(runs: dict[str, list[Figures]]) -> list[dict[str, Any]]:
    """One line per figure: medians over the runs of A and B, B/A, within the tolerance."""
    names = list(dict.fromkeys(key for figures in runs["A"] + runs["B"] for key in figures))
    lines = []
    for name, unit in names:
        a = median([f.get((name, unit), math.nan) for f in runs["A"]])
        b = median([f.get((name, unit), math.nan) for f in runs["B"]])
        ratio = b / a if a and not math.isnan(a) and not math.isnan(b) else math.nan
        lines.append({"figure": name, "unit": unit, "median_a": a, "median_b": b,
                      "ratio_b_a": ratio,
                      "within": None if math.isnan(ratio) else abs(ratio - 1) <= TOLERANCE})
    return lines


def fmt(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def print_table(lines: list[dict[str, Any]], a: Path, b: Path, repeats: int) -> None:
    print(f"\nA = {a}\nB = {b}\nmedians over {repeats} interleaved run(s) each; "
          f"within = |B/A - 1| <= {TOLERANCE:.0%} (rates: higher is better; s, MB: lower)\n")
    width = max(len(line["figure"]) for line in lines)
    print(f"{'figure':<{width}}  {'unit':<8} {'median A':>14} {'median B':>14} {'B/A':>7}  within")
    for line in lines:
        within = {None: "n/a", True: "yes", False: "NO"}[line["within"]]
        ratio = "n/a" if math.isnan(line["ratio_b_a"]) else f"{line['ratio_b_a']:.3f}"
        print(f"{line['figure']:<{width}}  {line['unit']:<8} {fmt(line['median_a']):>14} "
              f"{fmt(line['median_b']):>14} {ratio:>7}  {within}")
    measured = [line for line in lines if line["within"] is not None]
    print(f"\n{sum(line['within'] for line in measured)} of {len(measured)} measured figures "
          f"within ±{TOLERANCE:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, type=Path, help="the baseline source tree")
    parser.add_argument("--b", default=Path("."), type=Path, help="the tree compared (default .)")
    parser.add_argument("--quick", action="store_true", help="bench.py's quick workloads")
    parser.add_argument("--repeats", type=int, default=3,
                        help="benchmark runs per tree, interleaved (default 3)")
    parser.add_argument("--startup", action="store_true",
                        help="also measure cold/warm start and memory (a cold compile per run)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter for both trees (default: this one)")
    parser.add_argument("--out", type=Path, help="also write the table and every run as JSON")
    args = parser.parse_args()
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    for label, tree in trees.items():
        if not (tree / "simulate" / "bench.py").is_file():
            parser.error(f"--{label.lower()} {tree}: no simulate/bench.py there")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    runs: dict[str, list[Figures]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(args.repeats):
            for label in ("A", "B") if r % 2 == 0 else ("B", "A"):
                t = time.perf_counter()
                print(f"run {r + 1}/{args.repeats} {label} ({trees[label]}) ...", end=" ",
                      flush=True)
                figures = bench_figures(trees[label], args.python, args.quick,
                                        Path(scratch) / f"{label}{r}")
                if args.startup:
                    figures.update(startup_figures(trees[label], args.python))
                runs[label].append(figures)
                print(f"{time.perf_counter() - t:.0f} s", flush=True)
    lines = table(runs)
    print_table(lines, trees["A"], trees["B"], args.repeats)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"ab-{time.strftime('%Y%m%d-%H%M%S')}.json"
        path.write_text(json.dumps({
            "a": str(trees["A"]), "b": str(trees["B"]), "quick": args.quick,
            "repeats": args.repeats, "table": lines,
            "runs": {k: [[[n, u, v] for (n, u), v in f.items()] for f in fs]
                     for k, fs in runs.items()}}, indent=2))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
