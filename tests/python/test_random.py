"""The random operators from Python: seeding, reproducibility, ranges and moments, dtypes, the
Meta device, and errors. Values come through gb.ops.glassbox.<op>; gb._C.manual_seed seeds."""

import numpy as np
import pytest

import glassbox as gb

ops = gb.ops.glassbox
seed = gb._C.manual_seed


def values(t):
    if t.dtype in (gb.float16, gb.bfloat16):
        t = ops.to(t, gb.float64)
    return t.numpy().copy()


def test_same_seed_same_numbers():
    seed(2024)
    first = [values(ops.rand([100])), values(ops.randn([7, 3])), values(ops.randint(0, 9, [50]))]
    seed(2024)
    again = [values(ops.rand([100])), values(ops.randn([7, 3])), values(ops.randint(0, 9, [50]))]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    seed(2025)
    assert not np.array_equal(values(ops.rand([100])), first[0])
    assert gb._C.initial_seed() == 2025
    seed(-1)  # any Python int, as torch.manual_seed takes
    assert gb._C.initial_seed() == 2**64 - 1


def test_consecutive_calls_differ_and_seed_picks_a_new_stream():
    seed(5)
    a, b = values(ops.rand([64])), values(ops.rand([64]))
    assert not np.array_equal(a, b)
    s = gb._C.seed()
    assert gb._C.initial_seed() == s


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rand_and_randn_dtypes_ranges_and_moments(dtype):
    seed(1)
    u = ops.rand([40000], dtype=getattr(gb, dtype))
    assert u.dtype == getattr(gb, dtype) and u.shape == (40000,)
    v = values(u)
    assert v.min() >= 0.0 and v.max() < 1.0
    assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.005
    n = values(ops.randn([40000], dtype=getattr(gb, dtype)))
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1.0) < 0.03


def test_in_place_fills():
    seed(9)
    t = ops.empty([20000], dtype=gb.float64)
    v = values(ops.uniform_(t, -2.0, 3.0))
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.05
    v = values(ops.normal_(t, 10.0, 0.5))
    assert abs(v.mean() - 10.0) < 0.02 and abs(v.std() - 0.5) < 0.02
    b = values(ops.bernoulli_(ops.empty([20000], dtype=gb.uint8), 0.1))
    assert set(np.unique(b)) <= {0, 1} and abs(b.mean() - 0.1) < 0.01
    r = values(ops.random_(ops.empty([5000], dtype=gb.int16), -4, 4))
    assert set(np.unique(r)) == set(range(-4, 4))


def test_randint_and_bernoulli_of_probabilities():
    seed(3)
    r = ops.randint(6, [3, 1000])
    assert r.dtype == gb.int64 and r.shape == (3, 1000)
    assert set(np.unique(values(r))) == set(range(6))
    assert ops.randint(-5, 5, [4], dtype=gb.int8).dtype == gb.int8
    p = gb.from_numpy(np.array([0.0, 1.0] * 500))
    drawn = values(ops.bernoulli(p))
    np.testing.assert_array_equal(drawn, np.array([0.0, 1.0] * 500))


def test_dropout():
    seed(4)
    x = ops.full([10000], 3.0)
    np.testing.assert_array_equal(values(ops.dropout(x, 0.4, False)), values(x))
    d = values(ops.dropout(x, 0.4, True))
    kept = d != 0
    assert abs(kept.mean() - 0.6) < 0.02
    np.testing.assert_allclose(d[kept], 3.0 / 0.6, rtol=1e-6)
    np.testing.assert_array_equal(values(ops.dropout(x, 1.0, True)), np.zeros(10000))


def test_meta_device_has_shapes_only():
    m = ops.rand([2, 5], device="meta")
    assert m.shape == (2, 5) and m.dtype == gb.float32 and m.device == "meta"
    assert ops.randint(3, [4], device="meta").dtype == gb.int64


def test_errors():
    with pytest.raises(NotImplementedError, match="rand: expected a floating-point dtype, but got int32"):
        ops.rand([2], dtype=gb.int32)
    with pytest.raises(RuntimeError, match=r"normal_: expects a finite std >= 0, but got std=-2"):
        ops.normal_(ops.empty([2]), 0.0, -2.0)
    with pytest.raises(RuntimeError, match=r"randint: the range \[0, 300\) does not fit in uint8"):
        ops.randint(300, [2], dtype=gb.uint8)
    with pytest.raises(RuntimeError, match=r"dropout: the probability must be in \[0, 1\], but got p=-0.5"):
        ops.dropout(ops.ones([2]), -0.5, True)
    with pytest.raises(RuntimeError, match=r"bernoulli_: the probability must be in \[0, 1\]"):
        ops.bernoulli_(ops.empty([2]), 2.0)
