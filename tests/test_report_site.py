"""reports.charts and reports.site: a static site from small simulations."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

import simulate as sim
from reports.analysis.card_values import card_values
from reports.analysis.compact import bid_columns, threshold_rows
from reports.analysis.forced import main_cells
from reports.analysis.tables import expected_tricks_table, seat_summary
from reports.build import sheet_frame
from reports.charts import forced as forced_charts
from reports.charts import hands as charts
from reports.html import site
from reports.html.forced import MAIN_CLASSES, TOO_CLOSE
from reports.html.site import build_site
from reports.model import GameReport, SizeReport
from simulate.hands import bidder_quality
from simulate.hands.class_table import forced_class_table
from simulate.hands.classes import point_frame
from simulate.hands.compact_sheet import compact_sheet
from simulate.hands.forced import forced_run
from simulate.hands.odds import bid_odds, field_panel
from simulate.hands.sheet import cheat_sheet
from simulate.hands.train_auction import stored_figures as stored_auction_figures
from simulate.tables.policies import BID, PLAY

HANDS = 3000
DEALS = 1500            # forced-bid deals per seat and hand size


def _size(v, h: int, odds_hand: str | None, trump: str | None = None) -> SizeReport:  # type: ignore[no-untyped-def]
    res = sim.simulate_hands(v, h, HANDS, seed=0)
    runs = [forced_run(v, h, s, DEALS, seed=0) for s in range(v.players)]
    cells, bids = forced_class_table(runs, v, by_prev=True)
    odds, fields = [], []
    if odds_hand:
        odds = [bid_odds(v, odds_hand, seat=0, trump=trump, samples=1500, seed=0)]
        odds[0].attrs["label"] = "typical"
        panel = field_panel(v, odds_hand, seat=0, trump=trump, samples=1000, seed=0,
                            fields=("table", "heuristic"))
        panel.attrs.update({"label": "typical", "hand": odds_hand})
        fields = [panel]
    return SizeReport(
        hand_size=h, seat_table=seat_summary(res),
        seat_tricks=expected_tricks_table(res, by=["seat"]), class_table=cells,
        class_features=list(cells.attrs["features"]), card_values=card_values(res.records, v),
        odds=odds, contract=v.is_contract, better=str(v.rule("end.better", "higher")),
        class_bids=bids, sheet=sheet_frame(cheat_sheet(runs, v)), points=point_frame(v, h),
        fields=fields, forced_deals=DEALS,
        bid_names=[s.name for s in v.ladder] if v.bidding_form == "auction" else [],
        odds_samples=1500, compact=compact_sheet(runs, v))


def _game(name: str, sizes: list[tuple[int, str | None, str | None]]) -> GameReport:
    v = sim.load_variant(name)
    quality = bidder_quality.stored(v) if v.bidding_form != "auction" \
        else stored_auction_figures(v)
    return GameReport(
        name=v.name, title=v.title, canonical=v.canonical, players=v.players,
        summary=v.summary, policies={"play": ("precision", PLAY["precision"].description),
                                     "bid": ("table", BID["table"].description)},
        seed=0, hands_per_size=HANDS, fields=["table", "heuristic"],
        sizes=[_size(v, h, hand, trump) for h, hand, trump in sizes], bidder_quality=quality,
        bidder_file=bidder_quality.bidder_file(v))


@pytest.fixture(scope="module")
def games() -> list[GameReport]:
    # Oh Hell: sequential bids and the dealer's hook; Hasenpfeffer: an auction (contracts)
    return [_game("oh_hell", [(1, None, None), (4, "AS KS QH 2D", "S")]),
            _game("hasenpfeffer", [(6, "JOKER JS JC AS KS 9H", None)])]


@pytest.fixture(scope="module")
def built(games: list[GameReport], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(games, tmp_path_factory.mktemp("site") / "report")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for k, val in attrs:
            if k in ("href", "src") and val:
                self.links.append(val)
            if k == "id" and val:
                self.ids.add(val)


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_every_page_exists_and_shows_its_configuration(games: list[GameReport],
                                                       built: Path) -> None:
    pages = sorted(p.name for p in built.glob("*.html"))
    assert pages == ["hasenpfeffer-cheatsheet.html", "hasenpfeffer-fullsheet.html",
                     "hasenpfeffer.html", "index.html", "oh_hell-cheatsheet.html",
                     "oh_hell-fullsheet.html", "oh_hell.html"]
    index = (built / "index.html").read_text()
    for g in games:
        for page in (f"{g.name}.html", f"{g.name}-cheatsheet.html"):
            text = (built / page).read_text()
            assert g.canonical in text, page                   # html.escape keeps it intact
            assert "precision" in text and "table" in text
            assert html.escape(PLAY["precision"].description) in text
            assert f"seed</dt><dd>{g.seed}" in text
            assert f"{HANDS:,} per hand size" in text
            # the policies every number assumes, and the deals behind the forced tables
            assert "the other seats play <b>precision</b> and bid <b>table</b>" in text
            assert "the field panels also try the bid policies table, heuristic" in text
            assert f"{DEALS:,} deals per seat and hand size" in text
            assert "<style>" in text and "http://" not in text and "https://" not in text
        assert g.canonical in index and f'href="{g.name}.html"' in index
    assert html.escape(BID["table"].description) in index and "How to read the figures" in index


def test_links_resolve(built: Path) -> None:
    for page in built.glob("*.html"):
        parsed = _parse(page)
        assert parsed.links, page
        for link in parsed.links:
            target, _, anchor = link.partition("#")
            target_path = page if not target else built / target
            assert target_path.is_file(), f"{page.name}: {link}"
            assert target_path.resolve().is_relative_to(built.resolve())
            if anchor and target_path.suffix == ".html":
                assert anchor in _parse(target_path).ids, f"{page.name}: {link}"


def test_tables_show_n_ci_and_thin_marks(games: list[GameReport], built: Path) -> None:
    text = (built / "oh_hell.html").read_text()
    for h in (1, 4):
        assert f'id="h{h}"' in text
    assert '<th title="rows in the group">n</th>' in text and "95% CI" in text
    assert re.search(r"\[\d+\.\d+, \d+\.\d+\]", text)
    n = f"{games[0].sizes[1].seat_table['n'].iloc[0]:,}"
    assert f"<td>{n}</td>" in text
    # with 1,500 deals per seat some shown hand classes are thin, and they are marked
    shown_thin = sum(int(main_cells(r.sheet, s, MAIN_CLASSES)[0]["thin"].sum())
                     for r in games[0].sizes for s in range(games[0].players))
    assert shown_thin > 0
    assert text.count('<tr class="thin">') + text.count('<tr class="thin best">') >= shown_thin
    assert '<span class="badge">thin</span>' in text
    assert "★" in text and 'class="best"' in text                 # best bid of the odds table


def test_class_table_by_seat_with_too_close_marks(games: list[GameReport], built: Path) -> None:
    text = (built / "oh_hell.html").read_text()
    assert text.count("Best bid by hand class (every bid played)") == 2
    for seat in ("0 (dealer&#x27;s left)", "1", "2", "3 (dealer)"):
        assert f"<h4>Seat {seat}</h4>" in text, seat
    # every shown cell whose best and runner-up cannot be told apart carries the mark
    close = 0
    for r in games[0].sizes:
        for seat in range(games[0].players):
            shown = main_cells(r.sheet, seat, MAIN_CLASSES)[0]
            close += int(shown["too_close"].sum())
    assert close > 0
    # the mark appears in the intro of each size and once per too-close row
    assert text.count(TOO_CLOSE) >= close + len(games[0].sizes)
    # the best bid, its E[score] and the sheet's text of the most frequent cell of seat 0
    top = main_cells(games[0].sizes[1].sheet, 0, 1)[0].iloc[0]
    assert f"<b>{int(top['best'])}</b>" in text and f"{top['e_score']:.2f}" in text
    assert f"{top['diff']:.2f}" in text
    # the later seats get their best bid by the sum of earlier bids
    assert "Seat 1 by the sum of the bids made before it" in text
    assert "<th title=\"best bid when the earlier bids sum to 0\">sum 0</th>" in text


def test_dealer_shows_forbidden_bids(games: list[GameReport], built: Path) -> None:
    r = games[0].sizes[1]
    cells = r.class_table
    dealer = cells[(cells.seat == 3) & (cells.forbidden != "")]
    assert len(dealer), "the hook forbids the dealer a bid for some sums"
    # a forbidden bid is never the dealer's best
    for row in dealer.to_dict("records"):
        assert str(int(row["best"])) not in row["forbidden"].split()
    text = (built / "oh_hell.html").read_text()
    section = text[text.index('id="h4"'):]
    dealer_part = section[section.index("<h4>Seat 3 (dealer)</h4>"):]
    assert re.search(r"\(no \d+\)", dealer_part)
    assert "if forbidden" in dealer_part
    assert list(built.glob("oh_hell/h4/forced-bids.png"))


def test_full_sheet_page(games: list[GameReport], built: Path) -> None:
    cheat = (built / "oh_hell-fullsheet.html").read_text()
    assert "@page" not in cheat and "oh_hell-cheatsheet.html" in cheat   # not for print
    assert cheat.count('<table class="cheat">') == 2 * games[0].players
    # the legend and how to count a hand's class
    for needle in ("too close to call", "<b>2; 4+: 1</b>", "<b>?</b> thin", "Which cell is yours",
                   "count your <b>points</b>", "Point table", "seat 3 (dealer)"):
        assert needle in cheat, needle
    # every printed cell of the sheet appears as the sheet says it
    sheet = games[0].sizes[1].sheet
    for t in sheet["text"].head(20):
        assert html.escape(str(t)) in cheat, t
    # the point table lists the cards' points of the size
    pts = games[0].sizes[1].points
    assert f"<td>{html.escape(str(pts['card'].iloc[0]))}</td>" in cheat
    assert 'class="thin"' in cheat
    hp = (built / "hasenpfeffer-fullsheet.html").read_text()
    assert "Contracts: 1 = " in hp
    for page in ("index.html", "oh_hell.html", "oh_hell-cheatsheet.html"):
        assert 'href="oh_hell-fullsheet.html"' in (built / page).read_text(), page


def test_printable_cheat_sheet_page(games: list[GameReport], built: Path) -> None:
    cheat = (built / "oh_hell-cheatsheet.html").read_text()
    assert "@media print" in cheat and "@page { size: A4 landscape" in cheat
    assert cheat.count('<table class="bids">') == 1 and '<table class="cheat">' not in cheat
    sheets = {r.hand_size: r.compact for r in games[0].sizes if r.compact is not None}
    lowest, columns = bid_columns(sheets)
    rows = threshold_rows(sheets, columns)
    body = cheat[cheat.index('<table class="bids">'):cheat.index("</table>")]
    assert body.count("<tr") == 1 + len(rows) == 1 + 2 * games[0].players
    # every printed row: its points per bid, the earlier-bids rule and the hook rule
    for rec in rows.to_dict("records"):
        cells = "".join(f'<td class="b">{html.escape(str(rec[str(b)]))}</td>' for b in columns)
        assert cells in body, rec
    assert "if forbidden" in body and ("1 less" in body or "1 more" in body)
    assert "earlier bids sum" in body
    for needle in ("How to use it", "Count your points", "Points per card, by cards in hand",
                   "the other seats play <b>precision</b> and bid <b>table</b>",
                   f"same {DEALS:,} deals per seat and hand size", "(else 0)"):
        assert needle in cheat, needle
    pts = games[0].sizes[1].points
    assert f"<td>{html.escape(str(pts['card'].iloc[0]))}</td>" in cheat
    hp = (built / "hasenpfeffer-cheatsheet.html").read_text()
    names = games[1].sizes[0].bid_names
    assert "How high to go, by points: bid up to the highest contract" in hp
    assert "bid up to it, no higher" in hp and html.escape(names[-1]) in hp
    assert "earlier bids sum" not in hp and "if forbidden" not in hp


def test_field_panel_and_contract_game(built: Path, games: list[GameReport]) -> None:
    text = (built / "oh_hell.html").read_text()
    assert "Does the answer depend on the opponents?" in text
    assert "table: best" in text and "heuristic: best" in text and "robust" in text
    assert "turned up" in text and "deals accepted" in text
    hp = (built / "hasenpfeffer.html").read_text()
    assert "P(maker)" in hp and "as if this seat had won the auction" in hp
    names = games[1].sizes[0].bid_names
    best = int(games[1].sizes[0].sheet["best"].iloc[0])
    assert html.escape(names[best - 1]) in hp                     # contracts by name
    assert list(built.glob("hasenpfeffer/h6/bid-odds-typical.*"))


def test_no_counterfactual_or_internal_names_on_pages(built: Path) -> None:
    for page in built.glob("*.html"):
        text = page.read_text()
        for word in ("best_bid_if_independent", "exp_score_if_bid", "counterfactual",
                     "did not depend on the bid", "RULES.md", "None", "nan", "stopped early"):
            assert word not in text, (page.name, word)
        assert not re.search(r"\b[A-Z]-[A-Z]{3}-\d", text), page.name      # rule ids
    assert not list(built.rglob("best-bid.*"))


def test_charts_and_tables_written(built: Path) -> None:
    for d, stems in (("oh_hell/h4", ["seat-advantage", "trick-distribution", "forced-bids",
                                     "bid-odds-typical", "card-values"]),
                     ("hasenpfeffer/h6", ["seat-advantage", "trick-distribution",
                                          "forced-bids", "card-values"])):
        for stem in stems:
            for ext in ("png", "svg"):
                p = built / d / f"{stem}.{ext}"
                assert p.is_file() and p.stat().st_size > 1000, p
            assert (built / d / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        for stem in ("seat-summary", "seat-tricks", "class-table", "class-bids", "cheat-sheet",
                     "card-values"):
            assert (built / d / f"{stem}.csv").stat().st_size > 0
            back = pd.read_parquet(built / d / f"{stem}.parquet")
            assert len(back) == len(pd.read_csv(built / d / f"{stem}.csv"))
    assert not list(built.rglob("*.part")) and not list(built.rglob(".*"))


def test_charts_skip_what_does_not_apply(tmp_path: Path) -> None:
    assert forced_charts.forced_bids_chart(None, None, tmp_path / "x", 4) == []
    assert charts.bid_odds_chart(None, tmp_path / "x") == []
    assert charts.card_values_chart(pd.DataFrame(), tmp_path / "x") == []
    assert charts.seat_advantage_chart(None, tmp_path / "x") == []
    assert charts.trick_distribution_chart(pd.DataFrame(), tmp_path / "x") == []
    assert list(tmp_path.iterdir()) == []


def test_failed_build_leaves_nothing_behind(tmp_path: Path, games: list[GameReport],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(charts, "card_values_chart", boom)
    out = tmp_path / "report"
    with pytest.raises(RuntimeError, match="disk on fire"):
        build_site(games, out)
    assert list(tmp_path.iterdir()) == []
    # an existing site survives a failed rebuild untouched
    out.mkdir()
    (out / "index.html").write_text("old")
    with pytest.raises(RuntimeError):
        build_site(games, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    assert (out / "index.html").read_text() == "old"
    monkeypatch.undo()


def test_rebuild_replaces_the_site(tmp_path: Path, games: list[GameReport]) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / "stale.html").write_text("stale")
    build_site(games[1:], out)
    assert not (out / "stale.html").exists() and (out / "hasenpfeffer.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    with pytest.raises(ValueError):
        build_site([games[0], games[0]], out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    assert site.DEFAULT_THIN == 100


@pytest.mark.slow
def test_parallel_build_writes_the_same_site(tmp_path: Path, games: list[GameReport],
                                             built: Path) -> None:
    # the report draws its charts in worker processes; every file must be the one the
    # serial build writes, byte for byte (a section's HTML is put back in its place)
    out = build_site(games, tmp_path / "report", workers=2)
    serial = {p.relative_to(built): p.read_bytes() for p in built.rglob("*") if p.is_file()}
    parallel = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert sorted(parallel) == sorted(serial)
    different = [str(k) for k in serial if serial[k] != parallel[k]]
    assert different == []


def test_the_bidders_quality_is_published(games: list[GameReport], built: Path) -> None:
    """The game page shows the stored exploitability of the bidder per hand size (with n and
    intervals); an auction game shows its auction table's stored figures instead."""
    oh_hell = games[0]
    assert oh_hell.bidder_quality is not None
    page = (built / "oh_hell.html").read_text(encoding="utf-8")
    section = page[page.index('id="bidder-quality"'):]
    section = section[:section.index("</section>")]
    rows = oh_hell.bidder_quality
    assert len(rows) == len(set(sim.load_variant("oh_hell").schedule))
    assert section.count("<tr") == len(rows) + 1           # a header and one row per size
    largest = rows.loc[rows["hand_size"].idxmax()]
    assert f"{largest['hand_loss']:.2f}" in section and "held-out" in section
    assert "learned model" in section and "exact one-card optimum" in section
    assert (built / "oh_hell" / "bidder-quality.csv").is_file()
    assert oh_hell.bidder_file is not None and oh_hell.bidder_file[1]
    assert f"shipped with bidlab (<code>{oh_hell.bidder_file[0]}</code>)" in section
    hasen = next(g for g in games if g.name == "hasenpfeffer")
    figures = hasen.bidder_quality
    assert figures is not None and len(figures) == 1
    auction = (built / "hasenpfeffer.html").read_text(encoding="utf-8")
    section = auction[auction.index('id="bidder-quality"'):]
    section = section[:section.index("</section>")]
    assert "auction" in section and section.count("<tr") == 2
    assert f"{figures['margin_vs_heuristic'].iloc[0]:.3f}" in section
    assert f"{figures['deviation_gain'].iloc[0]:.3f}" in section
    assert (built / "hasenpfeffer" / "auction-quality.csv").is_file()


def test_a_bidder_the_user_trained_is_named_as_theirs(games: list[GameReport],
                                                     tmp_path: Path) -> None:
    """Where the bidder comes from the user's own trained file (it replaces the shipped one),
    the bidder's section says so, with the file's name."""
    import dataclasses

    from reports.html.quality import quality_section

    g = dataclasses.replace(games[0], bidder_file=("oh_hell-4p-mine.npz", False))
    section = quality_section(g, tmp_path)
    assert "your own trained file</b> <code>oh_hell-4p-mine.npz</code>" in section
    assert "shipped with bidlab" not in section
    assert "trained file" not in quality_section(dataclasses.replace(g, bidder_file=None),
                                                 tmp_path)
