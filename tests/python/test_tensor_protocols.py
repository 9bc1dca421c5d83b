"""Tensor's Python protocols as PyTorch has them: truth value, `in`, len(), operators with NumPy
scalars and arrays on either side, t.data, and the handle register_hook returns."""

import numpy as np
import pytest

import glassbox as gb


# --- truth value, `in`, len()
def test_bool_of_one_element_is_its_value():
    assert bool(gb.tensor([0.0])) is False
    assert bool(gb.tensor([[3]])) is True
    assert bool(gb.tensor(0.0)) is False
    assert bool(gb.tensor(-1.5)) is True
    assert bool(gb.tensor([1.0]) > 5) is False
    assert bool(gb.tensor(float("nan"))) is True  # as bool(float("nan"))


@pytest.mark.parametrize("t", [gb.tensor([1.0, 2.0]) > 5, gb.zeros(2, 3), gb.tensor([])])
def test_bool_of_many_or_no_elements_is_ambiguous(t):
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(t)
    with pytest.raises(RuntimeError, match="ambiguous"):
        if t:
            pass


def test_contains_compares_elementwise():
    t = gb.tensor([1.0, 2.0])
    assert (1.5 in t) is False
    assert (1.0 in t) is True
    assert (2 in t) is True
    assert np.float32(2.0) in t
    assert gb.tensor([1.0, 2.0]) in gb.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert gb.tensor([9.0, 2.0]) in gb.tensor([[1.0, 2.0], [3.0, 4.0]])  # any element equal
    assert (5.0 in gb.tensor(0.0)) is False  # 0-d: no len() needed
    with pytest.raises(RuntimeError, match="tensor or a number"):
        "a" in t
    with pytest.raises(RuntimeError, match="tensor or a number"):
        None in t


def test_len():
    assert len(gb.zeros(4, 2)) == 4
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(gb.tensor(1.0))


def test_int_float_index_of_one_element():
    assert int(gb.tensor([3.7])) == 3 and float(gb.tensor([2])) == 2.0
    assert [10, 11, 12][gb.tensor(1)] == 11
    with pytest.raises(ValueError):
        int(gb.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="integer tensors of a single element"):
        [1, 2][gb.tensor([1.0])]


# --- NumPy scalars and arrays as operands
NUMPY_SCALARS = [np.float32(2), np.float64(2), np.float16(2), np.int64(2), np.int32(2), np.uint8(2)]
FORMS = {
    "add": (lambda x, s: x + s, lambda x, s: s + x),
    "sub": (lambda x, s: x - s, lambda x, s: s - x),
    "mul": (lambda x, s: x * s, lambda x, s: s * x),
    "div": (lambda x, s: x / s, lambda x, s: s / x),
    "pow": (lambda x, s: x**s, lambda x, s: s**x),
}


@pytest.mark.parametrize("scalar", NUMPY_SCALARS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("name", list(FORMS))
def test_numpy_scalar_operands_give_tensors_with_history(name, scalar):
    x = gb.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for side, form in zip(("left", "right"), FORMS[name]):
        y = form(x, scalar)
        assert isinstance(y, gb.Tensor), (name, side, type(y))
        assert y.dtype == gb.float32, (name, side)  # a NumPy scalar promotes as a Python number
        assert y.grad_fn is not None, (name, side)
        expected = form(np.array([1.0, 2.0, 3.0], dtype=np.float32), float(scalar))
        np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)
        y.sum().backward()
        assert x.grad is not None
        x.grad = None


@pytest.mark.parametrize(
    "scalar", [np.float16(1), np.float32(1), np.int64(1), np.bool_(True)], ids=lambda s: type(s).__name__
)
def test_numpy_scalar_comparisons_on_both_sides(scalar):
    x = gb.tensor([0.0, 1.0, 2.0])
    for y, want in [
        (x == scalar, [False, True, False]),
        (scalar == x, [False, True, False]),
        (x != scalar, [True, False, True]),
        (x < scalar, [True, False, False]),
        (scalar < x, [False, False, True]),
        (scalar >= x, [True, True, False]),
    ]:
        assert isinstance(y, gb.Tensor) and y.dtype == gb.bool
        assert y.tolist() == want


def test_numpy_scalar_keeps_integer_and_half_dtypes():
    assert (np.int32(2) * gb.ones(2, dtype=gb.int8)).dtype == gb.int8
    assert (gb.ones(2, dtype=gb.float16) * np.float64(2)).dtype == gb.float16
    assert (gb.tensor([1, 2]) * np.float64(2.5)).dtype == gb.float32
    assert (gb.tensor([1, 2]) * np.int64(2)).tolist() == [2, 4]


def test_numpy_arrays_as_operands():
    x = gb.tensor([1.0, 2.0, 3.0], requires_grad=True)
    zero_d = np.array(2.0)
    for y in (x + zero_d, zero_d + x, x * zero_d, zero_d * x, zero_d - x, x == zero_d, zero_d == x):
        assert isinstance(y, gb.Tensor)
    assert (zero_d - x).tolist() == [1.0, 0.0, -1.0]
    assert (x * zero_d).dtype == gb.float32 and (x * zero_d).grad_fn is not None
    arr = np.array([1.0, 1.0, 2.0])
    for y in (x + arr, arr + x, arr * x):
        assert isinstance(y, gb.Tensor) and y.dtype == gb.float64 and y.grad_fn is not None
    assert (arr - x).tolist() == [0.0, -1.0, -1.0]
    m = np.ones((2, 3), dtype=np.float32)
    assert (m @ x).shape == (2,)


def test_unsupported_operands_still_raise_type_error():
    x = gb.ones(2)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        np.float64(2) @ x
    assert (x == "a") is False


def test_numpy_scalars_where_numbers_go():
    x = gb.ones(3, requires_grad=True)
    assert x.add(np.float64(1)).tolist() == [2.0, 2.0, 2.0]
    assert x.clamp(min=np.float32(1.5)).tolist() == [1.5, 1.5, 1.5]
    assert gb.full([2], np.float32(3)).tolist() == [3.0, 3.0]
    assert x.sum(np.int64(0)).shape == ()
    assert x.view(np.int64(3)).shape == (3,)
    assert x.reshape(np.int32(3), 1).shape == (3, 1)
    assert x.unsqueeze(np.uint8(0)).shape == (1, 3)
    assert x.view(np.array(3)).shape == (3,)
    assert gb.zeros(np.int64(2), np.int32(3)).shape == (2, 3)
    y = gb.zeros(3)
    y[np.int64(1)] = np.float32(5)
    assert y.tolist() == [0.0, 5.0, 0.0]
    gb.manual_seed(np.int64(3))
    first = gb.rand(2).tolist()
    gb.manual_seed(3)
    assert gb.rand(2).tolist() == first
    assert gb.ops.glassbox.sum(x, np.int64(0)).shape == ()
    assert gb.cat([x, x], np.int32(0)).shape == (6,)
    with pytest.raises(TypeError):
        x.sum(np.bool_(True))
    with pytest.raises(TypeError):
        x.unsqueeze(True)


# --- t.data
def test_data_reads_detached_shared_storage():
    x = gb.ones(3, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 5.0
    assert x.tolist() == [5.0, 1.0, 1.0]


def test_data_assignment_replaces_the_data():
    x = gb.ones(2, requires_grad=True)
    x.grad = gb.ones(2)
    new = gb.zeros(3, dtype=gb.float64)
    x.data = new
    assert x.shape == (3,) and x.dtype == gb.float64
    assert x.requires_grad and x.is_leaf
    new[1] = 7.0  # shared, not copied
    assert x.tolist() == [0.0, 7.0, 0.0]
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_data_assignment_keeps_a_fitting_grad():
    p = gb.nn.Parameter(gb.ones(2))
    p.grad = gb.tensor([0.5, 0.5])
    p.data = gb.tensor([3.0, 4.0])
    assert type(p) is gb.nn.Parameter and p.tolist() == [3.0, 4.0]
    assert p.grad.tolist() == [0.5, 0.5]


# --- register_hook's handle
def test_register_hook_returns_removable_handle():
    x = gb.ones(3, requires_grad=True)
    calls = []
    handle = x.register_hook(lambda g: calls.append(1) or g * 2)
    (x * 1).sum().backward()
    assert calls == [1] and x.grad.tolist() == [2.0, 2.0, 2.0]
    handle.remove()
    handle.remove()  # twice is harmless
    x.grad = None
    (x * 1).sum().backward()
    assert calls == [1] and x.grad.tolist() == [1.0, 1.0, 1.0]


def test_hook_handle_as_context_manager():
    x = gb.ones(2, requires_grad=True)
    with x.register_hook(lambda g: g * 3):
        (x * 1).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_hook_errors_reach_python_with_their_class():
    x = gb.ones(2, requires_grad=True)
    handle = x.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        (x * 2).sum().backward()
    handle.remove()
    x.register_hook(lambda g: "not a tensor")
    with pytest.raises(TypeError, match="must return a Tensor or None"):
        (x * 2).sum().backward()
