"""No output names a fallback bidder "table": where a configuration has no trained table, the
table bidder bids by the heuristic, and every command, the web API and the report say so
(issue 14 part 5). The configuration here changes the scoring of a shipped game, so it has
no trained table by construction."""

from __future__ import annotations

import re
import warnings

import pytest
from click.testing import CliRunner

import simulate as sim
from simulate.cli.main import cli
from simulate.tables.policies import FALLBACK, bid_policy_label, pair_label

UNTRAINED = ["oh_hell", "--set", "zero_bid=reduced"]
# "table" as a policy name: bid=table, +table, a field or entrant column reading table
NAMED_TABLE = re.compile(r"bid=table\b|\+table\b|^\s*table\s|\bbid table\b", re.MULTILINE)


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _no_table_named(text: str) -> None:
    assert FALLBACK in text, text
    assert not NAMED_TABLE.search(text), NAMED_TABLE.search(text)


def test_the_configuration_is_untrained_and_a_shipped_one_is_not() -> None:
    v = sim.load_variant("oh_hell", zero_bid="reduced")
    assert bid_policy_label(v, "table", [5]) == FALLBACK
    assert pair_label(v, "precision+table", [5]) == f"precision+{FALLBACK}"
    assert pair_label(sim.load_variant("oh_hell"), "precision+table") == "precision+table"
    assert pair_label(v, "greedy+greedy") == "greedy+greedy"


def test_simulate_names_the_fallback() -> None:
    _no_table_named(_run("simulate", *UNTRAINED, "-c", "5", "-n", "2000"))


def test_odds_and_its_field_panel_name_the_fallback() -> None:
    out = _run("odds", *UNTRAINED, "--hand", "AS KS 2H 3D 4C", "--trump", "S",
               "--samples", "2000", "--field", "table,greedy")
    _no_table_named(out)
    assert re.search(rf"^\s*{re.escape(FALLBACK)}\s+\d", out, re.MULTILINE), out


def test_tournament_names_the_fallback_entrant() -> None:
    out = _run("tournament", *UNTRAINED, "--seats", "precision+table,greedy+greedy",
               "-n", "400", "-c", "5")
    _no_table_named(out)


def test_games_and_compare_name_the_fallback() -> None:
    _no_table_named(_run("games", *UNTRAINED, "--games", "20", "--no-skill"))
    out = _run("compare", "oh_hell", "--base", "zero_bid=reduced", "--set", "hook=false",
               "--policies", "precision+table", "--games", "20")
    _no_table_named(out)


def test_web_odds_names_the_fallback() -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from simulate.web.app import create_app

    with TestClient(create_app(None, workers=1, queue=1, warm=False)) as client:
        r = client.get("/api/odds", params=[
            ("game", "oh_hell"), ("hand", "AS KS 2H 3D 4C"), ("trump", "S"),
            ("samples", "2000"), ("field", "table,greedy"), ("set", "zero_bid=reduced")])
        assert r.status_code == 200, r.text
        body = r.json()
    assert body["bid_label"] == FALLBACK
    assert [row["bidder"] for row in body["panel"]["rows"]][0] == FALLBACK


def test_an_auction_games_bidder_is_named_by_its_trained_table() -> None:
    """Hasenpfeffer's auction table ships for its defaults, so the report names the table
    bidder "table"; an option without a trained file falls back to the heuristic, named so."""
    from reports.build import bid_policy_entry
    from simulate.tables.policies import BID, bid_policy_label

    assert bid_policy_entry({"name": "hasenpfeffer", "players": 4}, "table") == \
        ("table", BID["table"].description)
    untrained = sim.load_variant("hasenpfeffer", defenders_score_tricks=True)
    assert bid_policy_label(untrained, "table") == FALLBACK
    assert bid_policy_entry({"name": "oh_hell", "players": 4}, "table") == \
        ("table", BID["table"].description)
