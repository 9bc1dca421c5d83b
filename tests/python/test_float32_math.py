"""float32 transcendentals (exp, expm1, log, log1p, sin, cos, tanh, sigmoid, silu, gelu) against
NumPy in float64 over the whole float range: every bit pattern class (subnormals, huge values,
infinities, NaNs, signed zeros), contiguous, strided and in-place. The kernels compute these with
their own vectorised code, so the reference is NumPy's float64, not the C library's float32."""

import math

import numpy as np
import pytest

import glassbox as gb

ops = gb.ops.glassbox

TINY = np.float32(1.401298464324817e-45)  # the smallest subnormal
SPECIALS = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        TINY,
        -TINY,
        1.1754942e-38,
        -1.1754942e-38,
        1.17549435e-38,
        3.4028235e38,
        -3.4028235e38,
        1.0,
        -1.0,
        0.5,
        88.72283,
        88.7229,
        -87.33655,
        -103.97,
        -104.0,
        9.1,
        -9.1,
        1e6,
        -1e6,
        1.000001e6,
        823549.6,
        3.1415927,
        1.5707964,
    ],
    dtype=np.float32,
)


def every_kind_of_float(n=200_000, seed=0):
    """Random bit patterns (uniform over the float range, NaN payloads included), moderate values,
    and the special values."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    moderate = rng.uniform(-120, 120, n).astype(np.float32)
    small = (rng.uniform(-1, 1, n // 4) * 10.0 ** rng.uniform(-45, 0, n // 4)).astype(np.float32)
    return np.concatenate([SPECIALS, bits, moderate, small, SPECIALS])


def sigmoid64(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


_erfc = np.vectorize(math.erfc, otypes=[np.float64])
K = math.sqrt(2 / math.pi)

# name, glassbox call, float64 reference, relative tolerance (a few units of 2^-24)
CASES = [
    ("exp", ops.exp, np.exp, 2.4e-7),
    ("expm1", ops.expm1, np.expm1, 2.4e-7),
    ("log", ops.log, np.log, 2.4e-7),
    ("log1p", ops.log1p, np.log1p, 3.6e-7),
    ("sin", ops.sin, np.sin, 2.4e-7),
    ("cos", ops.cos, np.cos, 2.4e-7),
    ("tanh", ops.tanh, np.tanh, 3.6e-7),
    ("sigmoid", ops.sigmoid, sigmoid64, 3.6e-7),
    ("silu", ops.silu, lambda x: x * sigmoid64(x), 4.8e-7),
    ("gelu(none)", lambda t: ops.gelu(t, approximate="none"), lambda x: x * 0.5 * _erfc(-x / math.sqrt(2)), 1.2e-6),
    # (1 + tanh(u)) / 2 written as sigmoid(2u): the reference must not cancel either.
    (
        "gelu(tanh)",
        lambda t: ops.gelu(t, approximate="tanh"),
        lambda x: x * sigmoid64(2 * K * (x + 0.044715 * x**3)),
        3.6e-7,
    ),
]


def condition(name, x):
    """How much the float32 rounding of intermediate arguments is amplified: gelu(tanh) forms
    u = 2k (x + 0.044715 x^3) in float32, and sigmoid(u) for u << 0 has relative error |u| times
    u's. 1 for the others."""
    if name.startswith("gelu(tanh)"):
        return 1 + np.abs(2 * K * (x + 0.044715 * x.astype(np.float64) ** 3))
    return 1.0


def check(name, got, x, ref, rtol):
    assert got.dtype == np.float32 and got.shape == x.shape, name
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
        rounded = want.astype(np.float32)
    bad_nan = np.isnan(got) != np.isnan(want)
    assert not bad_nan.any(), (
        f"{name}: NaN mismatch at x={x[bad_nan][:5]}: got {got[bad_nan][:5]}, want {want[bad_nan][:5]}"
    )
    inf = np.isinf(rounded) | np.isinf(got)
    # An infinite result exactly where the float32 result overflows (or is an infinity).
    assert np.array_equal(got[inf], rounded[inf]), (
        f"{name}: infinities differ at x={x[inf][got[inf] != rounded[inf]][:5]}"
    )
    finite = ~np.isnan(want) & ~inf
    err = np.abs(got[finite].astype(np.float64) - want[finite])
    # Absolute slack of a few subnormal steps, times |x| for silu and gelu: x * sigmoid(x) and
    # x * Phi(x) round their second factor into the subnormals before multiplying (x < -87).
    xf = x[finite].astype(np.float64)
    bound = rtol * condition(name, xf) * np.abs(want[finite]) + (3 + np.abs(xf)) * float(TINY)
    worst = np.argmax(err - bound)
    assert (err <= bound).all(), (
        f"{name}: x={x[finite][worst]!r} got {got[finite][worst]!r} want {want[finite][worst]!r}"
    )
    # Odd functions keep the sign of zero.
    zeros = (x == 0) & np.isfinite(x)
    if name in ("expm1", "log1p", "sin", "tanh"):
        assert np.array_equal(np.signbit(got[zeros]), np.signbit(x[zeros])), f"{name}: sign of zero"


@pytest.mark.parametrize("name,op,ref,rtol", CASES, ids=[c[0] for c in CASES])
def test_matches_float64_numpy_over_the_float_range(name, op, ref, rtol):
    x = every_kind_of_float()
    check(name, op(gb.from_numpy(x)).numpy(), x, ref, rtol)
    # Strided input (the element-by-element loop) and in-place (the vectorised loop writing its input).
    check(name + " strided", op(gb.from_numpy(x)[::3]).numpy(), x[::3], ref, rtol)
    if name in ("exp", "log", "sin", "cos", "tanh", "sigmoid"):
        t = gb.from_numpy(x.copy())
        getattr(ops, name + "_")(t)
        check(name + " in-place", t.numpy(), x, ref, rtol)


def test_sin_cos_tiles_mixing_huge_and_ordinary_arguments():
    # One huge argument in a run of ordinary ones sends its tile to the exact path; the rest of
    # the run stays vectorised. Both must give the same values as each alone.
    x = np.random.default_rng(1).uniform(-50, 50, 5000).astype(np.float32)
    x[777] = 3.0e30
    x[4000] = -np.inf
    for name, op, ref in (("sin", ops.sin, np.sin), ("cos", ops.cos, np.cos)):
        check(name, op(gb.from_numpy(x)).numpy(), x, ref, 2.4e-7)


@pytest.mark.parametrize("name,op,ref,rtol", CASES, ids=[c[0] for c in CASES])
def test_every_loop_gives_the_same_bits(name, op, ref, rtol):
    # The contiguous loop runs a vectorised copy (AVX2 or AVX-512 by CPU, from 64 elements); a
    # strided view and short runs go element by element. Where a run is split depends on the
    # thread count, so all of them must agree exactly.
    x = every_kind_of_float(20_000, seed=2)
    whole = op(gb.from_numpy(x)).numpy()
    strided = op(gb.from_numpy(np.repeat(x, 2))[::2]).numpy()
    pieces = np.concatenate([op(gb.from_numpy(x[i : i + 37])).numpy() for i in range(0, x.size, 37)])
    for other in (strided, pieces):
        same = (whole.view(np.uint32) == other.view(np.uint32)) | (np.isnan(whole) & np.isnan(other))
        assert same.all(), f"{name}: x={x[~same][:3]} gives {whole[~same][:3]} and {other[~same][:3]}"


def _pdf(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _gelu_tanh_parts(x):
    t = np.tanh(K * (x + 0.044715 * x**3))
    return 0.5 * (1 + t), 0.5 * x * (1 - t * t) * K * (1 + 3 * 0.044715 * x * x)


# Gradient formulas computed with the same vectorised code, f(grad, self): the reference's terms,
# whose sizes bound the cancellation between them (cdf(x) + x pdf(x) for x << 0).
GRAD_CASES = [
    ("silu_backward", ops.silu_backward, lambda x: (sigmoid64(x), x * sigmoid64(x) * (1 - sigmoid64(x)))),
    (
        "gelu_backward(none)",
        lambda g, t: ops.gelu_backward(g, t, approximate="none"),
        lambda x: (0.5 * _erfc(-x / math.sqrt(2)), x * _pdf(x)),
    ),
    ("gelu_backward(tanh)", lambda g, t: ops.gelu_backward(g, t, approximate="tanh"), _gelu_tanh_parts),
]


@pytest.mark.parametrize("name,op,parts", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradient_formulas_match_float64_numpy(name, op, parts):
    rng = np.random.default_rng(3)
    x = np.concatenate([SPECIALS, rng.uniform(-30, 30, 50_000), rng.standard_normal(50_000)]).astype(np.float32)
    g = rng.uniform(-2, 2, x.size).astype(np.float32)
    got = op(gb.from_numpy(g), gb.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):
        a, b = parts(x.astype(np.float64))
        want = g * (a + b)
    finite = np.isfinite(want) & (np.abs(x) < 1e5)
    assert not np.isnan(got[finite]).any(), name
    err = np.abs(got[finite] - want[finite])
    xf = x[finite].astype(np.float64)
    bound = 2e-6 * np.abs(g[finite]) * (np.abs(a[finite]) + np.abs(b[finite])) * condition(name, xf)
    if name.endswith("(tanh)"):
        # t = tanh(u) near +-1 is rounded to a unit of 2^-24, and the formula is 18x as sensitive to t
        # as |x| reaches 5 (the same holds for any float32 evaluation of it).
        bound += 2 * 6e-8 * np.abs(g[finite]) * (0.5 + np.abs(xf) * K * (1 + 3 * 0.044715 * xf * xf))
    bound += 1e-30
    worst = np.argmax(err - bound)
    assert (err <= bound).all(), (
        f"{name}: x={x[finite][worst]!r} got {got[finite][worst]!r} want {want[finite][worst]!r}"
    )
    # the element-by-element loop (strided) gives the same bits as the vectorised one
    strided = op(gb.from_numpy(np.repeat(g, 2))[::2], gb.from_numpy(np.repeat(x, 2))[::2]).numpy()
    same = (strided.view(np.uint32) == got.view(np.uint32)) | (np.isnan(strided) & np.isnan(got))
    assert same.all(), name
