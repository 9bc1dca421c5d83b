"""gb.from_dlpack: tensors over memory another library owns (NumPy, PyTorch, JAX, CuPy, ...), on the
CPU or on a CUDA device, and back: any DLPack consumer reads a glassbox tensor through
Tensor.__dlpack__ (np.from_dlpack(t), torch.from_dlpack(t)). Nothing is copied either way, so a
write through one side is seen by the other."""

from . import _C

_CPU, _CUDA = 1, 2  # DLPack's device types of host memory and CUDA device memory


def from_dlpack(x, *, device=None, copy=None):
    """A tensor sharing the memory of `x`: an object with __dlpack__ (a NumPy array, a PyTorch
    tensor, ...) or a DLPack capsule ("dltensor" or "dltensor_versioned", consumed by the call).

    copy=None shares the memory when it can (a read-only producer gets a copy), copy=True always
    copies, copy=False never does (and raises BufferError when sharing is impossible). CUDA memory
    is ordered for glassbox's current stream: the producer makes it wait for its pending work.
    """
    if type(x).__name__ == "PyCapsule":
        return _moved(_C._dlpack.from_capsule(x, copy), device)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got {type(x).__name__}")
    stream = None
    if hasattr(x, "__dlpack_device__"):
        kind, index = x.__dlpack_device__()
        if int(kind) not in (_CPU, _CUDA):
            raise BufferError(
                f"from_dlpack: glassbox imports CPU and CUDA memory through DLPack; "
                f"{type(x).__name__} is on DLPack device ({int(kind)}, {int(index)})"
            )
        if int(kind) == _CUDA:
            stream = _C._dlpack.consumer_stream(int(index))
    try:
        capsule = x.__dlpack__(stream=stream, max_version=_C._dlpack.VERSION)
    except TypeError:  # a producer from before DLPack 1.0 knows only the stream argument
        capsule = x.__dlpack__(stream=stream)
    return _moved(_C._dlpack.from_capsule(capsule, copy), device)


def _moved(t, device):
    """device=None keeps the producer's device; another one copies there (as the array API says)."""
    return t if device is None or str(device) == str(t.device) else t.to(device)
