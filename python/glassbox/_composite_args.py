"""Argument checks shared by the tensor functions written in Python over the operators (shape ops,
extra reductions, scans, einsum): the exception classes and wording PyTorch's bindings use, so a
mistake reads the same as in the compiled operators."""

import builtins
import operator

from . import _C


def check_tensor(fn, name, value):
    if not isinstance(value, _C.Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")
    return value


def as_int(fn, name, value):
    """An int argument (bools and floats are refused, NumPy integers accepted)."""
    if isinstance(value, builtins.bool) or isinstance(value, _C.Tensor) and value.dim() != 0:
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}") from None


def as_bool(fn, name, value):
    """A bool argument (NumPy bools too); ints and others are a TypeError, as PyTorch's bindings say."""
    if isinstance(value, builtins.bool) or type(value).__name__ == "bool_":
        return builtins.bool(value)
    raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(value).__name__}")


def as_str(fn, name, value):
    if not isinstance(value, str):
        raise TypeError(f"{fn}(): argument '{name}' must be str, not {type(value).__name__}")
    return value


def wrap_dim(fn, dim, ndim, name="dim"):
    """dim in [-ndim, ndim) (a 0-d tensor has dims 0 and -1) as a non-negative index; IndexError otherwise."""
    dim = as_int(fn, name, dim)
    rank = builtins.max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(
            f"{fn}: dim {dim} is out of range for a tensor of {ndim} dims (expected a dim in [{-rank}, {rank - 1}])"
        )
    return dim + rank if dim < 0 else dim


def wrap_dims(fn, dims, ndim, name="dim"):
    """An int or a sequence of ints, each wrapped; a dim named twice is a RuntimeError."""
    if isinstance(dims, (list, tuple)):
        wrapped = [wrap_dim(fn, d, ndim, name) for d in dims]
    else:
        wrapped = [wrap_dim(fn, dims, ndim, name)]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"{fn}: dim {wrapped} names a dim more than once")
    return wrapped


def int_sequence(fn, name, values):
    """A sequence of ints given as one sequence or as separate arguments (x.repeat(2, 3) or ((2, 3)))."""
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        values = values[0]
    elif len(values) == 1 and isinstance(values[0], _C.Tensor) and values[0].dim() == 1:
        values = values[0].tolist()
    return [as_int(fn, name, v) for v in values]


def is_floating(t):
    return t.dtype in (_C.dtype.float32, _C.dtype.float64, _C.dtype.float16, _C.dtype.bfloat16)
