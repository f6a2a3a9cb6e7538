"""`bidlab variants` and `bidlab rules`: what the shipped games are and how they play."""

from __future__ import annotations

import click

from simulate.cli.options import variant_options
from simulate.rules.describe import describe_rules, describe_variants
from simulate.rules.variant import Variant


@click.command()
def variants() -> None:
    """List the shipped games, their player counts and options."""
    click.echo(describe_variants())


@click.command()
@variant_options
def rules(v: Variant) -> None:
    """Print the complete rules of VARIANT as loaded (options applied)."""
    click.echo(describe_rules(v))
