"""The forced-bid parts of a game page's hand-size section: the class table by seat (the
most frequent hand classes, the best legal bid with E[score], P(exact), the runner-up and
the paired difference, a "too close to call" mark, thin cells marked), the best bid by the
sum of earlier bids with forbidden bids named (the dealer's hook), the E[score]-by-bid
chart, and the field panel of the example hands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from reports.analysis.forced import bid_text, by_earlier_bids, class_help, class_label, main_cells
from reports.charts import forced as forced_charts
from reports.html.config import policy_sentence
from reports.html.page import (
    Col,
    Row,
    data_table,
    esc,
    figure,
    fixed_decimals,
    grouped_int,
    interval_cell,
    table_downloads,
)
from reports.model import GameReport, SizeReport
from simulate.hands.forced import RACE_MIN, RACE_SHARE, RACE_Z
from simulate.util.format import seat_label

__all__ = ["class_section", "fields_section", "TOO_CLOSE", "MAIN_CLASSES", "PREV_CLASSES"]

MAIN_CLASSES = 10         # hand classes per seat in the page's table (all in the CSV)
PREV_CLASSES = 6          # classes per seat in the table by the sum of earlier bids
TOO_CLOSE = '<span class="close">too close to call</span>'


def _best_cell(x: Row, names: Sequence[str]) -> str:
    text = f"<b>{esc(bid_text(x['best'], names))}</b>"
    return text + (f" {TOO_CLOSE}" if bool(x["too_close"]) else "")


def _cell_cols(features: list[str], names: Sequence[str], dealer: bool) -> list[Col]:
    cols: list[Col] = [
        ("hand class", "; ".join(f"{f}: {class_help(f)}" for f in features),
         lambda x: esc(class_label(x, features))),
        ("n", "deals of this seat in the class", lambda x: grouped_int(x["n"])),
        ("best bid", "the best legal bid: highest E[score] over every bid played on the same "
                     "deals", lambda x: _best_cell(x, names)),
        ("E[score]", "expected score of the best bid", lambda x: fixed_decimals(x["e_score"], 2)),
        ("95% CI", "of the expected score", lambda x: interval_cell(x["ci_low"], x["ci_high"])),
        ("P(exact)", "chance the best bid is made exactly" if not names else
         "chance the contract is made", lambda x: fixed_decimals(x["p_exact"])),
        ("runner-up", "the second-best bid", lambda x: esc(bid_text(x["runner_up"], names))),
        ("best − runner-up", "paired difference of the scores on the same deals",
         lambda x: fixed_decimals(x["diff"], 2)),
        ("95% CI ", "of the paired difference; covering 0 = too close to call",
         lambda x: interval_cell(x["diff_low"], x["diff_high"])),
        ("full sheet", "what the full sheet says (by the sum of earlier bids: '2; 4+: 1')",
         lambda x: esc(str(x.get("text", ""))))]
    if dealer:
        cols.append(("if forbidden", "the best bid on the deals where the rules forbid the "
                                     "best one (the hook)",
                     lambda x: esc(bid_text(x["alt"], names)) if int(x["alt"]) >= 0 else ""))
    return cols


def _seat_block(g: GameReport, r: SizeReport, seat: int, features: list[str]) -> str:
    sheet, cells = r.sheet, r.class_table
    assert sheet is not None and cells is not None
    names = r.bid_names
    shown, more, more_n = main_cells(sheet, seat, MAIN_CLASSES)
    dealer = seat == g.players - 1 and bool((sheet.loc[sheet["seat"] == seat, "alt"] >= 0).any())
    parts = [f"<h4>Seat {esc(seat_label(seat, g.players))}</h4>",
             data_table(shown, _cell_cols(features, names, dealer),
                        thin=lambda x: bool(x["thin"]))]
    if more:
        parts.append(f'<p class="note">{more:,} rarer classes ({more_n:,} deals) are in the '
                     "full table below.</p>")
    prev = by_earlier_bids(cells, seat, shown.head(PREV_CLASSES), features, names)
    if not prev.empty:
        cols: list[Col] = [("hand class", "the class of the hand", lambda x: esc(x["class"]))]
        cols += [(f"sum {s}", f"best bid when the earlier bids sum to {s}", _text_of(str(s)))
                 for s in prev.columns[1:]]
        parts.append(f'<p class="note">Seat {esc(seat_label(seat, g.players))} by the sum of '
                     "the bids made before it: the best legal bid; \"(no 3)\" = the rules "
                     "forbid bidding 3 there (the hook); \"?\" = thin; · = never seen.</p>"
                     + data_table(prev, cols))
    return "".join(parts)


def class_section(g: GameReport, r: SizeReport, d: Path, root: Path, name: str) -> str:
    """The forced-bid class table of one hand size, by seat, with its chart (HTML)."""
    cells, bids, sheet = r.class_table, r.class_bids, r.sheet
    head = "<h3>Best bid by hand class (every bid played)</h3>"
    if cells is None or cells.empty or sheet is None or sheet.empty:
        return head + '<p class="note">No class table for this hand size.</p>'
    features = [f for f in r.class_features if f in cells.columns]
    sheet.attrs.setdefault("features", features)
    thin = int(cells.attrs.get("min_cell", 100))
    deals = r.forced_deals or int(cells.attrs.get("deals_per_seat", 0))
    intro = (f'<p class="note">Each seat in turn played <em>every</em> candidate '
             f"{'contract' if r.bid_names else 'bid'} on the same {deals:,} deals; "
             f"{policy_sentence(g)}. Where it saved work, after the first 1/{RACE_SHARE} of the "
             "deals a bid whose "
             f"paired deficit to its cell's best exceeded {RACE_Z:g} standard errors (on at "
             f"least {RACE_MIN} deals) was raced out: clearly worse, it was not played again "
             "in that cell, and its figures come from the deals it was played on. The best "
             "bid is the one with the highest expected score "
             + ("(the lowest: lower totals win) " if r.better == "lower" else "")
             + "among the bids the rules allow; when the paired 95% interval of its lead over "
             f"the runner-up covers 0 the cell is marked {TOO_CLOSE}. Classes with fewer than "
             f"{thin} deals are thin (grey). E[score] is the seat's score for the hand (its "
             "side's in a partnership). Hand class: "
             + "; ".join(f"<b>{esc(f)}</b> = {esc(class_help(f))}" for f in features)
             + ".</p>")
    fig = figure(forced_charts.forced_bids_chart(
        cells, bids, d / "forced-bids", g.players, r.bid_names, r.better,
        title=f"{name}: expected score by bid, most frequent classes per seat "
              f"({deals:,} deals per seat)"),
        root, "expected score by bid", "E[score] by bid with 95% intervals for the "
        f"{forced_charts.CLASSES_PER_SEAT} most frequent cells of each seat (the sum of earlier "
        "bids is part of a cell); ★ best legal bid, × forbidden.")
    seats = "".join(_seat_block(g, r, int(s), features)
                    for s in sorted(sheet["seat"].astype(int).unique()))
    downloads = (table_downloads(cells, d / "class-table", root,
                                 "Full class table (every cell, by the sum of earlier bids)")
                 + (table_downloads(bids, d / "class-bids", root, "Every bid of every cell")
                    if bids is not None else "")
                 + table_downloads(sheet, d / "cheat-sheet", root, "Cheat-sheet cells"))
    return head + intro + fig + seats + downloads


def _text_of(column: str) -> Callable[[Row], str]:
    """A cell showing the text of row[column] ("·" when empty)."""
    return lambda x: esc(str(x[column])) or "·"


def _field_best(f: str, names: Sequence[str]) -> Callable[[Row], str]:
    """The best bid against field f."""
    return lambda x: esc(bid_text(x.get(f"{f}_best"), names))


def _field_score(f: str) -> Callable[[Row], str]:
    """E[score] of the best bid against field f, with its interval."""
    return lambda x: (f"{fixed_decimals(x.get(f'{f}_score'), 2)} "
                      f"{interval_cell(x.get(f'{f}_low'), x.get(f'{f}_high'))}")


def _field_cols(fields: list[str], names: Sequence[str]) -> list[Col]:
    cols: list[Col] = [("hand", "the example hand of seat 0", lambda x: esc(str(x["hand"])))]
    for f in fields:
        cols.append((f"{f}: best", f"best bid when the opponents bid by the {f} policy",
                     _field_best(f, names)))
        cols.append((f"{f}: E[score]", f"its expected score and 95% interval ({f} field)",
                     _field_score(f)))
    cols.append(("robust", "the best bid is the same against every field",
                 lambda x: "yes" if x["robust"] else "<b>no</b>"))
    return cols


def fields_section(g: GameReport, r: SizeReport) -> str:
    """The field panel of the example hands (HTML): the best bid and its E[score] against
    each opponents' field side by side, and whether the best bid is robust; "" if none."""
    panels = [p for p in r.fields if p is not None and not p.empty]
    if not panels:
        return ""
    fields = list(dict.fromkeys(f for p in panels for f in p["field"].astype(str)))
    rows = []
    for p in panels:
        first = p.drop_duplicates("field") if "bids_before_sum" not in p.columns else \
            p.sort_values("bids_before_sum").drop_duplicates("field")
        row: dict[str, object] = {"hand": f"{p.attrs.get('label', '')}: "
                                          f"{p.attrs.get('hand', '?')}",
                                  "robust": bool(p.attrs.get("robust"))}
        for x in first.to_dict("records"):
            f = str(x["field"])
            row.update({f"{f}_best": x["best_bid"], f"{f}_score": x["expected_score"],
                        f"{f}_low": x["ci_low"], f"{f}_high": x["ci_high"]})
        rows.append(row)
    table = data_table(pd.DataFrame(rows), _field_cols(fields, r.bid_names))
    accepted = int(panels[0]["accepted"].max()) if "accepted" in panels[0].columns else 0
    play = esc(g.policies.get("play", ("?", ""))[0])
    return ("<h3>Does the answer depend on the opponents?</h3>"
            f'<p class="note">The example hands again, on the same deals, with the other seats '
            f"bidding by each policy in turn (all play {play}; up to {accepted:,} accepted deals "
            "each). A best bid that changes with the field is not robust: it depends on how "
            "the table bids.</p>" + table)
