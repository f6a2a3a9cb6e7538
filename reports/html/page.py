"""The pieces every report page is built from: the page shell with its inline CSS, data
tables with thin and best rows marked, figures (PNG shown, SVG linked), table downloads,
file-name slugs, HTML escaping and the number formats of table cells.

Pages load nothing from the network: the CSS is inline and every link is relative to the
site folder. Numbers in page tables have a fixed number of decimals per column (so a column
lines up) and "–" where there is no number; the Balance page uses the CLI's adaptive format
(simulate.util.format) instead, so its numbers read as `bidlab balance` prints them.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import pandas as pd

from simulate.util.files import write_table

__all__ = ["CSS", "Row", "Col", "esc", "slug", "fixed_decimals", "grouped_int",
           "interval_cell", "data_table", "figure", "table_downloads", "html_page"]

Row = dict[Hashable, Any]                       # one table row, DataFrame.to_dict("records")
Col = tuple[str, str, Callable[[Row], str]]     # header, tooltip, the cell's HTML for a row


def esc(text: str) -> str:
    """HTML-escape text for an element or a quoted attribute (quotes included)."""
    return html.escape(text)


def slug(name: str) -> str:
    """The file-name stem of a game: lower case, runs of other characters than a-z, 0-9, _
    and - replaced by one -. ValueError when nothing is left."""
    s = re.sub(r"[^a-z0-9_-]+", "-", str(name).strip().lower()).strip("-")
    if not s:
        raise ValueError(f"game name {name!r} gives an empty file name")
    return s


def fixed_decimals(x: Any, digits: int = 3) -> str:
    """x with exactly `digits` decimals; "–" for NaN; anything that is not a number as its
    escaped text."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return esc(str(x))
    if math.isnan(f):
        return "–"
    return f"{f:.{digits}f}"


def grouped_int(x: Any) -> str:
    """x as a whole number with thousands separators (12,345); "–" if it is none."""
    try:
        return f"{int(x):,}"
    except (TypeError, ValueError):
        return "–"


def interval_cell(lo: Any, hi: Any, digits: int = 2) -> str:
    """A confidence interval as "[lo, hi]", both ends with fixed_decimals."""
    return f"[{fixed_decimals(lo, digits)}, {fixed_decimals(hi, digits)}]"


def data_table(df: pd.DataFrame, cols: list[Col], thin: Callable[[Row], bool] | None = None,
               best: Callable[[Row], bool] | None = None, cls: str = "") -> str:
    """An HTML table of df, one column per Col and a last "note" column: rows where
    thin(row) holds are greyed and badged "thin", rows where best(row) holds highlighted."""
    head = "".join(f'<th title="{esc(tip)}">{esc(h)}</th>' for h, tip, _ in cols)
    rows = []
    for rec in df.to_dict("records"):
        classes = []
        is_thin = bool(thin and thin(rec))
        if is_thin:
            classes.append("thin")
        if best and best(rec):
            classes.append("best")
        cells = "".join(f"<td>{fn(rec)}</td>" for _, _, fn in cols)
        mark = '<td class="mark"><span class="badge">thin</span></td>' if is_thin else \
            '<td class="mark"></td>'
        attr = f' class="{" ".join(classes)}"' if classes else ""
        rows.append(f"<tr{attr}>{cells}{mark}</tr>")
    return (f'<div class="scroll"><table class="data {cls}"><thead><tr>{head}'
            f'<th title="rows with too few hands are marked thin">note</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def figure(paths: list[Path], root: Path, alt: str, caption: str) -> str:
    """A chart written by reports.charts (its .png and .svg under root): the PNG shown and
    linked to the SVG, with a caption (HTML) and both downloads; "" when nothing was drawn."""
    if not paths:
        return ""
    png = next(p for p in paths if p.suffix == ".png")
    svg = next((p for p in paths if p.suffix == ".svg"), None)
    rp = png.relative_to(root).as_posix()
    rs = svg.relative_to(root).as_posix() if svg else rp
    return (f'<figure><a href="{esc(rs)}"><img src="{esc(rp)}" alt="{esc(alt)}"></a>'
            f'<figcaption>{caption} <span class="dl"><a href="{esc(rs)}">SVG</a> · '
            f'<a href="{esc(rp)}">PNG</a></span></figcaption></figure>')


def table_downloads(df: pd.DataFrame, stem: Path, root: Path, label: str = "Full table"
                    ) -> str:
    """Write df as <stem>.csv and <stem>.parquet and return the paragraph linking both
    (paths relative to the site folder root), introduced by `label`."""
    written = write_table(df, stem, ("csv", "parquet"))
    links = " · ".join(f'<a href="{esc(p.relative_to(root).as_posix())}">'
                       f'{p.suffix[1:].upper()}</a>' for p in written)
    return f'<p class="dl">{esc(label)}: {links}</p>'


CSS = """
:root { --ink:#1d232a; --muted:#5b6570; --line:#d8dde3; --bg:#fbfbfc; --accent:#0072B2;
        --thin:#f1f1f1; --best:#fff1d6; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); background: var(--bg); margin: 0; }
main { max-width: 1240px; margin: 0 auto; padding: 1.2rem 1.2rem 3rem; }
header.top { background: #15324a; color: #fff; padding: .8rem 1.6rem; }
header.top a { color: #cfe6ff; margin-right: 1rem; }
h1 { font-size: 1.7rem; margin: .6rem 0 .2rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .6rem; border-bottom: 2px solid var(--line);
     padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
a { color: var(--accent); }
p.lead { color: var(--muted); margin-top: 0; }
code { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; background: #eef1f4;
       padding: 1px 4px; border-radius: 3px; word-break: break-all; }
.config { background: #fff; border: 1px solid var(--line); border-radius: 6px;
          padding: .2rem 1rem .6rem; margin: 1rem 0; }
.config h2 { font-size: 1rem; border: 0; margin: .6rem 0 .3rem; }
.config dl { display: grid; grid-template-columns: 9rem 1fr; gap: .15rem .8rem; margin: 0;
             font-size: 13.5px; }
.config dt { color: var(--muted); }
.config dd { margin: 0; }
nav.sizes a { display: inline-block; margin: 0 .4rem .3rem 0; padding: .1rem .55rem;
              border: 1px solid var(--line); border-radius: 4px; background: #fff;
              text-decoration: none; }
section.size { background: #fff; border: 1px solid var(--line); border-radius: 6px;
               padding: 0 1rem 1rem; margin: 1.6rem 0; }
.scroll { overflow-x: auto; }
table.data { border-collapse: collapse; font-size: 12.5px; margin: .4rem 0;
             font-variant-numeric: tabular-nums; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: .2rem .42rem;
                               text-align: right; white-space: nowrap; }
table.data th { background: #eef1f4; position: sticky; top: 0; cursor: help; }
table.data td:first-child, table.data th:first-child { text-align: left; }
tr.thin td { background: var(--thin); color: #7a828a; font-style: italic; }
tr.best td { background: var(--best); font-weight: 600; }
.close { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 .35rem;
         border-radius: 3px; background: #fde2c4; color: #7a3c00; border: 1px solid #e69f00; }
h4 { font-size: .98rem; margin: 1.1rem 0 .2rem; }
td.mark { text-align: left !important; }
.badge { display: inline-block; font-size: 11px; font-style: normal; padding: 0 .35rem;
         border-radius: 3px; background: #7a828a; color: #fff; }
figure { margin: .8rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
figcaption { font-size: 13px; color: var(--muted); }
.dl { font-size: 13px; color: var(--muted); }
.note { font-size: 13px; color: var(--muted); }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr));
         gap: 1rem 1.6rem; align-items: start; }
.games { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 1rem; }
.game { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .2rem 1rem 1rem; }
.game h2 { border: 0; margin-top: .8rem; }
dl.help dt { font-weight: 600; margin-top: .6rem; }
dl.help dd { margin-left: 1.2rem; }
"""


def points_table(df: pd.DataFrame, corner: str) -> str:
    """The point table (points_by_size: a `card` column, then one column per hand size) as
    an HTML table of class "points"; `corner` is the top-left header cell's text."""
    head = "".join(f"<th>{esc(str(c))}</th>" for c in df.columns[1:])
    rows = "".join(f"<tr><td>{esc(str(x['card']))}</td>"
                   + "".join(f"<td>{esc(str(x[c]))}</td>" for c in df.columns[1:]) + "</tr>"
                   for x in df.to_dict("records"))
    return (f'<table class="points"><thead><tr><th>{esc(corner)}</th>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def html_page(title: str, body: str, extra_css: str = "") -> str:
    """A whole HTML document: the shared header (a link to the index), CSS (plus extra_css)
    and body inside <main>."""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{esc(title)}</title><style>{CSS}{extra_css}</style></head><body>'
            f'<header class="top"><a href="index.html">bidlab report</a></header>'
            f'<main>{body}</main></body></html>\n')
