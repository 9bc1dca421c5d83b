"""Second derivatives checked against finite differences of the first (the backward operators of
the activations, softmax and losses are differentiable themselves), and operators without a
derivative recording a node that refuses the backward pass, instead of cutting their results off
the graph."""

import numpy as np
import pytest

import glassbox as gb
from devices import from_numpy, on_device
from gradcheck import gradcheck

ops = gb.ops.glassbox


def first_gradient(f, weight_seed=1):
    """x -> d/dx sum(w * f(x)), kept differentiable (create_graph), for a fixed random w."""

    def g(*xs):
        with gb.enable_grad():  # gradcheck's finite differences run under no_grad
            y = f(*xs)
            w = from_numpy(np.random.default_rng(weight_seed).standard_normal(y.shape))
            return gb.autograd.grad([y], list(xs), [w], create_graph=True)

    return g


def samples(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


SECOND_ORDER = {
    "sigmoid": lambda x: ops.sigmoid(x),
    "tanh": lambda x: ops.tanh(x),
    "relu": lambda x: ops.relu(x) * x,  # relu's second derivative is 0; this one is not
    "gelu": lambda x: ops.gelu(x),
    "gelu(tanh)": lambda x: ops.gelu(x, approximate="tanh"),
    "silu": lambda x: ops.silu(x),
    "softmax": lambda x: ops.softmax(x, 1),
    "log_softmax": lambda x: ops.log_softmax(x, 0),
    "mse_loss(mean)": lambda x: ops.mse_loss(x * x, from_numpy(samples(3, 4, seed=5))),
    "mse_loss(sum)": lambda x: ops.mse_loss(x * x, from_numpy(samples(3, 4, seed=5)), 2),
    "nll_loss": lambda x: ops.nll_loss(ops.log_softmax(x, 1), on_device(gb.tensor([0, 3, 1]))),
    "unfold": lambda x: ops.unfold(x * x, 1, 2, 1),
    "as_strided": lambda x: ops.as_strided(x * x, [2, 3], [1, 2], 1),
}


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivative_matches_finite_differences(name):
    x = samples(3, 4)
    assert gradcheck(first_gradient(SECOND_ORDER[name]), [x]) == x.size


def test_mse_loss_second_derivative_in_grad_output_and_target():
    def f(x, target):
        with gb.enable_grad():
            (g,) = gb.autograd.grad([ops.mse_loss(x, target)], [x], create_graph=True)
            return g * g

    assert gradcheck(f, [samples(2, 3), samples(2, 3, seed=2)]) == 12


def test_an_operator_without_a_derivative_refuses_the_backward_pass():
    x = gb.randn(4, requires_grad=True)
    y = ops.embedding_dense_backward(x.unsqueeze(0), gb.tensor([1]), 4, -1, False)
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="the derivative for 'embedding_dense_backward' is not implemented"):
        y.sum().backward()
    assert x.grad is None
    # Without grad, or under no_grad, nothing is recorded.
    assert ops.embedding_dense_backward(x.detach().unsqueeze(0), gb.tensor([1]), 4, -1, False).grad_fn is None
    with gb.no_grad():
        assert ops.embedding_dense_backward(x.unsqueeze(0), gb.tensor([1]), 4, -1, False).grad_fn is None
    # Results that are not floating point need no derivative.
    assert not (x > 0).requires_grad and not ops.argmax(x).requires_grad


def test_never_differentiable_operators_have_no_autograd_kernel():
    # derivatives.yaml marks them output_differentiability: [False]: the Autograd key falls through.
    for name in (
        "glassbox::eq.Tensor",
        "glassbox::gt.Tensor",
        "glassbox::logical_not",
        "glassbox::argmax",
        "glassbox::one_hot",
    ):
        table = gb.registry.dump_table(name)
        assert "CPU: registered at" in table, name
        assert "AutogradCPU: registered" not in table, (name, table)
    # In-place forms keep self's (maybe floating) dtype, so they still refuse a backward pass.
    assert "AutogradCPU: registered" in gb.registry.dump_table("glassbox::logical_not_")
    y = gb.randn(3, requires_grad=True) * 1.0
    y.logical_not_()
    assert y.grad_fn.name() == "NotImplemented"


def test_a_second_derivative_through_a_backward_operator_without_one_is_refused():
    x = gb.randn(1, 1, 4, 4, requires_grad=True)
    y = ops.max_pool2d(x, [2, 2]).sum()
    (g,) = gb.autograd.grad([y], [x], create_graph=True)  # the first derivative is fine
    assert g.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="the derivative for 'max_pool2d_with_indices_backward' is not implemented"):
        gb.autograd.grad([(g * x).sum()], [x])


def test_in_place_pow_with_a_tensor_exponent_records_its_gradient():
    base = gb.tensor([1.5, 2.0], dtype=gb.float64, requires_grad=True)
    exponent = gb.tensor([2.0, 3.0], dtype=gb.float64, requires_grad=True)
    y = base * 1.0
    y.pow_(exponent)
    assert y.grad_fn.name() == "PowBackward0"
    y.sum().backward()
    np.testing.assert_allclose(base.grad.numpy(), [2 * 1.5, 3 * 4.0])
    np.testing.assert_allclose(exponent.grad.numpy(), [1.5**2 * np.log(1.5), 8 * np.log(2.0)])
