"""Diagonals: diagonal (a view through as_strided, so writes reach the input and autograd comes from
as_strided's backward), diag, diag_embed and trace. gb.trace(tensor) is the sum of the diagonal;
gb.trace() with no argument stays the dispatch-trace context manager."""

import builtins

from . import _C, _trace
from ._composite_args import as_int, check_tensor, wrap_dim

_f = _C._functions
_Tensor = _C.Tensor


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes, offset above (> 0) or below (< 0) the main one, as the
    last dim of a view."""
    check_tensor("diagonal", "input", input)
    offset = as_int("diagonal", "offset", offset)
    as_int("diagonal", "dim1", dim1)
    as_int("diagonal", "dim2", dim2)
    if input.dim() < 2:
        raise RuntimeError(f"diagonal: expected a tensor of at least 2 dims, got {input.dim()}")
    d1 = wrap_dim("diagonal", dim1, input.dim(), "dim1")
    d2 = wrap_dim("diagonal", dim2, input.dim(), "dim2")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape, strides = list(input.shape), list(input.stride())
    if offset >= 0:
        length = builtins.min(shape[d1], shape[d2] - offset)
        start = offset * strides[d2]
    else:
        length = builtins.min(shape[d1] + offset, shape[d2])
        start = -offset * strides[d1]
    length = builtins.max(length, 0)
    keep = [d for d in range(input.dim()) if d not in (d1, d2)]
    size = [shape[d] for d in keep] + [length]
    stride = [strides[d] for d in keep] + [strides[d1] + strides[d2]]
    storage_offset = input.storage_offset() + (start if length else 0)
    return input.as_strided(size, stride, storage_offset)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices in the (dim1, dim2) planes of a result one dim larger, holding input's last dim on
    their offset diagonal and zeros elsewhere."""
    check_tensor("diag_embed", "input", input)
    offset = as_int("diag_embed", "offset", offset)
    ndim = input.dim() + 1
    d1 = wrap_dim("diag_embed", dim1, ndim, "dim1")
    d2 = wrap_dim("diag_embed", dim2, ndim, "dim2")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.dim() == 0:
        input = input.reshape([1])
    n = input.shape[-1]
    eye = _f.eye(n, dtype=_C.dtype.bool, device=input.device)
    # where, not a product with the identity: NaN and inf stay on the diagonal only
    square = _f.where(eye, input.unsqueeze(-1), _f.zeros([], dtype=input.dtype, device=input.device))
    k = builtins.abs(offset)
    if k:
        batch = list(square.shape[:-2])
        cols = _f.zeros(batch + [n, k], dtype=input.dtype, device=input.device)
        rows = _f.zeros(batch + [k, n + k], dtype=input.dtype, device=input.device)
        if offset > 0:  # element i at (i, i + k)
            square = _f.cat([_f.cat([cols, square], -1), rows], -2)
        else:  # element i at (i + k, i)
            square = _f.cat([rows, _f.cat([square, cols], -1)], -2)
    last = ndim - 1
    return square.movedim([last - 1, last], [d1, d2])


def diag(input, diagonal=0):
    """A 1-d input becomes a matrix with it on the diagonal; a matrix gives its diagonal (a copy)."""
    check_tensor("diag", "input", input)
    if input.dim() == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.dim() == 2:
        return globals()["diagonal"](input, diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def trace_of(input):
    """The sum of a matrix's main diagonal (integers sum as int64)."""
    check_tensor("trace", "input", input)
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return diagonal(input).sum()


def trace(*args, **kwargs):
    """trace(input): the sum of the matrix's diagonal. trace(): the dispatch trace of a `with` block
    (see glassbox._trace)."""
    if not args and not kwargs:
        return _trace.trace()
    return trace_of(*args, **kwargs)


trace.__doc__ += "\n\n" + (_trace.trace.__doc__ or "")

_Tensor.diagonal = diagonal
_Tensor.diag = diag
_Tensor.diag_embed = diag_embed
_Tensor.trace = trace_of
FUNCTIONS = {"diagonal": diagonal, "diag": diag, "diag_embed": diag_embed, "trace": trace}
