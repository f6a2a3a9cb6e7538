"""What the `bidlab` commands share: loading a variant from the command line, the hand-size
option (and the refusal of its old `-h` spelling), and checks of output paths made before
any work is done."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import click

from simulate.errors import BidlabInputError
from simulate.rules.load import load_variant, parse_option_assignments
from simulate.rules.variant import Variant

PROG = "bidlab"
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
HAND_SIZE_FLAG = "-c"          # Cards per player; `-h` is help on every command


def load_from_cli(name_or_path: str, players: int | None = None,
                  sets: Iterable[str] = ()) -> Variant:
    """A variant from the command line: a shipped name or a .toml path, players, --set list."""
    options = parse_option_assignments(sets)
    return load_variant(name_or_path, players=players, **options)


def players_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--players/-p N`."""
    return click.option("--players", "-p", type=int, default=None, metavar="N",
                        help="Number of players (default: the game's usual count).")(func)


def sets_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--set/-s OPTION=VALUE` (repeatable) as `sets`."""
    return click.option("--set", "-s", "sets", multiple=True, metavar="OPTION=VALUE",
                        help="Set a game option (repeatable); `bidlab variants` lists them.")(func)


def variant_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add `VARIANT|FILE`, `--players/-p` and `--set/-s option=value`; pass the Variant as `v`."""

    @functools.wraps(func)
    def wrapper(*args: Any, variant: str, players: int | None, sets: tuple[str, ...],
                **kwargs: Any) -> Any:
        return func(*args, v=load_from_cli(variant, players, sets), **kwargs)

    command: Callable[..., Any] = sets_option(wrapper)
    command = players_option(command)
    return click.argument("variant", metavar="VARIANT|FILE")(command)


def hand_size_option(name: str, help: str, multiple: bool = False) -> Callable[..., Any]:
    """The `--hand-size/-c N` option, passed to the command as `name`."""
    return click.option("--hand-size", HAND_SIZE_FLAG, name, type=int, multiple=multiple,
                        default=None, help=help)


_OLD_HAND_SIZE = re.compile(r"-h(\d+)")


def old_hand_size(args: Sequence[str]) -> str | None:
    """The number in `-h N` or `-hN` among args (up to `--`), the hand size's old spelling."""
    for i, arg in enumerate(args):
        if arg == "--":
            return None
        attached = _OLD_HAND_SIZE.fullmatch(arg)
        if attached:
            return attached.group(1)
        if arg == "-h" and i + 1 < len(args) and args[i + 1].isdigit():
            return args[i + 1]
    return None


class HandSizeCommand(click.Command):
    """A command with a hand-size option: `-h` is help, and `-h N` (the old hand-size
    spelling) is refused with one line saying what to write instead."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Refuse `-h N` before click would print the help page for it."""
        number = old_hand_size(args)
        if number is not None:
            raise click.UsageError(f"-h is help now; give the hand size as {HAND_SIZE_FLAG} "
                                   f"{number} (or --hand-size {number})")
        return super().parse_args(ctx, args)


def check_out(out: str | None) -> None:
    """Refuse an --out file that cannot be written before any work is done."""
    if out is None:
        return
    if not out.endswith((".parquet", ".csv")):
        raise BidlabInputError(f"--out {out!r}: the file must end in .parquet or .csv")
    if "\x00" in out:
        raise BidlabInputError(f"--out {out!r}: not a usable file name")
    target = Path(out).absolute()
    if target.is_dir():
        raise BidlabInputError(f"--out {out!r} is a folder; give a file name")
    _check_writable_under(target.parent, f"--out {out!r}")


def check_dir(out: str | None, what: str = "--out") -> None:
    """Refuse an output folder that cannot be made or written before any work is done."""
    if out is None:
        return
    if "\x00" in out or not out.strip():
        raise BidlabInputError(f"{what} {out!r}: not a usable folder name")
    target = Path(out).absolute()
    if target.exists() and not target.is_dir():
        raise BidlabInputError(f"{what} {out!r} is a file; give a folder")
    _check_writable_under(target, f"{what} {out!r}")


def _check_writable_under(folder: Path, label: str) -> None:
    """The nearest existing folder at or above `folder` must be writable (it gets made)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise BidlabInputError(f"{label}: cannot write in {folder}")


def show_progress(progress: bool | None) -> bool:
    """--progress/--no-progress, or (not given) on when stderr is a terminal."""
    return sys.stderr.isatty() if progress is None else progress
