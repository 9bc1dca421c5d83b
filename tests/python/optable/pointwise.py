"""Point-wise operators: unary math and activations, pow, clamp, where, comparisons, logical ops,
maximum/minimum, the arithmetic overloads (Scalar forms, rounding modes, in-place, out=) and the
activation gradients. Every overload has an entry; in-place and out= forms are checked through the
values they leave in self or out."""

import math

import numpy as np

import glassbox as gb
from devices import on_device

from .common import (
    ALL_DTYPES,
    FLOAT,
    HALF,
    INT,
    OpInfo,
    Sample,
    binary_samples,
    make_array,
    non_contiguous,
    unary_samples,
)

ops = gb.ops.glassbox
NUMERIC = FLOAT + HALF + INT
FLOATS = FLOAT + HALF
# In-place forms: self already has the broadcast shape.
INPLACE_SHAPES = [((), ()), ((4,), ()), ((3, 4), (3, 4)), ((3, 4), (1, 4)), ((2, 3, 4), (4,)), ((0, 3), (3,))]


def to_float(dtype):
    """The result dtype of float-only math: integers and bool compute in the default float dtype."""
    return dtype if dtype in FLOATS else "float32"


def to_bool(_dtype):
    return "bool"


def f64(fn):
    """fn on float64 copies (NumPy would compute bool and small integers in float16)."""
    return lambda *arrays: fn(*[np.asarray(a, dtype=np.float64) for a in arrays])


def call_out(fn, *args, **kwargs):
    """The out= form of fn: an output of the functional result's shape and dtype, filled with a
    sentinel first so that only values the kernel wrote can pass."""
    shape_of = fn(*args, **kwargs)
    out = ops.empty(list(shape_of.shape), dtype=shape_of.dtype, device=shape_of.device)
    ops.fill_(out, 7)
    result = fn(*args, out=out, **kwargs)
    assert result.data_ptr() == out.data_ptr()
    return result


def inplace(fn):
    """fn applied in place: the returned tensor must be self."""

    def run(a, *rest, **kwargs):
        result = fn(a, *rest, **kwargs)
        assert result.data_ptr() == a.data_ptr()
        return result

    return run


def inplace_samples(low=-3.0, high=3.0, rhs_low=None, rhs_high=None):
    return binary_samples(low, high, INPLACE_SHAPES, rhs_low, rhs_high)


def nonzero_rhs(gen, floor=0.25):
    """Divisors kept away from zero: integer zeros become 1, floats within `floor` of 0 become 0.5."""

    def wrapped(rng, dtype):
        samples = gen(rng, dtype)
        for s in samples:
            b = s.args[1]
            b[np.abs(b.astype(np.float64)) < (floor if dtype in FLOATS else 0.5)] = 0.5 if dtype in FLOATS else 1
        return samples

    return wrapped


def with_kwargs(gen, variants):
    """Every sample of gen once per keyword set in variants."""

    def wrapped(rng, dtype):
        return [Sample(s.args, dict(kw), f"{s.name} {kw}") for s in gen(rng, dtype) for kw in variants]

    return wrapped


class Raw:
    """A NumPy array passed through unconverted (where's bool condition next to values of another dtype)."""

    def __init__(self, array):
        self.array = array


def where_samples(
    shapes=(
        ((), (), ()),
        ((3, 4), (3, 4), (3, 4)),
        ((3, 1), (1, 4), (4,)),
        ((2, 1, 4), (3, 1), (4,)),
        ((0, 3), (3,), ()),
    ),
    scalars=0,
):
    def gen(rng, dtype):
        out = []
        for c, a, b in shapes:
            arrays = [make_array(rng, a, dtype), make_array(rng, b, dtype)][: 2 - scalars]
            out.append(Sample([Raw(make_array(rng, c, "bool")), *arrays], name=f"{c}/{a}/{b}"))
        nc = [non_contiguous(make_array(rng, (4, 3), dtype)) for _ in range(2 - scalars)]
        out.append(Sample([Raw(non_contiguous(make_array(rng, (4, 3), "bool"))), *nc], name="non-contiguous"))
        return out

    return gen


def ternary_samples(low=-3.0, high=3.0):
    shapes = [((), (), ()), ((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((2, 3, 4), (), (4,)), ((0, 3), (3,), ())]

    def gen(rng, dtype):
        out = [
            Sample(
                [
                    make_array(rng, a, dtype, low, high),
                    make_array(rng, lo, dtype, low, 0.0),
                    make_array(rng, hi, dtype, 0.0, high),
                ],
                name=f"{a}/{lo}/{hi}",
            )
            for a, lo, hi in shapes
        ]
        out.append(
            Sample(
                [
                    non_contiguous(make_array(rng, (4, 3), dtype, low, high)),
                    non_contiguous(make_array(rng, (4, 3), dtype, low, 0.0)),
                    make_array(rng, (3,), dtype, 0.0, high),
                ],
                name="non-contiguous",
            )
        )
        return out

    return gen


def cond(raw):
    return on_device(gb.from_numpy(raw.array)) if isinstance(raw, Raw) else raw


def cond_ref(raw):
    return raw.array if isinstance(raw, Raw) else raw


# ---- references NumPy lacks
_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_ref(x, approximate="none"):
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def gelu_backward_ref(g, x, approximate="none"):
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = np.tanh(k * (x + 0.044715 * x**3))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x))
    return g * (0.5 * (1 + _erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


def sigmoid_ref(x):
    return 1 / (1 + np.exp(-np.asarray(x, dtype=np.float64)))


def sign_ref(a):
    """np.sign, except that NaN gives 0 (PyTorch's sign: (0 < x) - (x < 0))."""
    if a.dtype == bool:
        return a
    return np.where(np.isnan(a), 0, np.sign(a)).astype(a.dtype) if a.dtype.kind == "f" else np.sign(a)


def int_pow(base, exponent):
    """Integer pow as glassbox (and PyTorch) define it: a negative exponent gives 0, except for 1 and -1."""
    if base.dtype.kind == "f" or np.asarray(exponent).dtype.kind == "f":
        return np.power(base.astype(np.float64), np.asarray(exponent, dtype=np.float64))
    base, exponent = np.broadcast_arrays(base, exponent)
    positive = np.power(base, np.abs(exponent).astype(base.dtype))
    odd = np.abs(exponent) % 2 == 1
    negative = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0)).astype(base.dtype)
    return np.where(exponent < 0, negative, positive)


def trunc_divide(a, b):
    q = np.trunc(np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64))
    return q if a.dtype.kind == "f" else q.astype(np.result_type(a, b))


def floor_divide(a, b):
    return np.floor_divide(a, b)


UNARY_FLOAT_MATH = [  # name, reference, sample range
    ("sqrt", np.sqrt, (0.1, 4.0)),
    ("rsqrt", lambda a: 1 / np.sqrt(a), (0.1, 4.0)),
    ("exp", np.exp, (-3.0, 3.0)),
    ("log", np.log, (0.1, 4.0)),
    ("log1p", np.log1p, (-0.9, 3.0)),
    ("expm1", np.expm1, (-3.0, 3.0)),
    ("sin", np.sin, (-3.0, 3.0)),
    ("cos", np.cos, (-3.0, 3.0)),
    ("tanh", np.tanh, (-3.0, 3.0)),
    ("sigmoid", sigmoid_ref, (-3.0, 3.0)),
]
UNARY_KEEP = [("abs", np.abs, NUMERIC), ("sign", sign_ref, ALL_DTYPES), ("relu", lambda a: np.maximum(a, 0), NUMERIC)]


def unary_entries():
    out = []
    for name, ref, (lo, hi) in UNARY_FLOAT_MATH:
        fn, fn_ = getattr(ops, name), getattr(ops, name + "_")
        samples = unary_samples(lo, hi)
        out += [
            OpInfo(name, fn, f64(ref), samples, ALL_DTYPES, differentiable=True, ref_dtype=to_float),
            OpInfo(name + "_", inplace(fn_), f64(ref), samples, FLOATS),
            OpInfo(name + ".out", lambda a, fn=fn: call_out(fn, a), f64(ref), samples, ALL_DTYPES, ref_dtype=to_float),
        ]
    for name, ref, dtypes in UNARY_KEEP:
        fn, fn_ = getattr(ops, name), getattr(ops, name + "_")
        out += [
            OpInfo(name, fn, ref, unary_samples(), dtypes, differentiable=True),
            OpInfo(name + "_", inplace(fn_), ref, unary_samples(), dtypes),
        ]
        if name != "relu":  # PyTorch has no relu.out either
            out.append(OpInfo(name + ".out", lambda a, fn=fn: call_out(fn, a), ref, unary_samples(), dtypes))
    for approximate in ("none", "tanh"):
        ref = lambda a, approximate=approximate: gelu_ref(a, approximate)  # noqa: E731
        out += [
            OpInfo(
                f"gelu({approximate})",
                lambda a, m=approximate: ops.gelu(a, approximate=m),
                ref,
                unary_samples(),
                FLOATS,
                differentiable=True,
            ),
            OpInfo(
                f"gelu_({approximate})",
                inplace(lambda a, m=approximate: ops.gelu_(a, approximate=m)),
                ref,
                unary_samples(),
                FLOATS,
            ),
            OpInfo(
                f"gelu.out({approximate})",
                lambda a, m=approximate: call_out(ops.gelu, a, approximate=m),
                ref,
                unary_samples(),
                FLOATS,
            ),
        ]
    silu_ref = f64(lambda x: x * sigmoid_ref(x))
    out += [
        OpInfo("silu", ops.silu, silu_ref, unary_samples(), FLOATS, differentiable=True),
        OpInfo("silu_", inplace(ops.silu_), silu_ref, unary_samples(), FLOATS),
        OpInfo("silu.out", lambda a: call_out(ops.silu, a), silu_ref, unary_samples(), FLOATS),
        OpInfo("logical_not", ops.logical_not, np.logical_not, unary_samples(), ALL_DTYPES, ref_dtype=to_bool),
        OpInfo(
            "logical_not_",
            inplace(ops.logical_not_),
            lambda a: np.logical_not(a).astype(a.dtype),
            unary_samples(),
            ALL_DTYPES,
        ),
        OpInfo(
            "logical_not.out",
            lambda a: call_out(ops.logical_not, a),
            np.logical_not,
            unary_samples(),
            ALL_DTYPES,
            ref_dtype=to_bool,
        ),
        OpInfo("neg_", inplace(ops.neg_), np.negative, unary_samples(), NUMERIC),
        OpInfo("neg.out", lambda a: call_out(ops.neg, a), np.negative, unary_samples(), NUMERIC),
    ]
    return out


def pow_entries():
    pos = binary_samples(0.5, 3.0, rhs_low=-2.0, rhs_high=2.0)
    ints = binary_samples(-3.0, 3.0, rhs_low=-1.0, rhs_high=2.0)  # integer exponents from -3 to 4
    int_ref = int_pow
    return [
        OpInfo("pow.Tensor_Tensor", ops.pow, int_ref, pos, FLOATS, differentiable=True),
        OpInfo("pow.Tensor_Tensor(int)", ops.pow, int_ref, ints, INT),
        OpInfo(
            "pow.Tensor_Scalar",
            lambda a: ops.pow(a, 3),
            lambda a: int_pow(a, np.asarray(3, a.dtype)),
            unary_samples(-2.0, 2.0),
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "pow.Tensor_Scalar(2)",
            lambda a: ops.pow(a, 2),
            lambda a: a.astype(np.float64) ** 2 if a.dtype.kind == "f" else a * a,
            unary_samples(),
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "pow.Tensor_Scalar(0.5)",
            lambda a: ops.pow(a, 0.5),
            f64(np.sqrt),
            unary_samples(0.2, 4.0),
            NUMERIC,
            differentiable=True,
            ref_dtype=to_float,
        ),
        OpInfo(
            "pow.Scalar",
            lambda e: ops.pow(2, e),
            lambda e: int_pow(np.asarray(2, e.dtype), e),
            unary_samples(-2.0, 3.0),
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "pow.Scalar(float)",
            lambda e: ops.pow(1.5, e),
            f64(lambda e: np.power(1.5, e)),
            unary_samples(-2.0, 3.0),
            NUMERIC,
            differentiable=True,
            ref_dtype=to_float,
        ),
        OpInfo("pow_.Tensor", inplace(ops.pow_), int_pow, inplace_samples(0.5, 3.0, -2.0, 2.0), FLOATS),
        OpInfo(
            "pow_.Scalar",
            inplace(lambda a: ops.pow_(a, 2)),
            lambda a: a.astype(np.float64) ** 2,
            unary_samples(),
            FLOATS,
        ),
        OpInfo("pow.Tensor_Tensor_out", lambda a, b: call_out(ops.pow, a, b), int_pow, pos, FLOATS),
        OpInfo(
            "pow.Tensor_Scalar_out",
            lambda a: call_out(ops.pow, a, 3),
            lambda a: int_pow(a, np.asarray(3, a.dtype)),
            unary_samples(-2.0, 2.0),
            NUMERIC,
        ),
        OpInfo(
            "pow.Scalar_out",
            lambda e: call_out(ops.pow, 2, e),
            lambda e: int_pow(np.asarray(2, e.dtype), e),
            unary_samples(-2.0, 3.0),
            NUMERIC,
        ),
    ]


def clamp_ref(a, min=None, max=None):
    if min is not None:
        a = np.maximum(a, min)
    if max is not None:
        a = np.minimum(a, max)
    return a


def clamp_entries():
    bounds = [{"min": 0, "max": 2}, {"min": 1}, {"max": 1}, {"min": 2, "max": 0}]
    scalar = with_kwargs(unary_samples(), bounds)
    tensor = ternary_samples()
    clamp_tensor = ops.clamp.Tensor
    out = [
        OpInfo("clamp", ops.clamp, clamp_ref, scalar, NUMERIC, differentiable=True),
        OpInfo(
            "clamp(float bounds)",
            lambda a: ops.clamp(a, -1.5, 0.5),
            lambda a: np.clip(a.astype(np.float64), -1.5, 0.5),
            unary_samples(),
            NUMERIC,
            differentiable=True,
            ref_dtype=to_float,
        ),
        OpInfo(
            "clamp.Tensor", clamp_tensor, lambda a, lo, hi: clamp_ref(a, lo, hi), tensor, NUMERIC, differentiable=True
        ),
        OpInfo(
            "clamp.Tensor(min only)",
            lambda a, lo, hi: clamp_tensor(a, min=lo),
            lambda a, lo, hi: clamp_ref(a, lo),
            tensor,
            NUMERIC,
            differentiable=True,
        ),
        OpInfo("clamp_", inplace(ops.clamp_), clamp_ref, scalar, NUMERIC),
        OpInfo("clamp_.Tensor", inplace(lambda a, lo, hi: ops.clamp_.Tensor(a, lo, hi)), clamp_ref, tensor, NUMERIC),
        OpInfo("clamp.out", lambda a, **kw: call_out(ops.clamp, a, **kw), clamp_ref, scalar, NUMERIC),
        OpInfo("clamp.Tensor_out", lambda a, lo, hi: call_out(ops.clamp, a, lo, hi), clamp_ref, tensor, NUMERIC),
    ]
    for side, ref in (("min", lambda a, b: np.maximum(a, b)), ("max", lambda a, b: np.minimum(a, b))):
        fn, fn_ = getattr(ops, "clamp_" + side), getattr(ops, "clamp_" + side + "_")
        out += [
            OpInfo(
                f"clamp_{side}",
                lambda a, fn=fn: fn(a, 1),
                lambda a, ref=ref: ref(a, np.asarray(1, a.dtype)),
                unary_samples(),
                NUMERIC,
                differentiable=True,
            ),
            OpInfo(f"clamp_{side}.Tensor", fn, ref, binary_samples(), NUMERIC, differentiable=True),
            OpInfo(
                f"clamp_{side}_",
                inplace(lambda a, fn_=fn_: fn_(a, 1)),
                lambda a, ref=ref: ref(a, np.asarray(1, a.dtype)),
                unary_samples(),
                NUMERIC,
            ),
            OpInfo(f"clamp_{side}_.Tensor", inplace(fn_), ref, inplace_samples(), NUMERIC),
        ]
    return out


def where_entries():
    def ref(c, a, b):
        return np.where(cond_ref(c), a, b)

    return [
        OpInfo(
            "where.self",
            lambda c, a, b: ops.where(cond(c), a, b),
            ref,
            where_samples(),
            ALL_DTYPES,
            differentiable=True,
        ),
        OpInfo("where.self_out", lambda c, a, b: call_out(ops.where, cond(c), a, b), ref, where_samples(), ALL_DTYPES),
        OpInfo(
            "where.ScalarOther",
            lambda c, a: ops.where(cond(c), a, 2),
            lambda c, a: np.where(cond_ref(c), a, 2),
            where_samples(scalars=1),
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "where.ScalarSelf",
            lambda c, b: ops.where(cond(c), 2, b),
            lambda c, b: np.where(cond_ref(c), 2, b),
            where_samples(scalars=1),
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "where.Scalar",
            lambda c: ops.where(cond(c), 1.5, -0.5),
            lambda c: np.where(cond_ref(c), 1.5, -0.5),
            where_samples(scalars=2),
            ("float32",),
            ref_dtype=lambda d: "float32",
        ),
    ]


COMPARISONS = [
    ("eq", np.equal),
    ("ne", np.not_equal),
    ("lt", np.less),
    ("le", np.less_equal),
    ("gt", np.greater),
    ("ge", np.greater_equal),
]


def comparison_entries():
    out = []
    for name, ref in COMPARISONS:
        fn, fn_ = getattr(ops, name), getattr(ops, name + "_")
        out += [
            OpInfo(f"{name}.Tensor", fn, ref, binary_samples(), ALL_DTYPES, ref_dtype=to_bool),
            OpInfo(
                f"{name}.Scalar",
                lambda a, fn=fn: fn(a, 1),
                lambda a, ref=ref: ref(a, 1),
                unary_samples(),
                ALL_DTYPES,
                ref_dtype=to_bool,
            ),
            OpInfo(
                f"{name}.Scalar(float)",
                lambda a, fn=fn: fn(a, 0.5),
                lambda a, ref=ref: ref(a, 0.5),
                unary_samples(),
                NUMERIC,
                ref_dtype=to_bool,
            ),
            OpInfo(
                f"{name}_.Tensor",
                inplace(fn_),
                lambda a, b, ref=ref: ref(a, b).astype(a.dtype),
                inplace_samples(),
                ALL_DTYPES,
            ),
            OpInfo(
                f"{name}_.Scalar",
                inplace(lambda a, fn_=fn_: fn_(a, 1)),
                lambda a, ref=ref: ref(a, 1).astype(a.dtype),
                unary_samples(),
                ALL_DTYPES,
            ),
            OpInfo(
                f"{name}.Tensor_out",
                lambda a, b, fn=fn: call_out(fn, a, b),
                ref,
                binary_samples(),
                ALL_DTYPES,
                ref_dtype=to_bool,
            ),
            OpInfo(
                f"{name}.Scalar_out",
                lambda a, fn=fn: call_out(fn, a, 1),
                lambda a, ref=ref: ref(a, 1),
                unary_samples(),
                ALL_DTYPES,
                ref_dtype=to_bool,
            ),
        ]
    return out


def logical_and_extrema_entries():
    out = []
    for name, ref in (("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)):
        fn, fn_ = getattr(ops, name), getattr(ops, name + "_")
        out += [
            OpInfo(name, fn, ref, binary_samples(), ALL_DTYPES, ref_dtype=to_bool),
            OpInfo(
                name + "_", inplace(fn_), lambda a, b, ref=ref: ref(a, b).astype(a.dtype), inplace_samples(), ALL_DTYPES
            ),
            OpInfo(
                name + ".out",
                lambda a, b, fn=fn: call_out(fn, a, b),
                ref,
                binary_samples(),
                ALL_DTYPES,
                ref_dtype=to_bool,
            ),
        ]
    for name, ref in (("maximum", np.maximum), ("minimum", np.minimum)):
        fn = getattr(ops, name)
        out += [
            OpInfo(name, fn, ref, binary_samples(), ALL_DTYPES, differentiable=True),
            OpInfo(name + ".out", lambda a, b, fn=fn: call_out(fn, a, b), ref, binary_samples(), ALL_DTYPES),
        ]
    # hypot: declared by one structured entry; its in-place and out= forms, Meta and autograd are derived.
    out += [
        OpInfo("hypot", ops.hypot, f64(np.hypot), binary_samples(), FLOATS, differentiable=True),
        OpInfo("hypot_", inplace(lambda a, b: a.hypot_(b)), f64(np.hypot), inplace_samples(), FLOATS),
        OpInfo("hypot.out", lambda a, b: call_out(ops.hypot, a, b), f64(np.hypot), binary_samples(), FLOATS),
    ]
    return out


def arithmetic_entries():
    divisors = nonzero_rhs(binary_samples())
    inplace_divisors = nonzero_rhs(inplace_samples())
    true_div = binary_samples(rhs_low=0.5, rhs_high=3.0)
    out = [
        OpInfo(
            "sub.Scalar",
            lambda a: ops.sub(a, 2),
            lambda a: a - np.asarray(2, a.dtype),
            unary_samples(),
            NUMERIC,
            differentiable=True,
        ),
        OpInfo(
            "sub.Scalar(alpha)",
            lambda a: ops.sub(a, 1.5, alpha=2),
            lambda a: a - 3.0,
            unary_samples(),
            FLOATS,
            differentiable=True,
        ),
        OpInfo(
            "div.Scalar",
            lambda a: ops.div(a, 4),
            f64(lambda a: a / 4),
            unary_samples(),
            NUMERIC + ("bool",),
            differentiable=True,
            ref_dtype=to_float,
        ),
        OpInfo(
            "div.Tensor_mode(None)",
            lambda a, b: ops.div(a, b, rounding_mode=None),
            f64(np.true_divide),
            true_div,
            FLOATS,
            differentiable=True,
        ),
        OpInfo(
            "div.Scalar_mode(floor)",
            lambda a: ops.div(a, 3, rounding_mode="floor"),
            lambda a: floor_divide(a, np.asarray(3, a.dtype)),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo(
            "div.Scalar_mode(trunc)",
            lambda a: ops.div(a, 3, rounding_mode="trunc"),
            lambda a: trunc_divide(a, np.asarray(3, a.dtype)),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo(
            "add_.Scalar",
            inplace(lambda a: ops.add_(a, 2)),
            lambda a: a + np.asarray(2, a.dtype),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo(
            "sub_.Tensor",
            inplace(lambda a, b: ops.sub_(a, b, alpha=2)),
            lambda a, b: a - 2 * b,
            inplace_samples(),
            NUMERIC,
        ),
        OpInfo(
            "sub_.Scalar",
            inplace(lambda a: ops.sub_(a, 1)),
            lambda a: a - np.asarray(1, a.dtype),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo("mul_.Tensor", inplace(ops.mul_), np.multiply, inplace_samples(), ALL_DTYPES),
        OpInfo(
            "mul_.Scalar",
            inplace(lambda a: ops.mul_(a, 3)),
            lambda a: a * np.asarray(3, a.dtype),
            unary_samples(),
            NUMERIC,
        ),
        OpInfo("div_.Tensor", inplace(ops.div_), np.true_divide, inplace_samples(rhs_low=0.5, rhs_high=3.0), FLOATS),
        OpInfo("div_.Scalar", inplace(lambda a: ops.div_(a, 4)), lambda a: a / 4, unary_samples(), FLOATS),
        OpInfo(
            "sub.out", lambda a, b: call_out(ops.sub, a, b, alpha=3), lambda a, b: a - 3 * b, binary_samples(), NUMERIC
        ),
        OpInfo("mul.out", lambda a, b: call_out(ops.mul, a, b), np.multiply, binary_samples(), ALL_DTYPES),
        OpInfo("div.out", lambda a, b: call_out(ops.div, a, b), np.true_divide, true_div, FLOATS),
        OpInfo(
            "div.out_mode(None)",
            lambda a, b: call_out(ops.div, a, b, rounding_mode=None),
            np.true_divide,
            true_div,
            FLOATS,
        ),
    ]
    for mode, ref in (("floor", floor_divide), ("trunc", trunc_divide)):
        out += [
            OpInfo(
                f"div.Tensor_mode({mode})", lambda a, b, m=mode: ops.div(a, b, rounding_mode=m), ref, divisors, NUMERIC
            ),
            OpInfo(
                f"div_.Tensor_mode({mode})",
                inplace(lambda a, b, m=mode: ops.div_(a, b, rounding_mode=m)),
                ref,
                inplace_divisors,
                NUMERIC,
            ),
            OpInfo(
                f"div_.Scalar_mode({mode})",
                inplace(lambda a, m=mode: ops.div_(a, 3, rounding_mode=m)),
                lambda a, ref=ref: ref(a, np.asarray(3, a.dtype)),
                unary_samples(),
                NUMERIC,
            ),
            OpInfo(
                f"div.out_mode({mode})",
                lambda a, b, m=mode: call_out(ops.div, a, b, rounding_mode=m),
                ref,
                divisors,
                NUMERIC,
            ),
        ]
    return out


def gradient_entries():
    samples = binary_samples()
    return [
        OpInfo("sigmoid_backward", ops.sigmoid_backward, lambda g, y: g * y * (1 - y), samples, FLOATS),
        OpInfo("tanh_backward", ops.tanh_backward, lambda g, y: g * (1 - y * y), samples, FLOATS),
        OpInfo(
            "silu_backward",
            ops.silu_backward,
            lambda g, x: g * sigmoid_ref(x) * (1 + x * (1 - sigmoid_ref(x))),
            samples,
            FLOATS,
        ),
        OpInfo("gelu_backward", ops.gelu_backward, gelu_backward_ref, samples, FLOATS),
        OpInfo(
            "gelu_backward(tanh)",
            lambda g, x: ops.gelu_backward(g, x, approximate="tanh"),
            lambda g, x: gelu_backward_ref(g, x, "tanh"),
            samples,
            FLOATS,
        ),
        OpInfo(
            "threshold_backward",
            lambda g, x: ops.threshold_backward(g, x, 0.5),
            lambda g, x: np.where(x <= 0.5, np.zeros_like(g), g),
            samples,
            NUMERIC,
        ),
    ]


OPS = [
    *unary_entries(),
    *pow_entries(),
    *clamp_entries(),
    *where_entries(),
    *comparison_entries(),
    *logical_and_extrema_entries(),
    *arithmetic_entries(),
    *gradient_entries(),
]
