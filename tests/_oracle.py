"""An independent oracle: RULES.md's pseudo-code for the six games, written out again on card
names, sharing no code with simulate/. The property tests compare the engine against it.

Cards are names ("10H", "AS", "HIJO", "FOOL", ...); a play is (name, declared_low).
"""

from __future__ import annotations

from typing import Any

RANK = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
        "J": 11, "Q": 12, "K": 13, "A": 14}
SAME = {"S": "C", "C": "S", "H": "D", "D": "H"}
SPECIALS = {"HIJO", "LOJO", "JOKER", "FOOL", "HJ_BLUE", "HJ_GREEN"}


def rank(c: str) -> int:
    return RANK[c[:-1]]


def suit(c: str) -> str | None:
    return None if c in SPECIALS else c[-1]


def argmax(items: list[int], key) -> int:
    return max(items, key=key)


class Oracle:
    def __init__(self, game: str, options: dict[str, Any], players: int) -> None:
        self.game, self.o, self.n = game, dict(options), players

    # ----- effective suit and power (Hoffer §1.3, Hasenpfeffer §4.3) ---------------------
    def eff(self, c: str, trump: str) -> str | None:
        g = self.game
        if g == "hasenpfeffer":
            if trump == "NT":
                return suit(c)
            if c == "JOKER":
                return trump
        if c in SPECIALS:
            return None
        if g in ("hoffer", "hasenpfeffer") and trump != "NT" and rank(c) == 11 \
                and suit(c) == SAME[trump]:
            return trump
        return suit(c)

    def bower_power(self, c: str, trump: str) -> int:
        if trump != "NT" and self.eff(c, trump) == trump:
            if c == "JOKER":
                return 107
            if rank(c) == 11 and suit(c) == trump:
                return 106
            if rank(c) == 11:
                return 105
            return 100 + [9, 10, 12, 13, 14].index(rank(c))
        return [9, 10, 11, 12, 13, 14].index(rank(c))

    # ----- legal moves -------------------------------------------------------------------
    def legal(self, hand: list[str], trick: list[tuple[str, bool]], trump: str,
              broken: bool) -> list[str]:
        g = self.game
        cards = [c for c, _ in trick]
        if g == "horseshoes":
            if not cards:
                if self.o["breaking_trump"] and trump != "NT" and not broken:
                    non_trump = [c for c in hand if c == "JOKER" or suit(c) != trump]
                    if non_trump:
                        return non_trump
                return list(hand)
            if cards[0] == "JOKER":
                return list(hand)
            follow = [c for c in hand if c != "JOKER" and suit(c) == suit(cards[0])]
            return follow + [c for c in hand if c == "JOKER"] if follow else list(hand)
        if g == "hasenpfeffer":
            ls = next((self.eff(c, trump) for c in cards if self.eff(c, trump)), None)
            if ls is None:
                return list(hand)
            follow = [c for c in hand if self.eff(c, trump) == ls]
            return follow or list(hand)
        if g == "hoffer":
            wild = {"HIJO", "LOJO"}
        elif g == "kings_and_fools":
            wild = {"FOOL"}
        elif g == "hyjack":
            wild = {"HJ_BLUE", "HJ_GREEN"} if self.o["hyjacker_anytime"] else set()
        else:
            wild = set()
        ls = next((self.eff(c, trump) for c in cards if self.eff(c, trump)), None)
        if ls is None:
            return list(hand)
        follow = [c for c in hand if c not in SPECIALS and self.eff(c, trump) == ls]
        if not follow:
            return list(hand)
        return follow + [c for c in hand if c in wild]

    # ----- trick winner: (index, fooled a King) -----------------------------------------
    def winner(self, trick: list[tuple[str, bool]], trump: str) -> tuple[int, bool]:
        g = self.game
        cards = [c for c, _ in trick]
        idx = list(range(len(cards)))
        if g == "hoffer":
            for i in idx:
                if cards[i] == "HIJO":
                    return i, False
            ls = next(self.eff(c, trump) for c in cards if self.eff(c, trump))
            cand = [i for i in idx if cards[i] != "LOJO"]
            if trump != "NT":
                t = [i for i in cand if self.eff(cards[i], trump) == trump]
                if t:
                    return argmax(t, lambda i: self.bower_power(cards[i], trump)), False
            return argmax([i for i in cand if self.eff(cards[i], trump) == ls],
                          lambda i: self.bower_power(cards[i], trump)), False
        if g == "horseshoes":
            if cards[0] == "JOKER":
                return 0, False

            def value(i: int) -> int:
                return 1 if trick[i][1] else rank(cards[i])
            cand = [i for i in idx if cards[i] != "JOKER"]
            if trump != "NT":
                t = [i for i in cand if suit(cards[i]) == trump]
                if t:
                    return argmax(t, value), False
            return argmax([i for i in cand if suit(cards[i]) == suit(cards[0])], value), False
        if g == "hyjack":
            hj = [i for i in idx if cards[i] in ("HJ_BLUE", "HJ_GREEN")]
            if hj:
                return hj[-1], False
            spades = [i for i in idx if suit(cards[i]) == "S"]
            return argmax(spades or [i for i in idx if suit(cards[i]) == suit(cards[0])],
                          lambda i: rank(cards[i])), False
        if g == "hasenpfeffer":
            if trump == "NT":
                if "JOKER" in cards:
                    return cards.index("JOKER"), False
                ls = next(suit(c) for c in cards if suit(c))
                return argmax([i for i in idx if suit(cards[i]) == ls],
                              lambda i: self.bower_power(cards[i], "NT")), False
            ls = self.eff(cards[0], trump)
            t = [i for i in idx if self.eff(cards[i], trump) == trump]
            return argmax(t or [i for i in idx if self.eff(cards[i], trump) == ls],
                          lambda i: self.bower_power(cards[i], trump)), False
        if g == "kings_and_fools":
            fools = [i for i in idx if cards[i] == "FOOL"]
            nat = [i for i in idx if cards[i] != "FOOL"]
            if not nat:
                return fools[0], False
            ls = suit(cards[nat[0]])

            def kf_rank(i: int) -> int:
                return 1 if rank(cards[i]) == 14 else rank(cards[i])
            spades = [i for i in nat if suit(cards[i]) == "S"]
            would = argmax(spades or [i for i in nat if suit(cards[i]) == ls], kf_rank)
            if fools and rank(cards[would]) == 13:
                return fools[0], True
            return would, False
        # classic Oh Hell
        if trump != "NT":
            t = [i for i in idx if suit(cards[i]) == trump]
            if t:
                return argmax(t, lambda i: rank(cards[i])), False
        return argmax([i for i in idx if suit(cards[i]) == suit(cards[0])],
                      lambda i: rank(cards[i])), False

    # ----- bids ------------------------------------------------------------------------
    def legal_bids(self, h: int, so_far: list[int], constrained: bool) -> list[int]:
        every = list(range(h + 1))
        last = len(so_far) == self.n - 1
        if self.game == "kings_and_fools" or (self.game == "oh_hell" and self.o["hook"]):
            return [b for b in every if sum(so_far) + b != h] if last else every
        if self.game == "hyjack" and self.o["max_bet"] and constrained:
            rem = h - sum(so_far)
            return [rem] if last else list(range(rem + 1))
        return every

    def ladder(self) -> list[tuple[int, int]]:
        """Hasenpfeffer contracts as (tricks, multiplier): 1..6, or 1..5, little/big pepper."""
        if self.o["bidding_form"] == "pepper":
            return [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (6, 2)]
        return [(k, 1) for k in range(1, 7)]

    def trump_choices(self) -> list[str]:
        g = self.game
        if g in ("hyjack", "kings_and_fools") or (g == "oh_hell" and self.o["trump"] == "spades"):
            return ["S"]
        if g == "hasenpfeffer" and not self.o["allow_no_trump"]:
            return ["S", "H", "D", "C"]
        return ["S", "H", "D", "C", "NT"]

    # ----- scores (per seat relative to the dealer) ----------------------------------
    def teams(self) -> int:
        g, o, n = self.game, self.o, self.n
        if g == "hoffer" and o["partnership"]:
            return 2
        if g == "horseshoes" and o["partnership"] == "pairs":
            return n // 2
        if g == "horseshoes" and o["partnership"] == "triples":
            return 2
        if g == "hasenpfeffer":
            return 2
        return 0

    def scores(self, bids: list[int], tricks: list[int], h: int, kings: list[int],
               captured: dict[str, int | None], alone: int | None) -> list[int]:
        g, o, n = self.game, self.o, self.n
        k = self.teams()
        unit = [s % k if k else s for s in range(n)]
        units = sorted(set(unit))
        ub = {u: sum(bids[s] for s in range(n) if unit[s] == u) for u in units}
        ut = {u: sum(tricks[s] for s in range(n) if unit[s] == u) for u in units}
        out: dict[int, int] = {}
        if g == "hoffer":                                               # §1.10
            for u in units:
                bid, took = ub[u], ut[u]
                out[u] = 10 + bid if took == bid else 0 if bid == 0 else \
                    took - bid if took > bid else took
        elif g == "horseshoes":                                         # §2.7, §2.10.7
            if all(ub[u] == ut[u] for u in units):
                out = {u: 0 if o["stars"] else 3 for u in units}
            else:
                out = {u: abs(ut[u] - ub[u]) for u in units}
        elif g == "hyjack":                                             # §3.8, A-HJ-5..7
            for s in units:
                bid, took = bids[s], tricks[s]
                exact = took == bid
                score = took + (10 if exact else 0)
                if o["special_jacks"] and captured.get("frilly") == s:
                    if o["frilly_mode"] == "add":
                        score += 10
                    elif not exact:
                        score += 10
                        exact = True            # the bonus is now held "as if made"
                if o["special_jacks"] and captured.get("beanie") == s:
                    if o["beanie_mode"] == "zero_hand":
                        score = 0
                    elif exact:
                        score -= 10
                out[s] = score
        elif g == "hasenpfeffer":                                       # §4.3
            maker = next(s for s in range(n) if bids[s])
            tricks_needed, mult = self.ladder()[bids[maker] - 1]
            if alone is not None:
                mult *= 2
            mu = unit[maker]
            made = ut[mu]
            out[mu] = made * mult if made >= tricks_needed else -tricks_needed * mult
            for u in units:
                if u != mu:
                    out[u] = (h - made) if o["defenders_score_tricks"] else 0
        elif g == "kings_and_fools":                                    # §5.7
            for s in units:
                bid, took = bids[s], tricks[s]
                score = 0
                if took == bid:
                    score = 10 * bid if bid > 0 else 5 * h
                if not o["bonus_requires_exact"] or took == bid:
                    score += 10 * kings[s]
                out[s] = score
        else:                                                           # §5.10
            for s in units:
                bid, took = bids[s], tricks[s]
                if o["scoring"] == "exact_only":
                    score = 10 + bid if took == bid else 0
                else:
                    score = took + (10 if took == bid else 0)
                if bid == 0 and took == 0 and o["zero_bid"] != "standard":
                    score = 5 if o["zero_bid"] == "reduced" else 5 + h
                out[s] = score
        return [out[unit[s]] for s in range(n)]
