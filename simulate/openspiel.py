"""bidlab's policies as OpenSpiel bots, and a head-to-head against OpenSpiel's search bots.

OpenSpiel (the benchmark's peer) ships Oh Hell (`oh_hell`). Its rules, read from its state
and source: a 52-card deck, card action = rank * 4 + suit with suits C D S H and ranks 2..A;
chance picks the number of tricks (fixed by `num_tricks_fixed`), the dealer, then deals
card k to player k mod n and turns one card up for trump (always a suit: no no-trump
hands); bids go round from the dealer's left, bid action = 52 + bid, and the dealer may not
make the bids total the tricks (the hook, as OpenSpiel's legal actions say); the dealer's
left leads; follow suit, highest trump else highest of the led suit wins; a player scores
`points_per_trick` per trick plus 10 for an exact bid (or, with `off_bid_penalty`, minus
points_per_trick per trick off the bid when not exact).

That is bidlab's classic `oh_hell` at default options when points_per_trick = 1 and there
is no penalty (1 per trick plus 10 if exact, hook, turned-up trump, dealer's left bids and
leads first), so the shipped trained table bids for OpenSpiel's scoring. Other scorings
become a variant file with OpenSpiel's formulas; with no trained table for it the bidder
is the heuristic, which bids the best expected score under that file's score table.

pyspiel is imported here at module level: import this module only where open-spiel is
installed (the `bench` extra; simulate.bench imports it lazily).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from simulate.errors import BidlabInputError
from simulate.hands.player import Player
from simulate.rules.cards import RANK_NAMES
from simulate.rules.load import load_variant, variant_from_toml
from simulate.rules.variant import Variant
from simulate.util.stats import Z95

OS_SUITS = "CDSH"          # OpenSpiel's suit order: card action = rank * 4 + suit
OS_CARDS = 52
PRE_DEAL = 2               # chance actions before the deal: number of tricks, dealer
MADE_BID_BONUS = 10        # OpenSpiel oh_hell's kMadeBidBonus


def bidlab_variant(params: dict[str, Any]) -> Variant:
    """The bidlab variant that plays OpenSpiel oh_hell with these game parameters: classic
    Oh Hell for the same player count, its scoring rewritten when OpenSpiel's differs."""
    if int(params.get("num_suits", 4)) != 4 or int(params.get("num_cards_per_suit", 13)) != 13:
        raise BidlabInputError("OpenSpiel oh_hell: bidlab plays the full 52-card deck only "
                               "(num_suits=4, num_cards_per_suit=13)")
    v = load_variant("oh_hell", players=int(params["players"]))
    ppt = int(params.get("points_per_trick", 1))
    penalty = bool(params.get("off_bid_penalty", False))
    if ppt == 1 and not penalty:
        return v                  # the shipped rules: its trained table applies
    assert v.toml_bytes is not None
    text = v.toml_bytes.decode("utf-8")
    shipped = 'exact = "took + 10"\nover = "took"\nunder = "took"'
    if shipped not in text:
        raise BidlabInputError("oh_hell.toml's scoring section changed; update bidlab_variant")
    exact = f'exact = "{ppt} * took + {MADE_BID_BONUS}"'
    if penalty:
        off = f'over = "-{ppt} * (took - bid)"\nunder = "-{ppt} * (bid - took)"'
    else:
        off = f'over = "{ppt} * took"\nunder = "{ppt} * took"'
    raw = text.replace(shipped, f"{exact}\n{off}").encode("utf-8")
    return variant_from_toml(raw, "oh_hell (OpenSpiel scoring)", "oh_hell-openspiel.toml",
                             int(params["players"]))


class CardMap:
    """OpenSpiel card actions <-> bidlab deck indices of a 52-card variant."""

    def __init__(self, v: Variant) -> None:
        self.to_bidlab = [v.cards.parse_hand([RANK_NAMES[a // 4 + 2] + OS_SUITS[a % 4]])[0]
                          for a in range(OS_CARDS)]
        self.to_openspiel = {c: a for a, c in enumerate(self.to_bidlab)}


@dataclass(frozen=True)
class SeatView:
    """What one OpenSpiel player knows, in bidlab's terms (seat 0 = the dealer's left)."""

    tricks: int                  # cards per hand
    dealer: int                  # OpenSpiel player who deals
    seat: int                    # the player's bidlab seat
    hand: list[int]              # bidlab deck indices it holds now
    turn_up: int                 # the turned-up card (bidlab index)
    bids_made: list[int]         # bids so far in bidding order (from the dealer's left)
    plays: list[int]             # cards played so far in order (bidlab indices)
    tricks_won: list[int]        # by bidlab seat


def seat_view(state: Any, player: int, cards: CardMap) -> SeatView:
    """The acting player's view of an oh_hell state: its hand, the trump card, the dealer
    and the tricks won from its information state tensor; the bids and the cards played
    (public moves) from the history after the deal."""
    n = state.num_players()
    info = state.information_state_tensor(player)
    most = _max_tricks(len(info), n)
    h = 1 + _first_set(info, 0, most)
    pos = most
    dealer = _first_set(info, pos, n)
    pos += n
    turn = _first_set(info, pos, OS_CARDS)
    pos += 2 * OS_CARDS                         # the trump card, then the initial hand
    hand = [a for a in range(OS_CARDS) if info[pos + a] > 0.5]
    pos += OS_CARDS + n * (most + 2)            # the current hand, then the bids
    won = [int(sum(info[pos + p * most: pos + (p + 1) * most])) for p in range(n)]
    public = state.history()[PRE_DEAL + n * h + 1:]
    seat_of = [(p - dealer - 1) % n for p in range(n)]
    tricks_won = [0] * n
    for p in range(n):
        tricks_won[seat_of[p]] = won[p]
    return SeatView(h, dealer, seat_of[player], [cards.to_bidlab[a] for a in hand],
                    cards.to_bidlab[turn], [a - OS_CARDS for a in public[:n]],
                    [cards.to_bidlab[a] for a in public[n:]], tricks_won)


def _max_tricks(length: int, n: int) -> int:
    """OpenSpiel's MaxNumTricks (the fixed number of tricks, else the most the deck allows)
    from the length of the information state tensor: the number of tricks, the dealer,
    the trump card, the initial and current hands, the bids, the tricks won and the tricks
    played, in that order."""
    # M + n + 3 * 52 + n * (M + 2) + n * M + M * (2n - 1) * 52 values
    per_trick = 1 + 2 * n + (2 * n - 1) * OS_CARDS
    rest = length - 3 * n - 3 * OS_CARDS
    if rest <= 0 or rest % per_trick:
        raise ValueError(f"oh_hell information state of {length} values: not the layout "
                         "bidlab reads (open-spiel changed it?)")
    return rest // per_trick


def _first_set(values: Sequence[float], start: int, size: int) -> int:
    """The index (from start) of the first entry above 0.5 in values[start:start + size]."""
    for i in range(size):
        if values[start + i] > 0.5:
            return i
    raise ValueError("oh_hell information state: a one-hot field is empty")


class BidlabBot(pyspiel.Bot):
    """A pyspiel.Bot playing OpenSpiel oh_hell with bidlab's default policies (precision
    play and the trained table bidder, as simulate_hands), one Player per hand size.

    It sees only its player's information state and the public moves. Every action it
    returns is checked against OpenSpiel's legal actions: an illegal one is a mapping bug
    and raises RuntimeError."""

    def __init__(self, game: Any, player_id: int, play: str = "precision",
                 bid: str = "table") -> None:
        pyspiel.Bot.__init__(self)
        self.player_id = player_id
        self.variant = bidlab_variant(game.get_parameters())
        self.cards = CardMap(self.variant)
        self.play_policy, self.bid_policy = play, bid
        self._players: dict[int, Player] = {}

    def player(self, hand_size: int) -> Player:
        """bidlab's Player for hands of `hand_size` cards (built once)."""
        if hand_size not in self._players:
            self._players[hand_size] = Player(self.variant, hand_size, play=self.play_policy,
                                              bid=self.bid_policy)
        return self._players[hand_size]

    def action(self, state: Any) -> int:
        """bidlab's action for the current player of `state` (an oh_hell state)."""
        view = seat_view(state, state.current_player(), self.cards)
        n = state.num_players()
        player = self.player(view.tricks)
        if len(view.bids_made) < n:
            return OS_CARDS + player.bid(view.seat, view.hand, view.bids_made,
                                         turn_up=view.turn_up)
        bids = view.bids_made                  # bidding order is seat order: seat 0 first
        in_trick = len(view.plays) % n
        move = player.play(view.seat, view.hand, bids, view.tricks_won,
                           trick=view.plays[len(view.plays) - in_trick:],
                           played=view.plays[:len(view.plays) - in_trick],
                           turn_up=view.turn_up)
        return self.cards.to_openspiel[move.card]

    def step(self, state: Any) -> int:
        """pyspiel.Bot.step: bidlab's legal action for the current player."""
        a = self.action(state)
        if a not in state.legal_actions():
            raise RuntimeError(f"bidlab chose {state.action_to_string(a)}, which OpenSpiel "
                               f"does not allow here: a mapping bug\n{state}")
        return a

    def restart_at(self, state: Any) -> None:
        """Nothing to reset: every decision is read from the state."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to track: every decision is read from the state."""


class DeterminizedMCTSBot(pyspiel.Bot):
    """OpenSpiel's MCTSBot made fair for a game of hidden cards: each move searches one
    world sampled from the player's information state (resample_from_infostate), so it
    never reads the other hands (MCTS on the true state would)."""

    def __init__(self, mcts: Any, seed: int) -> None:
        pyspiel.Bot.__init__(self)
        self.mcts = mcts
        self.sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)

    def step(self, state: Any) -> int:
        """The MCTS action in a sampled world consistent with what the player knows."""
        world = state.resample_from_infostate(state.current_player(), self.sampler)
        return int(self.mcts.step(world))

    def restart_at(self, state: Any) -> None:
        """Nothing to reset: each move searches afresh."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to track: each move searches afresh."""


@dataclass(frozen=True)
class SearchSettings:
    """How OpenSpiel's search bots are set up (stated beside every figure)."""

    simulations: int = 1000       # per move
    uct_c: float = 0.7 * 17       # 0.7 x the reward range, as OpenSpiel's ISMCTS whist example
    rollouts: int = 1             # random rollouts per leaf (RandomRolloutEvaluator)
    max_memory_mb: int = 1000     # MCTS tree cap

    def describe(self, opponent: str) -> str:
        """The settings in one line."""
        what = ("ISMCTSBot (unlimited world samples, final policy MAX_VISIT_COUNT)"
                if opponent == "ismcts" else
                "MCTSBot on one world sampled from the information state per move")
        return (f"{what}, {self.simulations} simulations per move, uct_c {self.uct_c:g}, "
                f"{self.rollouts} random rollout per leaf")


def opponent_bot(opponent: str, game: Any, settings: SearchSettings, seed: int) -> Any:
    """OpenSpiel's search bot `opponent` ("ismcts" or "mcts") with these settings."""
    evaluator = pyspiel.RandomRolloutEvaluator(settings.rollouts, seed)
    if opponent == "ismcts":
        return pyspiel.ISMCTSBot(seed, evaluator, settings.uct_c, settings.simulations, -1,
                                 pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
    if opponent == "mcts":
        mcts = pyspiel.MCTSBot(game, evaluator, settings.uct_c, settings.simulations,
                               settings.max_memory_mb, False, seed, False)
        return DeterminizedMCTSBot(mcts, seed + 1)
    raise BidlabInputError(f"opponent {opponent!r}; allowed: ismcts, mcts")


def seatings(players: int, arrangement: str) -> list[list[bool]]:
    """Which OpenSpiel players are bidlab in each seating of a deal: "alternate" (every
    other player bidlab, then the others), or "one" (one bidlab player against the rest,
    rotated over every player). Either way each player is bidlab equally often."""
    if arrangement == "alternate":
        if players % 2:
            raise BidlabInputError("seating alternate needs an even number of players")
        return [[p % 2 == k for p in range(players)] for k in (0, 1)]
    if arrangement == "one":
        return [[p == k for p in range(players)] for k in range(players)]
    raise BidlabInputError(f"seating {arrangement!r}; allowed: alternate, one")


def play_deal(game: Any, bots: Sequence[Any], chance: random.Random) -> list[float]:
    """One hand of `game` with bots[p] playing player p; chance nodes are resolved by
    `chance` (so the same seed deals the same cards and dealer whoever sits where)."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(chance.choices(actions, probs)[0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return [float(r) for r in state.returns()]


@dataclass
class HeadToHead:
    """bidlab against an OpenSpiel bot: per deal, bidlab's mean score minus the
    opponent's, each averaged over every seating of that deal."""

    opponent: str
    settings: SearchSettings
    players: int
    tricks: int
    arrangement: str
    seed: int
    differences: list[float] = field(default_factory=list)
    bidlab_scores: list[float] = field(default_factory=list)
    opponent_scores: list[float] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def deals(self) -> int:
        """Deals played (each in every seating)."""
        return len(self.differences)

    @property
    def mean(self) -> float:
        """bidlab minus opponent, points per hand (mean over deals)."""
        return statistics.fmean(self.differences) if self.differences else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """95% interval of `mean`, the deal as the unit (normal approximation)."""
        if self.deals < 2:
            return math.nan, math.nan
        se = statistics.stdev(self.differences) / math.sqrt(self.deals)
        return self.mean - Z95 * se, self.mean + Z95 * se

    def summary(self) -> str:
        """One line: the difference with its interval, the scores and the setting."""
        lo, hi = self.interval
        return (f"bidlab - {self.opponent}: {self.mean:+.2f} [{lo:+.2f}, {hi:+.2f}] points per "
                f"hand over {self.deals} deals ({self.arrangement} seating; bidlab "
                f"{statistics.fmean(self.bidlab_scores):.2f}, {self.opponent} "
                f"{statistics.fmean(self.opponent_scores):.2f}); {self.players} players x "
                f"{self.tricks} cards; {self.settings.describe(self.opponent)}")


def head_to_head(opponent: str = "ismcts", deals: int = 100, players: int = 4,
                 tricks: int = 7, settings: SearchSettings | None = None, seed: int = 0,
                 arrangement: str = "alternate", seconds: float | None = None,
                 echo: Callable[[str], None] | None = None) -> HeadToHead:
    """bidlab's default bots against OpenSpiel's `opponent` ("ismcts" or "mcts") in
    oh_hell, `players` x `tricks` cards: every deal is played in every seating (see
    seatings) with the same chance outcomes (deal and dealer, drawn from a stream keyed by
    seed and deal). Stops after `deals` deals, or earlier once `seconds` have passed;
    echo(line) receives progress every 10 deals."""
    settings = settings or SearchSettings()
    game = pyspiel.load_game("oh_hell", {"players": players, "num_tricks_fixed": tricks})
    ours = [BidlabBot(game, p) for p in range(players)]
    result = HeadToHead(opponent, settings, players, tricks, arrangement, seed)
    start = time.perf_counter()
    for d in range(deals):
        ours_sum = theirs_sum = 0.0
        arrangements = seatings(players, arrangement)
        for k, is_bidlab in enumerate(arrangements):
            bot_seed = (seed * 1_000_003 + d * 97 + k) % (2**31 - 1)
            bots = [ours[p] if is_bidlab[p] else
                    opponent_bot(opponent, game, settings, bot_seed + p)
                    for p in range(players)]
            returns = play_deal(game, bots, random.Random(f"deal {seed} {d}"))
            ours_sum += statistics.fmean(r for r, b in zip(returns, is_bidlab, strict=True) if b)
            theirs_sum += statistics.fmean(
                r for r, b in zip(returns, is_bidlab, strict=True) if not b)
        result.bidlab_scores.append(ours_sum / len(arrangements))
        result.opponent_scores.append(theirs_sum / len(arrangements))
        result.differences.append((ours_sum - theirs_sum) / len(arrangements))
        result.seconds = time.perf_counter() - start
        if echo and (d + 1) % 10 == 0:
            echo(f"  {d + 1} deals, {result.seconds:.0f} s: {result.summary()}")
        if seconds is not None and result.seconds >= seconds:
            break
    return result
