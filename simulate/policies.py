"""Policy names, kernel ids and the one-paragraph descriptions reports show beside figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import BidlabInputError
from .kernel import layout as L


@dataclass(frozen=True)
class PolicyInfo:
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
}


def resolve(kind: str, names: str | Sequence[str], players: int) -> list[int]:
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
