"""Atomic read-modify-write on array elements for numba's CPU target (LLVM ``atomicrmw`` / ``cmpxchg``).

numba has no atomics of its own on the CPU; these intrinsics give push operators the same semantics as the GPU
kernels' atomicAdd/atomicMin/atomicCAS, so parallel loops can update shared destinations without lost updates. Each
returns the element's previous value. Orderings are monotonic (relaxed), as on the GPU.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["atomic_add", "atomic_min", "atomic_max", "atomic_cas", "atomic_fadd", "atomic_xchg", "float_bits", "bits_float"]


def _element_pointer(context, builder, array_type, array_value, index_value):
    array = context.make_array(array_type)(context, builder, array_value)
    return cgutils.get_item_pointer(context, builder, array_type, array, [index_value], wraparound=False)


def _rmw(op: str, kinds: tuple[type, ...]):
    @intrinsic
    def rmw(typingctx, array, index, value):
        if not isinstance(array, types.Array) or not isinstance(array.dtype, kinds):
            return None

        def codegen(context, builder, signature, args):
            array_type, index_type, value_type = signature.args
            array_value, index_value, raw = args
            value = context.cast(builder, raw, value_type, array_type.dtype)
            ptr = _element_pointer(context, builder, array_type, array_value, index_value)
            return builder.atomic_rmw(op, ptr, value, "monotonic")

        return array.dtype(array, index, value), codegen

    return rmw


atomic_add = _rmw("add", (types.Integer,))
atomic_fadd = _rmw("fadd", (types.Float,))
atomic_min = _rmw("min", (types.Integer,))
atomic_max = _rmw("max", (types.Integer,))
atomic_xchg = _rmw("xchg", (types.Integer,))


@intrinsic
def atomic_cas(typingctx, array, index, expected, desired):
    """Store `desired` if the element equals `expected`; return the previous element (== expected on success)."""
    if not isinstance(array, types.Array) or not isinstance(array.dtype, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array_value, index_value, exp_raw, des_raw = args
        exp = context.cast(builder, exp_raw, signature.args[2], array_type.dtype)
        des = context.cast(builder, des_raw, signature.args[3], array_type.dtype)
        ptr = _element_pointer(context, builder, array_type, array_value, index_value)
        pair = builder.cmpxchg(ptr, exp, des, "monotonic", "monotonic")
        return builder.extract_value(pair, 0)

    return array.dtype(array, index, expected, desired), codegen


@intrinsic
def float_bits(typingctx, value):
    """The bits of a float64 as int64 (float32 as int32)."""
    if value == types.float64:
        out = types.int64
    elif value == types.float32:
        out = types.int32
    else:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(out))

    return out(value), codegen


@intrinsic
def bits_float(typingctx, bits):
    """Inverse of float_bits: int64 bits as float64 (int32 as float32)."""
    if bits == types.int64:
        out = types.float64
    elif bits == types.int32:
        out = types.float32
    else:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(out))

    return out(bits), codegen
