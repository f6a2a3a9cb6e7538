"""Bit tricks on uint64 hand masks, compiled to single LLVM instructions."""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types

from simulate.kernel.jit import kernel_intrinsic, kernel_jit


def _width(t: Any) -> int:
    """Bits of a numba integer type (numba's stubs leave `bitwidth` off types.Integer)."""
    return int(t.bitwidth)


@kernel_intrinsic
def popcount(typingctx, x):
    """Number of set bits (llvm.ctpop)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        value = builder.ctpop(args[0])
        return builder.zext(value, ir.IntType(64)) if _width(x) < 64 else value

    return sig, codegen


@kernel_intrinsic
def lowest_bit_index(typingctx, x):
    """Index of the lowest set bit (llvm.cttz); undefined for 0, which callers never pass."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        value = builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.zext(value, ir.IntType(64)) if _width(x) < 64 else value

    return sig, codegen


@kernel_intrinsic
def lowest_bit_index_reversed(typingctx, x):
    """Leading zeros (llvm.ctlz): 63 minus the index of the highest set bit; x != 0."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        value = builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.zext(value, ir.IntType(64)) if _width(x) < 64 else value

    return sig, codegen


ONE = np.uint64(1)
ZERO = np.uint64(0)

HAS_PDEP = "+bmi2" in llvm.get_host_cpu_features().flatten().split(",")
# Zen 1 and Zen 2 have BMI2 but run pdep in microcode (~250 cycles against 3 elsewhere):
# there the portable select is faster, so they take it too.
SLOW_PDEP_CPUS = ("znver1", "znver2")
FAST_PDEP = HAS_PDEP and llvm.get_host_cpu_name() not in SLOW_PDEP_CPUS
# Which bit paths the kernel compiled, for selects and bit moves (the benchmark prints it):
# numba caches machine code per host CPU, so the choice made at import is the one that runs.
SELECT_PATH = "pdep/pext (BMI2)" if FAST_PDEP else \
    "portable (select by popcount halving, moves bit by bit)"


def _bmi2(name: str) -> tuple[Any, Any]:
    """(signature, codegen) of an intrinsic calling the x86 BMI2 instruction `name` on two
    uint64 operands."""
    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> Any:
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic(f"llvm.x86.bmi.{name}.64", fnty=ir.FunctionType(
            i64, [i64, i64]))
        return builder.call(fn, args)

    return types.uint64(types.uint64, types.uint64), codegen


@kernel_intrinsic
def _pdep(typingctx, src, mask):
    """Parallel bit deposit (x86 BMI2): scatters the low bits of src to the set bits of mask."""
    return _bmi2("pdep")


@kernel_intrinsic
def _pext(typingctx, src, mask):
    """Parallel bit extract (x86 BMI2): gathers the bits of src at the set bits of mask
    into the low bits."""
    return _bmi2("pext")


LOW32 = np.uint64(0xFFFFFFFF)
LOW16 = np.uint64(0xFFFF)
LOW8 = np.uint64(0xFF)


@kernel_jit(inline=True)
def nth_set_bit_pdep(mask, k):
    """Index of the k-th (0-based) set bit of mask, lowest first (k < popcount(mask)), by
    one bit deposit (BMI2 only)."""
    return lowest_bit_index(_pdep(ONE << np.uint64(k), mask))


@kernel_jit(inline=True)
def nth_set_bit_portable(mask, k):
    """nth_set_bit without BMI2: halve the search by popcounts of the low 32, 16 and 8
    bits, then clear the lowest bits of the byte left (at most 7), so the cost no longer
    grows with k."""
    m = mask
    base = 0
    kk = np.int64(k)
    c = popcount(m & LOW32)
    if kk >= c:
        kk -= c
        m >>= np.uint64(32)
        base += 32
    c = popcount(m & LOW16)
    if kk >= c:
        kk -= c
        m >>= np.uint64(16)
        base += 16
    c = popcount(m & LOW8)
    if kk >= c:
        kk -= c
        m >>= np.uint64(8)
        base += 8
    for _ in range(kk):
        m &= m - ONE
    return base + lowest_bit_index(m)


@kernel_jit(inline=True)
def nth_set_bit_mask_pdep(mask, k):
    """The k-th (0-based) set bit of mask as a one-bit mask, lowest first (k <
    popcount(mask)): the bit deposit itself, with no index to find and shift back."""
    return _pdep(ONE << np.uint64(k), mask)


@kernel_jit(inline=True)
def nth_set_bit_mask_portable(mask, k):
    """nth_set_bit_mask without BMI2."""
    return ONE << np.uint64(nth_set_bit_portable(mask, k))


# nth_set_bit: the index of the k-th (0-based) set bit of mask, lowest first;
# nth_set_bit_mask: that bit as a mask (a dealt card's bit, one dependent step shorter)
nth_set_bit = nth_set_bit_pdep if FAST_PDEP else nth_set_bit_portable
nth_set_bit_mask = nth_set_bit_mask_pdep if FAST_PDEP else nth_set_bit_mask_portable


@kernel_jit(inline=True)
def move_bits_pdep(mask, moves, order):
    """The bits of mask moved by `moves` (uint64[G, 2] rows of (from, to) masks of equal
    popcount; each row takes its bits in order, lowest to lowest): the OR over rows of
    pdep(pext(mask, from), to), so no cost per set bit. `order` (int64[D]: where each bit
    goes) is the portable path's; both give the same mask (tests/test_kernel_paths.py)."""
    out = ZERO
    for g in range(moves.shape[0]):
        out |= _pdep(_pext(mask, moves[g, 0]), moves[g, 1])
    return out


@kernel_jit(inline=True)
def move_bits_portable(mask, moves, order):
    """move_bits without BMI2: each set bit c of mask to bit order[c]."""
    out = ZERO
    m = mask
    while m != ZERO:
        c = lowest_bit_index(m)
        m &= m - ONE
        out |= ONE << np.uint64(order[c])
    return out


# move_bits: a fixed permutation of a hand's bits (a hand in strength order, for one)
move_bits = move_bits_pdep if FAST_PDEP else move_bits_portable
