"""What a report is made of: the typed records the build computes (or reads back from its
data folder) and the pages and charts show.

    GameReport        one game: its configuration, a SizeReport per hand size and, when
                      whole games were played, a BalanceReport
    SizeReport        the tables of one hand size: seat summaries (reports.analysis.tables),
                      the forced-bid class table, full and compact cheat sheets
                      (simulate.hands), card
                      values, and the bid odds and field panels of its example hands
    ExampleHand       a hand picked for the bid-odds tables (weak, typical or strong)
    BalanceReport     whole games: metrics, bid accuracy, lengths, the skill index and a rule
                      change compared on the same deals
    SkillIndex        simulate.games.compare.skill_index, as fields
    RuleComparison    the designer's question answered: the compared rules and their paired
                      differences

This is the lowest layer of reports: it imports no other reports module, so analysis,
charts, pages and the build can all use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import pandas as pd

__all__ = ["GameReport", "SizeReport", "ExampleHand", "BalanceReport", "SkillIndex",
           "RuleComparison"]


@dataclass(frozen=True)
class SizeReport:
    """Everything shown for one hand size of a game. A table is None when the data folder
    holds none for it (the page then says there is no data)."""

    hand_size: int
    seat_table: pd.DataFrame | None      # reports.analysis.tables.seat_summary
    seat_tricks: pd.DataFrame | None     # expected_tricks_table(by=["seat"])
    # forced-bid class table (simulate.hands.class_table): cells by seat, sum of earlier bids
    # and hand class, and one row per cell and candidate bid
    class_table: pd.DataFrame | None
    class_features: list[str]            # the hand-class features of class_table
    card_values: pd.DataFrame | None     # reports.analysis.card_values.card_values
    # simulate.hands.odds.bid_odds of the example hands; attrs "label": weak / typical / strong
    odds: list[pd.DataFrame] = field(default_factory=list)
    contract: bool = False               # Hasenpfeffer: contract steps instead of bids
    better: str = "higher"               # "lower" where the lowest total wins
    class_bids: pd.DataFrame | None = None   # the per-bid rows of the class table
    sheet: pd.DataFrame | None = None        # simulate.hands.sheet.cheat_sheet ("text" cells)
    points: pd.DataFrame | None = None       # simulate.hands.classes.point_frame
    # simulate.hands.odds.field_panel of the example hands (largest size only)
    fields: list[pd.DataFrame] = field(default_factory=list)
    forced_deals: int = 0                    # deals per seat behind the class table
    bid_names: list[str] = field(default_factory=list)  # contract names of auction steps 1..S
    odds_samples: int = 0                    # accepted deals wanted per example hand
    # simulate.hands.compact_sheet.compact_sheet: the printable line of every seat
    compact: pd.DataFrame | None = None
    # simulate.hands.card_attribution.direct_by_seat and card_swap.marginal_values (with a
    # "policies" column naming what played them)
    card_direct: pd.DataFrame | None = None
    card_marginal: pd.DataFrame | None = None


class ExampleHand(NamedTuple):
    """A seat-0 hand whose bid odds the report shows."""

    label: str                           # "weak", "typical" or "strong"
    hand: str                            # card names, space-separated
    trump: str                           # the trump it was dealt with (S H D C NT)


@dataclass(frozen=True)
class SkillIndex:
    """One strong player among weaker ones (simulate.games.compare.skill_index): its win
    share with a 95% interval, what chance gives, and the skill index (win share − chance)."""

    strong: str                          # the strong seat's policies
    weak: str                            # everyone else's
    games: int                           # games per seating
    win_share: float
    lo: float
    hi: float
    fair: float                          # chance: 1 / (teams or players)
    skill: float
    skill_lo: float
    skill_hi: float
    ratio: float                         # win share / chance


@dataclass(frozen=True)
class RuleComparison:
    """One rule change played on the same deals as the shipped rules."""

    question: str                        # the designer's question, "drop the hook?"
    change: str                          # the option set for B, e.g. "hook=false"
    games: int                           # games of each
    policies: str                        # the policies in every seat
    canonical_b: str                     # Variant.canonical of B
    table: pd.DataFrame                  # simulate.games.compare.compare_games


@dataclass(frozen=True)
class BalanceReport:
    """Whole games played with fixed policies: what the Balance page shows."""

    games: int                           # whole games behind the metrics
    policies: str                        # "precision+table" in every seat
    metrics: pd.DataFrame                # simulate.games GameResults.metrics
    accuracy: pd.DataFrame               # GameResults.accuracy(by="position")
    lengths: pd.DataFrame                # GameResults.length_hist()
    skill: SkillIndex | None = None
    comparison: RuleComparison | None = None
    profile: pd.DataFrame | None = None  # simulate.games.skill.skill_profile: the skill
                                         # index, its bidding and play parts, the ceiling
    seats: pd.DataFrame | None = None    # GameResults.seat_diagnostics(): by seat and size


@dataclass(frozen=True)
class GameReport:
    """One game of the report: its configuration and what was computed for it."""

    name: str                            # file name stem, e.g. "hoffer"
    title: str                           # "Hoffer"
    canonical: str                       # Variant.canonical
    players: int
    summary: str
    policies: dict[str, tuple[str, str]]  # {"play": (name, description), "bid": (...)}
    seed: int
    hands_per_size: int
    sizes: list[SizeReport] = field(default_factory=list)
    balance: BalanceReport | None = None  # when whole games were played
    fields: list[str] = field(default_factory=list)  # opponents' bid policies of the panels
    # simulate.hands.bidder_quality.stored: the bidder's exploitability per hand size, as
    # measured when it was trained (None: not measured)
    bidder_quality: pd.DataFrame | None = None
    # simulate.hands.bidder_quality.bidder_file: (file name, shipped?) of the trained file
    # the table bidder and those figures come from (None: no trained file)
    bidder_file: tuple[str, bool] | None = None
