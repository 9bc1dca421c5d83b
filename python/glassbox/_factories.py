"""Factories as PyTorch spells them: gb.zeros(2, 3) and gb.zeros((2, 3)) and gb.zeros([2, 3]),
with dtype/device/requires_grad keywords. They call the typed operator bindings."""

import operator as _operator

from . import _C

_f = _C._functions


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        return list(size[0])
    return list(size)


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def empty(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_f.empty(_size(size), dtype=dtype, device=device), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_f.zeros(_size(size), dtype=dtype, device=device), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_f.ones(_size(size), dtype=dtype, device=device), requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    return _finish(_f.full(_size((size,)), fill_value, dtype=dtype, device=device), requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_f.rand(_size(size), dtype=dtype, device=device), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_f.randn(_size(size), dtype=dtype, device=device), requires_grad)


def _check_tensor(name, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(t).__name__}")


def zeros_like(t, dtype=None, requires_grad=False):
    _check_tensor("zeros_like", t)
    return zeros(t.shape, dtype=dtype or t.dtype, device=t.device, requires_grad=requires_grad)


def ones_like(t, dtype=None, requires_grad=False):
    _check_tensor("ones_like", t)
    return ones(t.shape, dtype=dtype or t.dtype, device=t.device, requires_grad=requires_grad)


def manual_seed(seed):
    _C.manual_seed(_operator.index(seed))  # Python or NumPy ints


def seed():
    return _C.seed()


def initial_seed():
    return _C.initial_seed()
