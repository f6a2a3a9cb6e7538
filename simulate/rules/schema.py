"""The shape of a variant file: every section, key and allowed value, checked once at load.

A key's kind says how its value is read after the option patches (`[[when]]`) are applied:
  int / bool   a literal, or an expression string over n, deck and the options
  str          a literal, or "$option" for an option's value
  expr         a formula kept as text and evaluated later (scores: bid, took, h)
  list / table literal data checked by the loader
"""

from __future__ import annotations

from typing import Any

from simulate.errors import BidlabInputError

MECHANICS = ("always_wins", "last_played_wins", "never_wins", "wins_if_led", "fools_king",
             "top_trump")
EVENT_EFFECTS = ("none", "zero_hand", "lose_bonus", "add", "as_exact")

# section -> key -> (kind, allowed values or None, help)
SECTIONS: dict[str, dict[str, tuple[str, Any, str]]] = {
    "game": {
        "name": ("str", None, "short identifier, lower case"),
        "title": ("str", None, "display name"),
        "source": ("str", None, "where the rules come from"),
        "summary": ("str", None, "one-sentence description"),
        "players": ("list", None, "[min, max] player count"),
        "usual_players": ("int", None, "the player count reports use by default"),
        "hand_classes": ("list", None, "default hand-class features for reports"),
    },
    "deck": {
        "suits": ("list", None, "suit letters among S H D C"),
        "ranks": ("list", None, "rank names in deck order"),
        "specials": ("table", None, "special card name = count (int or expression)"),
        "remove": ("list", None, "cards taken out of the deck"),
    },
    "ranking": {
        "plain": ("list", None, "ranks low to high in a plain suit and in no trump"),
        "trump": ("list", None, "ranks low to high in the trump suit; LEFT_BOWER, RIGHT_BOWER "
                  "and special names may appear"),
        "ace_choice": ("bool", None, "each Ace played is declared high or low"),
    },
    "trump": {
        "chooser": ("str", ("fixed", "dealer", "first_bidder", "maker", "turn_up"),
                    "who sets trump"),
        "choices": ("list", None, "trump choices among S H D C NT"),
        "before_looking": ("bool", None, "the chooser names trump before looking at its hand"),
    },
    "deal": {
        "schedule": ("str", ("up", "up_down", "down_up", "constant"), "shape of the hand sizes"),
        "start": ("int", None, "first (or constant) hand size"),
        "peak": ("int", None, "largest hand size"),
        "repeat_peak": ("bool", None, "play the peak twice in up_down / down_up"),
        "widow": ("int", None, "cards dealt face down to the widow"),
        "discard": ("int", None, "cards the maker discards after taking the widow"),
    },
    "bidding": {
        "form": ("str", ("simultaneous", "sequential", "auction"), "how bids are made"),
        "first": ("int", None, "first bidder as an offset from the dealer (1 = dealer's left)"),
        "constraint": ("str", ("none", "hook", "max_bet"), "rule on the total of the bids"),
        "constraint_rounds": ("str", ("all", "descending", "below_peak_descending"),
                              "rounds the constraint applies to"),
        "ladder": ("list", None, "auction bids, low to high: {name, tricks, multiplier, alone}"),
        "all_pass": ("str", ("joker_holder", "redeal", "stick_dealer"), "when everyone passes"),
        "all_pass_card": ("str", None, "the card whose holder must bid when all pass"),
        "all_pass_bid": ("int", None, "that holder's forced bid"),
        "stick_dealer_min": ("int", None, "the dealer's forced bid under stick_dealer"),
        "allow_alone": ("bool", None, "the maker may go alone"),
    },
    "play": {
        "first_lead": ("str", None, "offset from the dealer (0 = dealer, 1 = left), or 'maker'"),
        "breaking_trump": ("bool", None, "trump may not be led until broken"),
    },
    "teams": {
        "count": ("int", None, "0 = everyone for themselves; k = seat s plays in team s mod k"),
    },
    "scoring": {
        "kind": ("str", ("bids", "contract"), "per-player bids, or one contract per hand"),
        "exact": ("expr", None, "score when took == bid"),
        "exact_zero": ("expr", None, "score for an exact zero bid (default: exact)"),
        "over": ("expr", None, "score when took > bid"),
        "under": ("expr", None, "score when took < bid"),
        "missed_zero": ("expr", None, "score when bid 0 and took > 0 (default: over)"),
        "everyone_exact": ("expr", None, "score of every unit when all are exact"),
        "made": ("expr", None, "contract: makers' score when took >= bid"),
        "failed": ("expr", None, "contract: makers' score when took < bid"),
        "defenders": ("expr", None, "contract: defenders' score"),
        "alone_multiplier": ("int", None, "contract: multiplier for a lone maker"),
        "stars": ("table", None, "{enabled, win_at}"),
        "fool_bonus": ("table", None, "{points, requires_exact}"),
    },
    "end": {
        "rule": ("str", ("schedule", "target"), "the game ends after the schedule or at a target"),
        "target": ("int", None, "total that ends the game"),
        "better": ("str", ("higher", "lower"), "which totals win"),
        "tiebreak": ("str", ("none", "river"), "what a tie for the lead after the schedule does"),
        "tiebreak_participants": ("str", ("all", "tied_only"), "who plays tie-break rounds"),
        "tiebreak_cap": ("int", None, "most tie-break rounds before a shared win"),
        "ties": ("str", ("shared", "makers"), "a tie past the target: shared, or to the makers"),
    },
}

SPECIAL_KEYS: dict[str, tuple[str, Any, str]] = {
    "mechanic": ("str", MECHANICS, "behaviour in a trick"),
    "no_trump_mechanic": ("str", MECHANICS, "behaviour when no trump is played"),
    "wild": ("bool", None, "may be played even when able to follow suit"),
    "fools": ("str", None, "fools_king: the rank it beats when that rank would win"),
}
EVENT_KEYS: dict[str, tuple[str, Any, str]] = {
    "card": ("str", None, "the card whose capture is the event"),
    "effect": ("str", EVENT_EFFECTS, "what capturing it does to the hand score"),
    "points": ("int", None, "points for effect=add"),
}
OPTION_KEYS = {"type", "default", "min", "max", "values", "help"}
LADDER_KEYS = {"name", "tricks", "multiplier", "alone"}
TOP_LEVEL = set(SECTIONS) | {"options", "specials", "events", "when"}


def input_error(where: str, message: str) -> BidlabInputError:
    """The error for a bad rules file: `where` (the file's label, a section) then what is wrong."""
    return BidlabInputError(f"{where}: {message}")
