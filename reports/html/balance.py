"""The Balance page of a game: whole games played with fixed policies, and what designers ask
of them — seat edges, game length, ties and margins, bid accuracy, the hook, special cards,
the skill index, and one rule change compared on the same deals.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reports.charts import balance as bc
from reports.html.page import (
    Col,
    data_table,
    esc,
    figure,
    grouped_int,
    html_page,
    slug,
    table_downloads,
)
from reports.model import BalanceReport, GameReport, RuleComparison, SkillIndex
from simulate.games.simulate import HAND_BY_HAND
from simulate.util.format import fmt_num, fmt_signed

__all__ = ["balance_page", "METRIC_COLS", "PAIRED_COLS"]

# Numbers here use the CLI's format (adaptive decimals, "—" for none), so the page reads like
# `bidlab balance`; the other pages use fixed decimals per column (reports.html.page).
METRIC_COLS: list[Col] = [
    ("metric", "what is measured", lambda r: esc(str(r["label"]))),
    ("value", "estimate over all games", lambda r: fmt_num(r["value"])),
    ("95% CI", "delta-method interval over games", lambda r: f"[{fmt_num(r['lo'])}, "
                                                              f"{fmt_num(r['hi'])}]"),
    ("chance", "the value equal seats / no effect would give",
     lambda r: fmt_num(r["fair"]) if r.get("fair") is not None and
     not pd.isna(r.get("fair")) else ""),
    ("games", "games behind the estimate", lambda r: grouped_int(r["games"])),
]

PAIRED_COLS: list[Col] = [
    ("group", "what the row belongs to", lambda r: esc(str(r["group"]))),
    ("metric", "what is measured", lambda r: esc(str(r["label"]))),
    ("A", "the shipped rules", lambda r: fmt_num(r["a"])),
    ("B", "with the change", lambda r: fmt_num(r["b"])),
    ("B − A", "paired difference over the same deals", lambda r: fmt_signed(r["diff"])),
    ("95% CI", "of the paired difference (raw)", lambda r: f"[{fmt_signed(r['lo'])}, "
                                                          f"{fmt_signed(r['hi'])}]"),
    ("var ×", "variance of B − A on independent deals over its variance on the same deals",
     lambda r: f"{float(r['vr']):.1f}" if "vr" in r and pd.notna(r["vr"]) else "—"),
]


def balance_page(g: GameReport, b: BalanceReport, root: Path) -> str:
    """The Balance page of game g (HTML); its charts and tables are written under
    root/<slug>/balance/."""
    s = slug(g.name)
    d = root / s / "balance"
    parts = [f"<h1>{esc(g.title)}: balance</h1>"
             f'<p class="lead">{b.games:,} whole games with <b>{esc(b.policies)}</b> in every '
             f"seat: who wins, how long games last, how accurate bidding is, what the special "
             f"cards do, and whether skill pays.</p>"
             f'<p class="note" id="hand-by-hand"><b>{esc(HAND_BY_HAND)}</b></p>'
             f'<p><a href="{s}.html">Hands and bids</a> · '
             f'<a href="index.html#how-to-read">How to read the figures</a></p>',
             _config_box(g, b), _seats_section(g, b, d, root), _length_section(b, d, root),
             _accuracy_section(g, b, d, root), _specials_section(b)]
    if b.profile is not None and not b.profile.empty:
        parts.append(_profile_section(b.profile))
    elif b.skill is not None:
        parts.append(_skill_section(b.skill))
    if b.comparison is not None and not b.comparison.table.empty:
        parts.append(_comparison_section(b.comparison, d, root))
    return html_page(f"{g.title} balance — bidlab report", "".join(parts))


def _seats_section(g: GameReport, b: BalanceReport, d: Path, root: Path) -> str:
    m, n = b.metrics, g.players
    lower = bool(g.sizes) and g.sizes[0].better == "lower"
    win = figure(bc.seat_metric_chart(m, "win_share", d / "win-share", n,
                                      "win share (ties split)", "Win share by seat (95% CI)"),
                 root, "win share by seat",
                 "Share of games each seat wins (a shared win is split); the dashed "
                 "line is chance. Seat 0 sits on the first dealer's left.")
    final = figure(bc.seat_metric_chart(m, "score", d / "final-score", n,
                                        "mean final total" + (" (lower wins)" if lower else ""),
                                        "Final total by seat (95% CI)"),
                   root, "final score by seat", "Mean final total by seat.")
    group: list[Col] = [("group", "", lambda r: esc(str(r["group"])))]
    table = data_table(m[m.seat.notna()], group + METRIC_COLS)
    return (f'<section><h2 id="seats">Seats</h2>{win}{final}{table}'
            f'{table_downloads(m, d / "metrics", root)}{_seat_diagnostics(g, b, d, root)}'
            "</section>")


SEAT_COLS: list[Col] = [
    ("seat", "absolute seat (0 = first dealer's left)", lambda r: str(int(r["seat"]))),
    ("hands played", "hands this seat played", lambda r: grouped_int(r["played"])),
    ("hands dealt", "hands this seat dealt", lambda r: grouped_int(r["dealt"])),
    ("dealt under the hook", "hands it dealt where the hook (or Max Bet) bound its bid",
     lambda r: grouped_int(r["hooked"])),
    ("mean score per hand", "over every hand it played", lambda r: fmt_num(r["mean_score"])),
    ("exact rate", "share of its hands bid exactly (made, for contracts)",
     lambda r: fmt_num(r["exact_rate"])),
]


def _seat_diagnostics(g: GameReport, b: BalanceReport, d: Path, root: Path) -> str:
    """Where a seat imbalance comes from: who deals how often (and under the hook), and
    the score by hand size and seat."""
    seats = b.seats
    if seats is None or seats.empty:
        return ""
    by_seat = seats.groupby("seat", as_index=False).agg(
        played=("played", "sum"), dealt=("dealt", "sum"), hooked=("hooked", "sum"))
    weighted = seats.assign(score=seats.mean_score * seats.played,
                            exact=seats.exact_rate * seats.played)
    sums = weighted.groupby("seat")[["score", "exact"]].sum()
    by_seat["mean_score"] = sums.score.to_numpy() / by_seat.played.to_numpy()
    by_seat["exact_rate"] = sums.exact.to_numpy() / by_seat.played.to_numpy()
    fig = figure(bc.seat_score_chart(seats, d / "seat-score", g.players), root,
                 "mean score by hand size and seat",
                 "Mean score per hand by hand size, one line per seat.")
    return ('<h3 id="seat-diagnostics">Where a seat\'s edge comes from</h3>'
            "<p>Who deals how often (the deal passes left, so a schedule whose length is not "
            "a multiple of the players has some seats deal more), how many of those hands "
            "the hook bound, and the score by hand size and seat.</p>"
            f"{data_table(by_seat, SEAT_COLS)}{fig}"
            f'{table_downloads(seats, d / "seats", root)}')


def _length_section(b: BalanceReport, d: Path, root: Path) -> str:
    parts = ['<section><h2 id="game">Game length, ties and margins</h2>']
    if len(b.lengths) == 1:
        parts.append(f'<p>Every game lasts {int(b.lengths.hands.iloc[0])} hands.</p>')
    parts.append(figure(bc.length_chart(b.lengths, d / "length"), root, "game length",
                        "Share of games by number of hands played."))
    parts.append(data_table(b.metrics[b.metrics.group == "game"], METRIC_COLS))
    parts.append(table_downloads(b.lengths, d / "length", root))
    parts.append("</section>")
    return "".join(parts)


def _accuracy_section(g: GameReport, b: BalanceReport, d: Path, root: Path) -> str:
    if b.accuracy.empty:
        return ""
    contract = bool(g.sizes) and g.sizes[0].contract
    chart = bc.accuracy_chart(
        b.accuracy, d / "accuracy", g.players,
        title="Contracts made by position" if contract else
        "Bid accuracy by position and hand size",
        ylabel="share of hands its side made a contract as maker" if contract else
        "share of hands bid exactly")
    fig = figure(chart, root, "bid accuracy", "Share of hands bid exactly (contracts: made "
                 "by the maker's side) by position from the dealer and hand size, "
                 "95% Wilson intervals.")
    return ('<section><h2 id="accuracy">Bid accuracy by position and hand size</h2>'
            f'{fig}{table_downloads(b.accuracy, d / "accuracy", root)}</section>')


def _specials_section(b: BalanceReport) -> str:
    special = b.metrics[b.metrics.group == "special cards"]
    if special.empty:
        return ""
    return ('<section><h2 id="specials">Special cards</h2>'
            '<p class="note">Win share of a card\'s holder counts every hand the card '
            "was held, credited with the holder's share of that game's win: above "
            "chance means holding it helps win the game.</p>"
            f"{data_table(special, METRIC_COLS)}</section>")


def _skill_section(sk: SkillIndex) -> str:
    return ('<section><h2 id="skill">Skill index</h2>'
            f"<p>One <b>{esc(sk.strong)}</b> player among <b>{esc(sk.weak)}</b> players "
            f"(moving round every seat, {sk.games:,} games per seating, the same deals) wins "
            f"<b>{fmt_num(sk.win_share)}</b> of the games [{fmt_num(sk.lo)}, {fmt_num(sk.hi)}] "
            f"where chance gives {fmt_num(sk.fair)}: skill index "
            f"<b>{fmt_signed(sk.skill)}</b> [{fmt_signed(sk.skill_lo)}, "
            f"{fmt_signed(sk.skill_hi)}], ×{sk.ratio:.2f} chance. Higher means the rules "
            "reward better play and bidding more.</p></section>")


PROFILE_COLS: list[Col] = [
    ("measure", "which seat is special", lambda r: esc(str(r["label"]).split(":")[0])),
    ("its policy", "the special seat's play+bid; everyone else plays the field",
     lambda r: f"<code>{esc(str(r['policy']))}</code>"),
    ("index", "its win share − chance", lambda r: fmt_signed(r["skill"])),
    ("95% CI", "games as the unit", lambda r: f"[{fmt_signed(r['skill_lo'])}, "
                                             f"{fmt_signed(r['skill_hi'])}]"),
    ("win share", "of the special seat, ties split, over every seat it sat in",
     lambda r: fmt_num(r["win_share"])),
    ("chance", "1 / players (or teams)", lambda r: fmt_num(r["fair"])),
    ("of the ceiling", "the index as a share of the luck ceiling's, 95% CI",
     lambda r: "" if pd.isna(r["of_ceiling"]) or r["key"] == "ceiling" else
     f"{100 * r['of_ceiling']:.0f}% [{100 * r['of_ceiling_lo']:.0f}%, "
     f"{100 * r['of_ceiling_hi']:.0f}%]"),
    ("games", "games per seating", lambda r: grouped_int(r["games"])),
]


def _profile_section(profile: pd.DataFrame) -> str:
    field = esc(str(profile["field"].iloc[0]))
    return ('<section><h2 id="skill">Skill index, its parts, and the luck ceiling</h2>'
            f"<p>One seat plays the policy named below, everyone else <b>{field}</b>; the "
            "special seat moves round every seat on the same deals. <b>Skill index</b>: the "
            "strong seat (strong play and the best bidder); <b>bidding skill</b>: the best "
            "bidder with the field's play; <b>play skill</b>: strong play with the field's "
            "bidder; the <b>luck ceiling</b>: strong play with a clairvoyant bidder that knows "
            "the deal (it plays every legal bid of its hand out on that deal and keeps the "
            "best), what no bidder can beat. Each index is its win share minus chance; higher "
            "means the rules reward that skill more. The share of the ceiling treats the "
            "ceiling's games as independent of the others' (a conservative interval).</p>"
            f"{data_table(profile, PROFILE_COLS)}</section>")


def _comparison_section(c: RuleComparison, d: Path, root: Path) -> str:
    intro = (f'<section><h2 id="compare">A rule change: {esc(c.question)}</h2>'
             f"<p>A: the shipped rules. B: <code>{esc(c.change)}</code>. {c.games:,} games "
             f"of each on the same deals with <b>{esc(c.policies)}</b> (the heuristic "
             f"bidder, so neither side has a trained table the other lacks); every difference "
             f"is paired game by game.</p>")
    fig = figure(bc.difference_chart(c.table, d / "compare",
                                     f"{c.change}: change in every metric"),
                 root, "paired differences",
                 "Paired difference B − A as a percentage of A with its raw 95% "
                 "interval; vermillion where it is significant after Holm's correction "
                 "over every metric shown.")
    table = data_table(c.table, PAIRED_COLS, best=lambda r: bool(r["significant"]))
    n_tests = int(c.table["se"].notna().sum()) if "se" in c.table else len(c.table)
    note = (f'<p class="note">B: <code>{esc(c.canonical_b)}</code>. Highlighted rows: '
            f"significant after Holm's correction over the {n_tests} differences shown "
            "(family-wise 5%); the intervals printed are the raw 95% ones. var ×: how many "
            "times smaller the variance of each difference is for playing A and B on the "
            "same deals.</p>")
    return f"{intro}{fig}{table}{note}{table_downloads(c.table, d / 'compare', root)}</section>"


def _config_box(g: GameReport, b: BalanceReport) -> str:
    return (f'<section class="config"><h2>Configuration behind these figures</h2><dl>'
            f"<dt>variant</dt><dd><code>{esc(g.canonical)}</code></dd>"
            f"<dt>players</dt><dd>{g.players}; seat 0 sits on the first dealer's left, seat "
            f"{g.players - 1} is the first dealer; the deal passes left</dd>"
            f"<dt>policies</dt><dd>{esc(b.policies)} in every seat</dd>"
            f"<dt>seed</dt><dd>{g.seed}</dd><dt>games</dt><dd>{b.games:,}</dd>"
            "<dt>intervals</dt><dd>95%; ratio metrics by the delta method over games</dd>"
            "</dl></section>")
