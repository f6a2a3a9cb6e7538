"""The exact one-card optimum with informed sequential bids.

In a one-card round play is forced, so a seat's tricks depend only on the deal. A seat that
bids knows its own card, the trump (fixed) or the exact turned-up card, and the exact
sequence of the bids made before it; those bids carry information about the earlier seats'
cards. Here each seat, in bidding order, bids to maximise its expected score given that the
earlier seats followed the same rule (the dealer under the hook bids the best bid it is
allowed). A seat's score depends only on its own bid and trick, so later bids never change
what a seat should bid: the optimum is found in one forward pass over the bidding order.

Method (exact, integer counts)
------------------------------
For a seat j and a sequence H of earlier bids, seat i < j (in bidding order) holds a card
of the set S_i(H) of cards on which its rule bids what it bid in H. The trick programme of
simulate.reference.exact walks the play positions; here a position may be restricted to a
set of cards. The natural cards that do not beat the current best card are still lumped,
now by *signature* (the restricted positions whose set holds the card), with a count of
the lumped cards already played per signature: that is all the rest of the trick can
distinguish. One run per (trump context, seat, H) gives, for every card seat j may hold,
the deals in which it takes the trick; the deals in which it holds that card come from a
count of the distinct cards the earlier seats can hold (a small count by signature).

Contexts: a fixed trump is one context; with a turned-up trump every card that can turn up
is one context (each equally likely), the turned-up card out of play and known to all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import perm

from simulate.reference.exact import OneCardSetup, TrumpFacts, apply_card, one_card_setup, trick_taker
from simulate.rules.codes import FOOLS_KING, NT
from simulate.rules.play import bids_base_score, constraint_active
from simulate.rules.variant import Variant
from simulate.util.memo import KeyedCache

Rule = dict[int, int]            # card index -> bid (0 or 1)
History = tuple[int, ...]        # the earlier bids, in bidding order


@dataclass
class InformedOptimum:
    """The informed one-card optimum of a variant.

    rules[(context, seat, history)]: the bid for every card the seat may hold there;
    context: the turned-up card (-1 when trump is fixed). expected[seat]: the seat's exact
    expected score (a Fraction, every context and deal weighted equally). thresholds:
    per (seat, history, context) the smallest P(win) at which the seat bids 1."""

    setup: OneCardSetup
    order: list[int]
    hooked: bool
    rules: dict[tuple[int, int, History], Rule] = field(default_factory=dict)
    p_win: dict[tuple[int, int, History], dict[int, Fraction]] = field(default_factory=dict)
    expected: list[Fraction] = field(default_factory=list)
    reach: dict[tuple[int, int, History], Fraction] = field(default_factory=dict)

    def bid(self, context: int, seat: int, history: Sequence[int], card: int) -> int | None:
        """The optimal bid, or None where the history cannot happen."""
        rule = self.rules.get((context, seat, tuple(history)))
        return None if rule is None else rule.get(card)


def _score(v: Variant, bid: int, took: int) -> int:
    return bids_base_score(v, bid, took, 1)


def _fool_points(v: Variant) -> int:
    fool = v.rule("scoring.fool_bonus") or {}
    if fool.get("points") and fool.get("requires_exact"):
        raise ValueError(f"{v.canonical}: the Fool bonus is paid only on an exact bid")
    return int(fool.get("points", 0) or 0)


def _check(v: Variant) -> None:
    if v.is_contract or v.teams:
        raise ValueError(f"{v.canonical}: scores are not per-player bids")
    if v.events:
        raise ValueError(f"{v.canonical}: capture events change the score of a bid")
    stars = v.rule("scoring.stars") or {}
    if stars.get("enabled") or v.rule("scoring.everyone_exact") is not None:
        raise ValueError(f"{v.canonical}: the score depends on the other players' bids")
    if v.bidding_form != "sequential":
        raise ValueError(f"{v.canonical}: bids are not sequential")


def _signature(card: int, sets: Sequence[frozenset[int] | None]) -> tuple[bool, ...]:
    return tuple(s is not None and card in s for s in sets)


def _run_constrained(tb: TrumpFacts, sets: Sequence[frozenset[int] | None],
                     fool_pts: int) -> dict[tuple[int, int, bool], int]:
    """{(winning position, winning card, King fooled): ordered deals} with the card at play
    position p drawn from sets[p] (None: any card), the cards of tb.removed out of play."""
    restricted = [p for p, s in enumerate(sets) if s is not None]
    sig_of = {d: _signature(d, [sets[p] for p in restricted]) for d in tb.naturals
              if d not in tb.removed}
    sigs = sorted(set(sig_of.values()))
    sig_index = {s: i for i, s in enumerate(sigs)}
    nb_cache: dict[int, list[int]] = {}

    def nonbeat_counts(b: int) -> list[int]:
        got = nb_cache.get(b)
        if got is None:
            got = [0] * len(sigs)
            for d, s in sig_of.items():
                if not tb.beats(d, b):
                    got[sig_index[s]] += 1
            nb_cache[b] = got
        return got

    def allowed(p: int, card: int) -> bool:
        s = sets[p]
        return s is None or card in s

    def sig_ok(p: int, k: int) -> bool:
        if sets[p] is None:
            return True
        return sigs[k][restricted.index(p)]

    start = ((-1,) * 10 + ((0,) * len(tb.type_rep), 0, 0), (0,) * len(sigs))
    layer: dict[tuple, int] = {start: 1}
    for pos in range(len(sets)):
        nxt: dict[tuple, int] = {}
        for (st, used_sig), ways in layer.items():
            used = st[10]
            for k, rep in enumerate(tb.type_rep):
                avail = tb.type_copies[k] - used[k]
                if avail > 0 and _type_allowed(tb, sets[pos], k):
                    key = (_core(apply_card(tb, st, pos, rep)), used_sig)
                    nxt[key] = nxt.get(key, 0) + ways * avail
            best = st[0]
            cands = [d for d in tb.naturals if d not in tb.removed] if best < 0 \
                else tb.beaters(best)
            for d in cands:
                if allowed(pos, d):
                    i = sig_index[sig_of[d]]
                    u2 = used_sig[:i] + (used_sig[i] + 1,) + used_sig[i + 1:]
                    key = (_core(apply_card(tb, st, pos, d)), u2)
                    nxt[key] = nxt.get(key, 0) + ways
            if best < 0:
                continue
            counts = nonbeat_counts(best)
            for i in range(len(sigs)):
                avail = counts[i] - used_sig[i]
                if avail > 0 and sig_ok(pos, i):
                    u2 = used_sig[:i] + (used_sig[i] + 1,) + used_sig[i + 1:]
                    key = (st, u2)
                    nxt[key] = nxt.get(key, 0) + ways * avail
        layer = nxt
    out: dict[tuple[int, int, bool], int] = {}
    for (st, _), ways in layer.items():
        pos, card = trick_taker(tb, st)
        fooled = fool_pts > 0 and tb.mech[card] == FOOLS_KING and st[0] >= 0 and \
            bool(tb.foolable[st[0]]) and st[8] == pos
        won = (pos, card, fooled)
        out[won] = out.get(won, 0) + ways
    return out


def _core(st: tuple) -> tuple:
    """A trick state without the natural-card counters (kept by signature instead)."""
    return st[:11] + (0, 0)


def _type_allowed(tb: TrumpFacts, s: frozenset[int] | None, k: int) -> bool:
    if s is None:
        return True
    return any(tb.card_type.get(c) == k for c in s)


def _holders(pool: Sequence[int], sets: Sequence[frozenset[int]], skip: int) -> int:
    """Ways to give each restricted seat a distinct card of its set from pool - {skip}."""
    cards = [c for c in pool if c != skip]
    classes: dict[tuple[bool, ...], int] = {}
    for c in cards:
        key = tuple(c in s for s in sets)
        classes[key] = classes.get(key, 0) + 1
    keys = list(classes)
    layer: dict[tuple[int, ...], int] = {(0,) * len(keys): 1}
    for i in range(len(sets)):
        nxt: dict[tuple[int, ...], int] = {}
        for used, ways in layer.items():
            for k, key in enumerate(keys):
                avail = classes[key] - used[k]
                if key[i] and avail > 0:
                    u2 = used[:k] + (used[k] + 1,) + used[k + 1:]
                    nxt[u2] = nxt.get(u2, 0) + ways * avail
        layer = nxt
    return sum(layer.values())


def _contexts(v: Variant, s: OneCardSetup) -> list[tuple[int, int]]:
    """(context, trump): the fixed trump (context -1), or every card that can turn up."""
    if s.chooser == "fixed":
        assert s.fixed_trump is not None
        return [(-1, s.fixed_trump)]
    if s.stock <= 0:
        return [(-1, NT)]
    out = []
    for u, c in enumerate(v.cards.cards):
        out.append((u, NT if c.special else c.suit))
    return out


def _seat_step(v: Variant, s: OneCardSetup, opt: InformedOptimum, u: int, trump: int,
               j: int, hist: History, fool_pts: int, scores: list[Fraction]) -> None:
    """Seat order[j]'s rule after `hist`, and its share of the expected score."""
    n = s.players
    seat = opt.order[j]
    removed = (u,) if u >= 0 else ()
    tb = TrumpFacts(v, trump, removed)
    pool = [c for c in range(len(v.cards)) if c not in removed]
    sets: list[frozenset[int] | None] = [None] * n
    earlier: list[frozenset[int]] = []
    for i in range(j):
        prior = opt.rules[(u, opt.order[i], hist[:i])]
        si = frozenset(c for c, b in prior.items() if b == hist[i])
        if not si:
            return
        sets[s.position_of_seat(opt.order[i])] = si
        earlier.append(si)
    counts = _run_constrained(tb, sets, fool_pts)
    mine = s.position_of_seat(seat)
    wins: dict[int, int] = {}
    bonus: dict[int, int] = {}
    for (pos, card, fooled), ways in counts.items():
        if pos == mine:
            wins[card] = wins.get(card, 0) + ways
            if fooled:
                bonus[card] = bonus.get(card, 0) + ways
    later = perm(len(pool) - j - 1, n - j - 1)
    allowed = [0, 1]
    if opt.hooked and j == n - 1:
        allowed = [b for b in allowed if b != 1 - sum(hist)]
    s00, s01, s10, s11 = _score(v, 0, 0), _score(v, 0, 1), _score(v, 1, 0), _score(v, 1, 1)
    rule: Rule = {}
    p_of: dict[int, Fraction] = {}
    total_deals = perm(len(pool), n) * len(_contexts(v, s))
    held_by_class: dict[tuple[bool, ...], int] = {}

    def held(c: int) -> int:
        key = tuple(c in e for e in earlier)
        got = held_by_class.get(key)
        if got is None:
            got = held_by_class[key] = _holders(pool, earlier, c) * later
        return got

    # a natural card is its own group; identical special copies form one group
    groups: dict[int, list[int]] = {}
    for c in pool:
        k = tb.card_type.get(c)
        groups.setdefault(c if k is None else tb.type_rep[k], []).append(c)
    for rep, members in groups.items():
        n_held = sum(held(c) for c in members)
        if n_held == 0:
            continue
        won, extra = wins.get(rep, 0), bonus.get(rep, 0)
        p = Fraction(won, n_held)
        ev = {0: p * s01 + (1 - p) * s00, 1: p * s11 + (1 - p) * s10}
        b = max(allowed, key=lambda x: (ev[x], -x))
        for c in members:
            rule[c] = b
            p_of[c] = p
        s_b1, s_b0 = (s11, s10) if b == 1 else (s01, s00)
        scores[seat] += Fraction(won * s_b1 + (n_held - won) * s_b0 + extra * fool_pts,
                                 total_deals)
    opt.rules[(u, seat, hist)] = rule
    opt.p_win[(u, seat, hist)] = p_of


_OPTIMA: KeyedCache[str, InformedOptimum] = KeyedCache(limit=64)


def informed_one_card_optimum(v: Variant) -> InformedOptimum:
    """The informed sequential one-card optimum of `v` (see the module doc), cached by the
    variant's canonical string. Raises ValueError where the one-card round involves a
    player choice or a score that depends on more than the seat's own bid and trick."""
    return _OPTIMA.get_or_build(v.canonical, lambda: _solve(v))


def _solve(v: Variant) -> InformedOptimum:
    _check(v)
    s = one_card_setup(v)
    fool_pts = _fool_points(v)
    n = s.players
    first = v.seat_of_offset(int(v.rule("bidding.first", 1)))
    order = [(first + k) % n for k in range(n)]
    round_index = v.schedule.index(1) if 1 in v.schedule else None
    hooked = v.rule("bidding.constraint", "none") == "hook" and \
        constraint_active(v, round_index)
    opt = InformedOptimum(s, order, hooked)
    scores = [Fraction(0)] * n
    by_context: dict[int, list[Fraction]] = {}     # each solved context's share of scores
    for u, trump in _contexts(v, s):
        swap = next(((u0, m) for u0 in by_context
                     if (m := suit_swap(v, u0, u)) is not None), None)
        if swap is not None:
            # a suit relabelling of a solved context: the same rules on relabelled cards
            _copy_context(opt, swap[0], u, swap[1])
            share = by_context[swap[0]]
        else:
            share = [Fraction(0)] * n
            for j in range(n):
                for code in range(2 ** j):
                    hist = tuple((code >> i) & 1 for i in range(j))
                    _seat_step(v, s, opt, u, trump, j, hist, fool_pts, share)
            if u >= 0:
                by_context[u] = share
        scores = [x + y for x, y in zip(scores, share, strict=True)]
    opt.expected = scores
    return opt


def suit_swap(v: Variant, a: int, b: int) -> list[int] | None:
    """A relabelling of the deck that exchanges the suits of turned-up cards a and b (same
    rank) and keeps every rule: the card map, or None when there is none."""
    ca, cb = v.cards.cards[a], v.cards.cards[b]
    if ca.special or cb.special or ca.rank != cb.rank:
        return None
    sa, sb = ca.suit, cb.suit
    index = {(c.suit, c.rank): i for i, c in enumerate(v.cards.cards) if not c.special}
    swap_suit = {sa: sb, sb: sa}
    out = []
    for i, c in enumerate(v.cards.cards):
        if c.special:
            out.append(i)
            continue
        j = index.get((swap_suit.get(c.suit, c.suit), c.rank))
        if j is None:
            return None
        out.append(j)
    tmap = {t: swap_suit.get(t, t) for t in range(NT + 1)}
    for t in range(NT + 1):
        for i in range(len(out)):
            e = v.eff_suit_table[t][i]
            if v.eff_suit_table[tmap[t]][out[i]] != (e if e < 0 else tmap[e]) or \
                    v.power_table[tmap[t]][out[i]] != v.power_table[t][i] or \
                    v.mechanic_table[tmap[t]][out[i]] != v.mechanic_table[t][i]:
                return None
    return out


def _copy_context(opt: InformedOptimum, a: int, b: int, swap: list[int]) -> None:
    """Context b's rules from context a's through the card map `swap` (a -> b)."""
    for (u, seat, hist), rule in list(opt.rules.items()):
        if u != a:
            continue
        opt.rules[(b, seat, hist)] = {swap[c]: bid for c, bid in rule.items()}
        opt.p_win[(b, seat, hist)] = {swap[c]: p for c, p in opt.p_win[(a, seat, hist)].items()}
