"""Reductions of PyTorch's API written over the operators: any/all, count_nonzero, nansum/nanmean,
std_mean/var_mean, aminmax, median, kthvalue, mode, norm, argsort and unique. Those that select an
element (median, kthvalue, mode) find its index with a stable sort and take the value with gather,
so the gradient reaches exactly that element, as PyTorch's."""

import builtins

import numpy as np

from . import _C, return_types
from ._composite_args import as_bool, as_int, check_tensor, is_floating, wrap_dim, wrap_dims
from ._dim_arguments import rename_dim_aliases

_f = _C._functions
_Tensor = _C.Tensor
_dt = _C.dtype


def _dims(fn, input, dim):
    """The dims a reduction runs over: all of them for None (or an empty list)."""
    if dim is None or isinstance(dim, (list, tuple)) and not len(dim):
        return list(range(input.dim()))
    return wrap_dims(fn, dim, input.dim())


def _with_axis(fn):
    """fn taking axis=/keepdims= as aliases of dim=/keepdim=."""

    def call(*args, **kwargs):
        if kwargs:
            rename_dim_aliases(fn.__name__, kwargs)
        return fn(*args, **kwargs)

    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__name__, fn.__doc__
    return call


def _reduce_sum(x, dims, keepdim):
    return x.sum(dims, keepdim=keepdim) if dims else x.sum()  # no dims: a 0-d tensor


# ---- any, all, count_nonzero
def _logical(fn, input, dim, keepdim, test):
    check_tensor(fn, "input", input)
    dims = _dims(fn, input, dim)
    hits = _reduce_sum(test(input), dims, keepdim)
    result = hits > 0 if fn == "any" else hits == 0
    return result.to(_dt.uint8) if input.dtype == _dt.uint8 else result  # as PyTorch: uint8 stays uint8


@_with_axis
def any(input, dim=None, keepdim=False):  # noqa: A001
    """Whether any element (along dim) is nonzero; bool (uint8 for uint8 input)."""
    return _logical("any", input, dim, keepdim, lambda x: x != 0)


@_with_axis
def all(input, dim=None, keepdim=False):  # noqa: A001
    """Whether every element (along dim) is nonzero; bool (uint8 for uint8 input)."""
    return _logical("all", input, dim, keepdim, lambda x: x == 0)


@_with_axis
def count_nonzero(input, dim=None):
    check_tensor("count_nonzero", "input", input)
    return _reduce_sum(input != 0, _dims("count_nonzero", input, dim), False).to(_dt.int64)


# ---- sums and means that skip NaN
@_with_axis
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    check_tensor("nansum", "input", input)
    x = _f.where(input.isnan(), 0, input) if is_floating(input) else input
    dims = _dims("nansum", input, dim)
    if not dims:
        return x.to(dtype) if dtype is not None else (x.to(_dt.int64) if not is_floating(x) else x.clone())
    return x.sum(dims, keepdim=keepdim, dtype=dtype)


@_with_axis
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    check_tensor("nanmean", "input", input)
    if not is_floating(input):
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {input.dtype}")
    count = _reduce_sum(~input.isnan(), _dims("nanmean", input, dim), keepdim)
    total = nansum(input, dim, keepdim, dtype=dtype)
    return total / count.to(total.dtype)


# ---- std_mean, var_mean, aminmax
def _moments(fn, spread, input, dim, unbiased, keepdim, correction):
    check_tensor(fn, "input", input)
    if isinstance(dim, builtins.bool):  # std_mean(x, False): the legacy unbiased flag in dim's place
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise RuntimeError(f"{fn}(): cannot specify both unbiased and correction")
    dims = None if dim is None else _dims(fn, input, dim)
    return (
        spread(input, dims, correction=correction, keepdim=keepdim),
        input.mean(dims if dims is not None else list(range(input.dim())), keepdim=keepdim)
        if dims is not None or keepdim
        else input.mean(),
    )


@_with_axis
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over dim, in one call."""
    return _moments("std_mean", _f.std, input, dim, unbiased, keepdim, correction)


@_with_axis
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over dim, in one call."""
    return _moments("var_mean", _f.var, input, dim, unbiased, keepdim, correction)


@_with_axis
def aminmax(input, *, dim=None, keepdim=False):
    check_tensor("aminmax", "input", input)
    if input.numel() == 0 and (dim is None or input.dim() and input.shape[wrap_dim("aminmax", dim, input.dim())] == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity")
    dims = [] if dim is None else [wrap_dim("aminmax", dim, input.dim())]
    if input.dim() == 0:
        return return_types.aminmax(input.clone(), input.clone())
    if dim is None and keepdim:
        dims = list(range(input.dim()))
    return return_types.aminmax(input.amin(dims, keepdim=keepdim), input.amax(dims, keepdim=keepdim))


# ---- median, kthvalue, mode: an element picked by position in a stable sort
def _picked(fn, result_type, input, dim, keepdim, position):
    """The element of input at sorted position `position(sorted_values, n)` along dim (a tensor of
    positions, shaped as the sorted values with dim of size 1), as (values, indices)."""
    d = wrap_dim(fn, dim, input.dim())
    if input.dim() == 0:
        return result_type(input.clone(), _f.zeros([], dtype=_dt.int64, device=input.device))
    n = input.shape[d]
    if n == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    values, order = input.detach().sort(d)  # detached: only the final gather is differentiated
    indices = order.gather(d, position(values, n, d))
    result = input.gather(d, indices)
    if not keepdim:
        result, indices = result.squeeze(d), indices.squeeze(d)
    return result_type(result, indices)


def _constant_position(values, d, k):
    shape = list(values.shape)
    shape[d] = 1
    return _f.full(shape, k, dtype=_dt.int64, device=values.device)


def _median_position(values, n, d):
    """The lower middle; the first NaN when there is one (the sort puts NaN last, in order)."""
    lower = _constant_position(values, d, (n - 1) // 2)
    if not is_floating(values):
        return lower
    nans = values.isnan().sum(d, keepdim=True)
    return _f.where(nans > 0, n - nans, lower)


def _lowest(dtype):
    if dtype == _dt.bool:
        return False
    return builtins.int(np.iinfo(str(dtype).split(".")[-1]).min)


def median(input, dim=None, keepdim=False):
    """median(x): the lower of the two middle values of all elements (NaN if any is NaN).
    median(x, dim): (values, indices) along dim."""
    check_tensor("median", "input", input)
    if dim is None:
        if input.numel() == 0:  # NaN, or for integers what NaN converts to in PyTorch (the lowest value)
            empty = float("nan") if is_floating(input) else _lowest(input.dtype)
            return _f.full([], empty, dtype=input.dtype, device=input.device)
        return _picked("median", return_types.median, input.reshape([-1]), 0, False, _median_position).values
    return _picked("median", return_types.median, input, dim, keepdim, _median_position)


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices) of the k-th smallest element (k from 1) along dim."""
    check_tensor("kthvalue", "input", input)
    k = as_int("kthvalue", "k", k)
    n = input.shape[wrap_dim("kthvalue", dim, input.dim())] if input.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim} (k = {k}, size {n})")
    return _picked(
        "kthvalue", return_types.kthvalue, input, dim, keepdim, lambda v, n, d: _constant_position(v, d, k - 1)
    )


def _mode_position(values, n, d):
    """The end of the longest run of equal sorted values (the smallest such value on ties): its
    original index is the last occurrence of the most frequent value."""
    starts = _f.ones(list(values.shape), dtype=_dt.bool, device=values.device)
    if n > 1:
        same = values.narrow(d, 1, n - 1) == values.narrow(d, 0, n - 1)
        if is_floating(values):  # NaNs are equal to each other here
            same = same | (values.narrow(d, 1, n - 1).isnan() & values.narrow(d, 0, n - 1).isnan())
        first = _f.ones(list(values.narrow(d, 0, 1).shape), dtype=_dt.bool, device=values.device)
        starts = _f.cat([first, ~same], d)
    run = starts.to(_dt.int64).cumsum(d) - 1
    lengths = _f.zeros(list(values.shape), dtype=_dt.int64, device=values.device).scatter_add(
        d, run, _f.ones(list(values.shape), dtype=_dt.int64, device=values.device)
    )
    longest = lengths.argmax(d, keepdim=True)  # the first (smallest value) of the longest runs
    ends = lengths.cumsum(d) - 1  # where each run ends in sorted order
    return ends.gather(d, longest)


def mode(input, dim=-1, keepdim=False):
    """(values, indices): the most frequent value along dim (the smallest on ties) and the index of its
    last occurrence."""
    check_tensor("mode", "input", input)
    return _picked("mode", return_types.mode, input, dim, keepdim, _mode_position)


# ---- norm
@_with_axis
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norms over dim (all elements for None): p a number (inf, -inf and 0 included) or
    'fro' (the 2-norm of the elements)."""
    check_tensor("norm", "input", input)
    if dtype is not None:
        input = input.to(dtype)
    if not is_floating(input):
        raise RuntimeError(f"norm(): input dtype should be floating point, got {input.dtype}")
    if p is None or p == "fro":
        p = 2
    elif p == "nuc":
        raise NotImplementedError("norm(): p='nuc' (the nuclear norm) needs singular values, which glassbox lacks")
    elif isinstance(p, str) or not isinstance(p, (builtins.int, builtins.float)):
        raise RuntimeError(f"norm(): unsupported p {p!r} (expected a number, 'fro' or 'nuc')")
    dims = _dims("norm", input, dim)
    a = input.abs()
    if not dims:  # 0-d
        if p == 0:
            return (input != 0).to(input.dtype)
        return a
    if p == float("inf"):
        return a.amax(dims, keepdim=keepdim)
    if p == float("-inf"):
        return a.amin(dims, keepdim=keepdim)
    if p == 0:
        # the count, plus an exact zero that keeps the result on the graph (PyTorch's gradient is zero)
        zero = _f.where(a.isnan(), 0, a).clamp(max=0).sum(dims, keepdim=keepdim)
        return (input != 0).sum(dims, keepdim=keepdim).to(input.dtype) + zero
    if p == 1:
        return a.sum(dims, keepdim=keepdim)
    if p == 2:
        return (input * input).sum(dims, keepdim=keepdim).sqrt()
    return (a**p).sum(dims, keepdim=keepdim) ** (1.0 / p)


# ---- argsort, unique
@_with_axis
def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort input along dim (equal elements keep their order: the sort is stable)."""
    check_tensor("argsort", "input", input)
    descending = as_bool("argsort", "descending", descending)
    as_bool("argsort", "stable", stable)
    return input.sort(dim, descending=descending).indices


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements, ascending (always sorted, as PyTorch's CPU kernel), with the index of
    each input element's value among them (return_inverse) and each value's count (return_counts)."""
    check_tensor("unique", "input", input)
    for name, flag in (("sorted", sorted), ("return_inverse", return_inverse), ("return_counts", return_counts)):
        as_bool("unique", name, flag)
    if dim is not None:
        return _unique_slices(
            input, wrap_dim("unique", as_int("unique", "dim", dim), input.dim()), return_inverse, return_counts
        )
    flat = input.detach().reshape([-1])
    values, order = flat.sort(0)
    n = flat.shape[0]
    starts = _f.ones([n], dtype=_dt.bool, device=flat.device)
    if n > 1:
        starts = _f.cat([starts.narrow(0, 0, 1), values.narrow(0, 1, n - 1) != values.narrow(0, 0, n - 1)], 0)
    result = [values.masked_select(starts)]
    if return_inverse or return_counts:
        run = starts.to(_dt.int64).cumsum(0) - 1
        if return_inverse:
            inverse = _f.zeros([n], dtype=_dt.int64, device=flat.device).scatter(0, order, run)
            result.append(inverse.reshape(list(input.shape)))
        if return_counts:
            counts = _f.zeros([result[0].shape[0]], dtype=_dt.int64, device=flat.device)
            result.append(counts.scatter_add(0, run, _f.ones([n], dtype=_dt.int64, device=flat.device)))
    return result[0] if len(result) == 1 else tuple(result)


def _unique_slices(input, dim, return_inverse, return_counts):
    """unique(dim=d): the distinct slices along d, in lexicographic order of their elements (a
    stable sort per element, last one first), with each slice's index among them and the counts."""
    moved = input.detach().movedim(dim, 0)
    n, rest = moved.shape[0], list(moved.shape[1:])
    if 0 in rest:
        raise RuntimeError(f"unique: dim {dim} has size {n}, and another dim has size 0: no slice has an element")
    rows = moved.reshape([n, int(np.prod(rest))])
    device = input.device
    order = _f.arange(n, dtype=_dt.int64, device=device)
    for column in reversed(range(rows.shape[1])):
        _, permutation = rows.index_select(0, order).select(1, column).sort(0)  # glassbox's sort is stable
        order = order.index_select(0, permutation)
    ordered = rows.index_select(0, order)
    starts = _f.ones([n], dtype=_dt.bool, device=device)
    if n > 1:
        differs = (ordered.narrow(0, 1, n - 1) != ordered.narrow(0, 0, n - 1)).any(1)
        starts = _f.cat([starts.narrow(0, 0, 1), differs], 0)
    firsts = starts.nonzero().reshape([-1])
    values = ordered.index_select(0, firsts).reshape([firsts.shape[0]] + list(moved.shape[1:])).movedim(0, dim)
    result = [values]
    run = starts.to(_dt.int64).cumsum(0) - 1
    if return_inverse:
        result.append(_f.zeros([n], dtype=_dt.int64, device=device).scatter(0, order, run))
    if return_counts:
        counts = _f.zeros([firsts.shape[0]], dtype=_dt.int64, device=device)
        result.append(counts.scatter_add(0, run, _f.ones([n], dtype=_dt.int64, device=device)))
    return result[0] if len(result) == 1 else tuple(result)


FUNCTIONS = {
    "any": any,
    "all": all,
    "count_nonzero": count_nonzero,
    "nansum": nansum,
    "nanmean": nanmean,
    "std_mean": std_mean,
    "var_mean": var_mean,
    "aminmax": aminmax,
    "median": _with_axis(median),
    "kthvalue": _with_axis(kthvalue),
    "mode": _with_axis(mode),
    "norm": norm,
    "argsort": argsort,
    "unique": unique,
}
for _name in ("any", "all", "count_nonzero", "nansum", "nanmean", "aminmax", "median", "kthvalue", "mode"):
    setattr(_Tensor, _name, FUNCTIONS[_name])
for _name in ("norm", "argsort", "unique"):
    setattr(_Tensor, _name, FUNCTIONS[_name])
del _name
