"""Convolutions on CUDA through cuDNN (gb.backends.cudnn; engine/cuda/cudnn_convolution.cpp). The
settings answer in every build; with a GPU and cuDNN, conv2d and its backward go through the
operators cudnn_convolution and cudnn_convolution_backward, and every result is checked against
the CPU's for the same inputs (the CPU is the oracle for CUDA), with cuDNN on and off."""

import zlib

import numpy as np
import pytest

import devices
import glassbox as gb
import gradcheck as gradcheck_module
from gradcheck import gradcheck

cudnn = gb.backends.cudnn
ops = gb.ops.glassbox

requires_gpu = pytest.mark.skipif(not gb.cuda.is_available(), reason=f"no CUDA device: {gb.cuda.describe()}")
requires_cudnn = pytest.mark.skipif(
    not (gb.cuda.is_available() and cudnn.is_available()), reason=f"no CUDA device or no cuDNN: {cudnn.describe()}"
)


def test_settings_answer_and_round_trip():
    assert isinstance(cudnn.is_available(), bool) and isinstance(cudnn.describe(), str)
    if cudnn.is_available():
        assert cudnn.version() >= 8000 and cudnn.describe().startswith("cuDNN ")
    else:
        assert cudnn.version() is None and "without cuDNN" in cudnn.describe()
    assert cudnn.enabled is True and cudnn.allow_tf32 is False and cudnn.benchmark is True  # the defaults
    with cudnn.flags(enabled=False, allow_tf32=True, benchmark=False):
        assert cudnn.enabled is False and cudnn.allow_tf32 is True and cudnn.benchmark is False
        assert gb._C._cuda.cudnn_enabled() is False and gb._C._cuda.cudnn_allow_tf32() is True
        assert gb._C._cuda.cudnn_benchmark() is False
    assert cudnn.enabled is True and cudnn.allow_tf32 is False and cudnn.benchmark is True


@pytest.mark.skipif(not gb._C._cuda.built_with_cuda(), reason="built without CUDA: no CUDA kernels are registered")
def test_the_cudnn_operators_have_cuda_kernels():
    for op in ("glassbox::cudnn_convolution", "glassbox::cudnn_convolution_backward"):
        table = gb.registry.dump_table(op)
        assert "CUDA: registered at" in table and "[kernel]" in table


@requires_gpu
@pytest.mark.skipif(cudnn.is_available(), reason="built with cuDNN")
def test_without_cudnn_the_operators_say_why():
    x = gb.ones(1, 1, 3, 3, device="cuda")
    with pytest.raises(RuntimeError, match="cudnn_convolution: glassbox was built without cuDNN"):
        ops.cudnn_convolution(x, gb.ones(1, 1, 1, 1, device="cuda"), None, [1, 1], [0, 0], [1, 1], 1)


@requires_cudnn
@pytest.mark.parametrize("enabled", [True, False])
def test_conv2d_on_cuda_calls_cudnn_while_enabled(enabled):
    x = gb.randn(2, 3, 8, 8, device="cuda", requires_grad=True)
    w = gb.randn(4, 3, 3, 3, device="cuda", requires_grad=True)
    with cudnn.flags(enabled=enabled), gb.trace() as t:
        gb.nn.functional.conv2d(x, w, padding=1).sum().backward()
    called = {e.op for e in t.events}
    assert ("glassbox::cudnn_convolution" in called) == enabled
    assert ("glassbox::cudnn_convolution_backward" in called) == enabled


# (input shape, weight shape, stride, padding, dilation, groups, bias)
GEOMETRIES = [
    ((2, 3, 9, 11), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1, True),
    ((2, 4, 10, 9), (6, 4, 3, 3), (2, 2), (1, 1), (1, 1), 1, True),  # stride 2
    ((1, 3, 12, 10), (5, 3, 3, 2), (1, 2), (2, 0), (2, 3), 1, False),  # dilation, odd padding
    ((2, 6, 7, 7), (6, 2, 3, 3), (1, 1), (1, 1), (1, 1), 3, True),  # groups
    ((2, 8, 6, 6), (8, 1, 3, 3), (1, 1), (1, 1), (1, 1), 8, False),  # depthwise
    ((3, 16, 5, 5), (32, 16, 1, 1), (1, 1), (0, 0), (1, 1), 1, True),  # 1x1
    ((4, 3, 16, 16), (8, 3, 7, 7), (2, 2), (3, 3), (1, 1), 1, False),  # a ResNet stem
    ((3, 7, 7), (2, 3, 3, 3), (1, 1), (0, 0), (1, 1), 1, True),  # unbatched
]
TOL = {"float32": 2e-4, "float64": 1e-10, "float16": 2e-2, "bfloat16": 1e-1}


def geometry_id(g):
    return f"{'x'.join(map(str, g[0]))}*{'x'.join(map(str, g[1]))}-s{g[2][0]}{g[2][1]}-g{g[5]}"


def rel_error(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-6))


def conv_and_grads(device, x, w, b, geom, grad_out, dtype=None, non_contiguous=False):
    """conv2d's output and the gradients of <grad_out, output> with respect to x, w and b, as
    float32/float64 arrays; `dtype` (float16, bfloat16) converts the leaves on the device first."""
    _, _, stride, padding, dilation, groups, _ = geom

    def leaf(a, transposed=False):
        t = gb.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2)) if transposed else a).to(device)
        if transposed:  # the same values, read through a transposed view
            t = t.transpose(-1, -2)
            assert not t.is_contiguous()
        return (t.to(dtype) if dtype else t).requires_grad_()

    leaves = [leaf(x, non_contiguous), leaf(w)] + ([leaf(b)] if b is not None else [])
    out = gb.nn.functional.conv2d(*leaves, stride=stride, padding=padding, dilation=dilation, groups=groups)
    assert out.dtype == leaves[0].dtype
    (out.to(gb.from_numpy(grad_out).dtype) * gb.from_numpy(grad_out).to(device)).sum().backward()
    as_float = gb.from_numpy(grad_out).dtype  # NumPy has no bfloat16
    return [out.detach().cpu().to(as_float).numpy()] + [t.grad.cpu().to(as_float).numpy() for t in leaves]


def rounded(a, dtype):
    """a's values rounded to `dtype` (float16, bfloat16), as float32: what both devices start from."""
    return gb.from_numpy(a.astype(np.float32)).to(getattr(gb, dtype)).to(gb.float32).numpy()


@requires_cudnn
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("geom", GEOMETRIES, ids=geometry_id)
def test_forward_and_backward_match_the_cpu(geom, dtype):
    rng = np.random.default_rng(zlib.crc32(geometry_id(geom).encode()))
    xs, ws, stride, padding, dilation, groups, has_bias = geom
    reduced = dtype in ("float16", "bfloat16")
    np_dtype = np.float64 if dtype == "float64" else np.float32
    x = rng.standard_normal(xs).astype(np_dtype)
    w = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np_dtype)
    b = rng.standard_normal(ws[0]).astype(np_dtype) if has_bias else None
    out_shape = ops.conv2d(gb.from_numpy(x), gb.from_numpy(w), None, stride, padding, dilation, groups).shape
    grad_out = rng.standard_normal(tuple(out_shape)).astype(np_dtype)
    if reduced:  # the CPU convolves the same rounded values in float32
        x, w, grad_out = rounded(x, dtype), rounded(w, dtype), rounded(grad_out, dtype)
        b = rounded(b, dtype) if b is not None else None
    want = conv_and_grads("cpu", x, w, b, geom, grad_out)
    # cuDNN with measured algorithms, cuDNN with its heuristics' algorithms, glassbox's own kernels.
    for enabled, benchmark in ((True, True), (True, False), (False, True)):
        with cudnn.flags(enabled=enabled, benchmark=benchmark):
            got = conv_and_grads("cuda", x, w, b, geom, grad_out, dtype=getattr(gb, dtype) if reduced else None)
        how = f"cuDNN {'on' if enabled else 'off'}, benchmark {'on' if benchmark else 'off'}"
        for name, g, r in zip(("output", "grad_input", "grad_weight", "grad_bias"), got, want):
            assert g.shape == r.shape, name
            err = rel_error(g, r)
            assert err < TOL[dtype], f"{name} with {how}: relative error {err:.2e}"


@requires_cudnn
def test_non_contiguous_input_matches_the_cpu():
    geom = GEOMETRIES[1]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(geom[0]).astype(np.float32)
    w = (rng.standard_normal(geom[1]) / 6).astype(np.float32)
    b = rng.standard_normal(geom[1][0]).astype(np.float32)
    grad_out = rng.standard_normal((2, 6, 5, 5)).astype(np.float32)
    want = conv_and_grads("cpu", x, w, b, geom, grad_out)
    got = conv_and_grads("cuda", x, w, b, geom, grad_out, non_contiguous=True)
    for g, r in zip(got, want):
        assert rel_error(g, r) < TOL["float32"]


@requires_cudnn
def test_the_operators_called_directly_match_the_cpu():
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((2, 4, 9, 8)), rng.standard_normal((6, 2, 3, 3)), rng.standard_normal(6)
    args = ([2, 1], [1, 2], [1, 1], 2)
    cpu = [gb.from_numpy(a) for a in (x, w, b)]
    cuda = [t.cuda() for t in cpu]
    out = ops.cudnn_convolution(*cuda, *args)
    want = ops.conv2d(*cpu, *args)
    assert rel_error(out.cpu().numpy(), want.numpy()) < 1e-12
    go = gb.from_numpy(rng.standard_normal(tuple(want.shape)))
    got = ops.cudnn_convolution_backward(go.cuda(), cuda[0], cuda[1], *args)
    ref = ops.convolution_backward(go, cpu[0], cpu[1], *args)
    for g, r in zip(got, ref):
        assert g.device == "cuda:0" and rel_error(g.cpu().numpy(), r.numpy()) < 1e-12
    # Checked like conv2d: the message names the operator and what is wrong.
    with pytest.raises(RuntimeError, match="cudnn_convolution: .*channels"):
        ops.cudnn_convolution(cuda[0], gb.ones(6, 3, 3, 3, dtype=gb.float64, device="cuda"), None, *args)
    with pytest.raises(RuntimeError, match="cudnn_convolution: expected input and weight on one device"):
        ops.cudnn_convolution(cuda[0], cpu[1], None, *args)


@requires_cudnn
def test_gradients_against_finite_differences(monkeypatch):
    # The float64 inputs live on the GPU (gradcheck copies each perturbation there).
    monkeypatch.setattr(devices, "DEVICE", "cuda")
    monkeypatch.setattr(gradcheck_module, "DEVICE", "cuda")
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((4, 2, 3, 3)), rng.standard_normal(4)
    assert gradcheck(lambda x, w, b: ops.cudnn_convolution(x, w, b, [2, 1], [1, 1], [1, 2], 2), [x, w, b]) > 0
    w2 = np.swapaxes(rng.standard_normal((3, 4, 3, 3)), 2, 3)  # a non-contiguous weight
    assert gradcheck(lambda x, w: gb.nn.functional.conv2d(x, w, stride=1, padding=2, dilation=2), [x, w2]) > 0


@requires_cudnn
def test_empty_batch_and_tf32_setting():
    x = gb.zeros(0, 3, 5, 5, device="cuda", requires_grad=True)
    w = gb.randn(4, 3, 3, 3, device="cuda", requires_grad=True)
    out = gb.nn.functional.conv2d(x, w, padding=1)
    assert out.shape == (0, 4, 5, 5)
    out.sum().backward()
    assert w.grad.shape == (4, 3, 3, 3) and float(w.grad.abs().sum()) == 0.0
    # TF32 rounds the inputs to 10-bit mantissas: close to float32, and still the same shape.
    rng = np.random.default_rng(11)
    a, k = (
        rng.standard_normal((4, 64, 16, 16)).astype(np.float32),
        rng.standard_normal((64, 64, 3, 3)).astype(np.float32),
    )
    want = gb.nn.functional.conv2d(gb.from_numpy(a), gb.from_numpy(k), padding=1).numpy()
    with cudnn.flags(allow_tf32=True):
        got = gb.nn.functional.conv2d(gb.from_numpy(a).cuda(), gb.from_numpy(k).cuda(), padding=1).cpu().numpy()
    assert rel_error(got, want) < 1e-2
