"""Indexing functions of PyTorch's API written over gather/scatter/index_select/where: nonzero
(argwhere), take, take_along_dim, index_fill, index_copy, masked_scatter, scatter_reduce and
scatter(reduce=); and nested sequences inside an index tuple (x[((0, 1),)] indexes as x[[0, 1]])."""

import builtins

import numpy as np

from . import _C
from ._composite_args import as_bool, as_int, as_str, check_tensor, is_floating, wrap_dim
from ._tensor_conversions import _nonzero_indices

_f = _C._functions
_Tensor = _C.Tensor
_dt = _C.dtype


def _check_int64_index(fn, index):
    check_tensor(fn, "index", index)
    if index.dtype != _dt.int64:
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index, got {index.dtype}")


def _on_meta(*tensors):
    return builtins.any(str(t.device) == "meta" for t in tensors)


# ---- nonzero
def nonzero(input, *, as_tuple=False):
    """The indices of input's nonzero elements: an (n, dims) int64 tensor, or one index tensor per dim."""
    check_tensor("nonzero", "input", input)
    as_tuple = as_bool("nonzero", "as_tuple", as_tuple)
    indices = _nonzero_indices(input)
    if as_tuple:
        return indices
    if input.dim() == 0:
        return _f.zeros([indices[0].shape[0], 0], dtype=_dt.int64, device=input.device)
    return _f.stack(list(indices), 1)


def argwhere(input):
    return nonzero(input)


# ---- take, take_along_dim
def take(input, index):
    """input as if flattened, indexed by index (negative indices count from the end); index's shape."""
    check_tensor("take", "input", input)
    check_tensor("take", "index", index)
    if index.dtype != _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    return input.reshape([-1])[index]


def take_along_dim(input, indices, dim=None):
    """gather along dim with input and indices broadcast in the other dims; dim=None: both flattened."""
    check_tensor("take_along_dim", "input", input)
    check_tensor("take_along_dim", "indices", indices)
    if indices.dtype != _dt.int64:
        raise RuntimeError(f"take_along_dim(): dtype of indices should be int64 but got {indices.dtype}")
    if dim is None:
        return input.reshape([-1]).gather(0, indices.reshape([-1]))
    if input.dim() != indices.dim():
        raise RuntimeError(
            f"take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{input.dim()} dimensions for input, and {indices.dim()} dimensions for indices"
        )
    d = wrap_dim("take_along_dim", dim, input.dim())
    if input.dim() == 0:
        return input.reshape([1]).gather(0, indices.reshape([1])).reshape([])
    from ._shape_ops import broadcast_shapes

    a, b = list(input.shape), list(indices.shape)
    a[d] = b[d] = 1
    shape = list(broadcast_shapes(a, b))
    input_shape, index_shape = list(shape), list(shape)
    input_shape[d], index_shape[d] = input.shape[d], indices.shape[d]
    return input.expand(input_shape).gather(d, indices.expand(index_shape))


# ---- index_fill, index_copy
def _along(index, dim, ndim):
    shape = [1] * ndim
    shape[dim] = -1
    return index.reshape(shape)


def _slice_mask(fn, input, dim, index):
    """A bool tensor broadcastable to input, true at the slices index names along dim."""
    check_tensor(fn, "index", index)
    if index.dtype != _dt.int64:  # an IndexError here, as PyTorch's index_fill
        raise IndexError(f"{fn}(): Expected dtype int64 for index, got {index.dtype}")
    if index.dim() > 1:
        raise RuntimeError(f"{fn}(): Index is supposed to be a vector, got {index.dim()} dims")
    d = wrap_dim(fn, dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    index = index.reshape([-1])
    if not _on_meta(index) and index.numel():
        bad = ((index < -n) | (index >= n)).sum().item()
        if bad:
            raise IndexError(f"{fn}(): index out of range for dim {d} of size {n}")
    index = _f.where(index < 0, index + n, index)
    mask = _f.zeros([n], dtype=_dt.bool, device=input.device).scatter(0, index, True)
    return mask if input.dim() == 0 else _along(mask, d, input.dim()), d


def index_fill(input, dim, index, value):
    """input with the slices index names along dim set to value (a number or a 0-d tensor)."""
    check_tensor("index_fill", "input", input)
    if isinstance(value, _Tensor) and value.dim() != 0:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.dim()} dimension(s)."
        )
    mask, _ = _slice_mask("index_fill", input, dim, index)
    return input.masked_fill(mask.reshape([]) if input.dim() == 0 else mask, value)


def index_fill_(self, dim, index, value):
    mask, _ = _slice_mask("index_fill_", self, dim, index)
    return self.masked_fill_(mask.reshape([]) if self.dim() == 0 else mask, value)


def _index_copy_scatter(fn, input, dim, index, source):
    check_tensor(fn, "input", input)
    check_tensor(fn, "source", source)
    check_tensor(fn, "index", index)
    if index.dim() > 1:
        raise IndexError(f"{fn}(): Index should have dimension 1 or 0 (got {index.dim()})")
    _check_int64_index(fn, index)
    d = wrap_dim(fn, dim, input.dim())
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"{fn}(): self and source expected to have the same dtype, but got (self) {input.dtype} and "
            f"(source) {source.dtype}"
        )
    if input.dim() == 0 or source.dim() == 0:
        input_, source_ = input.reshape([-1]), source.reshape([-1])
        if source_.shape[0] != index.numel():
            raise RuntimeError(f"{fn}(): Number of indices ({index.numel()}) should be equal to source.size(dim)")
        return input_, 0, index.reshape([-1]), source_
    expected = list(input.shape)
    expected[d] = index.numel()
    if list(source.shape) != expected:
        raise RuntimeError(
            f"{fn}(): source of shape {list(source.shape)} does not match self of shape {list(input.shape)} "
            f"with {index.numel()} indices along dim {d} (expected {expected})"
        )
    return input, d, _along(index.reshape([-1]), d, input.dim()).expand(expected), source


def index_copy(input, dim, index, source):
    """input with its slice index[i] along dim replaced by source's slice i."""
    flat, d, spread, source = _index_copy_scatter("index_copy", input, dim, index, source)
    return flat.scatter(d, spread, source).reshape(list(input.shape))


def index_copy_(self, dim, index, source):
    flat, d, spread, source = _index_copy_scatter("index_copy_", self, dim, index, source)
    if flat is self:
        return self.scatter_(d, spread, source)
    return self.copy_(flat.scatter(d, spread, source).reshape(list(self.shape)))


# ---- masked_scatter
def masked_scatter(input, mask, source):
    """input with the positions where mask (broadcast to input) is true filled from source's leading
    elements, in row-major order."""
    check_tensor("masked_scatter", "input", input)
    check_tensor("masked_scatter", "mask", mask)
    check_tensor("masked_scatter", "source", source)
    if mask.dtype != _dt.bool:
        raise RuntimeError(f"masked_scatter_: expected BoolTensor for mask, got {mask.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"masked_scatter_: expected self and source to have same dtypes but got {input.dtype} and {source.dtype}"
        )
    mask = mask.expand(list(input.shape))
    order = mask.reshape([-1]).to(_dt.int64).cumsum(0) - 1
    flat_source = source.reshape([-1])
    if not _on_meta(input, mask, source):
        count = builtins.int(order[-1].item()) + 1 if order.numel() else 0
        if count > flat_source.numel():
            raise RuntimeError(
                f"masked_scatter: expected source to have at least {count} elements (the number of true "
                f"elements of mask), got {flat_source.numel()}"
            )
    if flat_source.numel() == 0:  # nothing to pick (mask all false): any element serves where() below
        flat_source = _f.zeros([1], dtype=input.dtype, device=input.device)
    picked = flat_source.index_select(0, order.clamp(min=0)).reshape(list(input.shape))
    return _f.where(mask, picked, input)


def masked_scatter_(self, mask, source):
    return self.copy_(masked_scatter(self, mask, source))


# ---- scatter_reduce and scatter(reduce=)
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _extreme(dtype, largest):
    if dtype == _dt.bool:
        return largest
    if dtype in (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16):
        return float("inf") if largest else float("-inf")
    info = np.iinfo(str(dtype).split(".")[-1])
    return builtins.int(info.max if largest else info.min)


def _pad_to(t, shape, value):
    """t grown with `value` at the end of each dim to `shape`."""
    for d, size in enumerate(shape):
        if t.shape[d] < size:
            pad_shape = list(t.shape)
            pad_shape[d] = size - t.shape[d]
            t = _f.cat([t, _f.full(pad_shape, value, dtype=t.dtype, device=t.device)], d)
    return t


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """input with src's elements reduced (sum, prod, mean, amax, amin) into the positions index names
    along dim; include_self=False leaves input's own values out where something lands.

    sum and mean go through scatter_add; amax and amin through two stable sorts (by value, then by
    target), which leave each target's extreme at the end of its run, scattered once; prod compares
    each position with every index along dim (a temporary of input.size(dim) x index.size(dim) per
    line). Autograd comes from the operators; amax/amin give a tie's gradient to one of the tied
    elements (PyTorch splits it evenly)."""
    for name, value in (("input", input), ("src", src)):
        check_tensor("scatter_reduce", name, value)
    as_int("scatter_reduce", "dim", dim)
    as_str("scatter_reduce", "reduce", reduce)
    include_self = as_bool("scatter_reduce", "include_self", include_self)
    _check_int64_index("scatter_reduce", index)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch takes these spellings too
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if src.dtype != input.dtype:
        raise RuntimeError(
            f"scatter_reduce(): Expected self.dtype to be equal to src.dtype ({input.dtype} vs {src.dtype})"
        )
    if not (index.dim() == input.dim() == src.dim()):
        raise RuntimeError("scatter_reduce(): Index tensor must have the same number of dimensions as self tensor")
    d = wrap_dim("scatter_reduce", dim, input.dim())
    if input.dim() == 0:
        return scatter_reduce(input.reshape([1]), 0, index.reshape([1]), src.reshape([1]), reduce,
                              include_self=include_self).reshape([])  # fmt: skip
    for k in range(input.dim()):
        if index.shape[k] > src.shape[k] or k != d and index.shape[k] > input.shape[k]:
            raise RuntimeError(
                f"scatter_reduce(): Expected index {list(index.shape)} to be smaller than self {list(input.shape)} "
                f"apart from dimension {d} and to be smaller size than src {list(src.shape)}"
            )
    n = input.shape[d]
    if index.numel() and not _on_meta(index):
        bad = ((index < 0) | (index >= n)).sum().item()
        if bad:
            raise RuntimeError(f"scatter_reduce(): index out of bounds for dimension {d} with size {n}")
    if reduce == "sum":
        base = input if include_self else input.scatter(d, index, 0)
        return base.scatter_add(d, index, src)
    if reduce == "mean":
        return _scatter_mean(input, d, index, src, include_self)
    if reduce in ("amax", "amin"):
        return _scatter_extreme(input, d, index, src, include_self, reduce == "amax")
    for k in range(src.dim()):
        src = src.narrow(k, 0, index.shape[k])
    padded = list(input.shape)
    padded[d] = index.shape[d]
    index, src = _pad_to(index, padded, -1), _pad_to(src, padded, 0)  # -1 lands nowhere
    x, i, s = input.movedim(d, -1), index.movedim(d, -1), src.movedim(d, -1)
    positions = _f.arange(n, dtype=_dt.int64, device=input.device).reshape([n, 1])
    member = i.unsqueeze(-2) == positions  # [..., n, m]: does source m land on position n
    values = s.unsqueeze(-2).expand(list(member.shape))
    if include_self:
        member = _f.cat([_f.ones(list(x.shape) + [1], dtype=_dt.bool, device=x.device), member], -1)
        values = _f.cat([x.unsqueeze(-1), values], -1)
    count = member.sum(-1)
    if reduce in ("sum", "mean"):
        reduced = _f.where(member, values, 0).sum(-1).to(x.dtype)
        if reduce == "mean":
            divisor = count.clamp(min=1)
            if is_floating(x):
                reduced = reduced / divisor.to(x.dtype)
            else:
                reduced = reduced.floor_divide(divisor).to(x.dtype)
    elif reduce == "prod":
        reduced = _f.where(member, values, 1).prod(-1).to(x.dtype)
    else:
        largest = reduce == "amax"
        filler = _extreme(x.dtype, not largest)
        masked = _f.where(member, values, filler)
        reduced = masked.amax(-1) if largest else masked.amin(-1)
    return _f.where(count > 0, reduced, x).movedim(-1, d)


def _scatter_mean(input, d, index, src, include_self):
    zeros = _f.zeros(list(input.shape), dtype=input.dtype, device=input.device)
    sums = zeros.scatter_add(d, index, src)
    ones = _f.ones(list(index.shape), dtype=_dt.int64, device=input.device)
    counts = _f.zeros(list(input.shape), dtype=_dt.int64, device=input.device).scatter_add(d, index, ones)
    if include_self:
        sums, counts = sums + input, counts + 1
    divisor = counts.clamp(min=1)
    if is_floating(input):
        mean = sums / divisor.to(input.dtype)
    else:  # integers divide rounding down, as PyTorch's
        mean = sums.floor_divide(divisor).to(input.dtype)
    return _f.where(counts > 0, mean, input)


def _scatter_extreme(input, d, index, src, include_self, largest):
    """amax/amin: per line, src sorted by value (stable), then by target (stable): each target's run
    ends with its extreme, and only those ends are scattered (to a spare column n otherwise)."""
    n = input.shape[d]
    for k in range(src.dim()):
        src = src.narrow(k, 0, index.shape[k])
    padded = list(input.shape)
    padded[d] = index.shape[d]
    index, src = _pad_to(index, padded, n), _pad_to(src, padded, 0)  # target n: the spare column
    x, i, s = input.movedim(d, -1), index.movedim(d, -1), src.movedim(d, -1)
    lines, m = list(x.shape[:-1]), i.shape[-1]
    rows = 1
    for size in lines:
        rows *= size
    x, i, s = x.reshape([rows, n]), i.reshape([rows, m]), s.reshape([rows, m])
    by_value = s.detach().sort(1, descending=not largest).indices
    targets, by_target = i.gather(1, by_value).sort(1)
    order = by_value.gather(1, by_target)
    if m > 1:
        ends = _f.cat(
            [
                targets.narrow(1, 1, m - 1) != targets.narrow(1, 0, m - 1),
                _f.ones([rows, 1], dtype=_dt.bool, device=x.device),
            ],
            1,
        )
    else:
        ends = _f.ones([rows, m], dtype=_dt.bool, device=x.device)
    destination = _f.where(ends, targets, n)
    spare = _f.zeros([rows, n + 1], dtype=x.dtype, device=x.device)
    reduced = spare.scatter(1, destination, s.gather(1, order)).narrow(1, 0, n)
    hit = _f.zeros([rows, n + 1], dtype=_dt.bool, device=x.device).scatter(1, destination, True).narrow(1, 0, n)
    if include_self:
        reduced = _f.maximum(reduced, x) if largest else _f.minimum(reduced, x)
    result = _f.where(hit, reduced, x)
    return result.reshape(lines + [n]).movedim(-1, d)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    return self.copy_(scatter_reduce(self, dim, index, src, reduce, include_self=include_self))


def _scatter_with_reduce(scatter_fn):
    """scatter(dim, index, src or value, reduce='add'|'multiply') as PyTorch's (without reduce: the operator)."""

    def scatter(input, dim, index, src=None, value=None, *, reduce=None):
        if src is None and value is None:
            raise TypeError("scatter(): missing the argument 'src' or 'value'")
        given = src if src is not None else value
        if reduce is None:
            if value is not None and src is None:
                return scatter_fn(input, dim, index, value=value)
            return scatter_fn(input, dim, index, given)
        as_str("scatter", "reduce", reduce)
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
        check_tensor("scatter", "input", input)
        _check_int64_index("scatter", index)
        if not isinstance(given, _Tensor):
            given = _f.full(list(index.shape), given, dtype=input.dtype, device=input.device)
        if reduce == "add":
            return input.scatter_add(dim, index, given)
        return scatter_reduce(input, dim, index, given, "prod")

    return scatter


scatter = _scatter_with_reduce(_f.scatter)
_tensor_scatter = _scatter_with_reduce(_Tensor.scatter)
_tensor_scatter_inplace = _Tensor.scatter_


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    if reduce is None:
        if src is None:
            return _tensor_scatter_inplace(self, dim, index, value=value)
        return _tensor_scatter_inplace(self, dim, index, src)
    return self.copy_(_tensor_scatter(self, dim, index, src, value, reduce=reduce))


# ---- nested sequences in an index tuple
def _sequences_as_lists(index):
    """The index with tuples inside an index tuple turned into lists (sequence indices); None when
    nothing changes."""
    if not isinstance(index, tuple):
        return None
    changed = False
    items = []
    for item in index:
        if isinstance(item, tuple):
            item, changed = _nested_list(item), True
        items.append(item)
    return tuple(items) if changed else None


def _nested_list(value):
    return [_nested_list(v) if isinstance(v, (tuple, list)) else v for v in value]


_getitem = _Tensor.__getitem__
_setitem = _Tensor.__setitem__


def __getitem__(self, index):
    try:
        return _getitem(self, index)
    except TypeError:
        fixed = _sequences_as_lists(index)
        if fixed is None:
            raise
    return _getitem(self, fixed)


def __setitem__(self, index, value):
    try:
        return _setitem(self, index, value)
    except TypeError:
        fixed = _sequences_as_lists(index)
        if fixed is None:
            raise
    return _setitem(self, fixed, value)


_Tensor.__getitem__ = __getitem__
_Tensor.__setitem__ = __setitem__

METHODS = {
    "nonzero": nonzero,
    "argwhere": argwhere,
    "take": take,
    "take_along_dim": take_along_dim,
    "index_fill": index_fill,
    "index_fill_": index_fill_,
    "index_copy": index_copy,
    "index_copy_": index_copy_,
    "masked_scatter": masked_scatter,
    "masked_scatter_": masked_scatter_,
    "scatter_reduce": scatter_reduce,
    "scatter_reduce_": scatter_reduce_,
    "scatter": _tensor_scatter,
    "scatter_": scatter_,
}
# Every out-of-place method is a function too (scatter's function takes `reduce=` as its own).
FUNCTIONS = dict({name: fn for name, fn in METHODS.items() if not name.endswith("_")}, scatter=scatter)
for _name, _fn in METHODS.items():
    setattr(_Tensor, _name, _fn)
del _name, _fn
