"""Autograd from Python: requires_grad, grad_fn names and reprs, backward, retain_graph, hooks,
no_grad, autograd.grad and double backward, and the error messages."""

import numpy as np
import pytest

import glassbox as gb


def leaf(values):
    return gb.tensor(values, requires_grad=True)


def test_leaf_and_result_reprs_match_pytorch():
    x = leaf([1.0, 2.0])
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    y = x * x
    assert repr(y) == "tensor([1., 4.], grad_fn=<MulBackward0>)"
    assert y.grad_fn.name() == "MulBackward0"
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")
    assert [type(f).__name__ if f is None else f.name() for f, _ in y.grad_fn.next_functions] == [
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert repr(x.detach()) == "tensor([1., 2.])"


def test_backward_accumulates_and_retains():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x * 2.0
    g = gb.tensor([1.0, 1.0, 1.0])
    y.backward(g, retain_graph=True)
    assert x.grad.tolist() == [4.0, 8.0, 12.0]
    y.backward(g)
    assert x.grad.tolist() == [8.0, 16.0, 24.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(g)


def test_non_scalar_backward_needs_a_gradient():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_operators_with_numbers_and_broadcasting():
    a = leaf([[1.0, 2.0], [3.0, 4.0]])
    b = leaf([10.0, 20.0])
    out = (2 - a) * b / 4 + 1
    out.backward(gb.tensor([[1.0, 1.0], [1.0, 1.0]]))
    assert a.grad.tolist() == [[-2.5, -5.0], [-2.5, -5.0]]
    assert b.grad.tolist() == [(1 + -1) / 4, (0 + -2) / 4]


def test_hooks_and_retain_grad():
    x = leaf([1.0, 2.0])
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.retain_grad()
    y.backward(gb.tensor([1.0, 1.0]))
    assert seen == [[1.0, 1.0]]
    assert y.grad.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [3.0, 3.0]


def test_no_grad_and_enable_grad():
    x = leaf([1.0])
    with gb.no_grad():
        assert not gb.is_grad_enabled()
        assert not (x * 2).requires_grad
        x += 1  # in-place on a leaf is fine without grad mode
        with gb.enable_grad():
            assert (x * 2).requires_grad
    assert gb.is_grad_enabled()

    @gb.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad


def test_inplace_errors():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x += 1
    a = x * 2
    b = a * a
    a += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.backward(gb.tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        gb.tensor([1, 2]).requires_grad_()


def test_autograd_grad_and_double_backward():
    x = leaf([1.0, 2.0])
    y = x * x * x
    (g,) = gb.autograd.grad(y, x, gb.tensor([1.0, 1.0]), create_graph=True)
    assert g.tolist() == [3.0, 12.0] and x.grad is None
    (gg,) = gb.autograd.grad(g, x, gb.tensor([1.0, 1.0]))
    assert gg.tolist() == [6.0, 12.0]
    z = leaf([1.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        gb.autograd.grad(x * 2, z, gb.tensor([1.0, 1.0]))


def test_numpy_shares_memory_with_grad_free_tensors():
    a = np.arange(4.0)
    t = gb.from_numpy(a)
    t += 1
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert np.asarray(t * 2).tolist() == [2.0, 4.0, 6.0, 8.0]


def test_out_forms_refuse_gradients_unless_the_result_cannot_carry_one():
    x = gb.tensor([1.0, 2.0], requires_grad=True)
    flags = gb.empty(2, dtype=gb.bool)
    gb.eq(x, x, out=flags)  # a comparison into a bool out=: nothing to differentiate, as in PyTorch
    assert flags.tolist() == [True, True]
    with pytest.raises(RuntimeError, match="out="):
        gb.mul(x, x, out=gb.empty(2))


def _calls(block):
    with gb.trace() as t:
        block()
    return [e.op for e in t.events if e.kind == "call"]


def test_a_fresh_gradient_becomes_grad_without_a_copy():
    x = leaf([1.0, 2.0, 3.0])
    g = gb.tensor([1.0, 10.0, 100.0])
    calls = _calls(lambda: (x * 2).backward(gradient=g))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 20.0, 200.0])
    assert "glassbox::clone" not in calls, calls  # mul's result was nobody else's: taken as is
    # the weight of a linear layer: its gradient comes out in the weight's own layout and is taken
    w = gb.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    a = gb.tensor(np.ones((4, 3), dtype=np.float32))
    calls = _calls(lambda: gb.nn.functional.linear(a, w).sum().backward())
    assert w.grad.is_contiguous() and "glassbox::clone" not in calls, calls
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 4.0))


def test_grad_never_shares_memory_with_a_tensor_someone_holds():
    # the caller's own gradient
    x = leaf([1.0, 2.0])
    g = gb.tensor([3.0, 4.0])
    x.backward(gradient=g)
    x.grad.mul_(10)
    np.testing.assert_array_equal(g.numpy(), [3.0, 4.0])
    # a tensor a hook returns and keeps
    held = gb.tensor([5.0, 6.0])
    y = leaf([1.0, 2.0])
    y.register_hook(lambda grad: held)
    (y * 1).sum().backward()
    y.grad.add_(1)
    np.testing.assert_array_equal(held.numpy(), [5.0, 6.0])
    # a view of a larger gradient (a slice's backward keeps the rest alive elsewhere)
    base = leaf([1.0, 2.0, 3.0, 4.0])
    parts = base.split(2)
    (parts[0] * 3).sum().backward(retain_graph=True)
    np.testing.assert_array_equal(base.grad.numpy(), [3.0, 3.0, 0.0, 0.0])
    # a gradient with history (create_graph) stays itself, as before
    z = leaf([2.0])
    (z * z).sum().backward(create_graph=True)
    assert z.grad.requires_grad
