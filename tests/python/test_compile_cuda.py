"""gb.compile on a GPU: fused groups as CUDA C++ compiled by NVRTC, launched through a C++ wrapper
registered at the CUDA key.

Two halves. The first runs anywhere NVRTC is installed, GPU or not: graphs captured on the CPU are
moved to "cuda:0" (only the values' device changes), fused and printed as CUDA, and NVRTC compiles
them for sm_90; the wrapper library builds and registers its operators; the binary cache works
across processes; a missing NVRTC leaves the operators to the library. The second half runs with
`pytest --device cuda` on a machine with a GPU: compiled results equal eager ones on the GPU."""

import json
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cuda_emulation
import devices
import glassbox as gb
from glassbox.compiler import codegen_cpp, codegen_cuda, dead_code, decompositions, fusion, kernels, nvrtc

F = gb.nn.functional
HERE = os.path.basename(__file__)


def _nvrtc_missing():
    try:
        nvrtc.version()
    except nvrtc.CudaCodegenUnavailable as e:
        return str(e)
    return None


needs_nvrtc = pytest.mark.skipif(_nvrtc_missing() is not None, reason="no NVRTC: %s" % _nvrtc_missing())
needs_gpu = pytest.mark.skipif(
    devices.DEVICE != "cuda" or not gb.cuda.is_available(),
    reason="runs with --device cuda on a machine with a GPU (%s)" % gb.cuda.describe(),
)


def rand(*shape, seed=0, dtype=np.float32):
    return gb.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


# --- the functions compiled --------------------------------------------------------------------


def chain(x, b):
    y = gb.sigmoid(x) * x + 1.0
    z = y * b - x.exp()
    return z.relu(), z.sum(-1)


def broadcast(a, b, c):
    return gb.tanh(a * b + c.t()) * 0.5


def rows(x, w, bias):
    return gb.softmax(x, -1), F.layer_norm(x, [x.shape[-1]], w, bias)


def wrapped_number(x):
    return (x - 3) * 2 + x.amax(-1, keepdim=True)


def masked_rows(x, mask):
    return gb.softmax(x.masked_fill(mask, float("-inf")) * 0.5, -1)


def three_reductions(x):
    a, b = x.exp(), x.sin()
    return (a - a.sum(-1, keepdim=True)) * (b - b.amax(-1, keepdim=True)) + x.cos() * x.mean(-1, keepdim=True)


# --- without a GPU: the generated CUDA, compiled by NVRTC for sm_90 ----------------------------


@pytest.fixture
def pretend_sm90(monkeypatch):
    """The driver's answers on a machine without one: codegen asks for the device's architecture,
    fusion whether CUDA code can be generated."""
    monkeypatch.setattr(nvrtc, "unavailable_reason", lambda: None)
    monkeypatch.setattr(nvrtc, "device_arch", lambda index: (9, 0))


def fused_on_cuda(fn, *inputs):
    """fn captured on the CPU and decomposed, its values moved to cuda:0 (a 0-d constant, a number
    the binding wrapped, stays on the CPU as it would be), fused and generated."""
    compiled = gb.compile(fn, backend="eager")
    compiled(*inputs)
    captured = compiled.compilations[-1].captured
    table = {op: f for op, f in decompositions.DECOMPOSITIONS.items() if op not in codegen_cpp.POINTWISE}
    graph = decompositions.decompose(captured, list(inputs), table)
    dead_code.eliminate(graph)
    for v in graph.inputs + [v for n in graph.nodes for v in n.input_values() + n.outputs]:
        if not (v.shape == () and v.kind == "constant"):
            v.device = "cuda:0"
    groups, log = fusion.plan(graph, False)
    users, outputs = graph.users(), {id(v) for v in graph.output_values()}
    return graph, log, [codegen_cpp.generate(g, users, outputs) for g in groups]


def is_cubin(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


@needs_nvrtc
def test_an_elementwise_chain_with_a_row_sum_is_one_cuda_kernel_for_sm_90(pretend_sm90):
    _, log, generated = fused_on_cuda(chain, rand(300, 130), rand(130, seed=1))
    assert len(generated) == 1
    kernel, schema = generated[0]
    assert kernel.device == "cuda" and schema.endswith("(Tensor x, Tensor b) -> (Tensor, Tensor)")
    code = kernel.cuda_source
    # one warp per row, 8 rows a block; 130 elements: each lane strides over the row
    assert 'extern "C" __global__ void __launch_bounds__(256) %s(' % kernel.name in code
    assert "kernel.launch(device, 38, 256, args);" in kernel.source  # 300 rows
    assert "const bool live = warp_row < 300;" in code and "const int row = live ? warp_row : 299;" in code
    # each lane visits 5 elements of its row, the passes unrolled over them; the value the second
    # pass reads is kept in registers rather than recomputed
    assert "for (int s = 0; s < 5; ++s) {\n    const int j = lane + 32 * s;\n    if (j < 130) {" in code
    assert "float k_sub[5];" in code and "k_sub[s] = v_sub;" in code
    assert "const float v_relu = unary<F::Relu>(k_sub[s]);" in code and code.count("unary<F::Exp>") == 1
    assert "keeps sub in registers between passes (5 values a lane)" in kernel.notes
    assert "const float v_sigmoid = unary<F::Sigmoid>(in_x);  // sigmoid = glassbox.sigmoid.default(x)" in code
    assert "const float in_b = gb::load<float>(p_b[(i % 130)]);" in code
    assert "gb::warp_reduce<gb::Sum>(part_sum)" in code and "scratch" not in code
    assert "if (live && lane == 0) {\n    o_sum[row] = gb::store<float>(r_sum);" in code
    assert kernel.image.kind == "cubin" and kernel.image.arch == 90 and is_cubin(kernel.image.path)
    assert "cubin for sm_90 by NVRTC" in " ".join(kernel.notes)
    # rows longer than a warp's share: one block per row, 1500 elements -> 512 threads
    _, _, ((long_rows, _),) = fused_on_cuda(chain, rand(3, 1500), rand(1500, seed=1))
    code = long_rows.cuda_source
    assert "__launch_bounds__(512)" in code and "kernel.launch(device, 3, 512, args);" in long_rows.source
    assert "for (int j = threadIdx.x; j < 1500; j += blockDim.x) {" in code
    assert "gb::block_reduce<gb::Sum>(part_sum, scratch)" in code and "if (threadIdx.x == 0) {" in code


@needs_nvrtc
def test_a_row_kernel_keeps_values_in_registers_only_within_the_budget(pretend_sm90):
    # the masked softmax of attention over 256 keys: x is read once, exp computed once
    mask = gb.from_numpy(np.triu(np.ones((256, 256), bool), 1))
    _, _, ((kernel, _),) = fused_on_cuda(masked_rows, rand(2, 2, 256, 256), mask)
    code = kernel.cuda_source
    assert code.count("gb::load<float>(p_x[") == 1 and code.count("unary<F::Exp>") == 1
    assert "float k_mul[8];" in code and "float k_exp[8];" in code and "if (j < 256)" not in code
    assert "const float v_div = (k_exp[s] / r_sum);" in code
    assert "keeps mul, exp in registers between passes (16 values a lane)" in kernel.notes
    # three values of 32 slots a lane are over codegen_cuda.REGISTER_ROW_BUDGET: recomputed
    _, _, ((wide, _),) = fused_on_cuda(three_reductions, rand(5, 1024))
    assert "k_" not in wide.cuda_source and "for (int j = lane; j < 1024; j += 32) {" in wide.cuda_source
    assert wide.notes[0].startswith("recomputes exp, sin in each pass")
    _, _, ((narrow, _),) = fused_on_cuda(three_reductions, rand(5, 200))
    assert "keeps x, exp, sin in registers between passes (21 values a lane)" in narrow.notes


@needs_nvrtc
def test_broadcast_and_transposed_inputs_are_index_arithmetic_in_a_grid_stride_loop(pretend_sm90):
    _, _, generated = fused_on_cuda(broadcast, rand(5, 1, 4), rand(3, 1, seed=1), rand(4, 3, seed=2))
    kernel = generated[0][0]
    code = kernel.cuda_source
    assert "4 elements per thread and step, a block apart" in code and "__launch_bounds__(256)" in code
    assert (
        "for (int base = blockIdx.x * (int)blockDim.x * 4 + threadIdx.x; base < n; "
        "base += (int)gridDim.x * blockDim.x * 4) {" in code
    )
    # the loads of a thread's 4 elements first, then the arithmetic
    assert code.index("a_a[u] = gb::load<float>(") < code.index("const float in_a = a_a[u];")
    assert "p_a[(i / 12) * 4 + (i % 4)]" in code and "p_b[(i / 4 % 3)]" in code
    assert "p_t[(i / 4 % 3) + (i % 4) * 3]" in code  # c.t(): strides (1, 3)
    assert is_cubin(kernel.image.path)


@needs_nvrtc
def test_softmax_and_layer_norm_are_one_row_kernel_each(pretend_sm90):
    _, _, generated = fused_on_cuda(rows, rand(6, 40), rand(40, seed=1), rand(40, seed=2))
    names = [k.name for k, _ in generated]
    assert len(names) == 2 and names[0].startswith("fused_amax_sub_exp_sum_div") and "rsqrt" in names[1]
    softmax = generated[0][0].cuda_source
    assert softmax.count("gb::warp_reduce<") == 2
    assert "float part_amax = -gb::numeric_limits<float>::infinity();" in softmax
    layer_norm = generated[1][0].cuda_source
    assert "const float r_mean = gb::warp_reduce<gb::Sum>(part_mean) / float(40);" in layer_norm
    assert "const float r_rsqrt = unary<F::Rsqrt>(r_add);" in layer_norm  # a per-row operator
    assert all(is_cubin(k.image.path) for k, _ in generated)


@needs_nvrtc
@pytest.mark.parametrize(
    "dtype,storage,compute",
    [("float16", "gb::half", "float"), ("bfloat16", "gb::bfloat16", "float"), ("float64", "double", "double")],
)
def test_other_float_dtypes_load_into_the_compute_type_and_compile(pretend_sm90, dtype, storage, compute):
    def cast(t):
        return t.to(getattr(gb, dtype))

    _, _, generated = fused_on_cuda(rows, cast(rand(6, 40)), cast(rand(40, seed=1)), cast(rand(40, seed=2)))
    assert len(generated) == 2
    for kernel, _ in generated:
        code = kernel.cuda_source
        assert "const %s* __restrict__ p_x" % storage in code and "%s* __restrict__ o_" % storage in code
        assert "const %s in_x = gb::load<%s>(p_x[i]);" % (compute, compute) in code
        assert "gb::store<%s>(" % storage in code
        assert is_cubin(kernel.image.path)


@needs_nvrtc
def test_a_wrapped_python_number_is_read_on_the_host_and_passed_by_value(pretend_sm90):
    _, _, generated = fused_on_cuda(wrapped_number, rand(6, 40))
    kernel = generated[0][0]
    assert "double s_tensor_constant0" in kernel.cuda_source
    assert "static_cast<float>(s_tensor_constant0);  // input tensor_constant0: i64[]" in kernel.cuda_source
    assert "double s_tensor_constant0 = host_scalar(t_tensor_constant0," in kernel.source
    assert is_cubin(kernel.image.path)


def emulated_equals_eager(fn, inputs, tmp_path, rtol, atol):
    """Each generated kernel of fn, run by the CPU emulation of CUDA's thread model, computes what
    the operators it fuses compute eagerly (on the CPU)."""
    graph, _, generated = fused_on_cuda(fn, *inputs)
    env = {}
    decompositions.interpret(graph, list(inputs), lambda node, args: decompositions.call_op(node.op, args), env)
    for kernel, _ in generated:
        got = cuda_emulation.run(kernel, [env[id(v)] for v in kernel.inputs], str(tmp_path))
        for g, v in zip(got, kernel.outputs):
            want = env[id(v)]
            want = np.asarray(want.to(gb.float32) if str(want.dtype) == "glassbox.bfloat16" else want)
            assert g.shape == want.shape and g.dtype == want.dtype, v.name
            np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=v.name)
    return generated


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
def test_the_generated_cuda_run_by_a_cpu_emulation_equals_eager(pretend_sm90, tmp_path):
    # a row group with a reduction (41 rows, a warp each: 6 blocks of 8 warps, the last with 7 past
    # the end), a pointwise group over 3 blocks with broadcast and transposed inputs, softmax and
    # layer_norm (several reductions in a row, per-row operators; rows of 300 by warps, of 1100 by
    # blocks), a number read on the host, float64
    assert len(emulated_equals_eager(chain, (rand(41, 130), rand(130, seed=1)), tmp_path, 1e-5, 1e-4)) == 1
    long_rows = (rand(3, 1100), rand(1100, seed=1), rand(1100, seed=2))
    for kernel, _ in emulated_equals_eager(rows, long_rows, tmp_path, 1e-5, 1e-5):
        assert "gb::block_reduce<" in kernel.cuda_source
    generated = emulated_equals_eager(
        broadcast, (rand(25, 1, 40), rand(3, 1, seed=1), rand(40, 3, seed=2)), tmp_path, 1e-6, 1e-6
    )
    assert "kernel.launch(device, 3, 256, args);" in generated[0][0].source
    assert (
        len(emulated_equals_eager(rows, (rand(6, 300), rand(300, seed=1), rand(300, seed=2)), tmp_path, 1e-5, 1e-5))
        == 2
    )
    emulated_equals_eager(wrapped_number, (rand(6, 40),), tmp_path, 1e-6, 1e-6)
    # values kept in registers across three passes, and (over the budget) recomputed instead; the
    # products of differences of sums of ~500 leave an absolute error of ~1e-5
    for width in (200, 1024):
        emulated_equals_eager(three_reductions, (rand(9, width),), tmp_path, 1e-5, 1e-3)
    # a bool mask (broadcast over the rows) read into the float chain of a row kernel
    mask = gb.from_numpy(np.random.default_rng(5).random(40) < 0.3)
    ((kernel, _),) = emulated_equals_eager(masked_rows, (rand(6, 40), mask), tmp_path, 1e-6, 1e-6)
    assert "const bool* __restrict__ p_mask" in kernel.cuda_source and "masked_fill" in kernel.name
    f64 = [rand(6, 300, dtype=np.float64), rand(300, seed=1, dtype=np.float64), rand(300, seed=2, dtype=np.float64)]
    emulated_equals_eager(rows, f64, tmp_path, 1e-12, 1e-12)
    # bfloat16: loaded into float, rounded once when stored (the library rounds after each operator)
    bf16 = [t.to(gb.bfloat16) for t in (rand(6, 300), rand(300, seed=1), rand(300, seed=2))]
    emulated_equals_eager(rows, bf16, tmp_path, 2e-2, 8e-2)
    emulated_equals_eager(chain, [t.to(gb.bfloat16) for t in (rand(40, 130), rand(130, seed=1))], tmp_path, 2e-2, 8e-2)


def formula_inputs(dtype):
    values = np.random.default_rng(3).uniform(-4, 4, size=(8, 16)).astype(dtype)
    values[0, :6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    return gb.from_numpy(values), rand(16, seed=4, dtype=dtype)


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_device_formula_run_by_the_emulation_equals_the_library(pretend_sm90, tmp_path, dtype):
    # the device prelude's functors, transcribed from engine/ops/pointwise_functors.h, with special
    # values (+-0, +-inf, NaN, tiny); the host's libm stands in for CUDA's
    from test_compile import GENERATED_UNARY, every_formula

    x, y = formula_inputs(dtype)
    graph, _, generated = fused_on_cuda(every_formula, x, y)
    assert len(generated) == 1
    members = {m.op.split("::")[1].split(".")[0] for m in generated[0][0].members}
    assert set(GENERATED_UNARY) <= members
    env = {}
    decompositions.interpret(graph, [x, y], lambda node, args: decompositions.call_op(node.op, args), env)
    kernel = generated[0][0]
    got = cuda_emulation.run(kernel, [env[id(v)] for v in kernel.inputs], str(tmp_path))
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-14)
    for g, v in zip(got, kernel.outputs):
        np.testing.assert_allclose(g, np.asarray(env[id(v)]), rtol=rtol, atol=atol, equal_nan=True, err_msg=v.name)


@needs_nvrtc
def test_a_compile_error_shows_nvrtcs_log_with_the_line():
    with pytest.raises(RuntimeError, match=r"(?s)compiling broken\.cu failed.*broken\.cu\(1\): error"):
        nvrtc.compile_source('extern "C" __global__ void k() { undeclared(); }', "broken", 90)


@needs_nvrtc
def test_the_ptx_artifact_is_for_the_binarys_architecture(pretend_sm90):
    _, _, generated = fused_on_cuda(broadcast, rand(5, 1, 4), rand(3, 1, seed=1), rand(4, 3, seed=2))
    kernels_ = [k for k, _ in generated]
    ptx = codegen_cuda.ptx_text(kernels_)
    assert ".target sm_90" in ptx and ".visible .entry %s(" % kernels_[0].name in ptx
    cu = codegen_cuda.source_text(kernels_)
    assert cu.startswith(codegen_cuda.DEVICE_PRELUDE) and kernels_[0].cuda_source in cu
    # a float32 chain computes in float: no double-precision instruction in its code
    assert ".f64" not in ptx.split(".visible .entry")[1]


@needs_nvrtc
def test_the_binary_cache_serves_a_second_process_without_nvrtc(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSBOX_COMPILE_CACHE", str(tmp_path))
    source = 'extern "C" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }'
    first = nvrtc.cached_image(source, "twice", (9, 0))
    assert not first.from_cache and first.path.startswith(str(tmp_path / "cuda")) and is_cubin(first.path)
    script = (
        "import json\n"
        "from glassbox.compiler import nvrtc\n"
        "image = nvrtc.cached_image(%r, 'twice', (9, 0))\n"
        "print(json.dumps([image.path, image.from_cache, nvrtc.stats]))\n"
    ) % source
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    path, from_cache, stats = json.loads(run.stdout.strip().splitlines()[-1])
    assert path == first.path and from_cache and stats == {"nvrtc_runs": 0, "cache_hits": 1}
    # another architecture or source is another binary
    assert nvrtc.cached_image(source, "twice", (8, 0)).path != first.path
    assert nvrtc.cached_image(source + "\n", "twice", (9, 0)).path != first.path


@needs_nvrtc
def test_background_compiles_give_the_synchronous_binaries_and_report_errors_at_finish(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSBOX_COMPILE_CACHE", str(tmp_path))
    sources = ['extern "C" __global__ void k%d(float* x) { x[threadIdx.x] += %d.0f; }' % (i, i) for i in range(6)]
    started = [nvrtc.cached_image(s, "k%d" % i, (9, 0), background=True) for i, s in enumerate(sources)]
    again = nvrtc.cached_image(sources[0], "k0", (9, 0), background=True)  # the same compile, not a second
    assert again.path == started[0].path and not again.from_cache
    nvrtc.finish()
    assert all(is_cubin(image.path) for image in started)
    background = [open(image.path, "rb").read() for image in started]
    assert background == [nvrtc.compile_source(s, "k%d" % i, 90) for i, s in enumerate(sources)]

    broken = nvrtc.cached_image('extern "C" __global__ void bad() { undeclared(); }', "bad", (9, 0), background=True)
    with pytest.raises(RuntimeError, match=r"(?s)compiling bad\.cu.*undeclared"):
        nvrtc.finish()
    assert not os.path.exists(broken.path)
    nvrtc.finish()  # nothing is left pending after an error


@needs_nvrtc
def test_a_device_newer_than_nvrtc_gets_ptx_for_the_driver_to_finish():
    newest = max(nvrtc.supported_archs())
    assert nvrtc.target_for((9, 0)) == ("cubin", 90)
    assert nvrtc.target_for((newest // 10 + 5, 0)) == ("ptx", newest)


@needs_nvrtc
@pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ninja") and gb._C._cuda.built_with_cuda()),
    reason="needs cmake, ninja and glassbox built with CUDA",
)
def test_the_wrapper_library_builds_and_registers_its_operators_at_the_cuda_key(pretend_sm90):
    _, _, generated = fused_on_cuda(chain, rand(300, 130), rand(130, seed=1))
    _, _, more = fused_on_cuda(wrapped_number, rand(6, 40))
    _, _, pointwise = fused_on_cuda(broadcast, rand(5, 1, 4), rand(3, 1, seed=1), rand(4, 3, seed=2))
    source = codegen_cpp.source_file(generated + more + pointwise)
    assert "#include <cuda.h>" in source and "GLASSBOX_LIBRARY_IMPL(compiled, CUDA, m) {" in source
    assert "GLASSBOX_LIBRARY_IMPL(compiled, CPU, m)" not in source
    kernels.build_and_load(source)
    kernel = generated[0][0]
    for k, _ in generated + more + pointwise:
        dump = gb.registry.dump(k.op_name)
        assert "CUDA: registered at" in dump and "main.cpp:" in dump
    op = getattr(gb.ops.compiled, kernel.name)
    with pytest.raises(RuntimeError, match="registered: CUDA"):
        op(rand(300, 130), rand(130))  # CPU tensors: no CPU kernel
    if not gb.cuda.is_available():  # the CUDA kernel itself refuses a layout it was not generated for
        return
    with pytest.raises(RuntimeError, match=r"input x must be a float32 CUDA tensor of shape \[300, 130\]"):
        op(rand(3, 3).to("cuda"), rand(130).to("cuda"))


def test_without_nvrtc_cuda_operators_stay_library_calls_with_one_warning(monkeypatch):
    monkeypatch.setattr(nvrtc, "unavailable_reason", lambda: "NVRTC (libnvrtc) could not be loaded (tried /nowhere)")
    monkeypatch.setattr(fusion, "_cuda_warned", [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, log, generated = fused_on_cuda(broadcast, rand(5, 1, 4), rand(3, 1, seed=1), rand(4, 3, seed=2))
    assert generated == []
    text = str(log)
    assert "mul            not fused: mul.Tensor: device cuda:0: no CUDA code generation (NVRTC (libnvrtc)" in text
    messages = [str(w.message) for w in caught if "gb.compile" in str(w.message)]
    assert messages == [
        "gb.compile: CUDA operators run as library calls, not fused: NVRTC (libnvrtc) could not be loaded "
        "(tried /nowhere)"
    ]


def test_a_missing_nvrtc_library_is_named():
    script = "from glassbox.compiler import nvrtc\nprint(nvrtc.unavailable_reason())\n"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), GLASSBOX_NVRTC="/nowhere/libnvrtc.so")
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "NVRTC (libnvrtc) could not be loaded (tried /nowhere/libnvrtc.so" in run.stdout


# --- on a GPU (pytest --device cuda): compiled equals eager -------------------------------------


def cuda(t):
    return t.to("cuda")


def assert_close(got, want, rtol, atol):
    got, want = np.asarray(got.cpu().to(gb.float32)), np.asarray(want.cpu().to(gb.float32))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# float16/bfloat16: the library rounds after every operator, a fused kernel once at the end (the
# atol covers what that difference reached on the CPU for these inputs, with a margin); sums over
# a row accumulate in another order than the library's
TOLERANCE = {"float32": (1e-5, 1e-4), "float64": (1e-10, 1e-10), "float16": (1e-2, 5e-3), "bfloat16": (2e-2, 8e-2)}


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_cuda_chain_broadcast_and_rows_equal_eager(dtype):
    rtol, atol = TOLERANCE[dtype]

    def make(*shape, seed=0):
        return cuda(rand(*shape, seed=seed)).to(getattr(gb, dtype))

    cases = [
        (chain, (make(300, 130), make(130, seed=1))),
        (broadcast, (make(5, 1, 4), make(3, 1, seed=1), make(4, 3, seed=2))),
        (rows, (make(64, 1000), make(1000, seed=1), make(1000, seed=2))),
    ]
    for fn, inputs in cases:
        compiled = gb.compile(fn)
        got, want = compiled(*inputs), fn(*inputs)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        assert compiled.kernels, fn.__name__
        for g, w in zip(got, want):
            assert str(g.device) == str(w.device) and g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape)
            assert_close(g, w, rtol, atol)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cuda_every_generated_formula_matches_the_library_kernel(dtype):
    from test_compile import every_formula

    x, y = (cuda(t) for t in formula_inputs(dtype))
    compiled = gb.compile(every_formula)
    got, want = compiled(x, y), every_formula(x, y)
    assert len(compiled.kernels) == 1
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-14)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(
            np.asarray(g.cpu()), np.asarray(w.cpu()), rtol=rtol, atol=atol, equal_nan=True, err_msg=str(k)
        )


@needs_gpu
def test_cuda_a_wrapped_python_number_and_a_large_tensor():
    x = cuda(rand(64, 1000))
    compiled = gb.compile(wrapped_number)
    assert_close(compiled(x), wrapped_number(x), 1e-6, 1e-6)
    big = cuda(rand(1 << 22))
    compiled = gb.compile(lambda t: gb.tanh(gb.sigmoid(t * 2.0 + 1.0) * t) - t)
    assert_close(compiled(big), gb.tanh(gb.sigmoid(big * 2.0 + 1.0) * big) - big, 1e-5, 1e-6)
    assert len(compiled.kernels) == 1


@needs_gpu
def test_cuda_kernel_is_in_the_trace_and_the_registry_and_the_debug_files(tmp_path):
    inputs = (cuda(rand(300, 130)), cuda(rand(130, seed=1)))
    compiled = gb.compile(chain, debug_dir=str(tmp_path))
    compiled(*inputs)
    name = compiled.kernels[0]
    assert "CUDA: registered at" in gb.registry.dump(name)
    with gb.trace() as t:
        compiled(*inputs)
    assert [(e.op, e.key) for e in t.events if e.depth == 0] == [(name, "CUDA")]
    cu = open(tmp_path / "output_code.cu").read()
    assert 'extern "C" __global__' in cu and name.split("::")[1] in cu
    assert ".entry %s(" % name.split("::")[1] in open(tmp_path / "output_code.ptx").read()
    assert "launches %s" % name.split("::")[1] in open(tmp_path / "output_code.cpp").read()
    assert "cubin for sm_" in str(compiled.fusion_log)


@needs_gpu
def test_cuda_a_second_process_skips_nvrtc_and_the_build(tmp_path):
    inputs = {"x": rand(300, 130), "b": rand(130, seed=1)}
    gb.save(inputs, str(tmp_path / "inputs.gb"))
    script = (
        "import json, numpy as np, glassbox as gb\n"
        "from glassbox.compiler import nvrtc\n"
        "from test_compile_cuda import chain\n"
        "inputs = gb.load(%r)\n"
        "compiled = gb.compile(chain)\n"
        "relu, total = compiled(inputs['x'].to('cuda'), inputs['b'].to('cuda'))\n"
        "np.save(%r, np.asarray(total.cpu()))\n"
        "print(json.dumps([compiled.kernels, compiled.compilations[0].library_path, nvrtc.stats]))\n"
    ) % (str(tmp_path / "inputs.gb"), str(tmp_path / "total.npy"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), GLASSBOX_COMPILE_CACHE=str(tmp_path / "cache"))
    runs = []
    for _ in range(2):
        run = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=os.path.dirname(__file__)
        )
        assert run.returncode == 0, run.stderr
        runs.append(json.loads(run.stdout.strip().splitlines()[-1]))
    (kernels1, library1, stats1), (kernels2, library2, stats2) = runs
    assert stats1["nvrtc_runs"] == 1 and stats2 == {"nvrtc_runs": 0, "cache_hits": 1}
    assert kernels1 == kernels2 and library1 == library2
    want = chain(cuda(inputs["x"]), cuda(inputs["b"]))[1]
    np.testing.assert_allclose(np.load(tmp_path / "total.npy"), np.asarray(want.cpu()), rtol=1e-5, atol=1e-4)


def functors_missing_from(prelude):
    """{operator: [engine functors its C++ formula names that the device prelude does not define]}."""
    import re

    from glassbox.compiler import codegen_cpp

    defined = set(re.findall(r"GB_(?:UNARY|GRAD)\((\w+),", prelude))
    defined |= set(re.findall(r"struct (\w+) \{", prelude))
    missing = {}
    for op, formula in codegen_cpp.POINTWISE.items():
        used = set()
        # Argument lists for every kind of formula: tensors, numbers, and gelu's approximate="tanh".
        for args in (
            ["a", "b", 0.5, 0.5],
            ["a", 2.0, 0.5, 0.5],
            ["a", "b", "tanh"],
            ["a", "tanh", "tanh", 0.5],
            ["a", "b", "none"],
        ):
            try:
                used |= set(re.findall(r"F::(\w+)", formula(args, "float")))
            except (TypeError, IndexError, ValueError):
                continue
        if used - defined:
            missing[op] = sorted(used - defined)
    return missing


def test_every_formula_fused_on_cuda_has_its_functor_in_the_device_prelude():
    """The CUDA printer reuses the C++ formulas: an engine functor the NVRTC prelude lacks would fail
    in NVRTC at run time. The gradient formulas (backward_pointwise) are checked with the rest."""
    import re

    from glassbox.compiler import backward_pointwise, cuda_prelude

    assert functors_missing_from(cuda_prelude.DEVICE_PRELUDE) == {}
    # the check sees a missing functor: each gradient functor taken out of the prelude is reported
    for name, op in [
        ("SigmoidBackward", "glassbox::sigmoid_backward"),
        ("GeluTanhBackward", "glassbox::gelu_backward"),
        ("GeluErfBackward", "glassbox::gelu_backward"),
        ("ThresholdBackward", "glassbox::threshold_backward"),
    ]:
        assert op in backward_pointwise.GRADIENT_FORMULAS
        without = re.sub(r"GB_GRAD\(%s,|struct %s \{" % (name, name), "GB_GRAD(Removed,", cuda_prelude.DEVICE_PRELUDE)
        assert without != cuda_prelude.DEVICE_PRELUDE
        assert name in functors_missing_from(without).get(op, []), name


def test_gradient_formulas_fuse_on_cuda_as_on_the_cpu(monkeypatch):
    from types import SimpleNamespace

    from glassbox.compiler import backward_pointwise, fusion

    monkeypatch.setattr(fusion, "_cuda_unavailable", lambda: None)  # as on a GPU machine
    for device in ("cuda:0", "cpu"):
        value = SimpleNamespace(name="v", device=device, shape=(4,), dtype="float32", numel=4, requires_grad=False)
        for op in backward_pointwise.GRADIENT_FORMULAS:
            node = SimpleNamespace(op=op, outputs=[value], input_values=lambda value=value: [value, value])
            assert fusion.why_not_fusible(node, grad_enabled=False) is None, op


G = gb.ops.glassbox


def gradient_chain(g, x):
    """The element-wise gradient operators as a backward graph chains them (relu, tanh, sigmoid,
    silu and both gelus of one input, the results combined)."""
    t, s = gb.tanh(x), gb.sigmoid(x)
    a = G.threshold_backward.default(g, x, 0.0) + G.tanh_backward.default(g, t) * 0.5
    b = G.sigmoid_backward.default(a, s) - G.silu_backward.default(g, x)
    return G.gelu_backward.default(b, x) + G.gelu_backward.default(g, x, approximate="tanh")


def backward_step(x, w):
    return (F.gelu(x * w).tanh() * gb.sigmoid(x)).relu().sum()


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_formulas_run_by_the_emulation_equal_the_library(pretend_sm90, tmp_path, dtype):
    """A group of every gradient formula, generated as CUDA and run by the emulation, with special
    values (+-0, +-inf, NaN, tiny) in the saved input, against the library's CPU kernels."""
    x, _ = formula_inputs(dtype)
    g = gb.from_numpy(np.random.default_rng(9).standard_normal((8, 16)).astype(dtype))
    graph, _, generated = fused_on_cuda(gradient_chain, g, x)
    assert len(generated) == 1
    kernel = generated[0][0]
    members = {m.op for m in kernel.members}
    assert set(G_FORMULAS()) <= members, members
    for functor in ("F::SigmoidBackward{}", "F::GeluTanhBackward{}", "F::ThresholdBackward::Fn<"):
        assert functor in kernel.cuda_source
    env = {}
    decompositions.interpret(graph, [g, x], lambda node, args: decompositions.call_op(node.op, args), env)
    got = cuda_emulation.run(kernel, [env[id(v)] for v in kernel.inputs], str(tmp_path))
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-14)
    for r, v in zip(got, kernel.outputs):
        np.testing.assert_allclose(r, np.asarray(env[id(v)]), rtol=rtol, atol=atol, equal_nan=True, err_msg=v.name)


def G_FORMULAS():
    from glassbox.compiler import backward_pointwise

    return backward_pointwise.GRADIENT_FORMULAS


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
def test_a_captured_backward_graphs_groups_run_by_the_emulation_equal_eager(pretend_sm90, tmp_path):
    """The backward graph gb.compile captures for a training function, moved to cuda:0: its fused
    groups (gradient formulas included) generated as CUDA and run by the emulation, fed with the
    values of the same graph run by the library, give the library's results."""
    from glassbox.compiler import training

    x = rand(6, 40).requires_grad_(True)
    w = rand(40, seed=1).requires_grad_(True)
    compiled = gb.compile(backward_step)
    compiled(x, w).backward()
    backward = compiled.compilations[-1].backward_lowered.graph
    assert isinstance(compiled.compilations[-1], training.TrainingCompilation)
    # the backward's inputs: the forward's values (x, w and the saved ones) and the loss's gradient (1)
    forward = compiled.compilations[-1].decomposed
    _, forward_env, _ = training.replay_with_autograd(forward, [x, w])
    by_name = {
        v.name: forward_env[id(v)].detach() for v in forward.inputs + [o for n in forward.nodes for o in n.outputs]
    }
    inputs = [by_name[v.name] if v.name in by_name else gb.ones([]) for v in backward.inputs]
    env = {}
    decompositions.interpret(backward, inputs, lambda node, args: decompositions.call_op(node.op, args), env)
    for v in backward.inputs + [v for n in backward.nodes for v in n.input_values() + n.outputs]:
        if not (v.shape == () and v.kind == "constant"):
            v.device = "cuda:0"
    groups, _ = fusion.plan(backward, False)
    users, outputs = backward.users(), {id(v) for v in backward.output_values()}
    generated = [codegen_cpp.generate(grp, users, outputs) for grp in groups]
    assert generated and any(m.op in G_FORMULAS() for kernel, _ in generated for m in kernel.members), (
        "no gradient formula in a CUDA group"
    )
    for kernel, _ in generated:
        got = cuda_emulation.run(kernel, [env[id(v)] for v in kernel.inputs], str(tmp_path))
        for r, v in zip(got, kernel.outputs):
            np.testing.assert_allclose(r, np.asarray(env[id(v)]), rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=v.name)


def mean_loss_step(x, w):
    return (F.gelu(x * w) * gb.sigmoid(x)).mean()


@needs_gpu
def test_cuda_a_compiled_training_step_with_a_mean_loss_gives_eagers_gradients():
    """The loss's gradient enters the backward graph as a 0-d CUDA tensor: the capture must see it
    on the device (not as a host scalar, which the kernel would then refuse)."""
    grads = []
    for fn in (mean_loss_step, gb.compile(mean_loss_step)):
        x = cuda(rand(64, 40)).requires_grad_(True)
        w = cuda(rand(40, seed=1)).requires_grad_(True)
        fn(x, w).backward()
        grads.append([np.asarray(t.grad.cpu()) for t in (x, w)])
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
