"""The structured element-wise operators (`structured:` in ops.yaml): every variant of every backend
is the same front end, so the Meta device gives the CPU's output shape, dtype and strides and
raises the CPU's exception class and text, for the functional, in-place and out= forms alike."""

import numpy as np
import pytest

import glassbox as gb

ops = gb.ops.glassbox


def t(values, dtype, device="cpu"):
    x = gb.from_numpy(np.asarray(values, dtype=dtype))
    return x if device == "cpu" else ops.empty(list(x.shape), dtype=x.dtype, device=device)


def outcome(fn):
    """(shape, dtype, strides) of the result, or (exception class, text)."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return type(e), str(e)
    return tuple(r.shape), r.dtype, tuple(r.stride())


A = np.arange(6).reshape(2, 3)
CASES = [
    # (name, call taking a device, arguments as (values, dtype))
    ("add", lambda d: ops.add(t(A, "float32", d), t([1, 2, 3], "int64", d), alpha=2)),
    ("add alpha float on int", lambda d: ops.add(t(A, "int64", d), t(A, "int64", d), alpha=1.5)),
    ("add alpha overflow", lambda d: ops.add(t(A, "int8", d), t(A, "int8", d), alpha=300)),
    ("add_ broadcast self", lambda d: ops.add_(t([1, 2, 3], "float32", d), t(A, "float32", d))),
    ("add.out int", lambda d: ops.add(t(A, "float32", d), t(A, "float32", d), out=t([0], "int64", d))),
    ("sub bool", lambda d: ops.sub(t([True], "bool", d), t([True], "bool", d))),
    ("sub_ bool", lambda d: ops.sub_(t([True], "bool", d), t([True], "bool", d))),
    ("mul shapes", lambda d: ops.mul(t(A, "float32", d), t([1, 2], "float32", d))),
    ("div int", lambda d: ops.div(t(A, "int32", d), t(A, "int32", d))),
    ("div_ int", lambda d: ops.div_(t(A, "int32", d), t(A, "int32", d))),
    ("pow bool", lambda d: ops.pow(t([True], "bool", d), t([True], "bool", d))),
    ("eq", lambda d: ops.eq(t(A, "float16", d), t([1, 2, 3], "int8", d))),
    ("lt.out", lambda d: ops.lt(t(A, "float32", d), t(A, "int32", d), out=t([[0]], "float32", d))),
    ("maximum", lambda d: ops.maximum(t(A, "uint8", d), t(A, "int8", d))),
    ("neg bool", lambda d: ops.neg(t([True], "bool", d))),
    ("neg.out", lambda d: ops.neg(t(A, "float64", d), out=t([0.0], "float64", d))),
    ("sqrt int", lambda d: ops.sqrt(t(A, "int16", d))),
    ("sqrt_ int", lambda d: ops.sqrt_(t(A, "int16", d))),
    ("exp transposed", lambda d: ops.exp(t(np.ones((3, 2)), "float32", d).t())),
    ("gelu approximate", lambda d: ops.gelu(t(A, "float32", d), approximate="fast")),
    ("gelu int", lambda d: ops.gelu(t(A, "int64", d))),
    ("logical_not", lambda d: ops.logical_not(t(A, "float32", d))),
    ("clamp none", lambda d: ops.clamp(t(A, "float32", d), None, None)),
    ("clamp", lambda d: ops.clamp(t(A, "int32", d), t([1.5], "float32", d), None)),
    ("silu_backward int", lambda d: ops.silu_backward(t(A, "int32", d), t(A, "int32", d))),
    ("threshold_backward", lambda d: ops.threshold_backward(t(A, "float32", d), t(A, "float32", d), 0.5)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[c[0] for c in CASES])
def test_meta_agrees_with_cpu(name, call):
    cpu, meta = outcome(lambda: call("cpu")), outcome(lambda: call("meta"))
    assert meta == cpu


def test_integer_add_with_float_alpha_is_refused_on_every_device():
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError, match=r"^add: alpha must be an integer for integer tensors, got 1.5"):
            ops.add(t([1], "int64", device), t([1], "int64", device), alpha=1.5)


def test_in_place_and_out_forms_have_meta_kernels():
    for name in ("glassbox::add_.Tensor", "glassbox::add.out", "glassbox::pow.Tensor_Tensor_out", "glassbox::gelu_"):
        keys = {k["key"] for k in gb.registry.operator_info(name)["kernels"]}
        assert {"CPU", "Meta"} <= keys, (name, keys)
    m = ops.empty([2, 3], device="meta")
    assert tuple(ops.add_(m, ops.empty([3], device="meta")).shape) == (2, 3)
    out = ops.empty([0], device="meta")
    r = ops.add(ops.empty([4, 1], device="meta"), ops.empty([5], device="meta"), out=out)
    assert tuple(r.shape) == (4, 5) and tuple(out.shape) == (4, 5)


def test_hypot_on_meta_and_its_errors_match_the_cpu():
    a, b = ops.empty([4, 1], device="meta"), ops.empty([3], device="meta", dtype=gb.float64)
    r = ops.hypot(a, b)
    assert tuple(r.shape) == (4, 3) and r.dtype == gb.float64 and r.device == "meta"
    assert tuple(a.hypot_(ops.empty([1], device="meta")).shape) == (4, 1)
    for device in ("cpu", "meta"):
        with pytest.raises(
            NotImplementedError, match=r"^hypot: expected floating-point tensors, got int64 of shape \[2\] and "
        ):
            ops.hypot(t([3, 4], "int64", device), t([3, 4], "int64", device))
    assert outcome(lambda: ops.hypot(t(A, "float32"), t([1, 2], "float32"))) == outcome(
        lambda: ops.hypot(t(A, "float32", "meta"), t([1, 2], "float32", "meta"))
    )


def test_hypot_does_not_overflow_on_the_way():
    a, b = np.array([3.0, -5.0, 1e200, 0.5]), np.array([4.0, 12.0, 1e200, -1.5])
    r = ops.hypot(gb.from_numpy(a), gb.from_numpy(b))
    np.testing.assert_allclose(np.asarray(r.tolist()), np.hypot(a, b), rtol=1e-15)
