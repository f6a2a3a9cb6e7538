"""Expected-tricks tables, best bids and seat summaries from `simulate_hands` records.

Input is a `HandResults` run with keep="records" (or its `.records` DataFrame, with the
variant and hand size passed alongside). One row per (deal, seat); seats are numbered from
the dealer's left (0) to the dealer (n-1).

What a table can and cannot say
-------------------------------
A run plays only the bid the bidding policy chose, so the score of any *other* bid for the
same hand is never observed. The tables therefore report two different things, in columns
named for what they are:

* ``policy_*`` — what the policy's own bids did in the group: mean bid, mean score,
  P(exact). Observed; exact for the policy that was simulated.
* ``exp_score_if_bid_<b>`` and ``best_bid_if_independent`` — the score each candidate bid b
  (0..hand size) would have had *if the tricks taken did not depend on the bid*: the group's
  empirical trick distribution scored with the variant's score table,
  E[score(b)] = sum_k P(T = k) * score[h, b, k]. The best bid is the argmax (argmin where
  the lower total wins, ``[end] better = "lower"``, e.g. Horseshoes); ties go to the lowest
  bid. Its P(exact) is P(T = b). This is a counterfactual: real play adapts to the bid (a
  player who bid 0 ducks), so it is an estimate of "what this hand is worth", not an
  observed result. Bidding constraints (the hook, Max Bet) are ignored: the best bid is the
  best of all bids 0..h.

``score_model="table"`` (default) uses ``compile_tables(v).score[h, b, t]`` only, the base
unit score. ``score_model="full"`` replays the rest of the kernel's scoring on each record
with the candidate bid put in: the everyone-exact rule (Horseshoes: 3 each; with stars 0),
the Fool bonus (with ``requires_exact``), capture events (HyJack's Beanie and Frilly Jacks
in every mode). With the policy's own bid it reproduces the recorded score exactly; it needs
every seat of a deal in the records (the ``deal`` column) when the variant has an
everyone-exact rule.

Partnership games (``v.teams`` > 0) score the team's summed bid against its summed tricks.
The counterfactual then changes only this seat's bid, keeping the partners' bids and every
trick: exp score(b) = mean over records of score[h, partners' bids + b, team tricks], and
P(exact) is the chance the team would have been exact. Without teams this is the formula
above.

Contract games (Hasenpfeffer, ``[scoring] kind = "contract"``): the ``bid`` column holds
the maker's contract step and 0 for every other seat, the score depends on the team's tricks
against a contract won in an auction, and whether a seat becomes maker depends on its own
auction bids — so there is no per-seat "bid b, take T" score to optimise and no P(exact).
For them the table gives the trick distribution of the seat, the mean observed score and the
share of rows in which the seat was the maker; the policy_p_exact and best-bid columns are
left out. Voided hands (all passed, redealt) are dropped, as in ``HandResults.counts``.

Thin cells are marked (``thin`` = n < ``thin``, default 100), never dropped or smoothed.
Confidence intervals are normal approximations, mean ± z·sd/√n (NaN for n < 2).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from simulate.errors import BidlabInputError
from simulate.rules.features import FEATURES, add_features
from simulate.rules.variant import Variant
from simulate.tables.compile import compile_tables

__all__ = ["COLUMN_HELP", "expected_tricks_table", "seat_summary", "counterfactual_scores"]

SCORE_MODELS = ("table", "full")

COLUMN_HELP = {
    "n": "rows (deal, seat) in the group",
    "thin": "True when n is below the thin threshold: read with care (nothing is smoothed)",
    "p_tricks_<k>": "observed share of the group's rows that took exactly k tricks",
    "mean_tricks": "observed mean tricks taken",
    "sd_tricks": "standard deviation of tricks taken",
    "mean_tricks_ci_low": "lower end of the confidence interval of mean_tricks (normal approx.)",
    "mean_tricks_ci_high": "upper end of the confidence interval of mean_tricks (normal approx.)",
    "policy_mean_bid": ("mean bid the bidding policy made (contract games: the contract step, "
                        "0 for non-makers)"),
    "policy_mean_score": "observed mean score of the hands as played with the policy's bids",
    "policy_p_exact": ("observed share where the policy's bid was made exactly (the team's bid "
                       "in partnerships)"),
    "p_maker": "contract games: share of rows where this seat won the auction",
    "exp_score_if_bid_<b>": ("counterfactual expected score of bidding b, assuming the tricks "
                             "do not depend on the bid"),
    "best_bid_if_independent": "bid with the best exp_score_if_bid_<b> (max; min where lower totals win)",
    "best_bid_exp_score": "exp_score_if_bid at best_bid_if_independent",
    "best_bid_p_exact": ("share of the group that would have been exact with "
                         "best_bid_if_independent, P(T = b)"),
}


# ----- input -------------------------------------------------------------------------------
def _resolve(data: Any, v: Variant | None, hand_size: int | None
             ) -> tuple[pd.DataFrame, Variant, int, dict[str, Any]]:
    config: dict[str, Any] = {}
    if isinstance(data, pd.DataFrame):
        records = data
    elif hasattr(data, "records") and hasattr(data, "variant"):
        records = data.records
        v = data.variant if v is None else v
        hand_size = data.config.hand_size if hand_size is None else hand_size
        config = data.config.to_dict()
    else:
        raise BidlabInputError("expected a HandResults run with keep='records' or its "
                               f"records DataFrame, got {type(data).__name__}")
    if v is None or hand_size is None:
        raise BidlabInputError("a records DataFrame needs the variant and the hand size")
    if isinstance(hand_size, bool) or not isinstance(hand_size, (int, np.integer)) or \
            hand_size < 1:
        raise BidlabInputError(f"hand size {hand_size!r} must be a positive whole number")
    hand_size = int(hand_size)

    H = compile_tables(v).score.shape[0] - 1
    if hand_size > H:
        raise BidlabInputError(f"hand size {hand_size} is larger than {v.name} deals "
                               f"(at most {H})")
    missing = [c for c in ("tricks",) if c not in records.columns]
    if missing:
        raise BidlabInputError(f"records lack column(s) {', '.join(missing)}")
    tricks = records["tricks"].to_numpy()
    if len(tricks) and (tricks.min() < 0 or tricks.max() > hand_size):
        raise BidlabInputError(f"tricks must be 0..{hand_size} for hand size {hand_size}; "
                               f"found {int(tricks.min())}..{int(tricks.max())}")
    if v.is_contract and "voided" in records.columns:
        records = records[~records["voided"].to_numpy(bool)]
    return records, v, hand_size, config


def _with_groups(records: pd.DataFrame, v: Variant, by: Iterable[str]
                 ) -> tuple[pd.DataFrame, list[str]]:
    by = [by] if isinstance(by, str) else list(by)
    if len(set(by)) != len(by):
        raise BidlabInputError(f"by: {by} names a column twice")
    features = [b for b in by if b not in records.columns and b in FEATURES]
    unknown = [b for b in by if b not in records.columns and b not in FEATURES]
    if unknown:
        raise BidlabInputError(
            f"cannot group by {', '.join(map(repr, unknown))}; allowed: record columns "
            f"{', '.join(records.columns)} or hand features {', '.join(FEATURES)}")
    if features:
        records = add_features(records, v, features)
    return records, by


def _group_codes(df: pd.DataFrame, by: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Group index per row (0..G-1, groups in sorted key order) and the key table."""
    if not by:
        return np.zeros(len(df), np.int64), pd.DataFrame(index=range(1 if len(df) else 0))
    grouped = df.groupby(by, observed=True, sort=True)
    codes = grouped.ngroup().to_numpy().astype(np.int64)
    keys = grouped.size().index.to_frame(index=False)
    return codes, keys


def _unit_columns(df: pd.DataFrame, v: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(partners' bids, unit bid, unit tricks) per row; a unit is a seat, or its team."""
    bid = df["bid"].to_numpy().astype(np.int64)
    took = df["tricks"].to_numpy().astype(np.int64)
    if not v.teams:
        return np.zeros_like(bid), bid, took
    need = [c for c in ("deal", "seat") if c not in df.columns]
    if need:
        raise BidlabInputError(f"a partnership game needs column(s) {', '.join(need)} to add up "
                               "team bids and tricks")
    team = (df["team"] if "team" in df.columns else df["seat"] % v.teams).to_numpy()
    keys = pd.DataFrame({"deal": df["deal"].to_numpy(), "team": team, "bid": bid, "took": took})
    g = keys.groupby(["deal", "team"], sort=False)
    ubid = g["bid"].transform("sum").to_numpy().astype(np.int64)
    utook = g["took"].transform("sum").to_numpy().astype(np.int64)
    return ubid - bid, ubid, utook


def _unit_key(df: pd.DataFrame, v: Variant) -> np.ndarray:
    seat = df["seat"].to_numpy() if "seat" in df.columns else np.arange(len(df))
    if v.teams:
        return (df["team"].to_numpy() if "team" in df.columns else seat % v.teams)
    return seat


# ----- counterfactual scores ---------------------------------------------------------------
class _Scorer:
    """Scores of every record with this seat's bid replaced by b (see the module doc)."""

    def __init__(self, df: pd.DataFrame, v: Variant, h: int, model: str) -> None:
        if model not in SCORE_MODELS:
            raise BidlabInputError(f"score_model {model!r}; allowed: {', '.join(SCORE_MODELS)}")
        self.v, self.h, self.model = v, h, model
        self.T = compile_tables(v)
        if "bid" not in df.columns:
            raise BidlabInputError("records lack the 'bid' column")
        self.partners, self.ubid, self.utook = _unit_columns(df, v)
        if model == "full":
            self._prepare_full(df)

    def _prepare_full(self, df: pd.DataFrame) -> None:
        v = self.v
        n = len(df)
        unit = _unit_key(df, v)
        stars = bool((v.rule("scoring.stars") or {}).get("enabled"))
        self.all_exact_rule = stars or v.rule("scoring.everyone_exact") is not None
        self.stars = stars
        frame = pd.DataFrame({"unit": unit})
        if "deal" in df.columns:
            frame["deal"] = df["deal"].to_numpy()
        elif self.all_exact_rule or v.teams:
            raise BidlabInputError("score_model='full' needs the 'deal' column for "
                                   f"{v.name}'s everyone-exact rule or teams")
        else:
            frame["deal"] = np.arange(n)
        # units of each deal other than this row's that missed their bid
        inexact = (self.ubid != self.utook).astype(np.int64)
        units = pd.DataFrame({"deal": frame["deal"], "unit": unit, "inexact": inexact}) \
            .drop_duplicates(["deal", "unit"])
        per_deal = units.groupby("deal")["inexact"].sum()
        self.others_inexact = frame["deal"].map(per_deal).to_numpy().astype(np.int64) - inexact
        fool = v.rule("scoring.fool_bonus") or {}
        self.fool_points = int(fool.get("points", 0))
        self.fool_needs_exact = bool(fool.get("requires_exact"))
        if self.fool_points and "kings_fooled" in df.columns:
            frame["fooled"] = df["kings_fooled"].to_numpy().astype(np.int64)
            self.unit_fooled = frame.groupby(["deal", "unit"], sort=False)["fooled"] \
                .transform("sum").to_numpy()
        else:
            self.unit_fooled = np.zeros(n, np.int64)
        self.events = []
        for e in v.events:
            if e.name not in df.columns:
                raise BidlabInputError(f"score_model='full' needs the event column {e.name!r}")
            frame["_e"] = df[e.name].to_numpy().astype(bool)
            captured = frame.groupby(["deal", "unit"], sort=False)["_e"].transform("any")
            self.events.append((e.effect, e.points, captured.to_numpy(bool)))

    def scores(self, b: int) -> np.ndarray:
        """Each record's score had this seat bid b (its unit's bid: partners' bids + b)."""
        T, h = self.T, self.h
        ub = np.minimum(self.partners + b, T.score.shape[1] - 1)
        ut = self.utook
        s = T.score[h, ub, ut].astype(np.int64)
        if self.model == "table":
            return s
        exact = ub == ut
        if self.all_exact_rule:
            everyone = exact & (self.others_inexact == 0)
            s = np.where(everyone, 0 if self.stars else T.all_exact[h, ub, ut], s)
        if self.fool_points:
            pays = exact if self.fool_needs_exact else np.ones_like(exact)
            s = s + np.where(pays, self.fool_points * self.unit_fooled, 0)
        granted = np.zeros(len(s), bool)
        zeroed = np.zeros(len(s), bool)
        for effect, points, captured in self.events:
            if effect == "add":
                s = s + np.where(captured, points, 0)
            elif effect == "lose_bonus":
                s = s + np.where(captured & exact, T.lose_bonus[h, ub, ut] - T.score[h, ub, ut], 0)
                s = s + np.where(captured & ~exact & granted,
                                 T.lose_bonus[h, ut, ut] - T.as_exact[h, ub, ut], 0)
            elif effect == "as_exact":
                s = s + np.where(captured & ~exact, T.as_exact[h, ub, ut] - T.score[h, ub, ut], 0)
                granted |= captured & ~exact
            else:  # zero_hand
                zeroed |= captured
        return np.where(zeroed, 0, s)

    def exact(self, b: int) -> np.ndarray:
        """Whether each record's unit would have made its bid exactly had this seat bid b."""
        return self.partners + b == self.utook


def counterfactual_scores(data: Any, v: Variant | None = None, hand_size: int | None = None,
                          bids: Iterable[int] | None = None, score_model: str = "table"
                          ) -> pd.DataFrame:
    """Per record, the score each candidate bid would have had with the same tricks (and,
    with score_model='full', the same captures and other seats' results). Columns
    score_if_bid_<b> for b in bids (default 0..hand size), aligned with the records."""
    records, v, h, _ = _resolve(data, v, hand_size)
    if v.is_contract:
        raise BidlabInputError(f"{v.name} is a contract game: a seat's bid does not set its score")
    scorer = _Scorer(records, v, h, score_model)
    bids = range(h + 1) if bids is None else bids
    return pd.DataFrame({f"score_if_bid_{b}": scorer.scores(int(b)) for b in bids},
                        index=records.index)


# ----- tables ------------------------------------------------------------------------------
def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise BidlabInputError(f"confidence {confidence!r} must be between 0 and 1")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _json_safe(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))


def expected_tricks_table(data: Any, v: Variant | None = None, hand_size: int | None = None,
                          by: Iterable[str] | str = ("seat",), *, thin: int = 100,
                          confidence: float = 0.95, score_model: str = "table",
                          counterfactual: bool = False) -> pd.DataFrame:
    """Per group of `by` (record columns such as seat/trump, or hand features from
    simulate.rules.features): n, P(tricks = k) for k = 0..hand_size, mean tricks with its
    confidence interval and the policy's observed results. counterfactual=True adds the
    columns scoring every bid on the tricks taken toward the policy's own bid (biased toward
    that bid: play adapts to the bid; the project's best bids come from forced bids,
    simulate.hands.class_table). See the module doc for what each column means and what is
    left out for contract games. The table's attrs hold the variant, hand size, options and
    column help."""
    records, v, h, config = _resolve(data, v, hand_size)
    if isinstance(thin, bool) or not isinstance(thin, (int, np.integer)) or thin < 0:
        raise BidlabInputError(f"thin={thin!r} must be a whole number >= 0")
    z = _z(confidence)
    df, by = _with_groups(records, v, by)
    codes, out = _group_codes(df, by)
    G = len(out)
    took = df["tricks"].to_numpy().astype(np.int64)
    n = np.bincount(codes, minlength=G).astype(np.int64)
    safe_n = np.maximum(n, 1)
    out["n"] = n
    out["thin"] = n < thin
    dist = np.bincount(codes * (h + 1) + took, minlength=G * (h + 1)).reshape(G, h + 1)
    for k in range(h + 1):
        out[f"p_tricks_{k}"] = dist[:, k] / safe_n
    mean = np.bincount(codes, weights=took, minlength=G) / safe_n
    sq = np.bincount(codes, weights=took.astype(float) ** 2, minlength=G)
    var = np.where(n > 1, (sq - n * mean**2) / np.maximum(n - 1, 1), np.nan)
    sd = np.sqrt(np.maximum(var, 0.0))
    half = z * sd / np.sqrt(safe_n)
    out["mean_tricks"] = mean
    out["sd_tricks"] = sd
    out["mean_tricks_ci_low"] = mean - half
    out["mean_tricks_ci_high"] = mean + half
    if "bid" in df.columns:
        out["policy_mean_bid"] = np.bincount(codes, weights=df["bid"].to_numpy(float),
                                             minlength=G) / safe_n
    if "score" in df.columns:
        out["policy_mean_score"] = np.bincount(codes, weights=df["score"].to_numpy(float),
                                               minlength=G) / safe_n
    better = str(v.rule("end.better", "higher"))
    if v.is_contract:
        if "maker" in df.columns:
            out["p_maker"] = np.bincount(codes, weights=df["maker"].to_numpy(float),
                                         minlength=G) / safe_n
    elif "bid" in df.columns:
        scorer = _Scorer(df, v, h, score_model)
        out["policy_p_exact"] = np.bincount(
            codes, weights=(scorer.ubid == scorer.utook).astype(float), minlength=G) / safe_n
    if counterfactual and not v.is_contract and "bid" in df.columns:
        expected = np.zeros((G, h + 1))
        exact = np.zeros((G, h + 1))
        for b in range(h + 1):
            expected[:, b] = np.bincount(codes, weights=scorer.scores(b).astype(float),
                                         minlength=G) / safe_n
            exact[:, b] = np.bincount(codes, weights=scorer.exact(b).astype(float),
                                      minlength=G) / safe_n
            out[f"exp_score_if_bid_{b}"] = expected[:, b]
        best = np.argmin(expected, axis=1) if better == "lower" else np.argmax(expected, axis=1)
        rows = np.arange(G)
        out["best_bid_if_independent"] = best
        out["best_bid_exp_score"] = expected[rows, best]
        out["best_bid_p_exact"] = exact[rows, best]
    out.attrs.update(_json_safe({
        "table": "expected_tricks", "variant": v.canonical, "hand_size": h, "by": by,
        "thin_below": int(thin), "confidence": confidence, "score_model": score_model,
        "better": better, "contract": v.is_contract, "config": config,
        "columns": COLUMN_HELP}))
    return out


def seat_summary(data: Any, v: Variant | None = None, hand_size: int | None = None, *,
                 confidence: float = 0.95) -> pd.DataFrame:
    """One row per seat (0 = dealer's left, n-1 = dealer): n, mean bid, mean tricks,
    P(exact) (team's bid in partnerships; not for contract games), mean score with its
    confidence interval; contract games add p_maker, the share of the seat's maker hands
    whose contract was made, and the mean score as maker."""
    records, v, h, config = _resolve(data, v, hand_size)
    if "seat" not in records.columns:
        raise BidlabInputError("records lack the 'seat' column")
    z = _z(confidence)
    df = records
    g = df.groupby("seat", sort=True, observed=True)
    out = pd.DataFrame({"n": g.size()})
    if "bid" in df.columns:
        out["mean_bid"] = g["bid"].mean()
    out["mean_tricks"] = g["tricks"].mean()
    if not v.is_contract and "bid" in df.columns:
        _, ubid, utook = _unit_columns(df, v)
        out["p_exact"] = pd.Series(ubid == utook, index=df.index).groupby(df["seat"]).mean()
    if "score" in df.columns:
        score = df["score"].astype(float)
        mean, sd = g["score"].mean(), score.groupby(df["seat"]).std()
        half = z * sd / np.sqrt(out["n"])
        out["mean_score"] = mean
        out["sd_score"] = sd
        out["mean_score_ci_low"] = mean - half
        out["mean_score_ci_high"] = mean + half
    if v.is_contract and {"maker", "contract", "deal"} <= set(df.columns):
        ladder = compile_tables(v).ladder
        team = (df["team"] if "team" in df.columns else df["seat"] % max(v.teams, 1)).to_numpy()
        team_took = pd.Series(df["tricks"].to_numpy(), index=df.index) \
            .groupby([df["deal"].to_numpy(), team]).transform("sum").to_numpy()
        maker = df["maker"].to_numpy(bool)
        need = ladder[df["contract"].to_numpy().astype(np.int64), 0]
        made = pd.Series(np.where(maker, team_took >= need, np.nan), index=df.index)
        out["p_maker"] = g["maker"].mean()
        out["p_contract_made_as_maker"] = made.groupby(df["seat"]).mean()
        if "score" in df.columns:
            out["mean_score_as_maker"] = df["score"].where(maker).groupby(df["seat"]).mean()
    out = out.reset_index()
    out.attrs.update(_json_safe({"table": "seat_summary", "variant": v.canonical,
                                 "hand_size": h, "confidence": confidence, "config": config}))
    return out
