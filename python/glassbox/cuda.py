"""gb.cuda: the GPUs glassbox sees and the memory its caching allocator holds, as torch.cuda spells it.

Everything here answers on a machine without a GPU (or a glassbox built without CUDA):
is_available() is False, device_count() is 0 and the memory figures are 0; calls that need a
device (synchronize, current_device, set_device) raise RuntimeError saying why.
"""

from . import _C

_c = _C._cuda


def is_available():
    """True when glassbox was built with CUDA and at least one GPU is present."""
    return _c.device_count() > 0


def device_count():
    return _c.device_count()


def describe():
    """The CUDA runtime glassbox was built with and the devices it sees (or why there are none)."""
    return _c.describe()


def current_device():
    return _c.current_device()


def set_device(device):
    _c.set_device(_index(device))


def synchronize(device=None):
    """Waits until every kernel and copy queued on the device has finished."""
    _c.synchronize(_index(device))


def memory_stats(device=None):
    """allocated_bytes, peak_allocated_bytes, reserved_bytes, peak_reserved_bytes, active_blocks,
    allocations and driver_allocations of the caching allocator on one device."""
    return _c.memory_stats(_index(device))


def memory_allocated(device=None):
    """Bytes in blocks handed to tensors (block sizes, rounded up from the tensors' sizes)."""
    return memory_stats(device)["allocated_bytes"]


def max_memory_allocated(device=None):
    return memory_stats(device)["peak_allocated_bytes"]


def memory_reserved(device=None):
    """Bytes taken from the driver: what tensors hold plus what the cache keeps for reuse."""
    return memory_stats(device)["reserved_bytes"]


def max_memory_reserved(device=None):
    return memory_stats(device)["peak_reserved_bytes"]


def reset_peak_memory_stats(device=None):
    _c.reset_peak_memory_stats(_index(device))


def empty_cache():
    """Hands the cached, unused blocks back to the driver (tensors keep theirs)."""
    _c.empty_cache()


def _index(device):
    # None, 0, "cuda", "cuda:1" -> a device index (-1: the current device).
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    text = str(device)
    if text == "cuda":
        return -1
    if text.startswith("cuda:") and text[5:].isdigit():
        return int(text[5:])
    raise ValueError(f"expected a CUDA device (an index, 'cuda' or 'cuda:N'), got {device!r}")
