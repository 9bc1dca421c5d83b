"""The everyday API written in Python over the operators, beyond what the op table checks: named
results, axis=, gb.trace both ways, diagonal as a view, nested index tuples, split with sizes, einsum's
use of one bmm; and, where PyTorch is installed, the same calls compared with it value for value,
index for index (ties and NaN included) and gradient for gradient."""

import numpy as np
import pytest

import glassbox as gb

NAMED = [
    ("max", lambda m, x: m.max(x, 1), ("values", "indices")),
    ("min", lambda m, x: x.min(dim=0), ("values", "indices")),
    ("sort", lambda m, x: x.sort(descending=True), ("values", "indices")),
    ("topk", lambda m, x: m.topk(x, 2), ("values", "indices")),
    ("kthvalue", lambda m, x: x.kthvalue(2, 1), ("values", "indices")),
    ("mode", lambda m, x: m.mode(x, 0), ("values", "indices")),
    ("median", lambda m, x: x.median(1), ("values", "indices")),
    ("aminmax", lambda m, x: m.aminmax(x, dim=1), ("min", "max")),
    ("cummax", lambda m, x: m.cummax(x, 1), ("values", "indices")),
    ("cummin", lambda m, x: x.cummin(0), ("values", "indices")),
]


@pytest.mark.parametrize("name,call,fields", NAMED, ids=[n[0] for n in NAMED])
def test_two_results_come_as_named_tuples(name, call, fields):
    x = gb.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]])
    result = call(gb, x)
    assert isinstance(result, tuple) and type(result).__name__ == name
    first, second = result
    assert getattr(result, fields[0]) is result[0] is first
    assert getattr(result, fields[1]) is result[1] is second
    assert repr(result).startswith(f"glassbox.return_types.{name}(\n{fields[0]}=tensor(")
    assert type(result) is getattr(gb.return_types, name)


def test_max_and_min_of_two_tensors_are_maximum_and_minimum():
    a, b = gb.tensor([1.0, 4.0]), gb.tensor([3.0, 2.0])
    assert gb.max(a, b).tolist() == [3.0, 4.0]
    assert a.min(b).tolist() == [1.0, 2.0]
    assert a.max(other=b).tolist() == [3.0, 4.0]
    assert isinstance(a.max(), gb.Tensor) and a.max().item() == 4.0


REDUCTIONS = ["sum", "mean", "std", "var", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "any", "all"]
REDUCTIONS += ["nansum", "nanmean", "count_nonzero", "norm", "cumsum", "cumprod", "logcumsumexp", "argsort"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_axis_is_an_alias_of_dim(name):
    x = gb.tensor([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]])
    by_dim, by_axis = getattr(gb, name)(x, dim=1), getattr(gb, name)(x, axis=1)
    assert by_dim.tolist() == by_axis.tolist()
    assert getattr(x, name)(axis=1).tolist() == by_dim.tolist()
    with pytest.raises(TypeError, match="alias"):
        getattr(gb, name)(x, dim=1, axis=1)


def test_keepdims_and_named_results_take_axis():
    x = gb.tensor([[1.0, 2.0], [4.0, 3.0]])
    assert x.sum(axis=0, keepdims=True).shape == (1, 2)
    assert x.max(axis=1).indices.tolist() == [1, 0]
    assert gb.median(x, axis=0, keepdims=True).values.shape == (1, 2)


def test_trace_is_the_diagonal_sum_with_an_argument_and_the_dispatch_trace_without():
    x = gb.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert gb.trace(x).item() == 5.0 and x.trace().item() == 5.0
    with gb.trace() as t:
        x + x
    assert any(e.op.startswith("glassbox::add") for e in t.events)


def test_diagonal_is_a_view_that_writes_and_differentiates():
    x = gb.zeros(3, 4)
    x.diagonal(1).fill_(7.0)
    assert x.tolist()[0][1] == 7.0 and x.tolist()[2][3] == 7.0 and x.sum().item() == 21.0
    w = gb.ones(3, 3, requires_grad=True)
    (w.diagonal() * gb.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert w.grad.tolist() == [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]


def test_sequences_nested_in_an_index_tuple_are_sequence_indices():
    x = gb.arange(12.0).reshape(3, 4)
    assert x[((0,),)].shape == (1, 4)
    assert x[((0, 2), 1)].tolist() == [1.0, 9.0]
    x[((0, 1),)] = -1.0
    assert x[:2].sum().item() == -8.0
    with pytest.raises(TypeError):
        x[{"a": 1}]


def test_split_takes_a_list_of_sizes():
    x = gb.arange(10).reshape(2, 5)
    assert [p.shape for p in x.split([2, 3], dim=1)] == [(2, 2), (2, 3)]
    assert [p.shape for p in gb.split(x, [1, 1])] == [(1, 5), (1, 5)]
    assert [p.shape for p in x.split(2, 1)] == [(2, 2), (2, 2), (2, 1)]


def test_einsum_of_a_matrix_product_is_one_bmm():
    a, b = gb.randn(8, 16), gb.randn(16, 4)
    with gb.trace() as t:
        y = gb.einsum("ij,jk->ik", a, b)
    top = [e.op for e in t.events if e.depth == 0]
    assert top.count("glassbox::bmm") == 1 and "glassbox::mul" not in top, top
    np.testing.assert_allclose(y.numpy(), a.numpy() @ b.numpy(), rtol=1e-5, atol=1e-5)


def test_nonzero_on_meta_names_the_device():
    with pytest.raises(Exception, match="meta"):
        gb.nonzero(gb.ones(3, device="meta"))


# ---- against PyTorch
def _both(torch, array):
    return gb.tensor(array), torch.tensor(array)


def _same(got, want, exact=True):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, exact)
        return
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    g, w = np.asarray(got.detach().numpy()), want.detach().numpy()
    if exact:
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)


def _ties_and_nans(rng):
    x = rng.integers(-2, 3, size=(4, 7)).astype(np.float32)
    x[1, 3] = x[2, 0] = x[2, 5] = np.nan
    return x


CALLS = [
    ("cummax ties and NaN", lambda m, x: m.cummax(x, 1), _ties_and_nans),
    ("cummin ties and NaN", lambda m, x: m.cummin(x, 1), _ties_and_nans),
    ("cummax of ints", lambda m, x: m.cummax(x, 0), lambda r: r.integers(-3, 3, size=(9, 4))),
    ("cummax of bools", lambda m, x: m.cummax(x, 0), lambda r: r.random((9,)) < 0.5),
    ("median over a dim with NaN", lambda m, x: m.median(x, 1), _ties_and_nans),
    ("median of all", lambda m, x: m.median(x), lambda r: r.integers(-2, 3, size=(5, 6)).astype(np.float32)),
    ("median of all with NaN", lambda m, x: m.median(x), _ties_and_nans),
    ("median with ties", lambda m, x: m.median(x, 0), lambda r: r.integers(-1, 2, size=(6, 5))),
    ("kthvalue with ties (values)", lambda m, x: m.kthvalue(x, 3, 1).values, lambda r: r.integers(-1, 2, size=(4, 7))),
    ("kthvalue without ties", lambda m, x: m.kthvalue(x, 3, 1), lambda r: r.standard_normal((4, 7))),
    ("mode with ties", lambda m, x: m.mode(x, 1), lambda r: r.integers(-2, 3, size=(5, 8))),
    ("mode of floats", lambda m, x: m.mode(x, 0), lambda r: r.integers(-1, 2, size=(7, 3)).astype(np.float64)),
    ("cumprod of ints", lambda m, x: m.cumprod(x, 1), lambda r: r.integers(-3, 4, size=(3, 6))),
    ("logcumsumexp", lambda m, x: m.logcumsumexp(x, 0), lambda r: r.standard_normal((9, 2)) * 30),
    ("any of uint8", lambda m, x: m.any(x, 1), lambda r: r.integers(0, 2, size=(3, 4)).astype(np.uint8)),
    ("all with dims", lambda m, x: m.all(x, dim=(0, 2), keepdim=True), lambda r: r.integers(0, 3, size=(2, 3, 4))),
    ("count_nonzero", lambda m, x: m.count_nonzero(x, dim=(0, 1)), lambda r: r.integers(0, 2, size=(2, 3, 4))),
    ("std_mean", lambda m, x: m.std_mean(x, 1, keepdim=True), lambda r: r.standard_normal((3, 5))),
    ("var_mean correction 0", lambda m, x: m.var_mean(x, dim=0, correction=0), lambda r: r.standard_normal((3, 5))),
    ("aminmax", lambda m, x: m.aminmax(x), lambda r: r.integers(-5, 5, size=(3, 5))),
    ("nansum", lambda m, x: m.nansum(x, 1), _ties_and_nans),
    ("nanmean", lambda m, x: m.nanmean(x, 0), _ties_and_nans),
    ("norm fro", lambda m, x: m.norm(x), lambda r: r.standard_normal((3, 5))),
    ("norm p=3 dims", lambda m, x: m.norm(x, 3, dim=(0, 1), keepdim=True), lambda r: r.standard_normal((3, 5))),
    ("norm inf", lambda m, x: m.norm(x, float("inf"), dim=1), lambda r: r.standard_normal((3, 5))),
    (
        "argsort descending stable",
        lambda m, x: m.argsort(x, dim=1, descending=True, stable=True),
        lambda r: r.integers(0, 3, size=(3, 8)),
    ),
    (
        "unique",
        lambda m, x: m.unique(x, return_inverse=True, return_counts=True),
        lambda r: r.integers(-3, 3, size=(4, 5)),
    ),
    (
        "unique rows",
        lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True),
        lambda r: r.integers(0, 2, size=(7, 3)),
    ),
    ("unique columns", lambda m, x: x.unique(dim=-1), lambda r: r.integers(0, 2, size=(2, 9))),
    ("repeat", lambda m, x: x.repeat(2, 1, 3), lambda r: r.integers(0, 9, size=(2, 3))),
    ("tile", lambda m, x: m.tile(x, (2,)), lambda r: r.integers(0, 9, size=(2, 3))),
    (
        "repeat_interleave tensor",
        lambda m, x: m.repeat_interleave(x, m.tensor([0, 2, 1]), dim=1),
        lambda r: r.standard_normal((2, 3)),
    ),
    ("repeat_interleave alone", lambda m, x: m.repeat_interleave(x), lambda r: np.array([2, 0, 3])),
    ("movedim", lambda m, x: m.movedim(x, (0, 2), (2, 1)), lambda r: r.standard_normal((2, 3, 4))),
    ("rot90 -1", lambda m, x: m.rot90(x, -1, (1, 0)), lambda r: r.standard_normal((2, 3))),
    ("meshgrid xy", lambda m, x: m.meshgrid(x, x[:2], x[:1], indexing="xy"), lambda r: r.standard_normal(4)),
    ("tensor_split odd indices", lambda m, x: x.tensor_split([-2, 10, 1], dim=1), lambda r: r.standard_normal((1, 6))),
    ("diag_embed", lambda m, x: m.diag_embed(x, -1, 0, 2), lambda r: r.standard_normal((2, 3))),
    ("diagonal", lambda m, x: x.diagonal(-1, 2, 0), lambda r: r.standard_normal((3, 2, 4))),
    ("trace of ints", lambda m, x: m.trace(x), lambda r: r.integers(0, 9, size=(3, 4)).astype(np.int32)),
    ("nonzero", lambda m, x: m.nonzero(x), lambda r: r.integers(0, 2, size=(3, 4))),
    ("nonzero as_tuple", lambda m, x: m.nonzero(x, as_tuple=True), lambda r: r.integers(0, 2, size=(3, 4))),
    ("take", lambda m, x: m.take(x, m.tensor([[0, -1], [5, 2]])), lambda r: r.standard_normal((2, 3))),
    ("take_along_dim", lambda m, x: m.take_along_dim(x, m.tensor([[2], [0]]), 1), lambda r: r.standard_normal((2, 3))),
    ("index_fill", lambda m, x: x.index_fill(1, m.tensor([0, -1]), 2.5), lambda r: r.integers(0, 9, size=(2, 3))),
    ("index_copy", lambda m, x: x.index_copy(0, m.tensor([1]), x[:1] * 0), lambda r: r.standard_normal((2, 3))),
    ("masked_scatter", lambda m, x: x.masked_scatter(x > 0, -x.flatten()), lambda r: r.standard_normal((3, 4))),
    (
        "scatter_reduce mean ints",
        lambda m, x: x.scatter_reduce(0, m.tensor([0, 0, 1, 1, 1]), m.tensor([1, 2, 3, 4, -5]), "mean"),
        lambda r: np.array([7, -7]),
    ),
    (
        "scatter_reduce amax",
        lambda m, x: x.scatter_reduce(1, m.tensor([[0, 0, 2], [1, 1, 1]]), x * 2, "amax", include_self=False),
        lambda r: r.standard_normal((2, 3)),
    ),
    (
        "scatter_reduce prod",
        lambda m, x: x.scatter_reduce(0, m.tensor([[0, 1], [0, 0]]), x + 1, "prod"),
        lambda r: r.standard_normal((2, 2)),
    ),
    (
        "scatter multiply",
        lambda m, x: x.scatter(0, m.tensor([0, 0]), 2.0, reduce="multiply"),
        lambda r: r.standard_normal(3),
    ),
    ("einsum implicit", lambda m, x: m.einsum("bij,bkj", x, x), lambda r: r.standard_normal((2, 3, 4))),
    (
        "einsum ellipsis broadcast",
        lambda m, x: m.einsum("...ij,...jk->...ik", x, x[0]),
        lambda r: r.standard_normal((2, 3, 3)),
    ),
    (
        "einsum diagonal and trace",
        lambda m, x: (m.einsum("ii->i", x), m.einsum("ii", x)),
        lambda r: r.standard_normal((4, 4)),
    ),
    ("einsum of ints", lambda m, x: m.einsum("ij,jk->ik", x, x), lambda r: r.integers(-3, 3, size=(3, 3))),
]


@pytest.mark.parametrize("what,call,make", CALLS, ids=[c[0] for c in CALLS])
def test_same_results_as_pytorch(what, call, make):
    torch = pytest.importorskip("torch")
    ours, theirs = _both(torch, make(np.random.default_rng(abs(hash(what)) % 2**32)))
    got, want = call(gb, ours), call(torch, theirs)
    if isinstance(want, list):
        want = tuple(want)
    if isinstance(got, list):
        got = tuple(got)
    exact = str(theirs.dtype) != "torch.float64" and not what.startswith(("std", "var", "norm", "log", "einsum"))
    _same(got, want, exact=exact)


GRADIENTS = [
    ("median", lambda m, x: m.median(x, 1).values),
    ("kthvalue", lambda m, x: m.kthvalue(x, 2, 0).values),
    ("mode", lambda m, x: m.mode(m.round(x), 1).values),
    ("cummax", lambda m, x: m.cummax(x, 1).values),
    ("cumprod with a zero", lambda m, x: m.cumprod(x * (x.abs() > 0.3), 1)),
    ("logcumsumexp", lambda m, x: m.logcumsumexp(x, 0)),
    ("norm", lambda m, x: m.norm(x, 3, dim=1)),
    ("scatter_reduce amax", lambda m, x: x.scatter_reduce(1, m.tensor([[0, 0, 2, 1]] * 3), x * 2, "amax")),
    ("einsum", lambda m, x: m.einsum("ij,kj->ik", x, x)),
    ("diag_embed", lambda m, x: m.diag_embed(x, 1)),
    ("repeat_interleave", lambda m, x: m.repeat_interleave(x, 2, dim=0)),
]


@pytest.mark.parametrize("what,call", GRADIENTS, ids=[g[0] for g in GRADIENTS])
def test_same_gradients_as_pytorch(what, call):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).standard_normal((3, 4))
    ours, theirs = gb.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    weights = np.random.default_rng(4).standard_normal(call(torch, theirs).shape)
    (call(gb, ours) * gb.tensor(weights)).sum().backward()
    (call(torch, theirs) * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6, atol=1e-9)


def test_tensor_device_is_a_device_object_equal_to_its_string():
    import copy
    import pickle

    d = gb.ones(2).device
    assert isinstance(d, gb.device) and d == "cpu" and str(d) == "cpu"
    assert (d.type, d.index) == ("cpu", None) and repr(d) == "device(type='cpu')"
    cuda = gb.device("cuda", 1)
    assert cuda == "cuda:1" and (cuda.type, cuda.index) == ("cuda", 1) and repr(cuda) == "device(type='cuda', index=1)"
    assert gb.device("cuda:0") != "cuda" and gb.device(gb.device("meta")) == "meta"
    assert pickle.loads(pickle.dumps(d)) == d and type(copy.deepcopy(cuda)) is gb.device
    assert gb.ones(2, device=gb.device("meta")).device == "meta"
    with pytest.raises(RuntimeError, match="device type"):
        gb.device("tpu")
    with pytest.raises(TypeError):
        gb.device(1.5)


def test_device_matches_pytorchs_fields():
    torch = pytest.importorskip("torch")
    for spec in (("cpu",), ("cuda:1",), ("cuda", 2), ("meta",)):
        ours, theirs = gb.device(*spec), torch.device(*spec)
        assert (ours.type, ours.index) == (theirs.type, theirs.index) and str(ours) == str(theirs)
        assert repr(ours) == repr(theirs)


def test_a_device_in_a_saved_dict_loads_with_weights_only():
    import io

    buffer = io.BytesIO()
    gb.save({"device": gb.ones(1).device, "w": gb.ones(2)}, buffer)
    buffer.seek(0)
    loaded = gb.load(buffer)
    assert loaded["device"] == "cpu" and isinstance(loaded["device"], gb.device)


@pytest.mark.parametrize(
    "first,second,promoted",
    [
        ("int32", "int64", "int64"),
        ("bool", "float16", "float16"),
        ("uint8", "int8", "int16"),
        ("int64", "float32", "float32"),
    ],
)
def test_cat_of_mixed_dtypes_promotes(first, second, promoted):
    a, b = gb.ones(2, dtype=getattr(gb, first)), gb.zeros(1, dtype=getattr(gb, second))
    out = gb.cat([a, b])
    assert out.dtype == getattr(gb, promoted) and out.tolist() == [1, 1, 0]


OUT_CALLS = [
    ("cumprod", lambda m, x, out: m.cumprod(x, 1, out=out), lambda m: m.empty(0)),
    ("logcumsumexp", lambda m, x, out: m.logcumsumexp(x, 0, out=out), lambda m: m.empty(0)),
    ("cummax", lambda m, x, out: m.cummax(x, 1, out=out), lambda m: (m.empty(0), m.empty(0, dtype=m.int64))),
    ("max with dim", lambda m, x, out: m.max(x, 1, out=out), lambda m: (m.empty(0), m.empty(0, dtype=m.int64))),
    ("sort", lambda m, x, out: m.sort(x, out=out), lambda m: (m.empty(0), m.empty(0, dtype=m.int64))),
    ("topk", lambda m, x, out: m.topk(x, 2, out=out), lambda m: (m.empty(0), m.empty(0, dtype=m.int64))),
    ("median with dim", lambda m, x, out: m.median(x, 0, out=out), lambda m: (m.empty(0), m.empty(0, dtype=m.int64))),
    ("aminmax", lambda m, x, out: m.aminmax(x, dim=0, out=out), lambda m: (m.empty(0), m.empty(0))),
    ("any", lambda m, x, out: m.any(x > 0, 1, out=out), lambda m: m.empty(0, dtype=m.bool)),
    ("norm", lambda m, x, out: m.norm(x, out=out), lambda m: m.empty(0)),
    ("nansum", lambda m, x, out: m.nansum(x, 0, out=out), lambda m: m.empty(0, dtype=m.float64)),
    ("diag", lambda m, x, out: m.diag(x, out=out), lambda m: m.empty(0)),
]


@pytest.mark.parametrize("name,call,make_out", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_out_argument_writes_the_result_into_out(name, call, make_out):
    x = gb.tensor(np.random.default_rng(5).standard_normal((3, 5)).astype(np.float32))
    out = make_out(gb)
    result = call(gb, x, out)
    expected = call(gb, x, None)
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    wanted = expected if isinstance(expected, tuple) else (expected,)
    assert type(result) is type(expected)
    for o, r, e in zip(outs, results, wanted):
        assert r is o  # the out tensors themselves come back
        assert o.shape == e.shape
        np.testing.assert_allclose(o.numpy(), e.numpy().astype(o.numpy().dtype), rtol=1e-6)
    try:
        import torch
    except ImportError:
        return  # glassbox checked against itself above; PyTorch's values where it is installed
    theirs = call(torch, torch.tensor(x.numpy()), make_out(torch))
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t in zip(outs, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


def test_out_argument_mistakes():
    x = gb.randn(3, 4)
    with pytest.warns(UserWarning, match="cumprod: out= had shape"):
        gb.cumprod(x, 1, out=gb.empty(2))  # resized, as PyTorch does, with a warning
    with pytest.raises(RuntimeError, match="cumprod: result type float32 can't be cast"):
        gb.cumprod(x, 1, out=gb.empty(0, dtype=gb.int64))
    with pytest.raises(RuntimeError, match="cumprod.*automatic differentiation"):
        gb.cumprod(x.requires_grad_(), 1, out=gb.empty(0))
    with pytest.raises(TypeError, match="out= must be a tuple of 2 tensors"):
        gb.cummax(x.detach(), 1, out=gb.empty(0))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        gb.norm(x.detach(), out=[1.0])
