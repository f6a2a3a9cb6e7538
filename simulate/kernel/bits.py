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

HAS_PDEP = "+bmi2" in llvm.get_host_cpu_features().flatten().split(",")


@kernel_intrinsic
def _pdep(typingctx, src, mask):
    """Parallel bit deposit (x86 BMI2): scatters the low bits of src to the set bits of mask."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", fnty=ir.FunctionType(
            i64, [i64, i64]))
        return builder.call(fn, args)

    return sig, codegen


if HAS_PDEP:
    @kernel_jit(inline=True)
    def nth_set_bit(mask, k):
        """Index of the k-th (0-based) set bit of mask, lowest first."""
        return lowest_bit_index(_pdep(ONE << np.uint64(k), mask))
else:
    @kernel_jit(inline=True)
    def nth_set_bit(mask, k):
        """Index of the k-th (0-based) set bit of mask, lowest first."""
        m = mask
        for _ in range(k):
            m &= m - ONE
        return lowest_bit_index(m)
