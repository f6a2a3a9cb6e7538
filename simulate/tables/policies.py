"""Policy names, kernel ids and the one-paragraph descriptions reports show beside figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulate.errors import BidlabInputError
from simulate.rules.variant import Variant
from simulate.tables import layout as L
from simulate.tables.compile import compile_tables, trained_sizes


@dataclass(frozen=True)
class PolicyInfo:
    """A policy as users name it, the kernel's id for it, and a paragraph on what it does."""

    name: str
    kernel_id: int
    description: str


PLAY = {
    "random": PolicyInfo("random", L.PLAY_RANDOM,
                         "Plays a card uniformly at random among the legal ones (and, where Aces "
                         "may be declared, each declaration counts as its own choice)."),
    "greedy": PolicyInfo("greedy", L.PLAY_GREEDY,
                         "Short of its bid (or its team's) it wins the trick with the cheapest "
                         "card that takes it now, and leads its strongest card; once the bid is "
                         "made it plays the highest card that still loses, and leads its "
                         "weakest. Makers in a contract play to their contract, defenders to "
                         "set it. It does not count cards or read its partner."),
    "precision": PolicyInfo("precision", L.PLAY_PRECISION,
                            "Plays to its bid (or its team's) and counts cards: a card no unseen "
                            "card can beat is a sure winner. Short of the bid it keeps as many "
                            "sure winners as it still needs and loses the other tricks cheaply; "
                            "otherwise it takes the trick with the cheapest card likely to hold "
                            "it (at least 75% by the share of unseen cards the players still to "
                            "play hold), else the highest that wins now, leads its "
                            "most perishable sure winner, and never overtakes a partner who is "
                            "winning (it throws its cheapest card under a partner whose card holds). "
                            "Once the bid is made it ducks under the winning card with "
                            "the highest card that still loses and leads low. It refuses tricks "
                            "holding a card that hurts its taker (the Beanie Jack) and hands such "
                            "a card to others, chases cards that pay (the Frilly Jack), keeps a "
                            "joker that wins when led for a trick it needs, declares Aces high "
                            "or low to suit its need, and puts a Fool on a King when the bonus "
                            "is worth more than the exact bid it may cost."),
}
BID = {
    "random": PolicyInfo("random", L.BID_RANDOM,
                         "Bids, names trump, bids in an auction, discards and goes alone "
                         "uniformly at random among the legal choices."),
    "greedy": PolicyInfo("greedy", L.BID_GREEDY,
                         "Adds up a rough chance that each card takes a trick (the chance that "
                         "no opponent holds a card that beats it, cut for side suits by the "
                         "risk of a ruff; HiJo and HyJackers count 1) and bids the nearest "
                         "legal whole number, stepping off a bid the hook forbids. Names the "
                         "trump under which that sum is largest; in an auction raises by one "
                         "while its hand, a trick from its partner and a share of the widow "
                         "support it; discards its weakest card; never goes alone."),
    "heuristic": PolicyInfo("heuristic", L.BID_HEURISTIC,
                            "Estimates how many tricks the hand takes from per-card win "
                            "estimates for this game, player count, hand size and trump (for "
                            "every card, the tricks it took per hand it was dealt in, measured "
                            "once by simulating the variant with precision play, a fixed "
                            "calibration seed): a trick distribution with the cards' rates "
                            "summed as its mean and their spread as independent chances (at "
                            "least 0.3 trick), a normal law rounded to 0..h. It bids the bid "
                            "with the best expected score under this variant's own score table "
                            "(the lowest where low totals win) among those the hook or Max Bet "
                            "allow, so a scoring change changes its bids with no training; in "
                            "team games it bids the rounded sum. Names the trump with the "
                            "largest sum, and in an auction raises while the sum, a trick from "
                            "its partner and a share of the widow support the next step."),
    "table": PolicyInfo("table", L.BID_TABLE,
                        "Bids the bid with the best expected score (the lowest where low totals "
                        "win) for its hand class "
                        "(expected tricks in half tricks under the trump, and trumps held), "
                        "its seat and the sum of the bids it has heard (none where bids are "
                        "simultaneous), read from a table "
                        "built by self-play on fresh deals: each round deals new hands, every "
                        "deal is replayed once per candidate bid with the same random numbers, "
                        "each cell takes its best bid where the paired gain is clear, and the "
                        "candidate table is scored on held-out deals no round trains on; "
                        "training stops when that score stops improving and keeps the best "
                        "table. Where the configuration's trained file holds a learned "
                        "model for the hand size (simulate.tables.bid_model: per seat and sum "
                        "of the bids heard, the predicted score of each bid from the hand's "
                        "card names, trumps held or no trump, and expected tricks x trumps, "
                        "fitted by iterated best response on fresh deals and kept only where "
                        "deviating to it gains on held-out deals), it bids the model's best "
                        "allowed bid instead of the cell's. At one card it bids the exact "
                        "informed optimum "
                        "(its card, the turn-up and the exact earlier bids) where the rules "
                        "allow one. In an auction (Hasenpfeffer) it raises by one step "
                        "while the next step is within the highest step its table gives "
                        "its hand class (under the trump it would name), and as maker goes "
                        "alone where its table says so, both chosen by forced decisions on "
                        "fresh deals (every step, and alone or not, played on the same "
                        "deals), kept by a round robin of the iterates on held-out deals. "
                        "Where the first bidder names trump (Horseshoes), its model is "
                        "fitted on every deal under every trump choice and it names the "
                        "trump whose best bid the model predicts to score best, then bids "
                        "it. Cells seen too rarely in training use the heuristic; other "
                        "trump choices, discards and defending alone are the heuristic's. "
                        "Without a "
                        "trained table for the configuration it is the heuristic, and is named "
                        "so."),
}


def resolve(kind: str, names: str | Sequence[str], players: int) -> list[int]:
    """Kernel ids of the `kind` ("play" or "bid") policies named for every seat (one name
    for everyone, or one per seat); BidlabInputError naming the allowed ones otherwise."""
    table = PLAY if kind == "play" else BID
    if isinstance(names, str):
        names = [names] * players
    names = list(names)
    if len(names) != players:
        raise BidlabInputError(f"{kind} policies: {len(names)} given for {players} seats")
    out = []
    for name in names:
        if name not in table:
            raise BidlabInputError(
                f"unknown {kind} policy {name!r}; allowed: {', '.join(table)}")
        out.append(table[name].kernel_id)
    return out


STARS = PolicyInfo("threshold", -1,
                   "Horseshoes with stars: after scoring, a player (or team) holding a star "
                   "spends it to score 0 for the hand when the hand cost it at least the "
                   "threshold in points (2 by default); smaller losses keep the star for a "
                   "costlier hand or for the five-star win "
                   "(simulate.reference.engine.StarThreshold).")


FALLBACK = "heuristic: no trained table for this configuration"


def _sizes_text(sizes: Sequence[int]) -> str:
    listed = ", ".join(str(h) for h in sorted(sizes))
    return f"{listed} card" + ("" if list(sizes) == [1] else "s")


def bid_policy_label(v: Variant, name: str, hand_sizes: Sequence[int] | None = None) -> str:
    """How outputs must name bid policy `name` for `v` over `hand_sizes` (default: the whole
    schedule): "table" only where a trained table (or, at one card, the exact one-card
    table) exists for exactly this configuration; where none does the table bidder is the
    heuristic, and is named FALLBACK; a table for some sizes only says which."""
    if name != "table":
        return name
    sizes = sorted(set(hand_sizes or v.schedule))
    covered = set(trained_sizes(v))
    if compile_tables(v).one_card.shape[0] == v.players:
        covered.add(1)
    have = [h for h in sizes if h in covered]
    rest = [h for h in sizes if h not in covered]
    if not rest:
        return "table"
    if not have:
        return FALLBACK
    return f"table at {_sizes_text(have)}; {FALLBACK} at {_sizes_text(rest)}"


def pair_label(v: Variant, pair: str, hand_sizes: Sequence[int] | None = None) -> str:
    """A seat's policies as outputs must name them: `play+bid` (or a bid policy alone) with
    the bid policy named by bid_policy_label, e.g. "precision+heuristic: no trained table
    for this configuration" where the table bidder falls back."""
    play, sep, bid = pair.partition("+")
    if not sep:
        return bid_policy_label(v, pair, hand_sizes)
    return f"{play}+{bid_policy_label(v, bid, hand_sizes)}"
