"""The main job: simulate every game and hand size, compute the tables, store them with a
manifest, and render the site. `bidlab report` and `make report` run it.

Data flow per (game, hand size): simulate_hands (records without card strings) → seat
summary, expected tricks by seat and card values (on the first CARD_VALUE_ROWS rows: the
fit is accurate long before a million hands); forced-bid runs of every seat (each candidate
bid played on the same `forced_deals` deals) → the class table by seat, sum of earlier bids
and hand class, the full cheat sheet and the compact (printable) sheet; bid odds for three
example hands (weak, typical and strong by the sum of their card values), and at the
largest size the same hands against
each opponents' field. Each table is written as CSV and Parquet under data/, and
manifest.json records the exact configuration, so `--render-only` re-renders the site
without simulating again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import simulate as sim
from reports.analysis.card_values import card_values
from reports.analysis.tables import expected_tricks_table, seat_summary
from reports.html.site import build_site
from reports.model import (
    BalanceReport,
    ExampleHand,
    GameReport,
    RuleComparison,
    SizeReport,
    SkillIndex,
)
from simulate.errors import BidlabInputError
from simulate.games.compare import compare_games
from simulate.games.simulate import simulate_games
from simulate.games.skill import skill_profile
from simulate.hands import bidder_quality
from simulate.hands.card_attribution import direct_by_seat
from simulate.hands.card_swap import marginal_values
from simulate.hands.class_table import forced_class_table
from simulate.hands.classes import point_frame
from simulate.hands.compact_sheet import compact_sheet
from simulate.hands.forced import ForcedRun, forced_run
from simulate.hands.odds import field_panel
from simulate.hands.sheet import cheat_sheet
from simulate.hands.train_auction import stored_figures as stored_auction_figures
from simulate.tables import policies
from simulate.util.files import write_table
from simulate.util.progress import Bar, new_bar

CARD_VALUE_ROWS = 2_000_000
# card values by seat: direct attribution from the kernel's traces of the first DIRECT_DEALS
# deals, marginal values from SWAP_DEALS deals played once as dealt and once per card with
# it swapped for the reference card (Oh Hell 5 cards: 0.1 s and 1.9 s on two cores; about a
# minute over every shipped game's sizes); a by-seat marginal interval is then about ±0.07
# trick
DIRECT_DEALS = 40_000
SWAP_DEALS = 10_000
BALANCE_GAMES = 100_000
SKILL_GAMES = 20_000
CEILING_GAMES = 3_000         # the clairvoyant bidder plays every bid of its hands
COMPARE_GAMES = 30_000
COMPARE_POLICIES = "precision+heuristic"
# the rule change each Balance page compares with the shipped rules (a designer's question)
QUESTIONS = {
    "hoffer": ("peak_twice=true", "play the peak hand size twice?"),
    "horseshoes": ("breaking_trump=true", "must trump be broken before it is led?"),
    "hyjack": ("countdown=true", "count back down the river after the peak?"),
    "hasenpfeffer": ("defenders_score_tricks=true", "should the defenders score their tricks?"),
    "kings_and_fools": ("bonus_requires_exact=true", "does the Fool bonus need an exact bid?"),
    "oh_hell": ("hook=false", "drop the hook?"),
}
DEFAULT_HANDS = 1_000_000
ODDS_SAMPLES = 100_000
MANIFEST = "manifest.json"
QUALITY_TABLE = "bidder-quality"   # the stored exploitability figures of the table bidder
FORMAT = 5                # 5: the compact sheet ("compact" tables)


TABLES = ("seat_table", "seat_tricks", "class_table", "card_values", "class_bids", "sheet",
          "points", "compact", "card_direct", "card_marginal")
# deals per seat and hand size behind the forced-bid class tables and cheat sheets
FORCED_DEALS = 200_000
MIN_FORCED = 1_000
FIELDS = ("table", "heuristic", "greedy")
# example hands for bid odds: the deal whose seat-0 hand strength is nearest each quantile
EXAMPLES = (("weak", 0.15), ("typical", 0.5), ("strong", 0.9))
EXAMPLE_POOL = 20_000


def odds_samples(forced_deals: int) -> int:
    """Accepted deals per example hand's bid odds: ODDS_SAMPLES, fewer in a small report."""
    return min(ODDS_SAMPLES, max(MIN_FORCED, forced_deals // 2))


@dataclass(frozen=True)
class SizeRuns:
    """The kernel work of one hand size: a million hands kept as records, and the forced
    runs of every seat."""

    hand_size: int
    round_index: int
    largest: bool
    frame: pd.DataFrame
    runs: list[ForcedRun]
    card_direct: pd.DataFrame
    card_marginal: pd.DataFrame


@dataclass(frozen=True)
class SizeTables:
    """What the tables of one hand size need from its runs, computed off the main thread."""

    seat_table: pd.DataFrame
    seat_tricks: pd.DataFrame
    values: pd.DataFrame
    cells: pd.DataFrame
    bids: pd.DataFrame
    sheet: pd.DataFrame
    compact: pd.DataFrame
    examples: list[ExampleHand]


def _size_runs(v: sim.Variant, h: int, hands: int, seed: int, play: str, bid: str,
               largest: bool, workers: int | None, progress: Bar | bool,
               forced_deals: int = FORCED_DEALS) -> SizeRuns:
    """Simulate one hand size: the records and the forced runs (see the module notes)."""
    round_index = v.schedule.index(h)
    res = sim.simulate_hands(v, h, hands, seed=seed, play=play, bid=bid, keep="records",
                             workers=workers, round_index=round_index, progress=progress)
    # every best bid comes from forced bids: each seat plays every candidate on the same deals
    # (raced: a bid clearly worse in a cell after the first quarter of the deals is not
    # played there again, see forced.race_cells)
    runs = [forced_run(v, h, s, forced_deals, seed=seed, play=play, bid=bid, workers=workers,
                       round_index=round_index, race=True) for s in range(v.players)]
    frame = res.frame(cards=False)
    direct, marginal = _card_runs(v, h, frame, seed, play, bid, round_index, workers,
                                  min(hands, DIRECT_DEALS), min(hands, SWAP_DEALS))
    return SizeRuns(h, round_index, largest, frame, runs, direct, marginal)


def marginal_trumps(v: sim.Variant, frame: pd.DataFrame) -> list[str]:
    """The trumps the marginal card values are measured under: the suit trump the records
    hold most often (suits are alike up to their names) and NT where a player may name it."""
    counts = frame["trump"].astype(str).value_counts()
    suits = [t for t in counts.index if t != "NT"]
    out = suits[:1] or list(counts.index[:1])
    if "NT" in v.trump_choices and v.trump_chooser != "turn_up" and "NT" not in out:
        out.append("NT")
    return out


def _card_runs(v: sim.Variant, h: int, frame: pd.DataFrame, seed: int, play: str, bid: str,
               round_index: int, workers: int | None, direct_deals: int, swap_deals: int
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Direct attribution by trump and seat from `direct_deals` deals, and marginal values
    by seat under the trumps of marginal_trumps from `swap_deals` deals, each with a
    "policies" column."""
    label = f"{play} play, {policies.bid_policy_label(v, bid, [h])} bidder"
    direct = direct_by_seat(v, h, direct_deals, seed=seed, play=play, bid=bid,
                            round_index=round_index, workers=workers)
    parts = []
    for trump in marginal_trumps(v, frame):
        try:
            parts.append(marginal_values(v, h, trump, swap_deals, seed=seed, play=play,
                                         bid=bid, round_index=round_index, workers=workers))
        except BidlabInputError:        # a trump these rules cannot have at this size
            continue
    marginal = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    direct["policies"] = label
    marginal["policies"] = label
    return direct, marginal


def _size_tables(v: sim.Variant, r: SizeRuns) -> SizeTables:
    """The tables of one hand size from its runs (pandas and numpy only, no kernel work
    but the card rates' calibration, so it can run beside the next size's simulation)."""
    h, frame = r.hand_size, r.frame
    values = card_values(frame.iloc[:CARD_VALUE_ROWS], v)
    cells, bids = forced_class_table(r.runs, v, by_prev=True)
    return SizeTables(seat_summary(frame, v, h),
                      expected_tricks_table(frame, v, h, by=["seat"], counterfactual=False),
                      values, cells, bids, sheet_frame(cheat_sheet(r.runs, v)),
                      compact_sheet(r.runs, v), example_hands(frame, values, v))


def _size_report(v: sim.Variant, r: SizeRuns, t: SizeTables, seed: int, play: str, bid: str,
                 workers: int | None, forced_deals: int = FORCED_DEALS) -> SizeReport:
    """Every table of one hand size: the tables and the example hands' bid odds (and at the
    largest size their field panels)."""
    h = r.hand_size
    samples = odds_samples(forced_deals)
    odds, panels = [], []
    for label, hand, trump in t.examples:
        # the example keeps the trump it was dealt with (conditioned, as the player knows
        # it); in an auction the seat names its own trump as the maker
        given = None if v.trump_chooser in ("fixed", "maker") else trump
        try:
            df = sim.bid_odds(v, hand, seat=0, trump=given, samples=samples, seed=seed,
                              play=play, bid=bid, workers=workers, round_index=r.round_index)
        except BidlabInputError:
            continue
        df.attrs.update({"label": label})
        odds.append(df)
        if r.largest:
            panel = field_panel(v, hand, seat=0, trump=given, samples=max(MIN_FORCED, samples // 2),
                                seed=seed, play=play, fields=FIELDS, workers=workers,
                                round_index=r.round_index)
            panel.attrs.update({"label": label, "hand": hand})
            panels.append(panel)
    return SizeReport(h, t.seat_table, t.seat_tricks, t.cells, list(t.cells.attrs["features"]),
                      t.values, odds, v.is_contract, str(v.rule("end.better", "higher")),
                      class_bids=t.bids, sheet=t.sheet, points=point_frame(v, h), fields=panels,
                      forced_deals=forced_deals, bid_names=_bid_names(v), odds_samples=samples,
                      compact=t.compact, card_direct=r.card_direct,
                      card_marginal=r.card_marginal)


def _game_sizes(v: sim.Variant, sizes: list[int], hands: int, seed: int, play: str, bid: str,
                workers: int | None, bar: Any, forced_deals: int
                ) -> Iterator[SizeReport]:
    """Every hand size's report in order, pipelined: the tables of one size (single-threaded
    pandas and numpy) are computed in a thread while the kernel simulates the next size on
    the worker threads, so the cores do not idle through the analysis. The results do not
    depend on the overlap (every run draws from its own seeded streams). bar: the report's
    tqdm bar, or None."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-tables") as analysis:
        pending: tuple[SizeRuns, Future[SizeTables]] | None = None
        for h in sizes:
            if bar:
                bar.set_description(f"{v.name} {h} cards")
            r = _size_runs(v, h, hands, seed, play, bid, h == max(sizes), workers,
                           bar or False, forced_deals)
            tables = analysis.submit(_size_tables, v, r)
            if pending is not None:
                yield _size_report(v, pending[0], pending[1].result(), seed, play, bid,
                                   workers, forced_deals)
            pending = (r, tables)
        if pending is not None:
            yield _size_report(v, pending[0], pending[1].result(), seed, play, bid, workers,
                               forced_deals)


def _bid_names(v: sim.Variant) -> list[str]:
    """The contract names of an auction game's steps 1..S ([] where a bid is a number)."""
    return [str(step.name) for step in v.ladder] if v.bidding_form == "auction" else []


def sheet_frame(sheet: pd.DataFrame) -> pd.DataFrame:
    """The cheat sheet as a storable table: its ranges as text (lo-hi:bid/close, ...)."""
    out = sheet.copy()
    out["ranges"] = [",".join(f"{r.lo}-{r.hi}:{r.bid}/{r.close}" for r in rs)
                     for rs in sheet["ranges"]]
    out.attrs.update(sheet.attrs)
    return out


def example_hands(frame: pd.DataFrame, values: pd.DataFrame, v: sim.Variant
                  ) -> list[ExampleHand]:
    """A weak, a typical and a strong seat-0 hand: strength is the
    sum of the hand's card values under its trump, over the first EXAMPLE_POOL deals."""
    rows = frame[(frame.seat == 0) & (frame.deal < EXAMPLE_POOL)]
    if rows.empty or values.empty:
        return []
    value = {(t, c): x for t, c, x in zip(values.trump.astype(str), values.card, values.value,
                                          strict=True)}
    masks = rows["mask"].to_numpy(dtype="uint64")
    trumps = rows["trump"].astype(str).to_numpy()
    hands = [v.cards.names_of_mask(int(m)) for m in masks]
    strength = pd.Series([sum(value.get((t, c), 0.0) for c in hand)
                          for t, hand in zip(trumps, hands, strict=True)])
    out = []
    for label, q in EXAMPLES:
        # the first deal nearest the quantile (Series.idxmin on the 0..n-1 index)
        i = int(np.nanargmin(np.abs(strength.to_numpy() - float(strength.quantile(q)))))
        out.append(ExampleHand(label, " ".join(hands[i]), str(trumps[i])))
    return out


def _balance(v: sim.Variant, seed: int, play: str, bid: str, games: int,
             workers: int | None) -> BalanceReport:
    """Whole games for the Balance page: metrics, accuracy, lengths, the skill profile (skill
    index, bidding and play parts, luck ceiling) and the game's designer question compared
    on the same deals, all with one bidder: the comparison's (a changed rule has no trained
    table), so every section of the page describes the same players."""
    pol = COMPARE_POLICIES if bid == "table" else f"{play}+{bid}"
    res = simulate_games(v, games, seed=seed, policies=pol, workers=workers)
    profile = skill_profile(v, min(games, SKILL_GAMES), seed=seed,
                            ceiling_games=min(games, CEILING_GAMES), workers=workers)
    top = profile.iloc[0]
    skill = SkillIndex(strong=str(top.policy), weak=str(top.field), games=int(top.games),
                       win_share=float(top.win_share), lo=float(top.lo), hi=float(top.hi),
                       fair=float(top.fair), skill=float(top.skill),
                       skill_lo=float(top.skill_lo), skill_hi=float(top.skill_hi),
                       ratio=float(top.ratio))
    return BalanceReport(games=games, policies=pol, metrics=res.metrics,
                         accuracy=res.accuracy(by="position"), lengths=res.length_hist(),
                         skill=skill, comparison=_comparison(v, seed, games, workers),
                         profile=profile, seats=res.seat_diagnostics())


def _comparison(v: sim.Variant, seed: int, games: int, workers: int | None
                ) -> RuleComparison | None:
    """The game's rule change (QUESTIONS) played on the same deals as the shipped rules;
    None when the game has no question or the change leaves the rules as they are."""
    question = QUESTIONS.get(v.name)
    if not question:
        return None
    key, _, value = question[0].partition("=")
    try:
        b = sim.load_variant(v.path, players=v.players, **{**v.options, key: value})
    except BidlabInputError:
        return None
    if b.canonical == v.canonical:
        return None
    n = min(games, COMPARE_GAMES)
    table = compare_games(v, b, n, seed=seed, policies=COMPARE_POLICIES, skill=False,
                          workers=workers)
    return RuleComparison(question=question[1], change=question[0], games=n,
                          policies=COMPARE_POLICIES, canonical_b=b.canonical, table=table)


def _write_balance(folder: Path, b: BalanceReport) -> dict[str, Any]:
    """Write the Balance tables as CSV + Parquet; the manifest entry that reads them back."""
    c = b.comparison
    entry: dict[str, Any] = {"games": b.games, "policies": b.policies,
                             "skill": asdict(b.skill) if b.skill else {},
                             "question": c.question if c else "",
                             "change": c.change if c else "",
                             "compare_games": c.games if c else 0,
                             "compare_policies": c.policies if c else "",
                             "canonical_b": c.canonical_b if c else "", "tables": {}}
    tables = {"metrics": b.metrics, "accuracy": b.accuracy, "lengths": b.lengths,
              "compare": c.table if c else None, "profile": b.profile, "seats": b.seats}
    for name, df in tables.items():
        if df is None:
            continue
        stem = folder / f"balance-{name}"
        write_table(df, stem, ("csv", "parquet"))
        entry["tables"][name] = stem.name
    return entry


def _read_balance(folder: Path, entry: dict[str, Any] | None) -> BalanceReport | None:
    """The BalanceReport of a manifest entry (None for a game without whole games)."""
    if not entry:
        return None
    frames = {name: pd.read_parquet(folder / f"{stem}.parquet")
              for name, stem in entry["tables"].items()}
    compared = frames.get("compare")
    comparison = None if compared is None else RuleComparison(
        question=entry["question"], change=entry["change"], games=entry["compare_games"],
        policies=entry["compare_policies"], canonical_b=entry["canonical_b"], table=compared)
    return BalanceReport(games=entry["games"], policies=entry["policies"],
                         metrics=frames["metrics"], accuracy=frames["accuracy"],
                         lengths=frames["lengths"],
                         skill=SkillIndex(**entry["skill"]) if entry["skill"] else None,
                         comparison=comparison, profile=frames.get("profile"),
                         seats=frames.get("seats"))


def _write_size(folder: Path, data: SizeReport) -> dict[str, Any]:
    """Write one hand size's tables and bid odds as CSV + Parquet; its manifest entry."""
    entry: dict[str, Any] = {"hand_size": data.hand_size, "class_features": data.class_features,
                             "contract": data.contract, "better": data.better,
                             "forced_deals": data.forced_deals, "bid_names": data.bid_names,
                             "odds_samples": data.odds_samples, "tables": {}}
    for name in TABLES:
        df = getattr(data, name)
        if df is None:
            continue
        stem = folder / f"{name}-{data.hand_size}"
        write_table(df, stem, ("csv", "parquet"))
        entry["tables"][name] = stem.name
    entry["odds"] = []
    for df in data.odds:
        stem = folder / f"odds-{df.attrs['label']}-{data.hand_size}"
        write_table(df, stem, ("csv", "parquet"))
        entry["odds"].append({"table": stem.name, "attrs": _plain_attrs(df)})
    entry["fields"] = []
    for df in data.fields:
        stem = folder / f"field-{df.attrs['label']}-{data.hand_size}"
        plain = df.copy()
        plain.attrs.clear()
        plain.attrs.update(_plain_attrs(df))    # each field's own table stays out
        write_table(plain, stem, ("csv", "parquet"))
        entry["fields"].append({"table": stem.name, "attrs": _plain_attrs(df)})
    return entry


def _plain_attrs(df: pd.DataFrame) -> dict[str, Any]:
    """A table's attrs as JSON-friendly values (tuples as lists, tables left out)."""
    return {str(k): (list(x) if isinstance(x, (list, tuple)) else x)
            for k, x in df.attrs.items() if not isinstance(x, (pd.DataFrame, dict))}


def _listed(folder: Path, entries: list[dict[str, Any]]) -> list[pd.DataFrame]:
    """The tables of manifest entries {"table": stem, "attrs": {...}}, attrs restored."""
    out = []
    for example in entries:
        df = pd.read_parquet(folder / f"{example['table']}.parquet")
        df.attrs.update(example["attrs"])
        out.append(df)
    return out


def _read_size(folder: Path, entry: dict[str, Any]) -> SizeReport:
    """The SizeReport of a manifest entry (a table missing from it is None)."""
    frames: dict[str, pd.DataFrame | None] = {name: None for name in TABLES}
    for name, stem in entry["tables"].items():
        frames[name] = pd.read_parquet(folder / f"{stem}.parquet")
    return SizeReport(entry["hand_size"], frames["seat_table"], frames["seat_tricks"],
                      frames["class_table"], entry["class_features"], frames["card_values"],
                      _listed(folder, entry.get("odds", [])), entry["contract"], entry["better"],
                      class_bids=frames["class_bids"], sheet=frames["sheet"],
                      points=frames["points"], fields=_listed(folder, entry.get("fields", [])),
                      forced_deals=int(entry.get("forced_deals", 0)),
                      bid_names=list(entry.get("bid_names", [])),
                      odds_samples=int(entry.get("odds_samples", 0)),
                      compact=frames["compact"], card_direct=frames["card_direct"],
                      card_marginal=frames["card_marginal"])


def build_report(games: Sequence[str] = (), players: int | None = None,
                 hands: int = DEFAULT_HANDS, seed: int = 0, out: str | Path = "out/report",
                 play: str = "precision", bid: str = "table", workers: int | None = None,
                 render_only: bool = False, progress: bool = False,
                 balance_games: int = BALANCE_GAMES, forced_deals: int = FORCED_DEALS,
                 echo: Callable[[str], None] = print) -> Path:
    """Simulate `games` (default: every shipped variant; `players` overrides the player
    count) with `hands` hands per hand size, `forced_deals` deals per seat and hand size
    for the forced-bid class tables and cheat sheets, and `balance_games` whole games (0:
    no Balance pages), store the tables and manifest under out/data, and render out/site, which is
    returned. render_only=True re-renders the site from out/data without simulating.
    progress=True draws one bar over the whole report; echo prints the status lines."""
    out = Path(out)
    names = list(games) or sim.shipped_variants()
    if hands < 1000:
        raise BidlabInputError(f"--hands {hands}: a report needs at least 1000 hands per size")
    if isinstance(forced_deals, bool) or not isinstance(forced_deals, int) \
            or forced_deals < MIN_FORCED:
        raise BidlabInputError(f"--forced-deals {forced_deals}: the class tables need at least "
                               f"{MIN_FORCED:,} deals per seat and hand size")
    if play not in policies.PLAY or bid not in policies.BID:
        raise BidlabInputError(f"unknown policy: play one of {', '.join(policies.PLAY)}, "
                               f"bid one of {', '.join(policies.BID)}")
    data_dir = out / "data"
    if render_only:
        manifest = _read_manifest(data_dir)
    else:
        variants = [sim.load_variant(g, players=players) if players else sim.load_variant(g)
                    for g in names]
        manifest = _simulate(variants, out, data_dir, hands, seed, play, bid, workers,
                             progress, balance_games, echo, forced_deals)
    return _render(out, data_dir, manifest, echo)


def _read_manifest(data_dir: Path) -> dict[str, Any]:
    manifest_path = data_dir / MANIFEST
    if not manifest_path.is_file():
        raise BidlabInputError(f"--render-only: no {manifest_path}; run the report first")
    manifest: dict[str, Any] = json.loads(manifest_path.read_text())
    if manifest.get("format") != FORMAT:
        raise BidlabInputError(f"{manifest_path} was written by another bidlab format")
    return manifest


def _simulate(variants: list[sim.Variant], out: Path, data_dir: Path, hands: int, seed: int,
              play: str, bid: str, workers: int | None, progress: bool, balance_games: int,
              echo: Callable[[str], None], forced_deals: int = FORCED_DEALS
              ) -> dict[str, Any]:
    """Simulate every game into a staging folder that replaces data_dir once complete;
    returns the manifest written there."""
    started = time.perf_counter()
    staging = Path(tempfile.mkdtemp(prefix=".data-", dir=_ensure(out)))
    manifest: dict[str, Any] = {"format": FORMAT, "version": sim.__version__, "seed": seed,
                                "hands": hands, "forced_deals": forced_deals, "fields": list(FIELDS),
                                "play": play, "bid": bid, "games": []}
    total = sum(len(set(v.schedule)) for v in variants) * hands
    bar = new_bar(total, unit="hand", smoothing=0.05) if progress else None
    try:
        for v in variants:
            sizes = list(dict.fromkeys(v.schedule))
            (bar.write if bar else echo)(
                f"{v.title}: {len(sizes)} hand size(s), {hands:,} hands each; forced-bid "
                f"tables from {forced_deals:,} deals per seat")
            game: dict[str, Any] = {"name": v.name, "title": v.title, "canonical": v.canonical,
                                    "path": v.path, "players": v.players,
                                    "options": dict(v.options), "summary": v.summary,
                                    "sizes": []}
            folder = staging / v.name
            folder.mkdir()
            quality = None
            if bid == "table":
                quality = stored_auction_figures(v) if v.bidding_form == "auction" \
                    else bidder_quality.stored(v)
                source = bidder_quality.bidder_file(v)
                if source is not None:
                    game["bidder_file"] = {"name": source[0], "shipped": source[1]}
            if quality is not None:
                write_table(quality, folder / QUALITY_TABLE, ("csv", "parquet"))
                game["bidder_quality"] = QUALITY_TABLE
            for data in _game_sizes(v, sizes, hands, seed, play, bid, workers, bar,
                                    forced_deals):
                game["sizes"].append(_write_size(folder, data))
            if balance_games > 0:
                if bar:
                    bar.set_description(f"{v.name} whole games")
                game["balance"] = _write_balance(folder, _balance(
                    v, seed, play, bid, balance_games, workers))
            manifest["games"].append(game)
        manifest["seconds"] = round(time.perf_counter() - started, 1)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str))
        if data_dir.exists():
            shutil.rmtree(data_dir)
        os.replace(staging, data_dir)
    finally:
        if bar:
            bar.close()
        if staging.exists():
            shutil.rmtree(staging)
    return manifest


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def bid_policy_entry(game: dict[str, Any], bid: str) -> tuple[str, str]:
    """(name, description) of the bid policy the game's pages name: a table bidder with no
    trained table for this game is the heuristic it falls back to, described as such."""
    v = sim.load_variant(game["name"], players=game["players"])
    label = policies.bid_policy_label(v, bid)
    if label == policies.FALLBACK:
        return label, policies.BID["heuristic"].description
    return label, policies.BID[bid].description


def _render(out: Path, data_dir: Path, manifest: dict[str, Any],
            echo: Callable[[str], None]) -> Path:
    """Build the site under out/site from the tables and manifest in data_dir."""
    games = []
    play, bid = manifest["play"], manifest["bid"]
    for game in manifest["games"]:
        folder = data_dir / game["name"]
        games.append(GameReport(
            name=game["name"], title=game["title"], canonical=game["canonical"],
            players=game["players"], summary=game["summary"],
            policies={"play": (play, policies.PLAY[play].description),
                      "bid": bid_policy_entry(game, bid)},
            seed=manifest["seed"], hands_per_size=manifest["hands"],
            sizes=[_read_size(folder, entry) for entry in game["sizes"]],
            balance=_read_balance(folder, game.get("balance")),
            fields=list(manifest.get("fields", [])),
            bidder_quality=(pd.read_parquet(folder / f"{game['bidder_quality']}.parquet")
                            if game.get("bidder_quality") else None),
            bidder_file=((str(game["bidder_file"]["name"]), bool(game["bidder_file"]["shipped"]))
                         if game.get("bidder_file") else None)))
    site = out / "site"
    build_site(games, site)
    echo(f"wrote {site / 'index.html'} (data and manifest in {data_dir})")
    return site
