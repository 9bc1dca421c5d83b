"""The fused Adam step (operator _fused_adam_, gb.optim.Adam/AdamW with fused=None or True): the
same parameters and moments as the seven-operator form, step after step, with and without weight
decay; PyTorch's Adam where it is installed; and the operator's checks. `--device cuda` runs the
comparisons on the GPU (the unfused form there is checked against the CPU by the op table)."""

import numpy as np
import pytest

import glassbox as gb
from devices import from_numpy, to_numpy


def _model_and_grads(rng, shapes, dtype):
    params = [from_numpy(rng.standard_normal(s).astype(dtype)) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(4)]
    return params, grads


def _run(optimizer_class, fused, shapes, dtype, **options):
    """Four steps from one seed; returns parameters and moments after each."""
    rng = np.random.default_rng(0)
    params, grads = _model_and_grads(rng, shapes, dtype)
    for p in params:
        p.requires_grad_(True)
    opt = optimizer_class(params, fused=fused, **options)
    history = []
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = from_numpy(g)
        opt.step()
        history.append([to_numpy(p).copy() for p in params])
        history.append([to_numpy(opt.state[id(p)]["exp_avg_sq"]).copy() for p in params])
    return history


SHAPES = [(3, 5), (7,), (2, 3, 4), (1,), (1025,)]


@pytest.mark.parametrize("optimizer", ["Adam", "AdamW"])
@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_equals_unfused(optimizer, weight_decay, dtype):
    cls = getattr(gb.optim, optimizer)
    options = dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=weight_decay)
    fused = _run(cls, True, SHAPES, dtype, **options)
    unfused = _run(cls, False, SHAPES, dtype, **options)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    for got_step, want_step in zip(fused, unfused):
        for got, want in zip(got_step, want_step):
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_fused_equals_unfused_when_the_threads_split_parameters(threads):
    # The CPU kernel runs one loop over every parameter's elements: its chunks begin and end inside
    # parameters and span several (an empty one among them).
    shapes = [(3000,), (0,), (5000, 3), (1,), (4097,), (2, 2049), (7, 11)]
    options = dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)
    saved = gb.get_num_threads()
    gb.set_num_threads(threads)
    try:
        fused = _run(gb.optim.AdamW, True, shapes, np.float32, **options)
    finally:
        gb.set_num_threads(saved)
    unfused = _run(gb.optim.AdamW, False, shapes, np.float32, **options)
    for got_step, want_step in zip(fused, unfused):
        for got, want in zip(got_step, want_step):
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def test_default_takes_the_fused_operator():
    p = from_numpy(np.ones((4, 4), np.float32)).requires_grad_(True)
    p.grad = from_numpy(np.full((4, 4), 0.5, np.float32))
    opt = gb.optim.Adam([p], lr=0.1)
    with gb.trace() as t:
        opt.step()
    ops = [e.op for e in t.events]
    assert "glassbox::_fused_adam_" in ops, ops
    assert not any(op.startswith(("glassbox::lerp", "glassbox::addcdiv")) for op in ops), ops


def test_non_contiguous_parameter_falls_back_or_refuses():
    base = from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    p = base.t().detach().requires_grad_(True)
    assert not p.is_contiguous()
    p.grad = from_numpy(np.ones((4, 3), np.float32))
    q = p.detach().clone().requires_grad_(True)
    q.grad = p.grad.clone()
    gb.optim.Adam([p], lr=0.1).step()  # fused=None: the unfused form
    gb.optim.Adam([q], lr=0.1, fused=False).step()
    np.testing.assert_array_equal(to_numpy(p), to_numpy(q))
    with pytest.raises(RuntimeError, match="not contiguous"):
        gb.optim.Adam([p], lr=0.1, fused=True).step()


def test_operator_checks():
    f = gb._C._functions._fused_adam_
    p = from_numpy(np.zeros((2, 3), np.float32))
    m, v = gb.zeros_like(p), gb.zeros_like(p)
    options = dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, decoupled_weight_decay=False)
    with pytest.raises(RuntimeError, match="lists of one length"):
        f([p], [p, p], [m], [v], [1], **options)
    with pytest.raises(RuntimeError, match=r"grads\[0\] has shape"):
        f([p], [from_numpy(np.zeros((3, 2), np.float32))], [m], [v], [1], **options)
    with pytest.raises(RuntimeError, match=r"exp_avgs\[0\] is float64"):
        f([p], [p], [from_numpy(np.zeros((2, 3), np.float64))], [v], [1], **options)
    with pytest.raises(RuntimeError, match="floating-point"):
        i = from_numpy(np.zeros((2,), np.int64))
        f([i], [i], [i], [i], [1], **options)
    with pytest.raises(RuntimeError, match="starts at 1"):
        f([p], [p], [m], [v], [0], **options)
    with pytest.raises(RuntimeError, match="betas"):
        f([p], [p], [m], [v], [1], **dict(options, beta1=1.0))
    with pytest.raises(TypeError):
        f([p], [p], [m], [v], [1], lr="fast")


def test_meta_checks_without_computing():
    p = gb.empty(2, 3, device="meta")
    f = gb._C._functions._fused_adam_
    options = dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, decoupled_weight_decay=False)
    f([p], [p], [p], [p], [1], **options)
    with pytest.raises(RuntimeError, match="has shape"):
        f([p], [gb.empty(3, device="meta")], [p], [p], [1], **options)


def test_versions_move():
    """The step bumps the parameter's version: a graph that saved it before refuses to backward."""
    p = from_numpy(np.ones(3, np.float32)).requires_grad_(True)
    p.grad = from_numpy(np.ones(3, np.float32))
    loss = (p * p).sum()
    gb.optim.Adam([p], fused=True).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@pytest.mark.parametrize("optimizer", ["Adam", "AdamW"])
def test_same_as_pytorch(optimizer):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    start = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(5)]
    ours = [from_numpy(a.copy()).requires_grad_(True) for a in start]
    theirs = [torch.tensor(a.copy(), requires_grad=True) for a in start]
    options = dict(lr=0.01, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.05)
    opt_ours = getattr(gb.optim, optimizer)(ours, fused=True, **options)
    opt_theirs = getattr(torch.optim, optimizer)(theirs, **options)
    for step_grads in grads:
        for p, q, g in zip(ours, theirs, step_grads):
            p.grad = from_numpy(g)
            q.grad = torch.tensor(g)
        opt_ours.step()
        opt_theirs.step()
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(to_numpy(p), q.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_parameters_follow_float32(dtype):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((64,)).astype(np.float32)
    g = rng.standard_normal((64,)).astype(np.float32)
    low = from_numpy(a).to(getattr(gb, dtype)).requires_grad_(True)
    ref = from_numpy(a).to(getattr(gb, dtype)).float().requires_grad_(True)
    low.grad = from_numpy(g).to(getattr(gb, dtype))
    ref.grad = low.grad.float()
    gb.optim.Adam([low], lr=0.01, fused=True).step()
    gb.optim.Adam([ref], lr=0.01, fused=True).step()
    np.testing.assert_allclose(
        to_numpy(low.float()), to_numpy(ref.to(getattr(gb, dtype)).float()), rtol=1e-2, atol=1e-2
    )
