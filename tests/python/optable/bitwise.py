"""Bitwise ops and shifts (integers and bool), remainder, fmod and floor_divide: every overload, the
in-place and out= forms checked through the values they leave in self or out."""

import numpy as np

import glassbox as gb

from .common import FLOAT, HALF, INT, OpInfo, binary_samples, unary_samples
from .pointwise import call_out, inplace, inplace_samples, nonzero_rhs

ops = gb.ops.glassbox
INT_BOOL = INT + ("bool",)
NUMERIC = FLOAT + HALF + INT
FLOATS = FLOAT + HALF


def shift_ref(left):
    """Shifts as PyTorch defines them past the type's width: 0 to the left, the sign to the right."""

    def ref(a, b):
        a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
        bits = a.dtype.itemsize * 8
        count = b.astype(np.int64)
        outside = (count < 0) | (count >= bits)
        safe = np.where(outside, 0, count).astype(a.dtype)
        if left:
            return np.where(outside, 0, np.left_shift(a, safe)).astype(a.dtype)
        fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else np.zeros_like(a)
        return np.where(outside, fill, np.right_shift(a, safe)).astype(a.dtype)

    return ref


def number_ref(ref, number):
    return lambda a: ref(a, np.asarray(number, a.dtype))


def bitwise_entries():
    out = []
    for name, ref in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)):
        fn = getattr(ops, name)
        out += [
            OpInfo(f"{name}.Tensor", fn, ref, binary_samples(), INT_BOOL),
            OpInfo(
                f"{name}_.Tensor",
                inplace(lambda a, b, n=name: getattr(a, n + "_")(b)),
                ref,
                inplace_samples(),
                INT_BOOL,
            ),
            OpInfo(f"{name}.Tensor_out", lambda a, b, fn=fn: call_out(fn, a, b), ref, binary_samples(), INT_BOOL),
            OpInfo(f"{name}.Scalar", lambda a, fn=fn: fn(a, 6), number_ref(ref, 6), unary_samples(), INT),
            OpInfo(
                f"{name}_.Scalar",
                inplace(lambda a, n=name: getattr(a, n + "_")(6)),
                number_ref(ref, 6),
                unary_samples(),
                INT,
            ),
        ]
    out += [
        OpInfo("bitwise_not", ops.bitwise_not, np.invert, unary_samples(), INT_BOOL),
        OpInfo("bitwise_not_", inplace(lambda a: a.bitwise_not_()), np.invert, unary_samples(), INT_BOOL),
        OpInfo("bitwise_not.out", lambda a: call_out(ops.bitwise_not, a), np.invert, unary_samples(), INT_BOOL),
    ]
    # Shift counts from -2 to 11: past the width of the 8-bit types, and negative.
    counts = dict(rhs_low=0.0, rhs_high=8.0)
    for name, left in (("bitwise_left_shift", True), ("bitwise_right_shift", False)):
        fn, ref = getattr(ops, name), shift_ref(left)
        out += [
            OpInfo(f"{name}.Tensor", fn, ref, binary_samples(**counts), INT),
            OpInfo(
                f"{name}_.Tensor",
                inplace(lambda a, b, n=name: getattr(a, n + "_")(b)),
                ref,
                inplace_samples(**counts),
                INT,
            ),
            OpInfo(f"{name}.Tensor_out", lambda a, b, fn=fn: call_out(fn, a, b), ref, binary_samples(**counts), INT),
            OpInfo(f"{name}.Tensor_Scalar", lambda a, fn=fn: fn(a, 3), number_ref(ref, 3), unary_samples(), INT),
            OpInfo(
                f"{name}_.Tensor_Scalar",
                inplace(lambda a, n=name: getattr(a, n + "_")(3)),
                number_ref(ref, 3),
                unary_samples(),
                INT,
            ),
            OpInfo(
                f"{name}.Scalar_Tensor",
                lambda b, fn=fn: fn(5, b),
                lambda b, ref=ref: ref(np.asarray(5, b.dtype), b),
                unary_samples(0.0, 5.0),
                INT,
            ),
        ]
    return out


def nonzero_divisors(rng, dtype):
    """unary_samples kept away from zero (the divisor of a number)."""
    samples = unary_samples()(rng, dtype)
    for s in samples:
        b = s.args[0]
        b[np.abs(b.astype(np.float64)) < 0.5] = 0.5 if dtype in FLOATS else 1
    return samples


def remainder_entries():
    divisors = nonzero_rhs(binary_samples())
    inplace_divisors = nonzero_rhs(inplace_samples())
    out = []
    for name, ref in (("remainder", np.remainder), ("fmod", np.fmod)):
        fn = getattr(ops, name)
        out += [
            OpInfo(f"{name}.Tensor", fn, ref, divisors, NUMERIC, differentiable=True),
            OpInfo(
                f"{name}_.Tensor", inplace(lambda a, b, n=name: getattr(a, n + "_")(b)), ref, inplace_divisors, NUMERIC
            ),
            OpInfo(f"{name}.Tensor_out", lambda a, b, fn=fn: call_out(fn, a, b), ref, divisors, NUMERIC),
            OpInfo(
                f"{name}.Scalar",
                lambda a, fn=fn: fn(a, 3),
                number_ref(ref, 3),
                unary_samples(),
                NUMERIC,
                differentiable=True,
            ),
            OpInfo(
                f"{name}.Scalar(negative)",
                lambda a, fn=fn: fn(a, -2),
                number_ref(ref, -2),
                unary_samples(),
                FLOATS + INT[:4],
            ),
            OpInfo(
                f"{name}_.Scalar",
                inplace(lambda a, n=name: getattr(a, n + "_")(3)),
                number_ref(ref, 3),
                unary_samples(),
                NUMERIC,
            ),
        ]
    out.append(
        OpInfo(
            "remainder.Scalar_Tensor",
            lambda b: ops.remainder(7, b),
            lambda b: np.remainder(np.asarray(7, b.dtype), b),
            nonzero_divisors,
            FLOATS + INT[:4],
        )
    )
    out += [
        OpInfo("floor_divide", ops.floor_divide, np.floor_divide, divisors, NUMERIC),
        OpInfo(
            "floor_divide.Scalar",
            lambda a: ops.floor_divide(a, 3),
            number_ref(np.floor_divide, 3),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo(
            "floor_divide_.Tensor", inplace(lambda a, b: a.floor_divide_(b)), np.floor_divide, inplace_divisors, NUMERIC
        ),
        OpInfo(
            "floor_divide_.Scalar",
            inplace(lambda a: a.floor_divide_(3)),
            number_ref(np.floor_divide, 3),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo("floor_divide.out", lambda a, b: call_out(ops.floor_divide, a, b), np.floor_divide, divisors, NUMERIC),
    ]
    return out


OPS = [*bitwise_entries(), *remainder_entries()]
