"""Bit tricks on uint64 hand masks, compiled to single LLVM instructions."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Number of set bits (llvm.ctpop)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        value = builder.ctpop(args[0])
        return builder.zext(value, ir.IntType(64)) if x.bitwidth < 64 else value

    return sig, codegen


@intrinsic
def lowest_bit_index(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit (llvm.cttz); undefined for 0, which callers never pass."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        value = builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.zext(value, ir.IntType(64)) if x.bitwidth < 64 else value

    return sig, codegen


ONE = np.uint64(1)


@njit(cache=True, inline="always", _nrt=False)
def nth_set_bit(mask, k):  # type: ignore[no-untyped-def]
    """Index of the k-th (0-based) set bit of mask, lowest first."""
    m = mask
    for _ in range(k):
        m &= m - ONE
    return lowest_bit_index(m)
