"""The "configuration behind these figures" block every game page and cheat sheet shows:
the variant, the policies every number assumes (the play and bid policies of the other
seats, the opponents' fields of the field panels), the seed and how many hands and deals
are behind the tables."""

from __future__ import annotations

from reports.html.page import esc
from reports.model import GameReport

__all__ = ["config_block", "policy_sentence"]


def policy_sentence(g: GameReport) -> str:
    """One sentence naming the policies behind the numbers (HTML)."""
    play, bid = g.policies.get("play", ("?", "")), g.policies.get("bid", ("?", ""))
    return (f"every seat plays by the <b>{esc(play[0])}</b> policy and bids by the "
            f"<b>{esc(bid[0])}</b> policy, except the bid being evaluated")


def config_block(g: GameReport, extra: str = "") -> str:
    """The configuration block (HTML): variant, players, policies, opponents' fields, seed,
    hands and deals per hand size; `extra` adds <dt>/<dd> pairs."""
    play, bid = g.policies.get("play", ("?", "")), g.policies.get("bid", ("?", ""))
    sizes = ", ".join(str(s.hand_size) for s in g.sizes) or "none"
    forced = max((s.forced_deals for s in g.sizes), default=0)
    samples = max((s.odds_samples for s in g.sizes), default=0)
    fields = ", ".join(esc(f) for f in g.fields)
    rows = [f"<dt>variant</dt><dd><code>{esc(g.canonical)}</code></dd>",
            f"<dt>players</dt><dd>{g.players}</dd>",
            f"<dt>play policy</dt><dd><b>{esc(play[0])}</b> — {esc(play[1])}</dd>",
            f"<dt>bid policy</dt><dd><b>{esc(bid[0])}</b> — {esc(bid[1])}</dd>",
            f"<dt>opponents</dt><dd>in every table and chart the other seats play "
            f"<b>{esc(play[0])}</b> and bid <b>{esc(bid[0])}</b>"
            + (f"; the field panels also try the bid policies {fields}" if fields else "")
            + "</dd>",
            f"<dt>seed</dt><dd>{g.seed}</dd>",
            f"<dt>hands</dt><dd>{g.hands_per_size:,} per hand size; hand sizes {sizes}</dd>"]
    if forced:
        rows.append(f"<dt>forced bids</dt><dd>{forced:,} deals per seat and hand size, each "
                    "played once with every candidate bid of the seat</dd>")
    if samples:
        rows.append(f"<dt>bid odds</dt><dd>up to {samples:,} accepted deals per example "
                    "hand</dd>")
    return (f'<section class="config"><h2>Configuration behind these figures</h2><dl>'
            f'{"".join(rows)}{extra}</dl></section>')
