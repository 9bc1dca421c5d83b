"""Every operator of the op table against its NumPy reference, for every dtype it supports, on
0-d, empty, broadcast and non-contiguous inputs. Shape and dtype are asserted before values."""

import zlib

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, on_device, to_numpy
from optable import ALL, TOL

ops = gb.ops.glassbox


def to_glassbox(a, dtype):
    """A tensor of `dtype` holding a's values (bfloat16 arrives as float32 and is converted)."""
    t = gb.from_numpy(a)
    if dtype == "bfloat16":
        t = ops.to(t, gb.bfloat16)
    return on_device(t)


def to_reference(t):
    """The tensor's values as a NumPy array the reference computes on (halves widened)."""
    if t.dtype in (gb.float16, gb.bfloat16):
        return to_numpy(ops.to(t, gb.float64))
    return to_numpy(t).copy()


def convert(value, dtype):
    if isinstance(value, gb.Tensor):  # made by the sample itself (class targets): moved, not converted
        return on_device(value), value
    if isinstance(value, np.ndarray):
        t = to_glassbox(value, dtype)
        return t, to_reference(t)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        pairs = [convert(v, dtype) for v in value]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    return value, value


def assert_matches(name, dtype, got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{name}: expected {len(want)} results"
        for g, w in zip(got, want):
            assert_matches(name, dtype, g, w)
        return
    want = np.asarray(want)
    assert isinstance(got, gb.Tensor), f"{name}: expected a tensor, got {type(got).__name__}"
    assert got.shape == want.shape, f"{name}: shape {got.shape}, expected {want.shape}"
    got_np = to_reference(got)
    if got.dtype in (gb.float16, gb.bfloat16, gb.float32, gb.float64):
        rtol, atol = TOL[str(got.dtype).split(".")[-1]]
        np.testing.assert_allclose(
            got_np.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=name, equal_nan=True
        )
    else:
        np.testing.assert_array_equal(got_np, want, err_msg=name)


CASES = [pytest.param(info, dtype, id=f"{info.name}-{dtype}") for info in ALL for dtype in info.dtypes]


@pytest.mark.parametrize("info,dtype", CASES)
def test_matches_reference(info, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{info.name}-{dtype}".encode()))  # str hash() differs per process
    for sample in info.samples(rng, dtype):
        converted = [convert(a, dtype) for a in sample.args]
        ours = info.op(*[c[0] for c in converted], **sample.kwargs)
        with np.errstate(all="ignore"):
            want = info.ref(*[c[1] for c in converted], **sample.kwargs)
        expected_dtype = info.ref_dtype(dtype) if info.ref_dtype else dtype
        first = ours[0] if isinstance(ours, (tuple, list)) else ours
        if DEVICE != "cpu" and any(isinstance(c[0], gb.Tensor) for c in converted) and not info.name.startswith("to."):
            assert str(first.device).startswith(DEVICE), f"{info.name} [{sample.name}]: result on {first.device}"
        assert str(first.dtype) == f"glassbox.{expected_dtype}", (
            f"{info.name} [{sample.name}]: dtype {first.dtype}, expected {expected_dtype}"
        )
        assert_matches(f"{info.name} [{sample.name}] {dtype}", dtype, ours, want)
