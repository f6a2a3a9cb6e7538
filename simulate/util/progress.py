"""Progress bars: a run either draws a bar of its own or ticks a bar its caller owns."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class Bar(Protocol):
    """What a caller's bar must offer: tqdm's update(n)."""

    def update(self, n: float | None = 1) -> bool | None:
        """Advance the bar by n units."""
        ...


def new_bar(total: int, unit: str = "hand", smoothing: float = 0.1) -> Any:
    """A tqdm bar counting `unit`s per second, with time left."""
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, unit_scale=True, smoothing=smoothing, mininterval=0.5,
                dynamic_ncols=True)


@contextmanager
def progress_bar(progress: bool | Bar | None, total: int, unit: str = "hand") -> Iterator[Bar | None]:
    """progress=True: a bar of its own for `total` units, closed on exit; False or None: no
    bar; anything with update(n): the caller's bar (one bar spanning several runs), left open.
    """
    if progress is None or progress is False:
        yield None
        return
    if progress is True:
        bar = new_bar(total, unit)
        try:
            yield bar
        finally:
            bar.close()
        return
    yield progress
