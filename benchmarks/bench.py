"""`make bench`: run bidlab's benchmark (see simulate/bench.py; also `bidlab bench`)."""

import argparse

from simulate.bench import YardstickPlan, run_benchmark, run_yardstick

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller runs")
    parser.add_argument("--full", action="store_true",
                        help="also measure summary-mode memory at 1e8 and 1e9 hands")
    parser.add_argument("--out", default="benchmarks/results", help="folder for the JSON")
    parser.add_argument("--yardstick-only", action="store_true",
                        help="only the head-to-head against OpenSpiel's ISMCTS and MCTS bots")
    parser.add_argument("--ismcts-deals", type=int, help="head-to-head deals against ISMCTS "
                        "(0: skip; default 200, 10 with --quick)")
    parser.add_argument("--mcts-deals", type=int, help="head-to-head deals against MCTS "
                        "(0: skip; default 100, 10 with --quick)")
    parser.add_argument("--simulations", type=int, help="OpenSpiel search simulations per "
                        "move (default 1000, 100 with --quick)")
    parser.add_argument("--seconds", type=float, help="stop each head-to-head after this long")
    parser.add_argument("--seating", choices=["alternate", "one"],
                        help="alternate: 2 bidlab + 2 opponents, both ways (default); one: "
                             "1 bidlab against 3, rotated over every seat")
    args = parser.parse_args()
    base = YardstickPlan.quick() if args.quick else YardstickPlan()
    plan = YardstickPlan(
        ismcts_deals=base.ismcts_deals if args.ismcts_deals is None else args.ismcts_deals,
        mcts_deals=base.mcts_deals if args.mcts_deals is None else args.mcts_deals,
        simulations=args.simulations or base.simulations,
        seconds=args.seconds, arrangement=args.seating or base.arrangement)
    if args.yardstick_only:
        run_yardstick(plan, out_dir=args.out)
    else:
        run_benchmark(quick=args.quick, full=args.full, out_dir=args.out, yardstick=plan)
