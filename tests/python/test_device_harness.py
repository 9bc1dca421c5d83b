"""The op table's device plumbing, checked without a GPU: with the device under test set to `meta`,
no operator may be handed tensors from two devices (inputs, index tensors, masks and class targets
all follow the device), which is what `pytest --device cuda` relies on. Meta tensors have no data,
so a call may still fail for that reason (or for want of a Meta kernel); it must not fail for
mixing devices."""

import re
import zlib

import numpy as np
import pytest

import devices
import glassbox as gb
from optable import ALL
from test_forward import to_glassbox

MIXED = re.compile(r"expected all tensors on one device|on self's device")

CASES = [pytest.param(info, id=info.name) for info in ALL]


def on_device_under_test(value, dtype):
    """What test_forward's convert hands the op (without the reference, which needs data)."""
    if isinstance(value, gb.Tensor):
        return devices.on_device(value)
    if isinstance(value, np.ndarray):
        return to_glassbox(value, dtype)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        return [to_glassbox(v, dtype) for v in value]
    return value


@pytest.fixture
def on_meta():
    previous = devices.DEVICE
    devices.set_device("meta")
    yield
    devices.set_device(previous)


@pytest.mark.parametrize("info", CASES)
def test_no_operator_sees_two_devices(info, on_meta):
    dtype = info.dtypes[0]
    rng = np.random.default_rng(zlib.crc32(info.name.encode()))
    for sample in info.samples(rng, dtype):
        args = [on_device_under_test(a, dtype) for a in sample.args]
        try:
            info.op(*args, **sample.kwargs)
        except Exception as e:  # noqa: BLE001 - only one kind of failure is of interest
            assert not MIXED.search(str(e)), f"{info.name} [{sample.name}]: {e}"


def test_a_0d_cpu_tensor_joins_element_wise_operators_on_another_device():
    """As in PyTorch: a 0-d CPU tensor (not only a Python number) may be an operand of an
    element-wise operator on another device; operators that read their operands on the device
    (indices, masks) and tensors with dims still refuse the CPU."""
    m = gb.ones(2, 3, device="meta")
    s = gb.tensor(2.0)
    for make in (
        lambda: m * s,
        lambda: s - m,
        lambda: m / s,
        lambda: m**s,
        lambda: gb.where(m > s, m, s),
        lambda: gb.clamp(m, min=s),
    ):
        r = make()
        assert r.device == "meta" and r.shape == (2, 3) and r.dtype == gb.float32
    with pytest.raises(RuntimeError, match="add: expected all tensors on one device, got meta and cpu"):
        m + gb.ones(1)
    with pytest.raises(RuntimeError, match="gather: expected index on self's device meta, got index on cpu"):
        gb.gather(gb.ones((), device="meta"), 0, gb.tensor(0))
    with pytest.raises(RuntimeError, match="masked_fill: expected mask on self's device meta, got mask on cpu"):
        gb.ones(3, device="meta").masked_fill(gb.tensor(True), s)
