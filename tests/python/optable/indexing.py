"""index, index_put, gather, scatter, scatter_add, index_select, index_add, masked_fill, masked_select,
one_hot, embedding and embedding_dense_backward.

Index tensors travel as `Index` objects, not arrays: the table turns every array of a sample into a
tensor of the sample's dtype, and an index keeps its own (int64, int32 or bool).
"""

import numpy as np

import glassbox as gb
from devices import on_device

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, make_array, non_contiguous

ops = gb.ops.glassbox


class Index:
    """An integer or bool array used as an index; `strided` makes its tensor a non-contiguous view."""

    def __init__(self, array, strided=False):
        self.array = np.asarray(array)
        self.strided = strided

    def tensor(self):
        a = non_contiguous(self.array) if self.strided else np.array(self.array, order="C")  # 0-d stays 0-d
        return on_device(gb.from_numpy(a))

    def __repr__(self):
        return f"Index({self.array.tolist()!r})"


def _t(i):
    return None if i is None else i.tensor()


def _key(indices):
    return tuple(slice(None) if i is None else i.array for i in indices)


def _ints(rng, high, shape, dtype="int64", negative=True):
    a = rng.integers(-high if negative else 0, high, size=shape) if high > 0 else np.zeros(shape, dtype=np.int64)
    return a.astype(dtype)


def _fill_value(dtype):
    return True if dtype == "bool" else 2 if dtype in INT else -1.5


def _in_place(fn):
    """The in-place operator applied to a copy (the table compares results)."""

    def call(x, *args, **kwargs):
        y = ops.clone(x)
        out = fn(y, *args, **kwargs)
        assert out.data_ptr() == y.data_ptr()
        return y

    return call


# ---- index / index_put
def index_samples(rng, dtype):
    x = make_array(rng, (4, 5, 3), dtype)
    return [
        Sample([x, [Index(_ints(rng, 4, (6,)))]], name="one int64 index"),
        Sample(
            [x, [None, Index(_ints(rng, 5, (2, 1), "int32")), Index(_ints(rng, 3, (3,)))]], name="adjacent broadcast"
        ),
        Sample([x, [Index(_ints(rng, 4, (2,))), None, Index(_ints(rng, 3, (2,)))]], name="separated"),
        Sample([x, [Index(rng.random((4, 5)) < 0.5)]], name="2-d bool mask"),
        Sample([x, [None, Index(rng.random(5) < 0.5), Index(_ints(rng, 3, ()))]], name="mask and 0-d index"),
        Sample([non_contiguous(x), [Index(_ints(rng, 4, (3, 2)), strided=True)]], name="non-contiguous"),
        Sample([make_array(rng, (0, 3), dtype), [None, Index(_ints(rng, 3, (2,)))]], name="empty self"),
        Sample([make_array(rng, (3,), dtype), [Index(np.zeros((0,), np.int64))]], name="empty index"),
    ]


def put_samples(rng, dtype, duplicates):
    x = make_array(rng, (4, 3), dtype)
    rows = (
        Index(rng.integers(0, 4, size=6)) if duplicates else Index(rng.permutation(4)[:3] - 4 * (rng.random(3) < 0.5))
    )
    n = rows.array.shape[0]
    return [
        Sample([x, [rows], make_array(rng, (n, 3), dtype)], name="rows"),
        Sample([x, [rows], make_array(rng, (3,), dtype)], name="broadcast values"),
        Sample([x, [None, Index(np.array([2, 0]))], make_array(rng, (), dtype)], name="0-d values"),
        Sample([non_contiguous(x), [Index(rng.random((4, 3)) < 0.5)], make_array(rng, (), dtype)], name="mask"),
        Sample([make_array(rng, (2, 0), dtype), [Index(np.array([1]))], make_array(rng, (0,), dtype)], name="empty"),
    ]


def index_put_ref(x, indices, values, accumulate=False):
    out = x.copy()
    if accumulate:
        np.add.at(out, _key(indices), values)
    else:
        out[_key(indices)] = values
    return out


# ---- gather / scatter along a dim
def gather_samples(rng, dtype):
    x = make_array(rng, (3, 4), dtype)
    return [
        Sample([x, 1, Index(_ints(rng, 4, (3, 6)))], name="dim 1, larger"),
        Sample([x, 0, Index(_ints(rng, 3, (2, 3)))], name="dim 0, smaller"),
        Sample([non_contiguous(x), -1, Index(_ints(rng, 4, (3, 2)), strided=True)], name="non-contiguous"),
        Sample([make_array(rng, (), dtype), 0, Index(np.array(0))], name="0-d"),
        Sample([x, 1, Index(np.zeros((3, 0), np.int64))], name="empty"),
    ]


def _block(a, shape, dim):
    """a's leading block of `shape`, all of dim."""
    return a[tuple(slice(None) if k == dim else slice(0, s) for k, s in enumerate(shape))]


def gather_ref(x, dim, index):
    i = index.array
    if x.ndim == 0:
        return x[()] if i.ndim == 0 else np.full(i.shape, x)
    return np.take_along_axis(_block(x, i.shape, dim % x.ndim), i, axis=dim)


def scatter_samples(rng, dtype, duplicates=False):
    x = make_array(rng, (4, 3), dtype)

    def unique_rows(cols):  # distinct targets along dim 0 within each column
        return np.stack([rng.permutation(4)[:2] for _ in range(cols)], axis=1)

    rows = _ints(rng, 4, (3, 3), negative=False) if duplicates else unique_rows(3)
    return [
        Sample([x, 0, Index(rows[:2]), make_array(rng, (2, 3), dtype)], name="dim 0"),
        Sample([x, 1, Index(np.array([[2], [0], [1], [2]])), make_array(rng, (4, 2), dtype)], name="dim 1, larger src"),
        Sample(
            [non_contiguous(x), 0, Index(rows[:2, :2], strided=True), non_contiguous(make_array(rng, (3, 3), dtype))],
            name="non-contiguous",
        ),
        Sample([make_array(rng, (), dtype), 0, Index(np.array(0)), make_array(rng, (), dtype)], name="0-d"),
        Sample([x, 0, Index(np.zeros((0, 3), np.int64)), make_array(rng, (0, 3), dtype)], name="empty"),
    ]


def _coords(index, dim):
    coords = list(np.indices(index.shape))
    coords[dim] = index
    return tuple(coords)


def scatter_ref(x, dim, index, src, add=False):
    out = x.copy()
    i = index.array
    if out.ndim == 0:
        return (out + src) if add else np.asarray(src).astype(out.dtype)
    values = (
        np.asarray(src)[tuple(slice(0, s) for s in i.shape)] if np.ndim(src) else src
    )  # src's block of index's shape
    if add:
        np.add.at(out, _coords(i, dim % out.ndim), values)
    else:
        out[_coords(i, dim % out.ndim)] = values
    return out


def index_select_samples(rng, dtype):
    x = make_array(rng, (3, 4), dtype)
    return [
        Sample([x, 1, Index(_ints(rng, 4, (6,)))], name="dim 1"),
        Sample([x, 0, Index(_ints(rng, 3, (2,), "int32"))], name="int32"),
        Sample([non_contiguous(x), -2, Index(_ints(rng, 3, (3,)), strided=True)], name="non-contiguous"),
        Sample([x, 0, Index(np.array(2))], name="0-d index"),
        Sample([x, 1, Index(np.zeros((0,), np.int64))], name="empty"),
    ]


def scatter_value_samples(rng, dtype):
    """scatter_samples with a Python number in place of src."""
    return [Sample([*s.args[:3], _fill_value(dtype)], name=s.name) for s in scatter_samples(rng, dtype)]


def index_add_samples(rng, dtype):
    x = make_array(rng, (4, 3), dtype)
    return [
        Sample([x, 0, Index(_ints(rng, 4, (5,))), make_array(rng, (5, 3), dtype)], name="duplicates"),
        Sample(
            [non_contiguous(x), 1, Index(np.array([2, 0], np.int32)), non_contiguous(make_array(rng, (4, 2), dtype))],
            name="non-contiguous",
        ),
        Sample([x, 0, Index(np.zeros((0,), np.int64)), make_array(rng, (0, 3), dtype)], name="empty"),
    ]


def index_add_ref(x, dim, index, source):
    out = x.copy()
    np.add.at(out, (slice(None),) * (dim % x.ndim) + (index.array,), source)
    return out


# ---- masks
def mask_samples(rng, dtype, tensor_value=False):
    def value():
        v = _fill_value(dtype)
        return np.asarray(v).astype("float32" if dtype == "bfloat16" else dtype) if tensor_value else v

    return [
        Sample([make_array(rng, (3, 4), dtype), Index(rng.random((3, 4)) < 0.5), value()], name="same shape"),
        Sample([make_array(rng, (3, 4), dtype), Index(rng.random((4,)) < 0.5), value()], name="broadcast mask"),
        Sample([make_array(rng, (4,), dtype), Index(rng.random((2, 4)) < 0.5), value()], name="broadcast self"),
        Sample(
            [non_contiguous(make_array(rng, (4, 3), dtype)), Index(rng.random((4, 3)) < 0.5, strided=True), value()],
            name="non-contiguous",
        ),
        Sample([make_array(rng, (), dtype), Index(np.array(True)), value()], name="0-d"),
        Sample([make_array(rng, (0, 2), dtype), Index(np.zeros((0, 2), bool)), value()], name="empty"),
    ]


def masked_fill_ref(x, mask, value):
    shape = np.broadcast_shapes(x.shape, mask.array.shape)
    return np.where(mask.array, np.asarray(value).astype(x.dtype), np.broadcast_to(x, shape))


def masked_select_ref(x, mask, _=None):
    shape = np.broadcast_shapes(x.shape, mask.array.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask.array, shape)]


# ---- one_hot, embedding
def one_hot_samples(rng, dtype):
    return [
        Sample([rng.integers(0, 5, size=(2, 3)).astype(dtype)], {"num_classes": 6}, name="explicit classes"),
        Sample([rng.integers(0, 4, size=(7,)).astype(dtype)], name="inferred classes"),
        Sample([np.asarray(3).astype(dtype)], {"num_classes": 4}, name="0-d"),
        Sample([np.zeros((0,), dtype)], {"num_classes": 3}, name="empty"),
    ]


def one_hot_ref(x, num_classes=-1):
    n = int(x.max()) + 1 if num_classes == -1 else num_classes
    return np.eye(n, dtype=np.int64)[x]


def embedding_samples(rng, dtype):
    w = make_array(rng, (6, 3), dtype)
    return [
        Sample([w, Index(_ints(rng, 6, (2, 4), negative=False))], name="2-d indices"),
        Sample(
            [non_contiguous(make_array(rng, (3, 6), dtype)).T, Index(np.array([5, 0, 5], np.int32))],
            name="non-contiguous weight",
        ),
        Sample([w, Index(np.array(4))], name="0-d index"),
        Sample([w, Index(np.zeros((0,), np.int64))], name="empty"),
    ]


def embedding_backward_samples(rng, dtype):
    idx = _ints(rng, 5, (2, 3), negative=False)
    return [
        Sample([make_array(rng, (2, 3, 4), dtype), Index(idx), 5, -1, False], name="plain"),
        Sample([make_array(rng, (2, 3, 4), dtype), Index(idx), 5, int(idx[0, 0]), False], name="padding_idx"),
        Sample([make_array(rng, (2, 3, 4), dtype), Index(idx), 5, -1, True], name="scale_grad_by_freq"),
        Sample([make_array(rng, (0, 4), dtype), Index(np.zeros((0,), np.int64)), 3, -1, False], name="empty"),
    ]


def embedding_backward_ref(grad, indices, num_weights, padding_idx, scale):
    i = indices.array.reshape(-1)
    rows = grad.reshape(i.shape[0], grad.shape[-1])
    counts = np.bincount(i, minlength=num_weights)
    weights = (1.0 / counts[i]) if scale else np.ones(i.shape[0])
    weights = np.where(i == padding_idx, 0.0, weights)
    out = np.zeros((num_weights, rows.shape[1]))
    np.add.at(out, i, rows * weights[:, None])
    return out


NUMERIC = FLOAT + HALF + INT
OPS = [
    OpInfo(
        "index.Tensor",
        lambda x, idx: ops.index(x, [_t(i) for i in idx]),
        lambda x, idx: x[_key(idx)],
        index_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_put",
        lambda x, idx, v: ops.index_put(x, [_t(i) for i in idx], v),
        index_put_ref,
        lambda rng, d: put_samples(rng, d, duplicates=False),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_put(accumulate)",
        lambda x, idx, v: ops.index_put(x, [_t(i) for i in idx], v, accumulate=True),
        lambda x, idx, v: index_put_ref(x, idx, v, True),
        lambda rng, d: put_samples(rng, d, duplicates=True),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_put_",
        _in_place(lambda x, idx, v: ops.index_put_(x, [_t(i) for i in idx], v)),
        index_put_ref,
        lambda rng, d: put_samples(rng, d, duplicates=False),
        ALL_DTYPES,
    ),
    OpInfo(
        "gather",
        lambda x, dim, i: ops.gather(x, dim, i.tensor()),
        gather_ref,
        gather_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "scatter.src",
        lambda x, dim, i, src: ops.scatter(x, dim, i.tensor(), src),
        scatter_ref,
        scatter_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "scatter.value",
        lambda x, dim, i, v: ops.scatter(x, dim, i.tensor(), v),
        scatter_ref,
        scatter_value_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "scatter_.src",
        _in_place(lambda x, dim, i, src: ops.scatter_(x, dim, i.tensor(), src)),
        scatter_ref,
        scatter_samples,
        ALL_DTYPES,
    ),
    OpInfo(
        "scatter_add",
        lambda x, dim, i, src: ops.scatter_add(x, dim, i.tensor(), src),
        lambda x, dim, i, src: scatter_ref(x, dim, i, src, add=True),
        lambda rng, d: scatter_samples(rng, d, duplicates=True),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "scatter_add_",
        _in_place(lambda x, dim, i, src: ops.scatter_add_(x, dim, i.tensor(), src)),
        lambda x, dim, i, src: scatter_ref(x, dim, i, src, add=True),
        lambda rng, d: scatter_samples(rng, d, duplicates=True),
        ALL_DTYPES,
    ),
    OpInfo(
        "index_select",
        lambda x, dim, i: ops.index_select(x, dim, i.tensor()),
        lambda x, dim, i: np.take(x, np.atleast_1d(i.array), axis=dim),
        index_select_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_add",
        lambda x, dim, i, src: ops.index_add(x, dim, i.tensor(), src),
        index_add_ref,
        index_add_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_add_",
        _in_place(lambda x, dim, i, src: ops.index_add_(x, dim, i.tensor(), src)),
        index_add_ref,
        index_add_samples,
        ALL_DTYPES,
    ),
    OpInfo(
        "masked_fill.Scalar",
        lambda x, m, v: ops.masked_fill(x, m.tensor(), v),
        masked_fill_ref,
        mask_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "masked_fill.Tensor",
        lambda x, m, v: ops.masked_fill(x, m.tensor(), v),
        masked_fill_ref,
        lambda rng, d: mask_samples(rng, d, tensor_value=True),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "masked_fill_.Scalar",
        _in_place(lambda x, m, v: ops.masked_fill_(x, m.tensor(), v)),
        masked_fill_ref,
        lambda rng, d: [s for s in mask_samples(rng, d) if s.name != "broadcast self"],
        ALL_DTYPES,
    ),
    OpInfo(
        "masked_select",
        lambda x, m, _: ops.masked_select(x, m.tensor()),
        masked_select_ref,
        mask_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "one_hot", lambda x, **kw: ops.one_hot(x, **kw), one_hot_ref, one_hot_samples, INT, ref_dtype=lambda d: "int64"
    ),
    OpInfo(
        "embedding",
        lambda w, i: ops.embedding(w, i.tensor()),
        lambda w, i: w[i.array],
        embedding_samples,
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo(
        "embedding_dense_backward",
        lambda g, i, *rest: ops.embedding_dense_backward(g, i.tensor(), *rest),
        embedding_backward_ref,
        embedding_backward_samples,
        FLOAT + HALF,
    ),
]
