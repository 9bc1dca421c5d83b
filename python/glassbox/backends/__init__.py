"""gb.backends: settings of the backends, as torch.backends spells them, and which library each
device's convolutions go through (`gb.backends.convolution_library("cpu")`)."""

from .. import _C
from . import cuda, cudnn, onednn  # noqa: F401


def convolution_library(device="cpu"):
    """The library that computes conv2d on `device` now: "oneDNN" or "im2col + gemm" on the CPU,
    "cuDNN" or "im2col + gemm (cuBLAS)" on CUDA (when glassbox_cuda is built); None on Meta."""
    return _C._convolution_library(device)
