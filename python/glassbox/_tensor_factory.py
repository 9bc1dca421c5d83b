"""gb.tensor(data): a new tensor holding a copy of data (nested lists, numbers, NumPy arrays)."""

import numpy as _np

from . import _C


def _inferred_dtype(data, array):
    # PyTorch's inference: Python floats give float32, ints int64, bools bool; an ndarray keeps its dtype.
    if isinstance(data, _np.ndarray):
        return None
    if array.dtype.kind == "f":
        return _C.dtype.float32
    if array.dtype.kind in "iu":
        return _C.dtype.int64
    return None


def tensor(data, dtype=None, device=None, requires_grad=False):
    if isinstance(data, _C.Tensor):
        data = data.numpy()
    array = _np.array(data)
    if array.dtype == object:
        raise TypeError(f"tensor(): could not infer a dtype from {type(data).__name__} data")
    out = _C._ops.call("glassbox::clone", (_C.from_numpy(_np.require(array, requirements="C")),), {})
    target = dtype if dtype is not None else _inferred_dtype(data, array)
    if target is not None and out.dtype != target:
        out = _C._ops.call("glassbox::to", (out, target), {})
    if device is not None and str(device) != "cpu":
        out = out.to(str(device))
    if requires_grad:
        out.requires_grad_(True)
    return out
