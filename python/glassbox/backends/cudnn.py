"""gb.backends.cudnn, as torch.backends.cudnn spells it: whether CUDA convolutions go through cuDNN
(`enabled`, on by default where glassbox was built with cuDNN; off, glassbox's own im2col kernels do
them), whether float32 ones may use TF32 tensor cores (`allow_tf32`, off by default so that
results match the CPU's; PyTorch's default is on), and whether each shape's algorithm is measured
(`benchmark`, on by default: cuDNN runs every algorithm once and the fastest is kept; off, cuDNN's
heuristics pick one unmeasured, which on Hopper often means a slow FFT or older engine; PyTorch's
default is off)."""

import contextlib
import sys
import types

from .. import _C
from ._settings import engine_switch


def is_available():
    """True when glassbox was built with cuDNN (a GPU is another matter: gb.cuda.is_available())."""
    return _C._cuda.cudnn_available()


def version():
    """cuDNN's version as an int (91900 for 9.19.0), or None without cuDNN."""
    return _C._cuda.cudnn_version() or None


def describe():
    """'cuDNN 9.19.0', or why glassbox has none."""
    return _C._cuda.cudnn_describe()


_SETTINGS = ("enabled", "allow_tf32", "benchmark")


@contextlib.contextmanager
def flags(enabled=None, allow_tf32=None, benchmark=None):
    """Sets the given settings for a block, then restores them."""
    module = sys.modules[__name__]
    before = {name: getattr(module, name) for name in _SETTINGS}
    given = dict(zip(_SETTINGS, (enabled, allow_tf32, benchmark)))
    try:
        for name, value in given.items():
            if value is not None:
                setattr(module, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(module, name, value)


class _CudnnModule(types.ModuleType):
    """The module with `enabled`, `allow_tf32` and `benchmark` as properties over the engine's settings."""

    enabled = engine_switch("cudnn_enabled")
    allow_tf32 = engine_switch("cudnn_allow_tf32")
    benchmark = engine_switch("cudnn_benchmark")


sys.modules[__name__].__class__ = _CudnnModule
