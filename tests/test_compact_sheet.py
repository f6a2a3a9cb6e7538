"""simulate.hands.compact_sheet: the printable sheet's fit (optimal among rising bid lines),
its lookup (the printed numbers, the earlier-bids rule, never a forbidden bid) and its page
(one A4 page per shipped game, printed by headless Chromium)."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simulate as sim
from reports.analysis.compact import bid_columns, printed_bid, threshold_rows
from reports.html.cheatsheet import cheatsheet_page
from reports.model import GameReport, SizeReport
from simulate.hands.classes import hand_points, point_frame, weighted_sum
from simulate.hands.compact_sheet import (
    SHIFTS,
    allowed_bids,
    compact_bid,
    compact_lookup,
    compact_sheet,
    fit_line,
    monotone_fit,
    parse_shifts,
    parse_thresholds,
    played_index,
)
from simulate.hands.forced import ForcedRun, forced_run, legal_after
from simulate.tables.policies import BID, PLAY

DEALS = 1500


def _best_monotone(totals: np.ndarray) -> float:
    """The best total over every non-decreasing index sequence, by brute force."""
    K, B = totals.shape
    return max(float(totals[np.arange(K), list(seq)].sum())
               for seq in itertools.combinations_with_replacement(range(B), K))


def test_monotone_fit_is_optimal_among_monotone_sequences() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        K, B = int(rng.integers(1, 7)), int(rng.integers(1, 5))
        totals = np.round(rng.normal(size=(K, B)) * 10, 1)
        idx = monotone_fit(totals)
        assert np.all(np.diff(idx) >= 0), (totals, idx)
        assert totals[np.arange(K), idx].sum() == pytest.approx(_best_monotone(totals))


def test_monotone_fit_hand_made() -> None:
    # the best bid per class is 0, 2, 1: not rising; the best rising line is 0, 1, 1 (8.5),
    # ahead of 0, 2, 2 (8) and 0, 0, 0 (5)
    totals = np.array([[5.0, 0.0, 0.0], [0.0, 1.0, 3.0], [0.0, 2.5, 0.0]])
    assert monotone_fit(totals).tolist() == [0, 1, 1]
    # a column a row may not take
    totals[1, 1] = -np.inf
    assert monotone_fit(totals).tolist() == [0, 2, 2]


def test_played_index_takes_the_nearest_allowed_bid() -> None:
    allowed = np.array([[True, True, False, True], [False, True, True, True],
                        [True, True, True, False]])
    down, up = played_index(allowed, -1), played_index(allowed, 1)
    assert down[0].tolist() == [0, 1, 1, 3] and up[0].tolist() == [0, 1, 3, 3]
    assert down[1].tolist() == [1, 1, 2, 3]          # nothing lower: the other way
    assert up[2].tolist() == [0, 1, 2, 2]            # nothing higher: the other way


def _deals(per_cell: dict[tuple[int, int], list[float]], n: int = 10
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hand-made deals: for each (points in ticks, earlier sum) n deals scoring the given
    signed score per bid."""
    scores, ticks, prev = [], [], []
    for (t, p), row in per_cell.items():
        scores += [row] * n
        ticks += [t] * n
        prev += [p] * n
    return np.array(scores, float), np.array(ticks), np.array(prev)


def test_fit_line_thresholds_and_shift() -> None:
    # three point classes; at sum 0 the best bids are 0, 1, 2; at sum 6 one less
    s, t, p = _deals({(0, 0): [3, 0, 0], (20, 0): [0, 3, 0], (40, 0): [0, 0, 3],
                      (0, 6): [3, 0, 0], (20, 6): [3, 0, 0], (40, 6): [0, 3, 0],
                      (20, 3): [0, 3, 0]}, n=10)
    line = fit_line(s, t, p)            # the median sum is 3: its shift is 0
    assert line.base.tolist() == [0, 1, 2]
    assert dict(zip(line.sums.tolist(), line.shift.tolist(), strict=True))[6] == -1
    assert line.total == pytest.approx(3 * 10 * 7)
    assert line.direction == 0
    # without earlier bids the line is the best rising one
    alone = fit_line(s[:30], t[:30], None)
    assert alone.base.tolist() == [0, 1, 2] and alone.shift.tolist() == [0]


def test_fit_line_fallback_direction() -> None:
    # one class: bid 1 is best where allowed; where it is forbidden bid 0 scores 2 and bid
    # 2 scores 1, so the line bids 1 and falls back down
    s = np.array([[0, 5, 0]] * 10 + [[2, np.nan, 1]] * 10, float)
    t = np.full(20, 20)
    line = fit_line(s, t, None)
    assert line.base.tolist() == [1]
    assert line.direction == -1 and line.total == pytest.approx(70)
    s[10:, 0], s[10:, 2] = 1, 2
    assert fit_line(s, t, None).direction == 1


def test_fit_line_up_to_gives_the_highest_contract_worth_winning() -> None:
    # contracts 1..3 score 3, 1, -2 in the low class and 4, 3, 1 in the high one: the best
    # contract is the first in both; the highest still above 0 is the second and the third
    s, t, _ = _deals({(0, 0): [3, 1, -2], (20, 0): [4, 3, 1]})
    assert fit_line(s, t, None).base.tolist() == [0, 0]
    line = fit_line(s, t, None, up_to=True)
    assert line.base.tolist() == [1, 2]
    assert line.total == pytest.approx(10 * 1 + 10 * 1)      # the limit contracts' scores


@pytest.fixture(scope="module")
def oh_hell() -> tuple[sim.Variant, int, list[ForcedRun], pd.DataFrame]:
    v = sim.load_variant("oh_hell")
    h = 4
    runs = [forced_run(v, h, s, DEALS, seed=0) for s in range(v.players)]
    return v, h, runs, compact_sheet(runs, v)


def test_sheet_lines_rise_with_points(oh_hell: tuple[sim.Variant, int, list[ForcedRun],
                                                     pd.DataFrame]) -> None:
    v, h, runs, sheet = oh_hell
    assert sheet["seat"].tolist() == list(range(v.players))
    for rec in sheet.to_dict("records"):
        pairs = parse_thresholds(rec["thresholds"])
        bids, ticks = [b for b, _ in pairs], [t for _, t in pairs]
        assert bids == list(range(bids[0], bids[-1] + 1)) and ticks[0] == 0
        assert ticks == sorted(ticks), rec
        bands = parse_shifts(rec["shifts"])
        if rec["seat"] == 0:
            assert bands == []                       # the first bidder hears nothing
        else:
            assert bands[0][0] == 0 and bands[-1][1] == -1
            shifts = [s for _, _, s in bands]
            assert shifts == sorted(shifts, reverse=True) and set(shifts) <= set(SHIFTS)
            assert 0 in shifts
    # following the line never beats the best bid of every deal, and beats always bidding 0
    for run, rec in zip(runs, sheet.to_dict("records"), strict=True):
        signed = run.signed()
        assert rec["e_score"] <= np.nanmax(signed, axis=1).mean() + 1e-9
        assert rec["e_score"] >= np.nanmean(signed[:, 0]) - 1e-9


def test_dealer_never_gets_a_forbidden_bid(oh_hell: tuple[sim.Variant, int, list[ForcedRun],
                                                          pd.DataFrame]) -> None:
    v, h, runs, sheet = oh_hell
    dealer = runs[-1]
    assert dealer.constrained and int(sheet.iloc[-1]["fallback"]) != 0
    lowest, columns = bid_columns({h: sheet})
    row = threshold_rows({h: sheet}, columns).iloc[-1]
    masks, trumps = dealer.masks[:60], dealer.trumps[:60]
    points = hand_points(v, h, masks, trumps)
    bid_for = compact_lookup(sheet, v)
    hit_hook = 0
    for p in range(len(dealer.earlier) * h + 1):
        legal = legal_after(v, h, dealer, p)
        assert allowed_bids(v, h, dealer.seat, p, True) == legal
        for mask, trump, pts in zip(masks, trumps, points, strict=True):
            answer = bid_for(int(mask), int(trump), dealer.seat, p)
            assert answer is not None and answer.bid in legal, (p, answer)
            # the bid read off the printed row before the rule for a forbidden bid
            unhooked = min(max(printed_bid(row, columns, float(pts), p, lowest), 0), h)
            hit_hook += answer.bid != unhooked
    assert hit_hook > 0                  # the hook rule was needed somewhere


def test_hand_made_sheet_hook_rule() -> None:
    v = sim.load_variant("oh_hell")
    h = 4
    sheet = pd.DataFrame([{"seat": 3, "thresholds": "4:0", "shifts": "0-:+0",
                           "fallback": -1, "constrained": True}])
    sheet.attrs["hand_size"] = h
    mask = 0b1111                        # any four cards: every line here ignores points
    assert compact_bid(sheet, v, mask, 0, 3, 0).bid == 3          # 4 would make 4: 1 less
    assert compact_bid(sheet, v, mask, 0, 3, 1).bid == 4          # allowed
    sheet.loc[0, "thresholds"] = "0:0"
    assert compact_bid(sheet, v, mask, 0, 3, 4).bid == 1          # cannot go lower: 1 more
    sheet.loc[0, ["thresholds", "fallback"]] = ["2:0", 1]
    assert compact_bid(sheet, v, mask, 0, 3, 2).bid == 3          # 1 more as printed
    assert compact_bid(sheet, v, mask, 0, 2, 2) is None           # no line for the seat


def test_lookup_agrees_with_the_printed_rows(oh_hell: tuple[sim.Variant, int,
                                                            list[ForcedRun],
                                                            pd.DataFrame]) -> None:
    v, h, runs, sheet = oh_hell
    lowest, columns = bid_columns({h: sheet})
    rows = threshold_rows({h: sheet}, columns)
    assert len(rows) == v.players
    bid_for = compact_lookup(sheet, v)
    checked = 0
    for run, row in zip(runs, rows.to_dict("records"), strict=True):
        pts = hand_points(v, h, run.masks[:150], run.trumps[:150])
        for j in range(150):
            for p in ([None] if not run.earlier else [0, int(run.prev[j]), 2 * h]):
                want = min(max(printed_bid(row, columns, float(pts[j]), p or 0, lowest), 0), h)
                legal = legal_after(v, h, run, p or 0)
                if want not in legal:                       # the printed forbidden rule
                    d = -1 if row["forbidden"] == "1 less" else 1
                    want = want + d if want + d in legal else want - d
                got = bid_for(int(run.masks[j]), int(run.trumps[j]), run.seat, p)
                if j < 5:                                   # the one-call form agrees
                    assert got == compact_bid(sheet, v, int(run.masks[j]), int(run.trumps[j]),
                                              run.seat, p)
                assert got is not None and got.bid == want, (run.seat, p, pts[j], row)
                checked += 1
    assert checked > 1000


# ----- one printed page per shipped game ----------------------------------------------------
PAGE_DEALS = 400          # forced deals per seat and size: a rougher sheet prints more text


def _chromium() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser",
                                                       "google-chrome")) if p), None)


def _game(name: str) -> GameReport:
    v = sim.load_variant(name)
    sizes = []
    for h in dict.fromkeys(v.schedule):
        runs = [forced_run(v, h, s, PAGE_DEALS, seed=0) for s in range(v.players)]
        sizes.append(SizeReport(
            hand_size=h, seat_table=None, seat_tricks=None, class_table=None,
            class_features=[], card_values=None, contract=v.is_contract,
            better=str(v.rule("end.better", "higher")), points=point_frame(v, h),
            forced_deals=PAGE_DEALS, compact=compact_sheet(runs, v),
            bid_names=[s.name for s in v.ladder] if v.bidding_form == "auction" else []))
    return GameReport(name=v.name, title=v.title, canonical=v.canonical, players=v.players,
                      summary=v.summary,
                      policies={"play": ("precision", PLAY["precision"].description),
                                "bid": ("table", BID["table"].description)},
                      seed=0, hands_per_size=0, sizes=sizes)


SMALLEST_WORD = 5.5       # pt: a word box of the print CSS's smallest type (7px) is ~5.7 pt


def printed(html_file: Path, chromium: str) -> tuple[int, str, float]:
    """(pages, text, smallest word height in pt) of html_file printed by headless Chromium
    (its own print CSS, A4 landscape): pages from pdfinfo, words from pdftotext. Chromium
    shrinks a page too wide for the paper to fit it, so one page alone does not show that
    the sheet fits at its own type size: the smallest word does."""
    pdf = html_file.with_suffix(".pdf")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--no-pdf-header-footer", f"--print-to-pdf={pdf}", html_file.as_uri()],
                   check=True, capture_output=True, timeout=120)
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True,
                          text=True).stdout
    match = re.search(r"^Pages:\s+(\d+)", info, re.M)
    assert match, info
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    boxes = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True,
                           capture_output=True, text=True).stdout
    heights = [float(b) - float(a) for a, b in
               re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', boxes)]
    return int(match.group(1)), text, min(heights)


# one game with one hand size stays in the fast lane; every other shipped game is slow
FAST_PAGE = "hasenpfeffer"


@pytest.mark.parametrize("name", [pytest.param(n, marks=[] if n == FAST_PAGE else
                                               [pytest.mark.slow])
                                  for n in sim.shipped_variants()])
def test_printed_sheet_is_one_page(name: str, tmp_path: Path) -> None:
    chromium = _chromium()
    if chromium is None or shutil.which("pdfinfo") is None or shutil.which("pdftotext") is None:
        pytest.skip("needs headless Chromium, pdfinfo and pdftotext (apt-get install chromium "
                    "poppler-utils) to print the page")
    g = _game(name)
    page = tmp_path / f"{name}-cheatsheet.html"
    page.write_text(cheatsheet_page(g), encoding="utf-8")
    rows = sum(len(r.compact) for r in g.sizes if r.compact is not None)
    assert page.read_text().count("<tr") >= rows
    pages, text, smallest = printed(page, chromium)
    assert pages == 1
    assert smallest >= SMALLEST_WORD, f"printed shrunk to fit: words {smallest:.2f} pt high"
    # nothing cut off at the page's edges: the last column of each block is on the page
    largest = max(r.hand_size for r in g.sizes)
    for needle in ("How to use it", "Points per card", "seed 0"):
        assert needle in text, needle
    assert re.search(rf"card\s.*\b{largest}\s*$", text, re.M), "point table's last column"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
       st.lists(st.integers(0, 4), min_size=40, max_size=40), st.integers(1, 64),
       st.integers(0, 2**32 - 1))
def test_weighted_sum_is_the_sum_over_set_bits(masks: list[int], trumps: list[int],
                                               n_cards: int, seed: int) -> None:
    # the byte-table sum equals summing the weights of every set bit one card at a time
    weights = np.random.default_rng(seed).normal(size=(5, n_cards))
    m = np.array(masks, np.uint64) & np.uint64((1 << n_cards) - 1)
    t = np.array(trumps[:len(masks)], np.int64)
    want = [sum(weights[ti, c] for c in range(n_cards) if (int(mi) >> c) & 1)
            for mi, ti in zip(m, t, strict=True)]
    assert np.allclose(weighted_sum(m, t, weights), want, rtol=0, atol=1e-9)
