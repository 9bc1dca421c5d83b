"""gb.compile with gradients: the backward captured through the dispatcher, the forward/backward
partition (saved versus recomputed values, logged), the compiled backward run by loss.backward(),
and its artifacts. Gradients and training steps are compared with eager glassbox."""

import ast
import inspect
import os
import re
import shutil
import warnings

import numpy as np
import pytest

import glassbox as gb
from glassbox.compiler import CaptureError

F = gb.nn.functional
pytestmark = pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("ninja")), reason="needs cmake and ninja")


def rand(*shape, seed=0, requires_grad=False):
    t = gb.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))
    return t.requires_grad_(True) if requires_grad else t


def assert_close(got, want, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def leaves_like(tensors):
    """Fresh leaves with the same values (and requires_grad) as tensors."""
    return [t.detach().clone().requires_grad_(t.requires_grad) for t in tensors]


def gradients(fn, inputs, grad_seed=7):
    """(outputs, input gradients) of fn after backward() with a random gradient per output."""
    inputs = leaves_like(inputs)
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    grads = [rand(*o.shape, seed=grad_seed + i) for i, o in enumerate(outs)]
    gb.autograd.backward(list(outs), grads)
    return [o.detach().numpy().copy() for o in outs], [
        None if x.grad is None else x.grad.numpy().copy() for x in inputs
    ]


def assert_same_gradients(fn, inputs, rtol=1e-5, atol=1e-6):
    compiled = gb.compile(fn)
    got_out, got_grads = gradients(compiled, inputs)
    want_out, want_grads = gradients(fn, inputs)
    for g, w in zip(got_out, want_out):
        assert_close(g, w, rtol, atol)
    for g, w in zip(got_grads, want_grads):
        assert (g is None) == (w is None)
        if g is not None:
            assert_close(g, w, rtol, atol)
    return compiled


# --- the functions ------------------------------------------------------------------------


def chain(x, b):
    y = gb.sigmoid(x) * x + 1.0
    z = y * b - x.exp()
    return (z.relu() * 2.0).sum()


def broadcast(a, b, c):
    return gb.tanh(a * b + c) * 0.5 - a


def two_outputs(x, w):
    h = x * w
    return h.relu(), h.sum(-1)


def test_element_wise_chain_gradients_equal_eager_and_the_backward_is_one_generated_kernel():
    compiled = assert_same_gradients(chain, [rand(64, 32, requires_grad=True), rand(32, seed=1, requires_grad=True)])
    assert len(compiled.kernels) == 1
    assert len(compiled.backward_kernels) == 1
    backward = str(compiled.backward_fused_graph)
    assert compiled.backward_kernels[0].split("::")[1] + ".default(" in backward
    assert "def backward(" in str(compiled.backward_graph)
    assert compiled.compilations[-1].backward_calls == 1


def test_broadcast_inputs_get_gradients_reduced_to_their_shapes():
    inputs = [
        rand(8, 5, requires_grad=True),
        rand(5, seed=1, requires_grad=True),
        rand(8, 1, seed=2, requires_grad=True),
    ]
    compiled = assert_same_gradients(broadcast, inputs)
    x = leaves_like(inputs)
    compiled(*x).sum().backward()
    assert [list(t.grad.shape) for t in x] == [[8, 5], [5], [8, 1]]


def test_inputs_that_need_no_gradient_get_none_and_outputs_without_one_get_zeros():
    x, w = rand(6, 4, requires_grad=True), rand(6, 4, seed=1)
    assert_same_gradients(two_outputs, [x, w])
    compiled = gb.compile(two_outputs)
    x = leaves_like([x])[0]
    relu, _ = compiled(x, w)
    relu.sum().backward()  # the second output receives no gradient
    assert_close(x.grad.numpy(), ((x.detach() * w).numpy() > 0) * w.numpy())


def test_softmax_and_layer_norm_gradients_equal_eager():
    def norm_softmax(x, weight, bias):
        return gb.softmax(F.layer_norm(x, [16], weight, bias) * 2.0, -1)

    inputs = [
        rand(12, 16, requires_grad=True),
        rand(16, seed=1, requires_grad=True),
        rand(16, seed=2, requires_grad=True),
    ]
    compiled = assert_same_gradients(norm_softmax, inputs, rtol=1e-4, atol=1e-5)
    assert compiled.backward_kernels, str(compiled.backward_fusion_log)


def test_masked_scaled_softmax_is_one_kernel_each_way_and_its_shift_takes_no_gradient():
    mask = gb.from_numpy(np.tril(np.ones((9, 9), np.float32))) == 0

    def attention_weights(scores, bias):
        # bias [3, 1, 9] broadcasts over the batch and the rows: read per row and per column
        return gb.softmax(scores.mul(0.25).masked_fill(mask, float("-inf")) + bias, -1)

    inputs = [rand(2, 3, 9, 9, requires_grad=True), rand(3, 1, 9, seed=1, requires_grad=True)]
    compiled = assert_same_gradients(attention_weights, inputs)
    assert len(compiled.kernels) == 1, str(compiled.fusion_log)
    assert [n.short_op for n in compiled.fused_graph.ir.nodes if n.kind == "call"] == [], str(compiled.fused_graph)
    assert "masked_fill" in compiled.kernels[0]
    log = str(compiled.fusion_log)
    assert re.search(r"^masked_fill +fused into group", log, re.M), log
    # the row maximum only keeps exp() in range: its backward (eq, to, ...) is not computed
    backward = str(compiled.backward_graph)
    assert "amax" not in backward and "eq." not in backward, backward
    assert "no gradient flows through it" in str(compiled.decomposed_graph)
    # softmax's gradient from its result: one row kernel reading the result, not exp
    assert len(compiled.backward_kernels) == 1, str(compiled.backward_fusion_log)
    inputs = [v.name for v in compiled.backward_graph.ir.inputs]
    assert "div" in inputs and "exp" not in inputs, backward


def test_log_softmax_backward_reads_the_row_sums_gradient_as_a_broadcast():
    compiled = assert_same_gradients(lambda x: gb.log_softmax(x * 0.5, -1), [rand(4, 9, requires_grad=True)])
    # the row sum's gradient is an expand: read as a broadcast, it joins the row loop
    assert re.search(r"^expand\S* +read as \S+ broadcast by", str(compiled.backward_fusion_log), re.M)
    assert len(compiled.backward_kernels) == 1, str(compiled.backward_fusion_log)


def test_where_fuses_with_its_values_and_its_gradient_equals_eager():
    def gated(x, y):
        return gb.where(x > 0, x * 2, y.exp()) + 1

    compiled = assert_same_gradients(gated, [rand(5, 7, requires_grad=True), rand(7, seed=1, requires_grad=True)])
    assert len(compiled.kernels) == 1 and "where" in compiled.kernels[0], str(compiled.fusion_log)
    assert re.search(r"^where +fused into group", str(compiled.fusion_log), re.M)


def test_gelu_tanh_and_sigmoid_backward_formulas_fuse_and_match():
    def act(x):
        return F.gelu(x) * gb.tanh(x) + gb.sigmoid(x) * F.silu(x)

    compiled = assert_same_gradients(act, [rand(40, 9, requires_grad=True)])
    log = str(compiled.backward_fusion_log)
    for op in ("gelu_backward", "tanh_backward", "sigmoid_backward"):
        assert re.search(r"^%s\S* +(starts|fused into) group" % op, log, re.M), log


def test_a_square_trains_as_a_product_so_its_backward_fuses_without_constants():
    def squared_error(x, target):
        return ((x - target) ** 2).mean()

    compiled = assert_same_gradients(squared_error, [rand(6, 5, requires_grad=True), rand(6, 5, seed=1)])
    backward = str(compiled.backward_graph)
    assert "pow" not in backward and not compiled.backward_graph.ir.constants, backward
    assert len(compiled.backward_kernels) == 1


def test_a_non_leaf_input_passes_its_gradient_on():
    def f(h):
        return (h * h + 1.0).relu()

    x = rand(5, 3, requires_grad=True)
    compiled = gb.compile(f)
    compiled(x * 3.0).sum().backward()
    got = x.grad.numpy().copy()
    x.grad = None
    f(x * 3.0).sum().backward()
    assert_close(got, x.grad.numpy())


# --- training a module -------------------------------------------------------------------


class MLP(gb.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = gb.nn.Linear(8, 16)
        self.fc2 = gb.nn.Linear(16, 4)

    def forward(self, x, target):
        h = F.gelu(self.fc1(x))
        y = self.fc2(h)
        return ((y - target) * (y - target)).mean()


def train(model, step, steps=3):
    optimizer = gb.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for i in range(steps):
        x, target = rand(5, 8, seed=10 + i), rand(5, 4, seed=20 + i)
        optimizer.zero_grad()
        loss = step(x, target)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach().numpy()))
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


def test_an_mlp_trained_three_steps_compiled_gives_the_eager_losses_and_parameters():
    gb.manual_seed(3)
    eager_model = MLP()
    compiled_model = MLP()
    compiled_model.load_state_dict(eager_model.state_dict())
    compiled = gb.compile(compiled_model)
    got_losses, got_params = train(compiled_model, compiled)
    want_losses, want_params = train(eager_model, eager_model)
    assert_close(got_losses, want_losses, rtol=1e-5)
    for g, w in zip(got_params, want_params):
        assert_close(g, w, rtol=1e-5, atol=1e-6)
    assert len(compiled.compilations) == 1  # the parameters' updates do not recompile
    assert compiled.compilations[0].backward_calls == 3
    assert compiled.backward_kernels, str(compiled.backward_fusion_log)
    # the weights' gradients come from mm in the weights' own layout, not as transposed views
    gradients = compiled.backward_graph.ir.outputs
    weights = [g for g in gradients if g is not None and len(g.shape) == 2]
    assert len(weights) == 2 and all(g.producer.op == "glassbox::mm" and not g.is_view for g in weights)
    assert compiled.compilations[0].relaid_gradients == [g.name for g in weights]


def _gpt_module():
    """benchmarks/models/gpt.py, the model of the model-speed benchmark, imported by path."""
    import importlib.util

    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "models", "gpt.py")
    spec = importlib.util.spec_from_file_location("benchmark_gpt", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_gpt_training_step_compiled_gives_the_eager_losses_gradients_and_parameters():
    gpt = _gpt_module()
    vocab, block = 16, 8
    gb.manual_seed(5)
    eager_model = gpt.build(gb, vocab=vocab, block=block, C=16, heads=2, layers=1)
    compiled_model = gpt.build(gb, vocab=vocab, block=block, C=16, heads=2, layers=1)
    compiled_model.load_state_dict(eager_model.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # running eagerly (a refused capture) warns: fail on it
        compiled = gb.compile(compiled_model)
        runs = {}
        for name, model, step in (("eager", eager_model, eager_model), ("compiled", compiled_model, compiled)):
            optimizer = gb.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
            rng = np.random.default_rng(11)
            losses, grads = [], []
            for _ in range(5):
                idx = gb.from_numpy(rng.integers(0, vocab, (2, block)).astype(np.int64))
                targets = gb.from_numpy(rng.integers(0, vocab, (2, block)).astype(np.int64))
                optimizer.zero_grad()
                loss = step(idx, targets)
                loss.backward()
                grads.append([p.grad.numpy().copy() for p in model.parameters()])
                optimizer.step()
                losses.append(float(loss.detach().numpy()))
            runs[name] = losses, grads, [p.detach().numpy().copy() for p in model.parameters()]
    (got_losses, got_grads, got_params), (want_losses, want_grads, want_params) = runs["compiled"], runs["eager"]
    assert_close(got_losses, want_losses, rtol=1e-4)
    assert len(set(np.round(want_losses, 4))) > 1  # the steps change the model
    for got_step, want_step in zip(got_grads, want_grads):
        for g, w in zip(got_step, want_step):
            assert_close(g, w, rtol=1e-3, atol=1e-5)
    for g, w in zip(got_params, want_params):
        assert_close(g, w, rtol=1e-4, atol=1e-5)
    assert len(compiled.compilations) == 1 and compiled.compilations[0].backward_calls == 5
    assert compiled.kernels and compiled.backward_kernels
    # split's gradient is a cat, cross_entropy runs as log_softmax and a one-hot pick, the batched
    # matmuls as mm/bmm: no operator of the backward graph reads a value made inside a kernel
    backward_ops = {n.op for n in compiled.backward_graph.ir.nodes}
    assert "glassbox::cat" in backward_ops and "glassbox::nll_loss_backward" not in backward_ops
    assert not compiled.backward_graph.ir.constants or all(
        t.dim() == 0 for t in compiled.backward_graph.ir.constants.values()
    )


def test_the_compiled_backward_kernel_appears_in_the_dispatch_trace():
    compiled = gb.compile(chain)
    x, b = rand(64, 32, requires_grad=True), rand(32, seed=1, requires_grad=True)
    loss = compiled(x, b)
    with gb.trace() as t:
        loss.backward()
    ops = [e.op for e in t.events]
    assert compiled.backward_kernels[0] in ops, ops


def test_each_backward_call_names_the_forward_call_and_line_whose_formula_made_it():
    compiled = gb.compile(chain)
    compiled(rand(4, 3, requires_grad=True), rand(3, seed=1, requires_grad=True))
    lines, first = inspect.getsourcelines(chain)
    relu_line = "%s:%d" % (os.path.basename(__file__), first + next(k for k, t in enumerate(lines) if "relu()" in t))
    nodes = compiled.backward_graph.ir.nodes
    relu_backward = [n for n in nodes if n.op == "glassbox::threshold_backward"]
    assert len(relu_backward) == 1 and relu_backward[0].note == "backward of relu"
    assert relu_backward[0].where.endswith(relu_line)
    assert "threshold_backward.default(" in str(compiled.backward_graph)
    assert "# backward of relu; " + relu_line in str(compiled.backward_graph)
    assert all(n.note for n in nodes)  # every call is a recomputation or some node's backward


# --- the partition -------------------------------------------------------------------------


def partition_rows(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(saved|recomputed) +(\S+) +(\S+\[[^\]]*\]) +[\d.]+ \S+ +(.*)$", line)
        if m:
            rows[m.group(2)] = (m.group(1), m.group(4))
    return rows


def test_partition_saves_transcendental_results_and_recomputes_cheap_element_wise_values():
    compiled = gb.compile(chain)
    compiled(rand(4, 3, requires_grad=True), rand(3, seed=1, requires_grad=True))
    rows = partition_rows(str(compiled.partition_log))
    assert rows["x"][0] == "saved" and "an input of the function" in rows["x"][1]
    assert rows["sigmoid"] == (
        "saved",
        "made by sigmoid, a transcendental function (recomputing costs more than keeping it)",
    )
    assert rows["exp"][0] == "saved"
    assert rows["relu"][0] == "recomputed" and rows["relu"][1].startswith("cheap element-wise")
    # the forward returns exactly the saved values; the backward takes them and the gradient
    saved = [name for name, (decision, _) in rows.items() if decision == "saved"]
    assert "return (sum, [%s])" % ", ".join(saved) in str(compiled.fused_graph)
    backward = compiled.backward_graph.ir
    assert [v.name for v in backward.inputs] == saved + ["grad_sum"]
    recomputed = [n.outputs[0].name for n in backward.nodes if "recomputed" in n.note]
    assert "relu" in recomputed and "add" in recomputed


def test_softmax_backward_reads_only_its_result_so_the_forward_saves_no_exp():
    def attention(scores, v):
        return (gb.softmax(scores * 0.5, -1) @ v).sum()

    compiled = assert_same_gradients(
        attention, [rand(2, 5, 7, requires_grad=True), rand(2, 7, 3, seed=1, requires_grad=True)]
    )
    rows = partition_rows(str(compiled.partition_log))
    # softmax's result (div) is what bmm's backward reads too: the one full-size value kept
    assert rows["div"][0] == "saved" and "exp" not in rows and "sum" not in rows, str(compiled.partition_log)
    backward = str(compiled.backward_graph)
    assert "glassbox.exp." not in backward and "softmax's result" in str(compiled.decomposed_graph), backward


def test_partition_saves_what_needs_a_library_call_and_takes_views_again():
    def f(x, w):
        return (x @ w.t()).relu().sum()

    compiled = gb.compile(f)
    compiled(rand(4, 3, requires_grad=True), rand(2, 3, seed=1, requires_grad=True))
    rows = partition_rows(str(compiled.partition_log))
    assert rows["relu"] == (
        "saved",
        "recomputing relu would need matmul (a library call), which the backward does not have",
    )
    assert rows["t"] == ("recomputed", "a view (t) of w: taking it again is free")
    assert "saved 3 values, 32 B beyond the inputs; recomputed 1 (0 B not kept" in str(compiled.partition_log)


# --- what is refused ------------------------------------------------------------------------


def test_double_backward_through_a_compiled_function_is_a_clear_error():
    compiled = gb.compile(chain)
    x, b = rand(4, 3, requires_grad=True), rand(3, seed=1, requires_grad=True)
    loss = compiled(x, b)
    with pytest.raises(RuntimeError, match=r"compiled backward cannot itself be differentiated"):
        gb.autograd.grad([loss], [x], create_graph=True)


def writes_a_buffer(x, buf):
    buf.add_(1.0)
    return x * buf


def test_a_function_writing_an_input_runs_eagerly_with_a_warning_or_raises_with_fullgraph():
    x, buf = rand(3, requires_grad=True), rand(3, seed=1)
    compiled = gb.compile(writes_a_buffer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compiled(x, buf)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "writes its inputs in place" in messages[0], messages
    assert_close(buf.numpy(), rand(3, seed=1).numpy() + 1.0)  # written once, as eagerly
    out.sum().backward()
    assert_close(x.grad.numpy(), buf.numpy())
    with pytest.raises(CaptureError, match="writes its inputs in place"):
        gb.compile(writes_a_buffer, fullgraph=True)(rand(3, requires_grad=True), rand(3, seed=1))


GLOBAL_WEIGHT = rand(3, seed=4, requires_grad=True)


def uses_a_global(x):
    return (x * GLOBAL_WEIGHT).relu()


def test_a_global_tensor_that_requires_grad_runs_eagerly_so_its_gradient_is_not_lost():
    compiled = gb.compile(uses_a_global)
    x = rand(2, 3, requires_grad=True)
    with pytest.warns(UserWarning, match=r"requires grad without taking it as an input \(a global\)"):
        out = compiled(x)
    out.sum().backward()
    assert GLOBAL_WEIGHT.grad is not None
    want = (x.detach().numpy() * GLOBAL_WEIGHT.detach().numpy() > 0) * x.detach().numpy()
    assert_close(GLOBAL_WEIGHT.grad.numpy(), want.sum(0))


def test_results_that_need_no_gradient_compile_the_forward_only():
    def positions(x):
        return x.argmax(-1) + 1

    compiled = gb.compile(positions)
    x = rand(4, 5, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compiled(x)
    np.testing.assert_array_equal(got.numpy(), positions(x).numpy())
    with pytest.raises(RuntimeError, match="has no backward"):
        compiled.partition_log


def test_backward_properties_name_the_reason_without_a_backward():
    compiled = gb.compile(chain)
    with gb.no_grad():
        compiled(rand(4, 3), rand(3, seed=1))
    with pytest.raises(RuntimeError, match="has no backward: it was called with grad mode off"):
        compiled.backward_graph


def branchy(x):
    if x.sum() > 0:
        return (x * 2.0).relu()
    return (x * 3.0).tanh()


def test_a_value_read_is_checked_by_the_forward_and_the_other_path_compiles_with_its_backward():
    compiled = gb.compile(branchy)
    for sign in (1.0, -1.0, 1.0):
        x = (rand(4, 3).abs() * sign).detach().requires_grad_(True)
        compiled(x).sum().backward()
        got = x.grad.numpy().copy()
        x.grad = None
        branchy(x).sum().backward()
        assert_close(got, x.grad.numpy())
    assert len(compiled.compilations) == 2
    assert "the value read bool(tensor)" in compiled.recompile_reasons[0]
    assert [c.backward_calls for c in compiled.compilations] == [2, 1]


# --- artifacts --------------------------------------------------------------------------------


def test_debug_dir_holds_the_backward_artifacts(tmp_path):
    compiled = gb.compile(chain, debug_dir=str(tmp_path))
    compiled(rand(4, 3, requires_grad=True), rand(3, seed=1, requires_grad=True)).backward()
    names = set(os.listdir(tmp_path))
    for name in (
        "partition.txt",
        "graph_backward_readable.py",
        "fusion_log_backward.txt",
        "graph_backward_fused.py",
        "output_code_backward.cpp",
        "output_code_backward.py",
        "graph_backward_pre_fusion.dot",
        "graph_backward_post_fusion.dot",
    ):
        assert name in names, sorted(names)
    for name in ("graph_backward_readable.py", "graph_backward_fused.py", "output_code_backward.py"):
        tree = ast.parse((tmp_path / name).read_text())
        assert any(isinstance(n, ast.FunctionDef) and n.name == "backward" for n in tree.body)
    assert partition_rows((tmp_path / "partition.txt").read_text())["sigmoid"][0] == "saved"
    assert "threshold_backward" in (tmp_path / "output_code_backward.cpp").read_text()
    assert "return (sum, [" in (tmp_path / "graph_fused.py").read_text()


# --- the op table: results and gradients through gb.compile --------------------------------

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optable import ALL  # noqa: E402
from optable.common import TOL  # noqa: E402

DIFFERENTIABLE = [i for i in ALL if i.differentiable and "float32" in i.dtypes]
RANDOM = ("rand", "dropout", "bernoulli", "normal")


def _leaf_args(sample):
    """The sample's arrays as fresh tensors; float32 ones are leaves that require grad."""

    def fresh(a):
        if isinstance(a, np.ndarray):
            t = gb.from_numpy(a.copy())
            return t.requires_grad_(True) if a.dtype == np.float32 else t
        if isinstance(a, (list, tuple)) and a and all(isinstance(x, np.ndarray) for x in a):
            return [fresh(x) for x in a]
        return a

    args = [fresh(a) for a in sample.args]
    kwargs = {k: fresh(v) for k, v in sample.kwargs.items()}
    leaves = [t for a in list(args) + list(kwargs.values()) for t in (a if isinstance(a, list) else [a])]
    return args, kwargs, [t for t in leaves if isinstance(t, gb.Tensor) and t.requires_grad]


def _results_and_gradients(fn, sample):
    args, kwargs, leaves = _leaf_args(sample)
    gb.manual_seed(0)
    out = fn(*args, **kwargs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(o, gb.Tensor)]
    differentiable = [o for o in outs if o.requires_grad]
    grads = [rand(*o.shape, seed=5 + k) for k, o in enumerate(differentiable)]
    got = gb.autograd.grad(differentiable, leaves, grads, allow_unused=True) if differentiable and leaves else []
    return [o.detach().numpy().copy() for o in outs], [None if g is None else g.numpy().copy() for g in got]


@pytest.mark.parametrize("info", DIFFERENTIABLE, ids=lambda i: i.name)
def test_every_differentiable_op_table_operator_gives_eager_results_and_gradients(info):
    """Each float32 sample's results and input gradients through gb.compile (the "eager" backend:
    the captured forward and backward graphs, partitioned, replayed with library calls) equal the
    operator's own within the op table's tolerances. A function the backward cannot be compiled
    for runs eagerly with a warning, so it must still be equal."""
    rtol, atol = (info.tol or {}).get("float32", TOL["float32"])
    for sample in info.samples(np.random.default_rng(0), "float32")[:2]:
        try:
            want_out, want_grads = _results_and_gradients(info.op, sample)
        except Exception:
            continue  # a sample that exercises an error
        compiled = gb.compile(info.op, backend="eager")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got_out, got_grads = _results_and_gradients(compiled, sample)
        if any(word in info.name for word in RANDOM):
            continue  # capture drew from the generator once already
        what = "%s %s" % (info.name, sample.name)
        for g, w in zip(got_out, want_out):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
        assert [g is None for g in got_grads] == [w is None for w in want_grads], what
        for g, w in zip(got_grads, want_grads):
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what + " gradient")
