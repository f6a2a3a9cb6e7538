"""Static HTML report site: an index, one page per game and a printable cheat sheet per game.

build_site(games, out_dir) renders reports.model.GameReport objects (filled by
reports/build.py) into

    index.html                  all games, links, the policies, how to read the figures
    <name>.html                 the bidder's stored quality figures (reports.html.quality), then
                                a section per hand size: tables (n, CIs, thin rows marked) and
                                charts (PNG embedded, SVG linked), every table also as CSV and
                                Parquet
    <name>-cheatsheet.html      the compact sheet: the bid by points for every hand size
                                and seat, one printed A4 page
    <name>-fullsheet.html       every cell of the forced-bid cheat sheet (a web page, not
                                for print)
    <name>-balance.html         whole games (reports.html.balance), when the game has them
    <name>/h<size>/*.{png,svg,csv,parquet}, <name>/balance/*

The pieces of a page (shell, tables, figures, downloads, number formats) are in
reports.html.page.

Every page shows the configuration behind its figures (canonical variant string, policies,
seed, hands). Pages use inline CSS only and load nothing from the network. Every file is
written to a temporary name and renamed; the whole site is built in a temporary folder next
to out_dir that replaces out_dir only once complete, so an interrupted build leaves either
the old site or none, never half of one.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from reports.analysis.card_values import card_value_table, marginal_by_seat
from reports.charts import hands as charts
from reports.html.balance import balance_page
from reports.html.cheatsheet import cheatsheet_page
from reports.html.config import config_block
from reports.html.forced import TOO_CLOSE, class_section, fields_section
from reports.html.fullsheet import fullsheet_page
from reports.html.page import (
    Col,
    Row,
    data_table,
    esc,
    figure,
    fixed_decimals,
    grouped_int,
    html_page,
    interval_cell,
    slug,
    table_downloads,
)
from reports.html.quality import quality_section, shows_quality
from reports.model import GameReport, SizeReport
from simulate.util.files import write_atomically
from simulate.util.format import seat_label

__all__ = ["build_site", "DEFAULT_THIN"]

DEFAULT_THIN = 100
# chart drawing in parallel: at most this many processes, and only for a site with at least
# PARALLEL_MIN parts (sections and Balance pages)
PARALLEL_WORKERS = 2
PARALLEL_MIN = 6


# ----- files -------------------------------------------------------------------------------
def _write_text(path: Path, text: str) -> Path:
    return write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def build_site(games: Sequence[GameReport], out_dir: str | os.PathLike[str],
               workers: int | None = None) -> Path:
    """Render the site into out_dir (replaced as a whole when the build succeeds; on any
    error the previous out_dir, if any, is left untouched and no temporary folder remains).
    workers: processes drawing the charts (default: see _render_parts). Returns the site
    folder."""
    games = list(games)
    names = [slug(g.name) for g in games]
    if len(set(names)) != len(names):
        raise ValueError(f"game names must be distinct: {names}")
    out = Path(out_dir).absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        os.chmod(tmp, 0o755)
        _build_into(games, tmp, workers)
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _swap_in(new: Path, out: Path) -> None:
    if not out.exists():
        os.rename(new, out)
        return
    old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:8]}")
    os.rename(out, old)
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _build_into(games: list[GameReport], root: Path, workers: int | None) -> None:
    sections, balances = _render_parts(games, root, workers)
    _write_text(root / "index.html", _index_page(games))
    for gi, g in enumerate(games):
        _write_text(root / f"{slug(g.name)}.html",
                    _game_page(g, [quality_section(g, root)]
                               + [sections[gi, si] for si in range(len(g.sizes))]))
        _write_text(root / f"{slug(g.name)}-cheatsheet.html", cheatsheet_page(g))
        _write_text(root / f"{slug(g.name)}-fullsheet.html", fullsheet_page(g))
        if gi in balances:
            _write_text(root / f"{slug(g.name)}-balance.html", balances[gi])


def _render_parts(games: list[GameReport], root: Path, workers: int | None
                  ) -> tuple[dict[tuple[int, int], str], dict[int, str]]:
    """The HTML of every hand-size section and Balance page, keyed by (game, size) and game,
    their charts and tables written under root. Drawing the charts is most of a report's
    rendering time and each part is independent, so the parts run in `workers` processes
    (default: one per core, at most PARALLEL_WORKERS; serially for a small site, where
    starting processes costs more than it saves)."""
    tasks: list[tuple[tuple[int, int], GameReport, SizeReport | None]] = []
    for gi, g in enumerate(games):
        for si, r in enumerate(g.sizes):
            # a section reads its game's settings, never the other sizes: ship only its own
            tasks.append(((gi, si), dataclasses.replace(g, sizes=[r], balance=None), r))
        if g.balance is not None:
            tasks.append(((gi, -1), g, None))
    if workers is None:
        workers = min(PARALLEL_WORKERS, os.cpu_count() or 1) if len(tasks) >= PARALLEL_MIN else 1
    if workers > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            html = list(pool.map(_render_part, [(g, r, root) for _, g, r in tasks]))
    else:
        html = [_render_part((g, r, root)) for _, g, r in tasks]
    sections = {key: text for (key, _, r), text in zip(tasks, html, strict=True) if r is not None}
    balances = {key[0]: text for (key, _, r), text in zip(tasks, html, strict=True) if r is None}
    return sections, balances


def _render_part(task: tuple[GameReport, SizeReport | None, Path]) -> str:
    """One hand-size section (SizeReport given) or one Balance page (None): its HTML."""
    g, r, root = task
    if r is None:
        assert g.balance is not None
        return balance_page(g, g.balance, root)
    return _size_section(g, r, root)


def _thin_of(df: pd.DataFrame | None) -> int:
    if df is not None:
        t = df.attrs.get("thin_below", df.attrs.get("min_cell"))
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            return int(t)
    return DEFAULT_THIN


# ----- index -------------------------------------------------------------------------------
HOW_TO_READ = """
<dl class="help">
<dt>Confidence intervals</dt><dd>Every interval <code>[low, high]</code> and every error bar
is a 95% normal-approximation interval, mean ± 1.96·sd/√n. n is the number of (hand, seat)
rows behind a number.</dd>
<dt>Thin rows and cells</dt><dd>Groups with fewer than {thin} hands are kept but marked
<span class="badge">thin</span> (greyed, italic) in tables and with a "?" on the cheat
sheet. Nothing is smoothed: read them with care.</dd>
<dt>Seat advantage</dt><dd>Mean score per hand by seat with its interval. Seat 0 is the
dealer's left, the last seat is the dealer (hatched). The dashed line is the all-seat mean.</dd>
<dt>Trick distribution by seat</dt><dd>For each seat, the share of hands in which it took
exactly k tricks (grouped bars, seat colours as in the seat-advantage chart).</dd>
<dt>Best bid by hand class</dt><dd>Each seat in turn plays <em>every</em> candidate bid
on the same deals, the other seats on their policies, so two bids are compared on identical
cards (a paired difference). Hands are grouped by a class a player can count (points from the
point table, trumps, high side cards, low specials; with one or two cards, the card itself),
by seat, and by the sum of the bids made before the seat. The best bid is the best
<em>legal</em> one (the dealer's hook forbids a bid; it is shown as forbidden). When the
paired 95% interval of the best bid's lead over the runner-up covers 0, the cell is marked
<span class="close">too close to call</span>: either bid is as good as the data can tell.
The chart shows the expected score of every bid for the most frequent classes.</dd>
<dt>Cheat sheets</dt><dd>The <em>printable cheat sheet</em> is one A4 page per game: for
every hand size and seat, the points from which each bid starts (points only, rising with
the points), a shift by the sum of the earlier bids ("7+ −1": one less when they sum to 7 or
more) and what to bid when the rules forbid that bid, fitted to the best total score over the
same forced deals. The <em>full sheet</em> keeps every cell above on one web page: "2/1" too
close to call, "2; 4+: 1" bid 2, or 1 when the earlier bids sum to 4 or more, "?" thin.</dd>
<dt>Bid odds for example hands</dt><dd>A weak, a typical and a strong hand (by the sum of
their card values) replayed with every bid on the same deals (common random numbers):
P(making the bid exactly) and the expected score with 95% intervals, and each bid's paired
difference to the best; the best bid is orange. Deals are kept only when they agree with
what the seat knows (its trump), and the acceptance rate is shown. A bid clearly worse than
the best (paired 99.9% interval) is "raced out" and shows its own n. In a contract game
every contract is played as if this seat had won the auction with it. The field panel plays
the same hands against other opponents' bid policies: a best bid that changes with the field
is not robust.</dd>
<dt>Card values</dt><dd>Three numbers per card, under one trump, each for the policies
named beside it (play and bid policy). <em>Direct</em>: the tricks the card itself takes per
hand its seat held it (counted from the kernel's play records). <em>Marginal</em>: the same
deal played twice, once as dealt and once with the card swapped for the reference card (the
lowest card of a side suit, which lay outside every hand; where every card is dealt, taken
from another seat), every other card the same: the mean paired difference in the seat's
tricks and score, with 95% intervals over deals (the trump is given). It includes what the
card changes in the seat's bid and play of its other cards, so it can exceed 1. Both are
shown by seat (0 = dealer's left). <em>Least squares</em>: a fit of tricks on the cards held,
relative to the same reference card, with its R² and intervals clustered by deal; it moves
with the bidder and is not a trick count.</dd>
<dt>Balance pages</dt><dd>Whole games played to the end with the same policies in every
seat. Seats there are fixed for the game: seat 0 sits on the first dealer's left and the
deal passes left. Win share splits a shared win; "chance" is what equal seats would give.
Ratio metrics (exact bids per hand played, and so on) carry delta-method intervals over games.
The skill index moves one strong player round the table among weaker ones on the same deals.
A rule change is played on the same deals as the shipped rules and each difference is paired
game by game, so its interval is much narrower than two separate runs would give.</dd>
<dt>Downloads</dt><dd>Every table is also written as CSV and Parquet next to its chart
(the Parquet file keeps the table's configuration in its metadata); every chart as PNG and
SVG.</dd>
</dl>
"""


def _index_page(games: list[GameReport]) -> str:
    cards = []
    policies: dict[tuple[str, str], str] = {}
    for g in games:
        s = slug(g.name)
        for kind in ("play", "bid"):
            if kind in g.policies:
                name, desc = g.policies[kind]
                policies[(kind, name)] = desc
        play, bid = g.policies.get("play", ("?", "")), g.policies.get("bid", ("?", ""))
        sizes = " ".join(f'<a href="{s}.html#h{r.hand_size}">{r.hand_size}</a>'
                         for r in g.sizes)
        cards.append(
            f'<div class="game"><h2><a href="{s}.html">{esc(g.title)}</a></h2>'
            f'<p>{esc(g.summary)}</p>'
            f'<p><a href="{s}.html">Full report</a> · '
            + (f'<a href="{s}-balance.html">Balance</a> · ' if g.balance is not None else "")
            + f'<a href="{s}-cheatsheet.html">Printable cheat sheet</a> · '
            f'<a href="{s}-fullsheet.html">Full sheet</a></p>'
            f'<p class="note">Hand sizes: {sizes or "none"}</p>'
            f'<dl class="note"><dt>variant</dt><dd><code>{esc(g.canonical)}</code></dd>'
            f'<dt>policies</dt><dd>play <b>{esc(play[0])}</b>, bid <b>{esc(bid[0])}</b>; '
            f'seed {g.seed}; {g.hands_per_size:,} hands per size; {g.players} players</dd>'
            f'</dl></div>')
    pol = "".join(f"<dt>{esc(kind)} policy <b>{esc(name)}</b></dt><dd>{esc(desc)}</dd>"
                  for (kind, name), desc in policies.items())
    thin = _thin_of(games[0].sizes[0].class_table) if games and games[0].sizes else DEFAULT_THIN
    body = (f"<h1>Bidding analysis</h1><p class=\"lead\">Monte Carlo simulations of "
            f"{len(games)} game(s): how many tricks hands take, what to bid, what cards and "
            f"seats are worth.</p>"
            f'<div class="games">{"".join(cards)}</div>'
            f'<h2>Policies</h2><dl class="help">{pol}</dl>'
            f'<h2 id="how-to-read">How to read the figures</h2>'
            f'{HOW_TO_READ.format(thin=thin)}')
    return html_page("bidlab report", body)


# ----- game page ---------------------------------------------------------------------------
def _fixed_cell(column: str, digits: int) -> Callable[[Row], str]:
    """A cell showing row[column] with `digits` decimals (a closure, so each column of a
    loop keeps its own name)."""
    return lambda r: fixed_decimals(r[column], digits)


def _seat_cols(df: pd.DataFrame, players: int) -> list[Col]:
    cols: list[Col] = [("seat", "0 = dealer's left, last = dealer",
                        lambda r: esc(seat_label(r["seat"], players))),
                       ("n", "rows (hands) for this seat", lambda r: grouped_int(r["n"]))]
    if "mean_bid" in df.columns:
        cols.append(("mean bid", "mean bid the policy made", lambda r: fixed_decimals(r["mean_bid"], 2)))
    cols.append(("mean tricks", "observed mean tricks", lambda r: fixed_decimals(r["mean_tricks"], 2)))
    if "p_exact" in df.columns:
        cols.append(("P(exact)", "share of hands bid exactly", lambda r: fixed_decimals(r["p_exact"])))
    if "mean_score" in df.columns:
        cols.append(("mean score", "observed mean score", lambda r: fixed_decimals(r["mean_score"], 2)))
        cols.append(("95% CI", "confidence interval of the mean score",
                     lambda r: interval_cell(r.get("mean_score_ci_low"), r.get("mean_score_ci_high"))))
    for c, h, tip in (("p_maker", "P(maker)", "share of hands this seat won the auction"),
                      ("p_contract_made_as_maker", "made as maker",
                       "share of its maker hands whose contract was made"),
                      ("mean_score_as_maker", "score as maker", "mean score as maker")):
        if c in df.columns:
            cols.append((h, tip, _fixed_cell(c, 3)))
    return cols


def _tricks_cols(df: pd.DataFrame, first: list[Col], dist: bool = True,
                 policy: bool = True) -> list[Col]:
    ks = sorted(int(c.rsplit("_", 1)[1]) for c in df.columns if c.startswith("p_tricks_")) \
        if dist else []
    cols = first + [("n", "rows in the group", lambda r: grouped_int(r["n"]))]
    cols += [(f"P({k})", f"share that took exactly {k} tricks",
              lambda r, k=k: fixed_decimals(r[f"p_tricks_{k}"])) for k in ks]
    cols += [("mean tricks", "observed mean tricks", lambda r: fixed_decimals(r["mean_tricks"], 2)),
             ("95% CI", "confidence interval of the mean tricks",
              lambda r: interval_cell(r["mean_tricks_ci_low"], r["mean_tricks_ci_high"]))]
    return cols + _policy_cols(df, policy)


def _policy_cols(df: pd.DataFrame, policy: bool = True) -> list[Col]:
    cols: list[Col] = []
    if policy and "policy_mean_bid" in df.columns:
        cols.append(("policy bid", "mean bid the policy made",
                     lambda r: fixed_decimals(r["policy_mean_bid"], 2)))
    if policy and "policy_mean_score" in df.columns:
        cols.append(("policy score", "observed mean score with the policy's bids",
                     lambda r: fixed_decimals(r["policy_mean_score"], 2)))
    if policy and "policy_p_exact" in df.columns:
        cols.append(("policy P(exact)", "observed share bid exactly",
                     lambda r: fixed_decimals(r["policy_p_exact"])))
    if "p_maker" in df.columns:
        cols.append(("P(maker)", "share of rows that won the auction",
                     lambda r: fixed_decimals(r["p_maker"])))
    return cols


def _odds_section(g: GameReport, r: SizeReport, d: Path, root: Path, thin: int) -> str:
    examples = [o for o in r.odds if o is not None and not o.empty]
    if not examples:
        return ('<h3>Bid odds for example hands</h3><p class="note">No example hand could '
                "be evaluated at this size.</p>")
    auction = bool(examples[0].attrs.get("auction"))
    intro = ("<p class=\"note\">Three hands of seat 0 (the dealer's left): weak, typical and "
             "strong by the sum of their card values. Each is replayed with every "
             + ("contract as if this seat had won the auction with it" if auction else "bid")
             + " on the same deals. The unseen cards are dealt at random, keeping only deals "
               "that agree with what the player knows when bidding: the trump it was dealt "
               "with (a turned-up trump, or one named by another player's policy) is a "
               "condition, not forced on the deal, so the acceptance rate is shown.</p>")
    return ("<h3>Bid odds for example hands</h3>" + intro
            + "".join(_one_odds(g, r, o, d, root, thin) for o in examples))


def _cards(h: int) -> str:
    """"1 card", "5 cards"."""
    return f"{h} card{'s' if h != 1 else ''}"


def _vs_best(x: Row) -> str:
    """The odds table's last word on a bid: forbidden, raced out, or its difference to the
    best with the interval."""
    if x.get("forbidden"):
        return "forbidden"
    if x.get("best"):
        return ""
    if x.get("stopped_early"):
        return "raced out: clearly worse"
    diff = (f"{fixed_decimals(x.get('diff_to_best'), 2)} "
            f"{interval_cell(x.get('diff_low'), x.get('diff_high'))}")
    return diff + (" tie" if x.get("tie") else "")


def calculator_link(g: GameReport, a: Mapping[Any, Any]) -> str:
    """A link opening an example hand in `bidlab serve`'s bid-odds calculator with the same
    seat, trump, samples and seed, so the same numbers. The target is in data-calc, not
    href: a report opened from disk has no calculator, and `bidlab serve` turns it into the
    href when it serves the report. "" for a game loaded from a file (the server knows
    shipped games by name only)."""
    if "@" in g.canonical or not a.get("hand"):
        return ""
    query: dict[str, Any] = {"game": g.name, "players": g.players, "hand": a["hand"],
                             "seat": a.get("seat", 0)}
    if a.get("trump") and a.get("trump_mode") not in ("fixed", "chosen by this seat"):
        query["trump"] = a["trump"]
    query.update({"samples": a.get("samples", 100_000), "seed": a.get("seed", 0)})
    return (f' <a class="calc" data-calc="/odds?{esc(urlencode(query))}" title="the bid-odds '
            'calculator: with the report served by bidlab serve (at /report/)">try it in the '
            'calculator</a>')


def _one_odds(g: GameReport, r: SizeReport, odds: pd.DataFrame, d: Path, root: Path,
              thin: int) -> str:
    a = odds.attrs
    label = str(a.get("label", "example"))
    auction = bool(a.get("auction"))
    stem = d / f"bid-odds-{label}"
    fig = figure(charts.bid_odds_chart(odds, stem,
                                        title=f"{g.title}, {_cards(r.hand_size)}, {label} hand: "
                                              f"{a.get('hand', '?')}"),
                  root, f"bid odds for the {label} hand",
                  ("P(made) and expected score by contract" if auction else
                   "P(exact) and expected score by bid") + "; best in orange; 95% intervals.")
    exact = "P(made)" if auction else "P(exact)"
    grouped = "bids_before_sum" in odds.columns
    cols: list[Col] = ([("earlier bids sum", "the sum of the bids made before this seat",
                         lambda x: grouped_int(x["bids_before_sum"]))] if grouped else [])
    cols += [
        ("contract" if auction else "bid", "the contract this seat plays" if auction else
         "the bid this seat makes",
         lambda x: (str(x["contract"]) if auction else grouped_int(x["bid"]))
         + (" ★" if x.get("best") else "")),
        ("n", "deals on which this bid was played and legal", lambda x: grouped_int(x["n"])),
        (exact, "share of deals where the contract was made" if auction else
         "share of deals where the bid was made exactly", lambda x: fixed_decimals(x["p_exact"])),
        ("E[score]", "mean score with this bid", lambda x: fixed_decimals(x["expected_score"], 2)),
        ("95% CI", "confidence interval of the expected score",
         lambda x: interval_cell(x["ci_low"], x["ci_high"])),
        ("vs best", "paired difference to the best bid on the same deals, with its 95% "
                    "interval (corrected for the bids compared)", _vs_best),
        ("mean tricks", "mean tricks taken (the side's, in a contract)",
         lambda x: fixed_decimals(x["mean_tricks"], 2))]
    table = data_table(odds, cols, thin=lambda x: 0 < x["n"] < thin,
                       best=lambda x: bool(x.get("best")))
    raced = ("; <b>raced out: clearly worse</b> = worse than the best on the same deals "
             "(paired 99.9% interval), so played on fewer deals"
             if "stopped_early" in odds.columns and odds.stopped_early.any() else "")
    accepted, dealt = int(a.get("accepted") or 0), int(a.get("dealt") or 0)
    rate = f"{accepted:,} of {dealt:,} deals accepted ({100 * accepted / max(dealt, 1):.1f}%)"
    trump = a.get("trump")
    trump_text = (f"trump {esc(str(trump))}, {esc(str(a.get('trump_mode') or ''))}"
                  if trump else "trump chosen by this seat" if a.get("trump_mode")
                  == "chosen by this seat" else "trump as the rules choose it")
    whose = ("E[score] is the partnership's" if a.get("teams") else
             "E[score] is this seat's own score for the hand")
    warn = "".join(f'<p class="note"><b>Warning:</b> {esc(str(w))}</p>'
                   for w in a.get("warnings") or [])
    ties = a.get("ties") or []
    close = (f' {TOO_CLOSE}: bids {esc(", ".join(map(str, ties)))} tie with the best.'
             if a.get("too_close") and ties else "")
    setup = (f'<h4>{esc(label.capitalize())} hand: <b>{esc(str(a.get("hand", "?")))}</b>'
             f'{calculator_link(g, a)}</h4>'
             f'<p class="note">Seat {esc(str(a.get("seat", "?")))} (0 = dealer\'s left); '
             f"{trump_text}; {rate}; seed {esc(str(a.get('seed', '?')))}; others play "
             f'{esc(str(a.get("play", "?")))} and bid '
             f'{esc(str(a.get("bid_label", a.get("bid", "?"))))}; {whose}. '
             f"★ best; forbidden bids are listed as forbidden{raced}.{close}</p>{warn}")
    return f"{setup}{fig}{table}{table_downloads(odds, stem, root)}"



def _size_section(g: GameReport, r: SizeReport, root: Path) -> str:
    h = r.hand_size
    d = root / slug(g.name) / f"h{h}"
    d.mkdir(parents=True, exist_ok=True)
    thin = _thin_of(r.class_table if r.class_table is not None else r.seat_tricks)
    name = f"{g.title}, {_cards(h)}"
    parts = [f'<section class="size" id="h{h}"><h2>Hand size {h}</h2>']
    if r.better == "lower":
        parts.append('<p class="note"><b>Lower scores are better in this game.</b></p>')

    # seats
    parts.append("<h3>Seat advantage</h3>")
    if r.seat_table is not None and not r.seat_table.empty:
        fig = figure(charts.seat_advantage_chart(r.seat_table, d / "seat-advantage",
                                                  title=f"{name}: mean score by seat",
                                                  players=g.players, better=r.better),
                      root, "mean score by seat", "Mean score by seat, 95% intervals; the "
                      "dealer hatched.")
        tbl = data_table(r.seat_table, _seat_cols(r.seat_table, g.players),
                     thin=lambda x: x["n"] < thin)
        parts.append(f'{fig}{tbl}{table_downloads(r.seat_table, d / "seat-summary", root)}')
    else:
        parts.append('<p class="note">No seat data.</p>')

    # trick distribution
    parts.append("<h3>Trick distribution by seat</h3>")
    if r.seat_tricks is not None and not r.seat_tricks.empty:
        fig = figure(charts.trick_distribution_chart(r.seat_tricks, d / "trick-distribution",
                                                      title=f"{name}: tricks taken by seat",
                                                      players=g.players),
                      root, "trick distribution by seat", "Share of hands taking k tricks.")
        first: list[Col] = [("seat", "0 = dealer's left",
                             lambda x: esc(seat_label(x["seat"], g.players)))]
        tbl = data_table(r.seat_tricks, _tricks_cols(r.seat_tricks, first, policy=False),
                     thin=lambda x: bool(x["thin"]))
        parts.append(f"{fig}{tbl}{table_downloads(r.seat_tricks, d / 'seat-tricks', root)}")

    # forced-bid class table
    if r.contract:
        parts.append('<p class="note">Contract game: every contract step is played as if this '
                     "seat had won the auction with it.</p>")
    parts.append(class_section(g, r, d, root, name))

    # example hands
    parts.append(_odds_section(g, r, d, root, thin))
    parts.append(fields_section(g, r))

    parts.append(_card_values_section(g, r, d, root, name, thin))
    parts.append("</section>")
    return "".join(parts)


def _value_cols(key: str, count: str, value: tuple[str, str], ci: tuple[str, str],
                n: tuple[str, str]) -> list[Col]:
    """A card value's three columns: the value, its 95% interval (columns key_lo, key_hi)
    and the count behind it, each as (header, tooltip)."""
    return [(*value, lambda x: fixed_decimals(x[key])),
            (*ci, lambda x: interval_cell(x[f"{key}_lo"], x[f"{key}_hi"], 3)),
            (*n, lambda x: grouped_int(x[count]))]

def _card_values_section(g: GameReport, r: SizeReport, d: Path, root: Path, name: str,
                         thin: int) -> str:
    """Direct attribution, marginal values (pooled and by seat) and the least-squares fit of
    one trump, each labelled with the policies that played it."""
    cv, direct, marginal = r.card_values, r.card_direct, r.card_marginal
    has = [x for x in (marginal, direct, cv) if x is not None and not x.empty]
    if not has:
        return '<h3>Card values</h3><p class="note">No card values.</p>'
    if marginal is not None and not marginal.empty:
        trump = str(marginal["trump"].astype(str).iloc[0])
    else:
        trump = str(charts.pick_trump(cv) if cv is not None and not cv.empty else
                    has[0]["trump"].astype(str).iloc[0])
    table = card_value_table(direct, marginal, cv, trump)
    by_seat = marginal_by_seat(marginal, direct, trump)
    label = str(has[0]["policies"].iloc[0]) if "policies" in has[0] and \
        str(has[0]["policies"].iloc[0]) else f"{g.policies['play'][0]} play, " \
        f"{g.policies['bid'][0]} bidder"
    ref = str(table["reference"].dropna().iloc[0]) if "reference" in table and \
        table["reference"].notna().any() else "the reference card"
    pairs = int(marginal["deals"].iloc[0]) if marginal is not None and not marginal.empty \
        and "deals" in marginal else 0
    fig = figure(charts.card_values_chart(table, d / "card-values",
                                          title=f"{name}: card values, trump {trump}"),
                 root, "card values",
                 f"Trump {trump}; {esc(label)}. Bars: marginal value (tricks more than with {ref} "
                 "on the same deals); dots: direct attribution (tricks the card itself took "
                 "per hand held); top 16, 95% intervals; trumps vermillion.")
    cols: list[Col] = [
        ("card", "card", lambda x: esc(str(x["card"]))),
        ("trump?", "the card is a trump under this trump", lambda x: "yes"
         if x.get("is_trump") else "")]
    if "direct" in table:
        cols += [("direct", "tricks the card itself took per hand its seat held it",
                  lambda x: fixed_decimals(x["direct"])),
                 ("95% CI", "Wilson interval of the direct attribution",
                  lambda x: interval_cell(x["direct_lo"], x["direct_hi"], 3)),
                 ("n held", "hands that held the card (direct attribution)",
                  lambda x: grouped_int(x["held"]))]
    if "tricks" in table:
        cols += [(f"marginal tricks vs {ref}", "mean paired difference in the seat's tricks, "
                  f"holding the card rather than {ref} on the same deal",
                  lambda x: fixed_decimals(x["tricks"])),
                 ("95% CI ", "normal interval over deals",
                  lambda x: interval_cell(x["tricks_lo"], x["tricks_hi"], 3)),
                 (f"marginal score vs {ref}", "mean paired difference in the seat's score",
                  lambda x: fixed_decimals(x["score"])),
                 ("95% CI  ", "normal interval over deals",
                  lambda x: interval_cell(x["score_lo"], x["score_hi"], 2)),
                 ("n pairs", "deals in which the seat held the card and the reference lay "
                  "outside the hands (or, where every card is dealt, in another hand)",
                  lambda x: grouped_int(x["pairs"]))]
    if "ls" in table:
        cols += [("least squares", "fitted value relative to the reference card of the fit "
                  "(not a trick count)", lambda x: fixed_decimals(x["ls"])),
                 ("95% CI   ", "cluster-robust (deal) interval of the fitted value",
                  lambda x: interval_cell(x["ls_lo"], x["ls_hi"], 3))]
    r2 = f"; least-squares R² {float(table['r2'].dropna().iloc[0]):.2f}" \
        if "r2" in table and table["r2"].notna().any() else ""
    tbl = data_table(table, cols, thin=lambda x: "held" in x and not x["held"] >= thin)
    seat_fig = ""
    if not by_seat.empty and "tricks" in by_seat:
        top = [str(c) for c in table["card"].head(8)]
        seat_fig = figure(charts.card_seat_chart(by_seat, d / "card-values-seats", top,
                                                 g.players,
                                                 title=f"{name}: marginal value by seat, trump "
                                                 f"{trump}"),
                          root, "marginal value by seat",
                          f"Marginal value by seat (0 = dealer's left) of the top 8 cards, trump "
                          f"{trump}; {esc(label)}; 95% intervals.")
    seat_cols: list[Col] = [("card", "card", lambda x: esc(str(x["card"]))),
                            ("seat", "0 = dealer's left", lambda x: esc(str(x["seat"])))]
    if "tricks" in by_seat:
        seat_cols += _value_cols("tricks", "pairs", ("marginal", "tricks more than with the "
                                 "reference card"), ("95% CI", "over deals"), ("n pairs", "deals"))
    if "direct" in by_seat:
        seat_cols += _value_cols("direct", "held", ("direct", "tricks the card itself took per "
                                 "hand held"), ("95% CI ", "Wilson"), ("n held", "hands"))
    shown_seats = by_seat[by_seat["card"].isin(table["card"].head(8))] if not by_seat.empty \
        else by_seat
    seat_tbl = "" if shown_seats.empty else data_table(
        shown_seats, seat_cols, thin=lambda x: not (x.get("pairs") or x.get("held") or 0) >= 30)
    downloads = "".join(table_downloads(x, d / stem, root, label) for x, stem, label in
                        ((cv, "card-values", "Least-squares fit"),
                         (direct, "card-direct", "Direct attribution, every trump and seat"),
                         (marginal, "card-marginal", "Marginal values, by seat"))
                        if x is not None and not x.empty)
    note = (f'<p class="note">Trump {trump}; policies: {esc(label)}. Direct attribution from '
            f'the first deals of this run (trump as dealt); marginal values from '
            f"{grouped_int(pairs)} deals with trump {trump} given, the card swapped for {ref}; "
            f"the deal is the unit of every interval{r2}. All cards, trumps and seats are in "
            "the downloadable tables.</p>")
    return (f'<h3>Card values</h3><div class="grid2"><div>{fig}</div><div>{note}{tbl}'
            f'</div></div><h4>By seat</h4><div class="grid2"><div>{seat_fig}</div>'
            f'<div>{seat_tbl}</div></div>{downloads}')


def _game_page(g: GameReport, sections: list[str]) -> str:
    s = slug(g.name)
    nav = " ".join(f'<a href="#h{r.hand_size}">{_cards(r.hand_size)}</a>' for r in g.sizes)
    thin = _thin_of(g.sizes[0].class_table) if g.sizes else DEFAULT_THIN
    extra = (f"<dt>thin</dt><dd>groups with n &lt; {thin} are marked thin</dd>"
             "<dt>intervals</dt><dd>95%, normal approximation</dd>")
    body = (f"<h1>{esc(g.title)}</h1><p class=\"lead\">{esc(g.summary)}</p>"
            + (f'<p><a href="{s}-balance.html">Balance: whole games</a> · '
               if g.balance is not None else "<p>")
            + f'<a href="{s}-cheatsheet.html">Printable cheat sheet</a> · '
            f'<a href="{s}-fullsheet.html">Full sheet</a> · '
            + ('<a href="#bidder-quality">How good is the bidder?</a> · '
               if shows_quality(g) else "") +
            f'<a href="index.html#how-to-read">How to read the figures</a></p>'
            f"{config_block(g, extra)}<nav class=\"sizes\">Hand sizes: {nav}</nav>"
            + "".join(sections))
    return html_page(f"{g.title} — bidlab report", body)
