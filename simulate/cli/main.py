"""The `bidlab` command line: the click group and the `main()` entry point.

The commands live by family in cli/info.py (variants, rules), cli/hands.py (simulate, odds,
train, tournament), cli/games.py (games, compare), cli/report.py and cli/bench.py; what they
share (loading a variant, the hand-size option, output checks) is in cli/options.py. Adding
a command is one decorated function in one of those modules plus one `cli.add_command` here::

    @click.command()
    @variant_options                      # VARIANT|FILE, --players N, --set option=value
    @click.option("--hands", type=int, default=100_000)
    def simulate(v: Variant, hands: int) -> None:
        from simulate.hands.simulate import ...   # heavy modules (numba) inside the command
        ...

Errors: raise `BidlabInputError` (or a click usage error) for anything the user got wrong.
`main()` turns it into one line, `bidlab: error: <message>`, on stderr and exit status 2.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from simulate.cli import bench, games, hands, info, report, serve
from simulate.cli.options import HELP_OPTIONS, PROG
from simulate.errors import BidlabInputError
from simulate.util.version import __version__

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


@click.group(context_settings=HELP_OPTIONS)
@click.version_option(__version__, "--version", "-V", prog_name=PROG,
                      message="%(prog)s %(version)s")
def cli() -> None:
    """bidlab: Monte Carlo bidding analysis for precision-bidding trick-taking games.

    VARIANT is a shipped game (see `bidlab variants`) or a path to a variant TOML file.
    """


for _command in (info.variants, info.rules, hands.simulate, hands.tournament, hands.train,
                 hands.exploit, hands.odds, report.report, games.games, games.compare,
                 bench.bench, serve.serve):
    cli.add_command(_command)


def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def _error(message: str, status: int = EXIT_INPUT) -> int:
    click.echo(f"{PROG}: error: {_one_line(message) or 'unknown error'}", err=True)
    return status


def _quiet_broken_pipe() -> int:
    """Output piped into `head` and closed: stop quietly (exit 1, no traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI; bad input → one line on stderr and exit 2; Ctrl-C → exit 130.

    argv: the arguments after the program name (default: sys.argv[1:]).
    """
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
        status = _quiet_broken_pipe()
    sys.exit(status)


if __name__ == "__main__":
    main()
