"""Marginal card values (swap pairs), direct attribution by seat, and their report section."""

from __future__ import annotations

import dataclasses
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd

import simulate as sim
from reports.analysis.card_values import card_value_table, card_values, marginal_by_seat
from reports.html.site import build_site
from reports.model import GameReport, SizeReport
from simulate.hands.card_attribution import direct_by_seat
from simulate.hands.card_swap import marginal_values, pair_differences, reference_card
from simulate.hands.chunks import run_records_chunk
from simulate.hands.job import make_job
from simulate.hands.relabel import CARD_AXES, swap_bits, swap_cards
from simulate.kernel.hand import S_SIZE
from simulate.tables.policies import BID, PLAY


def _row(df: pd.DataFrame, card: str, seat: str) -> pd.Series:
    return df[(df["card"] == card) & (df["seat"] == seat)].iloc[0]


def test_reference_against_itself_is_exactly_zero() -> None:
    v = sim.load_variant("oh_hell")
    ref = v.cards.names[reference_card(v, 0)]
    assert ref == "2H"
    df = marginal_values(v, 5, "S", 3000, seed=1, cards=[ref])
    assert (df["pairs"] > 0).all() and len(df) == v.players + 1
    assert (df["tricks"] == 0).all() and (df["score"] == 0).all()
    assert (df["tricks_lo"] == 0).all() and (df["tricks_hi"] == 0).all()


def test_one_card_oh_hell_ace_of_trumps_is_exact() -> None:
    """One card each, spades turned up: the ace takes its trick; the 2H in its place takes a
    trick only when it leads (seat 0) and nobody holds a spade or a higher heart. The deal is
    accepted with weight (spades left to turn up) / 48, so seat 0's exact value is
    1 - C(26,3)·12 / sum_k C(12,k) C(38,3-k) (12-k)."""
    v = sim.load_variant("oh_hell")
    df = marginal_values(v, 1, "S", 60_000, seed=3, cards=["AS"], reference="2H")
    for seat in ("1", "2", "3"):
        row = _row(df, "AS", seat)
        assert row["pairs"] > 300
        assert row["tricks"] == 1.0 and row["tricks_lo"] == row["tricks_hi"] == 1.0
    wins = comb(26, 3) * 12 / sum(comb(12, k) * comb(38, 3 - k) * (12 - k) for k in range(4))
    row = _row(df, "AS", "0")
    se = (row["tricks_hi"] - row["tricks"]) / 1.96
    assert row["pairs"] > 600
    assert abs(row["tricks"] - (1 - wins)) < 3 * se
    assert row["tricks"] < 0.95          # the led 2H does win sometimes


def test_top_trump_is_worth_more_than_a_low_side_card() -> None:
    v = sim.load_variant("oh_hell")
    df = marginal_values(v, 5, "S", 4000, seed=2, cards=["AS", "3D"])
    ace, low = _row(df, "AS", "all"), _row(df, "3D", "all")
    assert ace["tricks_lo"] > low["tricks_hi"]
    assert ace["tricks_lo"] > 0
    assert ace["is_trump"] and not low["is_trump"]
    assert set(df["swapped_with"]) == {"undealt"}


def test_swapped_tables_play_the_transposed_deal() -> None:
    """Relabelled tables on the dealt deal give exactly what the original tables give with
    every hand fixed to the deal with the two cards exchanged (no turn-up, no widow: fixing
    every hand leaves nothing else to draw)."""
    v = sim.load_variant("hoffer")
    job = make_job(v, 4, 400, 5, "precision", "table", "S", None, None)
    x, r = v.deck.index("AS"), v.deck.index("9H")
    swapped = dataclasses.replace(job, tables=swap_cards(job.tables, x, r))
    b = run_records_chunk(swapped, 0, 400)
    checked = 0
    for j in range(0, 400, 7):
        fixed = swap_bits(b.masks[j, :v.players], x, r)
        pinned = run_records_chunk(dataclasses.replace(job, fixed=fixed), j, 1)
        assert (pinned.seat_out[0] == b.seat_out[j]).all()
        checked += 1
    assert checked > 50 and b.seat_out.shape[2] == S_SIZE


def test_swap_is_an_involution_and_knows_every_table() -> None:
    v = sim.load_variant("kings_and_fools")
    t = make_job(v, 3, 10, 0, "precision", "table", None, None, None).tables
    x, r = v.deck.index("KS"), v.deck.index("2H")
    back = swap_cards(swap_cards(t, x, r), x, r)
    for name in CARD_AXES:
        a, b = getattr(back, name), getattr(t, name)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert not np.array_equal(swap_cards(t, x, r).power, t.power)
    assert swap_cards(t, x, x) is t


def test_pairs_need_the_reference_outside_the_seat() -> None:
    v = sim.load_variant("oh_hell")
    job = make_job(v, 5, 2000, 0, "precision", "table", "S", None, None)
    a = run_records_chunk(job, 0, 2000)
    x, r = v.deck.index("KS"), v.deck.index("2H")
    seat, dt, _ = pair_differences(a, a, x, r, v.players, True)
    # identical runs: every difference is 0, and no kept deal has r in any hand
    assert len(seat) > 100 and (dt == 0).all()


def test_direct_by_seat_adds_up_to_the_kernel_counts() -> None:
    v = sim.load_variant("oh_hell")
    d = direct_by_seat(v, 5, 3000, seed=4)
    kernel = sim.simulate_hands(v, 5, 3000, seed=4, keep="summary", card_stats=True).card_rates()
    pooled = d[d["seat"] == "all"].set_index(["trump", "card"])
    k = kernel.set_index(["trump", "card"])
    assert (pooled.loc[k.index, "won"] == k["won"]).all()
    assert (pooled.loc[k.index, "held"] == k["dealt"]).all()
    seats = d[d["seat"] != "all"].groupby(["trump", "card"])[["won", "held"]].sum()
    assert (seats.loc[k.index, "won"] == k["won"]).all()
    ace = d[(d["trump"] == "S") & (d["card"] == "AS")]
    assert (ace["value"] == 1.0).all()


def test_report_section_says_what_each_number_is(tmp_path: Path) -> None:
    v = sim.load_variant("oh_hell")
    res = sim.simulate_hands(v, 3, 3000, seed=0)
    direct = direct_by_seat(v, 3, 3000, seed=0)
    marginal = marginal_values(v, 3, "S", 1500, seed=0)
    label = "precision play, table bidder"
    direct["policies"], marginal["policies"] = label, label
    fit = card_values(res.records, v)
    table = card_value_table(direct, marginal, fit, "S")
    assert table["card"].iloc[0] == "AS" and (table.loc[table.card == "2H", "tricks"] == 0).all()
    assert {"direct", "tricks", "score", "ls", "r2", "pairs"} <= set(table.columns)
    assert set(marginal_by_seat(marginal, direct, "S")["seat"]) == {"0", "1", "2", "3"}
    size = SizeReport(hand_size=3, seat_table=None, seat_tricks=None, class_table=None,
                      class_features=[], card_values=fit, card_direct=direct,
                      card_marginal=marginal)
    game = GameReport(name=v.name, title=v.title, canonical=v.canonical, players=v.players,
                      summary=v.summary,
                      policies={"play": ("precision", PLAY["precision"].description),
                                "bid": ("table", BID["table"].description)},
                      seed=0, hands_per_size=3000, fields=[], sizes=[size])
    site = tmp_path / "site"
    build_site([game], site)
    html = "".join(p.read_text() for p in site.glob("*.html"))
    assert "marginal tricks vs 2H" in html and "tricks the card itself took" in html
    assert "precision play, table bidder" in html and "By seat" in html
    assert "least-squares R²" in html
    assert "tricks the card adds" not in html and "how many tricks\neach card adds" not in html
    assert any(site.rglob("card-values-seats.png")) and any(site.rglob("card-marginal.csv"))
