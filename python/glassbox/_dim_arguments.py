"""How the reductions take their dims, as PyTorch's bindings take them: `axis=` (NumPy's name) for
`dim=` and `keepdims=` for `keepdim=`; max/min/sort/topk return glassbox.return_types named tuples;
max(input, other) and min(input, other) are maximum and minimum.

The compiled functions and methods are wrapped once here; a call without keywords goes straight
through (one Python frame), so plain calls stay cheap."""

import functools

from . import _C, return_types
from ._out_argument import write_out

_f = _C._functions
_Tensor = _C.Tensor
_tuple_new = tuple.__new__


def rename_dim_aliases(name, kwargs):
    """axis= -> dim=, keepdims= -> keepdim= (in place); both spellings at once is a TypeError."""
    for alias, canonical in (("axis", "dim"), ("keepdims", "keepdim")):
        if alias in kwargs:
            if canonical in kwargs:
                raise TypeError(f"{name}(): got both '{canonical}' and its alias '{alias}'")
            kwargs[canonical] = kwargs.pop(alias)


def accepts_axis(fn, name=None):
    """fn taking axis=/keepdims= as well as dim=/keepdim=."""
    name = name or fn.__name__

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            rename_dim_aliases(name, kwargs)
        return fn(*args, **kwargs)

    return call


def _named(fn, result_type, binary=None):
    """fn with its (values, indices) tuple returned as result_type; with `binary` (maximum or
    minimum), a tensor as the second argument (or other=) selects that element-wise operator."""
    name = result_type.__name__

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            rename_dim_aliases(name, kwargs)
            if "out" in kwargs:  # (values, indices) written into out=, as PyTorch's forms with a dim
                out = kwargs.pop("out")
                result = call(*args, **kwargs)
                return result if out is None else write_out(name, result, out)
            if binary is not None and "other" in kwargs and len(args) == 1:
                return binary(args[0], kwargs.pop("other"), **kwargs)
        if binary is not None and len(args) == 2 and isinstance(args[1], _Tensor):
            return binary(*args, **kwargs)
        result = fn(*args, **kwargs)
        # tuple.__new__ skips the named tuple's Python-level __new__ (a third of the cost)
        return result if isinstance(result, _Tensor) else _tuple_new(result_type, result)

    return call


_AXIS_REDUCTIONS = ("sum", "mean", "std", "var", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "cumsum")
_NAMED = {"max": (return_types.max, _f.maximum), "min": (return_types.min, _f.minimum)}
_NAMED.update(sort=(return_types.sort, None), topk=(return_types.topk, None))

functions = {}
for _name in _AXIS_REDUCTIONS:
    functions[_name] = accepts_axis(getattr(_f, _name), _name)
    setattr(_Tensor, _name, accepts_axis(getattr(_Tensor, _name), _name))
for _name, (_type, _binary) in _NAMED.items():
    functions[_name] = _named(getattr(_f, _name), _type, _binary)
    setattr(_Tensor, _name, _named(getattr(_Tensor, _name), _type, _binary))
del _name, _type, _binary
