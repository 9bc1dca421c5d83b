"""Conversions and dtype conveniences as PyTorch spells them: .float() .long() ... .type(dtype),
view(dtype), the dtype aliases (gb.float, gb.long, ...), .T and .mT, .element_size(), the *_like
factories, clip, allclose, equal and where(condition) with one argument."""

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, on_device, to_numpy

VALUES = np.array([[1.75, -2.5, 0.0], [3.25, -0.5, 7.0]])

CONVERSIONS = [
    ("float", "float32"),
    ("double", "float64"),
    ("half", "float16"),
    ("bfloat16", "bfloat16"),
    ("int", "int32"),
    ("long", "int64"),
    ("short", "int16"),
    ("char", "int8"),
    ("byte", "uint8"),
    ("bool", "bool"),
]


def tensor(values=VALUES, dtype=None):
    t = gb.from_numpy(np.array(values))  # a copy: in-place tests must not change VALUES
    return on_device(t if dtype is None else t.to(dtype))


@pytest.mark.parametrize("method,dtype", CONVERSIONS)
def test_conversion_methods(method, dtype):
    t = tensor()
    got = getattr(t, method)()
    assert str(got.dtype) == f"glassbox.{dtype}"
    assert got.shape == t.shape
    want = t.to(getattr(gb, dtype))
    np.testing.assert_array_equal(to_numpy(got.double() if dtype == "bfloat16" else got), to_numpy(want.double()))


def test_conversion_to_the_same_dtype_is_self():
    t = tensor(dtype=gb.float32)
    assert t.float().data_ptr() == t.data_ptr()


def test_type():
    t = tensor(dtype=gb.float32)
    prefix = "glassbox.cuda." if DEVICE.startswith("cuda") else "glassbox."
    assert t.type() == prefix + "FloatTensor"
    assert t.type(gb.int64).dtype == gb.int64
    assert t.type("torch.DoubleTensor").dtype == gb.float64
    with pytest.raises(ValueError):
        t.type("glassbox.NoSuchTensor")


def test_dtype_aliases():
    assert (gb.float, gb.double, gb.half) == (gb.float32, gb.float64, gb.float16)
    assert (gb.int, gb.long, gb.short) == (gb.int32, gb.int64, gb.int16)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8", "bool"])
def test_element_size(dtype):
    assert (
        tensor(dtype=getattr(gb, dtype)).element_size() == np.dtype("float16" if dtype == "float16" else dtype).itemsize
    )


def test_T_and_mT():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = tensor(a)
    assert np.array_equal(to_numpy(t.T), a.T)
    assert np.array_equal(to_numpy(t.mT), a.swapaxes(-1, -2))
    assert np.array_equal(to_numpy(tensor(a[0]).T), a[0].T)
    assert t.T.data_ptr() == t.data_ptr()  # views


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "int8"), ("int8", "int32"), ("int64", "float64")])
def test_view_dtype_reads_the_same_bytes(src, dst):
    a = np.arange(24, dtype=src).reshape(2, 12)
    t = gb.from_numpy(a)
    v = t.view(getattr(gb, dst))
    want = a.view(dst)
    assert tuple(v.shape) == want.shape
    assert str(v.dtype) == f"glassbox.{dst}"
    np.testing.assert_array_equal(np.asarray(v), want)
    assert v.data_ptr() == t.data_ptr()


def test_view_dtype_of_a_column_slice_rescales_strides():
    a = np.arange(24, dtype=np.int8).reshape(3, 8)
    t = gb.from_numpy(a)[:, 4:]
    np.testing.assert_array_equal(np.asarray(t.view(gb.int32)), a[:, 4:].copy().view(np.int32))


@pytest.mark.parametrize("name", ["empty_like", "full_like", "rand_like", "randn_like"])
def test_like_factories(name):
    t = tensor(dtype=gb.float64)
    args = (t, 2.5) if name == "full_like" else (t,)
    got = getattr(gb, name)(*args)
    assert got.shape == t.shape and got.dtype == t.dtype and got.device == t.device
    other = getattr(gb, name)(*args, dtype=gb.float32)
    assert other.dtype == gb.float32
    if name == "full_like":
        np.testing.assert_array_equal(to_numpy(got), np.full(VALUES.shape, 2.5))
    if name == "rand_like":
        values = to_numpy(got)
        assert ((values >= 0) & (values < 1)).all()


def test_clip_is_clamp():
    t = tensor()
    np.testing.assert_array_equal(to_numpy(gb.clip(t, -1.0, 2.0)), np.clip(VALUES, -1.0, 2.0))
    np.testing.assert_array_equal(to_numpy(t.clip(max=0.5)), np.minimum(VALUES, 0.5))
    t.clip_(0.0, 1.0)
    np.testing.assert_array_equal(to_numpy(t), np.clip(VALUES, 0.0, 1.0))


def test_allclose_and_equal():
    t = tensor()
    assert gb.allclose(t, t + 1e-9) is True
    assert gb.allclose(t, t + 1e-3) is False
    assert t.allclose(t + 1e-3, atol=1e-2)
    assert gb.equal(t, tensor()) is True
    assert gb.equal(t, tensor(VALUES.astype(np.int64))) is False
    assert gb.equal(tensor(VALUES.astype(np.int64)), tensor(VALUES.astype(np.int64)).double())
    assert gb.equal(t, tensor(VALUES[:1])) is False  # another shape


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 2), (0, 3)])
def test_where_with_one_argument_gives_nonzero_indices(shape):
    rng = np.random.default_rng(7)
    c = rng.integers(-1, 2, size=shape)
    got = gb.where(tensor(c))
    want = np.nonzero(np.atleast_1d(c))
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == gb.int64
        np.testing.assert_array_equal(to_numpy(g), w)
