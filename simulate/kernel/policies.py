"""Fixed policies inside the kernel, chosen by integer id per seat.

Every decision function takes the policy id first, so adding a policy is one more branch
here (and a name in simulate.policies); the hand loop never changes. Random choices are
uniform over exactly the option lists of the reference engine, so the two engines' random
play has the same distribution.
"""

from __future__ import annotations

import math

import numpy as np

from simulate.kernel.bits import (
    lowest_bit_index,
    lowest_bit_index_reversed,
    move_bits,
    nth_set_bit,
    popcount,
)
from simulate.kernel.jit import kernel_jit
from simulate.kernel.lanes import FEW_LANES, LANES, model_sums, model_sums_few
from simulate.kernel.rng import below
from simulate.kernel.trick import (
    TS_ALWAYS,
    TS_BEST,
    TS_BEST_CARD,
    TS_COUNT,
    TS_FOOL,
    TS_LAST,
    TS_LEAD_MECH,
    would_win,
)
from simulate.tables.layout import (
    ACE_CHOICE,
    ALONE_AT,
    AUCTION_LIMIT_AT,
    BID_HEURISTIC,
    BID_RANDOM,
    BID_TABLE,
    CELL_BID,
    FOOL_NEEDS_EXACT,
    FOOL_POINTS,
    KIND,
    LOWER_WINS,
    M_FOOL,
    M_IF_LED,
    MODEL_TRUMP_CAP,
    N_PLAYERS,
    N_TRUMP_CHOICES,
    PLAY_GREEDY,
    TEAMS,
    TRUMP_CHOICE0,
)

ONE = np.uint64(1)
ZERO = np.uint64(0)
HOLD_CHANCE = 0.75   # precision play takes a trick with a card this likely to hold it
MIN_SPREAD = 0.3     # the heuristic's trick estimate is never surer than this (in tricks)


@kernel_jit(inline=True)
def hand_weight(hand, h, t, win_weight):
    """Expected tricks of `hand` (uint64 mask) with h cards under trump t: the sum of its
    cards' win weights win_weight[h, t, card]."""
    total = 0.0
    m = hand
    while m != ZERO:
        c = lowest_bit_index(m)
        m &= m - ONE
        total += win_weight[h, t, c]
    return total


@kernel_jit(inline=True)
def hand_class(hand, h, t, rate, suit_mask, n_bins):
    """(expected tricks in half-trick bins, trumps held) — the table bidder's hand class."""
    est = hand_weight(hand, h, t, rate)
    k = min(np.int64(2.0 * est), n_bins - 1)
    trumps = popcount(hand & suit_mask[t, t]) if t < 4 else 0
    return k, trumps


@kernel_jit(inline=True)
def choose_trump(pol, rs, P, hand, h, win_weight):
    """The trump a chooser with bid policy `pol` names for `hand`: a uniform draw from the
    rules' trump choices (P[TRUMP_CHOICE0..]) for the random bidder (stream rs), else the
    choice with the highest hand_weight."""
    k = P[N_TRUMP_CHOICES]
    if pol != BID_RANDOM:
        # the (up to five) weights in one pass over the cards: five independent sums, each
        # added in hand_weight's order, instead of five dependent chains one after another
        t0 = P[TRUMP_CHOICE0]
        t1 = P[TRUMP_CHOICE0 + min(1, k - 1)]
        t2 = P[TRUMP_CHOICE0 + min(2, k - 1)]
        t3 = P[TRUMP_CHOICE0 + min(3, k - 1)]
        t4 = P[TRUMP_CHOICE0 + min(4, k - 1)]
        w0 = w1 = w2 = w3 = w4 = 0.0
        m = hand
        while m != ZERO:
            c = lowest_bit_index(m)
            m &= m - ONE
            w0 += win_weight[h, t0, c]
            w1 += win_weight[h, t1, c]
            w2 += win_weight[h, t2, c]
            w3 += win_weight[h, t3, c]
            w4 += win_weight[h, t4, c]
        best, best_w = t0, -1.0
        for i in range(k):
            w = w0 if i == 0 else w1 if i == 1 else w2 if i == 2 else w3 if i == 3 else w4
            if w > best_w:
                best, best_w = P[TRUMP_CHOICE0 + i], w
        return best
    return P[TRUMP_CHOICE0 + below(rs, k)]


@kernel_jit(inline=True)
def choose_bid(pol, rs, lo, hi, excluded, hand, h, t, win_weight, seat, prev, suit_mask,
               bid_table):
    """A bid in lo..hi other than `excluded` (-1 when nothing is excluded) by the rounded
    sum of the card weights (greedy; the heuristic in team games; the hook check of whole
    games), or uniformly at random.

    table: the trained bid for (seat, hand class, sum of the bids before) where the hand
    class is (expected tricks in half tricks, trumps held); untrained cells bid the rounded
    sum (bid_by_rules routes them to the scoring heuristic instead).
    """
    if pol != BID_RANDOM:
        est = hand_weight(hand, h, t, win_weight)
        b = np.int64(est + 0.5)
        if pol == BID_TABLE:
            cls = hand_class(hand, h, t, win_weight, suit_mask, bid_table.shape[2])
            trained = bid_table[h, seat, cls[0], cls[1], min(prev, bid_table.shape[4] - 1)]
            if trained >= 0:
                b = np.int64(trained)
                est = np.float64(b)
        b = min(max(b, lo), hi)
        if b == excluded:
            if b + 1 <= hi and (est >= b or b - 1 < lo):
                b += 1
            else:
                b -= 1
        return b
    count = hi - lo + 1
    if lo <= excluded <= hi:
        count -= 1
    b = lo + below(rs, count)
    if 0 <= excluded <= b:
        b += 1
    return b


@kernel_jit(inline=True)
def _normal_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@kernel_jit(inline=True)
def trick_moments(hand, h, t, rate):
    """Mean and variance of the tricks `hand` takes under trump t, each card taking one
    with its measured rate (rate[h, t, card], capped to 0..1) independently of the others."""
    mean = 0.0
    var = 0.0
    m = hand
    while m != ZERO:
        c = lowest_bit_index(m)
        m &= m - ONE
        p = min(max(rate[h, t, c], 0.0), 1.0)
        mean += p
        var += p * (1.0 - p)
    return mean, var


@kernel_jit(inline=True)
def best_scoring_bid(lo, hi, excluded, h, mean, var, score_t, lower_wins, value):
    """The bid in lo..hi (not `excluded`) with the best expected score under this
    variant's score table for the trick estimate (mean, var); ties go to the bid nearest
    the mean. The lowest expected score where low totals win.

    E[score | bid b] takes the tricks as a normal law (mean, spread) rounded to 0..h
    (continuity-corrected, the tails in 0 and h), scored by score_t[h, b, tricks]. value:
    float64[>= hi + 1] scratch that receives each bid's expectation; every trick count's
    probability is computed once for all the bids (h + 1 normal tails, not h + 1 per bid)."""
    spread = max(math.sqrt(var), MIN_SPREAD)
    for b in range(lo, hi + 1):
        value[b] = 0.0
    below_t = 0.0
    for t in range(h + 1):
        upto = 1.0 if t == h else _normal_cdf((t + 0.5 - mean) / spread)
        p = upto - below_t
        below_t = upto
        for b in range(lo, hi + 1):
            value[b] += p * score_t[h, b, t]
    best = -1
    best_v = -1e300
    for b in range(lo, hi + 1):
        if b == excluded:
            continue
        e = value[b]
        if lower_wins:
            e = -e
        if best < 0 or e > best_v + 1e-9 or \
                (abs(e - best_v) <= 1e-9 and abs(b - mean) < abs(best - mean)):
            best = b
            best_v = e
    return best


@kernel_jit(inline=True)
def model_bid(lo, hi, excluded, hand, h, t, seat, heard_sum, rate, suit_mask, model, label,
              value):
    """The bid in lo..hi (not `excluded`) with the largest predicted signed score under the
    learned bidder's weights (simulate.tables.bid_model: the same active columns, added in
    the same order), or -1 where no allowed bid has weights. Ties go to the lower bid.
    value: float64[>= hi + 1] scratch that receives each bid's prediction."""
    H = model.shape[0] - 1
    if h > H:
        return -1
    F = model.shape[3]
    strength0 = F - (2 * H + 2) * (MODEL_TRUMP_CAP + 2)
    held0 = strength0 - (H + 2)
    est = hand_weight(hand, h, t, rate)
    k = min(min(np.int64(2.0 * est), 2 * H + 1), 2 * h + 1)     # half tricks, as hand_class
    if t < 4:
        held = min(popcount(hand & suit_mask[t, t]), h)
        col_held = held0 + held
        col_strength = strength0 + k * (MODEL_TRUMP_CAP + 2) + min(held, MODEL_TRUMP_CAP)
    else:           # no trump: its own columns
        col_held = held0 + H + 1
        col_strength = strength0 + k * (MODEL_TRUMP_CAP + 2) + MODEL_TRUMP_CAP + 1
    w = model[h, seat, min(heard_sum, model.shape[2] - 1)]      # [F, B+1]
    # The bids' sums in vectors, each in the order of the fit (held, strength, then the
    # cards lowest first), so the predictions are the fit's to the bit.
    lab = label[t]
    if hi - lo < FEW_LANES:
        model_sums_few(w, lab, hand, col_held, col_strength, lo, hi - lo + 1, value)
    else:
        b0 = lo
        while b0 <= hi:
            model_sums(w, lab, hand, col_held, col_strength, b0, min(hi - b0 + 1, LANES),
                       value)
            b0 += LANES
    best = np.int64(-1)
    best_v = 0.0
    for b in range(lo, hi + 1):
        v = value[b]
        if b == excluded or math.isnan(v):
            continue
        if best < 0 or v > best_v:
            best = np.int64(b)
            best_v = v
    return best


@kernel_jit(inline=True)
def joint_trump(P, lo, hi, excluded, hand, h, seat, rate, tabs, value, want):
    """(trump, bid) of a chooser who bids first and names trump with the learned model: the
    choice whose best allowed bid (lo..hi, not `excluded`) the model predicts to score best
    (model_expects: a cell's constant bid left out), ties to the earlier choice, and the bid
    model_bid makes under the trump named (a cell's constant bid included; so the
    bidding need not ask the model again); (-1, -1) where the model has no weights for the
    seat at this size (the model is fitted on every trump choice for this seat,
    simulate.hands.train_model). value: float64[>= hi + 1] scratch.

    want (-1: none): a look of bid odds (kernel.odds) only asks whether this trump is
    named. Then the wanted choice is scored first and the others after it (shortest suit
    first, no trump last) until one would be named before it: that trump comes back (not
    necessarily the one named), and the rest go unscored. The answer to the question is
    the full loop's: a model lacks weights for a bid whatever the trump (NaN marks a whole
    bid, tables.bid_model), so where the full loop ends with (-1, -1) the wanted choice
    does."""
    n_choices = P[N_TRUMP_CHOICES]
    wanted = -1
    for i in range(n_choices):
        if P[TRUMP_CHOICE0 + i] == want:
            wanted = i
    best_t = np.int64(-1)
    best_b = np.int64(-1)
    best_v = 0.0
    scored = ZERO
    # one call of model_bid in one loop: each inlined copy costs seconds of cold compile
    for step in range(n_choices):
        i = step
        if wanted >= 0:
            # the wanted choice, then the shortest suit left, no trump last: the likeliest to
            # be named instead (Horseshoes' model names the shortest suit in 56% of random
            # hands and no trump in 0.1%), so a rejected deal scores fewer choices
            i = wanted
            shortest = 65
            for k in range(n_choices if step > 0 else 0):
                if (scored >> np.uint64(k)) & ONE == ZERO:
                    tk = P[TRUMP_CHOICE0 + k]
                    length = popcount(hand & tabs.suit_mask[tk, tk]) if tk < 4 else 64
                    if length < shortest:
                        i = k
                        shortest = length
            scored |= ONE << np.uint64(i)
        t = P[TRUMP_CHOICE0 + i]
        b = model_bid(lo, hi, excluded, hand, h, t, seat, 0, rate, tabs.suit_mask,
                      tabs.bid_model, tabs.model_label, value)
        if b < 0:
            return np.int64(-1), np.int64(-1)
        score = model_expects(value, lo, hi, excluded)
        if step > 0 and wanted >= 0:
            # best_v is the wanted choice's; the full loop keeps the first of equal scores
            if score > best_v or (i < wanted and score == best_v):
                return np.int64(t), b
        elif best_t < 0 or score > best_v:
            best_t = np.int64(t)
            best_b = b
            best_v = score
    return best_t, best_b


@kernel_jit(inline=True)
def model_expects(value, lo, hi, excluded):
    """What the model expects of a trump: the largest of model_bid's predictions `value` over
    the allowed bids lo..hi (not `excluded`), each with a cell's constant-bid weight
    (CELL_BID) taken off. Without constant bids that is the chosen bid's own prediction; with
    one, the cell changes the bid made under the trump named, not which trump is named."""
    best = -math.inf
    for k in range(lo, hi + 1):
        x = value[k]
        if x > CELL_BID / 2:
            x -= CELL_BID
        if k != excluded and x > best:
            best = x
    return best


@kernel_jit(inline=True)
def bid_by_rules(pol, rs, P, lo, hi, excluded, hand, h, t, weights, seat, heard_sum, heard_bits,
                 turn, tabs, bid_value):
    """The bid of policy `pol` in lo..hi other than `excluded`, from what the seat knows:
    its hand, the trump, the sum (and, at one card, the sequence as bits) of the bids it has
    heard, and the turned-up card (-1: none).

    table at one card: the exact informed optimum (tabs.one_card) where the configuration
    has one; else the learned model (model_bid) where this size has one; else the trained
    cell. heuristic, and the table's untrained cells: the bid with
    the best expected score under this variant's score table for the hand's trick estimate
    (trick_moments); in team games, and for greedy and random, choose_bid's rule.
    bid_value: float64[>= h + 1] scratch for the scoring bidder."""
    if pol == BID_TABLE and h == 1:
        oc = tabs.one_card
        if oc.shape[0] == P[N_PLAYERS] and heard_bits < oc.shape[1]:
            card = lowest_bit_index(hand)
            u = turn + 1 if oc.shape[2] > 1 else 0
            b = oc[seat, heard_bits, u, card]
            if b >= 0 and lo <= b <= hi and b != excluded:
                return np.int64(b)
    if pol == BID_TABLE:
        b = model_bid(lo, hi, excluded, hand, h, t, seat, heard_sum, weights, tabs.suit_mask,
                      tabs.bid_model, tabs.model_label, bid_value)
        if b >= 0:
            return b
        bid_table = tabs.bid_table
        cls = hand_class(hand, h, t, weights, tabs.suit_mask, bid_table.shape[2])
        trained = bid_table[h, seat, cls[0], cls[1], min(heard_sum, bid_table.shape[4] - 1)]
        if trained >= 0:
            return choose_bid(pol, rs, lo, hi, excluded, hand, h, t, weights, seat, heard_sum,
                              tabs.suit_mask, bid_table)
    if pol >= BID_HEURISTIC and P[TEAMS] == 0:
        mean, var = trick_moments(hand, h, t, weights)
        return best_scoring_bid(lo, hi, excluded, h, mean, var, tabs.score, P[LOWER_WINS] == 1,
                                bid_value)
    return choose_bid(min(pol, BID_HEURISTIC), rs, lo, hi, excluded, hand, h, t, weights, seat,
                      heard_sum, tabs.suit_mask, tabs.bid_table)


@kernel_jit(inline=True)
def choose_auction(pol, rs, high, n_steps, ladder, hand, widow_n, P, win_weight):
    """0 = pass, else a ladder step above `high`."""
    if pol != BID_RANDOM:
        k = P[N_TRUMP_CHOICES]
        h = popcount(hand)
        best = 0.0
        for i in range(k):
            w = hand_weight(hand, h, P[TRUMP_CHOICE0 + i], win_weight)
            if w > best:
                best = w
        estimate = best + 1.0 + 0.25 * widow_n   # partner's share and the widow
        if high < n_steps and ladder[high + 1, 0] <= estimate:
            return high + 1
        return 0
    count = 1 + n_steps - high
    k = below(rs, count)
    return 0 if k == 0 else high + k


@kernel_jit(inline=True)
def auction_entry(hand, h, seat, t, rate, suit_mask, bid_table, entry):
    """The trained auction table's `entry` (AUCTION_LIMIT_AT or ALONE_AT) for `seat` holding
    `hand` under trump t (its class: expected tricks in half tricks, trumps held), -1 where
    the table has none."""
    if h >= bid_table.shape[0] or seat >= bid_table.shape[1] or \
            bid_table.shape[4] <= ALONE_AT:
        return -1
    k, trumps = hand_class(hand, h, t, rate, suit_mask, bid_table.shape[2])
    return np.int64(bid_table[h, seat, k, min(trumps, bid_table.shape[3] - 1), entry])


@kernel_jit(inline=True)
def table_auction(rs, high, n_steps, hand, h, seat, P, rate, suit_mask, bid_table):
    """The table bidder in an auction: raise by one step while the next step is within the
    highest step its trained table gives its hand (classed under the trump it would name);
    -1 where the table has no entry for it (the caller then asks the heuristic)."""
    t = choose_trump(BID_TABLE, rs, P, hand, h, rate)
    limit = auction_entry(hand, h, seat, t, rate, suit_mask, bid_table, AUCTION_LIMIT_AT)
    if limit < 0:
        return -1
    return high + 1 if high < n_steps and high + 1 <= limit else 0


@kernel_jit(inline=True)
def choose_discard(pol, rs, hand, t, strength, suit_mask, aces):
    """greedy: the weakest card. heuristic and table: the weakest card of the shortest side
    suit not headed by an Ace (so a discard can void a suit and let trumps ruff), else the
    weakest card."""
    if pol != BID_RANDOM:
        pool = hand
        if pol >= BID_HEURISTIC:
            shortest = 99
            for s in range(4):
                if s == t:
                    continue
                cards = hand & suit_mask[t, s]
                k = popcount(cards)
                if k == 0 or k >= shortest:
                    continue
                top, top_s = -1, -(1 << 40)
                m = cards
                while m != ZERO:
                    c = lowest_bit_index(m)
                    m &= m - ONE
                    if strength[t, c] > top_s:
                        top, top_s = c, strength[t, c]
                if (aces >> np.uint64(top)) & ONE:
                    continue
                shortest = k
                pool = cards
        best, best_s = -1, 1 << 40
        m = pool
        while m != ZERO:
            c = lowest_bit_index(m)
            m &= m - ONE
            if strength[t, c] < best_s:
                best, best_s = c, strength[t, c]
        return best
    return nth_set_bit(hand, below(rs, popcount(hand)))


@kernel_jit(inline=True)
def choose_yes_no(pol, rs, strength_of_hand, needed):
    """Going alone: greedy never does; heuristic and table do when the hand alone is
    expected to take `needed` tricks (the whole hand for a lone maker)."""
    if pol == BID_RANDOM:
        return below(rs, 2)
    if pol >= BID_HEURISTIC and strength_of_hand >= needed:
        return 1
    return 0


@kernel_jit(inline=True)
def _extreme(mask, t, order, highest):
    """The card of mask that comes first (or last) in the strength order, order = (by_rank,
    srank_moves, srank) of the tables: the cards moved to their places in that order
    (move_bits: no cost per card where bit deposit is fast), then one bit scan."""
    by_rank, srank_moves, srank = order
    rm = move_bits(mask, srank_moves[t], srank[t])
    if highest:
        return by_rank[t, 63 - lowest_bit_index_reversed(rm)]
    return by_rank[t, lowest_bit_index(rm)]


@kernel_jit(inline=True)
def choose_play(pol, rs, P, legal, need, ts, t, eff, power, mech, srank, by_rank, srank_moves,
                beaters, foolable, aces):
    """A card and its declaration: returns card + 64 * low."""
    ace_choice = P[ACE_CHOICE]
    order = (by_rank, srank_moves, srank)
    if pol == PLAY_GREEDY:
        want_win = need > 0
        if ts[TS_COUNT] == 0:
            # lead the strongest card when short of the bid, the weakest once it is made
            card = _extreme(legal, t, order, want_win)
        else:
            if ts[TS_BEST] >= 0 and ts[TS_LAST] < 0 and ts[TS_ALWAYS] < 0 and \
                    ts[TS_FOOL] < 0 and ts[TS_LEAD_MECH] != M_IF_LED and \
                    (want_win or not ace_choice):
                winners = legal & beaters[t, ts[TS_BEST_CARD]]
            else:
                winners = ZERO
                m = legal
                while m != ZERO:
                    c = lowest_bit_index(m)
                    m &= m - ONE
                    low = 1 if (ace_choice and not want_win and (aces >> np.uint64(c)) & ONE) \
                        else 0
                    if would_win(ts, c, low, t, eff, power, mech, foolable):
                        winners |= ONE << np.uint64(c)
            if want_win:
                # win as cheaply as possible, or throw the cheapest card
                card = _extreme(winners if winners != ZERO else legal, t, order, False)
            else:
                # lose with the highest card that can lose, or win with the highest
                losers = legal & ~winners
                card = _extreme(losers if losers != ZERO else legal, t, order, True)
        low = 1 if (ace_choice and not want_win and (aces >> np.uint64(card)) & ONE) else 0
        return card + 64 * low
    n_cards = popcount(legal)
    n_aces = popcount(legal & aces) if ace_choice else 0
    k = below(rs, n_cards + n_aces)
    # the reference lists each card, then its low declaration right after an Ace; any
    # fixed order of the same options gives the same uniform distribution
    if k < n_cards:
        return nth_set_bit(legal, k)
    return nth_set_bit(legal & aces, k - n_cards) + 64


@kernel_jit(inline=True)
def _winners(legal, ts, t, eff, power, mech, beaters, foolable, aces, ace_choice, want):
    """The legal cards that would take the trick as it stands (an Ace declared low when
    the player wants to lose)."""
    if ts[TS_BEST] >= 0 and ts[TS_LAST] < 0 and ts[TS_ALWAYS] < 0 and ts[TS_FOOL] < 0 and \
            ts[TS_LEAD_MECH] != M_IF_LED and (want or not ace_choice):
        return legal & beaters[t, ts[TS_BEST_CARD]]
    winners = ZERO
    m = legal
    while m != ZERO:
        c = lowest_bit_index(m)
        m &= m - ONE
        low = 1 if (ace_choice and not want and (aces >> np.uint64(c)) & ONE) else 0
        if would_win(ts, c, low, t, eff, power, mech, foolable):
            winners |= ONE << np.uint64(c)
    return winners


@kernel_jit(inline=True)
def _prefer(mask, avoid):
    """mask without `avoid`, unless that leaves nothing."""
    kept = mask & ~avoid
    return kept if kept != ZERO else mask


@kernel_jit(inline=True)
def precision_play(P, legal, hand, gone, tmask, need, tricks_left, ts, t, partner_winning,
                   players_after, h, unit_bid, tabs):
    """Play to the bid with card counting: card + 64 * (Ace declared low).

    Short of the bid it keeps enough sure winners (cards no unseen card can beat) for the
    tricks it needs and loses the rest cheaply; otherwise it wins with the cheapest card
    likely to hold, leads its most perishable sure winner, and never overtakes a winning
    partner. Once the bid is made it ducks with the highest card that still loses. It
    chases captures that pay, refuses tricks with captures that hurt, keeps a joker that
    wins when led for a trick it needs, and fools a King when the bonus is worth more than
    the exact bid it may cost.
    """
    eff, power, mech = tabs.eff, tabs.power, tabs.mech
    masks, score_t = tabs.masks, tabs.score
    order = (tabs.by_rank, tabs.srank_moves, tabs.srank)
    beaters, lead_beaters = tabs.beaters, tabs.lead_beaters
    foolable, aces, everything = masks[1], masks[2], masks[3]
    hurts, pays, keep = masks[4], masks[5], masks[6]
    ace_choice = P[ACE_CHOICE]
    unseen = everything & ~hand & ~gone
    sure = ZERO
    # the whole hand matters when leading or when sure winners may cover the need; else
    # only the legal cards (the sure ones are kept out of discards)
    may_reserve = need > 0 and tricks_left > need and P[KIND] == 0
    m = hand if (ts[TS_COUNT] == 0 or may_reserve) else legal
    suit_mask = tabs.suit_mask
    if t < 4 and unseen & suit_mask[t, t] != ZERO:
        # with trumps still out, only trumps and suitless cards can be sure winners
        m &= (suit_mask[t, t] | (everything & ~(suit_mask[t, 0] | suit_mask[t, 1] |
                                                       suit_mask[t, 2] | suit_mask[t, 3])))
    while m != ZERO:
        c = lowest_bit_index(m)
        m &= m - ONE
        if lead_beaters[t, c] & unseen == ZERO:
            sure |= ONE << np.uint64(c)
    n_sure = popcount(sure)
    # holding back sure winners pays only where the count must be exact, not for a contract
    reserve = may_reserve and n_sure >= need
    if ts[TS_COUNT] == 0:
        if need > 0 and not reserve:
            if legal & sure != ZERO:
                card = _extreme(legal & sure, t, order, False)
            else:
                card = _extreme(_prefer(legal, hurts), t, order, True)
            return card
        card = _extreme(_prefer(_prefer(legal, sure | keep), hurts), t, order, False)
        low = 1 if (ace_choice and (aces >> np.uint64(card)) & ONE) else 0
        return card + 64 * low
    partner_safe = False
    if partner_winning:
        # the partner's card holds if nobody still to play can beat it
        partner_safe = players_after == 0 or ts[TS_LAST] >= 0 or ts[TS_ALWAYS] >= 0 or (
            ts[TS_BEST] >= 0 and beaters[t, ts[TS_BEST_CARD]] & unseen == ZERO)
    want = need > 0 and not reserve and not partner_safe
    if tmask & hurts != ZERO:
        want = False
    winners = _winners(legal, ts, t, eff, power, mech, beaters, foolable, aces, ace_choice, want)
    if tmask & pays != ZERO and winners != ZERO:
        want = True
    fools = ZERO
    if not want and winners != ZERO and P[FOOL_POINTS] > 0 and not P[FOOL_NEEDS_EXACT]:
        # a Fool that takes a King: worth it when the bonus beats what the exact bid loses
        m = winners
        while m != ZERO:
            c = lowest_bit_index(m)
            m &= m - ONE
            if mech[t, c] == M_FOOL:
                fools |= ONE << np.uint64(c)
        if fools != ZERO and unit_bid + 1 <= h and \
                P[FOOL_POINTS] > score_t[h, unit_bid, unit_bid] - score_t[h, unit_bid, unit_bid + 1]:
            return lowest_bit_index(fools)
    if want and winners != ZERO:
        # the cheapest winner that will probably hold: each unseen card that beats it is
        # with a player still to play with chance about f (their share of the unseen cards)
        left = popcount(unseen)
        f = min(1.0, players_after * max(popcount(hand) - 1, 1) / max(left, 1))
        # (1 - f)^k >= HOLD_CHANCE  <=>  k <= log(HOLD_CHANCE) / log(1 - f)
        k_max = 0 if f >= 1.0 else np.int64(np.log(HOLD_CHANCE) / np.log(1.0 - f)) \
            if f > 0.0 else 64
        likely = ZERO
        m = winners
        while m != ZERO:
            c = lowest_bit_index(m)
            m &= m - ONE
            if players_after == 0:
                likely |= ONE << np.uint64(c)
            elif mech[t, c] == M_FOOL:
                continue
            else:
                k = popcount((beaters[t, c] if eff[t, c] >= 0 else lead_beaters[t, c]) & unseen)
                if k <= k_max:
                    likely |= ONE << np.uint64(c)
        if likely != ZERO:
            return _extreme(likely, t, order, False)
        # none is likely to hold: the strongest, unless a contract wants trumps kept
        return _extreme(winners, t, order, P[KIND] == 0)
    if want or (need > 0 and partner_safe):
        # cannot take it, or a partner holds it: hand over a hurtful card, else throw the
        # cheapest one, keeping sure winners, a kept joker and cards that pay
        if legal & hurts != ZERO and not partner_safe:
            return lowest_bit_index(legal & hurts)
        card = _extreme(_prefer(legal, sure | keep | pays | hurts), t, order, False)
        low = 1 if (ace_choice and (aces >> np.uint64(card)) & ONE) else 0
        return card + 64 * low
    losers = legal & ~winners
    if losers != ZERO:
        if losers & hurts != ZERO:
            card = lowest_bit_index(losers & hurts)        # hand a hurtful card to the winner
        else:
            card = _extreme(_prefer(losers, keep | sure), t, order, True)
    else:
        card = _extreme(_prefer(legal, keep), t, order, True)
    low = 1 if (ace_choice and (aces >> np.uint64(card)) & ONE) else 0
    return card + 64 * low
