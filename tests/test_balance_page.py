"""The Balance page (issue 15): one bidder throughout, the hand-by-hand line, the skill
profile with the luck ceiling, the comparison's group labels, Holm marks and variance
reduction, and the seat-imbalance diagnostics."""

from __future__ import annotations

from pathlib import Path

import simulate as sim
from reports.html.balance import balance_page
from reports.model import BalanceReport, GameReport, RuleComparison
from simulate.games.compare import compare_games
from simulate.games.simulate import simulate_games
from simulate.games.skill import skill_profile


def test_balance_page_sections(tmp_path: Path) -> None:
    v = sim.load_variant("oh_hell")
    pol = "precision+heuristic"
    res = simulate_games(v, 400, seed=1, policies=pol, workers=1)
    prof = skill_profile(v, 200, seed=1, strong="precision+table", ceiling_games=60, workers=1)
    b = sim.load_variant("oh_hell", hook=False)
    table = compare_games(v, b, 300, seed=1, policies=pol, skill=False, workers=1)
    report = BalanceReport(games=400, policies=pol, metrics=res.metrics,
                           accuracy=res.accuracy(by="position"), lengths=res.length_hist(),
                           comparison=RuleComparison("drop the hook?", "hook=false", 300, pol,
                                                     b.canonical, table),
                           profile=prof, seats=res.seat_diagnostics())
    g = GameReport(name="oh_hell", title="Oh Hell", canonical=v.canonical, players=4,
                   summary="", policies={}, seed=1, hands_per_size=0, balance=report)
    page = balance_page(g, report, tmp_path)
    assert "Bidding is hand by hand" in page
    for needle in ("luck ceiling", "bidding skill", "play skill", "of the ceiling",
                   "precision+clairvoyant", "greedy+heuristic"):
        assert needle in page, needle
    assert "Where a seat&#x27;s edge comes from" in page or "Where a seat's edge" in page
    assert "dealt under the hook" in page
    assert (tmp_path / "oh_hell" / "balance" / "seat-score.png").is_file()
    # the comparison table names each row's group, so "seat 0" is never ambiguous
    compare = page[page.index('id="compare"'):]
    assert "final score by seat" in compare and "win share by seat" in compare
    assert "Holm" in compare and "var ×" in compare
