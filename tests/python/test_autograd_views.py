"""Autograd through in-place writes to views: a view and its base share memory and a version counter,
so a write through either one must reach the history of both (the base's history becomes CopySlices,
the view's is made again from the base). Values are checked against hand-derived gradients, and
every pattern against central finite differences (gradcheck)."""

import numpy as np
import pytest

import glassbox as gb
from gradcheck import gradcheck


def test_in_place_through_a_whole_view_of_a_non_leaf():
    x = gb.ones(3, requires_grad=True)
    y = x * 1
    y.view(-1).mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_in_place_through_one_element():
    x = gb.ones(3, requires_grad=True)
    y = x * 1
    y[0].mul_(3)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 1.0, 1.0]


def test_a_view_made_before_its_base_is_written_sees_the_write():
    x = gb.ones(3, requires_grad=True)
    y = x * 1
    v = y[1:]
    y.mul_(5)
    (v * v).sum().backward()
    assert x.grad.tolist() == [0.0, 50.0, 50.0]
    assert v.grad_fn.name() == "AsStridedBackward0"


def test_a_write_through_a_view_gives_the_base_a_history():
    w = gb.tensor([2.0, 3.0], requires_grad=True)
    b = gb.zeros(3)
    other_view = b[:2]
    assert not other_view.requires_grad
    b[1:].add_(w)
    assert b.grad_fn.name() == "CopySlices"
    assert other_view.requires_grad  # it sees the base's new history
    (b * gb.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert w.grad.tolist() == [10.0, 100.0]


def test_assignment_overwrites_the_gradient():
    x = gb.ones(3, requires_grad=True)
    y = x * 2
    y[0] = 7.0
    (y * y).sum().backward()
    assert x.grad.tolist() == [0.0, 8.0, 8.0]


def test_assigning_a_tensor_that_requires_grad_into_a_slice():
    w = gb.tensor([1.0, 2.0], requires_grad=True)
    b = gb.zeros(4)
    b[1:3] = w * 3
    (b * gb.arange(4.0)).sum().backward()
    assert w.grad.tolist() == [3.0, 6.0]


def test_views_of_views_write_into_the_first_base():
    x = gb.arange(6.0).reshape(2, 3).requires_grad_()
    y = x * 1
    y[1][1:].mul_(10)
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 10.0, 10.0]]


def test_second_derivative_through_copy_slices():
    x = gb.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[0].mul_(x[1])  # y = [x0 * x1, x1, x2]
    (g,) = gb.autograd.grad((y * y).sum(), [x], create_graph=True)
    assert g.tolist() == [8.0, 8.0, 6.0]  # [2 x0 x1^2, 2 x0^2 x1 + 2 x1, 2 x2]
    g.sum().backward()
    assert x.grad.tolist() == [16.0, 12.0, 2.0]


def test_in_place_on_a_view_of_a_leaf_that_requires_grad_is_refused():
    x = gb.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.copy_(gb.zeros(3))
    with gb.no_grad():  # initialisation code does this
        x[0].fill_(5.0)
    assert x.tolist() == [5.0, 1.0, 1.0]


def test_a_saved_tensor_written_through_a_view_is_detected():
    x = gb.ones(2, 3, requires_grad=True)
    y = x.exp()
    y.t()[0].sigmoid_()  # exp's backward needs its result, now changed
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_views_of_integer_tensors_take_in_place_writes():
    t = gb.arange(6).reshape(2, 3)
    t[0].add_(10)
    t.t()[2].mul_(2)
    assert t.tolist() == [[10, 11, 24], [3, 4, 10]]


# Every pattern above, against finite differences.
def _mul_column(x, w):
    y = x * 1
    y[:, 1].mul_(w)
    return y.exp()


def _add_through_flat_view(x, w):
    y = x * 1
    y.view(-1)[2:6].add_(w)
    return y * y


def _sigmoid_through_transpose(x):
    y = x * 2
    y.t()[1:].sigmoid_()
    return y


def _view_then_base_written(x):
    y = x * 1
    v = y[1]
    y.add_(x * x)
    return v.exp()


def _copy_into_strided_slice(x, w):
    y = x.clone()
    y[:, ::2] = w.tanh()
    return y * x


@pytest.mark.parametrize(
    "fn,shapes",
    [
        (_mul_column, [(3, 4), (3,)]),
        (_add_through_flat_view, [(2, 4), (4,)]),
        (_sigmoid_through_transpose, [(3, 4)]),
        (_view_then_base_written, [(3, 2)]),
        (_copy_into_strided_slice, [(2, 5), (2, 3)]),
    ],
)
def test_gradients_match_finite_differences(fn, shapes):
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in shapes]
    assert gradcheck(fn, arrays) > 0
