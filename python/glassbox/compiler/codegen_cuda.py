"""CUDA for fused groups whose tensors are on a GPU: one __global__ function per group, compiled by
NVRTC (nvrtc.py) for the device's architecture, and a C++ wrapper registered as the operator
compiled::fused_<ops>_<hash> at the CUDA key, which loads the binary with the driver API and
launches it on glassbox's current stream.

The plan is codegen_cpp's (inputs, outputs, the per-element lines of the chain, the passes of a row
group); only the printing differs:
  * a pointwise group is a grid-stride loop over the flat index, each thread taking 4 elements a
    block apart per step (their loads issued together);
  * a row group (last-dim reductions) is one warp per row for rows of up to WARP_ROW_MAX
    elements (ROWS_PER_BLOCK rows a block), one block per row for longer ones: each reduction is a
    pass in which the threads stride over the row, then a warp reduction (shuffles), or for a block
    a block reduction (warp shuffles, then one value per warp through shared memory), hands the
    result to every thread; the element-wise values a later pass needs are recomputed (the row is
    re-read from L1/L2, not written out). A warp per row needs no barrier and no shared memory.
Element formulas are those of the engine's functors (engine/ops/pointwise_functors.h), written in
the device prelude (cuda_prelude.py) for NVRTC, which compiles without the engine's headers. float16 and
bfloat16 are loaded into float, computed in float through the whole chain, and rounded once when
stored (the library rounds after every operator)."""

import hashlib
import math
import os

from . import codegen_cpp, nvrtc
from .codegen_cpp import POINTWISE, Kernel, _where
from .cuda_prelude import DEVICE_PRELUDE, HOST_INCLUDES, HOST_PRELUDE  # noqa: F401 (read through this module)

BLOCK = 256  # threads per block of a pointwise kernel
UNROLL = 4  # elements per thread and step of a pointwise kernel: 4 loads in flight per input
MAX_BLOCKS = 65536 * 8  # beyond this, the grid-stride loop gives each thread more elements
WARP_ROW_MAX = 1024  # rows up to this long take one warp each
ROWS_PER_BLOCK = 8  # warps (rows) per block of a warp-per-row kernel
# Values a lane may keep for later passes (slots per value x values): a softmax over 256 keeps its
# exponentials in 8 registers a lane; beyond the budget a later pass recomputes from L1/L2.
REGISTER_ROW_BUDGET = 64

# dtype -> (storage type in the kernel, compute type, glassbox::ScalarType)
CUDA_TYPES = {
    "float32": ("float", "float", "Float32"),
    "float64": ("double", "double", "Float64"),
    "float16": ("gb::half", "float", "Float16"),
    "bfloat16": ("gb::bfloat16", "float", "BFloat16"),
}
# 0-d inputs of another dtype (read converted to the compute type): storage type, ScalarType
OTHER_STORAGE = {"int64": ("int64_t", "Int64"), "int32": ("int", "Int32"), "bool": ("bool", "Bool")}
# 0-d CPU inputs (a Python number the binding wrapped): read on the host, passed by value
HOST_SCALARS = {"float32": "Float32", "float64": "Float64", "int64": "Int64", "int32": "Int32", "bool": "Bool"}


def _dtype(v):
    return str(v.dtype).rsplit(".", 1)[-1]


def device_index(device):
    """ "cuda:1" -> 1; "cuda" -> the current device."""
    if ":" in device:
        return int(device.rsplit(":", 1)[1])
    from .. import cuda

    return cuda.current_device()


def is_cuda(group):
    return any(v.device.startswith("cuda") for m in group.members for v in m.outputs)


def _is_host_scalar(v):
    return not v.device.startswith("cuda")


def _formula(m, names, C):
    """The member's expression in the compute type (codegen_cpp's table; std:: names are the
    device prelude's gb:: ones)."""
    a = [names(x) if isinstance(x, codegen_cpp.Value) else x for x in m.args]
    return POINTWISE[m.op](a, C).replace("std::", "gb::")


def _node_line(m, names, C, target):
    from .printer import call_text

    out = m.outputs[0]
    return "const %s %s = %s;  // %s = %s  %s" % (
        C,
        target,
        _formula(m, names, C),
        out.name,
        call_text(m.op, m.args),
        _where(m),
    )


def _load(v, shape, index, C):
    if _is_host_scalar(v):
        return "const %s in_%s = static_cast<%s>(s_%s);  // input %s: %s (a number read on the host)" % (
            C,
            v.name,
            C,
            v.name,
            v.name,
            v.type_text(),
        )
    read = "p_%s[%s]" % (v.name, codegen_cpp._index_expression(v, shape, index))
    return "const %s in_%s = gb::load<%s>(%s);  // input %s: %s" % (C, v.name, C, read, v.name, v.type_text())


def _pointwise_body(members, inputs, outputs, shape, C, T, index_type):
    """Each thread takes UNROLL elements a block apart (a warp's accesses stay contiguous): first
    it loads all of them, so that their loads are in flight together, then computes and stores."""
    names = {id(v): "in_" + v.name for v in inputs}
    loaded = [v for v in inputs if not _is_host_scalar(v)]
    body = ["%s a_%s[%d];" % (C, v.name, UNROLL) for v in loaded]
    body += ["#pragma unroll", "for (int u = 0; u < %d; ++u) {" % UNROLL]
    body += ["  const %s i = base + u * (%s)blockDim.x;" % (index_type, index_type), "  if (i < n) {"]
    for v in loaded:
        line = _load(v, shape, "i", C).replace("const %s in_%s = " % (C, v.name), "a_%s[u] = " % v.name, 1)
        body.append("    " + line)
    body += ["  }", "}", "#pragma unroll", "for (int u = 0; u < %d; ++u) {" % UNROLL]
    step = ["const %s i = base + u * (%s)blockDim.x;" % (index_type, index_type), "if (i >= n) break;"]
    step += ["const %s in_%s = a_%s[u];" % (C, v.name, v.name) for v in loaded]
    step += [_load(v, shape, "i", C) for v in inputs if _is_host_scalar(v)]
    for m in members:
        names[id(m.outputs[0])] = "v_" + m.outputs[0].name
        step.append(_node_line(m, lambda x: names[id(x)], C, names[id(m.outputs[0])]))
    step += ["o_%s[i] = gb::store<%s>(%s);" % (v.name, T, names[id(v)]) for v in outputs]
    body += ["  " + x for x in step] + ["}"]
    n = math.prod(shape)
    return (
        [
            "const %s n = %d;" % (index_type, n),
            "for (%s base = blockIdx.x * (%s)blockDim.x * %d + threadIdx.x; base < n; base += (%s)gridDim.x * blockDim.x * %d) {"
            % (index_type, index_type, UNROLL, index_type, UNROLL),
        ]
        + ["  " + b for b in body]
        + ["}"]
    )


# reduction kind -> (initial value, block combine, result from the total {a})
_REDUCE = {
    "sum": ("{C}(0)", "gb::Sum", "{a}"),
    "mean": ("{C}(0)", "gb::Sum", "{a} / {C}({K})"),
    "amax": ("-gb::numeric_limits<{C}>::infinity()", "gb::Max", "{a}"),
}


def _row_body(group, inputs, outputs, C, T, notes, index_type):
    """One warp per row (rows up to WARP_ROW_MAX) or one block per row: per reduction, a strided
    pass over the row and a warp or block reduction; per-row operators in every thread; a last pass
    writing the full-size results. A warp whose row fits its registers (register_row) keeps the
    values a later pass reads in per-lane arrays; otherwise a later pass recomputes them."""
    K = group.shape[-1]
    if row_launch(K, 1)[0]:
        body, kept = _row_passes(group, inputs, outputs, C, T, index_type, keep=None)
        per_lane = -(-K // 32) * len(kept) * (2 if C == "double" else 1)
        if kept and per_lane <= REGISTER_ROW_BUDGET:
            body, _ = _row_passes(group, inputs, outputs, C, T, index_type, keep=kept)
            notes.append(
                "keeps %s in registers between passes (%d values a lane)" % (", ".join(kept.values()), per_lane)
            )
            return body
    body, again = _row_passes(group, inputs, outputs, C, T, index_type, keep=False)
    if again:
        notes.append("recomputes %s in each pass over the row that needs them (the row stays in L1/L2)" % again)
    return body


def _row_passes(group, inputs, outputs, C, T, index_type, keep):
    """The row kernel's body. keep=False: later passes recompute (and reload) what they need.
    keep=None: a dry run in which every per-element value of an earlier pass is kept; returns the
    body and the kept values a later pass reads ({id: name}). keep={id: name}: those are kept in
    arrays of one slot per element a lane visits (the passes fully unrolled, so they are registers)."""
    from .fusion import REDUCTIONS
    from .printer import call_text

    shape = group.shape
    K = shape[-1]
    rows = math.prod(shape) // K
    made_by = {id(v): m for m in group.members for v in m.outputs}
    row_value = {}
    external = {id(v) for v in inputs}
    passes = {}
    kept, read = {}, {}  # values of earlier passes held in arrays (id -> name); those read later
    by_warp = row_launch(K, rows)[0]
    in_registers = keep is not False and by_warp
    slots = -(-K // 32)
    if by_warp:
        # a warp past the last row works on the last row too (every lane must join the shuffles)
        # and stores nothing
        body = [
            "const %s warp_row = blockIdx.x * %d + threadIdx.x / 32;" % (index_type, ROWS_PER_BLOCK),
            "const bool live = warp_row < %d;" % rows,
            "const %s row = live ? warp_row : %d;" % (index_type, rows - 1),
            "const int lane = threadIdx.x % 32;",
        ]
        first, stride, reduce, leader = "lane", "32", "gb::warp_reduce<%s>(part_%s)", "live && lane == 0"
    else:
        body = ["const %s row = blockIdx.x;" % index_type, "__shared__ %s scratch[32];" % C]
        first, stride, reduce, leader = (
            "threadIdx.x",
            "blockDim.x",
            "gb::block_reduce<%s>(part_%s, scratch)",
            "threadIdx.x == 0",
        )
    if in_registers and keep:
        body += [
            "%s k_%s[%d];  // %s, one slot per element of the row this lane visits" % (C, n, slots, n)
            for n in keep.values()
        ]

    def local(x):
        return ("in_" if id(x) in external else "v_") + x.name

    def name(x):
        if id(x) in row_value:
            return row_value[id(x)]
        if id(x) in kept:
            read[id(x)] = kept[id(x)]
            return "k_%s[s]" % kept[id(x)]
        return local(x)

    def strided_pass(targets, tail):
        needed, loads = codegen_cpp.pass_work(group, targets, made_by, external, passes, known=(row_value, kept))
        loads = [v for v in loads if id(v) not in kept]
        lines = ["const %s i = row * %d + j;" % (index_type, K)]
        lines += [_load(v, shape, "i", C) for v in loads]
        lines += [_node_line(m, name, C, "v_" + m.outputs[0].name) for m in needed]
        values = {"x%d" % k: name(v) for k, v in enumerate(targets)}
        lines += [t.format(**values) for t in tail]
        if not in_registers:
            return (
                ["for (%s j = %s; j < %d; j += %s) {" % (index_type, first, K, stride)]
                + ["  " + x for x in lines]
                + ["}"]
            )
        fresh = loads + [m.outputs[0] for m in needed]
        if keep:
            lines += ["k_%s[s] = %s;" % (keep[id(v)], local(v)) for v in fresh if id(v) in keep]
        kept.update({id(v): v.name for v in fresh})
        if K % 32:
            lines = ["if (j < %d) {" % K] + ["  " + x for x in lines] + ["}"]
        return (
            ["#pragma unroll", "for (int s = 0; s < %d; ++s) {" % slots, "  const %s j = lane + 32 * s;" % index_type]
            + ["  " + x for x in lines]
            + ["}"]
        )

    for m in group.members:
        out = m.outputs[0]
        if m.op in REDUCTIONS:
            init, combine, result = _REDUCE[REDUCTIONS[m.op]]
            body.append("%s part_%s = %s;" % (C, out.name, init.format(C=C)))
            step = "part_{n} = {op}{{{{}}}}(part_{n}, {{x0}});  // {n} = {call}  {where}".format(
                n=out.name, op=combine, call=call_text(m.op, m.args), where=_where(m)
            )
            body += strided_pass([m.args[0]], [step])
            total = reduce % (combine, out.name)
            body.append("const %s r_%s = %s;" % (C, out.name, result.format(a=total, C=C, K=K)))
            row_value[id(out)] = "r_" + out.name
        elif tuple(out.shape) != tuple(shape):  # a per-row operator, computed by every thread

            def row_name(x, m=m):
                if id(x) in row_value:
                    return row_value[id(x)]
                if _is_host_scalar(x):
                    return "static_cast<%s>(s_%s)" % (C, x.name)
                return "gb::load<%s>(p_%s[%s])" % (
                    C,
                    x.name,
                    codegen_cpp._index_expression(x, tuple(m.outputs[0].shape), "row"),
                )

            body.append(_node_line(m, row_name, C, "r_" + out.name))
            row_value[id(out)] = "r_" + out.name
    full_outputs = [v for v in outputs if id(v) not in row_value]
    if full_outputs:
        stores = ["o_%s[i] = gb::store<%s>({x%d});" % (v.name, T, k) for k, v in enumerate(full_outputs)]
        if by_warp:
            stores = ["if (live) {{"] + ["  " + x for x in stores] + ["}}"]  # (format templates)
        body += strided_pass(full_outputs, stores)
    row_outputs = [v for v in outputs if id(v) in row_value]
    if row_outputs:
        body.append("if (%s) {" % leader)
        body += ["  o_%s[row] = gb::store<%s>(%s);" % (v.name, T, row_value[id(v)]) for v in row_outputs]
        body.append("}")
    if keep is None:
        return body, read
    return body, ", ".join(m.outputs[0].name for m in group.members if passes.get(id(m), 0) > 1)


def row_block_size(K):
    """Threads per row: a power of two from 32 to 512, about 4 elements each."""
    threads = 32
    while threads < 512 and threads * 4 < K:
        threads *= 2
    return threads


def row_launch(K, rows):
    """(a warp per row?, blocks, threads, how the kernel's header says it) for rows of K elements."""
    if K <= WARP_ROW_MAX:
        return (
            True,
            -(-rows // ROWS_PER_BLOCK),
            32 * ROWS_PER_BLOCK,
            "one warp per row, %d rows a block" % ROWS_PER_BLOCK,
        )
    threads = row_block_size(K)
    return False, rows, threads, "one block of %d threads per row" % threads


def generate(group, graph_users, graph_outputs, device_cc=None, background=False):
    """The Kernel of a fusion.Group on a GPU (as codegen_cpp.generate); device_cc: the compute
    capability to compile for, by default that of the group's device. Runs NVRTC (or finds its
    binary in the cache); background=True leaves NVRTC running (nvrtc.finish waits for it)."""
    from .printer import call_text

    members = group.members
    member_ids = {id(m) for m in members}
    produced = {id(v) for m in members for v in m.outputs}
    inputs, seen = [], set()
    for m in members:
        for v in m.input_values():
            if id(v) not in produced and id(v) not in seen:
                seen.add(id(v))
                inputs.append(v)
    outputs = [
        v
        for m in members
        for v in m.outputs
        if id(v) in graph_outputs or any(id(u) not in member_ids for u in graph_users.get(id(v), []))
    ]
    device = members[0].outputs[0].device
    dtype = _dtype(members[0].outputs[0])
    T, C, scalar_type = CUDA_TYPES[dtype]
    shape = tuple(group.shape)
    n = math.prod(shape)
    largest = max([n] + [_extent(v) for v in inputs + outputs])
    # 32-bit index arithmetic (much cheaper on a GPU) when no index, nor a grid-stride step past
    # the end, reaches 2^31
    index_type = "int" if largest + MAX_BLOCKS * BLOCK * UNROLL < 2**31 else "int64_t"
    notes = []
    if group.reductions:
        body = _row_body(group, inputs, outputs, C, T, notes, index_type)
        _, blocks, threads, launch = row_launch(shape[-1], n // shape[-1])
    else:
        body = _pointwise_body(members, inputs, outputs, shape, C, T, index_type)
        threads, blocks = BLOCK, min(-(-n // (BLOCK * UNROLL)), MAX_BLOCKS)
        launch = "%d elements per thread and step, a block apart" % UNROLL

    params = []
    for v in inputs:
        params.append(
            "double s_%s" % v.name if _is_host_scalar(v) else "const %s* __restrict__ p_%s" % (_storage(v), v.name)
        )
    params += ["%s* __restrict__ o_%s" % (T, v.name) for v in outputs]
    lines = ['extern "C" __global__ void __launch_bounds__(%d) KERNEL(%s) {' % (threads, ", ".join(params))]
    lines += ["  " + b for b in body] + ["}"]
    text = "\n".join(lines)
    ops_in_name = []
    for m in members:
        base = m.op.split("::", 1)[1].split(".", 1)[0]
        if base not in ops_in_name:
            ops_in_name.append(base)
    index = device_index(device)
    cc = device_cc or nvrtc.device_arch(index)
    # the architecture is part of the name: a process with GPUs of two kinds registers one operator each
    digest = hashlib.sha1(("%s\nsm_%d%d" % (text, *cc)).encode()).hexdigest()[:8]
    name = "fused_%s_%s" % ("_".join(ops_in_name[:5]), digest)
    text = text.replace("KERNEL", name)
    header = [
        "// %s: %s kernel over %s, %d operators, %s"
        % (
            name,
            group.kind,
            list(shape),
            len(members),
            launch,
        )
    ]
    for m in members:
        header.append("//   %s = %s  %s" % (m.outputs[0].name, call_text(m.op, m.args), _where(m)))
    cuda_source = "\n".join(header) + "\n" + text + "\n"
    image = nvrtc.cached_image(DEVICE_PRELUDE + "\n" + cuda_source, name, cc, background=background)
    notes.append(
        "%s for %s_%d by NVRTC %d.%d%s: %s"
        % (
            image.kind,
            "sm" if image.kind == "cubin" else "compute",
            image.arch,
            *nvrtc.version(),
            " (from the cache)" if image.from_cache else "",
            image.path,
        )
    )
    schema = "%s(%s) -> %s" % (
        name,
        ", ".join("Tensor %s" % v.name for v in inputs),
        "Tensor" if len(outputs) == 1 else "(%s)" % ", ".join(["Tensor"] * len(outputs)),
    )
    wrapper = _wrapper(name, inputs, outputs, scalar_type, blocks, threads, image)
    kernel = Kernel("compiled::" + name, inputs, outputs, wrapper, members, notes, "cuda", cuda_source, image)
    return kernel, schema


def _storage(v):
    return CUDA_TYPES[_dtype(v)][0] if _dtype(v) in CUDA_TYPES else OTHER_STORAGE[_dtype(v)][0]


def _scalar_type(v):
    return CUDA_TYPES[_dtype(v)][2] if _dtype(v) in CUDA_TYPES else OTHER_STORAGE[_dtype(v)][1]


def _extent(v):
    """One past the largest element offset v's layout reaches."""
    return 1 + sum((s - 1) * abs(st) for s, st in zip(v.shape, v.stride))


def _wrapper(name, inputs, outputs, scalar_type, blocks, threads, image):
    """The C++ operator: checks the inputs' layouts, allocates the outputs on the inputs' device,
    launches the kernel on the current stream."""
    lines = [
        "// %s: launches %s (output_code.cu) from %s" % (name, name, os.path.basename(image.path)),
        "glassbox::Tensor%s %s(%s) {"
        % (
            "" if len(outputs) == 1 else "s",
            name,
            ", ".join("const glassbox::Tensor& t_%s" % v.name for v in inputs),
        ),
    ]
    if len(outputs) != 1:
        lines[1] = "std::tuple<%s> %s(%s) {" % (
            ", ".join(["glassbox::Tensor"] * len(outputs)),
            name,
            ", ".join("const glassbox::Tensor& t_%s" % v.name for v in inputs),
        )
    lines.append("  static CudaKernel kernel(%s, %s);" % (_c_string(name), _c_string(image.path)))
    lines.append("  int device = -1;")
    for v in inputs:
        if _is_host_scalar(v):
            lines.append(
                '  double s_%s = host_scalar(t_%s, "%s", "%s", glassbox::ScalarType::%s);'
                % (v.name, v.name, name, v.name, HOST_SCALARS[_dtype(v)])
            )
        else:
            lines.append(
                '  check_cuda_input(t_%s, "%s", "%s", {%s}, {%s}, glassbox::ScalarType::%s, device);'
                % (
                    v.name,
                    name,
                    v.name,
                    ", ".join(map(str, v.shape)),
                    ", ".join(map(str, v.stride)),
                    _scalar_type(v),
                )
            )
            lines.append("  const void* p_%s = t_%s.data_ptr();" % (v.name, v.name))
    lines.append('  GB_CHECK(device >= 0, "compiled::%s: no input is a CUDA tensor");' % name)
    lines.append("  glassbox::cuda::DeviceGuard guard(device);")
    for v in outputs:
        lines.append(
            "  glassbox::Tensor out_%s = glassbox::empty({%s}, glassbox::ScalarType::%s, "
            "glassbox::Device{glassbox::DeviceType::CUDA, static_cast<int8_t>(device)});"
            % (v.name, ", ".join(map(str, v.shape)), scalar_type)
        )
        lines.append("  void* o_%s = out_%s.data_ptr();" % (v.name, v.name))
    args = ["&%s_%s" % ("s" if _is_host_scalar(v) else "p", v.name) for v in inputs] + [
        "&o_%s" % v.name for v in outputs
    ]
    lines.append("  void* args[] = {%s};" % ", ".join(args))
    lines.append("  kernel.launch(device, %d, %d, args);" % (blocks, threads))
    if len(outputs) == 1:
        lines.append("  return out_%s;" % outputs[0].name)
    else:
        lines.append("  return {%s};" % ", ".join("out_" + v.name for v in outputs))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _c_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def cuda_include_dir():
    return nvrtc.include_dir()


def source_text(kernels):
    """output_code.cu: the device prelude and every CUDA kernel of a compilation, or None."""
    cuda = [k for k in kernels if getattr(k, "device", "cpu") == "cuda"]
    if not cuda:
        return None
    parts = [DEVICE_PRELUDE]
    for k in cuda:
        parts.append(
            "// compiled by NVRTC into %s (%s, sm/compute_%d)\n%s"
            % (k.image.path, k.image.kind, k.image.arch, k.cuda_source)
        )
    return "\n".join(parts)


def ptx_text(kernels):
    """output_code.ptx: NVRTC's PTX of each CUDA kernel (for the architecture its binary is for;
    cached like the binaries), or None."""
    cuda = [k for k in kernels if getattr(k, "device", "cpu") == "cuda"]
    if not cuda:
        return None
    parts = []
    for k in cuda:
        image = nvrtc.cached_image(DEVICE_PRELUDE + "\n" + k.cuda_source, k.name, divmod(k.image.arch, 10), "ptx")
        with open(image.path, "rb") as f:
            parts.append("// %s (%s)\n%s" % (k.name, image.path, f.read().decode(errors="replace")))
    return "\n".join(parts)
