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
from reports.analysis.tables import expected_tricks_table, seat_summary
from reports.charts import hands as charts
from reports.html import site
from reports.html.site import build_site
from reports.model import GameReport, SizeReport
from simulate.hands.odds import bid_odds
from simulate.tables.policies import BID, PLAY

HANDS = 3000


def _size(v, h: int, features: list[str], odds_hand: str | None) -> SizeReport:  # type: ignore[no-untyped-def]
    res = sim.simulate_hands(v, h, HANDS, seed=0)
    odds = []
    if odds_hand:
        odds = [bid_odds(v, odds_hand, seat=0, trump="S", samples=2000, seed=0)]
        odds[0].attrs["label"] = "typical"
    return SizeReport(
        hand_size=h, seat_table=seat_summary(res), seat_tricks=expected_tricks_table(res,
                                                                                      by=["seat"]),
        class_table=expected_tricks_table(res, by=features), class_features=features,
        card_values=card_values(res.records, v), odds=odds, contract=v.is_contract,
        better=str(v.rule("end.better", "higher")))


def _game(name: str, sizes: list[tuple[int, str | None]], features: list[str]) -> GameReport:
    v = sim.load_variant(name)
    return GameReport(
        name=v.name, title=v.title, canonical=v.canonical, players=v.players,
        summary=v.summary, policies={"play": ("precision", PLAY["precision"].description),
                                     "bid": ("table", BID["table"].description)},
        seed=0, hands_per_size=HANDS,
        sizes=[_size(v, h, features, hand) for h, hand in sizes])


@pytest.fixture(scope="module")
def games() -> list[GameReport]:
    return [_game("hoffer", [(3, "HIJO JS AH"), (5, "HIJO JS JC AS 9H")], ["trumps", "top3"]),
            _game("hasenpfeffer", [(6, "JOKER JS JC AS KS 9H")], ["trumps", "top3"])]


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
    assert pages == ["hasenpfeffer-cheatsheet.html", "hasenpfeffer.html", "hoffer-cheatsheet.html",
                     "hoffer.html", "index.html"]
    index = (built / "index.html").read_text()
    for g in games:
        for page in (f"{g.name}.html", f"{g.name}-cheatsheet.html"):
            text = (built / page).read_text()
            assert g.canonical in text, page                   # html.escape keeps it intact
            assert "precision" in text and "table" in text
            assert html.escape(PLAY["precision"].description) in text
            assert f"seed</dt><dd>{g.seed}" in text
            assert f"{HANDS:,} per hand size" in text
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
    text = (built / "hoffer.html").read_text()
    for h in (3, 5):
        assert f'id="h{h}"' in text
    assert '<th title="rows in the group">n</th>' in text and "95% CI" in text
    assert re.search(r"\[\d+\.\d+, \d+\.\d+\]", text)
    n = f"{games[0].sizes[1].seat_table['n'].iloc[0]:,}"
    assert f"<td>{n}</td>" in text
    # with 3000 hands some (trumps, top3) classes are thin, and they are marked as such
    thin_rows = int(sum(s.class_table["thin"].sum() for s in games[0].sizes))
    assert thin_rows > 0
    assert text.count('<tr class="thin">') + text.count('<tr class="thin best">') >= thin_rows
    assert '<span class="badge">thin</span>' in text
    assert "★" in text and 'class="best"' in text                 # best bid of the odds table
    cheat = (built / "hoffer-cheatsheet.html").read_text()
    assert cheat.count("<table class=\"cheat\"") == 2 and 'class="thin"' in cheat
    assert "@media print" in cheat
    # contract game: no best-bid column; odds per contract as if this seat won the auction
    hp = (built / "hasenpfeffer.html").read_text()
    assert "Hand classes: trumps × top3" in hp and "Best bid by hand class" not in hp
    assert "Contract game" in hp and "P(maker)" in hp
    assert not list(built.glob("hasenpfeffer/h6/best-bid.*"))
    assert list(built.glob("hasenpfeffer/h6/bid-odds-typical.*"))
    assert "P(made)" in hp and "as if this seat had won the auction" in hp
    assert "mean tricks taken" in (built / "hasenpfeffer-cheatsheet.html").read_text()


def test_charts_and_tables_written(built: Path) -> None:
    for d, stems in (("hoffer/h5", ["seat-advantage", "trick-distribution", "best-bid",
                                    "bid-odds-typical", "card-values"]),
                     ("hasenpfeffer/h6", ["seat-advantage", "trick-distribution",
                                          "card-values"])):
        for stem in stems:
            for ext in ("png", "svg"):
                p = built / d / f"{stem}.{ext}"
                assert p.is_file() and p.stat().st_size > 1000, p
            assert (built / d / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        for stem in ("seat-summary", "seat-tricks", "hand-classes", "card-values"):
            assert (built / d / f"{stem}.csv").stat().st_size > 0
            back = pd.read_parquet(built / d / f"{stem}.parquet")
            assert len(back) == len(pd.read_csv(built / d / f"{stem}.csv"))
    assert not list(built.rglob("*.part")) and not list(built.rglob(".*"))


def test_charts_skip_what_does_not_apply(tmp_path: Path, games: list[GameReport]) -> None:
    hp = games[1].sizes[0]
    assert charts.best_bid_heatmap(hp.class_table, hp.class_features, tmp_path / "x") == []
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
