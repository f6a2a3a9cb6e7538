"""Chunk arithmetic, in one place: `total` items cut into chunks of `size`, the last one short.

A chunk is (first index, count). Items (hands, games) draw from streams keyed by their own
index, so the chunk size never changes a result, only how the work is cut.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

# hands per chunk unless a caller says otherwise (a run directory keeps one file per chunk)
DEFAULT_CHUNK = 1 << 16


@dataclass(frozen=True)
class ChunkPlan:
    """`total` items in chunks of `size`: chunk i covers items i*size .. i*size+count-1."""

    total: int
    size: int

    @property
    def n_chunks(self) -> int:
        """How many chunks (the last may be shorter than `size`)."""
        return -(-self.total // self.size)

    def chunk(self, i: int) -> tuple[int, int]:
        """(first item, count) of chunk i."""
        start = i * self.size
        return start, min(self.size, self.total - start)

    def __len__(self) -> int:
        return self.n_chunks

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return (self.chunk(i) for i in range(self.n_chunks))


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    """Every (first item, count) of ChunkPlan(total, size), as a list."""
    return list(ChunkPlan(total, size))
