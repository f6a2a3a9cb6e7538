"""`bidlab simulate`, `odds`, `train` and `tournament`: commands about single hands.

The simulation layers (numba, pandas) are imported inside each command function, not here:
that keeps `bidlab --help` and `bidlab rules` from loading them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from simulate.cli.options import (
    HandSizeCommand,
    check_dir,
    check_out,
    hand_size_option,
    load_from_cli,
    players_option,
    sets_option,
    show_progress,
    variant_options,
)
from simulate.errors import BidlabInputError
from simulate.rules.variant import Variant
from simulate.runner.plan import DEFAULT_CHUNK
from simulate.tables.policies import bid_policy_label
from simulate.util.checks import check_seed, positive_int

MIN_QUALITY_HANDS = 20      # held-out hands below which a mean loss says little

# Options of `simulate` that change its numbers: on --resume each one given must agree with
# the run's manifest (JobSpec field → how the user writes it).
RESUME_FIELDS = {"hand_size": "--hand-size", "hands": "--hands", "seed": "--seed",
                 "play": "--play", "bid": "--bid", "trump": "--trump", "fixed": "--fixed",
                 "round_index": "--round", "chunk_size": "--chunk-size"}


def parse_fixed(items: Iterable[str]) -> dict[int, str]:
    """--fixed SEAT:CARDS items as {seat: cards}."""
    fixed: dict[int, str] = {}
    for item in items:
        seat, sep, cards = item.partition(":")
        if not sep or not seat.strip().isdigit():
            raise BidlabInputError(f"--fixed {item!r}: write SEAT:CARDS, e.g. --fixed '2:AS KS 9H'")
        fixed[int(seat)] = cards
    return fixed


def _given(ctx: click.Context) -> set[str]:
    """The parameters written on the command line (not defaults)."""
    return {name for name in ctx.params
            if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}


def _show_policy(names: Sequence[str]) -> str:
    return names[0] if len(set(names)) == 1 else ",".join(names)


def _plain(value: Any) -> str:
    """A JobSpec field as the user would write it."""
    if isinstance(value, tuple) and all(isinstance(x, str) for x in value):
        return _show_policy(value) if value else "none"
    if isinstance(value, tuple):
        return " ".join(f"{s}:{c}" for s, c in value) or "none"
    return str(value)


def _resume_spec(ctx: click.Context, folder: str, out: str | None) -> tuple[Any, Any, Any]:
    """(RunDir, JobSpec, out file) of `--resume DIR`; options given on the command line must
    agree with the run's manifest (one line naming every contradiction, exit 2)."""
    from simulate.hands.job import make_job
    from simulate.hands.tasks import JobSpec, spec_from_manifest
    from simulate.runner.rundir import RunDir

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
        fixed = parse_fixed(p["fixed"]) if "fixed" in given else dict(spec.fixed)
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


def _check_simulate_options(run_dir: str | None, resume: str | None, out: str | None,
                            dask_mode: str | None, scheduler: str | None) -> None:
    """Contradictions among `simulate`'s options, refused before any work."""
    if run_dir is not None and resume is not None:
        raise BidlabInputError("give --run-dir DIR for a new run or --resume DIR to continue "
                               "one, not both")
    check_out(out)
    if dask_mode is not None and dask_mode != "local":
        raise BidlabInputError(f"--dask {dask_mode!r}; allowed: local (for a cluster use "
                               "--scheduler tcp://HOST:PORT)")
    if dask_mode is not None and scheduler is not None:
        raise BidlabInputError("give --dask local or --scheduler ADDR, not both")


def _echo_seat_table(v: Variant, res: Any, size: int) -> None:
    """P(k tricks), mean tricks and mean score of every seat."""
    dist = res.trick_distribution()
    summary = res.summary
    columns = [f"P{k}" for k in range(size + 1)]
    click.echo("seat  " + " ".join(f"{'P(' + str(k) + ')':>7s}" for k in range(size + 1))
               + "   mean tricks  mean score")
    for seat in range(v.players):
        rows = summary[summary.seat == seat]
        n = rows.n.sum()
        tricks = (rows.n * rows.tricks).sum() / max(n, 1)
        score = (rows.n * rows.score_mean).sum() / max(n, 1)
        probs = " ".join(f"{p:7.4f}" for p in dist.loc[seat, columns].to_numpy(dtype=float))
        who = " (dealer)" if seat == v.players - 1 else ""
        click.echo(f"{seat:>4d}  {probs}   {tricks:11.3f}  {score:10.3f}{who}")


@click.command(cls=HandSizeCommand)
@click.argument("variant", metavar="VARIANT|FILE", required=False)
@players_option
@sets_option
@hand_size_option("hand_size", "Cards per player (default: the largest hand of the schedule).")
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
    _check_simulate_options(run_dir, resume, out, dask_mode, scheduler)
    from simulate.hands.simulate import simulate_hands
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
        fixed_map = parse_fixed(fixed)
        keep = "records" if out else "summary"
        rd = None
        if run_dir is not None:
            rd = RunDir(run_dir)
            rd.cli = {"out": os.path.abspath(out) if out else None}
    show = show_progress(progress)
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
               f"play={_show_policy(plays)}, "
               f"bid={_show_policy([bid_policy_label(v, b, [size]) for b in bids])}")
    _echo_seat_table(v, res, size)
    if out:
        from simulate.util.files import write_table

        try:
            write_table(res.records, out)
        except OSError as exc:
            raise BidlabInputError(f"--out {out}: cannot write it ({exc.strerror or exc})") \
                from None
        click.echo(f"wrote {out}")


@click.command(cls=HandSizeCommand)
@variant_options
@click.option("--seats", "seats", required=True, metavar="PLAY+BID,PLAY+BID,...",
              help="The entrants, at least two, e.g. precision+table,greedy+greedy,random+random. "
                   "Bid policy table@FILE: the table bidder reading the trained table in FILE "
                   "(a file of this configuration with the same card rates, e.g. a copy of an "
                   "older table), against the current table on the same deals.")
@click.option("--hands", "-n", type=int, default=100_000, show_default=True,
              help="Deals in all (each played once per seating), shared among the hand sizes.")
@click.option("--seed", type=int, default=0, show_default=True)
@hand_size_option("hand_size",
                  "Play one hand size (default: every round of the schedule, each counting once).")
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


@click.command(cls=HandSizeCommand)
@variant_options
@hand_size_option("hand_sizes", "Train only these hand sizes (default: every size of the "
                                "schedule).", multiple=True)
@click.option("--deals", type=int, default=30_000, show_default=True,
              help="Fresh deals per hand size and iteration (a new seed every iteration; each "
                   "deal replayed once per candidate bid).")
@click.option("--held-out", "held_out", type=int, default=None,
              help="Held-out deals (a seed no iteration trains on) on which every candidate "
                   "table is scored; the best is kept (default: --deals).")
@click.option("--iterations", type=int, default=8, show_default=True,
              help="Most self-play rounds of the class table per hand size (it stops sooner "
                   "once the held-out score has not improved for --patience rounds; 0 keeps "
                   "the table as it is).")
@click.option("--model-deals", "model_deals", type=int, default=100_000, show_default=True,
              help="Fresh deals per seat and round for the learned model trained on top of "
                   "the table (0: no model).")
@click.option("--model-iterations", "model_iterations", type=int, default=3,
              show_default=True,
              help="Most best-response rounds of the learned model per hand size (a round "
                   "is kept only when it gains on held-out deals; 0 keeps its weights and "
                   "only gives a cell a constant bid where one beats the model there).")
@click.option("--patience", type=int, default=2, show_default=True,
              help="Rounds without a better held-out score before a hand size stops.")
@click.option("--seed", type=int, default=None,
              help="Training seed (every round's deals and the held-out deals derive from it; "
                   "default: the shipped tables' seed).")
@click.option("--quality-hands", "quality_hands", type=int, default=400, show_default=True,
              help="Held-out hands behind each size's exploitability (the bidder's loss "
                   "against each hand's best bid, and the class cells a deviation gains in), "
                   "measured before and after training and stored with the bidder (0: not "
                   "measured).")
@click.option("--workers", type=int, default=None, help="Threads (default: all cores).")
@click.option("--out", default=None, metavar="DIR",
              help="Folder for the table (default: the user cache, where bidlab finds it, "
                   "before the shipped tables).")
def train(v: Variant, hand_sizes: tuple[int, ...], deals: int, held_out: int | None,
          iterations: int, model_deals: int, model_iterations: int, patience: int,
          seed: int | None, quality_hands: int, workers: int | None, out: str | None) -> None:
    """Build the `table` bidder for VARIANT (its class tables, then its learned model) by
    self-play on fresh deals, selected on held-out deals, and save it. An auction game
    (Hasenpfeffer) trains its auction table instead (how high each hand bids, and when a
    maker goes alone): --deals, --held-out, --iterations and --patience apply to it."""
    from simulate.hands.train import TRAIN_SEED
    from simulate.hands.train import train as run_training

    if iterations < 0 or model_iterations < 0:
        raise BidlabInputError(f"--iterations {iterations}, --model-iterations "
                               f"{model_iterations}: at least 0 each")
    if model_deals and model_deals < 2_000:
        raise BidlabInputError(f"--model-deals {model_deals}: 0 (no model) or at least 2000")
    if not iterations and not model_deals:
        raise BidlabInputError("--iterations 0 and --model-deals 0: nothing to train")
    if quality_hands and quality_hands < MIN_QUALITY_HANDS:
        raise BidlabInputError(f"--quality-hands {quality_hands}: 0 (not measured) or at "
                               f"least {MIN_QUALITY_HANDS}")
    check_dir(out)
    started = time.perf_counter()
    click.echo(f"training the table bidder for {v.canonical}")
    path = run_training(v, list(hand_sizes) or None, deals=deals, max_iter=iterations,
                        seed=TRAIN_SEED if seed is None else check_seed(seed),
                        workers=workers, folder=Path(out) if out else None, echo=click.echo,
                        held_out=held_out, patience=patience, model_deals=model_deals,
                        model_iter=model_iterations, quality_hands=quality_hands)
    click.echo(f"wrote {path} ({path.stat().st_size:,} bytes, "
               f"{time.perf_counter() - started:.0f} s)")
    click.echo(where_the_bidder_reads(v, path))


def where_the_bidder_reads(v: Variant, path: Path) -> str:
    """The line after `bidlab train` wrote `path`: whether the `table` bidder of `v` reads it
    from now on (a file in the user's folder comes before the shipped one), and if not, how
    to use it."""
    from simulate.tables.trained import SHIPPED_DIR, table_file, user_dir

    folder = user_dir()
    if path.resolve() == table_file(v, folder).resolve():
        instead = " instead of the shipped one" if table_file(v, SHIPPED_DIR).is_file() else ""
        return (f"the `table` bidder of this configuration reads this file from now on"
                f"{instead} (delete it to go back)")
    return (f"bidlab reads trained files from {folder}, not from here: copy the file there to "
            f"bid with it, or play it as `table@{path}` in `bidlab tournament`")


@click.command(cls=HandSizeCommand)
@variant_options
@hand_size_option("hand_sizes", "Measure only these hand sizes (default: every size of the "
                                "schedule).", multiple=True)
@click.option("--hands", type=int, default=400, show_default=True,
              help="Held-out hands at hand level, each replayed with every bid.")
@click.option("--deals-per-hand", "deals_per_hand", type=int, default=1_500,
              show_default=True,
              help="Deals of the other cards per hand that match what the player knows.")
@click.option("--deals", type=int, default=50_000, show_default=True,
              help="Held-out deals per seat at class level (every candidate bid forced).")
@click.option("--record", is_flag=True,
              help="Store the figures in the trained file the bidder is read from (the "
                   "report shows the stored figures).")
@click.option("--csv", "csv_stem", default=None, metavar="STEM",
              help="Also write the figures to STEM.csv.")
@click.option("--workers", type=int, default=None, help="Threads (default: all cores).")
def exploit(v: Variant, hand_sizes: tuple[int, ...], hands: int, deals_per_hand: int,
            deals: int, record: bool, csv_stem: str | None, workers: int | None) -> None:
    """How far VARIANT's `table` bidder is from a best response, on held-out deals: per hand
    size, its mean loss against each hand's own best bid (every bid played on the same
    deals) and the class cells in which one seat gains by deviating (Holm-corrected)."""
    from simulate.hands import bidder_quality as bq

    if v.bidding_form == "auction":
        raise BidlabInputError(f"{v.name} bids in an auction: exploitability is measured for "
                               "per-player bids")
    if hands < MIN_QUALITY_HANDS:
        raise BidlabInputError(f"--hands {hands}: at least {MIN_QUALITY_HANDS}")
    if deals_per_hand < 1_000 or deals < 1_000:
        raise BidlabInputError(f"--deals-per-hand {deals_per_hand}, --deals {deals}: at "
                               "least 1000 each")
    if csv_stem:
        check_out(f"{csv_stem}.csv")
    if record:
        try:
            bq.record_file(v)            # before any work: is there a file to record in?
        except ValueError as exc:
            raise BidlabInputError(str(exc)) from None
    sizes = sorted(set(hand_sizes or v.schedule))
    for h in sizes:
        v.check_hand_size(h)
    label = bid_policy_label(v, "table", sizes)
    named = "" if label == "table" else f" ({label})"
    click.echo(f"{v.canonical}: the table bidder{named} against one-seat deviations, every "
               "seat playing precision and the other seats bidding with the same bidder "
               "(a different field gives different figures)")
    frame = bq.measure(v, sizes, deals, hands, deals_per_hand, workers, echo=click.echo)
    click.echo(bq.table_text(frame))
    loss_ok, gain_ok = bq.meets_targets(frame)
    click.echo(f"targets: mean loss per hand at {int(frame['hand_size'].max())} cards <= "
               f"{bq.TARGET_LOSS}: {'met' if loss_ok else 'missed'}; no cell gaining "
               f"significantly more than {bq.TARGET_GAIN}: {'met' if gain_ok else 'missed'}")
    if csv_stem:
        from simulate.util.files import write_table

        write_table(frame, f"{csv_stem}.csv")
        click.echo(f"wrote {csv_stem}.csv")
    if record:
        click.echo(f"recorded in {bq.record(v, frame)}")


@click.command()
@variant_options
@click.option("--hand", required=True, help="The focal hand, e.g. 'HIJO AS KS 9H 10D'.")
@click.option("--seat", type=int, default=0, show_default=True,
              help="The hand's seat: 0 = dealer's left, n-1 = the dealer.")
@click.option("--trump", default=None,
              help="Trump (S H D C NT): where it is known when this seat bids (turned up, or "
                   "named by another player) the deals are conditioned on it and it is "
                   "required; where this seat names it, it is given (omit it: its policy "
                   "chooses).")
@click.option("--bids-before", "bids_before", default=None, metavar="B,B,...",
              help="Bids already made by the players before this seat, in bidding order.")
@click.option("--samples", type=int, default=100_000, show_default=True,
              help="Accepted deals wanted (deals that match the trump and the earlier bids).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--play", default="precision", show_default=True, help="Everyone's play policy.")
@click.option("--bid", default="table", show_default=True, help="The other players' bid policy.")
@click.option("--field", "fields", default=None, metavar="P,P,...",
              help="Also run the same deals with each of these opponents' bid policies (e.g. "
                   "table,heuristic,greedy) and say whether the best bid is the same; the "
                   "main table is the first one's.")
@click.option("--exhaustive", is_flag=True,
              help="Play every bid on every deal (by default a bid clearly worse than the best "
                   "stops early).")
def odds(v: Variant, hand: str, seat: int, trump: str | None, bids_before: str | None,
         samples: int, seed: int, play: str, bid: str, fields: str | None,
         exhaustive: bool) -> None:
    """Every legal bid for a hand: P(exactly that bid), expected score, trick distribution."""
    from simulate.hands.odds import bid_odds, field_panel, format_odds, format_panel

    if fields is not None:
        names = [f.strip() for f in fields.split(",") if f.strip()]
        panel = field_panel(v, hand, seat=seat, trump=trump, bids_before=bids_before,
                            samples=samples, seed=seed, play=play, fields=names,
                            exhaustive=exhaustive)
        tables = panel.attrs["tables"]
        df = tables[panel.attrs["fields"][0]]
        text = format_odds(df) + "\n" + format_panel(panel)
        extra = [f"with the {name} field: {w}" for name in panel.attrs["fields"][1:]
                 for w in tables[name].attrs.get("warnings", [])]
    else:
        df = bid_odds(v, hand, seat=seat, trump=trump, bids_before=bids_before,
                      samples=samples, seed=seed, play=play, bid=bid, exhaustive=exhaustive)
        text = format_odds(df)
        extra = []
    for w in list(df.attrs.get("warnings", [])) + extra:
        click.echo(f"bidlab: warning: {w}", err=True)
    click.echo(text)
