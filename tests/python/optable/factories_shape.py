"""Factories (arange, linspace, eye, empty_strided), to(device), dropout in evaluation, and the
joining and reordering operators (cat, stack, split, split_with_sizes, chunk, flip, roll, tril,
triu), and the views unfold and as_strided. The random operators are checked statistically in test_random.py."""

import math

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, make_array, non_contiguous

ops = gb.ops.glassbox
NUMERIC = FLOAT + HALF + INT


def _np_dtype(dtype):
    """The NumPy dtype a reference result is built in (halves compare in float64)."""
    return "float64" if dtype in HALF else dtype


# ---- factories: the samples carry the dtype name, which both the call and the reference read.
def _factory_samples(*arg_lists, float_only=()):
    def gen(rng, dtype):
        lists = list(arg_lists) + (list(float_only) if dtype in FLOAT + HALF else [])
        return [Sample(list(args), {"dtype": dtype}, name=str(args)) for args in lists]

    return gen


def _arange(*args, dtype):
    return ops.arange(*args, dtype=getattr(gb, dtype))


def _arange_ref(*args, dtype):
    return np.arange(*args, dtype=np.float64).astype(_np_dtype(dtype))


def _linspace_ref(start, end, steps, dtype):
    return np.linspace(start, end, steps, dtype=np.float64).astype(_np_dtype(dtype))


def _eye(*args, dtype):
    return ops.eye(*args, dtype=getattr(gb, dtype))


def _eye_ref(n, m=None, *, dtype):
    return np.eye(n, m).astype(_np_dtype(dtype))


def _empty_strided_zeroed(size, stride, dtype):
    return ops.fill_(ops.empty_strided(size, stride, dtype=getattr(gb, dtype)), 0)


# ---- joining and splitting
def _shapes_samples(*cases, non_contiguous_first=None):
    """cases: (list of shapes, dim); non_contiguous_first: one more case whose first input is strided."""

    def gen(rng, dtype):
        out = [
            Sample([[make_array(rng, s, dtype) for s in shapes], dim], name=f"{shapes} dim={dim}")
            for shapes, dim in cases
        ]
        if non_contiguous_first:
            shapes, dim = non_contiguous_first
            arrays = [non_contiguous(make_array(rng, shapes[0], dtype))] + [
                make_array(rng, s, dtype) for s in shapes[1:]
            ]
            out.append(Sample([arrays, dim], name="non-contiguous"))
        return out

    return gen


def _cat_ref(arrays, dim):
    # A 1-d array of size 0 joins any cat and contributes nothing (PyTorch's legacy rule).
    kept = [a for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)]
    return np.concatenate(kept, axis=dim) if kept else np.concatenate(arrays)


def _split_ref(a, size, dim=0):
    n = a.shape[dim]
    starts = range(0, n, size) if n else [0]
    return [np.take(a, range(s, min(s + size, n)), axis=dim) for s in starts]


def _split_with_sizes_ref(a, sizes, dim=0):
    bounds = np.cumsum([0] + list(sizes))
    return [np.take(a, range(bounds[i], bounds[i + 1]), axis=dim) for i in range(len(sizes))]


def _chunk_ref(a, chunks, dim=0):
    n = a.shape[dim]
    if n == 0:
        return [a] * chunks
    return _split_ref(a, math.ceil(n / chunks), dim)


def _tensor_and_args_samples(*cases, non_contiguous_case=None):
    """cases: (shape, extra args...); the tensor is made from the shape."""

    def gen(rng, dtype):
        out = [Sample([make_array(rng, shape, dtype), *rest], name=f"{shape} {rest}") for shape, *rest in cases]
        if non_contiguous_case:
            shape, *rest = non_contiguous_case
            out.append(Sample([non_contiguous(make_array(rng, shape, dtype)), *rest], name="non-contiguous"))
        return out

    return gen


# ---- views whose elements are not a slice of the input
def _unfold_ref(a, dim, size, step):
    if a.ndim == 0:
        return a.reshape(1)
    windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    index = [slice(None)] * a.ndim
    index[dim] = slice(None, None, step)
    return windows[tuple(index)].copy()


def _as_strided_ref(a, size, stride, offset=None):
    flat = np.ascontiguousarray(a).reshape(-1)[offset or 0 :]
    return np.lib.stride_tricks.as_strided(flat, size, [s * flat.itemsize for s in stride]).copy()


def _flip_ref(a, dims):
    return np.flip(a, axis=tuple(dims)) if dims and a.ndim else a.copy()


def _roll_ref(a, shifts, dims=()):
    if a.ndim == 0:
        return a.copy()
    if not dims:
        return np.roll(a, shifts[0])
    return np.roll(a, tuple(shifts), axis=tuple(dims))


OPS = [
    OpInfo(
        "arange",
        _arange,
        _arange_ref,
        _factory_samples(
            (5,),
            (2, 11),
            (2, 11, 3),
            (10, 0, -2),
            (0,),
            (3, 3, -1),
            float_only=[(0.5, 3.0, 0.25), (1, -1.25, -0.5), (0, 1, 0.1)],
        ),
        NUMERIC,
    ),
    OpInfo(
        "arange(int bounds, inferred dtype)",
        lambda *a: ops.arange(*a),
        lambda *a: np.arange(*a),
        lambda rng, dtype: [Sample([7]), Sample([-3, 8, 2]), Sample([5, -5, -3])],
        ("int64",),
    ),
    OpInfo(
        "arange(float bounds, inferred dtype)",
        lambda *a: ops.arange(*a),
        lambda *a: np.arange(*a, dtype=np.float64),
        lambda rng, dtype: [Sample([2.5]), Sample([0, 2, 0.5]), Sample([1.0, 0, -0.25])],
        ("float32",),
    ),
    OpInfo(
        "linspace",
        lambda *a, dtype: ops.linspace(*a, dtype=getattr(gb, dtype)),
        _linspace_ref,
        _factory_samples(
            (0, 10, 6), (3, 3, 1), (0, 1, 0), (100, 0, 5), float_only=[(-1.5, 2.5, 9), (0, 1, 7), (2, -3.25, 12)]
        ),
        NUMERIC,
    ),
    OpInfo(
        "linspace(default dtype)",
        lambda *a: ops.linspace(*a),
        lambda *a: np.linspace(*a, dtype=np.float64),
        lambda rng, dtype: [Sample([0, 1, 5]), Sample([-2, 7, 10])],
        ("float32",),
    ),
    OpInfo("eye", _eye, _eye_ref, _factory_samples((3,), (2, 4), (0,), (4, 1), (0, 3)), ALL_DTYPES),
    OpInfo(
        "empty_strided(filled)",
        _empty_strided_zeroed,
        lambda size, stride, dtype: np.zeros(size),
        _factory_samples(([2, 3], [1, 2]), ([4], [3]), ([], []), ([0, 5], [5, 1])),
        ALL_DTYPES,
    ),
    OpInfo(
        "to.device",
        lambda a: ops.to(a, "cpu", copy=True),
        lambda a: a.copy(),
        _tensor_and_args_samples(((),), ((0,),), ((3, 4),), non_contiguous_case=((4, 3),)),
        ALL_DTYPES,
    ),
    OpInfo(
        "to.device(dtype)",
        lambda a: ops.to(a, "cpu", gb.float64),
        lambda a: a.astype(np.float64),
        _tensor_and_args_samples(((5,),), ((2, 3),), non_contiguous_case=((4, 3),)),
        ALL_DTYPES,
        ref_dtype=lambda d: "float64",
    ),
    OpInfo(
        "dropout(eval)",
        lambda a, p, train: ops.dropout(a, p, train),
        lambda a, p, train: a,
        _tensor_and_args_samples(((3, 4), 0.5, False), ((5,), 0.0, True), ((0,), 0.3, False)),
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo(
        "cat",
        lambda ts, dim: ops.cat(ts, dim),
        _cat_ref,
        _shapes_samples(
            ([(2, 3), (4, 3)], 0),
            ([(2, 3), (2, 1), (2, 0)], 1),
            ([(3,), (0,), (2,)], 0),
            ([(0,), (2, 2)], 0),
            ([(2, 3, 4), (2, 3, 1), (2, 3, 2)], -1),
            ([(1, 2)], 0),
            non_contiguous_first=([(4, 3), (2, 3)], -2),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "stack",
        lambda ts, dim: ops.stack(ts, dim),
        lambda ts, dim: np.stack(ts, axis=dim),
        _shapes_samples(
            ([(2, 3), (2, 3)], 0),
            ([(2, 3), (2, 3), (2, 3)], 2),
            ([(), ()], 0),
            ([(0,), (0,)], 1),
            ([(4,)], -1),
            non_contiguous_first=([(4, 3), (4, 3)], 1),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "split.Tensor",
        lambda a, size, dim: ops.split(a, size, dim),
        _split_ref,
        _tensor_and_args_samples(
            ((5, 2), 2, 0),
            ((3, 7), 3, -1),
            ((4,), 4, 0),
            ((0, 3), 2, 0),
            ((6,), 10, 0),
            non_contiguous_case=((4, 3), 2, 1),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "split_with_sizes",
        lambda a, sizes, dim: ops.split_with_sizes(a, sizes, dim),
        _split_with_sizes_ref,
        _tensor_and_args_samples(
            ((5, 2), [1, 4], 0), ((3, 6), [2, 0, 4], 1), ((4,), [4], 0), non_contiguous_case=((4, 3), [1, 1, 1], 1)
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "chunk",
        lambda a, chunks, dim: ops.chunk(a, chunks, dim),
        _chunk_ref,
        _tensor_and_args_samples(
            ((7,), 3, 0), ((6, 2), 4, 0), ((2, 5), 5, 1), ((0,), 2, 0), non_contiguous_case=((4, 3), 2, 0)
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "flip",
        lambda a, dims: ops.flip(a, dims),
        _flip_ref,
        _tensor_and_args_samples(
            ((), [0]),
            ((0,), [0]),
            ((5,), [0]),
            ((3, 4), [1]),
            ((2, 3, 5), [0, 2]),
            ((3, 4), []),
            non_contiguous_case=((4, 3), [0, -1]),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "roll",
        lambda a, shifts, dims=(): ops.roll(a, shifts, list(dims)),
        _roll_ref,
        _tensor_and_args_samples(
            ((), [2]),
            ((0,), [1]),
            ((5,), [2], [0]),
            ((3, 4), [-1], [1]),
            ((2, 3, 5), [1, 7], [0, 2]),
            ((3, 4), [5]),
            ((0, 2), [1], [0]),
            non_contiguous_case=((4, 3), [1, -2], [0, 1]),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "tril",
        lambda a, k: ops.tril(a, k),
        lambda a, k: np.tril(a, k),
        _tensor_and_args_samples(
            ((3, 4), 0), ((4, 3), 1), ((2, 3, 3), -1), ((0, 3), 0), ((3, 5), 10), non_contiguous_case=((4, 3), 0)
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "triu",
        lambda a, k: ops.triu(a, k),
        lambda a, k: np.triu(a, k),
        _tensor_and_args_samples(
            ((3, 4), 0), ((4, 3), -1), ((2, 3, 3), 1), ((3, 0), 0), ((3, 5), -10), non_contiguous_case=((4, 3), 1)
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "unfold",
        lambda a, dim, size, step: ops.unfold(a, dim, size, step),
        _unfold_ref,
        _tensor_and_args_samples(
            ((7, 3), 0, 3, 2),
            ((4, 5), 1, 2, 1),
            ((5,), 0, 5, 1),
            ((2, 3, 4), -1, 2, 3),
            ((6,), 0, 2, 2),
            ((), 0, 1, 1),
            ((0, 3), 1, 2, 1),
            non_contiguous_case=((5, 4), 0, 2, 1),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
    # Contiguous inputs: as_strided addresses the storage, which a strided sample's is not.
    OpInfo(
        "as_strided",
        lambda a, size, stride, offset=None: ops.as_strided(a, size, stride, offset),
        _as_strided_ref,
        _tensor_and_args_samples(
            ((4, 5), [3, 3], [1, 2], 1),
            ((6,), [2, 3], [1, 1]),
            ((3, 4), [4, 3], [1, 4], 0),
            ((2, 3), [2, 2, 2], [0, 1, 3], 0),
            ((5,), [0], [1], 2),
            ((2, 2), [], [], 3),
        ),
        ALL_DTYPES,
        differentiable=True,
    ),
]
