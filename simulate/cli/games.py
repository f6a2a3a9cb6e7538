"""`bidlab games` and `bidlab compare`: commands about whole games.

The game layers (numba, pandas) are imported inside each command function, not here: that
keeps `bidlab --help` and `bidlab rules` from loading them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import click

from simulate.cli.options import (
    check_out,
    load_from_cli,
    players_option,
    show_progress,
    variant_options,
)
from simulate.errors import BidlabInputError
from simulate.rules.variant import Variant
from simulate.tables.policies import pair_label

SKILL_GAMES = 50_000      # most games per seating behind the skill index
CEILING_GAMES = 5_000     # default games per seating behind the luck ceiling (it plays every
                          # bid of its hands, so it costs a few times more)


def _train_missing(configs: Sequence[Variant]) -> None:
    """Train (once; the tables are cached) every configuration's table bidder that is not
    trained for its whole schedule (an auction game: its auction table)."""
    from simulate.hands.train import train
    from simulate.tables.compile import record_trained_sizes, trained_sizes

    for v in configs:
        if set(v.schedule) <= set(trained_sizes(v)):
            continue
        click.echo(f"training the table bidder for {v.canonical} (once; cached)", err=True)
        train(v, echo=lambda line: click.echo(line, err=True))
        record_trained_sizes(v, sorted(set(v.schedule)))


def game_policy_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options every whole-game command shares."""
    for decorator in reversed([
        click.option("--games", "-n", type=int, default=100_000, show_default=True,
                     help="Whole games per configuration."),
        click.option("--seed", type=int, default=0, show_default=True),
        click.option("--policies", default=None, metavar="PLAY+BID[,PLAY+BID...]",
                     help="Everyone's policies, or one per seat (seat 0 = first dealer's left); "
                          "default: precision+table for games, precision+heuristic for compare "
                          "(trained tables exist only for default configurations)."),
        click.option("--stars", "star_threshold", type=int, default=2, show_default=True,
                     help="Horseshoes with stars: spend a star on hands costing at least this."),
        click.option("--skill/--no-skill", default=True, show_default=True,
                     help="Also measure the skill index (one strong seat among weaker ones)."),
        click.option("--skill-policies", default=None, metavar="STRONG,FIELD",
                     help="The strong policy of the skill index and the field's (default: "
                          "precision + the best bidder trained for every configuration, "
                          "among greedy+heuristic)."),
        click.option("--workers", type=int, default=None,
                     help="Threads, or dask worker processes with --dask local (default: all "
                          "cores)."),
        click.option("--dask", "dask", default=None, metavar="local",
                     help="Run the chunks on a dask LocalCluster of worker processes."),
        click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Run the chunks on an existing dask cluster."),
        click.option("--out", default=None, metavar="FILE",
                     help="Also write the table to a .csv or .parquet file."),
        click.option("--progress/--no-progress", default=None,
                     help="Progress bar (default: on when writing to a terminal)."),
    ]):
        func = decorator(func)
    return func


@contextlib.contextmanager
def _game_backend(workers: int | None, dask: str | None,
                  scheduler: str | None) -> Iterator[Any]:
    """None (local threads) unless --dask local or --scheduler asks for a dask backend."""
    if dask is None and scheduler is None:
        yield None
        return
    from simulate.runner.backends import make_backend

    backend = make_backend(workers, dask, scheduler)
    try:
        yield backend
    finally:
        backend.close()


def _warn_inert(configs: Sequence[Variant]) -> None:
    """Warn (stderr) about options that change nothing in a configuration."""
    from simulate.rules.load import inert_note

    for note in dict.fromkeys(inert_note(v) for v in configs):
        if note:
            click.echo(note, err=True)


def _policy_list(text: str) -> str | list[str]:
    """--policies: one PLAY+BID for every seat, or a list of one per seat."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise BidlabInputError("--policies: give PLAY+BID, or one PLAY+BID per seat")
    return items[0] if len(items) == 1 else items


def _skill_pair(text: str) -> tuple[str, str]:
    """--skill-policies STRONG,WEAK."""
    items = [t.strip() for t in text.split(",")]
    if len(items) != 2 or not all(items):
        raise BidlabInputError(f"--skill-policies {text!r}: give STRONG,FIELD, e.g. "
                               "precision+table,greedy+heuristic")
    return items[0], items[1]


def _describe_policies(v: Variant, policies: str | list[str]) -> str:
    """The seats' policies as outputs name them for v (a table bidder without a trained
    table for v is named as the heuristic it falls back to)."""
    if isinstance(policies, str):
        return f"{pair_label(v, policies)} in every seat"
    return ", ".join(f"seat {s}: {pair_label(v, p)}" for s, p in enumerate(policies))


@click.command()
@variant_options
@game_policy_options
@click.option("--ceiling-games", type=int, default=CEILING_GAMES, show_default=True,
              help="Games per seating behind the luck ceiling (a clairvoyant bidder; it plays "
                   "every bid of its hands out, so it is slower); 0 leaves it out.")
def games(v: Variant, games: int, seed: int, policies: str | None, star_threshold: int,
          skill: bool, skill_policies: str | None, ceiling_games: int, workers: int | None,
          dask: str | None, scheduler: str | None, out: str | None,
          progress: bool | None) -> None:
    """Play whole games of VARIANT and print the balance metrics with 95% CIs: win share,
    score and bid accuracy by seat, game length, ties, margins, everyone-exact hands, the
    hook, special cards, and the skill index with its bidding and play parts and the luck
    ceiling."""
    from simulate.games.metrics import format_metrics
    from simulate.games.simulate import HAND_BY_HAND, simulate_games
    from simulate.games.skill import FIELD, best_bidder, format_skill, skill_profile

    check_out(out)
    if ceiling_games < 0:
        raise BidlabInputError(f"--ceiling-games {ceiling_games}: give a number of games, "
                               "or 0 to leave the luck ceiling out")
    _warn_inert([v])
    pols = _policy_list(policies or "precision+table")
    strong, field = _skill_pair(skill_policies or f"precision+{best_bidder([v])},{FIELD}")
    show = show_progress(progress)
    skill_games = min(games, SKILL_GAMES)
    with _game_backend(workers, dask, scheduler) as backend:
        res = simulate_games(v, games, seed=seed, policies=pols, stars=star_threshold,
                             workers=workers, progress=show, backend=backend)
        prof = skill_profile(v, skill_games, seed=seed, strong=strong, field=field,
                             ceiling_games=min(ceiling_games, games) or None,
                             stars=star_threshold, workers=workers,
                             backend=backend) if skill else None
    n = v.players
    click.echo(f"{v.canonical}: {games:,} games, seed {seed}, {_describe_policies(v, pols)}")
    click.echo(f"seats: 0 = first dealer's left ... {n - 1} = first dealer; 95% CIs")
    click.echo(HAND_BY_HAND)
    click.echo(format_metrics(res.metrics))
    if prof is not None:
        click.echo(format_skill(prof))
    if out:
        from simulate.util.files import write_table

        write_table(res.metrics, out)
        click.echo(f"wrote {out}")


def _b_configs(variant: str, a: Variant, base_sets: tuple[str, ...], sets: tuple[str, ...],
               vs: str | None, sweep: str | None) -> list[tuple[str, Variant]]:
    """`compare`'s B configurations with their labels: A with --set, --vs FILE, or one per
    --sweep value."""
    b_name = vs if vs is not None else variant
    b_sets = list(base_sets) + list(sets) if vs is None else list(sets)
    if sweep is None:
        label = " ".join(sets) if vs is None else f"{vs} {' '.join(sets)}".strip()
        return [(label, load_from_cli(b_name, a.players, b_sets))]
    key, sep, values = sweep.partition("=")
    vals = [x.strip() for x in values.split(",") if x.strip()]
    if not sep or not key.strip() or not vals:
        raise BidlabInputError(f"--sweep {sweep!r}: write OPTION=V1,V2,...")
    return [(f"{key.strip()}={x}", load_from_cli(b_name, a.players,
                                                   b_sets + [f"{key.strip()}={x}"]))
            for x in vals]


@click.command()
@click.argument("variant", metavar="VARIANT|FILE")
@players_option
@click.option("--base", "base_sets", multiple=True, metavar="OPTION=VALUE",
              help="An option both configurations share (repeatable).")
@click.option("--set", "-s", "sets", multiple=True, metavar="OPTION=VALUE",
              help="What B changes (repeatable).")
@click.option("--vs", "vs", default=None, metavar="VARIANT|FILE",
              help="B is this variant (a shipped name or a TOML file), with --set applied.")
@click.option("--sweep", default=None, metavar="OPTION=V1,V2,...",
              help="Compare A with one B per value (a summary table across the values).")
@click.option("--plot", default=None, metavar="STEM",
              help="With --sweep: also draw every measure's B − A by value with intervals "
                   "to STEM.png and STEM.svg.")
@click.option("--train", "train_tables", is_flag=True,
              help="Train the table bidder for every configuration that has no trained table "
                   "(saved in the user cache; 1-3 minutes each) and compare with "
                   "precision+table.")
@game_policy_options
def compare(variant: str, players: int | None, base_sets: tuple[str, ...],
            sets: tuple[str, ...], vs: str | None, sweep: str | None, plot: str | None,
            train_tables: bool,
            games: int, seed: int,
            policies: str | None, star_threshold: int, skill: bool,
            skill_policies: str | None, workers: int | None, dask: str | None,
            scheduler: str | None, out: str | None, progress: bool | None) -> None:
    """Play A (VARIANT with --base options) and B (A with --set, or --vs FILE, or each
    --sweep value) on the same deals; print every balance metric side by side with the
    paired difference B − A, its 95% CI, the variance reduction the pairing gave, and
    marks corrected for multiple comparisons (Holm)."""
    import pandas as pd

    from simulate.games.compare import compare_games, untrained_note

    check_out(out)
    if plot and sweep is None:
        raise BidlabInputError("--plot draws a sweep's measures by value; give --sweep "
                               "OPTION=V1,V2,... with it")
    if not sets and vs is None and sweep is None:
        raise BidlabInputError("compare: nothing to compare; give --set OPTION=VALUE, "
                               "--vs VARIANT|FILE or --sweep OPTION=V1,V2,...")
    strong = "precision+table" if train_tables else "precision+heuristic"
    pols = _policy_list(policies or strong)
    pair = _skill_pair(skill_policies or f"{strong},greedy+heuristic")
    a = load_from_cli(variant, players, base_sets)
    configs = _b_configs(variant, a, base_sets, sets, vs, sweep)
    if train_tables:
        _train_missing([a] + [b for _, b in configs])
    _warn_inert([a] + [b for _, b in configs])
    note = untrained_note([a] + [b for _, b in configs], pols)
    if note:
        click.echo(note, err=True)
    show = show_progress(progress)
    click.echo(f"A: {a.canonical}")
    click.echo(f"{games:,} games per configuration on the same deals, seed {seed}, "
               f"{_describe_policies(a, pols)}; seats: 0 = first dealer's left")
    frames = []
    with _game_backend(workers, dask, scheduler) as backend:
        for label, b in configs:
            if b.canonical == a.canonical:
                click.echo(f"\nB ({label}) is the same configuration as A; skipped")
                continue
            if _describe_policies(b, pols) != _describe_policies(a, pols):
                click.echo(f"B ({label}): {_describe_policies(b, pols)}")
            df = compare_games(a, b, games, seed=seed, policies=pols, stars=star_threshold,
                               skill=skill, skill_policies=pair, workers=workers,
                               progress=show, label_a=a.canonical, label_b=b.canonical,
                               backend=backend)
            frames.append(df.assign(change=label, value=label.partition("=")[2] or label))
    if not frames:
        return
    _print_comparison(frames, configs, sweep, plot)
    if out:
        from simulate.util.files import write_table

        write_table(pd.concat(frames, ignore_index=True), out)
        click.echo(f"wrote {out}")


def _print_comparison(frames: list[Any], configs: list[tuple[str, Variant]], sweep: str | None,
                      plot: str | None) -> None:
    """Print each B's block, with the marks Holm-corrected over everything printed; for a
    sweep also the summary table (and the metric-by-value plot with --plot)."""
    import pandas as pd

    from simulate.games.metrics import format_paired, holm_marks, holm_note, variance_note

    whole = holm_marks(pd.concat(frames, ignore_index=True))
    start = 0
    by_label = dict(configs)
    for df in frames:
        part = whole.iloc[start:start + len(df)]
        start += len(df)
        label = str(df["change"].iloc[0])
        click.echo(f"\nB: {by_label[label].canonical}  ({label})")
        click.echo(format_paired(part, notes=False))
        click.echo(variance_note(part))
    if sweep is not None and len(frames) > 1:
        from simulate.games.sweep import format_sweep

        option = sweep.partition("=")[0].strip()
        click.echo("\nsweep summary")
        click.echo(format_sweep(whole, option))
        if plot:
            from reports.charts.balance import sweep_chart

            paths = sweep_chart(whole, plot, option, f"{frames[0]['config_a'].iloc[0]}: "
                                f"B − A by {option}")
            click.echo("wrote " + ", ".join(str(p) for p in paths))
    click.echo(holm_note(whole))
