"""The main job: simulate every game and hand size, compute the tables, store them with a
manifest, and render the site. `bidlab report` and `make report` run it.

Data flow per (game, hand size): simulate_hands (records without card strings) → seat
summary, expected tricks by seat and by the game's two default hand features, card values
(on the first CARD_VALUE_ROWS rows: the fit is accurate long before a million hands), and
bid odds for three example hands at the largest size (weak, typical and strong by the
sum of their card values). Each table is written as CSV and Parquet
under data/, and manifest.json records the exact configuration, so `--render-only`
re-renders the site without simulating again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import simulate as sim
from reports.analysis.card_values import card_values
from reports.analysis.tables import expected_tricks_table, seat_summary
from simulate.errors import BidlabInputError
from simulate.tables import policies
from simulate.util.files import write_table

CARD_VALUE_ROWS = 2_000_000
BALANCE_GAMES = 100_000
SKILL_GAMES = 20_000
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
FORMAT = 3


@dataclass
class SizeData:
    hand_size: int
    seat_table: pd.DataFrame
    seat_tricks: pd.DataFrame
    class_table: pd.DataFrame
    class_features: list[str]
    card_values: pd.DataFrame
    odds: list[pd.DataFrame]
    contract: bool
    better: str


TABLES = ("seat_table", "seat_tricks", "class_table", "card_values")
# example hands for bid odds: the deal whose seat-0 hand strength is nearest each quantile
EXAMPLES = (("weak", 0.15), ("typical", 0.5), ("strong", 0.9))
EXAMPLE_POOL = 20_000


def _size_data(v: sim.Variant, h: int, hands: int, seed: int, play: str, bid: str,
               odds_for: bool, workers: int | None, progress: Any) -> SizeData:
    round_index = v.schedule.index(h)
    res = sim.simulate_hands(v, h, hands, seed=seed, play=play, bid=bid, keep="records",
                             workers=workers, round_index=round_index, progress=progress)
    frame = res.frame(cards=False)
    features = list(v.hand_classes)[:2]
    seat_t = seat_summary(frame, v, h)
    seat_k = expected_tricks_table(frame, v, h, by=["seat"])
    class_t = expected_tricks_table(frame, v, h, by=features)
    values = card_values(frame.iloc[:CARD_VALUE_ROWS], v)
    odds = []
    if odds_for:
        for label, hand, trump in example_hands(frame, values, v):
            # the example keeps the trump it was dealt with; an auction's maker chooses its own
            forced = None if v.trump_chooser in ("fixed", "maker") else trump
            df = sim.bid_odds(v, hand, seat=0, trump=forced, samples=ODDS_SAMPLES, seed=seed,
                              play=play, bid=bid, workers=workers)
            df.attrs.update({"trump": forced, "label": label})
            odds.append(df)
    return SizeData(h, seat_t, seat_k, class_t, features, values, odds, v.is_contract,
                    str(v.rule("end.better", "higher")))


def example_hands(frame: pd.DataFrame, values: pd.DataFrame, v: sim.Variant
                  ) -> list[tuple[str, str, str]]:
    """(label, hand, trump) for a weak, a typical and a strong seat-0 hand: strength is the
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
        i = int((strength - strength.quantile(q)).abs().idxmin())
        out.append((label, " ".join(hands[i]), str(trumps[i])))
    return out


def _balance(v: sim.Variant, seed: int, play: str, bid: str, games: int,
             workers: int | None) -> Any:
    """Whole games for the Balance page: metrics, accuracy, lengths, skill index and the
    game's designer question compared on the same deals."""
    from reports.html.balance import BalanceReport
    from simulate.games.compare import compare_games, skill_index
    from simulate.games.simulate import simulate_games

    pol = f"{play}+{bid}"
    res = simulate_games(v, games, seed=seed, policies=pol, workers=workers)
    out = BalanceReport(games=games, policies=pol, metrics=res.metrics,
                        accuracy=res.accuracy(by="position"), lengths=res.length_hist())
    out.skill = skill_index(v, min(games, SKILL_GAMES), seed=seed, workers=workers)
    question = QUESTIONS.get(v.name)
    if question:
        key, _, value = question[0].partition("=")
        try:
            b = sim.load_variant(v.path, players=v.players, **{**v.options, key: value})
        except BidlabInputError:
            b = None
        if b is not None and b.canonical != v.canonical:
            n = min(games, COMPARE_GAMES)
            out.compare = compare_games(v, b, n, seed=seed, policies=COMPARE_POLICIES,
                                        skill=False, workers=workers)
            out.question, out.change, out.compare_games = question[1], question[0], n
            out.compare_policies, out.canonical_b = COMPARE_POLICIES, b.canonical
    return out


BALANCE_TABLES = ("metrics", "accuracy", "lengths", "compare")


def _write_balance(folder: Path, b: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"games": b.games, "policies": b.policies, "skill": b.skill,
                             "question": b.question, "change": b.change,
                             "compare_games": b.compare_games,
                             "compare_policies": b.compare_policies,
                             "canonical_b": b.canonical_b, "tables": {}}
    for name in BALANCE_TABLES:
        df = getattr(b, name)
        if df is None:
            continue
        stem = folder / f"balance-{name}"
        write_table(df, stem, ("csv", "parquet"))
        entry["tables"][name] = stem.name
    return entry


def _read_balance(folder: Path, entry: dict[str, Any] | None) -> Any:
    from reports.html.balance import BalanceReport

    if not entry:
        return None
    frames = {name: pd.read_parquet(folder / f"{stem}.parquet")
              for name, stem in entry["tables"].items()}
    return BalanceReport(games=entry["games"], policies=entry["policies"],
                         metrics=frames["metrics"], accuracy=frames["accuracy"],
                         lengths=frames["lengths"], skill=entry["skill"],
                         question=entry["question"], change=entry["change"],
                         compare=frames.get("compare"), compare_games=entry["compare_games"],
                         compare_policies=entry["compare_policies"],
                         canonical_b=entry["canonical_b"])


def _write_size(folder: Path, data: SizeData) -> dict[str, Any]:
    entry: dict[str, Any] = {"hand_size": data.hand_size, "class_features": data.class_features,
                             "contract": data.contract, "better": data.better, "tables": {}}
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
        entry["odds"].append({"table": stem.name, "attrs": {
            k: (list(x) if isinstance(x, (list, tuple)) else x) for k, x in df.attrs.items()}})
    return entry


def _read_size(folder: Path, entry: dict[str, Any]) -> SizeData:
    frames: dict[str, pd.DataFrame | None] = {name: None for name in TABLES}
    for name, stem in entry["tables"].items():
        frames[name] = pd.read_parquet(folder / f"{stem}.parquet")
    odds = []
    for example in entry.get("odds", []):
        df = pd.read_parquet(folder / f"{example['table']}.parquet")
        df.attrs.update(example["attrs"])
        odds.append(df)
    return SizeData(entry["hand_size"], frames["seat_table"], frames["seat_tricks"],
                    frames["class_table"], entry["class_features"], frames["card_values"],
                    odds, entry["contract"], entry["better"])


def build_report(games: Sequence[str] = (), players: int | None = None,
                 hands: int = DEFAULT_HANDS, seed: int = 0, out: str | Path = "out/report",
                 play: str = "precision", bid: str = "table", workers: int | None = None,
                 render_only: bool = False, progress: bool = False,
                 balance_games: int = BALANCE_GAMES,
                 echo: Callable[[str], None] = print) -> Path:
    out = Path(out)
    names = list(games) or sim.shipped_variants()
    if hands < 1000:
        raise BidlabInputError(f"--hands {hands}: a report needs at least 1000 hands per size")
    if play not in policies.PLAY or bid not in policies.BID:
        raise BidlabInputError(f"unknown policy: play one of {', '.join(policies.PLAY)}, "
                               f"bid one of {', '.join(policies.BID)}")
    data_dir = out / "data"
    if render_only:
        manifest_path = data_dir / MANIFEST
        if not manifest_path.is_file():
            raise BidlabInputError(f"--render-only: no {manifest_path}; run the report first")
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format") != FORMAT:
            raise BidlabInputError(f"{manifest_path} was written by another bidlab format")
    else:
        variants = [sim.load_variant(g, players=players) if players else sim.load_variant(g)
                    for g in names]
        started = time.perf_counter()
        staging = Path(tempfile.mkdtemp(prefix=".data-", dir=_ensure(out)))
        manifest = {"format": FORMAT, "version": sim.__version__, "seed": seed, "hands": hands,
                    "play": play, "bid": bid, "games": []}
        total = sum(len(set(v.schedule)) for v in variants) * hands
        bar = _report_bar(total) if progress else None
        try:
            for v in variants:
                sizes = list(dict.fromkeys(v.schedule))
                (bar.write if bar else echo)(
                    f"{v.title}: {len(sizes)} hand size(s), {hands:,} hands each")
                game = {"name": v.name, "title": v.title, "canonical": v.canonical,
                        "path": v.path, "players": v.players, "options": dict(v.options),
                        "summary": v.summary, "sizes": []}
                folder = staging / v.name
                folder.mkdir()
                for h in sizes:
                    if bar:
                        bar.set_description(f"{v.name} {h} cards")
                    data = _size_data(v, h, hands, seed, play, bid, h == max(sizes), workers,
                                      bar or False)
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
    return _render(out, data_dir, manifest, echo)


def _report_bar(total: int) -> Any:
    """One bar for the whole report: hands/s and time left over every game and size."""
    from tqdm import tqdm
    return tqdm(total=total, unit="hand", unit_scale=True, smoothing=0.05, mininterval=0.5,
                dynamic_ncols=True)


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _render(out: Path, data_dir: Path, manifest: dict[str, Any],
            echo: Callable[[str], None]) -> Path:
    from reports.html.site import GameReport, SizeReport, build_site

    games = []
    for game in manifest["games"]:
        sizes = []
        for entry in game["sizes"]:
            d = _read_size(data_dir / game["name"], entry)
            sizes.append(SizeReport(hand_size=d.hand_size, seat_table=d.seat_table,
                                    seat_tricks=d.seat_tricks, class_table=d.class_table,
                                    class_features=d.class_features, card_values=d.card_values,
                                    odds=d.odds, contract=d.contract, better=d.better))
        play, bid = manifest["play"], manifest["bid"]
        games.append(GameReport(
            name=game["name"], title=game["title"], canonical=game["canonical"],
            players=game["players"], summary=game["summary"],
            policies={"play": (play, policies.PLAY[play].description),
                      "bid": (bid, policies.BID[bid].description)},
            seed=manifest["seed"], hands_per_size=manifest["hands"], sizes=sizes,
            balance=_read_balance(data_dir / game["name"], game.get("balance"))))
    site = out / "site"
    build_site(games, site)
    echo(f"wrote {site / 'index.html'} (data and manifest in {data_dir})")
    return site
