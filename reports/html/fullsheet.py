"""The full sheet of a game (<name>-fullsheet.html), a web page not meant for print: for
every hand size and seat, the bid of each hand class from the forced-bid cheat sheet
(simulate.hands.sheet), as a grid (point classes down, trumps across; inside a cell the bid
by high side cards, and by low specials on separate lines), how to count a hand's class,
the point table of every hand size, and a legend. The printable one-page sheet is the
compact sheet (reports.html.cheatsheet).
"""

from __future__ import annotations

from typing import Any

from reports.analysis.forced import (
    SUBKEY_HELP,
    SheetGrid,
    class_help,
    points_by_size,
    sheet_grids,
)
from reports.html.config import config_block, policy_sentence
from reports.html.page import esc, html_page, points_table, slug
from reports.model import GameReport, SizeReport
from simulate.util.format import seat_label

__all__ = ["fullsheet_page", "FULL_CSS"]

FULL_CSS = """
body { font-size: 12px; }
main { max-width: 1200px; padding: .5rem 1rem; }
h1 { font-size: 1.3rem; }
.howto { font-size: 12px; margin: .3rem 0 .6rem; }
.howto ol { margin: .2rem 0 .3rem 1.2rem; padding: 0; }
.howto p { margin: .2rem 0; }
.hsize { border-top: 1px solid #9aa3ab; margin-top: .4rem; }
.hsize h3 { break-after: avoid; page-break-after: avoid; }
.hsize h3 .note { font-size: .8em; font-weight: 400; }
.grid { break-inside: avoid; page-break-inside: avoid; }
.hsize h3 { margin: .3rem 0 .1rem; font-size: .95rem; }
.grids { display: flex; flex-wrap: wrap; gap: .3rem .8rem; align-items: flex-start; }
.grid h4 { margin: .1rem 0; font-size: .8rem; font-weight: 600; }
table.cheat { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 11px; }
table.cheat th, table.cheat td { border: 1px solid #b4bcc4; padding: 1px 4px;
                                 text-align: center; }
table.cheat td { max-width: 13em; }
table.cheat td { font-weight: 600; }
table.cheat th { background: #eef1f4; font-weight: 500; }
table.cheat td.thin { background: #eee; color: #777; font-weight: 400; }
table.cheat td.none { color: #bbb; font-weight: 400; }
table.cheat td i { font-style: normal; color: #777; font-weight: 400; }
table.points { border-collapse: collapse; font-size: 10.5px; }
table.points th, table.points td { border: 1px solid #c8cfd6; padding: 0 4px; text-align: right; }
table.points td:first-child { text-align: left; }
.config dl { font-size: 11px; }
.config { padding: 0 .6rem .3rem; margin: .4rem 0; }
"""


def _cell(texts: list[str], thin: bool, grid: SheetGrid, lines: list[Any]) -> str:
    seen = [t for t in texts if t != "·"]
    if not seen:
        return '<td class="none">·</td>'
    cls = ' class="thin"' if thin else ""
    if len(set(seen)) == 1:
        return f"<td{cls}>{esc(seen[0])}</td>"
    # positions by the first remaining feature (side_high), lines by the others (specials)
    parts = []
    for line in lines:
        row = [t for k, t in zip(grid.subkeys, texts, strict=True) if k[1:] == line]
        if all(t == "·" for t in row):
            continue
        while row and row[-1] == "·":
            row.pop()
        lead = f"<i>{esc(' '.join(map(str, line)))}:</i> " if len(lines) > 1 else ""
        parts.append(lead + esc("|".join(row)))
    return f"<td{cls}>{'<br>'.join(parts)}</td>"


def _grid(grid: SheetGrid, players: int) -> str:
    lines = list(dict.fromkeys(k[1:] for k in grid.subkeys))
    corner = f"{esc(grid.row_feature)} ↓" + (f" / {esc(grid.col_feature)} →"
                                             if grid.col_feature else "")
    head = "".join(f"<th>{esc(str(c))}</th>" for c in grid.cols) if grid.col_feature \
        else "<th>bid</th>"
    body = []
    for r in grid.rows:
        tds = "".join(_cell(*grid.cells[(r, c)], grid, lines) if (r, c) in grid.cells
                      else '<td class="none">·</td>' for c in grid.cols)
        label = f"{r:g}" if isinstance(r, float) else str(r)
        body.append(f"<tr><th>{esc(label)}</th>{tds}</tr>")
    return (f'<div class="grid"><h4>seat {esc(seat_label(grid.seat, players))}</h4>'
            f'<table class="cheat"><thead><tr><th>{corner}</th>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _size_block(g: GameReport, r: SizeReport) -> str:
    h = r.hand_size
    title = f"{h} card{'s' if h != 1 else ''}"
    if r.sheet is None or r.sheet.empty:
        return f'<div class="hsize"><h3>{title}</h3><p class="note">No data.</p></div>'
    sheet = r.sheet
    if not sheet.attrs.get("features"):
        sheet.attrs["features"] = list(r.class_features)
    grids = sheet_grids(sheet)
    rest = list(sheet.attrs["features"])[2:]
    inside = (" Inside a cell: " + "; lines: ".join(esc(SUBKEY_HELP.get(f, f)) for f in rest)
              + ".") if rest else ""
    names = (" Contracts: " + ", ".join(f"{i + 1} = {esc(n)}" for i, n in
                                         enumerate(r.bid_names)) + ".") if r.bid_names else ""
    return (f'<div class="hsize"><h3>{title} <span class="note">({r.forced_deals:,} deals per '
            f"seat){inside}{names}</span></h3>"
            f'<div class="grids">{"".join(_grid(x, g.players) for x in grids)}</div></div>')


def _points_block(g: GameReport) -> str:
    tables = {r.hand_size: r.points for r in g.sizes
              if r.points is not None and not r.points.empty and "points" in r.class_features}
    df = points_by_size(tables)
    if df.empty:
        return ""
    return (f'<div class="hsize"><h3>Point table: points per card, by hand size '
            f'<span class="note">("0.65/1" = 0.65 with a suit trump, 1 in no trump)</span></h3>'
            f'{points_table(df, "card ↓ / cards in hand →")}</div>')


def _howto(g: GameReport) -> str:
    feats = list(dict.fromkeys(f for r in g.sizes for f in r.class_features))
    small = [r.hand_size for r in g.sizes if "card" in r.class_features]
    thin = min((int(r.class_table.attrs.get("min_cell", 100)) for r in g.sizes
                if r.class_table is not None), default=100)
    lower = " Lower totals win in this game: the bids minimise the expected score." \
        if any(r.better == "lower" for r in g.sizes) else ""
    card = (f"<li>With {', '.join(map(str, small))} card(s) the class is your strongest card "
            "under the trump (\"trump K\", \"A\") and, with two, the trumps you hold.</li>"
            if small else "")
    points = ("<li>Otherwise count your <b>points</b>: add up each card's points from the "
              "point table (the column of your hand size; a trump counts its \"trump\" row; "
              "in no trump the number after the slash) and round down to the half point "
              "(2.7 → 2.5). Then count your <b>trumps</b> and your <b>high side cards</b> "
              "(the two highest ranks of each side suit)"
              + (" and your <b>low specials</b>" if "specials" in feats else "")
              + ".</li>" if "points" in feats else "")
    return ('<div class="howto"><p><b>Which cell is yours:</b></p><ol>' + card + points
            + "<li>Find your seat (0 = the dealer's left, the last = the dealer), the row of "
              "your points and the column of your trumps; inside the cell, the bid for your "
              "high side cards (0 | 1 | 2 | 3+) and low specials.</li></ol>"
            "<p><b>Legend:</b> <b>2/1</b> too close to call: 2 is best, 1 cannot be told apart "
            "from it (bid either); <b>2; 4+: 1</b> bid 2, but 1 when the bids before yours sum "
            f"to 4 or more; <b>?</b> thin: fewer than {thin} deals, read with care; "
            "<b>·</b> never seen. The dealer's bids are the best <em>legal</em> ones: where "
            "the hook forbids a bid the cell already gives the bid for that sum."
            + lower + "</p><p>" + "; ".join(f"<b>{esc(f)}</b>: {esc(class_help(f))}"
                                          for f in feats)
            + f".</p><p>Every bid was played on the same deals; {policy_sentence(g)}.</p></div>")


def fullsheet_page(g: GameReport) -> str:
    """The full sheet of game g (HTML): every cell of the forced-bid cheat sheet."""
    sizes = "".join(_size_block(g, r) for r in g.sizes)
    body = (f"<h1>{esc(g.title)} — full sheet: what to bid, cell by cell</h1>"
            f'<p class="note">Every cell of the forced-bid cheat sheet: too much to print. '
            f'The one-page sheet for the table is the <a href="{slug(g.name)}-cheatsheet.html">'
            f"printable cheat sheet</a>.</p>{_howto(g)}"
            f'<section class="sizes-wrap">{sizes}{_points_block(g)}</section>'
            f"{config_block(g)}"
            f'<p class="noprint"><a href="{slug(g.name)}.html">Full report</a> · '
            f'<a href="index.html">All games</a></p>')
    return html_page(f"{g.title} — full sheet", body, FULL_CSS)
