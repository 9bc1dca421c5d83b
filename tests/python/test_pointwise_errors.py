"""Bad arguments to the point-wise operators raise Python exceptions whose text names the operator,
the offending dtypes or shapes, and what is wrong."""

import numpy as np
import pytest

import glassbox as gb

ops = gb.ops.glassbox


def t(values, dtype):
    return gb.from_numpy(np.asarray(values, dtype=dtype))


def test_float_result_cannot_go_into_an_integer_tensor():
    with pytest.raises(
        RuntimeError,
        match=r"^sqrt_: result type float32 can't be cast to the desired output type int64 "
        r"\(output int64 of shape \[3\]\)$",
    ):
        ops.sqrt_(t([1, 4, 9], "int64"))
    with pytest.raises(RuntimeError, match=r"^div_: result type float32 can't be cast"):
        ops.div_(t([1, 2], "int32"), t([2, 2], "int32"))
    with pytest.raises(
        RuntimeError,
        match=r"^add.out: result type float32 can.t be cast to the desired output type int64 \(output int64 of shape \[1\]\)$",
    ):
        ops.add(t([1.5], "float32"), t([1.5], "float32"), out=t([0], "int64"))


def test_dtype_not_supported():
    with pytest.raises(
        NotImplementedError, match=r"^gelu: expected a floating-point tensor, got int64 of shape \[2\]$"
    ):
        ops.gelu(t([1, 2], "int64"))
    with pytest.raises(NotImplementedError, match=r"^abs: not supported for bool tensors \(got bool of shape \[1\]\)$"):
        ops.abs(t([True], "bool"))
    with pytest.raises(
        RuntimeError, match=r"^where: expected condition to be a bool tensor, got float32 of shape \[2\]$"
    ):
        ops.where(t([1, 0], "float32"), t([1, 2], "float32"), t([3, 4], "float32"))
    with pytest.raises(NotImplementedError, match=r"^silu_backward: expected floating-point tensors"):
        ops.silu_backward(t([1], "int32"), t([1], "int32"))


def test_bad_string_options():
    with pytest.raises(RuntimeError, match=r"^gelu: approximate must be 'none' or 'tanh', got 'fast'$"):
        ops.gelu(t([1.0], "float32"), approximate="fast")
    with pytest.raises(RuntimeError, match=r"^div: rounding_mode must be None, 'trunc' or 'floor', got 'round'$"):
        ops.div(t([1.0], "float32"), t([2.0], "float32"), rounding_mode="round")


def test_integer_division_by_zero_and_negative_powers():
    with pytest.raises(
        RuntimeError,
        match=r"^div: integer division by zero \(rounding_mode='floor', self int64 of shape "
        r"\[2\], other int64 of shape \[2\]\)$",
    ):
        ops.div(t([1, 2], "int64"), t([1, 0], "int64"), rounding_mode="floor")
    with pytest.raises(
        RuntimeError,
        match=r"^pow: integers to negative integer powers are not allowed \(self int32 of "
        r"shape \[1\], exponent -1\)$",
    ):
        ops.pow(t([2], "int32"), -1)
    # a float division by zero is no error
    assert ops.div(t([1.0], "float32"), t([0.0], "float32"), rounding_mode="floor").tolist() == [float("inf")]


def test_clamp_needs_a_bound_and_shapes_must_broadcast():
    with pytest.raises(RuntimeError, match=r"^clamp: at least one of 'min' or 'max' must not be None$"):
        ops.clamp(t([1.0], "float32"))
    with pytest.raises(RuntimeError, match=r"^lt: shapes \[2\] and \[3\] cannot be broadcast together"):
        ops.lt(t([1, 2], "int64"), t([1, 2, 3], "int64"))
    # An out= of another shape is resized (as in PyTorch), not refused; an in-place call cannot resize.
    with pytest.raises(RuntimeError, match=r"^add_: output of shape \[1\] does not match the broadcast shape \[3\]"):
        ops.add_(t([0.0], "float32"), t([1.0, 2.0, 3.0], "float32"))


def test_arguments_no_overload_accepts():
    with pytest.raises(RuntimeError, match=r"no overload accepts these arguments"):
        ops.clamp(t([1.0], "float32"), min="low")
