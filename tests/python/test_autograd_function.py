"""gb.autograd.Function: forward/backward written in Python, recorded as one backward node."""

import numpy as np
import pytest

import glassbox as gb
from devices import from_numpy, to_numpy
from gradcheck import gradcheck


class ScaledExp(gb.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = x.exp() * scale
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y, None


class SplitSum(gb.autograd.Function):
    """Two outputs, one of them marked non-differentiable."""

    @staticmethod
    def forward(ctx, a, b):
        total = a + b
        larger = (a > b).to(a.dtype)
        ctx.mark_non_differentiable(larger)
        return total, larger

    @staticmethod
    def backward(ctx, grad_total, grad_larger):
        return grad_total, grad_total * 2.0


def test_forward_backward_and_grad_fn():
    x = from_numpy(np.array([0.0, 1.0, -2.0])).requires_grad_(True)
    y = ScaledExp.apply(x, 3.0)
    assert y.grad_fn.name() == "ScaledExpBackward" and "ScaledExpBackward" in repr(y)
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), 3.0 * np.exp([0.0, 1.0, -2.0]), rtol=1e-12)
    assert gradcheck(lambda t: ScaledExp.apply(t, 0.5), [np.array([0.3, -1.2, 2.0])]) == 3


def test_no_history_without_grad():
    y = ScaledExp.apply(from_numpy(np.ones(2)), 1.0)
    assert y.grad_fn is None and not y.requires_grad
    x = from_numpy(np.ones(2)).requires_grad_(True)
    with gb.no_grad():
        assert ScaledExp.apply(x, 1.0).grad_fn is None


def test_several_outputs_and_non_differentiable_ones():
    a = from_numpy(np.array([1.0, 5.0])).requires_grad_(True)
    b = from_numpy(np.array([3.0, 2.0])).requires_grad_(True)
    total, larger = SplitSum.apply(a, b)
    assert not larger.requires_grad and total.requires_grad
    np.testing.assert_array_equal(to_numpy(larger), [0.0, 1.0])
    (total * 3.0).sum().backward()
    np.testing.assert_array_equal(to_numpy(a.grad), [3.0, 3.0])
    np.testing.assert_array_equal(to_numpy(b.grad), [6.0, 6.0])


def test_needs_input_grad_and_materialized_zeros():
    seen = {}

    class Probe(gb.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            return a * 2.0, b * 2.0

        @staticmethod
        def backward(ctx, ga, gb_):
            seen["grads"] = (to_numpy(ga).copy(), to_numpy(gb_).copy())
            return ga * 2.0, gb_ * 2.0

    a = from_numpy(np.ones(2)).requires_grad_(True)
    first, _ = Probe.apply(a, from_numpy(np.ones(2)))
    assert seen["needs"] == (True, False)
    first.sum().backward()  # the second output got no gradient: backward sees zeros
    np.testing.assert_array_equal(seen["grads"][1], [0.0, 0.0])
    np.testing.assert_array_equal(to_numpy(a.grad), [2.0, 2.0])


def test_an_input_returned_as_is_keeps_its_own_history():
    class Identity(gb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5.0

    x = from_numpy(np.ones(3)).requires_grad_(True)
    y = Identity.apply(x)
    assert x.grad_fn is None and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), [5.0] * 3)


def test_wrong_backward_results_are_named():
    class TooMany(gb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    class WrongShape(gb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = from_numpy(np.ones(3)).requires_grad_(True)
    with pytest.raises(
        RuntimeError, match=r"TooManyBackward returned an incorrect number of gradients \(expected 1, got 2\)"
    ):
        TooMany.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match="WrongShapeBackward returned an invalid gradient at index 0"):
        WrongShape.apply(x).backward()
    with pytest.raises(RuntimeError, match="not instantiated"):
        TooMany()
