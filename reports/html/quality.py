"""The "how good is the bidder" section of a game page: the stored exploitability figures of
the bid policy every number assumes (simulate.hands.bidder_quality), per hand size."""

from __future__ import annotations

from pathlib import Path

from reports.html.page import (
    Col,
    Row,
    data_table,
    esc,
    fixed_decimals,
    grouped_int,
    interval_cell,
    slug,
    table_downloads,
)
from reports.model import GameReport
from simulate.hands.bidder_quality import TARGET_GAIN as GAIN_TARGET
from simulate.hands.bidder_quality import TARGET_LOSS as LOSS_TARGET
from simulate.util.stats import Z95

__all__ = ["quality_section", "shows_quality"]


def _gain(r: Row) -> str:
    if not r["cells_gaining"]:
        return "none"
    return (f"{fixed_decimals(r['max_gain'], 2)} "
            f"{interval_cell(r['max_gain_lo'], r['max_gain_hi'])} on "
            f"{fixed_decimals(100 * r['max_gain_share'], 1)}% of deals")


COLS: list[Col] = [
    ("cards", "hand size", lambda r: str(int(r["hand_size"]))),
    ("bids from", "what the bidder bids from at this size", lambda r: esc(r["bidder"])),
    ("hands", "held-out hands, each replayed with every bid", lambda r: grouped_int(r["hands"])),
    ("loss per hand", "mean points per hand the bidder's bid scores below that hand's own "
     "best bid (every bid played on the same deals of the other cards)",
     lambda r: fixed_decimals(r["hand_loss"], 2)),
    ("95% CI", "over hands", lambda r: interval_cell(r["hand_loss_lo"], r["hand_loss_hi"])),
    ("lose > 0.5", "share of hands whose bid loses more than half a point",
     lambda r: f"{100 * r['big_loss_share']:.0f}%"),
    ("not best", "share of hands not bid with their best bid (ties included)",
     lambda r: f"{100 * r['not_best']:.0f}%"),
    ("cells", "class cells (seat, hand class, earlier bids) with enough held-out deals",
     lambda r: grouped_int(r["cells"])),
    ("cells gaining", "cells where one seat gains by bidding otherwise (Holm-corrected 95%)",
     lambda r: grouped_int(r["cells_gaining"])),
    (f"> {GAIN_TARGET}", f"of them gaining more than {GAIN_TARGET} points per hand",
     lambda r: grouped_int(r["cells_gaining_over_0.2"])),
    ("largest gain", "the largest significant gain of a cell, its Holm interval and its "
     "share of the deals", _gain),
]


def _interval(mean: str, se: str) -> Col:
    """A "95% CI" column of the figure `mean` from its standard error `se` (over deals)."""
    return ("95% CI", "over deals", lambda r: interval_cell(r[mean] - Z95 * r[se],
                                                          r[mean] + Z95 * r[se]))


AUCTION_COLS: list[Col] = [
    ("cards", "hand size", lambda r: str(int(r["hand_size"]))),
    ("deals", "fresh deals per training iteration", lambda r: grouped_int(r["deals"])),
    ("tables tried", "training iterations (each a new table from fresh deals)",
     lambda r: grouped_int(r["iterations"])),
    ("kept", "the iteration whose table the round robin kept (0: the start)",
     lambda r: grouped_int(r["kept_iteration"])),
    ("judged on", "deals no training step saw", lambda r: grouped_int(r["held_out"])),
    ("over the heuristic", "mean points per hand the kept table's side scores above a side "
     "bidding by the heuristic auction, head to head, both seatings",
     lambda r: fixed_decimals(r["margin_vs_heuristic"], 3)),
    _interval("margin_vs_heuristic", "margin_vs_heuristic_se"),
    ("deviation gain", "points per hand one seat gains by switching to one more best "
     "response from the kept table (fitted on fresh deals); at or below 0, no seat gains",
     lambda r: fixed_decimals(r["deviation_gain"], 3)),
    _interval("deviation_gain", "deviation_se"),
]


def _auction(g: GameReport, root: Path) -> str:
    """The section's body for an auction game: its auction table's figures, stored when it
    was trained (simulate.hands.train_auction.FIGURES)."""
    q = g.bidder_quality
    if q is None or q.empty or "deviation_gain" not in q.columns:
        return ('<p class="note">Not measured: the bids are an auction\'s contracts, and '
                "this configuration has no trained auction table with stored figures "
                "(<code>bidlab train</code> stores them).</p>")
    intro = ("<p>The bids here are an auction's contracts. The table bidder's auction table "
             "(how high each hand bids, and when a maker goes alone) was trained by forced "
             "decisions on fresh deals; each new table went on only when one seat deviating "
             "to it gained on held-out deals, and a round robin kept the best. On deals no "
             "training step saw: how much the kept table's side scores over a side bidding "
             "by the heuristic, and how much one seat could still gain by deviating to one "
             "more best response (every other seat on the kept table).</p>")
    stem = root / slug(g.name) / "auction-quality"
    return intro + data_table(q, AUCTION_COLS) + table_downloads(q, stem, root,
                                                                   "Auction table quality")


def _source(g: GameReport) -> str:
    """A sentence naming the trained file the bidder and its figures come from."""
    if g.bidder_file is None:
        return ""
    name, shipped = g.bidder_file
    if shipped:
        return (f"<p>The bidder and these figures come from the trained file shipped with "
                f"bidlab (<code>{esc(name)}</code>).</p>")
    return (f"<p>The bidder and these figures come from <b>your own trained file</b> "
            f"<code>{esc(name)}</code> in bidlab's cache folder, which replaces the shipped "
            f"one (<code>bidlab train</code> wrote it; delete it to go back).</p>")


def shows_quality(g: GameReport) -> bool:
    """Whether the game's pages bid with the table bidder, whose figures the section shows."""
    return g.policies.get("bid", ("",))[0].startswith("table")


def quality_section(g: GameReport, root: Path) -> str:
    """The section (HTML), its table also written under root as CSV and Parquet."""
    head = '<section id="bidder-quality"><h2>How good is the bidder?</h2>'
    q = g.bidder_quality
    if not shows_quality(g):
        return ""           # the figures are the table bidder's; this report bids otherwise
    if any(r.contract for r in g.sizes):
        return head + _auction(g, root) + _source(g) + "</section>"
    if q is None or q.empty:
        return (head + '<p class="note">Not measured: this configuration has no trained '
                "bidder with stored figures (<code>bidlab exploit --record</code> measures "
                "and stores them).</p></section>")
    first = q.iloc[0]
    largest = q.sort_values("hand_size").iloc[-1]
    verdict = ("within" if largest["hand_loss"] <= LOSS_TARGET else "above")
    intro = (
        f"<p>Every figure on this page assumes the other seats bid with this bidder, so "
        f"how far it is from a best response matters. Measured on held-out deals it was "
        f"never trained on, with every seat playing precision and the other seats bidding "
        f"with the same bidder (another field gives other figures): <b>hand level</b>, "
        f"{grouped_int(first['hands'])} hands per size, each replayed with every bid on "
        f"{grouped_int(first['deals_per_hand'])} deals of the other cards that match what "
        f"the player knows, and the bidder's bid compared with that hand's own best; "
        f"<b>class level</b>, {grouped_int(first['deals'])} deals per seat with every bid "
        f"forced, and the cells where one seat gains by bidding otherwise, with Holm's "
        f"correction over every cell and bid. At {int(largest['hand_size'])} cards the "
        f"mean loss is {fixed_decimals(largest['hand_loss'], 2)} points per hand, "
        f"{verdict} the {LOSS_TARGET} a bidder near the optimum stays under. The loss is, "
        f"if anything, overstated: each hand's best is picked on the same deals.</p>")
    stem = root / slug(g.name) / "bidder-quality"
    return (head + intro + _source(g) + data_table(q, COLS) +
            table_downloads(q, stem, root, "Bidder quality") + "</section>")
