"""The look every report chart shares: the Okabe–Ito colour-blind-safe palette and what each
colour means, the 95% error-bar style, matplotlib's headless setup, and saving a figure as
PNG + SVG atomically.

Colours mean the same thing on every page: seats always have the same colour, trumps are
vermillion and other cards blue, the best bid is orange and other bids blue. Importing this
module selects the Agg backend (no display needed) and sets the shared rcParams (a fixed SVG
hash salt, text drawn as paths).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import SupportsInt, TypedDict, TypeGuard

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from simulate.util.files import write_atomically  # noqa: E402

__all__ = ["OKABE_ITO", "SEAT_COLOURS", "TRUMP_COLOUR", "PLAIN_COLOUR", "BEST_COLOUR",
           "OTHER_COLOUR", "THIN_GREY", "ERR", "ErrorBarStyle", "seat_colour", "has_rows",
           "save"]

OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00",
             "purple": "#CC79A7"}
SEAT_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                "#000000"]
TRUMP_COLOUR = OKABE_ITO["vermillion"]
PLAIN_COLOUR = OKABE_ITO["blue"]
BEST_COLOUR = OKABE_ITO["orange"]
OTHER_COLOUR = OKABE_ITO["blue"]
THIN_GREY = "#BBBBBB"


class ErrorBarStyle(TypedDict):
    """Keyword arguments of Axes.bar / Axes.barh that draw the error bars."""

    ecolor: str
    capsize: float
    error_kw: dict[str, float]


# every bar chart's 95% error bars: Axes.bar(..., yerr=err, **ERR)
ERR: ErrorBarStyle = {"ecolor": "#333333", "capsize": 3, "error_kw": {"elinewidth": 1}}

plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.spines.top": False,
                     "axes.spines.right": False, "svg.hashsalt": "bidlab",
                     "svg.fonttype": "path"})


def seat_colour(seat: SupportsInt) -> str:
    """The colour of a seat, the same on every chart (the palette repeats after 8 seats)."""
    return SEAT_COLOURS[int(seat) % len(SEAT_COLOURS)]


def has_rows(df: pd.DataFrame | None) -> TypeGuard[pd.DataFrame]:
    """True for a DataFrame with at least one row: a chart of anything else draws nothing
    (its function returns [] and writes no file)."""
    return isinstance(df, pd.DataFrame) and not df.empty


def save(fig: Figure, stem: str | os.PathLike[str]) -> list[Path]:
    """Write fig as <stem>.png and <stem>.svg (each to a temporary name renamed into place),
    close it, and return the two paths. The PNG carries no software tag and the SVG no
    date."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        # The tight box is found once for both files: savefig's bbox_inches="tight" lays the
        # figure out again for every file (and so does a figure that ran tight_layout, which
        # leaves a placeholder layout engine behind), and text layout is most of the time a
        # report spends drawing.
        canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
        fig.draw_without_rendering()
        box = fig.get_tightbbox(canvas.get_renderer()).padded(
            float(plt.rcParams["savefig.pad_inches"]))
        fig.set_layout_engine(None)
        for fmt, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
            target = stem.with_name(stem.name + "." + fmt)

            def write(tmp: str, fmt: str = fmt, meta: dict[str, None] = meta) -> None:
                """Save the figure to the temporary path (format and metadata bound now)."""
                fig.savefig(tmp, format=fmt, dpi=110, bbox_inches=box, metadata=meta)

            written.append(write_atomically(target, write))
    finally:
        plt.close(fig)
    return written
