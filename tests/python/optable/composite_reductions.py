"""The reductions and scans written in Python over the operators (glassbox/_reductions_extra.py and
_scans.py: any, all, count_nonzero, nansum, nanmean, std_mean, var_mean, aminmax, median, kthvalue,
mode, norm, argsort, unique, cumprod, cummax, cummin, logcumsumexp), against NumPy."""

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, make_array, non_contiguous
from .reductions import dim_samples, dims_samples

FLOATS = FLOAT + HALF
NUMERIC = FLOATS + INT


def _axis(a, dim):
    if a.ndim == 0 or dim is None:
        return None
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def logical_samples(rng, dtype):
    out = dims_samples()(rng, dtype)
    out += [Sample([make_array(rng, s, dtype)], name=f"all of {s}") for s in ((), (0,), (3, 4))]
    if dtype in FLOATS:
        x = make_array(rng, (3, 4), dtype)
        x[0] = 0
        x[1, 1] = np.nan
        out.append(Sample([x, [1], False], name="zeros and NaN"))
    return out


def logical_ref(kind):
    def ref(a, dim=None, keepdim=False):
        test = np.any if kind == "any" else np.all
        r = test(a != 0, axis=_axis(a, dim), keepdims=keepdim and a.ndim > 0)
        return np.asarray(r).astype(np.uint8 if a.dtype == np.uint8 else bool)

    return ref


def logical_dtype(dtype):
    return "uint8" if dtype == "uint8" else "bool"


def count_nonzero_ref(a, dim=None, keepdim=False):
    return np.asarray(np.count_nonzero(a, axis=_axis(a, dim))).astype(np.int64)


def count_nonzero_samples(rng, dtype):
    return [Sample(s.args[:2], name=s.name) for s in dims_samples()(rng, dtype)] + [
        Sample([make_array(rng, (3, 4), dtype)], name="all")
    ]


def with_nans(rng, dtype):
    out = []
    for s in dims_samples()(rng, dtype):
        a = s.args[0].copy()
        if a.size:
            a.reshape(-1)[:: max(1, a.size // 3)] = np.nan
        out.append(Sample([a, *s.args[1:]], name=s.name + " with NaN"))
    out.append(Sample([make_array(rng, (3, 4), dtype)], name="all, no NaN"))
    return out


def nansum_ref(a, dim=None, keepdim=False):
    return np.nansum(a, axis=_axis(a, dim), keepdims=keepdim)


def nanmean_ref(a, dim=None, keepdim=False):
    axis = _axis(a, dim)
    total = np.nansum(a, axis=axis, keepdims=keepdim)
    count = np.sum(~np.isnan(a), axis=axis, keepdims=keepdim)
    return total / count


def moments_samples(rng, dtype):
    out = []
    for s in dims_samples()(rng, dtype):
        a, dim, keepdim = s.args
        out.append(Sample([a, dim], {"keepdim": keepdim, "correction": 1 if len(out) % 2 else 0}, name=s.name))
    out.append(Sample([make_array(rng, (3, 4), dtype)], name="all"))
    return out


def moments_ref(sqrt):
    def ref(a, dim=None, keepdim=False, correction=1):
        axis = _axis(a, dim)
        n = a.size if axis is None else int(np.prod([a.shape[d] for d in np.atleast_1d(axis)]))
        mean = np.mean(a, axis=axis, keepdims=True) if a.size else np.zeros([1] * a.ndim)
        v = np.sum((a - mean) ** 2, axis=axis, keepdims=keepdim) / max(0, n - correction)
        return (np.sqrt(v) if sqrt else v), np.mean(a, axis=axis, keepdims=keepdim)

    return ref


def aminmax_samples(rng, dtype):
    a = lambda s: make_array(rng, s, dtype)  # noqa: E731
    return [
        Sample([a((3, 4))], name="all"),
        Sample([a((3, 4))], {"dim": 1}, name="dim 1"),
        Sample([a((2, 3, 4))], {"dim": -3, "keepdim": True}, name="dim -3 keepdim"),
        Sample([a(())], name="0-d"),
        Sample([a((0, 3))], {"dim": 1}, name="empty"),
        Sample([non_contiguous(a((4, 3)))], {"dim": 0}, name="non-contiguous"),
    ]


def aminmax_ref(a, dim=None, keepdim=False):
    axis = None if a.ndim == 0 else dim
    return np.min(a, axis=axis, keepdims=keepdim), np.max(a, axis=axis, keepdims=keepdim)


# ---- elements picked by sorted position: indices from a stable argsort
def _picked_ref(position):
    """(values, indices) along dim of the element at sorted position(line) of each line."""

    def ref(a, dim=-1, keepdim=False, *extra):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        moved = np.moveaxis(a, dim, -1)
        lines = moved.reshape(-1, moved.shape[-1])
        values, indices = [], []
        for line in lines:
            i = position(line, *extra)
            values.append(line[i])
            indices.append(i)
        shape = moved.shape[:-1]
        v, i = np.array(values, a.dtype).reshape(shape), np.array(indices, np.int64).reshape(shape)
        if keepdim:
            v, i = np.expand_dims(v, dim), np.expand_dims(i, dim)
        return v, i

    return ref


def _median_position(line):
    nans = np.flatnonzero(np.isnan(line)) if line.dtype.kind == "f" else []
    if len(nans):
        return nans[0]
    return np.argsort(line, kind="stable")[(len(line) - 1) // 2]


def _kth_position(line, k):
    return np.argsort(line, kind="stable")[k - 1]


def _mode_position(line):
    values, counts = np.unique(line, return_counts=True)
    best = values[np.argmax(counts)]
    return np.flatnonzero(line == best)[-1]


def select_samples(rng, dtype, with_k=False):
    out = []
    for s in dim_samples(allow_empty_dim=False)(rng, dtype):
        a, dim = s.args
        if a.size and dtype not in ("bool",):  # a few repeated values, so that ties are exercised
            a = np.asarray(np.round(a.astype(np.float64)).astype(a.dtype)) if dtype in FLOATS else a
        args = [a]
        kwargs = {"dim": dim, "keepdim": len(out) % 2 == 1}
        if with_k:
            n = a.shape[dim] if a.ndim else 1
            args.append(1 + len(out) % n if n else 1)
        out.append(Sample(args, kwargs, name=s.name))
    if dtype in FLOATS:
        x = make_array(rng, (3, 5), dtype)
        x[1, 2] = x[2, 0] = x[2, 3] = np.nan
        if not with_k:
            out.append(Sample([x], {"dim": 1}, name="NaN"))
    return out


def median_all_ref(a):
    if a.size == 0:
        return np.asarray(np.nan if a.dtype.kind == "f" else np.iinfo(a.dtype).min, a.dtype)
    flat = a.reshape(-1)
    return np.asarray(flat[_median_position(flat)])


def norm_samples(rng, dtype):
    a = lambda s: make_array(rng, s, dtype)  # noqa: E731
    return [
        Sample([a((3, 4))], name="fro"),
        Sample([a((3, 4)), 1], {"dim": 1}, name="p=1 dim 1"),
        Sample([a((3, 4)), 3], {"dim": (0, 1), "keepdim": True}, name="p=3 keepdim"),
        Sample([a((3, 4)), float("inf")], {"dim": 0}, name="inf"),
        Sample([a((3, 4)), float("-inf")], name="-inf"),
        Sample([a((3, 4)), 0], {"dim": 1}, name="p=0"),
        Sample([a((2, 3, 4)), "fro"], {"dim": (1, 2)}, name="fro of matrices"),
        Sample([a(())], name="0-d"),
        Sample([a((0, 3)), 2], {"dim": 1}, name="empty"),
        Sample([non_contiguous(a((4, 3))), 1.5], {"dim": 0}, name="non-contiguous"),
    ]


def norm_ref(a, p="fro", dim=None, keepdim=False):
    axis = None if a.ndim == 0 else dim
    if p == "fro":
        p = 2
    x = np.abs(a)
    if p == float("inf"):
        return np.max(x, axis=axis, keepdims=keepdim)
    if p == float("-inf"):
        return np.min(x, axis=axis, keepdims=keepdim)
    if p == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
    return np.sum(x**p, axis=axis, keepdims=keepdim) ** (1.0 / p)


def argsort_samples(rng, dtype):
    out = []
    for s in dim_samples()(rng, dtype):
        out.append(Sample(s.args, {"descending": len(out) % 2 == 1}, name=s.name))
    return out


def argsort_ref(a, dim=-1, descending=False):
    if a.ndim == 0:
        return np.zeros((), np.int64)
    key = -a.astype(np.float64) if descending else a.astype(np.float64)
    return np.argsort(key, axis=dim, kind="stable").astype(np.int64)


def unique_samples(rng, dtype):
    a = lambda s: make_array(rng, s, dtype, -2, 2)  # noqa: E731
    return [
        Sample([a((3, 4))], name="values"),
        Sample([a((3, 4))], {"return_inverse": True}, name="inverse"),
        Sample([a((2, 5))], {"return_counts": True}, name="counts"),
        Sample([a((2, 5))], {"return_inverse": True, "return_counts": True}, name="both"),
        Sample([a(())], {"return_inverse": True}, name="0-d"),
        Sample([a((0, 3))], {"return_counts": True}, name="empty"),
        Sample([non_contiguous(a((4, 3)))], {"return_inverse": True}, name="non-contiguous"),
        Sample([a((6, 2))], {"dim": 0, "return_inverse": True, "return_counts": True}, name="rows"),
        Sample([a((2, 7))], {"dim": -1, "return_counts": True}, name="columns"),
        Sample([a((3, 5, 2))], {"dim": 1, "return_inverse": True}, name="middle dim"),
        Sample([non_contiguous(a((5, 3)))], {"dim": 0}, name="rows of a non-contiguous"),
        Sample([a((0, 3))], {"dim": 0, "return_inverse": True}, name="no rows"),
    ]


def unique_ref(a, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:  # the distinct slices along dim, in lexicographic order
        values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
        out = [values] + ([inverse.reshape(-1).astype(np.int64)] if return_inverse else [])
        out += [counts.astype(np.int64)] if return_counts else []
        return out[0] if len(out) == 1 else tuple(out)
    values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
    out = [values]
    if return_inverse:
        out.append(inverse.reshape(a.shape).astype(np.int64))
    if return_counts:
        out.append(counts.astype(np.int64))
    return out[0] if len(out) == 1 else tuple(out)


# ---- scans
def scan_samples(low=-3.0, high=3.0):
    def gen(rng, dtype):
        out = dim_samples(low, high, shapes=((3, 5), (2, 3, 4), (9,)))(rng, dtype)
        if dtype in FLOATS:
            x = np.round(make_array(rng, (2, 7), dtype, low, high))
            x[0, 3] = x[1, 1] = x[1, 5] = np.nan
            out.append(Sample([x, 1], name="ties and NaN"))
        return out

    return gen


def cumprod_ref(a, dim):
    r = np.cumprod(a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int64), axis=dim if a.ndim else None)
    return r.reshape(a.shape).astype(a.dtype if a.dtype.kind == "f" else np.int64)


def running_extreme_ref(largest):
    def ref(a, dim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        moved = np.moveaxis(a, dim, -1)
        values, indices = moved.copy(), np.zeros(moved.shape, np.int64)
        for line in np.ndindex(moved.shape[:-1]):
            best, at = None, 0
            for i, v in enumerate(moved[line]):
                nan_v = moved.dtype.kind == "f" and np.isnan(v)
                nan_best = best is not None and moved.dtype.kind == "f" and np.isnan(best)
                if best is None or nan_v or (not nan_best and (v >= best if largest else v <= best)):
                    best, at = v, i
                values[line + (i,)], indices[line + (i,)] = best, at
        return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)

    return ref


def logcumsumexp_ref(a, dim):
    if a.ndim == 0:
        return a.copy()
    return np.logaddexp.accumulate(a.astype(np.float64), axis=dim)


OPS = [
    OpInfo(
        "any",
        lambda x, *a, **k: gb.any(x, *a, **k),
        logical_ref("any"),
        logical_samples,
        ALL_DTYPES,
        ref_dtype=logical_dtype,
    ),
    OpInfo(
        "all",
        lambda x, *a, **k: x.all(*a, **k),
        logical_ref("all"),
        logical_samples,
        ALL_DTYPES,
        ref_dtype=logical_dtype,
    ),
    OpInfo(
        "count_nonzero",
        lambda x, *a: gb.count_nonzero(x, *a),
        count_nonzero_ref,
        count_nonzero_samples,
        ALL_DTYPES,
        ref_dtype=lambda d: "int64",
    ),
    OpInfo("nansum", lambda x, *a, **k: gb.nansum(x, *a, **k), nansum_ref, with_nans, FLOATS, differentiable=True),
    OpInfo("nanmean", lambda x, *a, **k: x.nanmean(*a, **k), nanmean_ref, with_nans, FLOATS, differentiable=True),
    OpInfo(
        "std_mean",
        lambda x, *a, **k: gb.std_mean(x, *a, **k),
        moments_ref(True),
        moments_samples,
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "var_mean",
        lambda x, *a, **k: gb.var_mean(x, *a, **k),
        moments_ref(False),
        moments_samples,
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "aminmax",
        lambda x, **k: gb.aminmax(x, **k),
        aminmax_ref,
        aminmax_samples,
        NUMERIC + ("bool",),
        differentiable=True,
    ),
    OpInfo(
        "median",
        lambda x: gb.median(x),
        median_all_ref,
        lambda rng, d: [Sample([s.args[0]], name=s.name) for s in select_samples(rng, d)],
        NUMERIC,
        differentiable=True,
    ),
    OpInfo(
        "median.dim",
        lambda x, **k: x.median(**k),
        _picked_ref(_median_position),
        select_samples,
        NUMERIC,
        differentiable=True,
    ),
    OpInfo(
        "kthvalue",
        lambda x, k, **kw: gb.kthvalue(x, k, **kw),
        lambda a, k, dim=-1, keepdim=False: _picked_ref(_kth_position)(a, dim, keepdim, k),
        lambda rng, d: select_samples(rng, d, with_k=True),
        NUMERIC,
        differentiable=True,
    ),
    OpInfo(
        "mode",
        lambda x, **k: gb.mode(x, **k),
        _picked_ref(_mode_position),
        lambda rng, d: [s for s in select_samples(rng, d) if s.name != "NaN"],
        NUMERIC + ("bool",),
        differentiable=True,
    ),
    OpInfo("norm", lambda x, *a, **k: gb.norm(x, *a, **k), norm_ref, norm_samples, FLOATS, differentiable=True),
    OpInfo(
        "argsort",
        lambda x, d, **k: x.argsort(d, **k),
        argsort_ref,
        argsort_samples,
        NUMERIC + ("bool",),
        ref_dtype=lambda d: "int64",
    ),
    OpInfo("unique", lambda x, **k: gb.unique(x, **k), unique_ref, unique_samples, NUMERIC + ("bool",)),
    OpInfo(
        "cumprod",
        lambda x, d: gb.cumprod(x, d),
        cumprod_ref,
        scan_samples(-1.5, 1.5),
        NUMERIC,
        differentiable=True,
        ref_dtype=lambda d: "int64" if d in INT else d,
    ),
    OpInfo(
        "cummax",
        lambda x, d: x.cummax(d),
        running_extreme_ref(True),
        scan_samples(),
        NUMERIC + ("bool",),
        differentiable=True,
    ),
    OpInfo(
        "cummin",
        lambda x, d: gb.cummin(x, dim=d),
        running_extreme_ref(False),
        scan_samples(),
        NUMERIC + ("bool",),
        differentiable=True,
    ),
    OpInfo(
        "logcumsumexp",
        lambda x, d: gb.logcumsumexp(x, d),
        logcumsumexp_ref,
        scan_samples(),
        FLOATS,
        differentiable=True,
    ),
]
