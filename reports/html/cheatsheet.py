"""The printable cheat sheet of a game (<name>-cheatsheet.html): ONE A4 landscape page with
the compact sheet (simulate.hands.compact_sheet) of every hand size and seat — the points
from which each bid starts, the rule for the sum of the earlier bids and for a forbidden
bid — beside the point table (a column per hand size, so a hand's points are exactly the
ones the sheet was fitted on), how to count a hand, and the policies and deals behind it.
Every cell of the forced-bid sheet is on the full sheet page (reports.html.fullsheet), which
is not meant for print.
"""

from __future__ import annotations

import pandas as pd

from reports.analysis.compact import bid_columns, threshold_rows
from reports.analysis.forced import bid_text, points_by_size
from reports.html.config import config_block
from reports.html.page import esc, html_page, points_table, slug
from reports.model import GameReport

__all__ = ["cheatsheet_page", "CHEAT_CSS"]

CHEAT_CSS = """
main { max-width: 1500px; padding: .6rem 1rem; }
h1 { font-size: 1.3rem; margin: .2rem 0; }
.sheet { display: flex; flex-wrap: wrap; gap: .6rem 1.2rem; align-items: flex-start; }
.sheet h2 { font-size: .95rem; margin: 0 0 .2rem; border: 0; padding: 0; }
.sheet > .lines, .sheet > .side { width: min-content; }  /* text wraps to the tables */
.sheet > .side { min-width: 26rem; }
table.bids, table.points { border-collapse: collapse; font-variant-numeric: tabular-nums;
                           font-size: 12px; }
table.bids th, table.bids td, table.points th, table.points td {
  border: 1px solid #c8cfd6; padding: 0 4px; text-align: right; white-space: nowrap; }
table.bids th, table.points th { background: #eef1f4; font-weight: 500; }
table.bids td.rule { text-align: left; }
table.bids tr.first td { border-top: 2px solid #6b7580; }
table.bids td.cards { font-weight: 600; text-align: center; }
table.bids td.b { font-weight: 600; }
table.points td:first-child { text-align: left; }
.howto { font-size: 12.5px; max-width: 44rem; margin-top: .5rem; }
.howto ol { margin: .2rem 0 .3rem 1.1rem; padding: 0; }
.howto p { margin: .2rem 0; }
.howto code { font-size: 11px; }
.assume { font-size: 12px; color: #444; }
@page { size: A4 landscape; margin: 6mm; }
@media print {
  header.top, .noprint, .config { display: none; }
  body { background: #fff; font-size: 7.5px; line-height: 1.2; }
  main { padding: 0; max-width: none; }
  h1 { font-size: 11px; margin: 0 0 2px; }
  .sheet { display: grid; grid-template-columns: auto auto; justify-content: start;
           gap: 2px 10px; }     /* side by side on the landscape page */
  .sheet > .side { min-width: 95mm; }
  .sheet h2 { font-size: 8.5px; margin: 0 0 1px; }
  table.bids { font-size: 7.5px; line-height: 1.15; }
  table.points { font-size: 7px; line-height: 1.15; }
  table.bids th, table.bids td, table.points th, table.points td { padding: 0 2px; }
  .howto { font-size: 7.5px; max-width: none; margin-top: 4px; }
  .howto ol { margin: 1px 0 2px 10px; }
  .howto p { margin: 1px 0; }
  .howto code { font-size: 6.5px; padding: 0; background: none; }
  .assume { font-size: 7px; }
  a { color: inherit; text-decoration: none; }
}
"""


def _seat_word(seat: int, players: int) -> str:
    return f"{seat} D" if seat == players - 1 else str(seat)


def _compact_rows(g: GameReport) -> tuple[int, list[int], pd.DataFrame]:
    """(the bid below every number, the bid columns, one row per hand size and seat)."""
    sheets = {r.hand_size: r.compact for r in g.sizes
              if r.compact is not None and not r.compact.empty}
    if not sheets:
        return 0, [], pd.DataFrame(columns=["cards", "seat", "earlier", "forbidden"])
    lowest, columns = bid_columns(sheets)
    return lowest, columns, threshold_rows(sheets, columns)


def _bids_table(g: GameReport, lowest: int, columns: list[int], rows: pd.DataFrame) -> str:
    if rows.empty:
        return '<p class="note">No compact sheet for this game.</p>'
    names = next((r.bid_names for r in g.sizes if r.bid_names), [])
    hooked = bool((rows["forbidden"] != "").any())
    earlier = bool((rows["earlier"] != "").any())
    head = ("<tr><th>cards</th><th>seat</th>"
            + "".join(f"<th>{esc(bid_text(b, names))}</th>" for b in columns)
            + ("<th>earlier bids sum</th>" if earlier else "")
            + ("<th>if forbidden</th>" if hooked else "") + "</tr>")
    body = []
    for h, block in rows.groupby("cards", sort=True):
        for i, rec in enumerate(block.to_dict("records")):
            cards = (f'<td class="cards" rowspan="{len(block)}">{int(str(h))}</td>'
                     if i == 0 else "")
            cells = "".join(f'<td class="b">{esc(str(rec[str(b)]))}</td>' for b in columns)
            first = ' class="first"' if i == 0 else ""
            body.append(f"<tr{first}>{cards}"
                        f"<td>{esc(_seat_word(int(rec['seat']), g.players))}</td>{cells}"
                        + (f'<td class="rule">{esc(str(rec["earlier"]))}</td>' if earlier else "")
                        + (f'<td class="rule">{esc(str(rec["forbidden"]))}</td>' if hooked
                           else "") + "</tr>")
    rule = ("How high to go, by points: bid up to the highest contract whose number your "
            "points reach" if names else
            "The bid by points: bid the highest bid whose number your points reach")
    return (f'<div class="lines"><h2>{rule} (else {esc(bid_text(lowest, names))})</h2>'
            f'<table class="bids"><thead>{head}</thead><tbody>{"".join(body)}</tbody>'
            "</table></div>")


def _points_table(g: GameReport) -> str:
    tables = {r.hand_size: r.points for r in g.sizes
              if r.points is not None and not r.points.empty}
    df = points_by_size(tables)
    if df.empty:
        return ""
    return f"<div><h2>Points per card, by cards in hand</h2>{points_table(df, 'card')}</div>"


def _howto(g: GameReport, earlier: bool, hooked: bool) -> str:
    names = next((r.bid_names for r in g.sizes if r.bid_names), [])
    nt = any(r.points is not None and "no_trump" in r.points
             and r.points["no_trump"].notna().any() for r in g.sizes)
    lower = any(r.better == "lower" for r in g.sizes)
    deals = max((r.forced_deals for r in g.sizes), default=0)
    play, bid = g.policies.get("play", ("?", "")), g.policies.get("bid", ("?", ""))
    steps = [
        "<b>Count your points</b>: add up your cards' points from the point table, in the "
        "column of your hand size; a trump counts its \"trump\" row"
        + (", and in no trump the number after the slash" if nt else "")
        + (" (count with the trump you would name)" if names else "") + ".",
        "<b>Find your row</b> (cards in hand, seat: 0 = the dealer's left, D = the dealer) "
        + ("and bid up to the highest contract" if names else "and bid the highest bid")
        + " whose number your points reach. A blank: never."]
    if earlier:
        steps.append("<b>Earlier bids</b>: if the bids made before yours sum as the row "
                     "says, add that much (\"7+ −1\": one less when they sum to 7 or more; "
                     "never below 0).")
    if hooked:
        steps.append("<b>If forbidden</b> (the dealer's hook): bid 1 less or 1 more, as the "
                     "row says (the other way when you cannot).")
    notes = []
    if names:
        notes.append("An auction: each contract was played as if you had won the auction "
                     "with it. The row gives how high to go: the highest contract that still "
                     "scores above 0 on average when you win the auction with it (passing "
                     "counted as 0); bid up to it, no higher. Contracts: "
                     + ", ".join(f"{esc(n)}" for n in names) + ".")
    if lower:
        notes.append("Lower totals win in this game: the bids minimise the expected score.")
    kept = ("the highest contract worth winning kept" if names else
            "the line with the best total score kept")
    notes.append(f"Every bid was played on the same {deals:,} deals per seat and hand size "
                 f"and {kept} (points only, rising with "
                 f"the points); the other seats play <b>{esc(play[0])}</b> and bid "
                 f"<b>{esc(bid[0])}</b>. Variant <code>{esc(g.canonical)}</code>, seed "
                 f"{g.seed}.")
    return ('<div class="howto"><h2>How to use it</h2><ol>'
            + "".join(f"<li>{s}</li>" for s in steps) + "</ol>"
            + "".join(f'<p class="assume">{n}</p>' for n in notes)
            + f'<p class="noprint"><a href="{slug(g.name)}-fullsheet.html">Full sheet</a> '
              "(every hand class, not for print) · "
              f'<a href="{slug(g.name)}.html">Full report</a> · '
              '<a href="index.html">All games</a></p></div>')


def cheatsheet_page(g: GameReport) -> str:
    """The printable one-page cheat sheet of game g (HTML)."""
    lowest, columns, rows = _compact_rows(g)
    earlier = bool((rows["earlier"] != "").any())
    hooked = bool((rows["forbidden"] != "").any())
    body = (f"<h1>{esc(g.title)} — cheat sheet: what to bid</h1>"
            f'<div class="sheet">{_bids_table(g, lowest, columns, rows)}'
            f'<div class="side">{_points_table(g)}{_howto(g, earlier, hooked)}</div></div>'
            f"{config_block(g)}")
    return html_page(f"{g.title} — cheat sheet", body, CHEAT_CSS)
