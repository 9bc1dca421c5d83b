"""More element-wise math: rounding, trigonometric and hyperbolic functions, erf and its inverse,
exp2/log2/log10, reciprocal, square, nan_to_num, isnan/isinf/isfinite, isclose, copysign, atan2,
logaddexp(2), lerp, addcmul and addcdiv; each with its in-place and out= forms where PyTorch has them."""

import math

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, binary_samples, make_array, unary_samples
from .pointwise import call_out, f64, inplace, inplace_samples, sign_ref, ternary_samples, to_bool, to_float

ops = gb.ops.glassbox
NUMERIC = FLOAT + HALF + INT
FLOATS = FLOAT + HALF

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def erfinv_ref(y):
    """erf's inverse by bisection in float64 (|y| >= 1 as the limits and NaN)."""
    y = np.asarray(y, dtype=np.float64)
    lo, hi = np.full(y.shape, -7.0), np.full(y.shape, 7.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        below = _erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    x = (lo + hi) / 2
    x = np.where(y == 1, np.inf, np.where(y == -1, -np.inf, x))
    return np.where(np.abs(y) > 1, np.nan, x)


UNARY_FLOAT_MATH = [  # name, reference, sample range
    ("erf", _erf, (-3.0, 3.0)),
    ("erfc", _erfc, (-3.0, 3.0)),
    ("erfinv", erfinv_ref, (-0.95, 0.95)),
    ("exp2", np.exp2, (-3.0, 3.0)),
    ("log2", np.log2, (0.1, 4.0)),
    ("log10", np.log10, (0.1, 4.0)),
    ("tan", np.tan, (-1.2, 1.2)),
    ("asin", np.arcsin, (-0.9, 0.9)),
    ("acos", np.arccos, (-0.9, 0.9)),
    ("atan", np.arctan, (-3.0, 3.0)),
    ("sinh", np.sinh, (-3.0, 3.0)),
    ("cosh", np.cosh, (-3.0, 3.0)),
    ("asinh", np.arcsinh, (-3.0, 3.0)),
    ("acosh", np.arccosh, (1.1, 4.0)),
    ("atanh", np.arctanh, (-0.9, 0.9)),
    ("reciprocal", np.reciprocal, (0.5, 3.0)),
]
ROUNDING = [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc), ("round", np.round)]


def with_specials(gen):
    """Floating-point samples with NaN, +inf and -inf among the values."""

    def wrapped(rng, dtype):
        samples = gen(rng, dtype)
        if dtype in FLOATS:
            for s in samples:
                a = s.args[0]
                if a.size >= 3:
                    flat = a.reshape(-1) if a.flags.c_contiguous else None
                    if flat is not None:
                        flat[:3] = [np.nan, np.inf, -np.inf]
                elif a.ndim == 0:
                    a[()] = np.inf
        return samples

    return wrapped


def unary_entries():
    out = []
    for name, ref, (lo, hi) in UNARY_FLOAT_MATH:
        fn = getattr(ops, name)
        samples = unary_samples(lo, hi)
        out += [
            OpInfo(name, fn, f64(ref), samples, ALL_DTYPES, differentiable=True, ref_dtype=to_float),
            OpInfo(name + "_", inplace(lambda a, n=name: getattr(a, n + "_")()), f64(ref), samples, FLOATS),
            OpInfo(name + ".out", lambda a, fn=fn: call_out(fn, a), f64(ref), samples, ALL_DTYPES, ref_dtype=to_float),
        ]
    for name, ref in ROUNDING:
        fn = getattr(ops, name)
        samples = unary_samples(-4.0, 4.0)
        out += [
            OpInfo(name, fn, ref, samples, NUMERIC, differentiable=True),
            OpInfo(name + "_", inplace(lambda a, n=name: getattr(a, n + "_")()), ref, samples, NUMERIC),
            OpInfo(name + ".out", lambda a, fn=fn: call_out(fn, a), ref, samples, NUMERIC),
        ]
    for decimals in (2, -1):
        ref = lambda a, d=decimals: np.round(np.asarray(a, dtype=np.float64), d)  # noqa: E731
        samples = unary_samples(-200.0, 200.0)
        out += [
            OpInfo(
                f"round.decimals({decimals})",
                lambda a, d=decimals: ops.round(a, decimals=d),
                ref,
                samples,
                FLOAT,
                differentiable=True,
            ),
            OpInfo(
                f"round_.decimals({decimals})", inplace(lambda a, d=decimals: a.round_(decimals=d)), ref, samples, FLOAT
            ),
            OpInfo(
                f"round.decimals_out({decimals})",
                lambda a, d=decimals: call_out(ops.round, a, decimals=d),
                ref,
                samples,
                FLOAT,
            ),
        ]
    frac = f64(lambda a: a - np.trunc(a))
    out += [
        OpInfo("frac", ops.frac, frac, unary_samples(), FLOATS, differentiable=True),
        OpInfo("frac_", inplace(lambda a: a.frac_()), frac, unary_samples(), FLOATS),
        OpInfo("frac.out", lambda a: call_out(ops.frac, a), frac, unary_samples(), FLOATS),
        OpInfo("sgn", ops.sgn, sign_ref, unary_samples(), ALL_DTYPES, differentiable=True),
        OpInfo("sgn_", inplace(lambda a: a.sgn_()), sign_ref, unary_samples(), ALL_DTYPES),
        OpInfo("sgn.out", lambda a: call_out(ops.sgn, a), sign_ref, unary_samples(), ALL_DTYPES),
        OpInfo(
            "square",
            ops.square,
            lambda a: a.astype(np.int64) ** 2 if a.dtype == bool else a * a,
            unary_samples(),
            ALL_DTYPES,
            differentiable=True,
            ref_dtype=lambda d: "int64" if d == "bool" else d,
        ),
        OpInfo("square_", inplace(ops.square_), lambda a: a * a, unary_samples(), NUMERIC),
    ]
    return out


def classification_entries():
    samples = with_specials(unary_samples())
    out = []
    for name, ref in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        out.append(OpInfo(name, getattr(ops, name), f64(ref), samples, ALL_DTYPES, ref_dtype=to_bool))
    given = {"nan": 1.5, "posinf": 100.0, "neginf": -100.0}

    def given_ref(a):
        return np.nan_to_num(a, **given) if a.dtype.kind == "f" else a

    out += [
        OpInfo("nan_to_num", lambda a: ops.nan_to_num(a, **given), given_ref, samples, ALL_DTYPES),
        OpInfo("nan_to_num_", inplace(lambda a: a.nan_to_num_(**given)), given_ref, samples, ALL_DTYPES),
        OpInfo("nan_to_num.out", lambda a: call_out(ops.nan_to_num, a, **given), given_ref, samples, ALL_DTYPES),
        OpInfo("nan_to_num(finite)", ops.nan_to_num, lambda a: a, unary_samples(), FLOAT, differentiable=True),
    ]
    # The defaults are the largest and lowest finite values of each floating-point dtype.
    largest = {"float32": np.finfo(np.float32).max, "float64": np.finfo(np.float64).max, "float16": 65504.0}
    largest["bfloat16"] = 3.3895313892515355e38
    for dtype, big in largest.items():
        out.append(
            OpInfo(
                f"nan_to_num(defaults, {dtype})",
                ops.nan_to_num,
                lambda a, big=big: np.nan_to_num(np.asarray(a, dtype=np.float64), nan=0.0, posinf=big, neginf=-big),
                samples,
                (dtype,),
            )
        )
    return out


def isclose_samples(rng, dtype):
    """Pairs of which about half are close under rtol=atol=0.5 (so both answers occur)."""
    out = binary_samples()(rng, dtype)
    if dtype in FLOATS:
        a = make_array(rng, (3, 4), dtype)
        b = a.copy()
        b[0, :] = [np.nan, np.inf, -np.inf, 1.0]
        a[0, :] = [np.nan, np.inf, np.inf, 1.0]
        out.append(Sample([a, b], name="specials"))
    return out


def binary_entries():
    out = [
        OpInfo(
            "isclose",
            lambda a, b: ops.isclose(a, b, rtol=0.5, atol=0.5),
            lambda a, b: np.isclose(a, b, rtol=0.5, atol=0.5),
            isclose_samples,
            ALL_DTYPES[:-1],
            ref_dtype=to_bool,
        ),
        OpInfo(
            "isclose(equal_nan)",
            lambda a, b: ops.isclose(a, b, rtol=0.0, atol=0.0, equal_nan=True),
            lambda a, b: np.isclose(a, b, rtol=0.0, atol=0.0, equal_nan=True),
            isclose_samples,
            FLOATS + ("bool",),
            ref_dtype=to_bool,
        ),
    ]
    for name, ref in (("copysign", np.copysign), ("atan2", np.arctan2)):
        fn = getattr(ops, name)
        out += [
            OpInfo(name, fn, f64(ref), binary_samples(), ALL_DTYPES, differentiable=True, ref_dtype=to_float),
            OpInfo(
                name + "_", inplace(lambda a, b, n=name: getattr(a, n + "_")(b)), f64(ref), inplace_samples(), FLOATS
            ),
            OpInfo(
                name + ".out",
                lambda a, b, fn=fn: call_out(fn, a, b),
                f64(ref),
                binary_samples(),
                ALL_DTYPES,
                ref_dtype=to_float,
            ),
        ]
    log2_add = f64(lambda a, b: np.logaddexp2(a, b))
    out += [
        OpInfo("logaddexp", ops.logaddexp, f64(np.logaddexp), binary_samples(), FLOATS, differentiable=True),
        OpInfo(
            "logaddexp.out", lambda a, b: call_out(ops.logaddexp, a, b), f64(np.logaddexp), binary_samples(), FLOATS
        ),
        OpInfo("logaddexp2", ops.logaddexp2, log2_add, binary_samples(), FLOATS, differentiable=True),
        OpInfo("logaddexp2.out", lambda a, b: call_out(ops.logaddexp2, a, b), log2_add, binary_samples(), FLOATS),
    ]
    return out


def away_from_zero(gen, position):
    def wrapped(rng, dtype):
        samples = gen(rng, dtype)
        for s in samples:
            x = s.args[position]
            x[np.abs(x.astype(np.float64)) < 0.25] = 0.5
        return samples

    return wrapped


def ternary_entries():
    def lerp_ref(a, b, w):
        return a + w * (b - a)

    triples = ternary_samples()
    divisors = away_from_zero(ternary_samples(), 2)
    out = [
        OpInfo("lerp.Tensor", ops.lerp, lerp_ref, triples, FLOATS, differentiable=True),
        OpInfo("lerp_.Tensor", inplace(lambda a, b, w: a.lerp_(b, w)), lerp_ref, triples, FLOATS),
        OpInfo("lerp.Tensor_out", lambda a, b, w: call_out(ops.lerp, a, b, w), lerp_ref, triples, FLOATS),
        OpInfo(
            "lerp.Scalar",
            lambda a, b: ops.lerp(a, b, 0.75),
            lambda a, b: lerp_ref(a, b, 0.75),
            binary_samples(),
            FLOATS,
            differentiable=True,
        ),
        OpInfo(
            "lerp_.Scalar",
            inplace(lambda a, b: a.lerp_(b, 0.25)),
            lambda a, b: lerp_ref(a, b, 0.25),
            inplace_samples(),
            FLOATS,
        ),
        OpInfo(
            "addcmul",
            lambda a, b, c: ops.addcmul(a, b, c, value=2),
            lambda a, b, c: a + 2 * b * c,
            triples,
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "addcmul_",
            inplace(lambda a, b, c: a.addcmul_(b, c, value=2)),
            lambda a, b, c: a + 2 * b * c,
            triples,
            NUMERIC,
        ),
        OpInfo(
            "addcmul.out",
            lambda a, b, c: call_out(ops.addcmul, a, b, c, value=2),
            lambda a, b, c: a + 2 * b * c,
            triples,
            NUMERIC,
        ),
        OpInfo(
            "addcdiv",
            lambda a, b, c: ops.addcdiv(a, b, c, value=0.5),
            f64(lambda a, b, c: a + 0.5 * b / c),
            divisors,
            FLOATS,
            differentiable=True,
        ),
        OpInfo(
            "addcdiv_",
            inplace(lambda a, b, c: a.addcdiv_(b, c, value=0.5)),
            f64(lambda a, b, c: a + 0.5 * b / c),
            divisors,
            FLOATS,
        ),
        OpInfo(
            "addcdiv.out",
            lambda a, b, c: call_out(ops.addcdiv, a, b, c, value=0.5),
            f64(lambda a, b, c: a + 0.5 * b / c),
            divisors,
            FLOATS,
        ),
    ]
    return out


OPS = [*unary_entries(), *classification_entries(), *binary_entries(), *ternary_entries()]
