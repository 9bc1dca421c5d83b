"""Python's integer operators on tensors: & | ^ ~ are bitwise on integers (logical on bool), << >>
shift, % is the remainder with the divisor's sign and // floor division; each with its reflected
and in-place form and with Python numbers as operands. NumPy's operators are the reference (they
follow the same rules); where PyTorch is installed, the same expressions are also run on it and
must give the same dtypes and values."""

import operator

import numpy as np
import pytest

import glassbox as gb

A = np.array([5, -6, 7, 0, -128, 127], dtype=np.int64)
B = np.array([3, 2, -1, 5, -3, 4], dtype=np.int64)
FLAGS = np.array([True, False, True, True, False, False])

BINARY = {
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "%": operator.mod,
    "//": operator.floordiv,
}
IN_PLACE = {
    "&": operator.iand,
    "|": operator.ior,
    "^": operator.ixor,
    "<<": operator.ilshift,
    ">>": operator.irshift,
    "%": operator.imod,
    "//": operator.ifloordiv,
}


def as_numpy(t):
    return np.asarray(t)


def operands(symbol):
    """Right-hand sides the operator accepts for int64 tensors (shift counts kept in [0, 63])."""
    rhs = np.abs(B) if symbol in ("<<", ">>") else B
    return rhs


@pytest.mark.parametrize("symbol", list(BINARY))
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8"])
def test_tensor_with_tensor(symbol, dtype):
    a, b = A.astype(dtype), operands(symbol).astype(dtype)
    got = BINARY[symbol](gb.tensor(a), gb.tensor(b))
    want = BINARY[symbol](a, b)
    assert str(got.dtype) == f"glassbox.{dtype}"
    np.testing.assert_array_equal(as_numpy(got), want)


@pytest.mark.parametrize("symbol", list(BINARY))
def test_tensor_with_number_and_reflected(symbol):
    a = gb.tensor(A)
    number = 3
    np.testing.assert_array_equal(as_numpy(BINARY[symbol](a, number)), BINARY[symbol](A, number))
    divisor = np.where(A == 0, 1, A) if symbol in ("%", "//") else np.abs(A) % 8
    got = BINARY[symbol](number, gb.tensor(divisor))
    assert got.dtype == gb.int64
    np.testing.assert_array_equal(as_numpy(got), BINARY[symbol](number, divisor))


@pytest.mark.parametrize("symbol", list(IN_PLACE))
def test_in_place_writes_self(symbol):
    a = gb.tensor(A)
    before = a.data_ptr()
    b = operands(symbol)
    result = IN_PLACE[symbol](a, gb.tensor(b))
    assert result is a or result.data_ptr() == before
    np.testing.assert_array_equal(as_numpy(a), BINARY[symbol](A, b))
    c = gb.tensor(A)
    IN_PLACE[symbol](c, 2)
    np.testing.assert_array_equal(as_numpy(c), BINARY[symbol](A, 2))


def test_the_silent_wrong_answer_is_gone():
    x = gb.tensor([5, 6, 7])
    got = x & x
    assert got.dtype == gb.int64
    np.testing.assert_array_equal(as_numpy(got), np.array([5, 6, 7]) & np.array([5, 6, 7]))


@pytest.mark.parametrize("symbol", ["&", "|", "^"])
def test_bool_stays_logical_and_mixes_with_integers(symbol):
    fn = BINARY[symbol]
    flags = gb.tensor(FLAGS)
    both = fn(flags, gb.tensor(~FLAGS))
    assert both.dtype == gb.bool
    np.testing.assert_array_equal(as_numpy(both), fn(FLAGS, ~FLAGS))
    mixed = fn(gb.tensor(A), flags)
    assert mixed.dtype == gb.int64
    np.testing.assert_array_equal(as_numpy(mixed), fn(A, FLAGS))
    with_true = fn(flags, True)
    assert with_true.dtype == gb.bool
    np.testing.assert_array_equal(as_numpy(with_true), fn(FLAGS, True))


def test_invert():
    np.testing.assert_array_equal(as_numpy(~gb.tensor(A)), ~A)
    np.testing.assert_array_equal(as_numpy(~gb.tensor(FLAGS)), ~FLAGS)
    np.testing.assert_array_equal(as_numpy(~gb.tensor(A.astype(np.uint8))), ~A.astype(np.uint8))
    with pytest.raises(TypeError):
        ~gb.ones(2)


def test_bool_shifted_by_a_number_promotes():
    got = gb.tensor(FLAGS) << 1
    assert got.dtype == gb.int64
    np.testing.assert_array_equal(as_numpy(got), FLAGS.astype(np.int64) << 1)


def test_float_remainder_and_floor_division_follow_python():
    x = np.array([5.5, -6.5, 7.0, -7.5])
    y = np.array([2.0, -2.0, -3.0, 2.0])
    np.testing.assert_allclose(as_numpy(gb.tensor(x) % gb.tensor(y)), np.remainder(x, y))
    np.testing.assert_allclose(as_numpy(gb.tensor(x) // gb.tensor(y)), np.floor_divide(x, y))
    np.testing.assert_allclose(as_numpy(7.5 % gb.tensor(y)), np.remainder(7.5, y))
    np.testing.assert_allclose(as_numpy(gb.tensor(A) % 2.5), np.remainder(A, 2.5))


def test_in_place_arithmetic_keeps_the_tensor():
    a = gb.ones(3)
    ptr = a.data_ptr()
    a -= 1
    a *= 2
    a /= 4
    assert a.data_ptr() == ptr


# ---- the same expressions on PyTorch
EXPRESSIONS = [
    ("a & b", lambda m, a, b, f: a & b),
    ("a | f", lambda m, a, b, f: a | f),
    ("f ^ True", lambda m, a, b, f: f ^ True),
    ("~a", lambda m, a, b, f: ~a),
    ("~f", lambda m, a, b, f: ~f),
    ("a << |b|", lambda m, a, b, f: a << b.abs()),
    ("a >> |b|", lambda m, a, b, f: a >> b.abs()),
    ("a << 70", lambda m, a, b, f: a << 70),
    ("a >> 70", lambda m, a, b, f: a >> 70),
    ("2 << |b|", lambda m, a, b, f: 2 << b.abs()),
    ("f << 1", lambda m, a, b, f: f << 1),
    ("a % b", lambda m, a, b, f: a % b),
    ("a // b", lambda m, a, b, f: a // b),
    ("7 % b", lambda m, a, b, f: 7 % b),
    ("-7 // b", lambda m, a, b, f: -7 // b),
    ("a % -3", lambda m, a, b, f: a % -3),
    ("a % 2.5", lambda m, a, b, f: a % 2.5),
    ("int8 a >> 9", lambda m, a, b, f: a.to(m.int8) >> 9),
    ("uint8 a << 9", lambda m, a, b, f: a.abs().to(m.uint8) << 9),
    ("fmod(a, b)", lambda m, a, b, f: m.fmod(a, b)),
    ("remainder(a, b)", lambda m, a, b, f: m.remainder(a, b)),
    ("bitwise_xor(a, f)", lambda m, a, b, f: m.bitwise_xor(a, f)),
]


@pytest.mark.parametrize("what,expr", EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_matches_pytorch(what, expr):
    torch = pytest.importorskip("torch")
    ours = expr(gb, gb.tensor(A), gb.tensor(B), gb.tensor(FLAGS))
    theirs = expr(torch, torch.tensor(A), torch.tensor(B), torch.tensor(FLAGS))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], what
    np.testing.assert_array_equal(as_numpy(ours), theirs.numpy(), err_msg=what)
