"""gb.ops.<ns>.<op>: calling registered operators from Python, with overload resolution,
defaults, keyword arguments, and errors as Python exceptions."""

import numpy as np
import pytest

import glassbox as gb

ops = gb.ops.glassbox


def test_factories_and_values():
    x = ops.full([2, 3], 1.5)
    assert isinstance(x, gb.Tensor)
    assert x.shape == (2, 3) and x.dtype == gb.float32 and x.device == "cpu"
    assert x.tolist() == [[1.5] * 3] * 2
    assert ops.zeros([2], dtype=gb.int64).tolist() == [0, 0]
    assert ops.ones(3).tolist() == [1.0, 1.0, 1.0]  # an int where int[] is expected means [3]
    assert ops.full([2], 7).dtype == gb.int64  # the fill value decides the dtype


def test_repr_prints_like_pytorch():
    assert repr(ops.full([2, 2], 1.5)) == "tensor([[1.5000, 1.5000],\n        [1.5000, 1.5000]])"
    assert repr(ops.zeros([3], dtype=gb.int32)) == "tensor([0, 0, 0], dtype=glassbox.int32)"


def test_overloads_defaults_and_keywords():
    x = ops.full([2, 2], 1.5)
    assert ops.add(x, x).tolist() == [[3.0, 3.0]] * 2  # add.Tensor, alpha defaults to 1
    assert ops.add(x, x, alpha=2).tolist() == [[4.5, 4.5]] * 2
    assert ops.add(x, 1).tolist() == [[2.5, 2.5]] * 2  # add.Scalar
    assert ops.add.Tensor(x, x).tolist() == [[3.0, 3.0]] * 2
    i = ops.full([3], 2, dtype=gb.int32)
    assert ops.mul(i, 0.5).dtype == gb.float32  # a Python float is a weak type
    assert ops.div(i, i).tolist() == [1.0, 1.0, 1.0]
    assert "Tensor" in ops.add.overloads() and "Scalar" in ops.add.overloads()


def test_errors():
    x = ops.full([2, 3], 1.0)
    with pytest.raises(RuntimeError, match=r"glassbox::add\(\): no overload accepts these arguments"):
        ops.add(x, "a")
    with pytest.raises(RuntimeError, match=r"add: shapes \[2, 3\] and \[4\] cannot be broadcast together"):
        ops.add(x, ops.ones([4]))
    with pytest.raises(RuntimeError, match="unexpected keyword argument 'beta'"):
        ops.add(x, x, beta=2)
    with pytest.raises(AttributeError, match="no operator glassbox::nope"):
        ops.nope
    with pytest.raises(AttributeError, match="has no overload 'Banana'"):
        ops.add.Banana


def test_calls_show_in_the_dispatch_trace(capfd):
    x = ops.full([1], 1.0)
    with gb.trace_calls():
        ops.add(x, x)
    err = capfd.readouterr().err
    assert (
        "[call] op=[glassbox::add.Tensor] key=[AutogradCPU]\n  [redispatch] op=[glassbox::add.Tensor] key=[CPU]" in err
    )


def test_meta_device():
    m = ops.empty([3, 1], device="meta")
    r = ops.mul(m, ops.empty([4], device="meta", dtype=gb.float16))
    assert r.shape == (3, 4) and r.device == "meta" and r.dtype == gb.float32


@pytest.mark.parametrize(
    "dtype, value, expected",
    [
        ("float64", 0.123456789012345678, 0.123456789012345678),  # all 53 bits survive
        ("float32", 0.123456789012345678, float(np.float32(0.123456789012345678))),
        ("float16", 0.1, float(np.float16(0.1))),
        ("int64", 2**53 + 1, 2**53 + 1),
    ],
)
def test_item_and_tolist_keep_the_dtypes_precision(dtype, value, expected):
    t = gb.tensor([value], dtype=getattr(gb, dtype))
    assert t.item() == expected and type(t.item()) is type(expected)
    assert t.tolist() == [expected]


def test_size_methods_take_ints_one_by_one():
    x = gb.arange(6)
    assert x.view(2, 3).shape == (2, 3) and x.reshape(3, 2).shape == (3, 2)
    assert x.view(2, 3).permute(1, 0).shape == (3, 2)
    assert x.view(1, 6).expand(4, -1).shape == (4, 6)
    assert x.view(np.int64(6)).shape == (6,) and x.view([2, 3]).shape == (2, 3)
    np.testing.assert_array_equal(x.view(2, 3).flip(0, 1).numpy(), np.arange(6).reshape(2, 3)[::-1, ::-1])
    for bad, kind in [((2, 3.0), "float"), ((True, 6), "bool"), ((6, gb.int64), "dtype")]:
        with pytest.raises(TypeError, match=f"view\\(\\): size must be ints, got {kind}"):
            x.view(*bad)
    assert x.view(gb.float64).dtype == gb.float64  # a dtype alone is view(dtype), as in PyTorch
