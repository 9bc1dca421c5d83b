"""Pickling tensors with every protocol, copy.copy / copy.deepcopy, and gb.save / gb.load of
tensors and module state dicts: dtype, shape, strides, storage offset, requires_grad and data kept."""

import copy
import io
import pickle
import subprocess
import sys
from collections import OrderedDict

import numpy as np
import pytest

import glassbox as gb

PROTOCOLS = list(range(pickle.HIGHEST_PROTOCOL + 1))


def assert_same(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset()
    assert a.requires_grad == b.requires_grad
    assert a.detach().tolist() == b.detach().tolist()


# Protocols 0 and 1 once aborted the interpreter: checked in a child first (below), in-process here
# only from 2 on, so that such a regression fails one test instead of ending the run.
@pytest.mark.parametrize("protocol", PROTOCOLS[2:])
def test_pickle_round_trip(protocol):
    t = gb.tensor([[1.5, -2.0, 3.0], [4.0, 5.0, 6.25]])
    back = pickle.loads(pickle.dumps(t, protocol=protocol))
    assert_same(t, back)
    assert back.data_ptr() != t.data_ptr()  # a copy


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_reduce_ex_every_protocol_in_a_child(protocol):
    """protocol 0/1 used to abort the interpreter (an uncaught C++ exception)."""
    code = (
        f"import pickle, glassbox as gb\n"
        f"t = gb.arange(6.0).reshape(2, 3).t().requires_grad_(True)\n"
        f"t.__reduce_ex__({protocol})\n"
        f"b = pickle.loads(pickle.dumps(t, protocol={protocol}))\n"
        f"print(b.tolist(), b.stride(), b.requires_grad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]] (1, 3) True"


@pytest.mark.parametrize(
    "dtype",
    [gb.float32, gb.float64, gb.float16, gb.bfloat16, gb.int64, gb.int32, gb.int16, gb.int8, gb.uint8, gb.bool],
    ids=str,
)
def test_pickle_keeps_every_dtype(dtype):
    t = gb.tensor([[0, 1, 2], [3, 4, 5]]).to(dtype)
    back = pickle.loads(pickle.dumps(t))
    assert back.dtype == dtype and back.shape == (2, 3)
    assert back.tolist() == t.tolist()


def test_pickle_keeps_strides_and_offset():
    base = gb.arange(12.0).reshape(3, 4)
    for t in (base.t(), base[1:, 1:], base[:, ::2], base.t()[1:], gb.zeros(0, 3), gb.tensor(7.0)):
        assert_same(t, pickle.loads(pickle.dumps(t)))
    assert not pickle.loads(pickle.dumps(base.t())).is_contiguous()


def test_pickle_requires_grad_and_non_leaf():
    x = gb.ones(3, requires_grad=True)
    x.grad = gb.ones(3)
    back = pickle.loads(pickle.dumps(x))
    assert back.requires_grad and back.is_leaf and back.grad is None  # .grad is not pickled (as PyTorch)
    y = x * 2  # a non-leaf pickles as a leaf that requires grad, without its history
    back = pickle.loads(pickle.dumps(y))
    assert back.requires_grad and back.is_leaf and back.tolist() == [2.0, 2.0, 2.0]
    back.sum().backward()
    assert back.grad.tolist() == [1.0, 1.0, 1.0]


def test_pickle_parameter_stays_parameter():
    p = gb.nn.Parameter(gb.ones(2))
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is gb.nn.Parameter and back.requires_grad
    frozen = gb.nn.Parameter(gb.ones(2), requires_grad=False)
    assert not pickle.loads(pickle.dumps(frozen)).requires_grad


def test_copy_and_deepcopy():
    x = gb.tensor([1.0, 2.0], requires_grad=True)
    x.grad = gb.tensor([0.5, 0.5])
    c = copy.copy(x)
    assert_same(x, c)
    d = copy.deepcopy(x)
    assert_same(x, d)
    assert d.grad.tolist() == [0.5, 0.5]
    d.detach()[0] = 9.0
    assert x.tolist() == [1.0, 2.0]  # not shared
    shared = [x, x]
    copied = copy.deepcopy(shared)
    assert copied[0] is copied[1]  # the memo is honoured
    with pytest.raises(RuntimeError, match="leaf"):
        copy.deepcopy(x * 2)
    p = gb.nn.Parameter(gb.ones(2))
    assert type(copy.deepcopy(p)) is gb.nn.Parameter


def test_deepcopy_of_a_module():
    model = gb.nn.Sequential(gb.nn.Linear(3, 2), gb.nn.ReLU())
    twin = copy.deepcopy(model)
    for (_, a), (_, b) in zip(model.state_dict().items(), twin.state_dict().items()):
        assert_same(a, b)
    with gb.no_grad():
        twin[0].weight.fill_(0.0)
    assert model[0].weight.abs().sum().item() > 0


def test_save_load_tensor_and_state_dict(tmp_path):
    model = gb.nn.Linear(4, 3)
    path = tmp_path / "model.gb"
    gb.save(model.state_dict(), path)
    state = gb.load(path)
    assert isinstance(state, (dict, OrderedDict)) and list(state) == list(model.state_dict())
    fresh = gb.nn.Linear(4, 3)
    fresh.load_state_dict(state)
    x = gb.randn(2, 4)
    assert fresh(x).tolist() == model(x).tolist()
    buffer = io.BytesIO()
    t = gb.arange(6.0).reshape(2, 3).t()
    gb.save({"t": t, "n": 3, "items": [t, (1.5, "a")]}, buffer)
    buffer.seek(0)
    back = gb.load(buffer, map_location="cpu")
    assert_same(t, back["t"]) and back["n"] == 3 and back["items"][1] == (1.5, "a")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_save_every_protocol(protocol):
    buffer = io.BytesIO()
    gb.save({"w": gb.ones(2, 2)}, buffer, pickle_protocol=protocol)
    buffer.seek(0)
    assert gb.load(buffer)["w"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


class _Evil:
    def __reduce__(self):
        return (print, ("ran code while loading",))


def test_load_refuses_other_globals_unless_told():
    buffer = io.BytesIO()
    gb.save({"x": _Evil()}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="builtins.print"):
        gb.load(buffer)
    buffer.seek(0)
    assert gb.load(buffer, weights_only=False) == {"x": None}
    with pytest.raises(AttributeError, match="map_location"):  # torch.load's class
        gb.load(io.BytesIO(), map_location=3)


def test_save_and_load_refuse_non_files_with_torchs_class():
    with pytest.raises(AttributeError, match="'write'"):
        gb.save(gb.ones(2), gb.ones(2))
    with pytest.raises(AttributeError, match="'read'"):
        gb.load([1, 2])


def test_cuda_tensors_are_read_through_the_cpu():
    if not gb.cuda.is_available():
        pytest.skip("no CUDA device")
    t = gb.arange(6.0).reshape(2, 3).to("cuda")
    back = pickle.loads(pickle.dumps(t))
    assert back.device.startswith("cuda") and back.cpu().tolist() == t.cpu().tolist()
    buffer = io.BytesIO()
    gb.save(t, buffer)
    buffer.seek(0)
    assert gb.load(buffer, map_location="cpu").device == "cpu"


def test_numpy_round_trip_is_unaffected():
    a = np.arange(4, dtype=np.float32)
    assert pickle.loads(pickle.dumps(gb.from_numpy(a))).tolist() == [0.0, 1.0, 2.0, 3.0]
