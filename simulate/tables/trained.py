"""The file format of trained bid tables: where they live, how they are named, read, written.

Tables are keyed by the variant's canonical string and a format version. Those for every
shipped game at its default options (every player count it allows) live in simulate/trained/
and load without retraining; `bidlab train` writes to the user's cache folder, where they load
too. A file there comes first, so a configuration the user retrained bids with the user's
table, the shipped one included (deleting the file goes back to the shipped table). The
training loop itself is simulate.hands.train.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from simulate.errors import BidlabInputError
from simulate.rules.variant import Variant
from simulate.tables.bid_model import shape_for
from simulate.util.files import write_atomically
from simulate.util.paths import cache_dir

if TYPE_CHECKING:
    from simulate.tables.compile import RuleTables

FORMAT = 1
QUALITY, QUALITY_COLUMNS = "quality", "quality_columns"   # the bidder's measured figures
SHIPPED_DIR = Path(__file__).parent.parent / "trained"


def user_dir() -> Path:
    """The folder `bidlab train` writes to by default (below the user's cache folder)."""
    return cache_dir() / "trained"


def is_shipped(path: Path) -> bool:
    """Whether a trained file is one shipped with bidlab (not one the user trained)."""
    return path.resolve().parent == SHIPPED_DIR.resolve()


def table_file(v: Variant, folder: Path) -> Path:
    """The file in `folder` holding the trained tables of exactly this configuration."""
    digest = hashlib.sha256(f"{FORMAT}:{v.canonical}".encode()).hexdigest()[:12]
    return folder / f"{v.name}-{v.players}p-{digest}.npz"


def _trained_files(v: Variant) -> Iterator[Mapping[str, np.ndarray]]:
    """The arrays of every readable trained file of exactly this configuration and format,
    the user's folder first (a table the user trained replaces the shipped one), then the
    shipped folder; a damaged file is skipped (the next one is read, else the bidder falls
    back to the heuristic)."""
    for _, arrays in _trained_paths(v):
        yield arrays


def _trained_paths(v: Variant) -> Iterator[tuple[Path, Mapping[str, np.ndarray]]]:
    """_trained_files with each file's path."""
    for folder in (user_dir(), SHIPPED_DIR):
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
        yield path, arrays


def _holds_table(data: Mapping[str, np.ndarray], shape: tuple[int, ...]) -> bool:
    """Whether a file's arrays hold a bid table the kernel can read (load_trained's test)."""
    return {"bid_table", "card_rate", "sizes"} <= set(data) and data["bid_table"].shape == shape


def load_trained(v: Variant, tables: RuleTables) -> list[int]:
    """Load trained tables for exactly this configuration into tables.bid_table and
    tables.card_rate (the user's folder first, then the shipped one); return the hand sizes
    covered."""
    for data in _trained_files(v):
        if not _holds_table(data, tables.bid_table.shape):
            continue
        sizes = [int(h) for h in data["sizes"]]
        for h in sizes:
            tables.bid_table[h] = data["bid_table"][h]
            tables.card_rate[h] = data["card_rate"][h]
        return sizes
    return []


def load_one_card(v: Variant) -> np.ndarray | None:
    """The exact one-card bid table of exactly this configuration (see RuleTables.one_card),
    from its trained file (the user's folder first, then the shipped one), or None."""
    for data in _trained_files(v):
        if "one_card" not in data:
            continue
        table = np.asarray(data["one_card"], dtype=np.int8)
        if table.ndim == 4 and table.shape[0] == v.players:
            return table
    return None


def load_model(v: Variant, shape: tuple[int, ...]) -> np.ndarray | None:
    """The learned bidder's weights (simulate.tables.bid_model) of exactly this
    configuration from its trained file (the user's folder first, then the shipped one), or None
    where the file has none of this shape."""
    for data in _trained_files(v):
        if "bid_model" in data and data["bid_model"].shape == shape:
            return np.asarray(data["bid_model"], dtype=np.float32)
    return None


class Quality(NamedTuple):
    """The bidder's held-out quality figures stored beside it (simulate.hands.bidder_quality
    measures them): one row per hand size, one column per figure."""

    columns: tuple[str, ...]
    values: np.ndarray        # float64[sizes, columns]


def trained_source(v: Variant, table_shape: tuple[int, ...]) -> tuple[Path, Quality | None] | None:
    """The trained file the bidder of exactly this configuration is read from (load_trained's
    choice: the user's folder first, then the shipped one) and the quality figures it stores, or
    None where no file holds a bid table of `table_shape`."""
    for path, data in _trained_paths(v):
        if not _holds_table(data, table_shape):
            continue
        if QUALITY in data and QUALITY_COLUMNS in data and data[QUALITY].ndim == 2 \
                and data[QUALITY].shape[1] == len(data[QUALITY_COLUMNS]):
            return path, Quality(tuple(str(c) for c in data[QUALITY_COLUMNS]),
                                 np.asarray(data[QUALITY], dtype=np.float64))
        return path, None
    return None


def store_quality(v: Variant, path: Path, quality: Quality) -> Path:
    """Write `quality` into the trained file at `path` (a file of exactly this
    configuration), replacing the figures it held, every other array unchanged (atomically).
    Raises BidlabInputError when the file is not this configuration's or cannot be written."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        raise BidlabInputError(f"{path}: not a readable trained-table file ({exc})") from None
    if str(arrays.get("canonical", "")) != v.canonical:
        raise BidlabInputError(f"{path}: not the trained file of {v.canonical}")
    arrays[QUALITY] = np.asarray(quality.values, dtype=np.float64)
    arrays[QUALITY_COLUMNS] = np.array(quality.columns)
    return _write_arrays(path, arrays)


def _write_arrays(path: Path, arrays: Mapping[str, np.ndarray]) -> Path:
    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]

    try:
        return write_atomically(path, write)
    except OSError as exc:
        raise BidlabInputError(f"{path}: cannot be written ({exc.strerror})") from None


def model_sizes(bid_model: np.ndarray) -> list[int]:
    """The hand sizes with any learned-bidder weights."""
    if bid_model.shape[0] <= 1:
        return []
    trained = ~np.isnan(bid_model).all(axis=tuple(range(1, bid_model.ndim)))
    return [int(h) for h in np.flatnonzero(trained)]


def save_trained(v: Variant, tables: RuleTables, sizes: list[int], folder: Path,
                 one_card: np.ndarray | None = None, quality: Quality | None = None) -> Path:
    """Write the bid tables and card rates of `sizes`, the learned bidder's weights where
    the tables hold any, the exact one-card table (given, or the tables' own where they
    hold one) and the bidder's quality figures (when given) to this configuration's file in
    `folder` (atomically); return its path."""
    if one_card is None and tables.one_card.shape[0] == v.players:
        one_card = tables.one_card
    arrays: dict[str, np.ndarray] = {
        "canonical": np.array(v.canonical), "format": np.array(FORMAT),
        "sizes": np.array(sorted(sizes)), "bid_table": tables.bid_table,
        "card_rate": tables.card_rate}
    if one_card is not None:
        arrays["one_card"] = one_card
    if model_sizes(tables.bid_model):
        arrays["bid_model"] = tables.bid_model
    if quality is not None:
        arrays[QUALITY] = np.asarray(quality.values, dtype=np.float64)
        arrays[QUALITY_COLUMNS] = np.array(quality.columns)
    return _write_arrays(table_file(v, folder), arrays)


class TableFile(NamedTuple):
    """A trained file's bidder as a tournament entrant reads it."""

    bid_table: np.ndarray   # int8, the shape of RuleTables.bid_table (-1: untrained)
    bid_model: np.ndarray   # float32, the configuration's learned-bidder shape (NaN: none)


def read_table_file(v: Variant, path: Path, tables: RuleTables,
                    hand_sizes: Sequence[int]) -> TableFile:
    """The bid table and learned-bidder weights in the trained file at `path`, for playing
    them beside this configuration's own (a tournament entrant `table@FILE`). The file must
    be of exactly this configuration and format, and its card rates must equal the tables'
    at `hand_sizes` wherever the file trains them: the kernel reads one set of card rates,
    and the table's hand classes and the model's columns are made of them. Raises
    BidlabInputError otherwise."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        raise BidlabInputError(f"{path}: not a readable trained-table file ({exc})") from None
    if not {"canonical", "format", "bid_table", "card_rate", "sizes"} <= set(arrays):
        raise BidlabInputError(f"{path}: not a trained-table file (arrays missing)")
    if str(arrays["canonical"]) != v.canonical or int(arrays["format"]) != FORMAT:
        raise BidlabInputError(f"{path}: trained for {arrays['canonical']} (format "
                               f"{int(arrays['format'])}), not {v.canonical} (format {FORMAT})")
    table = np.asarray(arrays["bid_table"])
    if table.shape != tables.bid_table.shape:
        raise BidlabInputError(f"{path}: bid table of shape {table.shape}, this "
                               f"configuration's is {tables.bid_table.shape}")
    sizes = {int(h) for h in arrays["sizes"]}
    for h in hand_sizes:
        if h in sizes and not np.array_equal(arrays["card_rate"][h], tables.card_rate[h]):
            raise BidlabInputError(
                f"{path}: its card rates at {h} cards differ from this configuration's "
                "table, so its hand classes would not be its own; play two tables with the "
                "same card rates")
    out = np.full_like(tables.bid_table, -1)
    for h in sizes:
        out[h] = table[h]
    shape = shape_for(v.players, tables.score, tables.model_label)
    model = arrays.get("bid_model")
    if model is None or model.shape != shape:
        model = np.full(shape, np.nan, dtype=np.float32)
    return TableFile(out, np.asarray(model, dtype=np.float32))
