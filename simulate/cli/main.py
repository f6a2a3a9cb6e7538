"""The `bidlab` command line.

Adding a command is one decorated function on the `cli` group::

    @cli.command()
    @variant_options                      # VARIANT|FILE, --players N, --set option=value
    @click.option("--hands", type=int, default=100_000)
    def simulate(v: Variant, hands: int) -> None:
        from .run import ...              # import heavy modules (numba) inside the command
        ...

`variant_options` loads the variant (shipped name or path to a TOML file) and passes it in
as `v`; `load_from_cli` does the same for commands that take their arguments differently.

Errors: raise `BidlabInputError` (or a click usage error) for anything the user got wrong.
`main()` turns it into one line, `bidlab: error: <message>`, on stderr and exit status 2.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import click

from simulate import __version__
from simulate.errors import BidlabInputError
from simulate.rules.cards import RANK_NAMES, SUIT_GLYPH, SUITS, TRUMP_NAMES
from simulate.rules.variant import (
    ALWAYS_WINS,
    FOOLS_KING,
    LAST_PLAYED_WINS,
    NEVER_WINS,
    PLAIN,
    WINS_IF_LED,
    Variant,
    load_variant,
    parse_option_assignments,
    shipped_variants,
)

PROG = "bidlab"
EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


# ----- shared helpers for commands ---------------------------------------------------------

def load_from_cli(name_or_path: str, players: int | None = None,
                  sets: Iterable[str] = ()) -> Variant:
    """A variant from the command line: a shipped name or a .toml path, players, --set list."""
    options = parse_option_assignments(sets)
    return load_variant(name_or_path, players=players, **options)


def variant_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add `VARIANT|FILE`, `--players/-p` and `--set/-s option=value`; pass the Variant as `v`."""

    @functools.wraps(func)
    def wrapper(*args: Any, variant: str, players: int | None, sets: tuple[str, ...],
                **kwargs: Any) -> Any:
        return func(*args, v=load_from_cli(variant, players, sets), **kwargs)

    wrapper = click.option(
        "--set", "-s", "sets", multiple=True, metavar="OPTION=VALUE",
        help="Set a game option (repeatable); `bidlab variants` lists them.")(wrapper)
    wrapper = click.option(
        "--players", "-p", type=int, default=None, metavar="N",
        help="Number of players (default: the game's usual count).")(wrapper)
    wrapper = click.argument("variant", metavar="VARIANT|FILE")(wrapper)
    return wrapper


def suit_label(suit: int | str) -> str:
    """`♠ S`, `♥ H`, ... or `NT`."""
    name = SUITS[suit] if isinstance(suit, int) else suit
    return "NT" if name == "NT" else f"{SUIT_GLYPH[name]} {name}"


# ----- the group -----------------------------------------------------------------------------

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name=PROG,
                      message="%(prog)s %(version)s")
def cli() -> None:
    """bidlab: Monte Carlo bidding analysis for precision-bidding trick-taking games.

    VARIANT is a shipped game (see `bidlab variants`) or a path to a variant TOML file.
    """


@cli.command()
def variants() -> None:
    """List the shipped games, their player counts and options."""
    for name in shipped_variants():
        v = load_variant(name)
        lo, hi = v.player_range
        count = f"{lo}" if lo == hi else f"{lo} to {hi}"
        click.echo(f"{name} — {v.title}")
        click.echo(f"  players: {count} (usually {v.usual_players})")
        if not v.option_specs:
            click.echo("  options: none")
        else:
            click.echo("  options (--set option=value):")
        for spec in v.option_specs.values():
            setting = f"{spec.name}={spec.show(spec.default)}"
            click.echo(f"    {setting:<28} {spec.allowed()}")
            if spec.help:
                click.echo("\n".join(_para(spec.help, margin=6, hang=0)))
        click.echo("")


@cli.command()
@variant_options
def rules(v: Variant) -> None:
    """Print the complete rules of VARIANT as loaded (options applied)."""
    click.echo(describe_rules(v))


def _parse_fixed(items: Iterable[str]) -> dict[int, str]:
    fixed: dict[int, str] = {}
    for item in items:
        seat, sep, cards = item.partition(":")
        if not sep or not seat.strip().isdigit():
            raise BidlabInputError(f"--fixed {item!r}: write SEAT:CARDS, e.g. --fixed '2:AS KS 9H'")
        fixed[int(seat)] = cards
    return fixed


# Options of `simulate` that change its numbers: on --resume each one given must agree with
# the run's manifest (JobSpec field → how the user writes it).
RESUME_FIELDS = {"hand_size": "--hand-size", "hands": "--hands", "seed": "--seed",
                 "play": "--play", "bid": "--bid", "trump": "--trump", "fixed": "--fixed",
                 "round_index": "--round", "chunk_size": "--chunk-size"}
DEFAULT_CHUNK = 1 << 16      # = simulate.run.DEFAULT_CHUNK, without importing numba here


def _given(ctx: click.Context) -> set[str]:
    from click.core import ParameterSource

    return {name for name in ctx.params
            if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}


def _show_policy(names: Sequence[str]) -> str:
    return names[0] if len(set(names)) == 1 else ",".join(names)


def _resume_spec(ctx: click.Context, folder: str, out: str | None) -> tuple[Any, Any, Any]:
    """(RunDir, JobSpec, out file) of `--resume DIR`; options given on the command line must
    agree with the run's manifest (one line naming every contradiction, exit 2)."""
    from simulate.hands.simulate import make_job
    from simulate.runner.backends import JobSpec
    from simulate.runner.rundir import RunDir, spec_from_manifest

    rd = RunDir(folder)
    manifest = rd.read_manifest()
    spec = spec_from_manifest(manifest, rd.path)
    p = ctx.params
    given = _given(ctx)
    conflicts: list[str] = []
    if given & {"players", "sets"} and "variant" not in given:
        raise BidlabInputError("--players/--set with --resume need VARIANT as well (or give "
                               "neither: the run's manifest names the variant)")
    if "variant" in given:
        user_v = load_from_cli(p["variant"], p["players"], p["sets"])
        if user_v.canonical != spec.variant.canonical:
            conflicts.append(f"VARIANT {user_v.canonical} (the run: {spec.variant.canonical})")
    if given & set(RESUME_FIELDS):
        v = spec.variant.load()
        pick = {f: p[f] if f in given else getattr(spec, f)
                for f in ("hand_size", "hands", "seed", "trump", "round_index", "chunk_size")}
        fixed = _parse_fixed(p["fixed"]) if "fixed" in given else dict(spec.fixed)
        job = make_job(v, pick["hand_size"], pick["hands"], pick["seed"],
                       p["play"] if "play" in given else list(spec.play),
                       p["bid"] if "bid" in given else list(spec.bid), pick["trump"], fixed,
                       pick["round_index"])
        mine = JobSpec.of(job, pick["chunk_size"], spec.keep, spec.card_stats)
        for f, flag in RESUME_FIELDS.items():
            a, b = getattr(mine, f), getattr(spec, f)
            if a != b:
                conflicts.append(f"{flag} {_plain(a)} (the run: {_plain(b)})")
    if "out" in given and spec.keep != "records":
        conflicts.append("--out (the run kept a summary only, not every hand)")
    if conflicts:
        raise BidlabInputError(f"--resume {folder}: options contradict the run: "
                               + "; ".join(conflicts))
    if "out" not in given:
        out = (manifest.get("cli") or {}).get("out")
    return rd, spec, out


def _plain(value: Any) -> str:
    if isinstance(value, tuple) and all(isinstance(x, str) for x in value):
        return _show_policy(value) if value else "none"
    if isinstance(value, tuple):
        return " ".join(f"{s}:{c}" for s, c in value) or "none"
    return str(value)


@cli.command()
@click.argument("variant", metavar="VARIANT|FILE", required=False)
@click.option("--players", "-p", type=int, default=None, metavar="N",
              help="Number of players (default: the game's usual count).")
@click.option("--set", "-s", "sets", multiple=True, metavar="OPTION=VALUE",
              help="Set a game option (repeatable); `bidlab variants` lists them.")
@click.option("--hand-size", "-h", "hand_size", type=int, default=None,
              help="Cards per player (default: the largest hand of the schedule).")
@click.option("--hands", "-n", type=int, default=1_000_000, show_default=True,
              help="Number of hands to deal and play.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--play", default="precision", show_default=True, help="Play policy.")
@click.option("--bid", default="table", show_default=True, help="Bid policy.")
@click.option("--trump", default=None, help="Force trump (S H D C NT) where a player chooses.")
@click.option("--fixed", multiple=True, metavar="SEAT:CARDS",
              help="Fix a seat's cards, e.g. '2:HIJO AS KS 9H 10D' (seat 0 = dealer's left).")
@click.option("--round", "round_index", type=int, default=None,
              help="Which round of the schedule (matters for HyJack's Max Bet).")
@click.option("--workers", type=int, default=None,
              help="Threads, or worker processes with --dask local (default: all cores).")
@click.option("--out", default=None, metavar="FILE",
              help="Write one row per (hand, seat) to a .parquet or .csv file.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar (default: on when writing to a terminal).")
@click.option("--chunk-size", "chunk_size", type=int, default=DEFAULT_CHUNK, show_default=True,
              help="Hands per chunk: the unit of work sent to a thread or worker, saved in a "
                   "run directory and resumed.")
@click.option("--dask", "dask_mode", default=None, metavar="local",
              help="Run the chunks on a local dask cluster of --workers processes "
                   "(needs the dist extra).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run the chunks on the dask.distributed cluster of this scheduler.")
@click.option("--run-dir", "run_dir", default=None,
              metavar="DIR",
              help="Keep every finished chunk in DIR (a new or empty folder) so an interrupted "
                   "run can be resumed.")
@click.option("--resume", default=None, metavar="DIR",
              help="Continue the run kept in DIR; its manifest gives every other option.")
@click.pass_context
def simulate(ctx: click.Context, variant: str | None, players: int | None,
             sets: tuple[str, ...], hand_size: int | None, hands: int, seed: int, play: str,
             bid: str, trump: str | None, fixed: tuple[str, ...], round_index: int | None,
             workers: int | None, out: str | None, progress: bool | None, chunk_size: int,
             dask_mode: str | None, scheduler: str | None, run_dir: str | None,
             resume: str | None) -> None:
    """Deal and play hands of VARIANT with fixed policies; print tricks and scores by seat.

    With --run-dir DIR every finished chunk is kept in DIR; after Ctrl-C or SIGTERM,
    `bidlab simulate --resume DIR` finishes the run with the same result as an uninterrupted
    one. --dask local or --scheduler ADDR run the chunks on dask.distributed, bit for bit
    the same numbers as local threads.
    """
    from contextlib import nullcontext

    if run_dir is not None and resume is not None:
        raise BidlabInputError("give --run-dir DIR for a new run or --resume DIR to continue "
                               "one, not both")
    if out is not None:
        _check_out(out)
    if dask_mode is not None and dask_mode != "local":
        raise BidlabInputError(f"--dask {dask_mode!r}; allowed: local (for a cluster use "
                               "--scheduler tcp://HOST:PORT)")
    if dask_mode is not None and scheduler is not None:
        raise BidlabInputError("give --dask local or --scheduler ADDR, not both")
    from simulate.hands.simulate import positive_int, simulate_hands
    from simulate.runner.rundir import RunDir, RunInterrupted, stop_on_signals

    chunk_size = positive_int(chunk_size, "--chunk-size")
    if resume is not None:
        rd, spec, out = _resume_spec(ctx, resume, out)
        v = spec.variant.load()
        size, hands, seed = spec.hand_size, spec.hands, spec.seed
        plays, bids = list(spec.play), list(spec.bid)
        trump, fixed_map, round_index = spec.trump, dict(spec.fixed), spec.round_index
        chunk_size, keep = spec.chunk_size, spec.keep
    else:
        if variant is None:
            raise BidlabInputError("missing VARIANT|FILE (or --resume DIR); see "
                                   "'bidlab simulate --help'")
        v = load_from_cli(variant, players, sets)
        size = hand_size if hand_size is not None else max(v.schedule)
        plays, bids = [play] * v.players, [bid] * v.players
        fixed_map = _parse_fixed(fixed)
        keep = "records" if out else "summary"
        rd = None
        if run_dir is not None:
            rd = RunDir(run_dir)
            rd.cli = {"out": os.path.abspath(out) if out else None}
    show = sys.stderr.isatty() if progress is None else progress
    backend = None
    if dask_mode is not None or scheduler is not None:
        from simulate.runner.backends import make_backend

        backend = make_backend(workers, dask_mode, scheduler)
    try:
        with stop_on_signals() if rd is not None else nullcontext() as flag:
            if rd is not None:
                rd.stop = flag
            res = simulate_hands(v, size, hands, seed=seed,
                                 play=play if resume is None else plays,
                                 bid=bid if resume is None else bids, trump=trump,
                                 fixed=fixed_map, keep=keep, workers=workers,
                                 round_index=round_index, progress=show, chunk_size=chunk_size,
                                 backend=backend, run_dir=rd)
    except RunInterrupted as exc:
        click.echo(str(exc), err=True)
        ctx.exit(exc.exit_status)
    finally:
        if backend is not None:
            backend.close()
    click.echo(f"{v.canonical}: {hands:,} hands of {size} cards, seed {seed}, "
               f"play={_show_policy(plays)}, bid={_show_policy(bids)}")
    dist = res.trick_distribution()
    summary = res.summary
    click.echo("seat  " + " ".join(f"{'P(' + str(k) + ')':>7s}" for k in range(size + 1))
               + "   mean tricks  mean score")
    for seat in range(v.players):
        rows = summary[summary.seat == seat]
        n = rows.n.sum()
        tricks = (rows.n * rows.tricks).sum() / max(n, 1)
        score = (rows.n * rows.score_mean).sum() / max(n, 1)
        probs = " ".join(f"{dist.loc[seat, f'P{k}']:7.4f}" for k in range(size + 1))
        who = " (dealer)" if seat == v.players - 1 else ""
        click.echo(f"{seat:>4d}  {probs}   {tricks:11.3f}  {score:10.3f}{who}")
    if out:
        from simulate.util.files import write_table
        try:
            write_table(res.records, out)
        except OSError as exc:
            raise BidlabInputError(f"--out {out}: cannot write it ({exc.strerror or exc})") \
                from None
        click.echo(f"wrote {out}")


def _check_out(out: str | None) -> None:
    """Refuse an --out file that cannot be written before any work is done."""
    if out is None:
        return
    if not out.endswith((".parquet", ".csv")):
        raise BidlabInputError(f"--out {out!r}: the file must end in .parquet or .csv")
    if "\x00" in out:
        raise BidlabInputError(f"--out {out!r}: not a usable file name")
    from pathlib import Path

    target = Path(out).absolute()
    if target.is_dir():
        raise BidlabInputError(f"--out {out!r} is a folder; give a file name")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise BidlabInputError(f"--out {out!r}: cannot write in {folder}")


def _check_dir(out: str | None, what: str = "--out") -> None:
    """Refuse an output folder that cannot be made or written before any work is done."""
    if out is None:
        return
    if "\x00" in out or not out.strip():
        raise BidlabInputError(f"{what} {out!r}: not a usable folder name")
    from pathlib import Path

    target = Path(out).absolute()
    if target.exists() and not target.is_dir():
        raise BidlabInputError(f"{what} {out!r} is a file; give a folder")
    folder = target
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise BidlabInputError(f"{what} {out!r}: cannot write in {folder}")


@cli.command()
@variant_options
@click.option("--seats", "seats", required=True, metavar="PLAY+BID,PLAY+BID,...",
              help="The entrants, at least two, e.g. precision+table,greedy+greedy,random+random.")
@click.option("--hands", "-n", type=int, default=100_000, show_default=True,
              help="Deals in all (each played once per seating), shared among the hand sizes.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--hand-size", "-h", "hand_size", type=int, default=None,
              help="Play one hand size (default: every round of the schedule, each counting once).")
@click.option("--seating", type=click.Choice(["auto", "cyclic", "all"]), default="auto",
              show_default=True,
              help="all: every order of the entrants (E! seatings); cyclic: E shifts; "
                   "auto: all up to 4 entrants.")
@click.option("--workers", type=int, default=None, help="Threads (default: all cores).")
def tournament(v: Variant, seats: str, hands: int, seed: int, hand_size: int | None,
               seating: str, workers: int | None) -> None:
    """Play policy pairs against each other on the same deals, every one in every seat;
    print mean scores, exact-bid rates and paired differences with 95% intervals."""
    from simulate.hands.tournament import parse_entrants, run_tournament

    entrants = parse_entrants(seats)
    res = run_tournament(v, entrants, hands, seed=seed,
                         hand_sizes=None if hand_size is None else [hand_size],
                         workers=workers, seating=seating)
    click.echo(res.format())


@cli.command()
@variant_options
@click.option("--hand-size", "-h", "hand_sizes", type=int, multiple=True,
              help="Train only these hand sizes (default: every size of the schedule).")
@click.option("--deals", type=int, default=30_000, show_default=True,
              help="Deals per hand size and iteration (each replayed once per candidate bid).")
@click.option("--iterations", type=int, default=8, show_default=True,
              help="Most self-play rounds (it stops sooner when fewer than 1% of bids change).")
@click.option("--out", default=None, metavar="DIR",
              help="Folder for the table (default: the user cache, where bidlab finds it).")
def train(v: Variant, hand_sizes: tuple[int, ...], deals: int, iterations: int,
          out: str | None) -> None:
    """Build the `table` bidder's tables for VARIANT by self-play and save them."""
    from pathlib import Path

    from simulate.hands.train import train as run_training

    if iterations < 1:
        raise BidlabInputError(f"--iterations {iterations}: at least 1")
    _check_dir(out)
    click.echo(f"training the table bidder for {v.canonical}")
    path = run_training(v, list(hand_sizes) or None, deals=deals, max_iter=iterations,
                        folder=Path(out) if out else None, echo=click.echo)
    click.echo(f"wrote {path}")


@cli.command()
@variant_options
@click.option("--hand", required=True, help="The focal hand, e.g. 'HIJO AS KS 9H 10D'.")
@click.option("--seat", type=int, default=0, show_default=True,
              help="The hand's seat: 0 = dealer's left, n-1 = the dealer.")
@click.option("--trump", default=None, help="Trump (S H D C NT) where it is chosen or turned up.")
@click.option("--bids-before", "bids_before", default=None, metavar="B,B,...",
              help="Bids already made by the players before this seat, in bidding order.")
@click.option("--samples", type=int, default=100_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--play", default="precision", show_default=True, help="Everyone's play policy.")
@click.option("--bid", default="table", show_default=True, help="The other players' bid policy.")
@click.option("--exhaustive", is_flag=True,
              help="Play every bid on every deal (by default a bid clearly worse than the best "
                   "stops early).")
def odds(v: Variant, hand: str, seat: int, trump: str | None, bids_before: str | None,
         samples: int, seed: int, play: str, bid: str, exhaustive: bool) -> None:
    """Every legal bid for a hand: P(exactly that bid), expected score, trick distribution."""
    from simulate.hands.odds import bid_odds, format_odds

    click.echo(format_odds(bid_odds(v, hand, seat=seat, trump=trump, bids_before=bids_before,
                                    samples=samples, seed=seed, play=play, bid=bid,
                                    exhaustive=exhaustive)))


@cli.command()
@click.argument("games", nargs=-1, metavar="[VARIANT ...]")
@click.option("--players", "-p", type=int, default=None,
              help="Player count for every game (default: each game's usual count).")
@click.option("--hands", type=int, default=1_000_000, show_default=True,
              help="Hands per hand size.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", default="out/report", show_default=True, metavar="DIR")
@click.option("--games", "balance_games", type=int, default=100_000, show_default=True,
              help="Whole games behind each Balance page (0: no Balance pages).")
@click.option("--render-only", is_flag=True,
              help="Re-render the site from the stored tables without simulating.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bars (default: on when writing to a terminal).")
def report(games: tuple[str, ...], players: int | None, hands: int, seed: int, out: str,
           balance_games: int, render_only: bool, progress: bool | None) -> None:
    """Simulate every game and hand size and write the HTML report (tables, charts, odds)."""
    from reports.build import build_report

    for g in games:
        load_from_cli(g, players)          # bad names and player counts fail before any work
    _check_dir(out)
    show = sys.stderr.isatty() if progress is None else progress
    if isinstance(balance_games, int) and balance_games < 0:
        raise BidlabInputError(f"--games {balance_games}: give 0 (no Balance pages) or more")
    build_report(games, players=players, hands=hands, seed=seed, out=out,
                 render_only=render_only, progress=show, echo=click.echo,
                 balance_games=balance_games)


def _train_missing(configs: Sequence[Variant]) -> None:
    """Train (once; the tables are cached) every configuration's table bidder that is not
    trained for its whole schedule. Auctions have nothing to train."""
    from simulate.hands.train import train
    from simulate.tables.compile import record_trained_sizes, trained_sizes

    for v in configs:
        if v.bidding_form == "auction" or set(v.schedule) <= set(trained_sizes(v)):
            continue
        click.echo(f"training the table bidder for {v.canonical} (once; cached)", err=True)
        train(v, echo=lambda line: click.echo(line, err=True))
        record_trained_sizes(v, list(v.schedule))


def _game_policy_options(func: Callable[..., Any]) -> Callable[..., Any]:
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
        click.option("--skill-policies", default=None, metavar="STRONG,WEAK",
                     help="The strong and the weak policy of the skill index (default: "
                          "the strong one is --policies' default, the weak greedy+heuristic)."),
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


def _policy_list(text: str) -> str | list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise BidlabInputError("--policies: give PLAY+BID, or one PLAY+BID per seat")
    return items[0] if len(items) == 1 else items


def _skill_pair(text: str) -> tuple[str, str]:
    items = [t.strip() for t in text.split(",")]
    if len(items) != 2 or not all(items):
        raise BidlabInputError(f"--skill-policies {text!r}: give STRONG,WEAK, e.g. "
                               "precision+table,greedy+heuristic")
    return items[0], items[1]


def _describe_policies(policies: str | list[str]) -> str:
    if isinstance(policies, str):
        return f"{policies} in every seat"
    return ", ".join(f"seat {s}: {p}" for s, p in enumerate(policies))


@cli.command()
@variant_options
@_game_policy_options
def games(v: Variant, games: int, seed: int, policies: str | None, star_threshold: int,
          skill: bool, skill_policies: str | None, workers: int | None, dask: str | None,
          scheduler: str | None, out: str | None, progress: bool | None) -> None:
    """Play whole games of VARIANT and print the balance metrics with 95% CIs: win share,
    score and bid accuracy by seat, game length, ties, margins, everyone-exact hands, the
    hook, special cards and the skill index."""
    from simulate.games.compare import skill_index
    from simulate.games.metrics import format_metrics
    from simulate.games.simulate import simulate_games

    _check_out(out)
    pols = _policy_list(policies or "precision+table")
    strong, weak = _skill_pair(skill_policies or "precision+table,greedy+heuristic")
    show = sys.stderr.isatty() if progress is None else progress
    with _game_backend(workers, dask, scheduler) as backend:
        res = simulate_games(v, games, seed=seed, policies=pols, stars=star_threshold,
                             workers=workers, progress=show, backend=backend)
        sk = skill_index(v, min(games, 50_000), seed=seed, strong=strong, weak=weak,
                         stars=star_threshold, workers=workers,
                         backend=backend) if skill else None
    n = v.players
    click.echo(f"{v.canonical}: {games:,} games, seed {seed}, {_describe_policies(pols)}")
    click.echo(f"seats: 0 = first dealer's left ... {n - 1} = first dealer; 95% CIs")
    click.echo(format_metrics(res.metrics, sk))
    if sk is not None and min(games, 50_000) < games:
        click.echo(f"(skill index over {min(games, 50_000):,} games per seating)")
    if out:
        from simulate.util.files import write_table

        write_table(res.metrics, out)
        click.echo(f"wrote {out}")


@cli.command()
@click.argument("variant", metavar="VARIANT|FILE")
@click.option("--players", "-p", type=int, default=None, metavar="N",
              help="Number of players (default: the game's usual count).")
@click.option("--base", "base_sets", multiple=True, metavar="OPTION=VALUE",
              help="An option both configurations share (repeatable).")
@click.option("--set", "-s", "sets", multiple=True, metavar="OPTION=VALUE",
              help="What B changes (repeatable).")
@click.option("--vs", "vs", default=None, metavar="VARIANT|FILE",
              help="B is this variant (a shipped name or a TOML file), with --set applied.")
@click.option("--sweep", default=None, metavar="OPTION=V1,V2,...",
              help="Compare A with one B per value.")
@click.option("--train", "train_tables", is_flag=True,
              help="Train the table bidder for every configuration that has no trained table "
                   "(saved in the user cache; 1-3 minutes each) and compare with "
                   "precision+table.")
@_game_policy_options
def compare(variant: str, players: int | None, base_sets: tuple[str, ...],
            sets: tuple[str, ...], vs: str | None, sweep: str | None, train_tables: bool,
            games: int, seed: int,
            policies: str | None, star_threshold: int, skill: bool,
            skill_policies: str | None, workers: int | None, dask: str | None,
            scheduler: str | None, out: str | None, progress: bool | None) -> None:
    """Play A (VARIANT with --base options) and B (A with --set, or --vs FILE, or each
    --sweep value) on the same deals; print every balance metric side by side with the
    paired difference B − A and its 95% CI."""
    import pandas as pd

    from simulate.games.compare import compare_games
    from simulate.games.metrics import format_paired

    _check_out(out)
    if not sets and vs is None and sweep is None:
        raise BidlabInputError("compare: nothing to compare; give --set OPTION=VALUE, "
                               "--vs VARIANT|FILE or --sweep OPTION=V1,V2,...")
    strong = "precision+table" if train_tables else "precision+heuristic"
    pols = _policy_list(policies or strong)
    pair = _skill_pair(skill_policies or f"{strong},greedy+heuristic")
    a = load_from_cli(variant, players, base_sets)
    b_name = vs if vs is not None else variant
    b_sets = list(base_sets) + list(sets) if vs is None else list(sets)
    if sweep is not None:
        key, sep, values = sweep.partition("=")
        vals = [x.strip() for x in values.split(",") if x.strip()]
        if not sep or not key.strip() or not vals:
            raise BidlabInputError(f"--sweep {sweep!r}: write OPTION=V1,V2,...")
        configs = [(f"{key.strip()}={x}", load_from_cli(b_name, a.players,
                                                          b_sets + [f"{key.strip()}={x}"]))
                   for x in vals]
    else:
        label = " ".join(sets) if vs is None else f"{vs} {' '.join(sets)}".strip()
        configs = [(label, load_from_cli(b_name, a.players, b_sets))]
    from simulate.games.compare import untrained_note

    if train_tables:
        _train_missing([a] + [b for _, b in configs])
    note = untrained_note([a] + [b for _, b in configs], pols)
    if note:
        click.echo(note, err=True)
    show = sys.stderr.isatty() if progress is None else progress
    click.echo(f"A: {a.canonical}")
    click.echo(f"{games:,} games per configuration on the same deals, seed {seed}, "
               f"{_describe_policies(pols)}; seats: 0 = first dealer's left")
    frames = []
    with _game_backend(workers, dask, scheduler) as backend:
        for label, b in configs:
            if b.canonical == a.canonical:
                click.echo(f"\nB ({label}) is the same configuration as A; skipped")
                continue
            df = compare_games(a, b, games, seed=seed, policies=pols, stars=star_threshold,
                               skill=skill, skill_policies=pair, workers=workers,
                               progress=show, label_a=a.canonical, label_b=b.canonical,
                               backend=backend)
            click.echo(f"\nB: {b.canonical}  ({label})")
            click.echo(format_paired(df))
            frames.append(df.assign(change=label))
    if out and frames:
        from simulate.util.files import write_table

        write_table(pd.concat(frames, ignore_index=True), out)
        click.echo(f"wrote {out}")


@cli.command()
@click.option("--quick", is_flag=True, help="Fewer repeats and smaller runs.")
@click.option("--full", is_flag=True, help="Also measure summary memory at 1e8 and 1e9 hands.")
@click.option("--out", default="benchmarks/results", show_default=True,
              help="Folder for the JSON results.")
def bench(quick: bool, full: bool, out: str) -> None:
    """Measure hands per second against targets and peers (OpenSpiel, the reference engine)."""
    from simulate.bench import run_benchmark

    run_benchmark(quick=quick, full=full, out_dir=out, echo=click.echo)


# ----- `bidlab rules` text -------------------------------------------------------------------

WIDTH = 96

MECHANIC_TEXT = {
    ALWAYS_WINS: "always wins the trick",
    LAST_PLAYED_WINS: "beats every other card; with two in one trick the last one played wins",
    NEVER_WINS: "never wins a trick",
    WINS_IF_LED: "wins the trick when it is led (and nobody has to follow); never wins otherwise",
}

CHOOSER_TEXT = {
    "fixed": "nobody: trump is fixed",
    "dealer": "the dealer, after looking at their hand, before the bidding",
    "first_bidder": "the first bidder, together with their bid",
    "maker": "the maker (the auction winner), after taking the widow",
    "turn_up": "the turned-up card: the suit of the top undealt card (no trump when no card is "
               "left or a special card turns up)",
}

RANK_WORDS = {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"}

EVENT_TEXT = {
    "add": "scores {points:+d}",
    "zero_hand": "scores 0 for the hand",
    "lose_bonus": "loses the exact-bid bonus",
    "as_exact": "scores the hand as if the bid were exact",
}


def _wrap(label: str, text: str, indent: int = 11, margin: int = 2) -> list[str]:
    """`label` in a column, `text` wrapped beside it; a long label pushes the text right."""
    head = " " * margin + label
    head = f"{head:<{indent}}" if len(head) < indent else head + " "
    return textwrap.wrap(text, width=WIDTH, initial_indent=head, subsequent_indent=" " * indent,
                         break_on_hyphens=False) or [head.rstrip()]


def _para(text: str, margin: int = 2, hang: int = 2) -> list[str]:
    """A sentence wrapped at WIDTH, continuation lines indented by `hang` more."""
    return textwrap.wrap(text, width=WIDTH, initial_indent=" " * margin,
                         subsequent_indent=" " * (margin + hang), break_on_hyphens=False)


def _offset_text(offset: int, n: int) -> str:
    seat = (offset - 1) % n
    if offset % n == 0:
        who = "the dealer"
    elif offset % n == 1:
        who = "the player on the dealer's left"
    else:
        who = f"the player {offset % n} places left of the dealer"
    return f"{who} (seat {seat})"


def _deck_suits(v: Variant) -> list[int]:
    return [s for s in range(4) if any(c.suit == s and not c.special for c in v.cards.cards)]


def _suitless_somewhere(v: Variant, index: int) -> bool:
    return any(v.eff_suit_table[TRUMP_NAMES.index(name)][index] < 0 for name in v.trump_choices)


def _mechanic_text(v: Variant, mech: int) -> str:
    if mech == FOOLS_KING:
        fooled = sorted({v.deck[i][:-1] for i, f in enumerate(v.foolable) if f})
        rank = "/".join(RANK_WORDS.get(r, r) for r in fooled) or "King"
        return (f"loses every trick, unless the card that would win it is a {rank}: then the "
                f"first such card played wins (it fools the {rank})")
    if mech == PLAIN:
        return "has no suit and ranks below every card"
    return MECHANIC_TEXT[mech]


def _is_top_trump(v: Variant, t: int, index: int) -> bool:
    power = v.power_table[t]
    same = [i for i in range(len(v.deck)) if v.eff_suit_table[t][i] == t]
    return power[index] == max(power[i] for i in same)


def _special_text(v: Variant, index: int) -> str:
    """What a special card does under each allowed trump choice, in words."""
    by_text: dict[str, list[str]] = {}
    for name in v.trump_choices:
        t = TRUMP_NAMES.index(name)
        if v.eff_suit_table[t][index] >= 0:
            text = "the highest trump" if _is_top_trump(v, t, index) else "a trump"
        else:
            text = _mechanic_text(v, v.mechanic_table[t][index])
        by_text.setdefault(text, []).append("no trump" if name == "NT" else name)
    if len(by_text) == 1:
        parts = [next(iter(by_text))]
    else:
        parts = [f"with {'/'.join(when)}: {text}" if when != ["no trump"]
                 else f"with no trump: {text}" for text, when in by_text.items()]
    if v.wild[index]:
        parts.append("wild: may be played even when able to follow suit")
    elif _suitless_somewhere(v, index):
        parts.append("may be led, but not played while able to follow suit")
    else:
        parts.append("follows as a trump")
    return "; ".join(parts)


def _deck_lines(v: Variant) -> list[str]:
    lines = [f"Deck ({len(v.deck)} cards)"]
    for s in _deck_suits(v):
        ranks = [RANK_NAMES[c.rank] for c in v.cards.cards if not c.special and c.suit == s]
        lines.append(f"  {suit_label(s):<9}{' '.join(ranks)}")
    counts = Counter(c.special for c in v.cards.cards if c.special)
    for special, k in counts.items():
        copies = f" ×{k}" if k > 1 else ""
        lines += _wrap(f"{special}{copies}", _special_text(v, v.deck.index(special)))
    return lines


def _card_note(v: Variant, t: int, index: int) -> str:
    """Bowers: the jacks that rank at the top of trump (Hoffer's Big and Little Jack)."""
    card = v.cards.cards[index]
    if card.special or t == 4 or card.rank != 11 or v.eff_suit_table[t][index] != t:
        return ""
    trump_order = [str(x).upper() for x in (v.rule("ranking.trump") or [])]
    if card.suit == t:
        return "right bower, Big Jack" if "RIGHT_BOWER" in trump_order else ""
    return "left bower, Little Jack"


def _ranking_lines(v: Variant) -> list[str]:
    lines = ["Ranking, high → low in each effective suit (a trump beats every non-trump)"]
    n_cards = len(v.deck)
    for name in v.trump_choices:
        t = TRUMP_NAMES.index(name)
        eff, power = v.eff_suit_table[t], v.power_table[t]
        lines.append("  No trump (NT)" if t == 4 else f"  Trump {suit_label(name)}")
        for s in ([t] if t != 4 else []) + [s for s in _deck_suits(v) if s != t]:
            members = sorted((i for i in range(n_cards) if eff[i] == s),
                             key=lambda i: power[i], reverse=True)
            if not members:
                continue
            shown = []
            for i in members:
                note = _card_note(v, t, i)
                shown.append(f"{v.deck[i]} ({note})" if note else v.deck[i])
            tag = f"{suit_label(s)} trump" if s == t else suit_label(s)
            lines += _wrap(tag, "  ".join(shown), indent=17, margin=4)
        suitless = list(dict.fromkeys(v.deck[i] for i in range(n_cards) if eff[i] == -1))
        if suitless:
            text = "; ".join(f"{c} {_short_mechanic(v.mechanic_table[t][v.deck.index(c)])}"
                             for c in suitless)
            lines += _wrap("no suit", text, indent=17, margin=4)
    if v.rule("ranking.ace_choice"):
        lines += _para("each Ace played is declared high (above the K) or low (below the lowest "
                       "card)")
    return lines


def _short_mechanic(mech: int) -> str:
    return {ALWAYS_WINS: "always wins", LAST_PLAYED_WINS: "beats all (last one played wins)",
            NEVER_WINS: "never wins", WINS_IF_LED: "wins only when led",
            FOOLS_KING: "wins only over a King that would win", PLAIN: "ranks lowest"}[mech]


def _deal_lines(v: Variant) -> list[str]:
    n = v.players
    widow = int(v.rule("deal.widow", 0) or 0)
    peak = max(v.schedule)
    lines = ["Deal"]
    if v.rule("end.rule") == "target" and len(v.schedule) == 1:
        lines.append(f"  every hand: {peak} cards each, until the game ends")
    else:
        sizes = " ".join(str(h) for h in v.schedule)
        lines += _wrap("hand sizes:", f"{sizes}  ({len(v.schedule)} rounds, peak {peak})",
                       indent=14)
    dealt = peak * n + widow
    text = f"  at the peak: {peak * n} cards to the players"
    text += f" + {widow} to the widow" if widow else ""
    text += (f"; {len(v.deck) - dealt} of {len(v.deck)} stay undealt and unseen"
             if dealt < len(v.deck) else f"; the whole deck of {len(v.deck)}")
    lines.append(text)
    if widow:
        discard = int(v.rule("deal.discard", 0) or 0)
        lines.append(f"  widow: {widow} face down; the maker adds it to their hand and discards "
                     f"{discard}")
    lines.append("  the deal passes left after every hand")
    return lines


def _bidding_lines(v: Variant) -> list[str]:
    n = v.players
    form = v.rule("bidding.form")
    first = int(v.rule("bidding.first", 1))
    lines = ["Bidding"]
    if form == "simultaneous":
        lines += _para("simultaneous: everyone picks a bid from 0 to the hand size in secret; "
                       "the bids are revealed together")
    elif form == "sequential":
        last = ", so the dealer bids last" if first % n == 1 else ""
        lines += _para(f"in turn, clockwise, starting with {_offset_text(first, n)}{last}; "
                       "bids from 0 to the hand size, seen by all")
    else:
        lines += _para(f"auction, clockwise from {_offset_text(first, n)}: pass or bid a higher "
                       "step; a player who passes is out; the last bidder left is the maker, "
                       "whose side must take at least the bid's tricks")
        steps = []
        for step in v.ladder:
            extra = [] if step.name == str(step.tricks) else [f"{step.tricks} tricks"]
            extra += [f"×{step.multiplier}"] if step.multiplier != 1 else []
            extra += ["alone"] if step.alone else []
            steps.append(step.name + (f" ({', '.join(extra)})" if extra else ""))
        lines += _wrap("ladder:", ", ".join(steps))
        mode = v.rule("bidding.all_pass", "redeal")
        if mode == "joker_holder":
            text = (f"all pass: the holder of {v.rule('bidding.all_pass_card')} must bid "
                    f"{v.rule('bidding.all_pass_bid', 3)} (redeal when that card is in the widow)")
        elif mode == "stick_dealer":
            text = f"all pass: the dealer must bid at least {v.rule('bidding.stick_dealer_min', 1)}"
        else:
            text = "all pass: the hand is thrown in and redealt"
        lines += _para(text)
        if v.rule("bidding.allow_alone"):
            lines += _para("the maker may go alone (their partner sits out); a defender may then "
                           "defend alone")
        return lines
    constraint = v.rule("bidding.constraint", "none")
    if constraint == "hook":
        text = "hook: the last bidder may not make the bids total the hand size"
    elif constraint == "max_bet":
        text = ("max bet: the bids must total the hand size; each bid keeps the running total "
                "at most the hand size; the last bid is forced")
    else:
        text = "no rule on the total of the bids"
    if constraint != "none" and not all(v.constrained_rounds):
        rounds = [str(i + 1) for i, on in enumerate(v.constrained_rounds) if on]
        text += f" (only in rounds {' '.join(rounds)})" if rounds else " (in no round)"
    return lines + _para(text)


def _play_lines(v: Variant) -> list[str]:
    lead = str(v.rule("play.first_lead", "1"))
    who = "the maker" if lead == "maker" else _offset_text(int(lead), v.players)
    lines = ["Play"]
    lines += _para(f"first lead: {who}; the winner of each trick leads the next")
    lines += _para("follow the led (effective) suit if you can; otherwise play any card")
    wild = list(dict.fromkeys(v.deck[i] for i, w in enumerate(v.wild) if w))
    if wild:
        lines += _para(f"wild (playable even when able to follow): {', '.join(wild)}")
    cards = range(len(v.deck))
    if any(v.mechanic_table[t][i] == WINS_IF_LED for t in range(5) for i in cards):
        lines += _para("when a card that wins if led is led, nobody has to follow suit")
    if any(_suitless_somewhere(v, i) and v.mechanic_table[t][i] != WINS_IF_LED
           for t in range(5) for i in cards):
        lines += _para("when a suitless card is led, the first suited card played sets the suit "
                       "to follow")
    if v.rule("play.breaking_trump"):
        lines += _para("breaking trump: trump may not be led until a trump has been played, "
                       "unless the leader holds only trumps")
    return lines


def _teams_lines(v: Variant) -> list[str]:
    k = v.teams
    if not k:
        return ["Teams", "  none: everyone plays for themselves"]
    teams = [[s for s in range(v.players) if s % k == j] for j in range(k)]
    text = "  ".join("{" + ",".join(str(s) for s in team) + "}" for team in teams)
    return ["Teams", f"  {k} teams of {v.players // k} (seat s plays in team s mod {k}): {text}",
            "  partners add up their bids and tricks and score as one"]


def _scoring_lines(v: Variant) -> list[str]:
    r = v.rule
    lines = ["Scoring (bid = the bid, took = tricks taken, h = hand size, n = players)"]
    if v.is_contract:
        lines.append("  one contract per hand, scored for the maker's side:")
        lines.append(f"  made (took >= bid):    {r('scoring.made')}")
        lines.append(f"  failed (took < bid):   {r('scoring.failed')}")
        lines.append(f"  defenders:             {r('scoring.defenders') or '0'}")
        mult = int(r("scoring.alone_multiplier", 1) or 1)
        if mult != 1 and (r("bidding.allow_alone") or any(s.alone for s in v.ladder)):
            lines.append(f"  a lone maker scores ×{mult}")
        if any(step.multiplier != 1 for step in v.ladder):
            lines.append("  a ladder step's multiplier applies to the makers' score")
    else:
        lines.append("  each team scores its partners' total bid and tricks:" if v.teams
                     else "  each player scores their own bid:")
        lines.append(f"  exact (took == bid):   {r('scoring.exact')}")
        if r("scoring.exact_zero") is not None:
            lines.append(f"  exact zero bid:        {r('scoring.exact_zero')}")
        lines.append(f"  over (took > bid):     {r('scoring.over')}")
        lines.append(f"  under (took < bid):    {r('scoring.under')}")
        if r("scoring.missed_zero") is not None:
            lines.append(f"  missed zero bid:       {r('scoring.missed_zero')}")
        stars = r("scoring.stars") or {}
        if stars.get("enabled"):
            lines += _para(f"stars: a star per exact bid; when everyone is exact nobody scores; "
                           f"a star may be spent to score 0 for a hand; {stars.get('win_at', 5)} "
                           "stars end the game")
        elif r("scoring.everyone_exact") is not None:
            unit = "team" if v.teams else "player"
            lines.append(f"  everyone exact:        each {unit} scores "
                         f"{r('scoring.everyone_exact')} instead")
    fool = r("scoring.fool_bonus") or {}
    if fool.get("points"):
        cond = ", only with an exact bid" if fool.get("requires_exact") else ", exact or not"
        lines += _para(f"fooling a King: +{fool['points']} for each trick won that way{cond}")
    for e in v.events:
        effect = EVENT_TEXT.get(e.effect, e.effect).format(points=e.points)
        lines += _para(f"{e.name} ({v.deck[e.card]}): whoever takes the trick holding it {effect}")
    return lines


def _end_lines(v: Variant) -> list[str]:
    r = v.rule
    better = "highest" if r("end.better", "higher") == "higher" else "lowest"
    lines = ["End"]
    if r("end.rule") == "target":
        lines += _para(f"after the hand in which a total reaches {r('end.target')}; the {better} "
                       "total wins")
        lines += _para("a tie past the target goes to the makers" if r("end.ties") == "makers"
                       else "a tie is a shared win")
    else:
        lines += _para(f"after the last round of the schedule; the {better} total wins")
        if r("end.tiebreak", "none") == "river":
            who = "only the tied players" if r("end.tiebreak_participants") == "tied_only" \
                else "all players"
            lines += _para(f"a tie for the lead: tie-break rounds up the river again (2, 3, …), "
                           f"{who} taking part, until there is one leader; after "
                           f"{r('end.tiebreak_cap', 50)} such rounds the win is shared")
        else:
            lines += _para("a tie is a shared win")
    return lines


def describe_rules(v: Variant) -> str:
    """The whole rules of a loaded variant, for a person to read."""
    lo, hi = v.player_range
    lines = [v.title, "=" * len(v.title)]
    lines.append(f"  canonical: {v.canonical}")  # never wrapped: it is meant to be copied
    if v.source:
        lines += _wrap("source:", v.source, indent=13)
    lines.append(f"  file:      {v.path}")
    if v.summary:
        lines += _wrap("summary:", v.summary, indent=13)
    allowed = f"{lo}" if lo == hi else f"{lo} to {hi}"
    lines += ["", "Players",
              f"  {v.players} (this game allows {allowed}; usually {v.usual_players})",
              f"  seats: 0 = the dealer's left, ..., {v.players - 1} = the dealer; "
              "play runs clockwise"]
    if v.option_specs:
        lines += ["", "Options (change with --set option=value)"]
        width = max(len(f"{k}={spec.show(v.options[k])}") for k, spec in v.option_specs.items())
        for spec in v.option_specs.values():
            value = f"{spec.name}={spec.show(v.options[spec.name])}"
            note = spec.allowed()
            if v.options[spec.name] != spec.default:
                note = f"changed from {spec.show(spec.default)}; {note}"
            lines.append(f"  {value:<{width}}  ({note})")
    lines += [""] + _deck_lines(v)
    lines += ["", "Trump",
              f"  choices: {', '.join(suit_label(t) for t in v.trump_choices)}"]
    lines += _para(f"chosen by: {CHOOSER_TEXT.get(v.trump_chooser, v.trump_chooser)}")
    for section in (_ranking_lines, _deal_lines, _bidding_lines, _play_lines, _teams_lines,
                    _scoring_lines, _end_lines):
        lines += [""] + section(v)
    return "\n".join(lines)


# ----- entry point ---------------------------------------------------------------------------

def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def _error(message: str, status: int = EXIT_INPUT) -> int:
    click.echo(f"{PROG}: error: {_one_line(message) or 'unknown error'}", err=True)
    return status


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI; bad input → one line on stderr and exit 2; Ctrl-C → exit 130."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # pragma: no cover - exotic streams
                pass
    args = list(sys.argv[1:] if argv is None else argv)
    status = 0
    try:
        if not args:
            click.echo(cli.get_help(click.Context(cli, info_name=PROG)))
            sys.exit(0)
        rc = cli.main(args=args, prog_name=PROG, standalone_mode=False)
        status = rc if isinstance(rc, int) and not isinstance(rc, bool) else 0
    except BidlabInputError as exc:
        status = _error(str(exc))
    except click.UsageError as exc:
        message = exc.format_message().rstrip(".")
        if exc.ctx is not None:
            message += f" (see '{exc.ctx.command_path} --help')"
        status = _error(message)
    except click.ClickException as exc:  # BadParameter outside parsing, FileError, ...
        status = _error(exc.format_message())
    except (click.Abort, KeyboardInterrupt):
        status = EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output piped into `head` and closed: stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
