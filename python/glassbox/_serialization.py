"""Pickling tensors (every protocol), copy.copy/copy.deepcopy, and gb.save/gb.load.

A tensor pickles as its dtype, shape, strides, storage offset, requires_grad and device, plus the
bytes of the part of its storage it spans, so a transposed or sliced tensor comes back with the
same geometry. CUDA tensors are read through the CPU and moved back on load. As in PyTorch, a
result of recorded ops pickles as a leaf (its history is not saved) and .grad is not pickled;
deepcopy copies .grad and refuses non-leaves.
"""

import _compat_pickle
import copy as _copy
import ctypes as _ctypes
import io as _io
import os as _os
import pickle as _pickle
import threading as _threading

import numpy as _np

from . import _C

_NUMPY_DTYPES = {
    "float32": _np.float32,
    "float64": _np.float64,
    "float16": _np.float16,
    "int64": _np.int64,
    "int32": _np.int32,
    "int16": _np.int16,
    "int8": _np.int8,
    "uint8": _np.uint8,
    "bool": _np.bool_,
}
_state = _threading.local()  # map_location of the gb.load running on this thread


def _dtype_name(dtype):
    return str(dtype).split(".", 1)[1]


def _span(sizes, strides):
    """How many elements from the first one the tensor reaches (0 for an empty tensor)."""
    if any(s == 0 for s in sizes):
        return 0
    return 1 + sum((n - 1) * st for n, st in zip(sizes, strides))


def _payload(t):
    """(dtype name, sizes, strides, storage offset, bytes) of t's data, read on the CPU."""
    if t.device != "cpu":
        t = t.to("cpu")
    t = t.detach()
    name = _dtype_name(t.dtype)
    if name not in _NUMPY_DTYPES:  # bfloat16: its values, exactly, as float32
        t = t.to(_C.dtype.float32).contiguous()
    if any(st < 0 for st in t.stride()):  # a geometry as_strided cannot rebuild: its values, contiguous
        t = t.contiguous()
    sizes, strides, offset = list(t.shape), list(t.stride()), t.storage_offset()
    item = t.dtype.itemsize
    count = offset + _span(sizes, strides)
    if count and not t.data_ptr():
        raise RuntimeError(f"cannot pickle a tensor on {t.device}: it has no data")
    start = t.data_ptr() - offset * item
    data = _ctypes.string_at(start, count * item) if count else b""
    return name, sizes, strides, offset, data


def _reduce_ex(self, protocol):
    name, sizes, strides, offset, data = _payload(self)
    state = dict(self.__dict__) if hasattr(self, "__dict__") and self.__dict__ else None
    args = (type(self), name, sizes, strides, offset, data, self.requires_grad, str(self.device), state)
    return (_rebuild_tensor, args)


def _target_device(device):
    where = getattr(_state, "map_location", None)
    if where is None:
        return device
    if isinstance(where, dict):
        return where.get(device, device)
    if callable(where):
        return where(device)
    return str(where)


def _rebuild_tensor(cls, dtype_name, sizes, strides, offset, data, requires_grad, device, state):
    stored = dtype_name if dtype_name in _NUMPY_DTYPES else "float32"
    flat = _np.frombuffer(bytearray(data), dtype=_NUMPY_DTYPES[stored])
    t = _C.from_numpy(flat).as_strided(list(sizes), list(strides), offset)
    if stored != dtype_name:
        t = t.to(getattr(_C.dtype, dtype_name))
    device = _target_device(device)
    if device != "cpu":
        t = t.to(device)
    if cls is not _C.Tensor:
        obj = cls.__new__(cls)
        _C.Tensor.__init__(obj, t)
        t = obj
    if requires_grad:
        t.requires_grad_(True)
    if state:
        t.__dict__.update(state)
    return t


def _deepcopy(self, memo):
    if self.grad_fn is not None:
        raise RuntimeError(
            "deepcopy: only leaf tensors (made by the user, not results of recorded ops) can be "
            "deep-copied; detach() it first"
        )
    if id(self) in memo:
        return memo[id(self)]
    fn, args = _reduce_ex(self, _pickle.HIGHEST_PROTOCOL)
    new = fn(*args)
    memo[id(self)] = new
    if self.grad is not None:
        new.grad = _copy.deepcopy(self.grad, memo)
    return new


_C.Tensor.__reduce_ex__ = _reduce_ex
_C.Tensor.__deepcopy__ = _deepcopy


# --- gb.save / gb.load
_SAFE_GLOBALS = {
    ("glassbox._serialization", "_rebuild_tensor"),
    ("glassbox._C", "Tensor"),
    ("glassbox.nn.module", "Parameter"),
    ("glassbox._device", "device"),  # a device object in a saved dict (its constructor only validates)
    ("collections", "OrderedDict"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("builtins", "complex"),
    ("_codecs", "encode"),  # bytes in protocols 0-2
}


class _WeightsUnpickler(_pickle.Unpickler):
    """Tensors, containers, numbers and strings only: no other code runs while loading."""

    def find_class(self, module, name):
        if (module, name) in _compat_pickle.NAME_MAPPING:  # Python 2 names, which protocols 0-2 write
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise _pickle.UnpicklingError(
            f"gb.load(weights_only=True) refuses the global {module}.{name}; load with weights_only=False only "
            "if you trust the file"
        )


def save(obj, f, pickle_module=_pickle, pickle_protocol=2):
    """Writes obj (tensors, state dicts, containers of them) to a path or a binary file object
    (torch.save's argument order: pickle_module, then pickle_protocol)."""
    if isinstance(f, (str, _os.PathLike)):
        with open(f, "wb") as out:
            pickle_module.dump(obj, out, protocol=pickle_protocol)
        return
    if not callable(getattr(f, "write", None)):  # AttributeError, as torch.save raises
        raise AttributeError(
            f"save: expected a path or a file object opened for writing; a {type(f).__name__} has no 'write' method"
        )
    pickle_module.dump(obj, f, protocol=pickle_protocol)


def load(f, map_location=None, pickle_module=None, *, weights_only=True):
    """Reads what gb.save wrote. map_location: a device ("cpu"), a dict {saved: new} or a callable
    of the saved device. weights_only=False allows any pickled object (trusted files only)."""
    if map_location is not None and not isinstance(map_location, (str, dict)) and not callable(map_location):
        raise AttributeError(
            f"load: map_location must be a device string, a dict or a callable, not {type(map_location).__name__}"
        )
    if isinstance(f, (str, _os.PathLike)):
        with open(f, "rb") as source:
            data = source.read()
    elif callable(getattr(f, "read", None)):
        data = f.read()
    else:  # AttributeError, as torch.load raises
        raise AttributeError(
            f"load: expected a path or a file object opened for reading; a {type(f).__name__} has no 'read' method"
        )
    previous = getattr(_state, "map_location", None)
    _state.map_location = map_location
    try:
        unpickler = _WeightsUnpickler if weights_only else (pickle_module or _pickle).Unpickler
        return unpickler(_io.BytesIO(data)).load()
    finally:
        _state.map_location = previous
