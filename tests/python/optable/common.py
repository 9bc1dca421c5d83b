"""OpInfo and the input generators the families share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

FLOAT = ("float32", "float64")
HALF = ("float16", "bfloat16")
INT = ("int64", "int32", "int16", "int8", "uint8")
ALL_DTYPES = FLOAT + HALF + INT + ("bool",)

# Tolerances per dtype: half types compute in float32 but store 8 or 11 mantissa bits.
TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
}


@dataclass
class Sample:
    """One call: positional args (NumPy arrays become tensors, anything else passes as is) and kwargs."""

    args: Sequence[Any]
    kwargs: dict = field(default_factory=dict)
    name: str = ""


@dataclass
class OpInfo:
    name: str  # as in ops.yaml (for ids and error messages)
    op: Callable[..., Any]  # the glassbox call, given tensors
    ref: Callable[..., Any]  # the NumPy reference, given float64/int arrays
    samples: Callable[[np.random.Generator, str], list]  # (rng, dtype name) -> [Sample]
    dtypes: Sequence[str] = FLOAT
    differentiable: bool = False  # gradient-checked in float64
    tol: Optional[dict] = None  # dtype -> (rtol, atol), overriding TOL
    ref_dtype: Optional[Callable[[str], str]] = None  # the result dtype, when it is not the input's


def make_array(rng: np.random.Generator, shape, dtype: str, low=-3.0, high=3.0) -> np.ndarray:
    """Random values of `dtype` (NumPy has no bfloat16: those are float32 arrays marked later)."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INT:
        lo = 0 if dtype == "uint8" else int(low) - 2
        return np.asarray(rng.integers(lo, int(high) + 3, size=shape)).astype(dtype)
    a = np.asarray(rng.uniform(low, high, size=shape))
    return a.astype("float32" if dtype == "bfloat16" else dtype)


def non_contiguous(a: np.ndarray) -> np.ndarray:
    """The same values, laid out transposed (a strided, non-contiguous view)."""
    if a.ndim < 2:
        big = np.empty(a.shape[:-1] + (a.shape[-1] * 2,) if a.ndim else (), dtype=a.dtype)
        if a.ndim == 0:
            return a
        big[..., ::2] = a
        return big[..., ::2]
    return np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)


UNARY_SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 5)]
BINARY_SHAPES = [
    ((), ()),
    ((4,), ()),
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((0, 3), (3,)),
    ((2, 1, 4), (3, 1)),
]


def unary_samples(low=-3.0, high=3.0, shapes=UNARY_SHAPES):
    def gen(rng, dtype):
        out = [Sample([make_array(rng, s, dtype, low, high)], name=str(s)) for s in shapes]
        out.append(Sample([non_contiguous(make_array(rng, (4, 3), dtype, low, high))], name="non-contiguous"))
        return out

    return gen


def binary_samples(low=-3.0, high=3.0, shapes=BINARY_SHAPES, rhs_low=None, rhs_high=None):
    rl = low if rhs_low is None else rhs_low
    rh = high if rhs_high is None else rhs_high

    def gen(rng, dtype):
        out = [
            Sample([make_array(rng, a, dtype, low, high), make_array(rng, b, dtype, rl, rh)], name=f"{a}x{b}")
            for a, b in shapes
        ]
        out.append(
            Sample(
                [
                    non_contiguous(make_array(rng, (4, 3), dtype, low, high)),
                    non_contiguous(make_array(rng, (4, 3), dtype, rl, rh)),
                ],
                name="non-contiguous",
            )
        )
        return out

    return gen
