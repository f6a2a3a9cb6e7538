"""`bidlab bench`: the benchmark of `make bench`."""

from __future__ import annotations

import click


@click.command()
@click.option("--quick", is_flag=True, help="Fewer repeats and smaller runs.")
@click.option("--full", is_flag=True, help="Also measure summary memory at 1e8 and 1e9 hands.")
@click.option("--out", default="benchmarks/results", show_default=True,
              help="Folder for the JSON results.")
def bench(quick: bool, full: bool, out: str) -> None:
    """Measure hands per second against targets and peers (OpenSpiel, the reference engine)."""
    # Imported here: the benchmark loads numba and every simulation layer.
    from simulate.bench import run_benchmark

    run_benchmark(quick=quick, full=full, out_dir=out, echo=click.echo)
