"""Batch normalisation (native_batch_norm and F.batch_norm over it): values, running statistics
and all three gradients against NumPy formulas, finite differences in float64 and, where PyTorch
is installed, against PyTorch; 2-D to 5-D inputs, non-contiguous ones, no affine parameters, no
running statistics, float16/bfloat16 against float32, and the errors of bad arguments. With
`pytest --device cuda` every check runs on the GPU."""

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, from_numpy, to_numpy
from glassbox import nn
from glassbox.nn import functional as F
from gradcheck import gradcheck

rng = np.random.default_rng(7)
SHAPES = [(6, 3), (4, 3, 5), (3, 2, 4, 3), (2, 3, 2, 3, 2)]


def channel(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def np_batch_norm(x, mean, var, weight, bias, eps=1e-5):
    y = (x - channel(mean, x.ndim)) / np.sqrt(channel(var, x.ndim) + eps)
    if weight is not None:
        y = y * channel(weight, x.ndim)
    return y + channel(bias, x.ndim) if bias is not None else y


def reduce_axes(x):
    return (0,) + tuple(range(2, x.ndim))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
def test_training_output_and_running_statistics(shape):
    x = rng.standard_normal(shape) * 3 + 2
    c = shape[1]
    weight, bias = rng.standard_normal(c), rng.standard_normal(c)
    rm0, rv0 = rng.standard_normal(c), rng.random(c) + 0.5
    running_mean, running_var = from_numpy(rm0.copy()), from_numpy(rv0.copy())
    got = F.batch_norm(from_numpy(x), running_mean, running_var, from_numpy(weight), from_numpy(bias), True, 0.3)
    mean, var = x.mean(reduce_axes(x)), x.var(reduce_axes(x))
    np.testing.assert_allclose(to_numpy(got), np_batch_norm(x, mean, var, weight, bias), rtol=1e-10, atol=1e-12)
    n = x.size // c
    np.testing.assert_allclose(to_numpy(running_mean), 0.7 * rm0 + 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(running_var), 0.7 * rv0 + 0.3 * var * n / (n - 1), rtol=1e-12)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
def test_eval_uses_running_statistics_and_leaves_them(shape):
    x = rng.standard_normal(shape)
    c = shape[1]
    rm, rv, weight = rng.standard_normal(c), rng.random(c) + 0.5, rng.standard_normal(c)
    running_mean, running_var = from_numpy(rm.copy()), from_numpy(rv.copy())
    got = F.batch_norm(from_numpy(x), running_mean, running_var, from_numpy(weight), None, False, 0.1, 1e-3)
    np.testing.assert_allclose(to_numpy(got), np_batch_norm(x, rm, rv, weight, None, 1e-3), rtol=1e-12)
    np.testing.assert_array_equal(to_numpy(running_mean), rm)
    np.testing.assert_array_equal(to_numpy(running_var), rv)


def test_saved_statistics_of_the_operator():
    x = rng.standard_normal([5, 4, 3])
    out, save_mean, save_invstd = gb.ops.glassbox.native_batch_norm(
        from_numpy(x), None, None, None, None, True, 0.1, 1e-5
    )
    np.testing.assert_allclose(to_numpy(save_mean), x.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(save_invstd), 1 / np.sqrt(x.var((0, 2)) + 1e-5), rtol=1e-12)
    assert list(save_mean.shape) == [4] and list(out.shape) == [5, 4, 3]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
def test_gradients_match_finite_differences(shape, training):
    c = shape[1]
    x, weight, bias = rng.standard_normal(shape), rng.standard_normal(c), rng.standard_normal(c)
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5

    def stats():
        return from_numpy(rm.copy()), from_numpy(rv.copy())

    checked = gradcheck(lambda a, w, b: F.batch_norm(a, *stats(), w, b, training), [x, weight, bias])
    assert checked == x.size + 2 * c
    assert gradcheck(lambda a: F.batch_norm(a, *stats(), None, None, training), [x]) == x.size


def test_gradients_without_running_statistics_and_of_a_non_contiguous_input():
    x = np.ascontiguousarray(rng.standard_normal([5, 4, 3]).transpose(2, 1, 0)).transpose(2, 1, 0)
    assert not x.flags["C_CONTIGUOUS"]
    weight = rng.standard_normal(4)
    assert gradcheck(lambda a, w: F.batch_norm(a, None, None, w, None, True), [x, weight]) == x.size + 4
    got = F.batch_norm(from_numpy(x), None, None, from_numpy(weight), None, True)
    want = np_batch_norm(x, x.mean((0, 2)), x.var((0, 2)), weight, None)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10, atol=1e-12)


def test_gradients_of_each_argument_against_numpy():
    """The three gradients of sum(out * g): input's through the batch statistics (training)."""
    x, g = rng.standard_normal([4, 3, 5]), rng.standard_normal([4, 3, 5])
    weight, bias = rng.standard_normal(3), rng.standard_normal(3)
    leaves = [from_numpy(a).requires_grad_() for a in (x, weight, bias)]
    out = F.batch_norm(leaves[0], None, None, leaves[1], leaves[2], True)
    gx, gw, gbias = gb.autograd.grad([out], leaves, [from_numpy(g)])
    axes, n = (0, 2), 20
    xhat = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(to_numpy(gbias), g.sum(axes), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(gw), (g * xhat).sum(axes), rtol=1e-10)
    dxhat = g * channel(weight, 3)
    want = (dxhat - dxhat.mean(axes, keepdims=True) - xhat * (dxhat * xhat).sum(axes, keepdims=True) / n) / np.sqrt(
        x.var(axes, keepdims=True) + 1e-5
    )
    np.testing.assert_allclose(to_numpy(gx), want, rtol=1e-9, atol=1e-12)


def test_running_statistics_stay_out_of_the_graph():
    x = from_numpy(rng.standard_normal([4, 3, 2])).requires_grad_()
    running_mean, running_var = from_numpy(np.zeros(3)), from_numpy(np.ones(3))
    out = F.batch_norm(x, running_mean, running_var, None, None, True)
    assert out.requires_grad and not running_mean.requires_grad and not running_var.requires_grad
    out.sum().backward()
    assert x.grad is not None


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("stats_dtype", ["same", "float32"])
def test_half_types_match_float32(dtype, stats_dtype):
    """Halves compute in float32: their results are the float32 ones rounded, and float32
    running statistics (a model in mixed precision) are updated as float32."""
    half = getattr(gb, dtype)
    x = rng.standard_normal([8, 4, 6, 5]) * 2 + 1
    weight, bias = rng.standard_normal(4), rng.standard_normal(4)
    x_half = from_numpy(x.astype(np.float32)).to(half)
    x32 = x_half.to(gb.float32)  # the same values, rounded to the half type
    sdt = half if stats_dtype == "same" else gb.float32
    w, b = from_numpy(weight.astype(np.float32)).to(sdt), from_numpy(bias.astype(np.float32)).to(sdt)
    rm, rv = from_numpy(np.zeros(4, np.float32)).to(sdt), from_numpy(np.ones(4, np.float32)).to(sdt)
    rm32, rv32 = from_numpy(np.zeros(4, np.float32)), from_numpy(np.ones(4, np.float32))
    leaves_half = [x_half.requires_grad_(), w.requires_grad_(), b.requires_grad_()]
    leaves32 = [
        x32.detach().requires_grad_(),
        w.to(gb.float32).detach().requires_grad_(),
        b.to(gb.float32).detach().requires_grad_(),
    ]
    got = F.batch_norm(leaves_half[0], rm, rv, leaves_half[1], leaves_half[2], True)
    want = F.batch_norm(leaves32[0], rm32, rv32, leaves32[1], leaves32[2], True)
    assert got.dtype == half and rm.dtype == sdt
    tol = {"float16": 2e-3, "bfloat16": 2e-2}[dtype]
    np.testing.assert_allclose(to_numpy(got.to(gb.float32)), to_numpy(want), rtol=tol, atol=tol)
    np.testing.assert_allclose(to_numpy(rm.to(gb.float32)), to_numpy(rm32), rtol=tol, atol=tol)
    np.testing.assert_allclose(to_numpy(rv.to(gb.float32)), to_numpy(rv32), rtol=tol, atol=tol)
    g = from_numpy(rng.standard_normal([8, 4, 6, 5]).astype(np.float32))
    grads_half = gb.autograd.grad([got], leaves_half, [g.to(half)])
    grads32 = gb.autograd.grad([want], leaves32, [g.to(half).to(gb.float32)])
    for name, h, f in zip(("input", "weight", "bias"), grads_half, grads32):
        assert h.dtype == leaves_half[["input", "weight", "bias"].index(name)].dtype, name
        scale = float(np.abs(to_numpy(f)).max())
        np.testing.assert_allclose(to_numpy(h.to(gb.float32)), to_numpy(f), rtol=tol, atol=tol * scale, err_msg=name)


def test_module_training_then_eval():
    layer = nn.BatchNorm2d(3).to(gb.float64).to(DEVICE)
    x = rng.standard_normal([4, 3, 2, 2]) + 3
    layer(from_numpy(x))
    np.testing.assert_allclose(to_numpy(layer.running_mean), 0.1 * x.mean((0, 2, 3)), rtol=1e-12)
    layer.eval()
    got = layer(from_numpy(x))
    want = np_batch_norm(x, to_numpy(layer.running_mean), to_numpy(layer.running_var), None, None)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)


def test_bad_arguments_raise_the_same_errors():
    x = from_numpy(rng.standard_normal([4, 3, 2]))
    with pytest.raises(RuntimeError, match=r"expected an input of shape \(N, C, \*\)"):
        F.batch_norm(from_numpy(np.ones(3)), None, None, training=True)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(from_numpy(np.ones([1, 3, 1])), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean and running_var are needed"):
        F.batch_norm(x, None, None)
    for training in (True, False):
        with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
            F.batch_norm(x, from_numpy(np.zeros(4)), from_numpy(np.ones(3)), training=training)
        with pytest.raises(RuntimeError, match="running_var should contain 3 elements not 2"):
            F.batch_norm(x, from_numpy(np.zeros(3)), from_numpy(np.ones(2)), training=training)
    with pytest.raises(RuntimeError, match="weight should contain 3 elements not 2"):
        F.batch_norm(x, None, None, from_numpy(np.ones(2)), training=True)
    with pytest.raises(RuntimeError, match="bias should contain 3 elements not 5"):
        F.batch_norm(x, None, None, None, from_numpy(np.ones(5)), training=True)
    with pytest.raises(RuntimeError, match="input"):
        F.batch_norm(from_numpy(np.ones([4, 3], dtype=np.int64)), None, None, training=True)
    ops = gb.ops.glassbox
    with pytest.raises(RuntimeError, match="more than 1 value per channel"):
        ops.native_batch_norm(from_numpy(np.ones([1, 3])), None, None, None, None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="grad_out has shape"):
        ops.native_batch_norm_backward(
            from_numpy(np.ones([4, 3])), x, None, from_numpy(np.zeros(3)), from_numpy(np.ones(3)), True
        )


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
def test_matches_pytorch(shape, affine, training):
    torch = pytest.importorskip("torch")
    c = shape[1]
    x, g = rng.standard_normal(shape) * 2 - 1, rng.standard_normal(shape)
    weight, bias = (rng.standard_normal(c), rng.standard_normal(c)) if affine else (None, None)
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5
    ours_stats, theirs_stats = [from_numpy(rm.copy()), from_numpy(rv.copy())], [torch.tensor(rm), torch.tensor(rv)]
    ours_in = [from_numpy(a).requires_grad_() for a in (x, weight, bias) if a is not None]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in (x, weight, bias) if a is not None]
    ours_affine = ours_in[1:] if affine else [None, None]
    theirs_affine = theirs_in[1:] if affine else [None, None]
    ours = F.batch_norm(ours_in[0], *ours_stats, *ours_affine, training, 0.2, 1e-4)
    theirs = torch.nn.functional.batch_norm(theirs_in[0], *theirs_stats, *theirs_affine, training, 0.2, 1e-4)
    np.testing.assert_allclose(to_numpy(ours), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    for o, t in zip(ours_stats, theirs_stats):
        np.testing.assert_allclose(to_numpy(o), t.numpy(), rtol=1e-12, atol=1e-14)
    ours_grads = gb.autograd.grad([ours], ours_in, [from_numpy(g)])
    theirs_grads = torch.autograd.grad([theirs], theirs_in, [torch.tensor(g)])
    for o, t in zip(ours_grads, theirs_grads):
        np.testing.assert_allclose(to_numpy(o), t.numpy(), rtol=1e-9, atol=1e-11)


def test_compiled_batch_norm_moves_the_running_statistics_once_a_call():
    """Capture runs the operator once itself; the running statistics still move once a call."""
    x = rng.standard_normal([4, 3, 5])

    def step(a, rm, rv):
        return F.batch_norm(a, rm, rv, None, None, True, 0.5)

    eager = [from_numpy(np.zeros(3)), from_numpy(np.ones(3))]
    compiled_stats = [from_numpy(np.zeros(3)), from_numpy(np.ones(3))]
    compiled = gb.compile(step, backend="eager", fullgraph=True)
    for _ in range(2):
        want = step(from_numpy(x), *eager)
        got = compiled(from_numpy(x), *compiled_stats)
        np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-12)
        for c, e in zip(compiled_stats, eager):
            np.testing.assert_allclose(to_numpy(c), to_numpy(e), rtol=1e-12)
