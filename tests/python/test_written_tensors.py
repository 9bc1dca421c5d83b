"""What operators do with the tensors they write into, as PyTorch does: an expanded (self-overlapping)
tensor is refused by every in-place operator and out= but fill_ and masked_fill_; an out= of another shape
is resized (with a warning when it had elements); a number written as such (fill_, full, masked_fill_,
t[i] = v) must fit the tensor's dtype."""

import warnings

import numpy as np
import pytest

import devices
import glassbox as gb


# Made on the device under test (`--device cuda` runs the CUDA kernels).
def tensor(values):
    return devices.on_device(gb.tensor(values))


def ones(*size, **kw):
    return gb.ones(*size, device=devices.DEVICE, **kw)


def zeros(*size, **kw):
    return gb.zeros(*size, device=devices.DEVICE, **kw)


def empty(*size, **kw):
    return gb.empty(*size, device=devices.DEVICE, **kw)


def full(size, value, **kw):
    return gb.full(size, value, device=devices.DEVICE, **kw)


OVERLAP = r"more than one element of the written-to tensor .* refers to a single memory location"


def expanded():
    """[[1, 2], [1, 2]] whose rows share memory (stride 0)."""
    return tensor([1.0, 2.0]).expand(2, 2)


@pytest.mark.parametrize(
    "write",
    [
        lambda t: t.add_(1),
        lambda t: t.mul_(ones(2, 2)),
        lambda t: t.sigmoid_(),
        lambda t: t.clamp_(0, 1),
        lambda t: t.relu_(),
        lambda t: t.copy_(ones(2, 2)),
        lambda t: t.normal_(),
        lambda t: t.uniform_(),
        lambda t: t.scatter_(0, tensor([[0, 0]]), 3.0),
        lambda t: t.scatter_add_(0, tensor([[0, 0]]), ones(1, 2)),
        lambda t: t.index_add_(0, tensor([0]), ones(1, 2)),
        lambda t: gb.add(ones(2), ones(2), out=t),
        lambda t: gb.sum(ones(2, 2), 0, out=ones(1).expand(2)),
        lambda t: gb.mm(ones(2, 2), ones(2, 2), out=t),
        lambda t: gb.cumsum(ones(2, 2), 0, out=t),
    ],
    ids=[
        "add_",
        "mul_",
        "sigmoid_",
        "clamp_",
        "relu_",
        "copy_",
        "normal_",
        "uniform_",
        "scatter_",
        "scatter_add_",
        "index_add_",
        "add.out",
        "sum.out",
        "mm.out",
        "cumsum.out",
    ],
)
def test_writes_into_an_expanded_tensor_are_refused(write):
    t = expanded()
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(t)
    assert t.cpu().tolist() == [[1.0, 2.0], [1.0, 2.0]]  # refused before anything was written


def test_an_empty_expanded_tensor_may_be_written():
    t = zeros(1).expand(0, 3)  # strides [0, 0], but no element to write twice
    t.add_(1)
    assert list(t.shape) == [0, 3]


def test_zero_writes_zeros_through_views():
    base = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert base[:, 1].zero_().cpu().tolist() == [0.0, 0.0]
    assert gb.zero_(base[1:, 2:]).cpu().tolist() == [[0.0]]
    assert base.cpu().tolist() == [[1.0, 0.0, 3.0], [4.0, 0.0, 0.0]]
    # In place under autograd, as fill_: the gradient through the zeroed elements is zero.
    w = tensor([1.0, 2.0, 3.0]).requires_grad_()
    y = w * 2
    y[1:].zero_()
    y.sum().backward()
    assert w.grad.cpu().tolist() == [2.0, 0.0, 0.0]


def test_fill_and_masked_fill_may_write_an_expanded_tensor():
    # Every alias gets the same value, so PyTorch allows these.
    assert expanded().fill_(5.0).cpu().tolist() == [[5.0, 5.0], [5.0, 5.0]]
    assert expanded().masked_fill_(tensor([True, False]), 3.0).cpu().tolist() == [[3.0, 2.0], [3.0, 2.0]]
    # tril_ writes only its zeros: (0, 1) and (1, 1) share memory, and the zero wins, as in PyTorch.
    assert expanded().tril_().cpu().tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert expanded().triu_(1).cpu().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_out_of_another_shape_is_resized_with_a_warning():
    out = ones(2, 3)
    with pytest.warns(
        UserWarning, match=r"add.out: out= had shape \[2, 3\] and holds elements; it was resized to \[3\]"
    ):
        r = gb.add(ones(3), ones(3), out=out)
    assert list(r.shape) == list(out.shape) == [3]
    assert out.cpu().tolist() == [2.0, 2.0, 2.0]


def test_empty_out_is_resized_silently():
    out = empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for an out= without elements
        gb.add(ones(3), ones(3), out=out)
    assert list(out.shape) == [3] and out.cpu().tolist() == [2.0, 2.0, 2.0]
    out = empty(0)
    gb.eq(tensor(1.0), 1.0, out=out)  # the case: a 0-d result into an empty float out
    assert list(out.shape) == [] and out.dtype == gb.float32 and out.cpu().item() == 1.0


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda out: gb.sum(ones(2, 3), 1, out=out), [3.0, 3.0]),
        (lambda out: gb.mm(ones(2, 3), ones(3, 1), out=out), [[3.0], [3.0]]),
        (lambda out: gb.cat([ones(2), zeros(1)], out=out), [1.0, 1.0, 0.0]),
        (lambda out: gb.cumsum(ones(3), 0, out=out), [1.0, 2.0, 3.0]),
        (lambda out: gb.where(tensor([True, False]), ones(2), zeros(2), out=out), [1.0, 0.0]),
        (lambda out: gb.exp(zeros(2, 2), out=out), [[1.0, 1.0], [1.0, 1.0]]),
        (lambda out: gb.clamp(tensor([-1.0, 5.0]), 0.0, 1.0, out=out), [0.0, 1.0]),
    ],
    ids=["sum", "mm", "cat", "cumsum", "where", "exp", "clamp"],
)
def test_every_family_resizes_its_out(call, want):
    for out in (empty(0), empty(7, 7)):  # storage too small, and large enough
        call(out)
        assert out.cpu().tolist() == want
        assert out.is_contiguous()


def test_an_expanded_out_of_another_shape_is_resized_first():
    # Reductions, matmul, cat and the factories resize before checking (as PyTorch): the resized out is
    # contiguous. Point-wise operators check first (as PyTorch's TensorIterator).
    out = ones(2, 1).expand(2, 2)
    gb.sum(ones(2, 3), 1, out=out)
    assert out.cpu().tolist() == [3.0, 3.0] and out.is_contiguous()
    with pytest.raises(RuntimeError, match=OVERLAP):
        gb.add(ones(3), ones(3), out=ones(2, 1).expand(2, 2))


def test_in_place_ops_cannot_resize_self():
    with pytest.raises(RuntimeError, match=r"add_: output of shape \[3\] does not match the broadcast shape \[2, 3\]"):
        ones(3).add_(ones(2, 3))


@pytest.mark.parametrize(
    "make",
    [
        lambda: full([2], 300, dtype=gb.int8),
        lambda: full([2], -129, dtype=gb.int8),
        lambda: full([2], 128.0, dtype=gb.int8),
        lambda: full([2], -128.1, dtype=gb.int8),
        lambda: full([2], -256, dtype=gb.uint8),
        lambda: full([2], -1.0, dtype=gb.uint8),
        lambda: full([2], 2**31, dtype=gb.int32),
        lambda: full([2], float("nan"), dtype=gb.int32),
        lambda: full([2], float("inf"), dtype=gb.int64),
        lambda: full([2], 2.0**63, dtype=gb.int64),
        lambda: full([2], 1e300, dtype=gb.float32),
        lambda: zeros(2, dtype=gb.int32).fill_(1e10),
        lambda: zeros(2, dtype=gb.int8).masked_fill_(tensor([True, False]), 300),
        lambda: zeros(2, dtype=gb.int8).masked_fill_(tensor([True, False]), tensor(300)),
        lambda: gb.add(ones(2, dtype=gb.int8), ones(2, dtype=gb.int8), alpha=300),
        lambda: gb.sub(ones(2), ones(2), alpha=1e308),
    ],
    ids=[
        "int8-300",
        "int8--129",
        "int8-128.0",
        "int8--128.1",
        "uint8--256",
        "uint8--1.0",
        "int32-2^31",
        "int32-nan",
        "int64-inf",
        "int64-2^63",
        "float32-1e300",
        "fill_",
        "masked_fill_",
        "masked_fill_-tensor",
        "add-alpha",
        "sub-alpha",
    ],
)
def test_numbers_that_do_not_fit_the_dtype_raise(make):
    with pytest.raises(RuntimeError, match=r"cannot be converted to type \w+ without overflow"):
        make()


def test_alpha_must_suit_the_result():
    with pytest.raises(RuntimeError, match=r"add: a bool alpha is only supported for bool results"):
        gb.add(ones(2), ones(2), alpha=True)
    assert gb.add(ones(2, dtype=gb.bool), ones(2, dtype=gb.bool), alpha=True).cpu().tolist() == [True, True]
    assert gb.add(ones(2, dtype=gb.uint8), ones(2, dtype=gb.uint8), alpha=-1).cpu().tolist() == [0, 0]  # wraps


def test_setitem_of_a_number_that_does_not_fit_raises():
    t = zeros(3, dtype=gb.int32)
    with pytest.raises(RuntimeError, match=r"cannot be converted to type int32 without overflow"):
        t[0] = 1e10
    with pytest.raises(RuntimeError, match=r"cannot be converted to type int32 without overflow"):
        t[tensor([0, 2])] = 1e10
    assert t.cpu().tolist() == [0, 0, 0]


def test_numbers_that_fit_are_written():
    assert full([2], 127, dtype=gb.int8).cpu().tolist() == [127, 127]
    assert full([2], -1, dtype=gb.uint8).cpu().tolist() == [255, 255]  # negative ints wrap into unsigned, as in PyTorch
    assert full([2], -255, dtype=gb.uint8).cpu().tolist() == [1, 1]
    assert full([2], 127.9, dtype=gb.int8).cpu().tolist() == [127, 127]  # below max + 1 truncates, as in PyTorch
    assert full([2], -128.0, dtype=gb.int8).cpu().tolist() == [-128, -128]
    assert full([2], 2, dtype=gb.bool).cpu().tolist() == [True, True]
    assert full([1], float("inf"), dtype=gb.float32).cpu().tolist() == [float("inf")]
    assert np.isnan(full([1], float("nan"), dtype=gb.float16).cpu().tolist()[0])
    assert full([1], 1e5, dtype=gb.float16).cpu().tolist() == [float("inf")]  # rounds to inf, as torch.full does
    # Arithmetic with a number wraps instead of raising (PyTorch too).
    assert (zeros(2, dtype=gb.int8) + 300).cpu().tolist() == [44, 44]
