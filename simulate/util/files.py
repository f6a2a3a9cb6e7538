"""Atomic file writes: a temporary file in the target's folder, renamed into place, so a
reader (or an interrupted run) never sees half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from simulate.errors import BidlabInputError

if TYPE_CHECKING:
    import pandas as pd


def write_atomically(path: str | os.PathLike[str], write: Callable[[str], object]) -> Path:
    """Call write(temporary path), then rename it to `path`; on any error remove it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return target


def write_table(df: pd.DataFrame, path: str | os.PathLike[str],
                formats: Iterable[str] | None = None) -> list[Path]:
    """Write a table atomically (temporary file renamed into place: a reader never sees half
    a file) and return the paths written.

    formats=None: exactly `path`, as CSV for a .csv suffix and Parquet otherwise. With
    formats (from "csv", "parquet"): <path>.<format> for each, a .csv/.parquet suffix on
    path dropped first. Parquet files keep df.attrs (variant, configuration, column help) in
    their metadata.
    """
    target = Path(path)
    if formats is None:
        targets = [(target, "csv" if target.suffix == ".csv" else "parquet")]
    else:
        base = target.with_suffix("") if target.suffix in (".csv", ".parquet") else target
        targets = []
        for fmt in formats:
            if fmt not in ("csv", "parquet"):
                raise BidlabInputError(f"table format {fmt!r}; allowed: csv, parquet")
            targets.append((base.with_name(base.name + "." + fmt), fmt))
    for where, fmt in targets:
        if fmt == "csv":
            write_atomically(where, lambda tmp: df.to_csv(tmp, index=False))
        else:
            write_atomically(where, lambda tmp: df.to_parquet(tmp, index=False))
    return [where for where, _ in targets]
