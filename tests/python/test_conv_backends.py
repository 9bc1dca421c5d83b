"""conv2d in float32 goes through the device's convolution library (oneDNN on the CPU when built
with it, cuDNN on CUDA); float64 through glassbox's own im2col + gemm. Here the float32 results,
forward and all three gradients, are checked against the float64 ones over geometries that
exercise the libraries' layouts: strides, padding, dilation, groups, 1x1, odd sizes, no bias and
non-contiguous inputs."""

import numpy as np
import pytest

import devices
import glassbox as gb
import glassbox.nn.functional as F

# (batch, in channels, out channels, height, width, kernel, stride, padding, dilation, groups, bias)
GEOMETRIES = [
    (2, 3, 8, 9, 9, 3, 1, 1, 1, 1, True),
    (2, 4, 6, 10, 7, 3, 2, 1, 1, 1, True),
    (1, 4, 4, 11, 11, (3, 5), (2, 1), (0, 2), (2, 1), 1, False),
    (3, 8, 8, 6, 6, 1, 1, 0, 1, 1, True),
    (2, 8, 12, 8, 8, 3, 1, 1, 1, 4, True),
    (2, 6, 6, 7, 7, 3, 1, 1, 1, 6, False),
    (1, 2, 3, 5, 5, 5, 1, 2, 1, 1, True),
    (2, 3, 4, 4, 4, 2, 2, 0, 1, 1, True),
]


def conv_and_grads(x, w, b, geometry):
    *_, stride, padding, dilation, groups, _ = geometry
    x, w = x.detach().requires_grad_(), w.detach().requires_grad_()
    b = b.detach().requires_grad_() if b is not None else None
    y = F.conv2d(x, w, b, stride, padding, dilation, groups)
    (y * gb.cos(y.detach().double().to(y.dtype))).sum().backward()  # an uneven upstream gradient
    return [y] + [t.grad for t in (x, w, b) if t is not None]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: "x".join(map(str, g[:5])))
@pytest.mark.parametrize("transposed_input", [False, True])
def test_float32_library_matches_float64(geometry, transposed_input):
    device = devices.DEVICE  # --device cuda: cuDNN against glassbox's float64 kernels
    n, c, o, h, w_, k, *_, groups, bias = geometry
    k = (k, k) if isinstance(k, int) else k
    rng = np.random.default_rng(len(GEOMETRIES) * n + c)
    x = rng.standard_normal((n, c, w_, h) if transposed_input else (n, c, h, w_))
    weight = rng.standard_normal((o, c // groups, *k)) * 0.3
    b = rng.standard_normal(o) if bias else None

    def tensors(dtype):
        tx = gb.tensor(x, dtype=dtype, device=device)
        if transposed_input:
            tx = tx.transpose(2, 3)  # non-contiguous
            assert not tx.is_contiguous()
        tw = gb.tensor(weight, dtype=dtype, device=device)
        tb = gb.tensor(b, dtype=dtype, device=device) if bias else None
        return tx, tw, tb

    got = conv_and_grads(*tensors(gb.float32), geometry)
    want = conv_and_grads(*tensors(gb.float64), geometry)
    assert len(got) == len(want)
    for g, r in zip(got, want):
        assert g.dtype == gb.float32 and g.shape == r.shape
        np.testing.assert_allclose(g.detach().cpu().numpy(), r.detach().cpu().numpy(), rtol=1e-4, atol=1e-4)


def test_the_library_is_named():
    assert gb.backends.convolution_library("cpu") in ("oneDNN", "im2col + gemm")
    assert gb.backends.onednn.is_available() == (gb.backends.convolution_library("cpu") == "oneDNN")
    assert gb.backends.convolution_library("meta") is None
    if gb.cuda.is_available():
        assert gb.backends.convolution_library("cuda") in ("cuDNN", "im2col + gemm (cuBLAS)")
