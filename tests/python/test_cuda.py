"""gb.cuda and CUDA tensors from Python. Without a GPU, gb.cuda answers, asking for a CUDA tensor
raises RuntimeError saying why and the settings still work; with one, every result is checked
against the CPU's for the same inputs."""

import numpy as np
import pytest

import glassbox as gb
from glassbox.library import Library

requires_gpu = pytest.mark.skipif(not gb.cuda.is_available(), reason=f"no CUDA device: {gb.cuda.describe()}")


def test_cuda_module_answers_with_or_without_a_gpu():
    assert gb.cuda.device_count() == gb._C._cuda.device_count()
    assert gb.cuda.is_available() == (gb.cuda.device_count() > 0)
    assert isinstance(gb.cuda.describe(), str)
    if not gb.cuda.is_available():
        assert gb.cuda.memory_allocated() == 0
        assert gb.cuda.max_memory_allocated() == 0
        assert gb.cuda.memory_reserved() == 0
        gb.cuda.empty_cache()
        gb.cuda.reset_peak_memory_stats()
    with pytest.raises(ValueError, match="expected a CUDA device"):
        gb.cuda.memory_allocated("cpu")


def test_tf32_switch_round_trips():
    matmul = gb.backends.cuda.matmul
    assert matmul.allow_tf32 is False  # off by default, as in PyTorch
    try:
        matmul.allow_tf32 = True
        assert matmul.allow_tf32 is True and gb._C._cuda.matmul_allow_tf32() is True
    finally:
        matmul.allow_tf32 = False
    assert repr(matmul) == "matmul(allow_tf32=False)"


@pytest.mark.skipif(gb.cuda.is_available(), reason="a GPU is present")
def test_without_a_gpu_cuda_tensors_raise_clearly():
    t = gb.ones(3)
    assert t.is_cuda is False and t.cpu().data_ptr() == t.data_ptr()  # already there: no copy
    why = "CUDA is not available" if gb._C._cuda.built_with_cuda() else "cuda"
    for make in (
        lambda: gb.zeros(2, device="cuda"),
        t.cuda,
        lambda: t.to("cuda"),
        lambda: gb.tensor([1.0], device="cuda"),
    ):
        with pytest.raises(RuntimeError, match=why):
            make()
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        gb.cuda.synchronize()


@requires_gpu
def test_round_trip_repr_and_factories():
    t = gb.tensor([[1.0, 2.0], [3.0, 4.0]])
    d = t.cuda()
    assert d.device == "cuda:0" and d.is_cuda and not t.is_cuda
    assert repr(d) == "tensor([[1., 2.],\n        [3., 4.]], device='cuda:0')"
    assert repr(d.to(gb.float16)[0]) == "tensor([1., 2.], device='cuda:0', dtype=glassbox.float16)"
    assert d.cpu().device == "cpu" and d.cpu().tolist() == t.tolist() == d.tolist()
    assert d.to("cpu").tolist() == t.tolist()
    assert d[1, 0].item() == 3.0
    assert gb.tensor([1, 2], device="cuda").device == "cuda:0"
    z = gb.zeros(2, 3, dtype=gb.int32, device="cuda")
    assert z.device == "cuda:0" and z.dtype == gb.int32 and z.tolist() == [[0, 0, 0]] * 2
    assert gb.full([2], 7.5, device="cuda").tolist() == [7.5, 7.5]
    with pytest.raises(TypeError, match=r"use \.cpu\(\) first"):
        d.numpy()


@requires_gpu
def test_operators_match_the_cpu():
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((64, 33)).astype(np.float32)
    b_np = rng.standard_normal((33,)).astype(np.float32)
    w_np = rng.standard_normal((33, 17)).astype(np.float32)
    a, b, w = gb.from_numpy(a_np), gb.from_numpy(b_np), gb.from_numpy(w_np)
    da, db, dw = a.cuda(), b.cuda(), w.cuda()
    cases = {
        "add": lambda x, y, m: x + y * 2,
        "sub mul div": lambda x, y, m: (x - y) * x / (y.abs() + 1),
        "scalars": lambda x, y, m: 2.5 * x - 1,
        "unary": lambda x, y, m: x.exp() + x.abs().sqrt() + x.abs().log() + x.sigmoid() + x.tanh() + x.relu(),
        "softmax": lambda x, y, m: gb.softmax(x, 1) + gb.log_softmax(x, 0),
        "sum": lambda x, y, m: x.sum(0) + x.mean(0) + x.amax(0),
        "full sum": lambda x, y, m: x.sum(),
        "matmul": lambda x, y, m: x @ m,
        "where": lambda x, y, m: gb.where(x > y, x, y * 0.5),
    }
    for name, f in cases.items():
        expected = f(a, b, w).numpy()
        got = f(da, db, dw)
        assert got.device == "cuda:0", name
        np.testing.assert_allclose(got.cpu().numpy(), expected, rtol=2e-5, atol=2e-5, err_msg=name)
    assert (da > db).cpu().numpy().tolist() == (a > b).numpy().tolist()
    # Random numbers: the CPU's generator, so the same seed gives the same numbers.
    gb.manual_seed(3)
    c = gb.randn(5, 4)
    gb.manual_seed(3)
    g = gb.randn(5, 4, device="cuda")
    np.testing.assert_allclose(g.cpu().numpy(), c.numpy(), rtol=1e-5, atol=1e-6)


@requires_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.bool_])
def test_copies_of_every_layout_equal_numpys(dtype):
    """Same-dtype copies move words as wide as the layout allows (16 bytes for rows of 64 floats)
    or single elements: rows that are, and are not, a multiple of a word, unaligned starts, steps,
    broadcasts, more dims than one launch indexes, and a strided destination."""
    rng = np.random.default_rng(1)

    def make(*shape):
        return (rng.standard_normal(shape) * 4).astype(dtype)

    cases = []
    for d in (64, 16, 6, 3, 1):
        x = make(2, 5, 4, d)
        cases.append(("heads d=%d" % d, x, lambda t: t.transpose(1, 2).contiguous(), x.transpose(0, 2, 1, 3)))
        b = make(d * 4)
        cases.append(("bias %d" % (d * 4), b, lambda t: t.expand(7, t.shape[0]).contiguous(), np.tile(b, (7, 1))))
    m = make(33, 70)
    cases += [
        ("unaligned start", m, lambda t: t[:, 1:65].contiguous(), m[:, 1:65]),
        ("stepped", m, lambda t: t[::2, ::3].contiguous(), m[::2, ::3]),
        ("transposed", m, lambda t: t.t().contiguous(), m.T),
        ("column", m, lambda t: t[:, 5:6].contiguous(), m[:, 5:6]),
    ]
    deep = make(2, 2, 2, 2, 2, 2, 2, 3)
    order = (7, 6, 5, 4, 3, 2, 1, 0)
    cases.append(("8 dims permuted", deep, lambda t: t.permute(*order).contiguous(), deep.transpose(order)))
    for name, array, f, want in cases:
        got = f(gb.from_numpy(np.ascontiguousarray(array)).cuda()).cpu().numpy()
        np.testing.assert_array_equal(got, np.ascontiguousarray(want), err_msg=name)
    # into a strided destination (the transpose of a contiguous tensor)
    src = make(64, 48)
    dst = gb.zeros(48, 64, dtype=gb.from_numpy(src).dtype, device="cuda").t()
    dst.copy_(gb.from_numpy(src).cuda())
    np.testing.assert_array_equal(dst.cpu().numpy(), src)


@requires_gpu
def test_autograd_on_the_gpu_matches_the_cpu():
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((32, 20)).astype(np.float32)
    w1_np = (rng.standard_normal((24, 20)) * 0.3).astype(np.float32)
    w2_np = (rng.standard_normal((5, 24)) * 0.3).astype(np.float32)

    def run(device):
        x = gb.tensor(x_np, device=device)
        w1 = gb.tensor(w1_np, device=device, requires_grad=True)
        w2 = gb.tensor(w2_np, device=device, requires_grad=True)
        y = gb.log_softmax(gb.relu(x @ w1.t()) @ w2.t(), 1)
        loss = -(y.sum(1)).mean()
        loss.backward()
        return loss, w1.grad, w2.grad

    cpu, gpu = run("cpu"), run("cuda")
    assert gpu[0].device == "cuda:0" and gpu[1].device == "cuda:0"
    assert "grad_fn=<NegBackward0>" in repr(gpu[0]) and "device='cuda:0'" in repr(gpu[0])
    for c, g in zip(cpu, gpu):
        np.testing.assert_allclose(g.cpu().detach().numpy(), c.detach().numpy(), rtol=1e-4, atol=1e-5)


@requires_gpu
def test_memory_statistics():
    gb.cuda.synchronize()
    gb.cuda.empty_cache()
    before = gb.cuda.memory_allocated()
    x = gb.empty(1 << 20, device="cuda")  # 4 MiB
    assert gb.cuda.memory_allocated() - before == 4 << 20
    assert gb.cuda.max_memory_allocated() >= gb.cuda.memory_allocated()
    assert gb.cuda.memory_reserved() >= gb.cuda.memory_allocated()
    del x
    assert gb.cuda.memory_allocated() == before
    assert gb.cuda.memory_reserved() - gb.cuda.memory_allocated() >= 4 << 20  # cached for reuse
    gb.cuda.empty_cache()
    assert gb.cuda.memory_reserved() == gb.cuda.memory_allocated()
    stats = gb.cuda.memory_stats()
    assert stats["driver_allocations"] >= 1 and stats["allocations"] >= stats["driver_allocations"]


@requires_gpu
def test_errors_are_python_exceptions():
    d = gb.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="expected all tensors on one device, got cuda:0 and cpu"):
        d + gb.ones(3)
    with pytest.raises(RuntimeError, match="expected all tensors on one device, got cuda:0 and cpu"):
        d + gb.ones(1)  # a 1-element CPU tensor is not a 0-d one
    with pytest.raises(RuntimeError, match="mul_: output on cpu but inputs on cuda:0"):
        gb.tensor(2.0).mul_(d[0])
    # An operator with a CPU kernel only (every glassbox operator may gain a CUDA kernel).
    with Library("t_cuda_missing", "DEF") as lib:
        lib.define("cpu_only(Tensor x) -> Tensor")
        lib.impl("cpu_only", key="CPU")(lambda x: x)
        with pytest.raises(RuntimeError, match="no kernel for t_cuda_missing::cpu_only for dispatch key CUDA"):
            gb.ops.t_cuda_missing.cpu_only(d)


@requires_gpu
def test_a_0d_cpu_tensor_joins_gpu_operations_and_gets_its_gradient_on_the_cpu():
    x_np = np.linspace(0.5, 2.0, 6).reshape(2, 3)
    x = gb.tensor(x_np, dtype=gb.float32, device="cuda", requires_grad=True)
    s = gb.tensor(1.5, dtype=gb.float64, requires_grad=True)  # 0-d, on the CPU
    y = gb.where(x > 1.0, x * s, x ** gb.tensor(2.0)).sum()
    assert y.device == "cuda:0" and y.dtype == gb.float32
    y.backward()
    big = x_np > 1.0
    np.testing.assert_allclose(y.item(), np.where(big, x_np * 1.5, x_np**2).sum(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.where(big, 1.5, 2 * x_np), rtol=1e-6)
    assert s.grad.device == "cpu" and s.grad.dtype == gb.float64
    np.testing.assert_allclose(s.grad.item(), x_np[big].sum(), rtol=1e-6)
    # pow with a Python number on either side differentiates on the GPU.
    z = gb.tensor([0.5, 1.0, 2.0], device="cuda", requires_grad=True)
    (z**2.5 + 2.0**z).sum().backward()
    zn = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(z.grad.cpu().numpy(), 2.5 * zn**1.5 + np.log(2.0) * 2.0**zn, rtol=1e-5)


@requires_gpu
def test_integer_matrix_products_match_the_cpu():
    rng = np.random.default_rng(5)
    for dtype in (gb.int64, gb.int32, gb.int16, gb.int8, gb.uint8):
        a, b = (
            gb.tensor(rng.integers(0, 20, (9, 40)), dtype=dtype),
            gb.tensor(rng.integers(0, 20, (40, 7)), dtype=dtype),
        )
        assert (a.cuda() @ b.cuda()).cpu().tolist() == (a @ b).tolist(), dtype


@requires_gpu
def test_dlpack_shares_cuda_memory():
    t = gb.arange(6, dtype=gb.float32, device="cuda").reshape(2, 3).t()
    assert t.__dlpack_device__() == (2, 0)
    back = gb.from_dlpack(t.__dlpack__(stream=-1))
    assert back.device == "cuda:0" and back.data_ptr() == t.data_ptr() and back.stride() == t.stride()
    back.add_(1.0)
    assert t.cpu().tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    host = gb.from_dlpack(t.__dlpack__(dl_device=(1, 0), copy=True))
    assert host.device == "cpu" and host.tolist() == t.cpu().tolist()
    with pytest.raises(BufferError, match="cannot export a cuda:0 tensor to cpu:0 without copy=True"):
        t.__dlpack__(dl_device=(1, 0))
    with pytest.raises(TypeError, match="stream must be None or an int for a CUDA tensor"):
        t.__dlpack__(stream="default")
    assert gb.from_dlpack(gb.ones(2), device="cuda").device == "cuda:0"


@requires_gpu
def test_dlpack_with_torch_on_the_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    x = torch.arange(8, dtype=torch.float32, device="cuda").reshape(2, 4)
    t = gb.from_dlpack(x)  # PyTorch orders its work before glassbox's current stream
    assert t.device == "cuda:0" and t.data_ptr() == x.data_ptr()
    t.mul_(2.0)
    y = torch.from_dlpack(t)  # and glassbox before PyTorch's
    assert y.data_ptr() == x.data_ptr() and x.tolist() == [[0.0, 2.0, 4.0, 6.0], [8.0, 10.0, 12.0, 14.0]]
    y.add_(1.0)
    assert t.cpu().tolist() == x.cpu().tolist()


@requires_gpu
def test_bad_indices_raise_at_the_next_synchronisation():
    """Index checks that would make the host wait (index_select, nll_loss's targets, embedding's
    backward) report at the next synchronisation instead: the same IndexError as the CPU's, never
    a read outside the tensor, and nothing left over for later calls."""
    F = gb.nn.functional
    logp = gb.tensor(np.log(np.full((4, 5), 0.2, dtype=np.float32))).cuda()
    with pytest.raises(IndexError, match=r"nll_loss: target 7 is out of bounds for 5 classes"):
        F.nll_loss(logp, gb.tensor([0, 1, 7, 2]).cuda())
        gb.cuda.synchronize()
    w_np = np.arange(18, dtype=np.float32).reshape(6, 3)
    w = gb.tensor(w_np).cuda()
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 0 with size 6"):
        w.index_select(0, gb.tensor([1, 9]).cuda()).cpu()  # a copy to the host waits, and reports
    with pytest.raises(IndexError, match="index 6 is out of bounds for dimension 0 with size 6"):
        grad = gb.ones(2, 3).cuda()
        gb.ops.glassbox.embedding_dense_backward(grad, gb.tensor([6, 0]).cuda(), 6, -1, False).sum().item()
    # an embedding trained on the GPU with bad ids: the error comes by the loss's .item()
    emb = gb.nn.Embedding(6, 3).cuda()
    with pytest.raises(IndexError, match="out of bounds"):
        emb(gb.tensor([[1, 8]]).cuda()).sum().item()
    # nothing stale: good calls work and report nothing
    np.testing.assert_array_equal(w.index_select(0, gb.tensor([5, 0]).cuda()).cpu().numpy(), w_np[[5, 0]])
    loss = F.nll_loss(logp, gb.tensor([0, 1, 4, 2]).cuda())
    assert abs(loss.item() - float(-np.log(0.2))) < 1e-5
    gb.cuda.synchronize()
