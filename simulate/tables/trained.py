"""The file format of trained bid tables: where they live, how they are named, read, written.

Tables are keyed by the variant's canonical string and a format version. Those for every
shipped game at its default configuration live in simulate/trained/ and load without
retraining; `bidlab train` writes others to the user's cache folder, where they load too.
The training loop itself is simulate.hands.train.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simulate.rules.variant import Variant
from simulate.util.files import write_atomically
from simulate.util.paths import cache_dir

if TYPE_CHECKING:
    from simulate.tables.compile import RuleTables

FORMAT = 1
SHIPPED_DIR = Path(__file__).parent.parent / "trained"


def user_dir() -> Path:
    """The folder `bidlab train` writes to by default (below the user's cache folder)."""
    return cache_dir() / "trained"


def table_file(v: Variant, folder: Path) -> Path:
    """The file in `folder` holding the trained tables of exactly this configuration."""
    digest = hashlib.sha256(f"{FORMAT}:{v.canonical}".encode()).hexdigest()[:12]
    return folder / f"{v.name}-{v.players}p-{digest}.npz"


def _trained_files(v: Variant) -> Iterator[Mapping[str, np.ndarray]]:
    """The arrays of every readable trained file of exactly this configuration and format,
    shipped folder first, then the user's; a damaged file is skipped (the bidder falls back
    to the heuristic)."""
    for folder in (SHIPPED_DIR, user_dir()):
        path = table_file(v, folder)
        if not path.is_file():
            continue
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["canonical"]) != v.canonical or int(data["format"]) != FORMAT:
                    continue
                arrays = {name: data[name] for name in data.files}
        except (OSError, KeyError, ValueError):
            continue
        yield arrays


def load_trained(v: Variant, tables: RuleTables) -> list[int]:
    """Load trained tables for exactly this configuration into tables.bid_table and
    tables.card_rate (shipped folder first, then the user's); return the hand sizes covered."""
    for data in _trained_files(v):
        if not {"bid_table", "card_rate", "sizes"} <= set(data) or \
                data["bid_table"].shape != tables.bid_table.shape:
            continue
        sizes = [int(h) for h in data["sizes"]]
        for h in sizes:
            tables.bid_table[h] = data["bid_table"][h]
            tables.card_rate[h] = data["card_rate"][h]
        return sizes
    return []


def load_one_card(v: Variant) -> np.ndarray | None:
    """The exact one-card bid table of exactly this configuration (see RuleTables.one_card),
    from its trained file (shipped folder first, then the user's), or None."""
    for data in _trained_files(v):
        if "one_card" not in data:
            continue
        table = np.asarray(data["one_card"], dtype=np.int8)
        if table.ndim == 4 and table.shape[0] == v.players:
            return table
    return None


def save_trained(v: Variant, tables: RuleTables, sizes: list[int], folder: Path,
                 one_card: np.ndarray | None = None) -> Path:
    """Write the bid tables and card rates of `sizes`, and the exact one-card table (given,
    or the tables' own where they hold one), to this configuration's file in `folder`
    (atomically); return its path."""
    if one_card is None and tables.one_card.shape[0] == v.players:
        one_card = tables.one_card

    def write(tmp: str) -> None:
        arrays: dict[str, np.ndarray] = {
            "canonical": np.array(v.canonical), "format": np.array(FORMAT),
            "sizes": np.array(sorted(sizes)), "bid_table": tables.bid_table,
            "card_rate": tables.card_rate}
        if one_card is not None:
            arrays["one_card"] = one_card
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]

    return write_atomically(table_file(v, folder), write)
