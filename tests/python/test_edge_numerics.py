"""Numerical edge cases where glassbox answers as PyTorch does, each checked against NumPy in float64:
log_softmax and cross_entropy of large logits, topk of a 0-d tensor, clamp with NaN bounds, sum/prod
with an integer dtype (converted first), sign of NaN, std/var of large float32 values, softmax of a
slice holding inf. On the device under test (`--device cuda` runs the CUDA kernels)."""

import math

import numpy as np
import pytest

import glassbox as gb
import glassbox.nn.functional as F
from devices import from_numpy, on_device


def tensor(values):
    return on_device(gb.tensor(values))


def log_softmax_ref(x, axis):
    x = np.asarray(x, dtype=np.float64)
    m = x.max(axis=axis, keepdims=True)
    return (x - m) - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_log_softmax_of_large_logits_keeps_its_precision():
    got = gb.log_softmax(tensor([1e7, 1e7 - 1]), 0)
    assert got.dtype == gb.float32
    np.testing.assert_allclose(got.cpu().tolist(), log_softmax_ref([1e7, 1e7 - 1], 0), rtol=1e-5)
    np.testing.assert_allclose(got.cpu().tolist(), [-0.3133, -1.3133], atol=1e-4)


@pytest.mark.parametrize("shape, dim", [((3, 40), 1), ((40, 3), 0), ((2, 40, 5), 1)], ids=["rows", "columns", "middle"])
def test_log_softmax_of_large_logits_along_any_dim(shape, dim):
    rng = np.random.RandomState(0)
    x = (1e6 + rng.randint(-4, 5, size=shape)).astype(np.float32)  # exactly representable offsets
    got = np.asarray(gb.log_softmax(from_numpy(x), dim).cpu().tolist())
    np.testing.assert_allclose(got, log_softmax_ref(x, dim), rtol=1e-5, atol=1e-5)


def test_cross_entropy_of_large_logits():
    logits = np.array([[1e7, 1e7 - 1], [-1e7, -1e7 + 2]], dtype=np.float32)
    target = np.array([1, 0])
    want = -log_softmax_ref(logits, 1)[np.arange(2), target].mean()
    got = F.cross_entropy(from_numpy(logits), from_numpy(target)).item()
    assert math.isclose(got, want, rel_tol=1e-5), (got, want)


@pytest.mark.parametrize("k", [0, 1])
def test_topk_of_a_0d_tensor_is_its_element(k):
    values, indices = gb.topk(tensor(3.5), k)
    assert list(values.shape) == [] and list(indices.shape) == []
    assert values.item() == 3.5 and indices.item() == 0


def test_topk_of_a_0d_tensor_refuses_k_past_one():
    with pytest.raises(RuntimeError, match="out of range"):  # torch: "selected index k out of range"
        gb.topk(tensor(3.5), 2)


def test_clamp_with_nan_bounds_gives_nan():
    x = tensor([1.0, 2.0, float("nan")])
    nan = float("nan")
    for got in (
        gb.clamp(x, min=nan),
        gb.clamp(x, max=nan),
        gb.clamp(x, nan, 5.0),
        gb.clamp_min(x, nan),
        gb.clamp_max(x, nan),
    ):
        assert all(math.isnan(v) for v in got.cpu().tolist())
    got = gb.clamp(tensor([1.0, 2.0]), min=tensor([nan, 0.0]))
    assert math.isnan(got.cpu().tolist()[0]) and got.cpu().tolist()[1] == 2.0
    # NaN in the input passes through ordinary bounds; min > max gives max.
    got = gb.clamp(x, 0.0, 1.5).cpu().tolist()
    assert got[:2] == [1.0, 1.5] and math.isnan(got[2])
    assert gb.clamp(tensor([0.0, 9.0]), 3.0, 2.0).cpu().tolist() == [2.0, 2.0]
    t = tensor([1.0, 2.0])
    t.clamp_(max=nan)
    assert all(math.isnan(v) for v in t.cpu().tolist())


def test_sum_and_prod_with_an_integer_dtype_convert_first():
    x = np.array([0.6, 0.6, 0.9, 1.5, -1.7], dtype=np.float32)
    got = gb.sum(from_numpy(x), dtype=gb.int64)
    assert got.dtype == gb.int64 and got.item() == x.astype(np.int64).sum() == 0
    y = np.array([1.5, 1.5, 2.5], dtype=np.float32)
    got = gb.prod(from_numpy(y), dtype=gb.int64)
    assert got.dtype == gb.int64 and got.item() == y.astype(np.int64).prod() == 2
    m = np.array([[0.7, 1.9], [2.2, 3.99]], dtype=np.float64)
    assert gb.sum(from_numpy(m), [1], dtype=gb.int32).cpu().tolist() == m.astype(np.int32).sum(axis=1).tolist()
    # Floating dtypes keep summing in floating point.
    assert math.isclose(gb.sum(from_numpy(x), dtype=gb.float64).item(), float(x.astype(np.float64).sum()))


@pytest.mark.parametrize("dtype", [gb.float32, gb.float64, gb.float16, gb.bfloat16])
def test_sign_of_nan_is_zero(dtype):
    got = gb.sign(tensor([float("nan"), -0.0, 0.0, -3.0, float("inf")]).to(dtype))
    assert got.dtype == dtype
    assert got.to(gb.float64).cpu().tolist() == [0.0, 0.0, 0.0, -1.0, 1.0]


def test_std_and_var_of_large_float32_values():
    x = np.array([1e20, 3e20, 2e20], dtype=np.float32)
    std = gb.std(from_numpy(x))
    assert std.dtype == gb.float32
    assert math.isclose(std.item(), float(np.std(x.astype(np.float64), ddof=1)), rel_tol=1e-6)
    # The variance itself (1e40) is past float32: inf, as in PyTorch.
    assert gb.var(from_numpy(x)).item() == float("inf")
    rows = np.array([[3e19, -3e19, 1e19, 0.0], [1.0, 2.0, 3.0, 4.0]], dtype=np.float32)
    got = gb.std(from_numpy(rows), [1]).cpu().tolist()
    np.testing.assert_allclose(got, np.std(rows.astype(np.float64), axis=1, ddof=1), rtol=1e-6)


@pytest.mark.parametrize("dim", [0, 1], ids=["columns", "rows"])
def test_softmax_of_a_slice_with_inf_is_nan(dim):
    inf = float("inf")
    x = np.array([[inf, 1.0, 2.0], [0.0, 1.0, 2.0], [-inf, -inf, -inf]], dtype=np.float32)
    x = x if dim == 1 else x.T.copy()
    for fn in (gb.softmax, gb.log_softmax):
        got = np.asarray(fn(from_numpy(x), dim).cpu().tolist())
        got = got if dim == 1 else got.T
        assert np.isnan(got[0]).all() and np.isnan(got[2]).all()  # PyTorch: +inf or all -inf make the slice NaN
        assert np.isfinite(got[1]).all()


def test_clamp_of_integers_by_bounds_past_the_dtype_neither_wraps_nor_passes_silently():
    t = gb.tensor([0, 3, 200], dtype=gb.uint8)
    assert t.clone().clamp_min_(-1).tolist() == [0, 3, 200]  # -1 used to wrap to 255
    assert t.clamp(-1, 100).tolist() == [0, 3, 100]
    assert t.clamp_max(300).tolist() == [0, 3, 200]  # 300 used to wrap to 44
    with pytest.raises(RuntimeError, match=r"clamp_min: min value 300 is outside the range of uint8 \[0, 255\]"):
        t.clamp_min(300)
    with pytest.raises(RuntimeError, match=r"clamp_max: max value -1 is outside the range of uint8"):
        t.clamp_max(-1)
    assert t.clamp(min=0.5).dtype == gb.float32  # a float bound promotes, as in PyTorch
