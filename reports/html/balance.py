"""The Balance page of a game: whole games played with fixed policies, and what designers ask
of them — seat edges, game length, ties and margins, bid accuracy, the hook, special cards,
the skill index, and one rule change compared on the same deals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from reports.charts import balance as bc
from reports.html.site import Col, GameReport, _downloads, _figure, _int, _page, _slug, _table, esc
from simulate.util.format import fmt_num, fmt_signed


@dataclass
class BalanceReport:
    games: int                       # whole games behind the metrics
    policies: str                    # "precision+table" in every seat
    metrics: pd.DataFrame            # simulate.games.GameResults.metrics
    accuracy: pd.DataFrame           # GameResults.accuracy(by="position")
    lengths: pd.DataFrame            # GameResults.length_hist()
    skill: dict[str, Any] = field(default_factory=dict)   # simulate.compare.skill_index
    question: str = ""               # the designer's question the comparison answers
    change: str = ""                 # the option set for B, e.g. "hook=false"
    compare: pd.DataFrame | None = None   # simulate.compare.compare_games
    compare_games: int = 0
    compare_policies: str = ""
    canonical_b: str = ""


_fmt, _signed = fmt_num, fmt_signed    # the CLI's number format, in tables too


METRIC_COLS: list[Col] = [
    ("metric", "what is measured", lambda r: esc(str(r["label"]))),
    ("value", "estimate over all games", lambda r: _fmt(r["value"])),
    ("95% CI", "delta-method interval over games", lambda r: f"[{_fmt(r['lo'])}, "
                                                              f"{_fmt(r['hi'])}]"),
    ("chance", "the value equal seats / no effect would give",
     lambda r: _fmt(r["fair"]) if r.get("fair") is not None and
     not pd.isna(r.get("fair")) else ""),
    ("games", "games behind the estimate", lambda r: _int(r["games"])),
]

PAIRED_COLS: list[Col] = [
    ("metric", "what is measured", lambda r: esc(str(r["label"]))),
    ("A", "the shipped rules", lambda r: _fmt(r["a"])),
    ("B", "with the change", lambda r: _fmt(r["b"])),
    ("B − A", "paired difference over the same deals", lambda r: _signed(r["diff"])),
    ("95% CI", "of the paired difference", lambda r: f"[{_signed(r['lo'])}, "
                                                    f"{_signed(r['hi'])}]"),
]


def balance_page(g: GameReport, b: BalanceReport, root: Path) -> str:
    s = _slug(g.name)
    d = root / s / "balance"
    n = g.players
    m = b.metrics
    parts = [f"<h1>{esc(g.title)}: balance</h1>"
             f'<p class="lead">{b.games:,} whole games with <b>{esc(b.policies)}</b> in every '
             f"seat: who wins, how long games last, how accurate bidding is, what the special "
             f"cards do, and whether skill pays.</p>"
             f'<p><a href="{s}.html">Hands and bids</a> · '
             f'<a href="index.html#how-to-read">How to read the figures</a></p>',
             _config_box(g, b)]
    # ---- seats
    parts.append('<section><h2 id="seats">Seats</h2>')
    parts.append(_figure(bc.seat_metric_chart(m, "win_share", d / "win-share", n,
                                              "win share (ties split)",
                                              "Win share by seat (95% CI)"), root,
                         "win share by seat",
                         "Share of games each seat wins (a shared win is split); the dashed "
                         "line is chance. Seat 0 sits on the first dealer's left."))
    lower = bool(g.sizes) and g.sizes[0].better == "lower"
    parts.append(_figure(bc.seat_metric_chart(m, "score", d / "final-score", n,
                                              "mean final total" + (" (lower wins)" if lower
                                                                     else ""),
                                              "Final total by seat (95% CI)"), root,
                         "final score by seat", "Mean final total by seat."))
    seat_rows = m[m.seat.notna()]
    parts.append(_table(seat_rows, [("group", "", lambda r: esc(str(r["group"])))] + METRIC_COLS))
    parts.append(_downloads(m, d / "metrics", root))
    parts.append("</section>")
    # ---- game
    game_rows = m[(m.group == "game")]
    parts.append('<section><h2 id="game">Game length, ties and margins</h2>')
    if len(b.lengths) == 1:
        parts.append(f'<p>Every game lasts {int(b.lengths.hands.iloc[0])} hands.</p>')
    parts.append(_figure(bc.length_chart(b.lengths, d / "length"), root, "game length",
                         "Share of games by number of hands played."))
    parts.append(_table(game_rows, METRIC_COLS))
    parts.append(_downloads(b.lengths, d / "length", root))
    parts.append("</section>")
    # ---- accuracy
    if not b.accuracy.empty:
        parts.append('<section><h2 id="accuracy">Bid accuracy by position and hand size</h2>')
        contract = bool(g.sizes) and g.sizes[0].contract
        parts.append(_figure(bc.accuracy_chart(
            b.accuracy, d / "accuracy", n,
            title="Contracts made by position" if contract else
            "Bid accuracy by position and hand size",
            ylabel="share of hands its side made a contract as maker" if contract else
            "share of hands bid exactly"), root,
                             "bid accuracy", "Share of hands bid exactly (contracts: made "
                             "by the maker's side) by position from the dealer and hand size, "
                             "95% Wilson intervals."))
        parts.append(_downloads(b.accuracy, d / "accuracy", root))
        parts.append("</section>")
    # ---- special cards
    special = m[m.group == "special cards"]
    if not special.empty:
        parts.append('<section><h2 id="specials">Special cards</h2>'
                     '<p class="note">Win share of a card\'s holder counts every hand the card '
                     "was held, credited with the holder's share of that game's win: above "
                     "chance means holding it helps win the game.</p>")
        parts.append(_table(special, METRIC_COLS))
        parts.append("</section>")
    # ---- skill
    if b.skill:
        sk = b.skill
        parts.append(
            '<section><h2 id="skill">Skill index</h2>'
            f"<p>One <b>{esc(sk['strong'])}</b> player among <b>{esc(sk['weak'])}</b> players "
            f"(moving round every seat, {sk['games']:,} games per seating, the same deals) wins "
            f"<b>{_fmt(sk['win_share'])}</b> of the games [{_fmt(sk['lo'])}, {_fmt(sk['hi'])}] "
            f"where chance gives {_fmt(sk['fair'])}: skill index "
            f"<b>{_signed(sk['skill'])}</b> [{_signed(sk['skill_lo'])}, "
            f"{_signed(sk['skill_hi'])}], ×{sk['ratio']:.2f} chance. Higher means the rules "
            "reward better play and bidding more.</p></section>")
    # ---- the designer's question
    if b.compare is not None and not b.compare.empty:
        parts.append(
            f'<section><h2 id="compare">A rule change: {esc(b.question)}</h2>'
            f"<p>A: the shipped rules. B: <code>{esc(b.change)}</code>. {b.compare_games:,} games "
            f"of each on the same deals with <b>{esc(b.compare_policies)}</b> (the heuristic "
            f"bidder, so neither side has a trained table the other lacks); every difference "
            f"is paired game by game.</p>")
        parts.append(_figure(bc.difference_chart(b.compare, d / "compare",
                                                 f"{b.change}: change in every metric"),
                             root, "paired differences",
                             "Paired difference B − A as a percentage of A with its 95% "
                             "interval; vermillion where the interval excludes 0."))
        parts.append(_table(b.compare, PAIRED_COLS, best=lambda r: bool(r["significant"])))
        parts.append(f'<p class="note">B: <code>{esc(b.canonical_b)}</code>. Highlighted rows: '
                     "the 95% interval of the paired difference excludes 0.</p>")
        parts.append(_downloads(b.compare, d / "compare", root))
        parts.append("</section>")
    return _page(f"{g.title} balance — bidlab report", "".join(parts))


def _config_box(g: GameReport, b: BalanceReport) -> str:
    return (f'<section class="config"><h2>Configuration behind these figures</h2><dl>'
            f"<dt>variant</dt><dd><code>{esc(g.canonical)}</code></dd>"
            f"<dt>players</dt><dd>{g.players}; seat 0 sits on the first dealer's left, seat "
            f"{g.players - 1} is the first dealer; the deal passes left</dd>"
            f"<dt>policies</dt><dd>{esc(b.policies)} in every seat</dd>"
            f"<dt>seed</dt><dd>{g.seed}</dd><dt>games</dt><dd>{b.games:,}</dd>"
            "<dt>intervals</dt><dd>95%; ratio metrics by the delta method over games</dd>"
            "</dl></section>")
