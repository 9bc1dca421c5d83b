"""gb.from_dlpack: tensors over memory another library owns (NumPy, PyTorch, JAX, CuPy, ...), and
back: any DLPack consumer reads a glassbox tensor through Tensor.__dlpack__ (np.from_dlpack(t)).
Nothing is copied either way, so a write through one side is seen by the other."""
from . import _C

_CPU = 1  # DLPack's device type of host memory


def from_dlpack(x, *, device=None, copy=None):
    """A tensor sharing the memory of `x`: an object with __dlpack__ (a NumPy array, a PyTorch
    tensor, ...) or a DLPack capsule ("dltensor" or "dltensor_versioned", consumed by the call).

    copy=None shares the memory when it can (a read-only producer gets a copy), copy=True always
    copies, copy=False never does (and raises BufferError when sharing is impossible).
    """
    if device is not None and str(device) != "cpu":
        raise ValueError(f"from_dlpack: device={device!r} is not supported; glassbox imports DLPack to the cpu")
    if type(x).__name__ == "PyCapsule":
        return _C._dlpack.from_capsule(x, copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(x).__name__}")
    if hasattr(x, "__dlpack_device__"):
        kind, index = x.__dlpack_device__()
        if int(kind) != _CPU:
            raise BufferError(f"from_dlpack: glassbox imports only CPU memory through DLPack; "
                              f"{type(x).__name__} is on DLPack device ({int(kind)}, {int(index)})")
    try:
        capsule = x.__dlpack__(stream=None, max_version=_C._dlpack.VERSION)
    except TypeError:  # a producer from before DLPack 1.0 knows only the stream argument
        capsule = x.__dlpack__(stream=None)
    return _C._dlpack.from_capsule(capsule, copy)
