"""gb.compile on the CPU: capture through the Python dispatch key, the printed IR, decompositions,
fusion into generated C++ kernels (registered operators), guards and recompiles, capture errors
with the user's line, and the debug artifacts. Compiled results are compared with eager ones.

Each distinct fused group costs a C++ build (seconds), cached on disk by its source's hash, so the
tests share a few functions (module-scoped fixtures) and check the guard machinery with the
"eager" backend, which replays the captured graph without generating code."""

import ast
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import glassbox as gb
from glassbox.compiler import CaptureError
from glassbox.compiler.api import _Printable

F = gb.nn.functional
pytestmark = pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("ninja")), reason="needs cmake and ninja")
HERE = os.path.basename(__file__)


def line_of(fn, text):
    """ "test_compile.py:N" of the line of fn's source containing text."""
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return "%s:%d" % (HERE, first + k)
    raise AssertionError("%r not in %s" % (text, fn.__name__))


def rand(*shape, seed=0, dtype=np.float32):
    return gb.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def assert_close(got, want, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# --- the functions compiled (each one's kernels are built once) ---------------------------


def chain(x, b):
    y = gb.sigmoid(x) * x + 1.0
    z = y * b - x.exp()
    return z.relu(), z.sum(-1)


def broadcast(a, b, c):
    return gb.tanh(a * b + c.t()) * 0.5


def rows(x, w, bias):
    return gb.softmax(x, -1), F.layer_norm(x, [x.shape[-1]], w, bias)


@pytest.fixture(scope="module")
def compiled_chain(tmp_path_factory):
    debug_dir = str(tmp_path_factory.mktemp("chain_debug"))
    compiled = gb.compile(chain, debug_dir=debug_dir)
    x, b = rand(300, 130), rand(130, seed=1)  # more elements than one thread's share
    return compiled, (x, b), compiled(x, b), debug_dir


# --- results equal eager ------------------------------------------------------------------


def test_an_elementwise_chain_and_its_reduction_are_one_kernel_equal_to_eager(compiled_chain):
    compiled, inputs, out, _ = compiled_chain
    want = chain(*inputs)
    assert_close(out[0], want[0])
    assert_close(out[1], want[1], rtol=1e-5, atol=1e-4)  # a sum of 130 terms, accumulated in double
    assert len(compiled.kernels) == 1 and compiled.kernels[0].startswith("compiled::fused_sigmoid_mul_add")
    fused = compiled.fused_graph.ir
    assert [n.kind for n in fused.nodes] == ["fused"]
    assert [m.short_op for m in fused.nodes[0].members] == [
        "sigmoid",
        "mul.Tensor",
        "add.Scalar",
        "mul.Tensor",
        "exp",
        "sub.Tensor",
        "relu",
        "sum.dim_IntList",
    ]
    again = compiled(*inputs)
    assert len(compiled.compilations) == 1
    assert_close(again[0], want[0])


def test_broadcasting_and_a_transposed_input_are_index_arithmetic():
    compiled = gb.compile(broadcast)
    a, b, c = rand(5, 1, 4), rand(3, 1, seed=1), rand(4, 3, seed=2)  # c.t() is (3, 4), strides (1, 3)
    assert_close(compiled(a, b, c), broadcast(a, b, c))
    assert len(compiled.kernels) == 1
    code = compiled.code
    # the flat index i over [5, 3, 4] mapped to each input's strides; broadcast dims drop out
    assert "p_a[(i / 12) * 4 + (i % 4)]" in code
    assert "p_b[(i / 4 % 3)]" in code
    # c.t() is captured as a view (a library call) and read through its strides (1, 3)
    assert "glassbox.t.default(c)" in str(compiled.fused_graph)
    assert "p_t[(i / 4 % 3) + (i % 4) * 3]" in code


def test_softmax_and_layer_norm_each_become_one_row_kernel():
    compiled = gb.compile(rows)
    x, w, bias = rand(6, 40), rand(40, seed=1), rand(40, seed=2)
    got, want = compiled(x, w, bias), rows(x, w, bias)
    assert_close(got[0], want[0])
    assert_close(got[1], want[1], rtol=1e-4, atol=1e-5)
    decomposed = str(compiled.decomposed_graph)
    for op in ("amax.default", "exp.default", "sum.dim_IntList", "mean.dim", "rsqrt.default"):
        assert "glassbox.%s(" % op in decomposed
    assert "glassbox.softmax" not in decomposed and "glassbox.layer_norm" not in decomposed
    log = str(compiled.fusion_log)
    assert re.search(r"^amax +starts group 0 \(amax\): amax over the last dim of x", log, re.M), log
    assert re.search(
        r"^sub +fused into group 0 \(amax, sub\): same iteration space \[6, 40\], reading per-row", log, re.M
    )
    assert re.search(r"^sum +fused into group 0 \(amax, sub, exp, sum\): sum over the last dim consumes", log, re.M)
    assert re.search(r"^rsqrt +fused into group 1 \(.*\): a per-row value \[6, 1\] of the row loop", log, re.M)
    assert "keeps exp in a row buffer (float[40], on the stack)" in log  # a transcendental: stored
    assert "recomputes sub_1 in each pass that needs them" in log  # layer_norm's x - mean: cheap, recomputed
    assert len(compiled.kernels) == 2
    assert [len(n.members) for n in compiled.fused_graph.ir.nodes] == [5, 9]


def lse_rows(x):
    # a per-row value without keepdim cannot broadcast back per row; a reduction over dim 0 stays a
    # library call
    m = gb.amax(x, [-1])
    return (x.exp() * 2).sum(-1) - m, x.sum(0), (x - m) * 3


def test_the_fusion_log_gives_reasons_for_what_it_leaves_alone():
    compiled = gb.compile(lse_rows)
    x = rand(4, 4)
    got, want = compiled(x), lse_rows(x)
    assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
    assert_close(got[1], want[1], rtol=1e-5, atol=1e-5)
    assert_close(got[2], want[2])
    log = str(compiled.fusion_log)
    assert re.search(
        r"^sub_1 +not fused with a producer: it reads amax \[4\] over \[4, 4\]: a per-row value without keepdim "
        r"broadcasts along the last dim",
        log,
        re.M,
    ), log
    assert re.search(
        r"^sum_1 +not fused: sum.dim_IntList reduces \[0\] of f32\[4, 4\]; only a reduction over the last dim",
        log,
        re.M,
    ), log
    assert re.search(r"^sub +fused into group \d \(.*\): a per-row value \[4\]", log, re.M), log


def around_a_product(x, w):
    a = x.exp()  # a group ...
    b = a @ w  # ... a library call reading it ...
    c = a.sigmoid() * 2  # ... joins the group (no path leaves it and comes back)
    return (c + b).tanh() * a  # add joining it would make group -> matmul -> group: a cycle


def test_a_merge_that_would_make_a_cycle_through_a_library_call_is_refused():
    compiled = gb.compile(around_a_product)
    x, w = rand(6, 6), rand(6, 6, seed=1)
    assert_close(compiled(x, w), around_a_product(x, w), rtol=1e-5, atol=1e-5)
    log = str(compiled.fusion_log)
    assert re.search(r"^mul +fused into group 0 \(exp, sigmoid, mul\)", log, re.M), log
    cycle = r"^%s +not fused: joining group %d \(%s\) would make the groups depend on each other in a cycle"
    assert re.search(cycle % ("add", 0, "exp, sigmoid, mul"), log, re.M), log
    assert re.search(r"^tanh +fused into group 1 \(add, tanh\)", log, re.M), log
    # the last product reads both groups: joining both would close the same cycle, the last alone not
    assert re.search(
        r"^mul_1 +fused into group 1 \(add, tanh, mul_1\): same iteration space \[6, 6\]; joining group 0 "
        r"\(exp, sigmoid, mul\) too would make the groups depend on each other in a cycle",
        log,
        re.M,
    ), log
    ops = [n.short_op.split("_")[0] for n in compiled.fused_graph.ir.nodes]
    assert ops == ["fused", "matmul", "fused"], ops


def causal_softmax(x):
    t = x.shape[-1]
    mask = gb.tril(gb.ones(t, t)) == 0  # reads no input: computed once, when compiled
    noise = gb.rand(t) * 0  # draws random numbers: stays a call
    return gb.softmax(x.masked_fill(mask, float("-inf")) + noise, -1), gb.zeros(3)  # zeros: the caller's


def test_calls_that_read_no_input_are_folded_into_constants_when_compiled():
    compiled = gb.compile(causal_softmax)
    x = rand(2, 5, 5)
    got, want = compiled(x), causal_softmax(x)
    assert_close(got[0], want[0])
    log = str(compiled.fusion_log)
    for name, op in (("ones", "ones"), ("tril", "tril"), ("eq", "eq.Scalar")):
        assert re.search(
            r"^%s +computed once, when compiled: it reads no input of the function \(%s\)" % (name, op), log, re.M
        ), log
    ops = [n.short_op.split(".")[0] for n in compiled.fused_graph.ir.nodes]
    assert not {"ones", "tril", "eq"} & set(ops) and "rand" in ops and "zeros" in ops, ops
    assert re.search(r"^ones +.*\(ones\); read only by the folded calls after it", log, re.M), log
    assert re.search(r"^eq +.*\(eq.Scalar\); kept as a constant", log, re.M), log
    constants = compiled.fused_graph.ir.constants
    assert "eq" in constants and "ones" not in constants and "tril" not in constants  # only the mask is kept
    # a result the caller receives is made at each call: writing it does not reach the next call
    got[1].add_(1)
    again = compiled(x)[1]
    assert again.data_ptr() != got[1].data_ptr() and np.asarray(again).tolist() == [0.0, 0.0, 0.0]


def three_groups(x, w):
    a = (x.exp() + 1).relu()
    b = ((a @ w).sigmoid() * 2).tanh()
    return ((b @ w).abs() + 3).sqrt()


def test_a_library_of_many_kernels_builds_from_several_files_at_once(monkeypatch):
    from glassbox.compiler import kernels

    monkeypatch.setattr(kernels, "parts_for", lambda count: count)  # one file per kernel
    x, w = rand(7, 5), rand(5, 5, seed=1) * 0.5
    compiled = gb.compile(three_groups)
    assert_close(compiled(x, w), three_groups(x, w), rtol=1e-5, atol=1e-5)
    assert len(compiled.kernels) == 3
    folder = os.path.dirname(os.path.dirname(compiled.compilations[0].library_path))
    assert sorted(f for f in os.listdir(folder) if f.endswith(".cpp")) == ["main.cpp", "main_1.cpp", "main_2.cpp"]
    # each kernel is registered from the file that defines it
    files = {
        re.search(r"CPU: registered at .*/(main\w*\.cpp):\d+", gb.registry.dump(k)).group(1) for k in compiled.kernels
    }
    assert files == {"main.cpp", "main_1.cpp", "main_2.cpp"}


def test_an_mlp_module_fuses_bias_and_relu_around_library_matmuls():
    gb.manual_seed(0)
    model = gb.nn.Sequential(gb.nn.Linear(8, 16), gb.nn.ReLU(), gb.nn.Linear(16, 4))
    compiled = gb.compile(model)
    x = rand(5, 8)
    with gb.no_grad():
        got, want = compiled(x), model(x)
    assert_close(got, want)
    program = str(compiled.fused_graph)
    assert "glassbox.matmul.default(x, t)" in program
    assert compiled.kernels == [k for k in compiled.kernels if k.startswith("compiled::fused_add_relu_")]
    assert len(compiled.kernels) == 1
    assert [v.name for v in compiled.graph.ir.inputs] == ["x", "p_0_weight", "p_0_bias", "p_2_weight", "p_2_bias"]


def test_with_grad_enabled_the_module_compiles_a_backward_too_and_gradients_match():
    gb.manual_seed(1)
    model = gb.nn.Sequential(gb.nn.Linear(3, 4), gb.nn.ReLU())
    compiled = gb.compile(model)
    x = rand(2, 3)
    out = compiled(x)
    assert len(compiled.kernels) == 1 and compiled.kernels[0].startswith("compiled::fused_add_relu_")
    assert out.grad_fn.name() == "CompiledSequentialBackward"
    out.sum().backward()
    assert compiled.compilations[-1].backward_calls == 1
    got = [p.grad.numpy().copy() for p in model.parameters()]
    for p in model.parameters():
        p.grad = None
    model(x).sum().backward()
    for g, p in zip(got, model.parameters()):
        assert_close(g, p.grad.numpy())


# --- the fused kernel is an operator like any other ----------------------------------------


def test_the_generated_kernel_is_registered_traced_and_checks_its_inputs(compiled_chain):
    compiled, inputs, _, _ = compiled_chain
    name = compiled.kernels[0]
    assert name in gb.registry.operators()
    dump = gb.registry.dump(name)
    assert "CPU: registered at" in dump and "main.cpp:" in dump
    with gb.trace() as t:
        compiled(*inputs)
    assert [(e.op, e.key) for e in t.events if e.depth == 0] == [(name, "CPU")]
    ns, op = name.split("::")
    with pytest.raises(RuntimeError, match=r"input x must be a float32 CPU tensor of shape \[300, 130\]"):
        getattr(getattr(gb.ops, ns), op)(rand(3, 3), inputs[1])


# --- guards ------------------------------------------------------------------------------


def scaled(x, factor):
    return x * factor + 1.0


def test_guards_reuse_the_cache_and_recompile_on_shape_dtype_and_scalar_changes():
    compiled = gb.compile(scaled, backend="eager")
    x = rand(4, 3)
    assert_close(compiled(x, 2.0), scaled(x, 2.0))
    compiled(rand(4, 3, seed=5), 2.0)
    assert len(compiled.compilations) == 1
    assert_close(compiled(rand(5, 3), 2.0), scaled(rand(5, 3), 2.0))
    assert compiled.recompile_reasons[-1] == "x.shape: expected [4, 3], got [5, 3]"
    # the message names the guard of the newest compilation that failed
    x64 = rand(5, 3, dtype=np.float64)
    assert_close(compiled(x64, 2.0), scaled(x64, 2.0))
    assert compiled.recompile_reasons[-1] == "x.dtype: expected glassbox.float32, got glassbox.float64"
    assert_close(compiled(x64, 3.0), scaled(x64, 3.0))
    assert compiled.recompile_reasons[-1] == "factor: expected 2.0, got 3.0"
    assert "glassbox.mul.Scalar(x, 3.0)" in str(compiled.graph)
    assert len(compiled.compilations) == 4
    compiled(x, 2.0)  # the first compilation still serves its signature
    assert len(compiled.compilations) == 4
    assert "x: shape=[4, 3], stride=[3, 1], dtype=glassbox.float32" in compiled.compilations[0].guards.describe()


def test_after_the_cache_limit_the_function_runs_eagerly_with_a_warning_naming_the_guard():
    compiled = gb.compile(scaled, backend="eager", cache_size_limit=2)
    compiled(rand(1), 1.0)
    compiled(rand(2), 1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compiled(rand(3), 1.0)
    assert_close(got, scaled(rand(3), 1.0))
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "recompiled 2 times" in messages[0]
    assert "x.shape: expected [2], got [3]" in messages[0]
    assert len(compiled.compilations) == 2


def test_requires_grad_is_guarded():
    compiled = gb.compile(scaled, backend="eager")
    compiled(rand(3), 2.0)
    compiled(rand(3).requires_grad_(True), 2.0)
    assert compiled.recompile_reasons == ["x.requires_grad: expected False, got True"]


# --- what cannot be captured -----------------------------------------------------------------


def branchy(x):
    if x.sum() > 0:
        return x * 2
    return x * 3


def reads_item(x):
    scale = (x * x).sum().item()
    return x * scale


def selects(x):
    return gb.masked_select(x, x > 0) * 2


def test_a_value_read_steering_python_is_a_clear_error_with_the_users_line():
    with pytest.raises(CaptureError) as e:
        gb.compile(branchy, fullgraph=True)(rand(3))
    assert "the value read bool(tensor) at " in str(e.value)
    assert str(e.value).split(" at ", 1)[1].split(":")[0].endswith(HERE)
    assert e.value.where.endswith(line_of(branchy, "if x.sum() > 0"))
    with pytest.raises(CaptureError) as e:
        gb.compile(reads_item, fullgraph=True)(rand(3))
    assert e.value.what == "the value read .item()" and e.value.where.endswith(line_of(reads_item, ".item()"))


def test_without_fullgraph_a_value_read_is_checked_and_each_path_compiled():
    compiled = gb.compile(branchy)
    positive, negative = rand(4).abs() + 0.1, -(rand(4, seed=1).abs() + 0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_close(compiled(positive), branchy(positive))
        assert_close(compiled(negative), branchy(negative))
        assert_close(compiled(positive * 2), branchy(positive * 2))
    assert caught == []
    assert len(compiled.compilations) == 2  # one graph per value the branch read
    where = line_of(branchy, "if x.sum() > 0").split(":")[1]
    assert compiled.recompile_reasons == [
        "the value read bool(tensor) at %s:%s: expected True, got False" % (HERE, where)
    ]
    first = str(_Printable(compiled.compilations[0].fused))
    ast.parse(first)
    assert "check_value(bool(gt), True, 'the value read bool(tensor)', '%s:%s')" % (HERE, where) in first
    assert "glassbox.mul.Scalar(x, 2)" in first and "mul.Scalar(x, 3)" not in first
    assert "mul.Scalar(x, 3)" in str(compiled.graph)
    log = str(compiled.fusion_log)
    assert "the value read bool(tensor): checked when the program runs" in log


def reads_array(x):
    return x * float(x.numpy().sum())


def test_without_fullgraph_what_cannot_be_checked_runs_eagerly_for_that_signature():
    compiled = gb.compile(selects)
    x = rand(5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compiled(x)
    assert_close(got, selects(x))
    assert len(caught) == 1 and "running `selects` eagerly" in str(caught[0].message)
    assert "glassbox::masked_select" in str(caught[0].message)
    assert compiled.compilations == [] and len(compiled.eager_entries) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled(x)
    assert caught == []  # decided once per signature
    with pytest.raises(CaptureError, match=r"the value read .numpy\(\) at .*: a tensor's value passed to Python"):
        gb.compile(reads_array, fullgraph=True)(x)


def test_a_data_dependent_shape_names_the_operator():
    with pytest.raises(CaptureError) as e:
        gb.compile(selects, fullgraph=True)(rand(5))
    assert e.value.what == "glassbox::masked_select"
    assert "depends on the values of its input" in str(e.value)
    assert e.value.where.endswith(line_of(selects, "masked_select"))


def writes_in_place(x):
    y = x * 2
    y.add_(1.0)
    return y


def writes_input(x, out):
    x.mul_(2.0)
    gb.ops.glassbox.add.out(x, x, out=out)
    return x + 1


def leaves_dead_code(x):
    unused = gb.exp(x) * 2  # noqa: F841
    out = gb.empty([3])
    gb.ops.glassbox.add.out(x, 1.0 if False else x, out=out)
    return inner_compiled(out)


inner_compiled = gb.compile(lambda y: y * 3)


def test_unused_results_are_removed_and_a_compiled_function_inside_one_is_inlined():
    compiled = gb.compile(leaves_dead_code)
    x = rand(3)
    assert_close(compiled(x), leaves_dead_code(x))
    log = str(compiled.fusion_log)
    for name in ("mul ", "exp ", "empty "):
        assert re.search(r"^%s +removed: its result is never used" % name, log, re.M), log
    # the inner compiled function ran inside the capture: its multiply is one more node of this graph
    (kernel,) = compiled.fused_graph.ir.nodes
    assert kernel.kind == "fused" and [m.short_op for m in kernel.members] == ["add.Tensor", "mul.Scalar"]


def writes_through_a_view(x):
    y = x * 1.0
    row = y[0]
    row.add_(1.0)
    return y


def test_in_place_calls_are_recorded_functionally_and_written_inputs_written_back_once():
    compiled = gb.compile(writes_in_place, backend="eager")
    x = rand(3)
    assert_close(compiled(x), writes_in_place(x))
    assert "glassbox.add.Scalar(mul, 1.0)" in str(compiled.graph)

    x, out = rand(3), gb.zeros(3)
    x_eager, out_eager = rand(3), gb.zeros(3)
    want = writes_input(x_eager, out_eager)
    compiled = gb.compile(writes_input)
    assert_close(compiled(x, out), want)
    assert_close(x, x_eager)  # written once: capture put back what its eager run wrote
    assert_close(out, out_eager)
    program = str(compiled.graph)
    assert "glassbox.mul.Scalar(x, 2.0)" in program and "glassbox.add.Tensor(mul, mul)" in program
    assert "glassbox.copy_.default(x, mul)  # the function wrote x in place" in program
    assert "glassbox.copy_.default(out, add)" in program
    assert len(compiled.kernels) == 1  # mul, add and add_1 in one loop, writing mul and add too
    assert "removed: its result is never used" not in str(compiled.fusion_log)
    assert len(compiled.fused_graph.ir.nodes[0].outputs) == 3
    x2, out2 = rand(3), gb.zeros(3)
    compiled(x2, out2)
    assert_close(x2, x_eager) and assert_close(out2, out_eager)

    with pytest.raises(CaptureError, match=r"add_.Scalar at .*: it writes in place into select, which shares memory"):
        gb.compile(writes_through_a_view, fullgraph=True)(rand(2, 3))


# --- the printed program and the debug artifacts -------------------------------------------


def test_the_graph_prints_as_a_python_program_with_the_users_lines(compiled_chain):
    compiled = compiled_chain[0]
    text = str(compiled.graph)
    ast.parse(text)
    assert 'def forward(x: "f32[300, 130]", b: "f32[130]"):' in text
    assert 'sigmoid: "f32[300, 130]" = glassbox.sigmoid.default(x)  # %s' % line_of(chain, "gb.sigmoid") in text
    assert 'sum: "f32[300]" = glassbox.sum.dim_IntList(sub, [-1])' in text
    assert text.rstrip().endswith("return (relu, sum)")


def test_debug_dir_holds_runnable_programs_code_log_and_drawings(compiled_chain, tmp_path):
    compiled, inputs, out, directory = compiled_chain
    names = set(os.listdir(directory))
    for name in (
        "graph_readable.py",
        "graph_runnable.py",
        "graph_decomposed.py",
        "graph_fused.py",
        "fusion_log.txt",
        "output_code.cpp",
        "output_code.py",
        "graph_pre_fusion.dot",
        "graph_post_fusion.dot",
        "guards.txt",
    ):
        assert name in names, name
    for name in ("graph_readable.py", "graph_runnable.py", "graph_decomposed.py", "graph_fused.py", "output_code.py"):
        ast.parse(open(os.path.join(directory, name)).read())
    cpp = open(os.path.join(directory, "output_code.cpp")).read()
    assert compiled.kernels[0].split("::")[1] + "(" in cpp
    assert (
        "unary<F::Sigmoid>(in_x)" in cpp
        and "// sigmoid = glassbox.sigmoid.default(x)  %s" % line_of(chain, "gb.sigmoid") in cpp
    )
    log = open(os.path.join(directory, "fusion_log.txt")).read()
    assert log == str(compiled.fusion_log) and "fused into group 0" in log
    post = open(os.path.join(directory, "graph_post_fusion.dot")).read()
    assert post.startswith("digraph compiled {") and post.count('subgraph "cluster_') == 1
    pre = open(os.path.join(directory, "graph_pre_fusion.dot")).read()
    assert "cluster_" not in pre and '"sigmoid" -> "mul"' in pre
    if shutil.which("dot"):
        assert open(os.path.join(directory, "graph_post_fusion.svg")).read().lstrip().startswith("<?xml")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for program in ("graph_runnable.py", "output_code.py"):
        result_file = tmp_path / (program + ".npy")
        script = (
            "import runpy, numpy as np\n"
            "m = runpy.run_path(%r)\n"
            "out = m['forward'](*m['load_inputs']())\n"
            "np.save(%r, np.stack([np.asarray(out[0]).sum(-1), np.asarray(out[1])]))\n"
        ) % (os.path.join(directory, program), str(result_file))
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        replayed = np.load(result_file)
        assert_close(replayed[0], np.asarray(out[0]).sum(-1), rtol=1e-5, atol=1e-4)
        assert_close(replayed[1], np.asarray(out[1]))


def test_a_second_process_loads_the_cached_kernel_without_building_it(compiled_chain, tmp_path):
    compiled, (x, b), out, _ = compiled_chain
    library = compiled.compilations[0].library_path
    assert os.path.isfile(library), library
    stamp = os.stat(library).st_mtime_ns
    gb.save({"x": x, "b": b}, str(tmp_path / "inputs.gb"))
    script = (
        "import json, numpy as np, glassbox as gb\n"
        "from test_compile import chain\n"
        "inputs = gb.load(%r)\n"
        "compiled = gb.compile(chain)\n"
        "relu, total = compiled(inputs['x'], inputs['b'])\n"
        "np.save(%r, np.asarray(total))\n"
        "print(json.dumps([compiled.kernels, compiled.compilations[0].library_path]))\n"
    ) % (str(tmp_path / "inputs.gb"), str(tmp_path / "total.npy"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=os.path.dirname(__file__)
    )
    assert run.returncode == 0, run.stderr
    kernels, path = json.loads(run.stdout.strip().splitlines()[-1])
    assert kernels == compiled.kernels and path == library
    assert os.stat(library).st_mtime_ns == stamp, "the cached library was rebuilt"
    np.testing.assert_array_equal(np.load(tmp_path / "total.npy"), np.asarray(out[1]))


def test_kernels_compile_against_one_precompiled_glassbox_header(tmp_path, monkeypatch):
    """The first compilation of a cache precompiles the header in the background without waiting
    for it; the libraries built after it -include it. GCC takes the .gch only when its flags match
    (else it would parse the header without a word), so that compile is run again with
    -Werror=invalid-pch. A library keeps what it was built with: it is not rebuilt for the header."""
    import shlex

    from glassbox.compiler import kernels

    monkeypatch.setenv("GLASSBOX_COMPILE_CACHE", str(tmp_path))
    x, b = rand(5, 33), rand(33, seed=1)
    first = gb.compile(chain)
    first(x, b)
    first_project = os.path.join(os.path.dirname(first.compilations[0].library_path), "..", "CMakeLists.txt")
    header = kernels.precompiled_header(False)[0].result()
    (pch,) = [d for d in os.listdir(tmp_path) if d.startswith("pch_")]
    assert header == os.path.join(tmp_path, pch, "build", "CMakeFiles", "glassbox_pch.dir", "cmake_pch.hxx")
    assert os.path.getsize(header + ".gch") > 1_000_000
    second = gb.compile(lambda x: (x * 3.0).relu() - 1.0)
    second(x)
    build_dir = os.path.dirname(second.compilations[0].library_path)
    commands = subprocess.run(["ninja", "-C", build_dir, "-t", "commands"], capture_output=True, text=True).stdout
    (compile_line,) = [c for c in commands.splitlines() if " -c " in c and "main.cpp" in c]
    words = shlex.split(compile_line)
    assert words[words.index("-include") + 1] == header and "-Winvalid-pch" in words
    words[words.index("-o") + 1] = str(tmp_path / "again.o")
    run = subprocess.run(words + ["-Werror=invalid-pch"], capture_output=True, text=True, cwd=build_dir)
    assert run.returncode == 0, run.stderr
    assert "-Winvalid-pch" not in open(first_project).read()
    stamp = os.stat(first.compilations[0].library_path).st_mtime_ns
    again = kernels.build_and_load(first.compilations[0].lowered.cpp_source)  # as a new process would
    assert os.path.realpath(again) == os.path.realpath(first.compilations[0].library_path)
    assert os.stat(first.compilations[0].library_path).st_mtime_ns == stamp
    assert "-Winvalid-pch" not in open(first_project).read()
    assert [d for d in os.listdir(tmp_path) if d.startswith("pch_")] == [pch]


def test_unknown_backend_and_non_callables_are_refused():
    with pytest.raises(ValueError, match="unknown backend 'tvm'"):
        gb.compile(chain, backend="tvm")
    with pytest.raises(TypeError, match="expects a function or a gb.nn.Module"):
        gb.compile(3)
    with pytest.raises(RuntimeError, match="has not been called yet"):
        gb.compile(chain).graph


# --- every generated formula against its library kernel -------------------------------------

GENERATED_UNARY = [
    "abs", "neg", "sqrt", "rsqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tanh", "sigmoid", "erf",
    "reciprocal", "relu", "floor", "ceil", "trunc",
]  # fmt: skip


def every_formula(x, y):
    """Each operator the generator knows, applied to one shared element-wise value (so all of them
    land in one group: one kernel per dtype), including special values."""
    G = gb.ops.glassbox
    base = x * 1.0
    positive = base.abs() + 0.25
    out = [
        getattr(G, name).default(positive if name in ("sqrt", "rsqrt", "log", "log1p") else base)
        for name in GENERATED_UNARY
    ]
    out += [
        G.add.Tensor(base, y, alpha=2.0),
        G.sub.Tensor(base, y, alpha=0.5),
        base * y,
        base / y,
        G.maximum.default(base, y),
        G.minimum.default(base, y),
        base + 1.5,
        base - 3,  # a Python int, wrapped by the binding as a 0-d int64 tensor: read converted
        G.sub.Scalar(base, 1.5, 2.0),
        base * -3.0,
        base / 4.0,
        base**2,
        positive**0.5,
        base**3,
        base**-1,
        F.gelu(base),
        F.gelu(base, approximate="tanh"),
        F.silu(base),
    ]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_generated_formula_matches_the_library_kernel(dtype):
    values = np.random.default_rng(3).uniform(-4, 4, size=(8, 16)).astype(dtype)
    values[0, :6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    x, y = gb.from_numpy(values), rand(16, seed=4, dtype=dtype)
    compiled = gb.compile(every_formula)
    got, want = compiled(x, y), every_formula(x, y)
    assert len(compiled.kernels) == 1
    members = {m.op.split("::")[1].split(".")[0] for m in compiled.fused_graph.ir.nodes[0].members}
    assert set(GENERATED_UNARY) <= members, set(GENERATED_UNARY) - members
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-14)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol, equal_nan=True, err_msg=str(k))


# --- the op table through capture and replay -------------------------------------------------

from glassbox.compiler.capture import DATA_DEPENDENT_SHAPES  # noqa: E402
from optable import ALL  # noqa: E402
from optable.pointwise import Raw, cond  # noqa: E402


def _tensor_args(sample):
    """Fresh tensors (an in-place operator writes them) for a sample's arrays."""

    def fresh(a):
        if isinstance(a, Raw):  # made a tensor here: on CUDA the sample's own copy_ would be captured
            return cond(a)
        if isinstance(a, np.ndarray):
            return gb.from_numpy(a.copy())
        if isinstance(a, (list, tuple)) and a and all(isinstance(x, np.ndarray) for x in a):
            return [gb.from_numpy(x.copy()) for x in a]
        return a

    return [fresh(a) for a in sample.args], {k: fresh(v) for k, v in sample.kwargs.items()}


@pytest.mark.parametrize("info", [i for i in ALL if "float32" in i.dtypes], ids=lambda i: i.name)
def test_every_op_table_operator_is_captured_and_replayed(info):
    """The "eager" backend runs the captured graph with library calls: its results, and what it
    writes into its inputs (in-place and out= operators), equal the operator's own; only an operator
    whose result's shape depends on values is refused."""
    samples = info.samples(np.random.default_rng(0), "float32")
    for sample in samples[:3]:
        args, kwargs = _tensor_args(sample)
        gb.manual_seed(0)
        try:
            want = info.op(*args, **kwargs)
        except Exception:
            continue  # a sample that exercises an error
        written = [a for a in args if isinstance(a, gb.Tensor)]  # their values after the eager call
        args, kwargs = _tensor_args(sample)
        compiled = gb.compile(info.op, backend="eager", fullgraph=True)
        try:
            gb.manual_seed(0)
            got = compiled(*args, **kwargs)
        except CaptureError as e:  # only what a graph of fixed shapes cannot hold, and value reads
            if e.what in DATA_DEPENDENT_SHAPES:
                continue
            # A composite that reads a value (an index check, a count): without fullgraph the read
            # becomes a run-time check in the graph, and the replay must still equal the operator.
            assert e.what.startswith("the value read"), str(e)
            args, kwargs = _tensor_args(sample)
            compiled = gb.compile(info.op, backend="eager")
            gb.manual_seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "runs eagerly for this signature", where it does
                got = compiled(*args, **kwargs)
        wants = want if isinstance(want, (tuple, list)) else [want]
        gots = got if isinstance(got, (tuple, list)) else [got]
        assert len(gots) == len(wants)
        for g, w in zip(gots, wants):
            if not isinstance(w, gb.Tensor):
                assert g == w
                continue
            assert tuple(g.shape) == tuple(w.shape) and g.dtype == w.dtype
            if "rand" in info.name or "dropout" in info.name or "bernoulli" in info.name or "normal" in info.name:
                continue  # capture ran the generator once already
            np.testing.assert_array_equal(
                np.asarray(g.cpu()), np.asarray(w.cpu()), err_msg="%s %s" % (info.name, sample.name)
            )
        for g, w in zip([a for a in args if isinstance(a, gb.Tensor)], written):
            np.testing.assert_array_equal(
                np.asarray(g.cpu()), np.asarray(w.cpu()), err_msg="%s wrote its input" % info.name
            )


def test_the_programs_typed_calls_equal_the_boxed_ones_and_fall_back_for_other_arguments():
    from glassbox.compiler.typed_calls import TYPED, TypedNamespace

    G, typed = gb.ops.glassbox, TypedNamespace(gb.ops.glassbox)
    x, m = rand(2, 3, 4), rand(4, 4, seed=1)
    calls = {
        "reshape.default": (x, [6, 4]),
        "view.default": (x, [4, 6]),
        "t.default": (m,),
        "transpose.int": (x, 0, 2),
        "unsqueeze.default": (x, 1),
        "permute.default": (x, [2, 0, 1]),
        "expand.default": (rand(3, 1), [3, 5]),
        "sum.dim_IntList": (x, [0, 2], True),
        "mm.default": (m, m),
        "bmm.default": (x, rand(2, 4, 5, seed=2)),
    }
    assert set(calls) == set(TYPED)
    for qualified, args in calls.items():
        name, overload = qualified.split(".")
        bound = getattr(getattr(typed, name), overload)
        assert bound is not getattr(getattr(G, name), overload), qualified  # the typed binding
        got, want = bound(*args), getattr(getattr(G, name), overload)(*args)
        assert got.shape == want.shape and got.stride() == want.stride(), qualified
        assert_close(got, want)
    # arguments outside the typed form go through gb.ops: dtype= of a sum, an implicit expand
    assert typed.sum.dim_IntList(x, [1], False, dtype=gb.float64).dtype == gb.float64
    assert typed.expand.default(rand(3, 1), [3, 5], implicit=True).shape == (3, 5)
    assert typed.add.Tensor is G.add.Tensor  # operators without a typed binding are gb.ops itself


def test_outside_a_capture_the_tensor_class_and_the_dispatcher_are_untouched():
    before = {name: gb.Tensor.__dict__.get(name) for name in ("item", "tolist", "__bool__", "__float__")}
    fallbacks = gb.registry.info()["fallbacks"]
    compiled = gb.compile(branchy)
    compiled(rand(3))
    assert {name: gb.Tensor.__dict__.get(name) for name in before} == before
    assert gb.registry.info()["fallbacks"] == fallbacks


def activations(x):
    return F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), gb.ops.glassbox.square.default(x)


def test_the_declared_decompositions_compute_what_the_operators_do():
    from glassbox.compiler import decompositions

    x = rand(4, 5) * 3
    compiled = gb.compile(activations, backend="eager")
    compiled(x)
    decomposed = decompositions.decompose(compiled.graph.ir, [x], decompositions.DECOMPOSITIONS)
    text = str(_Printable(decomposed))
    for gone in ("gelu", "silu", "square"):
        assert "glassbox.%s." % gone not in text, text
    for kept in ("erf.default", "tanh.default", "sigmoid.default", "mul.Tensor"):
        assert "glassbox.%s(" % kept in text
    got = decompositions.interpret(decomposed, [x], lambda node, args: decompositions.call_op(node.op, args))
    for g, w in zip(got, activations(x)):
        assert_close(g, w, rtol=1e-5, atol=1e-6)
    # gb.compile leaves gelu and silu whole: the generator has their vectorised formulas
    fused = gb.compile(activations)
    fused(x)
    assert "glassbox.gelu.default(x)" in str(fused.decomposed_graph)
    assert "glassbox.silu.default(x)" in str(fused.decomposed_graph)
    assert "glassbox.mul.Tensor(x, x)" in str(fused.decomposed_graph)  # square has no formula of its own
    # four independent operators on x: one pass reading x once
    assert len(fused.kernels) == 1
    assert re.search(
        r"^silu +fused into group 0 \(gelu, gelu_1, silu\): it reads x as the group does", str(fused.fusion_log), re.M
    )
    for g, w in zip(fused(x), activations(x)):
        assert_close(g, w)
    table = decompositions.table_text(fused.decomposed_graph.ir.decompositions).splitlines()
    assert [line.split()[0] for line in table if "(not applied" in line] == ["glassbox::silu", "glassbox::gelu"]


def test_glassbox_compile_debug_writes_the_artifacts_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSBOX_COMPILE_DEBUG", "1")
    monkeypatch.chdir(tmp_path)
    compiled = gb.compile(scaled, backend="eager")
    compiled(rand(3), 2.0)
    compiled(rand(4), 2.0)
    folder = tmp_path / "glassbox_compile_debug" / "scaled"
    assert (folder / "graph_readable.py").is_file() and (folder / "recompile_1" / "graph_readable.py").is_file()
    assert 'def forward(x: "f32[4]"):' in (folder / "recompile_1" / "graph_readable.py").read_text()


def test_two_threads_capture_at_once():
    import threading

    results, errors = {}, []
    barrier = threading.Barrier(2)

    def work(k):
        try:
            compiled = gb.compile(branchy, backend="eager")
            x = rand(50, seed=k) * (1 if k == 0 else -1)
            barrier.wait()
            for _ in range(20):
                got = compiled(x)
            results[k] = (np.asarray(got), np.asarray(branchy(x)), len(compiled.compilations))
        except Exception as e:  # reported below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for got, want, compilations in results.values():
        assert_close(got, want)
        assert compilations == 1


def test_zero_dim_and_empty_tensors():
    def f(x):
        return (x * 2).exp() + 1

    compiled = gb.compile(f)
    scalar = gb.tensor(0.5)
    assert_close(compiled(scalar), f(scalar))
    assert len(compiled.kernels) == 1
    for shape in [(0,), (3, 0)]:
        x = gb.randn(*shape)
        got = compiled(x)
        assert tuple(got.shape) == shape and compiled.kernels == []
        assert "its result has no elements" in str(compiled.fusion_log)
