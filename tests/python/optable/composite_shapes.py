"""The shape, diagonal, indexing and einsum functions written in Python over the operators
(glassbox/_shape_ops.py, _diagonals.py, _indexing_ops.py, _einsum.py), against NumPy."""

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, make_array, non_contiguous
from .indexing import Index, _ints

NUMERIC = FLOAT + HALF + INT


def _one(rng, dtype, shape):
    return make_array(rng, shape, dtype)


# ---- repeat, tile, repeat_interleave
def repeat_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3,)), (2, 2)], name="(3,) x (2,2)"),
        Sample([a((2, 3)), (2, 1, 3)], name="(2,3) x (2,1,3)"),
        Sample([a(()), (2, 3)], name="0-d"),
        Sample([a((0, 3)), (2, 2)], name="empty"),
        Sample([non_contiguous(a((4, 3))), (1, 2)], name="non-contiguous"),
        Sample([a((2, 3)), (0, 1)], name="zero repeats"),
    ]


def tile_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((2, 3)), (2,)], name="fewer dims"),
        Sample([a((3,)), (2, 2)], name="more dims"),
        Sample([a(()), (3,)], name="0-d"),
        Sample([non_contiguous(a((4, 3))), (2, 1)], name="non-contiguous"),
    ]


def interleave_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((2, 3)), 2], name="flattened"),
        Sample([a((2, 3)), 3], {"dim": 1}, name="dim 1"),
        Sample([a((2, 3)), 0], {"dim": 0}, name="zero"),
        Sample([a(()), 2], name="0-d"),
        Sample([a((0, 3)), 2], {"dim": 1}, name="empty"),
        Sample([non_contiguous(a((4, 3))), 2], {"dim": -1}, name="non-contiguous"),
    ]


def interleave_tensor_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3, 2)), Index(np.array([1, 0, 3]))], {"dim": 0}, name="counts along dim 0"),
        Sample([a((3, 2)), Index(np.array([2, 1]))], {"dim": 1}, name="counts along dim 1"),
        Sample([a((2, 2)), Index(np.array([2, 0, 1, 1]))], name="flattened"),
        Sample([a((2, 2)), Index(np.array(3))], {"dim": 1}, name="0-d count"),
    ]


def interleave_ref(a, repeats, dim=None):
    r = repeats.array if isinstance(repeats, Index) else repeats
    return np.repeat(a, r, axis=dim)


# ---- moving and splitting dims
def unflatten_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((2, 6)), 1, (2, 3)], name="(2,6) dim 1"),
        Sample([a((6, 2)), -2, (3, -1)], name="inferred"),
        Sample([a((0, 4)), 1, (2, 2)], name="empty"),
        Sample([non_contiguous(a((4, 3))), 0, (2, 2)], name="non-contiguous"),
    ]


def unflatten_ref(a, dim, sizes):
    dim %= a.ndim
    return a.reshape(a.shape[:dim] + tuple(sizes) + a.shape[dim + 1 :])


def movedim_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((2, 3, 4)), 0, -1], name="first to last"),
        Sample([a((2, 3, 4)), (0, 1), (2, 0)], name="two dims"),
        Sample([a(()), 0, 0], name="0-d"),
        Sample([a((0, 3)), 1, 0], name="empty"),
        Sample([non_contiguous(a((4, 3))), 0, 1], name="non-contiguous"),
    ]


def moveaxis_ref(a, source, destination):
    return a.copy() if a.ndim == 0 else np.moveaxis(a, source, destination)


def swap_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((2, 3, 4)), 0, 2], name="(2,3,4)"),
        Sample([a((3, 4)), -1, 0], name="negative"),
        Sample([a((0, 3)), 0, 1], name="empty"),
        Sample([non_contiguous(a((4, 3))), 0, 1], name="non-contiguous"),
    ]


def broadcast_to_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3, 1)), (2, 3, 4)], name="(3,1) to (2,3,4)"),
        Sample([a(()), (2, 2)], name="0-d"),
        Sample([a((0, 1)), (0, 3)], name="empty"),
        Sample([non_contiguous(a((4, 3))), (2, 4, 3)], name="non-contiguous"),
    ]


def broadcast_tensors_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3, 1)), a((4,))], name="(3,1),(4,)"),
        Sample([a(()), a((2, 2))], name="0-d"),
        Sample([a((0, 1)), a((3,))], name="empty"),
        Sample([non_contiguous(a((4, 3))), a((1, 3))], name="non-contiguous"),
    ]


def rot90_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [Sample([a((3, 4)), k, (0, 1)], name=f"k={k}") for k in (-1, 0, 1, 2, 3, 5)] + [
        Sample([a((2, 3, 4)), 1, (2, 0)], name="dims (2,0)"),
        Sample([a((0, 3)), 1, (0, 1)], name="empty"),
        Sample([non_contiguous(a((4, 3))), 1, (1, 0)], name="non-contiguous"),
    ]


def meshgrid_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    out = []
    for indexing in ("ij", "xy"):
        out += [
            Sample([a((3,)), a((2,))], {"indexing": indexing}, name=f"two {indexing}"),
            Sample([a((3,)), a((2,)), a((4,))], {"indexing": indexing}, name=f"three {indexing}"),
            Sample([a(()), a((0,))], {"indexing": indexing}, name=f"0-d and empty {indexing}"),
        ]
    return out


def meshgrid_ref(*arrays, indexing):
    return np.meshgrid(*[a.reshape(-1) for a in arrays], indexing=indexing)


def tensor_split_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((7,)), 3], name="3 sections of 7"),
        Sample([a((2, 5)), 4], {"dim": 1}, name="more sections than even"),
        Sample([a((7,)), [1, 5]], name="indices"),
        Sample([a((3, 6)), [-2, 10, 1]], {"dim": 1}, name="odd indices"),
        Sample([a((0, 3)), 2], name="empty"),
        Sample([non_contiguous(a((4, 3))), 2], {"dim": 1}, name="non-contiguous"),
    ]


def tensor_split_ref(a, spec, dim=0):
    if isinstance(spec, int):
        return np.array_split(a, spec, axis=dim)
    n = a.shape[dim]
    bounds = [min(max(i + n if i < 0 else i, 0), n) for i in spec]
    starts, ends = [0] + bounds, bounds + [n]
    take = lambda s, e: np.take(a, np.arange(s, max(s, e)), axis=dim)  # noqa: E731
    return [take(s, e) for s, e in zip(starts, ends)]


def split_sizes_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((6, 2)), [1, 5]], name="dim 0"),
        Sample([a((2, 6)), [2, 0, 4]], {"dim": 1}, name="an empty part"),
        Sample([non_contiguous(a((4, 3))), [1, 2]], {"dim": -1}, name="non-contiguous"),
    ]


def split_sizes_ref(a, sizes, dim=0):
    return np.split(a, np.cumsum(sizes)[:-1], axis=dim)


# ---- diagonals
def diagonal_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3, 4))], name="(3,4)"),
        Sample([a((3, 4)), 1], name="offset 1"),
        Sample([a((3, 4)), -2], name="offset -2"),
        Sample([a((3, 4)), 5], name="offset past the end"),
        Sample([a((2, 3, 4)), 0, 2, 0], name="dims 2,0"),
        Sample([a((2, 3, 4)), -1, -1, 1], name="batched, negative dims"),
        Sample([a((0, 3))], name="empty"),
        Sample([non_contiguous(a((4, 3))), 1], name="non-contiguous"),
    ]


def diagonal_ref(a, offset=0, dim1=0, dim2=1):
    return np.diagonal(a, offset, dim1, dim2)


def diag_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3,))], name="vector"),
        Sample([a((3,)), 2], name="vector offset 2"),
        Sample([a((3,)), -1], name="vector offset -1"),
        Sample([a((3, 4))], name="matrix"),
        Sample([a((3, 4)), -1], name="matrix offset -1"),
        Sample([a((0,))], name="empty"),
        Sample([non_contiguous(a((4, 3))), 1], name="non-contiguous"),
    ]


def diag_embed_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3,))], name="vector"),
        Sample([a((2, 3)), 1], name="batch offset 1"),
        Sample([a((2, 3)), -2, 0, 2], name="offset -2 dims 0,2"),
        Sample([a((2, 0))], name="empty"),
        Sample([non_contiguous(a((4, 3))), 0, -1, 0], name="non-contiguous"),
    ]


def diag_embed_ref(a, offset=0, dim1=-2, dim2=-1):
    a = a.reshape(1) if a.ndim == 0 else a
    n, k = a.shape[-1], abs(offset)
    out = np.zeros(a.shape[:-1] + (n + k, n + k), dtype=a.dtype)
    rows, cols = np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)
    out[..., rows, cols] = a
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def trace_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3, 4))], name="(3,4)"),
        Sample([a((4, 2))], name="(4,2)"),
        Sample([a((0, 3))], name="empty"),
        Sample([non_contiguous(a((4, 3)))], name="non-contiguous"),
    ]


def trace_ref(a):
    r = np.trace(a)
    return np.int64(r) if a.dtype.kind in "biu" else r


# ---- indexing
def nonzero_samples(rng, dtype):
    a = lambda s: _one(rng, dtype, s)  # noqa: E731
    return [
        Sample([a((3, 4))], name="(3,4)"),
        Sample([a((2, 3, 2))], name="(2,3,2)"),
        Sample([a(())], name="0-d"),
        Sample([a((0, 3))], name="empty"),
        Sample([non_contiguous(a((4, 3)))], name="non-contiguous"),
    ]


def nonzero_tuple_ref(a):
    return np.nonzero(a.reshape(-1) if a.ndim == 0 else a)


def take_samples(rng, dtype):
    x = _one(rng, dtype, (3, 4))
    return [
        Sample([x, Index(_ints(rng, 12, (2, 3)))], name="negative too"),
        Sample([non_contiguous(x), Index(_ints(rng, 12, (5,)), strided=True)], name="non-contiguous"),
        Sample([_one(rng, dtype, ()), Index(np.array(0))], name="0-d"),
        Sample([x, Index(np.zeros((0,), np.int64))], name="empty"),
    ]


def take_along_dim_samples(rng, dtype):
    x = _one(rng, dtype, (3, 4))
    return [
        Sample([x, Index(_ints(rng, 4, (3, 2), negative=False)), 1], name="dim 1"),
        Sample([x, Index(_ints(rng, 3, (5, 1), negative=False)), 0], name="broadcast"),
        Sample([x, Index(_ints(rng, 12, (4,), negative=False))], name="flattened"),
        Sample(
            [non_contiguous(x), Index(_ints(rng, 3, (2, 4), negative=False), strided=True), 0], name="non-contiguous"
        ),
        Sample([x, Index(np.zeros((3, 0), np.int64)), 1], name="empty"),
    ]


def take_along_dim_ref(a, index, dim=None):
    i = index.array
    if dim is None:
        return np.take_along_axis(a.reshape(-1), i.reshape(-1), 0)
    shape = np.broadcast_shapes(a.shape[:dim] + (1,) + a.shape[dim + 1 :], i.shape[:dim] + (1,) + i.shape[dim + 1 :])
    a_b = np.broadcast_to(a, shape[:dim] + (a.shape[dim],) + shape[dim + 1 :])
    i_b = np.broadcast_to(i, shape[:dim] + (i.shape[dim],) + shape[dim + 1 :])
    return np.take_along_axis(a_b, i_b, dim)


def _put_along(a, dim, index, values):
    out = a.copy()
    key = [slice(None)] * out.ndim
    key[dim] = index
    out[tuple(key)] = values
    return out


def index_fill_samples(rng, dtype):
    x = _one(rng, dtype, (3, 4))
    value = True if dtype == "bool" else 2 if dtype in INT else -1.5
    return [
        Sample([x, 1, Index(np.array([0, 2, 2])), value], name="dim 1"),
        Sample([x, 0, Index(np.array([-1])), value], name="negative index"),
        Sample([non_contiguous(x), -1, Index(np.array(1)), value], name="non-contiguous, 0-d index"),
        Sample([x, 0, Index(np.zeros((0,), np.int64)), value], name="no index"),
    ]


def index_fill_ref(a, dim, index, value):
    return _put_along(a, dim % a.ndim, index.array % a.shape[dim], value)


def index_copy_samples(rng, dtype):
    x = _one(rng, dtype, (3, 4))
    return [
        Sample([x, 1, Index(np.array([3, 0])), _one(rng, dtype, (3, 2))], name="dim 1"),
        Sample([x, 0, Index(np.array([2, 0, 1])), _one(rng, dtype, (3, 4))], name="every row"),
        Sample(
            [non_contiguous(x), 0, Index(np.array([1])), non_contiguous(_one(rng, dtype, (1, 4)))],
            name="non-contiguous",
        ),
        Sample([x, 0, Index(np.zeros((0,), np.int64)), _one(rng, dtype, (0, 4))], name="empty"),
    ]


def index_copy_ref(a, dim, index, source):
    return _put_along(a, dim % a.ndim, index.array, source)


def masked_scatter_samples(rng, dtype):
    x = _one(rng, dtype, (3, 4))
    return [
        Sample([x, Index(rng.random((3, 4)) < 0.5), _one(rng, dtype, (12,))], name="same shape"),
        Sample([x, Index(np.array([True, False, False, True])), _one(rng, dtype, (2, 4))], name="broadcast mask"),
        Sample([non_contiguous(x), Index(rng.random((4, 3)).T < 0.5), _one(rng, dtype, (20,))], name="non-contiguous"),
        Sample([_one(rng, dtype, ()), Index(np.array(True)), _one(rng, dtype, (1,))], name="0-d"),
        Sample([_one(rng, dtype, (0, 3)), Index(np.zeros((0, 3), bool)), _one(rng, dtype, (0,))], name="empty"),
    ]


def masked_scatter_ref(a, mask, source):
    out = a.copy()
    m = np.broadcast_to(mask.array, a.shape)
    out[m] = source.reshape(-1)[: int(m.sum())]
    return out


def scatter_reduce_samples(rng, dtype):
    x = _one(rng, dtype, (4, 3))
    out = []
    for include_self in (True, False):
        out += [
            Sample(
                [x, 0, Index(_ints(rng, 4, (5, 3), negative=False)), _one(rng, dtype, (5, 3))],
                {"include_self": include_self},
                name=f"dim 0 {include_self}",
            ),
            Sample(
                [x, 1, Index(_ints(rng, 3, (2, 2), negative=False)), _one(rng, dtype, (3, 4))],
                {"include_self": include_self},
                name=f"smaller index {include_self}",
            ),
            Sample(
                [
                    non_contiguous(x),
                    -1,
                    Index(_ints(rng, 3, (4, 3), negative=False), strided=True),
                    non_contiguous(_one(rng, dtype, (4, 3))),
                ],
                {"include_self": include_self},
                name=f"non-contiguous {include_self}",
            ),
        ]
    out += [
        Sample([_one(rng, dtype, ()), 0, Index(np.array(0)), _one(rng, dtype, ())], name="0-d"),
        Sample([x, 0, Index(np.zeros((0, 3), np.int64)), _one(rng, dtype, (0, 3))], name="empty"),
    ]
    return out


def scatter_reduce_ref(reduce):
    def ref(a, dim, index, src, include_self=True):
        i = index.array
        if a.ndim == 0:
            a, i, src = a.reshape(1), i.reshape(1), np.asarray(src).reshape(1)
        dim %= a.ndim
        wide = a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int64)
        lists = {}
        for pos in np.ndindex(i.shape):
            target = list(pos)
            target[dim] = i[pos]
            lists.setdefault(tuple(target), []).append(src[pos])
        out = wide.copy()
        for target, values in lists.items():
            values = ([wide[target]] if include_self else []) + values
            if reduce == "sum":
                out[target] = np.sum(values)
            elif reduce == "prod":
                out[target] = np.prod(values)
            elif reduce == "amax":
                out[target] = np.max(values)
            elif reduce == "amin":
                out[target] = np.min(values)
            elif a.dtype.kind == "f":
                out[target] = np.mean(values)
            else:
                out[target] = np.sum(values) // len(values)
        return out.astype(a.dtype).reshape(np.shape(a) if np.ndim(a) else ())

    return ref


def scatter_reduce_entry(reduce):
    def op(x, dim, index, src, **kwargs):
        r = gb.scatter_reduce(x, dim, index.tensor(), src, reduce, **kwargs)
        return r if x.dim() else r.reshape([])

    def ref(a, dim, index, src, **kwargs):
        r = scatter_reduce_ref(reduce)(a, dim, index, src, **kwargs)
        return r.reshape(a.shape)

    dtypes = FLOAT + HALF + ("int64", "int32", "int16") if reduce != "prod" else FLOAT + ("int64",)
    return OpInfo(f"scatter_reduce({reduce})", op, ref, scatter_reduce_samples, dtypes, differentiable=True)


def scatter_add_reduce_samples(rng, dtype):
    x = _one(rng, dtype, (4, 3))
    i = Index(_ints(rng, 4, (2, 3), negative=False))
    return [
        Sample([x, 0, i, _one(rng, dtype, (2, 3))], {"reduce": "add"}, name="add src"),
        Sample([x, 0, i, _one(rng, dtype, (2, 3))], {"reduce": "multiply"}, name="multiply src"),
        Sample([x, 0, i, 2], {"reduce": "add"}, name="add value"),
        Sample([x, 0, i, 2], {"reduce": "multiply"}, name="multiply value"),
    ]


def scatter_with_reduce_ref(a, dim, index, src, reduce):
    src = np.full(index.array.shape, src, dtype=a.dtype) if np.ndim(src) == 0 else src
    return scatter_reduce_ref("sum" if reduce == "add" else "prod")(a, dim, index, src)


# ---- einsum
EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ii->", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij->...ji", [(2, 3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ij->j", [(3, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("...j,j...->...", [(2, 3), (3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ba,ca", [(2, 3), (4, 3)]),
    ("abc,cd->abd", [(0, 2, 3), (3, 4)]),
    ("->", [()]),
    (",i->i", [(), (3,)]),
]


def einsum_samples(rng, dtype):
    out = [Sample([eq, *[_one(rng, dtype, s) for s in shapes]], name=eq) for eq, shapes in EINSUM_CASES]
    out.append(
        Sample(["ij,jk->ik", non_contiguous(_one(rng, dtype, (3, 4))), _one(rng, dtype, (4, 2))], name="non-contiguous")
    )
    return out


def einsum_ref(eq, *arrays):
    r = np.einsum(eq, *arrays)
    return np.asarray(r).astype(np.int64 if arrays[0].dtype.kind in "iu" else arrays[0].dtype)


OPS = [
    OpInfo(
        "repeat", lambda x, s: x.repeat(*s), lambda a, s: np.tile(a, s), repeat_samples, ALL_DTYPES, differentiable=True
    ),
    OpInfo(
        "tile", lambda x, s: gb.tile(x, s), lambda a, s: np.tile(a, s), tile_samples, ALL_DTYPES, differentiable=True
    ),
    OpInfo(
        "repeat_interleave",
        lambda x, r, **k: gb.repeat_interleave(x, r, **k),
        interleave_ref,
        interleave_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "repeat_interleave(tensor)",
        lambda x, r, **k: x.repeat_interleave(r.tensor(), **k),
        interleave_ref,
        interleave_tensor_samples,
        FLOAT + INT,
        differentiable=True,
    ),
    OpInfo(
        "unflatten",
        lambda x, d, s: x.unflatten(d, s),
        unflatten_ref,
        unflatten_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "movedim", lambda x, s, d: gb.movedim(x, s, d), moveaxis_ref, movedim_samples, ALL_DTYPES, differentiable=True
    ),
    OpInfo("moveaxis", lambda x, s, d: x.moveaxis(s, d), moveaxis_ref, movedim_samples, FLOAT),
    OpInfo(
        "swapaxes", lambda x, a, b: gb.swapaxes(x, a, b), np.swapaxes, swap_samples, ALL_DTYPES, differentiable=True
    ),
    OpInfo("swapdims", lambda x, a, b: x.swapdims(a, b), np.swapaxes, swap_samples, FLOAT),
    OpInfo(
        "broadcast_to",
        lambda x, s: gb.broadcast_to(x, s),
        np.broadcast_to,
        broadcast_to_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "broadcast_tensors",
        lambda *t: gb.broadcast_tensors(*t),
        lambda *a: np.broadcast_arrays(*a),
        broadcast_tensors_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "rot90",
        lambda x, k, d: gb.rot90(x, k, d),
        lambda a, k, d: np.rot90(a, k, d),
        rot90_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "meshgrid",
        lambda *t, **k: gb.meshgrid(*t, **k),
        meshgrid_ref,
        meshgrid_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "tensor_split",
        lambda x, s, **k: x.tensor_split(s, **k),
        tensor_split_ref,
        tensor_split_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "split(sizes)",
        lambda x, s, **k: gb.split(x, s, **k),
        split_sizes_ref,
        split_sizes_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "diagonal", lambda x, *a: gb.diagonal(x, *a), diagonal_ref, diagonal_samples, ALL_DTYPES, differentiable=True
    ),
    OpInfo(
        "diag",
        lambda x, *a: gb.diag(x, *a),
        lambda a, k=0: np.diag(a, k),
        diag_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "diag_embed",
        lambda x, *a: gb.diag_embed(x, *a),
        diag_embed_ref,
        diag_embed_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "trace",
        lambda x: gb.trace(x),
        trace_ref,
        trace_samples,
        NUMERIC,
        differentiable=True,
        ref_dtype=lambda d: "int64" if d in INT else d,
    ),
    OpInfo(
        "nonzero",
        lambda x: gb.nonzero(x),
        lambda a: np.argwhere(a).astype(np.int64),
        nonzero_samples,
        ALL_DTYPES,
        ref_dtype=lambda d: "int64",
    ),
    OpInfo(
        "nonzero(as_tuple)",
        lambda x: x.nonzero(as_tuple=True),
        nonzero_tuple_ref,
        nonzero_samples,
        ALL_DTYPES,
        ref_dtype=lambda d: "int64",
    ),
    OpInfo(
        "take",
        lambda x, i: gb.take(x, i.tensor()),
        lambda a, i: np.take(a, i.array),
        take_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "take_along_dim",
        lambda x, i, *d: gb.take_along_dim(x, i.tensor(), *d),
        take_along_dim_ref,
        take_along_dim_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_fill",
        lambda x, d, i, v: x.index_fill(d, i.tensor(), v),
        index_fill_ref,
        index_fill_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "index_copy",
        lambda x, d, i, s: gb.index_copy(x, d, i.tensor(), s),
        index_copy_ref,
        index_copy_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "masked_scatter",
        lambda x, m, s: x.masked_scatter(m.tensor(), s),
        masked_scatter_ref,
        masked_scatter_samples,
        ALL_DTYPES,
        differentiable=True,
    ),
    *[scatter_reduce_entry(r) for r in ("sum", "prod", "mean", "amax", "amin")],
    OpInfo(
        "scatter(reduce=)",
        lambda x, d, i, s, reduce: x.scatter(d, i.tensor(), s, reduce=reduce),
        scatter_with_reduce_ref,
        scatter_add_reduce_samples,
        FLOAT + ("int64",),
        differentiable=True,
    ),
    OpInfo(
        "einsum",
        lambda eq, *t: gb.einsum(eq, *t),
        einsum_ref,
        einsum_samples,
        FLOAT + HALF + ("int64",),
        differentiable=True,
    ),
]
