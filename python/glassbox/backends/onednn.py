"""gb.backends.onednn: whether float32 CPU convolutions go through oneDNN (torch.backends.mkldnn's
counterpart). glassbox uses it when built with it (CMake option GLASSBOX_ONEDNN, Debian's
libdnnl-dev); otherwise the CPU convolves with im2col + gemm."""

from .. import _C


def is_available():
    return _C._convolution_library("cpu") == "oneDNN"
