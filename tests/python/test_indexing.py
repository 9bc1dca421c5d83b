"""Tensor.__getitem__ / __setitem__ against NumPy's indexing: integers, slices with steps, None,
Ellipsis, bools, bool masks, integer tensors and lists, for reading and writing. Basic indexing
gives views that share memory; advanced indexing gives copies."""

import numpy as np
import pytest

import glassbox as gb

ops = gb.ops.glassbox


class _Key:
    def __getitem__(self, key):
        return key


K = _Key()  # K[1, ::2] is the key (1, slice(None, None, 2))
SHAPE = (4, 5, 6)

BASIC = [
    K[0],
    K[-1],
    K[1:3],
    K[::2],
    K[1::3],
    K[:, 2],
    K[..., 1],
    K[None],
    K[:, None, 1],
    K[..., None],
    K[1, ..., 2:4],
    K[-3:-1, ::4, 5],
    K[()],
    K[...],
    K[10:],
    K[2:1],
    K[:, -2:, ::5],
    K[None, 1, None, :, 3],
    K[3, 4, 5],
    K[-4:100, 1:-1:2],
]
ADVANCED = [
    K[[0, 2]],
    K[[[0], [3]], [1, 2]],
    K[:, [1, 0, 4]],
    K[[0, 1], :, [2, 3]],
    K[..., [5, -1]],
    K[np.array([3, 0, 3])],
    K[[-1, 0], [4, 4], [5, 0]],
    K[:, [[1, 2], [3, 4]], 1:4],
    K[[True, False, True, True]],
    K[:, np.arange(30).reshape(5, 6) % 3 == 0],
    K[np.arange(20).reshape(4, 5) % 3 == 0],
    K[1:3, [True, False, True, False, True]],
    K[None, [1, 2]],
    K[[]],
    K[..., np.array([1, 2], np.int32)],
    K[np.zeros(SHAPE, bool)],
    K[True],
    K[0, False],
    K[2, np.array(True)],
]


def pair(dtype="float32"):
    x = (np.arange(np.prod(SHAPE)) % 17).reshape(SHAPE).astype(dtype)
    return x, gb.tensor(x)


def scalar_tensor(value):
    """A 0-d tensor (gb.tensor turns a 0-d array into shape (1,))."""
    return ops.clone(gb.from_numpy(np.array(value)))


def as_tensors(key):
    """The same key with its lists and arrays as glassbox tensors."""

    def one(k):
        if isinstance(k, (list, np.ndarray)):
            if np.ndim(k) == 0:
                return scalar_tensor(k)
            return gb.tensor(np.asarray(k, dtype=np.int64) if np.asarray(k).size == 0 else k)
        return k

    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


def ids(keys):
    return [repr(k).replace(" ", "")[:60] for k in keys]


@pytest.mark.parametrize("key", BASIC + ADVANCED, ids=ids(BASIC + ADVANCED))
@pytest.mark.parametrize("tensors", [False, True], ids=["lists", "tensors"])
def test_read_matches_numpy(key, tensors):
    x, t = pair()
    got = t[as_tensors(key) if tensors else key]
    want = x[key]
    assert got.shape == want.shape
    assert got.dtype == gb.float32
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float16", "uint8"])
def test_read_other_dtypes(dtype):
    x, t = pair(dtype)
    for key in [K[1, ::2], K[[0, 3], :, [1, 1]], K[x.sum(axis=2) > 3 if dtype != "bool" else x[:, :, 0]]]:
        np.testing.assert_array_equal(t[key].numpy(), x[key])


@pytest.mark.parametrize("key", BASIC, ids=ids(BASIC))
def test_basic_indexing_gives_views(key):
    x, t = pair()
    view = t[key]
    ops.fill_(view, -1.0)  # writes through the view reach the tensor
    expected = x.copy()
    expected[key] = -1.0
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("key", ADVANCED, ids=ids(ADVANCED))
def test_advanced_indexing_copies(key):
    x, t = pair()
    ops.fill_(t[key], -1.0)
    np.testing.assert_array_equal(t.numpy(), x)


@pytest.mark.parametrize("key", BASIC + ADVANCED, ids=ids(BASIC + ADVANCED))
def test_write_matches_numpy(key):
    rng = np.random.default_rng(0)
    shape = np.zeros(SHAPE)[key].shape
    for value in [
        7.5,
        rng.standard_normal(shape).astype(np.float32),
        rng.standard_normal(shape[-1:]).astype(np.float32),
    ]:
        x, t = pair()
        x[key] = value
        t[key] = gb.tensor(value) if isinstance(value, np.ndarray) else value
        np.testing.assert_array_equal(t.numpy(), x, err_msg=f"value {value!r}")


def test_write_values_of_other_kinds():
    x, t = pair("int64")
    t[0, [1, 2], 0] = [5, 6]  # a list
    t[1] = np.full((5, 6), 3)  # a NumPy array
    t[2, :, 0] = 2.9  # a float into an int tensor truncates
    x[0, [1, 2], 0] = [5, 6]
    x[1] = 3
    x[2, :, 0] = 2
    t[gb.tensor(x > 15)] = 0  # a bool mask and an int
    t[3, 0] = gb.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])  # another dtype is converted
    x[x > 15] = 0
    x[3, 0] = np.arange(1, 7)
    np.testing.assert_array_equal(t.numpy(), x)
    b = gb.tensor([True, False, True])
    b[[0, 1]] = True
    assert b.tolist() == [True, True, True]


def test_integer_and_advanced_index_apart_follow_pytorch():
    # NumPy moves the broadcast dims to the front when an integer and an array are split by a slice;
    # PyTorch (and glassbox) apply the integer first, as a view, so idx's dim stays last.
    x, t = pair()
    got = t[0, :, [1, 2]]
    assert got.shape == (5, 2)
    np.testing.assert_array_equal(got.numpy(), x[0][:, [1, 2]])


def test_numpy_scalars_and_tensor_scalars_as_indices():
    x, t = pair()
    np.testing.assert_array_equal(t[np.int64(2), np.int32(1)].numpy(), x[2, 1])
    np.testing.assert_array_equal(t[scalar_tensor(3)].numpy(), x[3])
    np.testing.assert_array_equal(t[scalar_tensor(True)].numpy(), x[None])


def test_errors():
    _, t = pair()
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        t[4]
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 5"):
        t[:, [0, 9]]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., 0, ...]
    with pytest.raises(ValueError, match="step must be positive"):
        t[::-1]
    with pytest.raises(TypeError, match="valid indices"):
        t["a"]
    with pytest.raises(IndexError, match="must be int64, int32, bool or uint8"):
        t[gb.tensor([0.5])]
    with pytest.raises(IndexError, match="could not be broadcast"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        t[[0, 1]] = gb.tensor(np.zeros((3, 5, 6), np.float32))


def test_index_ops_take_python_lists_with_none():
    x, t = pair()
    got = gb.ops.glassbox.index(t, [None, gb.tensor([1, 3])])
    np.testing.assert_array_equal(got.numpy(), x[:, [1, 3]])
