"""`bidlab report`: the HTML report of every game."""

from __future__ import annotations

import click

from simulate.cli.options import check_dir, load_from_cli, show_progress
from simulate.errors import BidlabInputError


@click.command()
@click.argument("games", nargs=-1, metavar="[VARIANT ...]")
@click.option("--players", "-p", type=int, default=None,
              help="Player count for every game (default: each game's usual count).")
@click.option("--hands", type=int, default=1_000_000, show_default=True,
              help="Hands per hand size.")
@click.option("--forced-deals", type=int, default=200_000, show_default=True,
              help="Deals per seat and hand size behind the forced-bid class tables and "
                   "cheat sheets (every candidate bid is played on each).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", default="out/report", show_default=True, metavar="DIR")
@click.option("--games", "balance_games", type=int, default=100_000, show_default=True,
              help="Whole games behind each Balance page (0: no Balance pages).")
@click.option("--render-only", is_flag=True,
              help="Re-render the site from the stored tables without simulating.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bars (default: on when writing to a terminal).")
def report(games: tuple[str, ...], players: int | None, hands: int, forced_deals: int,
           seed: int, out: str,
           balance_games: int, render_only: bool, progress: bool | None) -> None:
    """Simulate every game and hand size and write the HTML report (tables, charts, odds)."""
    # Imported here: the report pulls in pandas, matplotlib and the simulation layers.
    from reports.build import build_report
    from simulate.cli.warm import finish_warm, start_warm, stop_warm

    for g in games:
        load_from_cli(g, players)          # bad names and player counts fail before any work
    check_dir(out)
    show = show_progress(progress)
    if balance_games < 0:
        raise BidlabInputError(f"--games {balance_games}: give 0 (no Balance pages) or more")
    started = [] if render_only else start_warm(("forced", "games") if balance_games else
                                                ("forced",))
    if started:
        click.echo(f"warming the kernel cache: the {' and '.join(g for g, _ in started)} "
                   f"kernels compile in the background (on a first run this takes minutes) "
                   f"while the report starts")
    try:
        build_report(games, players=players, hands=hands, seed=seed, out=out,
                     render_only=render_only, progress=show, echo=click.echo,
                     balance_games=balance_games, forced_deals=forced_deals)
    except BaseException:
        stop_warm(started)
        raise
    for failure in finish_warm(started):
        click.echo(f"kernel warm-up failed ({failure}); the report compiled them itself",
                   err=True)
