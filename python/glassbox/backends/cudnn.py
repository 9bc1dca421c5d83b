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


def is_available():
    """True when glassbox was built with cuDNN (a GPU is another matter: gb.cuda.is_available())."""
    return _C._cuda.cudnn_available()


def version():
    """cuDNN's version as an int (91900 for 9.19.0), or None without cuDNN."""
    return _C._cuda.cudnn_version() or None


def describe():
    """'cuDNN 9.19.0', or why glassbox has none."""
    return _C._cuda.cudnn_describe()


@contextlib.contextmanager
def flags(enabled=None, allow_tf32=None, benchmark=None):
    """Sets the given settings for a block, then restores them."""
    module = sys.modules[__name__]
    before = (module.enabled, module.allow_tf32, module.benchmark)
    try:
        if enabled is not None:
            module.enabled = enabled
        if allow_tf32 is not None:
            module.allow_tf32 = allow_tf32
        if benchmark is not None:
            module.benchmark = benchmark
        yield
    finally:
        module.enabled, module.allow_tf32, module.benchmark = before


class _CudnnModule(types.ModuleType):
    """The module with `enabled`, `allow_tf32` and `benchmark` as properties that read and write the engine's settings."""

    @property
    def enabled(self):
        return _C._cuda.cudnn_enabled()

    @enabled.setter
    def enabled(self, value):
        _C._cuda.set_cudnn_enabled(bool(value))

    @property
    def allow_tf32(self):
        return _C._cuda.cudnn_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _C._cuda.set_cudnn_allow_tf32(bool(value))

    @property
    def benchmark(self):
        return _C._cuda.cudnn_benchmark()

    @benchmark.setter
    def benchmark(self, value):
        _C._cuda.set_cudnn_benchmark(bool(value))


sys.modules[__name__].__class__ = _CudnnModule
