"""`bidlab variants` and `bidlab rules`: what the shipped games are and how they play."""

from __future__ import annotations

import click

from simulate.cli.options import load_from_cli, variant_options
from simulate.rules.describe import describe_diff, describe_rules, describe_variants
from simulate.rules.load import inert_note
from simulate.rules.variant import Variant


@click.command()
def variants() -> None:
    """List the shipped games, their player counts and options."""
    click.echo(describe_variants())


@click.command()
@variant_options
@click.option("--diff", "base", default=None, metavar="A",
              help="Show only what VARIANT (with --players and --set) changes against A, a "
                   "shipped name or a file (with the same --players): `bidlab rules --diff "
                   "hoffer ./my_hoffer.toml`.")
def rules(v: Variant, base: str | None) -> None:
    """Print the complete rules of VARIANT as loaded (options applied), or with --diff A
    what it changes against A. Warns about options that change nothing here."""
    note = inert_note(v)
    if note:
        click.echo(note, err=True)
    if base is None:
        click.echo(describe_rules(v))
        return
    click.echo(describe_diff(load_from_cli(base, v.players), v))
