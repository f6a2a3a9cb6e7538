"""The learned bidder's sums, many bids to one vector (LLVM IR written here).

model_bid predicts every allowed bid's score as a sum of weights, one column per feature of
the hand. numba leaves LLVM's SLP vectoriser off (it has miscompiled), and the loop
vectoriser cannot turn the per-bid accumulators into vectors, so those sums ran as scalar
adds. model_sums keeps sixteen bids' sums in one vector of doubles (model_sums_few eight,
for hands with at most eight bids to weigh, where sixteen lanes are half idle), loads
each weight row's entries with one masked float32 load (lanes past the last bid read
nothing) and adds them in the order the scalar code did (held, strength, then the cards
lowest first), so each bid's sum is the same double, bit for bit.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils

from simulate.kernel.jit import kernel_intrinsic

LANES = 16        # model_sums: sixteen bids to a vector
FEW_LANES = 8     # model_sums_few: eight, for hands with at most eight bids to weigh

_I1, _I32, _I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)


def _is_c_array(t: Any, dtype: Any, ndim: int) -> bool:
    return isinstance(t, types.Array) and t.dtype == dtype and t.ndim == ndim and \
        t.layout == "C"


def _lane_mask(builder: ir.IRBuilder, count: ir.Value, lanes: int) -> ir.Value:
    """<lanes x i1>: lane k is on when k < count."""
    i64v = ir.VectorType(_I64, lanes)
    one = builder.insert_element(ir.Constant(i64v, ir.Undefined), count, ir.Constant(_I32, 0))
    splat = builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(_I32, lanes),
                                                         [0] * lanes))
    return builder.icmp_signed("<", ir.Constant(i64v, list(range(lanes))), splat)


def _load_row(builder: ir.IRBuilder, base: ir.Value, offset: ir.Value, mask: ir.Value,
              lanes: int) -> ir.Value:
    """<lanes x double> of the float32s at base + offset under mask (0.0 in lanes off)."""
    f32v = ir.VectorType(ir.FloatType(), lanes)
    fnty = ir.FunctionType(f32v, [ir.PointerType(), _I32, ir.VectorType(_I1, lanes), f32v])
    load = cgutils.get_or_insert_function(builder.module, fnty,
                                          f"llvm.masked.load.v{lanes}f32.p0")
    ptr = builder.gep(base, [offset])
    row = builder.call(load, [ptr, ir.Constant(_I32, 4), mask,
                              ir.Constant(f32v, [0.0] * lanes)])
    return builder.fpext(row, ir.VectorType(ir.DoubleType(), lanes))


def _model_sums(lanes: int, w: Any, label_row: Any, value: Any) -> Any:
    """The typing and code of model_sums with `lanes` bids to a vector: value[b0 + k] for
    k < count (<= lanes) = w[col_held, b0 + k] + w[col_strength, b0 + k] +
    w[label_row[c], b0 + k] over the cards c of `hand` lowest first, each term as a double
    and added in that order. w: float32[F, B] C-contiguous weights; label_row: int64[D]
    (the model's column of each card under the trump); value: float64[>= b0 + count]."""
    f64v = ir.VectorType(ir.DoubleType(), lanes)
    if not (_is_c_array(w, types.float32, 2) and _is_c_array(label_row, types.int64, 1)
            and _is_c_array(value, types.float64, 1)):
        return None
    sig = types.void(w, label_row, types.uint64, types.int64, types.int64, types.int64,
                     types.int64, value)

    def codegen(context, builder, signature, args):
        w_arr = context.make_array(signature.args[0])(context, builder, args[0])
        label_arr = context.make_array(signature.args[1])(context, builder, args[1])
        value_arr = context.make_array(signature.args[7])(context, builder, args[7])
        hand_v, held, strength, first, count_v = args[2], args[3], args[4], args[5], args[6]
        ncols = cgutils.unpack_tuple(builder, w_arr.shape, 2)[1]
        mask = _lane_mask(builder, count_v, lanes)

        def row_at(row: ir.Value) -> ir.Value:
            return _load_row(builder, w_arr.data, builder.add(builder.mul(row, ncols), first),
                             mask, lanes)

        start = builder.fadd(row_at(held), row_at(strength))
        entry = builder.basic_block
        loop = builder.append_basic_block("model_sums.loop")
        body = builder.append_basic_block("model_sums.card")
        done = builder.append_basic_block("model_sums.done")
        builder.branch(loop)

        builder.position_at_end(loop)
        cards = builder.phi(_I64)
        acc = builder.phi(f64v)
        cards.add_incoming(hand_v, entry)
        acc.add_incoming(start, entry)
        builder.cbranch(builder.icmp_unsigned("!=", cards, ir.Constant(_I64, 0)), body, done)

        builder.position_at_end(body)
        card = builder.cttz(cards, ir.Constant(_I1, 1))
        rest = builder.and_(cards, builder.sub(cards, ir.Constant(_I64, 1)))
        row = builder.load(builder.gep(label_arr.data, [card]))
        summed = builder.fadd(acc, row_at(row))
        cards.add_incoming(rest, body)
        acc.add_incoming(summed, body)
        builder.branch(loop)

        builder.position_at_end(done)
        fnty = ir.FunctionType(ir.VoidType(), [f64v, ir.PointerType(), _I32,
                                               ir.VectorType(_I1, lanes)])
        store = cgutils.get_or_insert_function(builder.module, fnty,
                                               f"llvm.masked.store.v{lanes}f64.p0")
        builder.call(store, [acc, builder.gep(value_arr.data, [first]), ir.Constant(_I32, 8),
                             mask])
        return context.get_dummy_value()

    return sig, codegen


@kernel_intrinsic
def model_sums(typingctx, w, label_row, hand, col_held, col_strength, b0, count, value):
    """value[b0 + k] for k < count (<= LANES): each bid's sum of weights, as _model_sums."""
    return _model_sums(LANES, w, label_row, value)


@kernel_intrinsic
def model_sums_few(typingctx, w, label_row, hand, col_held, col_strength, b0, count, value):
    """model_sums with FEW_LANES bids to a vector (count <= FEW_LANES): hands of up to seven
    cards weigh at most eight bids, so half the vector does all their work."""
    return _model_sums(FEW_LANES, w, label_row, value)
