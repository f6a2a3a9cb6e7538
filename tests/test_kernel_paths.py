"""The kernel's machine-dependent paths and the benchmark's stage workload.

nth_set_bit, nth_set_bit_mask and move_bits have a bit-deposit path (BMI2, where pdep is
fast) and a portable one; whichever this machine compiled, both are checked against plain
Python. The learned bidder's vector sums (kernel.lanes) must equal the scalar sums bit for
bit. The stage workload (kernel.chunk.run_stages) must run the same hands as the real
kernel: taken to the end, its results equal run_records' on the same seed.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import simulate as sim
from simulate.hands.chunks import run_records_chunk
from simulate.hands.job import make_job
from simulate.kernel import bits
from simulate.kernel.chunk import STAGE_BIDS, STAGE_DEAL, STAGE_HAND, run_stages
from simulate.kernel.hand import S_BID, S_SCORE
from simulate.kernel.jit import kernel_jit
from simulate.kernel.lanes import FEW_LANES, LANES, model_sums, model_sums_few
from simulate.tables.compile import compile_tables


@kernel_jit()
def _portable(mask, k):
    return bits.nth_set_bit_portable(mask, k)


@kernel_jit()
def _pdep(mask, k):
    return bits.nth_set_bit_pdep(mask, k)


@kernel_jit()
def _chosen(mask, k):
    return bits.nth_set_bit(mask, k)


@kernel_jit()
def _portable_mask(mask, k):
    return bits.nth_set_bit_mask_portable(mask, k)


@kernel_jit()
def _pdep_mask(mask, k):
    return bits.nth_set_bit_mask_pdep(mask, k)


@kernel_jit()
def _chosen_mask(mask, k):
    return bits.nth_set_bit_mask(mask, k)


def _select(mask: int, k: int) -> int:
    """The k-th set bit of mask, lowest first, in plain Python."""
    return [i for i in range(64) if mask >> i & 1][k]


def _masks() -> list[int]:
    rng = random.Random(17)
    masks = [1, 1 << 63, (1 << 64) - 1, 0xFFFF_0000_0000_0000, 0x8000_0000_0000_0001]
    for density in (0.05, 0.3, 0.8):
        for _ in range(60):
            masks.append(sum(1 << i for i in range(64) if rng.random() < density) or 1)
    return masks


@pytest.mark.parametrize("which", ["portable", "pdep", "chosen"])
def test_nth_set_bit_selects_every_bit(which):
    if which == "pdep" and not bits.HAS_PDEP:
        pytest.skip("no BMI2 on this machine")
    fn = {"portable": _portable, "pdep": _pdep, "chosen": _chosen}[which]
    for mask in _masks():
        for k in range(bin(mask).count("1")):
            assert fn(np.uint64(mask), k) == _select(mask, k), (hex(mask), k)


@pytest.mark.parametrize("which", ["portable", "pdep", "chosen"])
def test_nth_set_bit_mask_is_that_bit(which):
    if which == "pdep" and not bits.HAS_PDEP:
        pytest.skip("no BMI2 on this machine")
    fn = {"portable": _portable_mask, "pdep": _pdep_mask, "chosen": _chosen_mask}[which]
    for mask in _masks():
        for k in range(bin(mask).count("1")):
            assert int(fn(np.uint64(mask), k)) == 1 << _select(mask, k), (hex(mask), k)


@kernel_jit()
def _move_bits_pdep(mask, moves, order):
    return bits.move_bits_pdep(mask, moves, order)


@kernel_jit()
def _move_bits_portable(mask, moves, order):
    return bits.move_bits_portable(mask, moves, order)


@kernel_jit()
def _move_bits(mask, moves, order):
    return bits.move_bits(mask, moves, order)


# decks with special cards, bowers, jokers and an ace ranked both ways, beside plain ones
STRENGTH_ORDER_CONFIGS = [
    ("oh_hell", 4, {}), ("hoffer", 4, {}), ("hyjack", 4, {"countdown": True}),
    ("kings_and_fools", 4, {}), ("hasenpfeffer", 4, {}),
    ("horseshoes", 5, {"jokers": 2}), ("horseshoes", 3, {"aces": "high_low", "jokers": 1})]


@pytest.mark.parametrize("which", ["portable", "pdep", "chosen"])
@pytest.mark.parametrize("game,players,options", STRENGTH_ORDER_CONFIGS,
                         ids=[f"{g}-{p}" for g, p, _ in STRENGTH_ORDER_CONFIGS])
def test_a_hand_in_strength_order_puts_every_card_at_its_rank(which, game, players, options):
    """The strength-order tables' bit moves (tables.compile.order_moves) take each card of a
    hand to bit srank[t, card], for every trump, on either path; the moves' source masks
    split the deck, and each moves its cards in rising order."""
    if which == "pdep" and not bits.HAS_PDEP:
        pytest.skip("no BMI2 on this machine")
    fn = {"portable": _move_bits_portable, "pdep": _move_bits_pdep, "chosen": _move_bits}[which]
    v = sim.load_variant(game, players=players, **options)
    tables = compile_tables(v)
    srank, moves = tables.srank, tables.srank_moves
    D = srank.shape[1]
    rng = random.Random(D)
    for t in range(5):
        sources = [int(m) for m in moves[t, :, 0]]
        union = 0
        for src in sources:
            union |= src
        assert union == sum(sources) == (1 << D) - 1       # disjoint, and every card
        for src, dst in moves[t].tolist():
            cards = [c for c in range(D) if src >> c & 1]
            assert [1 << int(srank[t, c]) for c in cards] == sorted(
                1 << int(srank[t, c]) for c in cards) and sum(
                1 << int(srank[t, c]) for c in cards) == dst
        for _ in range(300):
            mask = sum(1 << c for c in range(D) if rng.random() < rng.choice((0.1, 0.3, 0.7)))
            expected = sum(1 << int(srank[t, c]) for c in range(D) if mask >> c & 1)
            assert int(fn(np.uint64(mask), moves[t], srank[t])) == expected, (t, hex(mask))


@kernel_jit()
def _model_sums(w, label_row, hand, held, strength, b0, count, value):
    model_sums(w, label_row, hand, held, strength, b0, count, value)


@kernel_jit()
def _model_sums_few(w, label_row, hand, held, strength, b0, count, value):
    model_sums_few(w, label_row, hand, held, strength, b0, count, value)


@pytest.mark.parametrize("lanes", [LANES, FEW_LANES])
def test_model_sums_add_each_bid_in_the_scalar_order(lanes):
    """Every lane is the double the scalar sum gives (held, strength, then the cards lowest
    first), for every start and count, and no value outside the lanes is written."""
    sums = _model_sums if lanes == LANES else _model_sums_few
    rng = np.random.default_rng(3)
    w = rng.standard_normal((40, 21)).astype(np.float32)
    label_row = rng.integers(2, 40, 52).astype(np.int64)
    for _ in range(200):
        hand = int(sum(1 << int(c) for c in rng.choice(52, int(rng.integers(0, 14)),
                                                        replace=False)))
        b0 = int(rng.integers(0, 21))
        count = int(rng.integers(1, min(lanes, 21 - b0) + 1))
        held, strength = (int(x) for x in rng.integers(0, 40, 2))
        value = np.full(40, -7.0)
        sums(w, label_row, np.uint64(hand), held, strength, b0, count, value)
        for b in range(40):
            if not b0 <= b < b0 + count:
                assert value[b] == -7.0, (b0, count, b)
                continue
            expected = float(w[held, b]) + float(w[strength, b])
            for c in range(52):
                if hand >> c & 1:
                    expected += float(w[label_row[c], b])
            assert value[b] == expected, (b0, count, b)


def test_select_path_names_the_compiled_path():
    assert bits.SELECT_PATH.startswith("pdep") == bits.FAST_PDEP
    assert not bits.FAST_PDEP or bits.HAS_PDEP


@pytest.mark.parametrize("game,players,hand_size,play,bid", [
    ("oh_hell", 4, 7, "random", "random"), ("hoffer", 4, 6, "precision", "table"),
    ("kings_and_fools", 4, 7, "greedy", "greedy")])
def test_stage_workload_plays_the_kernels_hands(game, players, hand_size, play, bid):
    v = sim.load_variant(game, players=players)
    count = 300
    job = make_job(v, hand_size, count, 5, play, bid, None, None, None)
    a = job.args()
    rec = run_records_chunk(job, 0, count)
    seat_out, masks = rec.seat_out, rec.masks
    expected = np.uint64(0)
    for j in range(count):
        for s in range(players):
            expected ^= np.uint64(seat_out[j, s, S_BID] + 64 * seat_out[j, s, S_SCORE])
    scratch = job.scratch()

    def stage(upto: int) -> int:
        return int(run_stages(a.P, a.tables, a.seed, 0, count, a.hand_size, a.constrained,
                              a.fixed, a.forced_trump, a.play_pol, a.bid_pol, scratch, upto))

    # the deal stage alone deals exactly the kernel's hands
    dealt = np.uint64(0)
    for j in range(count):
        for s in range(players):
            dealt ^= masks[j, s]
    assert stage(STAGE_DEAL) == int(dealt)
    # every stage returns a checksum of bids, scores and the hands left: the whole hand's
    # hands left are empty, so its checksum is the bids and scores of run_records
    assert stage(STAGE_HAND) == int(expected)
    # before the tricks every hand is still full: the checksum of the bids and full hands
    before = np.uint64(0)
    for j in range(count):
        for s in range(players):
            before ^= np.uint64(seat_out[j, s, S_BID]) ^ masks[j, s]
    assert stage(STAGE_BIDS) == int(before)
