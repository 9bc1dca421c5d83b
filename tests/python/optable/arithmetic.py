"""add, sub, mul, div, neg."""

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, binary_samples, unary_samples

ops = gb.ops.glassbox
NUMERIC = FLOAT + HALF + INT

OPS = [
    OpInfo("add.Tensor", lambda a, b: ops.add(a, b), np.add, binary_samples(), ALL_DTYPES, differentiable=True),
    OpInfo(
        "add.Tensor(alpha)",
        lambda a, b: ops.add(a, b, alpha=2),
        lambda a, b: a + 2 * b,
        binary_samples(),
        NUMERIC,
        differentiable=True,
    ),
    OpInfo("sub.Tensor", lambda a, b: ops.sub(a, b), np.subtract, binary_samples(), NUMERIC, differentiable=True),
    OpInfo("mul.Tensor", lambda a, b: ops.mul(a, b), np.multiply, binary_samples(), ALL_DTYPES, differentiable=True),
    OpInfo(
        "div.Tensor",
        lambda a, b: ops.div(a, b),
        np.true_divide,
        binary_samples(rhs_low=0.5, rhs_high=3.0),
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo("neg", lambda a: ops.neg(a), np.negative, unary_samples(), NUMERIC, differentiable=True),
]
