"""out= for the functions written in Python (PyTorch's out= semantics, reused from the engine): the
result is written into `out` (a tuple for two results) by where.self_out, which resizes an out of
another shape (warning when it held elements), refuses a dtype the result cannot be cast to, a tensor
on another device and inputs that require grad; its messages are renamed to the function called."""

import functools
import re
import warnings

from . import _C

_f = _C._functions
_Tensor = _C.Tensor
_TRUE = None


def _write(name, result, out):
    global _TRUE
    if not isinstance(out, _Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _TRUE is None:
        _TRUE = _f.ones([], dtype=_C.dtype.bool)
    prefix = re.compile(r"^where(\.self_out\(\)|\.out)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _f.where(_TRUE.to(result.device), result, result, out=out)
        except RuntimeError as e:
            raise RuntimeError(prefix.sub(name, str(e))) from None
    for w in caught:
        warnings.warn(prefix.sub(name, str(w.message)), w.category, stacklevel=4)
    return out


def write_out(name, result, out):
    """`result` (a tensor, or a tuple of them) written into `out`; returns what the call returns."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): out= must be a tuple of {len(result)} tensors, got {type(out).__name__}")
        written = [_write(name, r, o) for r, o in zip(result, out)]
        return tuple.__new__(type(result), written) if type(result) is not tuple else tuple(written)
    return _write(name, result, out)


def with_out(name, fn):
    """fn taking out= (keyword only, as PyTorch's)."""

    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        result = fn(*args, **kwargs)
        return result if out is None else write_out(name, result, out)

    return call


# The Python-written functions to which PyTorch gives an out= argument.
OUT_FUNCTIONS = (
    "any all nansum nanmean aminmax median mode kthvalue norm cumprod cummax cummin logcumsumexp take "
    "take_along_dim index_copy scatter_reduce diag".split()
)
