"""`make bench`: run bidlab's benchmark (see simulate/bench.py; also `bidlab bench`)."""

import argparse

from simulate.bench import run_benchmark

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller runs")
    parser.add_argument("--full", action="store_true",
                        help="also measure summary-mode memory at 1e8 and 1e9 hands")
    parser.add_argument("--out", default="benchmarks/results", help="folder for the JSON")
    args = parser.parse_args()
    run_benchmark(quick=args.quick, full=args.full, out_dir=args.out)
