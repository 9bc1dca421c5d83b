"""C++ for fused groups: one loop per group, registered as an operator compiled::fused_<ops>_<hash>.

Each element formula is the engine's own functor (engine/ops/pointwise_functors.h: Sigmoid, Exp,
GeluErf, ...) where one exists, so a fused kernel computes what the library kernels compute. Shapes
and strides are those the guards hold, written into the code as constants: an input whose layout
differs from the iteration space (broadcast, transposed) is read through index arithmetic on the
flat loop index. Every generated line names the graph node and the user's line it came from. The
loop is split over glassbox's own thread pool (glassbox::parallel_for), as the library kernels are.

A group on a GPU goes to codegen_cuda, which prints the same plan as CUDA for NVRTC and a C++
wrapper registered at the CUDA key; source_file puts both kinds of wrapper into one library."""

import hashlib
import math
import os
from dataclasses import dataclass, field
from typing import List

from .graph import Value

_UNARY_FUNCTORS = {
    "abs": "Abs",
    "neg": "Neg",
    "sqrt": "Sqrt",
    "rsqrt": "Rsqrt",
    "exp": "Exp",
    "log": "Log",
    "log1p": "Log1p",
    "expm1": "Expm1",
    "sin": "Sin",
    "cos": "Cos",
    "tanh": "Tanh",
    "sigmoid": "Sigmoid",
    "silu": "Silu",
    "erf": "Erf",
    "reciprocal": "Recip",
    "relu": "Relu",
    "floor": "Floor",
    "ceil": "Ceil",
    "trunc": "Trunc",
}


def literal(c, ctype):
    c = float(c)
    if math.isnan(c):
        return "std::numeric_limits<%s>::quiet_NaN()" % ctype
    if math.isinf(c):
        return "%sstd::numeric_limits<%s>::infinity()" % ("-" if c < 0 else "", ctype)
    return "%s(%s)" % (ctype, repr(c))


def _scaled(a, alpha, C):
    return a if alpha == 1 else "%s * %s" % (literal(alpha, C), a)


def _pow(a, e, C):
    if e == 2:
        return "(%s * %s)" % (a[0], a[0])
    if e == 1:
        return a[0]
    if e == 0.5:
        return "std::sqrt(%s)" % a[0]
    if e == -1:
        return "(%s(1) / %s)" % (C, a[0])
    return "std::pow(%s, %s)" % (a[0], literal(e, C))


# operator -> expression(a, C): a holds the arguments in schema order (a Value as its C++ variable,
# anything else as given), C the compute type.
POINTWISE = {
    "glassbox::add.Tensor": lambda a, C: "(%s + %s)" % (a[0], _scaled(a[1], a[2], C)),
    "glassbox::sub.Tensor": lambda a, C: "(%s - %s)" % (a[0], _scaled(a[1], a[2], C)),
    "glassbox::mul.Tensor": lambda a, C: "(%s * %s)" % (a[0], a[1]),
    "glassbox::div.Tensor": lambda a, C: "(%s / %s)" % (a[0], a[1]),
    "glassbox::add.Scalar": lambda a, C: "(%s + %s)" % (a[0], literal(a[1] * a[2], C)),
    "glassbox::sub.Scalar": lambda a, C: "(%s - %s)" % (a[0], literal(a[1] * a[2], C)),
    "glassbox::mul.Scalar": lambda a, C: "(%s * %s)" % (a[0], literal(a[1], C)),
    "glassbox::div.Scalar": lambda a, C: "(%s / %s)" % (a[0], literal(a[1], C)),
    "glassbox::maximum": lambda a, C: "F::Maximum{}(%s, %s)" % (a[0], a[1]),
    "glassbox::minimum": lambda a, C: "F::Minimum{}(%s, %s)" % (a[0], a[1]),
    "glassbox::pow.Tensor_Scalar": lambda a, C: _pow(a, a[1], C),
    "glassbox::gelu": lambda a, C: "unary<F::%s>(%s)" % ("GeluTanh" if a[1] == "tanh" else "GeluErf", a[0]),
    # the bool mask (condition) is read converted to the compute type (true as 1)
    "glassbox::masked_fill.Scalar": lambda a, C: "(%s != %s(0) ? %s : %s)" % (a[1], C, literal(a[2], C), a[0]),
    "glassbox::where.self": lambda a, C: "(%s != %s(0) ? %s : %s)" % (a[0], C, a[1], a[2]),
}
# operator -> the argument positions that may be a bool tensor of any shape that broadcasts (a mask),
# whatever the dtype of the values the operator computes
MASK_ARGUMENTS = {"glassbox::masked_fill.Scalar": (1,), "glassbox::where.self": (0,)}
for _name, _functor in _UNARY_FUNCTORS.items():
    POINTWISE["glassbox::%s" % _name] = lambda a, C, f=_functor: "unary<F::%s>(%s)" % (f, a[0])

_CTYPE = {"float32": ("float", "Float32"), "float64": ("double", "Float64")}
# 0-d inputs the loops read converted to the compute type (x - 3 wraps 3 as an int64 tensor)
SCALAR_READS = {
    "float32": ("float", "Float32"),
    "float64": ("double", "Float64"),
    "int64": ("int64_t", "Int64"),
    "int32": ("int32_t", "Int32"),
    "bool": ("bool", "Bool"),
}


@dataclass
class Kernel:
    op_name: str  # "compiled::fused_sigmoid_mul_1a2b3c4d"
    inputs: List[Value]
    outputs: List[Value]
    source: str  # the C++ function and its registration
    members: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    device: str = "cpu"  # "cuda": source is the wrapper launching cuda_source's kernel
    cuda_source: str = ""  # the __global__ function (codegen_cuda), compiled by NVRTC into image
    image: object = None  # nvrtc.Image

    @property
    def name(self):
        return self.op_name.split("::", 1)[1]


def _contiguous_strides(shape):
    strides, step = [], 1
    for s in reversed(shape):
        strides.append(step)
        step *= s
    return list(reversed(strides))


def _index_expression(v, shape, index="i"):
    """How to reach value v's element for the flat index of iteration space `shape` (broadcasting:
    a dim v lacks, or has as 1, contributes nothing)."""
    if tuple(v.shape) == tuple(shape) and tuple(v.stride) == tuple(_contiguous_strides(shape)):
        return index
    lead = len(shape) - len(v.shape)
    inner = _contiguous_strides(shape)
    terms = []
    for d, size in enumerate(shape):
        vd = d - lead
        if vd < 0 or v.shape[vd] == 1 or size == 1:
            continue
        stride = v.stride[vd]
        if stride == 0:
            continue
        position = (
            index
            if len(shape) == 1
            else ("(%s / %d)" % (index, inner[d]) if d == 0 else "(%s / %d %% %d)" % (index, inner[d], size))
        )
        if inner[d] == 1 and d > 0:
            position = "(%s %% %d)" % (index, size)
        terms.append(position if stride == 1 else "%s * %d" % (position, stride))
    return " + ".join(terms) or "0"


def _where(node):
    return os.path.basename(node.where.rsplit(":", 1)[0]) + ":" + node.where.rsplit(":", 1)[1] if node.where else ""


def _node_line(m, var, C, target):
    from .printer import call_text

    out = m.outputs[0]
    a = [var(x) if isinstance(x, Value) else x for x in m.args]
    return "const %s %s = %s;  // %s = %s  %s" % (
        C,
        target,
        POINTWISE[m.op](a, C),
        out.name,
        call_text(m.op, m.args),
        _where(m),
    )


def _ctype(v):
    return SCALAR_READS[str(v.dtype).rsplit(".", 1)[-1]][0]


def _pointer_type(v):
    """The element type a loop reads v through: a bool mask as bytes (0 or 1), which GCC vectorises
    into the float chain where it does not vectorise loads of bool."""
    return "uint8_t" if _ctype(v) == "bool" else _ctype(v)


def _pointer_source(v):
    read = "t_%s.data<%s>()" % (v.name, _ctype(v))
    return read if _pointer_type(v) == _ctype(v) else "reinterpret_cast<const %s*>(%s)" % (_pointer_type(v), read)


def _row_index_expression(v, shape):
    """_index_expression inside a row loop (i = row * K + j): the row's offset from `row` and the
    element's from `j`, so that a broadcast input (attention's [T, T] mask under [B, H, T, T]
    scores) costs no division per element."""
    full = _index_expression(v, shape, "i")
    if full == "i" or len(shape) < 2:
        return full
    if not v.shape:
        return "0"
    last = v.stride[-1] if v.shape[-1] != 1 else 0  # (v's dims line up with the loop's from the right)
    outer = Value(v.name, tuple(v.shape[:-1]), tuple(v.stride[:-1]), v.dtype, v.device)
    row = _index_expression(outer, tuple(shape[:-1]), "row") if outer.shape else "0"
    column = "j" if last == 1 else ("j * %d" % last if last else "0")
    return column if row == "0" else (row if column == "0" else "%s + %s" % (row, column))


def _load(v, shape, index, C, row_loop=False):
    where = _row_index_expression(v, shape) if row_loop else _index_expression(v, shape, index)
    read = "p_%s[%s]" % (v.name, where)
    if _ctype(v) != C:
        read = "static_cast<%s>(%s)" % (C, read)
    return "const %s in_%s = %s;  // input %s: %s" % (C, v.name, read, v.name, v.type_text())


def _pointwise_loop(members, inputs, outputs, shape, C):
    """for i over the iteration space: load the inputs, compute the chain, store the outputs."""
    names = {id(v): "in_" + v.name for v in inputs}  # C++ names carry a prefix: a value may be called `exp` or `i`
    body = [_load(v, shape, "i", C) for v in inputs]
    for m in members:
        names[id(m.outputs[0])] = "v_" + m.outputs[0].name
        body.append(_node_line(m, lambda x: names[id(x)], C, names[id(m.outputs[0])]))
    body += ["o_%s[i] = %s;" % (v.name, names[id(v)]) for v in outputs]
    return (
        [
            "glassbox::parallel_for(0, %d, glassbox::kDefaultGrain, [&](int64_t begin, int64_t end) {"
            % math.prod(shape),
            "  for (int64_t i = begin; i < end; ++i) {",
        ]
        + ["    " + b for b in body]
        + ["  }", "});"]
    )


_ACCUMULATE = {
    # kind: (accumulator type, initial value, step folding {x} into {a}, result from {a})
    "sum": ("double", "0.0", "{a} += {x};", "static_cast<{C}>({a})"),
    "mean": ("double", "0.0", "{a} += {x};", "static_cast<{C}>({a} / {K})"),
    # NaN wins and stays, as in the library's amax; written as selects so that it vectorises
    "amax": (
        "{C}",
        "-std::numeric_limits<{C}>::infinity()",
        "{a} = ({a} != {a}) ? {a} : (({x} != {x} || {x} > {a}) ? {x} : {a});",
        "{a}",
    ),
}
# A reduction pass keeps this many partial accumulators, one per lane, so that the loop over a row
# vectorises (a single running sum is a chain the compiler must keep in order); they are folded
# into one at the end of the pass.
LANES = 16
# Element-wise values that cost a transcendental function are kept in a row buffer (on the stack,
# in L1) by the pass that first computes them, when a row is at most this long; cheaper ones, and
# rows too long for the stack, are recomputed by each pass that needs them.
ROW_BUFFER_MAX = 8192
HEAVY = {"exp", "log", "log1p", "expm1", "sin", "cos", "tanh", "sigmoid", "silu", "erf", "gelu", "pow"}


def pass_work(group, targets, made_by, external, passes, known):
    """What one pass over a row computes for `targets`: the group's members they need (in group
    order, each counted in `passes`) and the external inputs it loads. Values in any dict of
    `known` (per-row values, row buffers) are not computed again. Shared by the CUDA printer."""
    needed = []

    def need(v):
        m = made_by.get(id(v))
        if m is None or any(id(v) in k for k in known) or m in needed:
            return
        for x in m.input_values():
            need(x)
        needed.append(m)

    for v in targets:
        need(v)
    needed.sort(key=group.members.index)
    for m in needed:
        passes[id(m)] = passes.get(id(m), 0) + 1
    loads = []
    for m in needed:
        loads += [x for x in m.input_values() if id(x) in external and x not in loads]
    loads += [v for v in targets if id(v) in external and v not in loads]
    return needed, loads


def _row_loop(group, inputs, outputs, C, notes):
    """A row group: for each row, one pass over the last dim per reduction (recomputing the
    element-wise values it needs), per-row operators between passes, and a last pass writing the
    full-size results. Per-row values broadcast along the last dim as plain scalars."""
    from .fusion import REDUCTIONS
    from .printer import call_text

    shape = group.shape
    K = shape[-1]
    rows = math.prod(shape) // K if K else 0
    made_by = {id(v): m for m in group.members for v in m.outputs}
    row_value = {}  # id(value) -> C++ name of a per-row value computed so far
    external = {id(v) for v in inputs}
    passes = {}  # id(member) -> how many passes compute it
    buffered, stored = {}, []  # values kept in row buffers
    out_ids = {id(v) for v in outputs}
    users_in_group = {}
    for m in group.members:
        for v in m.input_values():
            users_in_group.setdefault(id(v), []).append(m)
    body = []

    def full_pass(targets, tail, lanes=False, block=None):
        """A loop over the row's K elements computing the full-size values `targets` need; tail:
        lines using them. With lanes, the loop runs in blocks of LANES (j0 + l) and a remainder,
        and `{lane}` in tail is the lane's index (0 in the remainder). block: (lines opening each
        block, the tail inside a block, lines closing it); the remainder uses `tail`."""
        needed, loads = pass_work(group, targets, made_by, external, passes, known=(row_value, buffered))

        def name(x):
            if id(x) in row_value:
                return row_value[id(x)]
            if id(x) in buffered:
                return "buf_%s[j]" % x.name
            return ("in_" if id(x) in external else "v_") + x.name

        keep = []  # values this pass computes and leaves in a row buffer for later passes
        if lanes and K <= ROW_BUFFER_MAX:
            for m in needed:
                v = m.outputs[0]
                later = [u for u in users_in_group.get(id(v), []) if u.op not in REDUCTIONS]
                if m.op.split("::", 1)[1].split(".", 1)[0] in HEAVY and (later or id(v) in out_ids):
                    keep.append(v)

        def element(lane, tail=tail):
            lines = ["const int64_t i = row * %d + j;" % K]
            lines += [_load(v, shape, "i", C, row_loop=True) for v in loads]
            lines += [_node_line(m, name, C, "v_" + m.outputs[0].name) for m in needed]
            lines += ["buf_%s[j] = v_%s;" % (v.name, v.name) for v in keep]
            values = {"x%d" % k: name(v) for k, v in enumerate(targets)}
            return lines + [t.format(lane=lane, **values) for t in tail]

        if not lanes:
            return ["for (int64_t j = 0; j < %d; ++j) {" % K] + ["  " + x for x in element("")] + ["}"]
        main = K - K % LANES
        out = ["%s buf_%s[%d];  // kept for the passes after this one" % (C, v.name, K) for v in keep]
        if main:
            opening, inner, closing = block or ((), tail, ())
            out += ["for (int64_t j0 = 0; j0 < %d; j0 += %d) {" % (main, LANES)] + ["  " + x for x in opening]
            out += ["  for (int64_t l = 0; l < %d; ++l) {" % LANES, "    const int64_t j = j0 + l;"]
            out += ["    " + x for x in element("l", inner)] + ["  }"] + ["  " + x for x in closing] + ["}"]
        if main < K:
            out += ["for (int64_t j = %d; j < %d; ++j) {" % (main, K)] + ["  " + x for x in element("0")] + ["}"]
        for v in keep:  # from the next pass on, read from the buffer
            buffered[id(v)] = True
            stored.append(v.name)
        return out

    for m in group.members:
        out = m.outputs[0]
        if m.op in REDUCTIONS:
            acc_type, init, step, result = _ACCUMULATE[REDUCTIONS[m.op]]
            acc_type, init = acc_type.format(C=C), init.format(C=C)
            lane = "part_%s[{lane}]" % out.name
            body.append("%s part_%s[%d];" % (acc_type, out.name, LANES))
            body.append("for (int l = 0; l < %d; ++l) part_%s[l] = %s;" % (LANES, out.name, init))
            fold = step.format(a=lane, x="{x0}") + "  // %s = %s  %s" % (out.name, call_text(m.op, m.args), _where(m))
            block = None
            if acc_type != C:
                # A block's terms are computed in C, then added to the lanes' wider accumulators in a
                # loop of their own: the same sums, and both loops vectorise (one loop mixing the
                # chain's float vectors with the accumulators' double ones does not).
                term = "term_%s[{lane}]" % out.name
                block = (
                    ["%s term_%s[%d];" % (C, out.name, LANES)],
                    ["%s = {x0};  // a term of %s = %s  %s" % (term, out.name, call_text(m.op, m.args), _where(m))],
                    [
                        "for (int l = 0; l < %d; ++l) %s"
                        % (LANES, step.format(a="part_%s[l]" % out.name, x="term_%s[l]" % out.name))
                    ],
                )
            body += full_pass([m.args[0]], [fold], lanes=True, block=block)
            body.append("%s acc_%s = part_%s[0];" % (acc_type, out.name, out.name))
            body.append(
                "for (int l = 1; l < %d; ++l) %s" % (LANES, step.format(a="acc_" + out.name, x="part_%s[l]" % out.name))
            )
            body.append("const %s r_%s = %s;" % (C, out.name, result.format(a="acc_" + out.name, C=C, K=K)))
            row_value[id(out)] = "r_" + out.name
        elif tuple(out.shape) != tuple(shape):  # a per-row operator: on per-row values and inputs

            def name(x, m=m):
                if id(x) in row_value:
                    return row_value[id(x)]
                read = "p_%s[%s]" % (x.name, _index_expression(x, tuple(m.outputs[0].shape), "row"))
                return read if _ctype(x) == C else "static_cast<%s>(%s)" % (C, read)

            body.append(_node_line(m, name, C, "r_" + out.name))
            row_value[id(out)] = "r_" + out.name
    full_outputs = [v for v in outputs if id(v) not in row_value]
    if full_outputs:
        body += full_pass(full_outputs, ["o_%s[i] = {x%d};" % (v.name, k) for k, v in enumerate(full_outputs)])
    body += ["o_%s[row] = %s;" % (v.name, row_value[id(v)]) for v in outputs if id(v) in row_value]
    if stored:
        notes.append(
            "keeps %s in a row buffer (%s[%d], on the stack) for the passes after the one computing it"
            % (", ".join(stored), C, K)
        )
    again = [m.outputs[0].name for m in group.members if passes.get(id(m), 0) > 1]
    if again:
        notes.append(
            "recomputes %s in each pass that needs them, rather than writing them out and reading them back"
            % ", ".join(again)
        )
    grain = max(1, 32768 // max(K, 1))
    return (
        [
            "glassbox::parallel_for(0, %d, %d, [&](int64_t row_begin, int64_t row_end) {" % (rows, grain),
            "  for (int64_t row = row_begin; row < row_end; ++row) {",
        ]
        + ["    " + b for b in body]
        + ["  }", "});"]
    )


def _with_restrict_parameters(loop, pointers):
    """The chunk's loop as a lambda called with the operands' pointers as __restrict parameters.
    GCC keeps the no-alias promise of a __restrict parameter but not that of a __restrict local
    the chunk's closure captures: without it, a chain such as add + gelu stays scalar (~9x slower
    than the library's vectorised gelu)."""
    header, body, close = loop[0], loop[1:-1], loop[-1]
    params = ", ".join("%s* __restrict %s" % (t, name) for t, name in pointers)
    return (
        [header, "  [&](%s) {" % params]
        + ["  " + line for line in body]
        + ["  }(%s);" % ", ".join(name for _, name in pointers), close]
    )


def generate(group, graph_users, graph_outputs, background=False):
    """The Kernel for a fusion.Group. graph_users: {id(value): [nodes]} of the whole graph;
    graph_outputs: ids of the values the graph returns. background: a GPU group's NVRTC compile
    may still run on return (nvrtc.finish waits for it)."""
    from . import codegen_cuda
    from .printer import call_text

    if codegen_cuda.is_cuda(group):
        return codegen_cuda.generate(group, graph_users, graph_outputs, background=background)

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
    dtype = str(members[0].outputs[0].dtype).rsplit(".", 1)[-1]
    C, scalar_type = _CTYPE[dtype]
    shape = tuple(group.shape)
    notes = []  # decisions made while generating, for the fusion log
    if group.reductions:
        loop = _row_loop(group, inputs, outputs, C, notes)
    else:
        loop = _pointwise_loop(members, inputs, outputs, shape, C)

    ops_in_name = []
    for m in members:
        base = m.op.split("::", 1)[1].split(".", 1)[0]
        if base not in ops_in_name:
            ops_in_name.append(base)
    lines = []
    params = ", ".join("const glassbox::Tensor& t_%s" % v.name for v in inputs)
    returns = (
        "glassbox::Tensor" if len(outputs) == 1 else "std::tuple<%s>" % ", ".join(["glassbox::Tensor"] * len(outputs))
    )
    lines.append("%s KERNEL(%s) {" % (returns, params))
    for v in inputs:
        lines.append(
            '  check_input(t_%s, "KERNEL", "%s", {%s}, {%s}, glassbox::ScalarType::%s);'
            % (
                v.name,
                v.name,
                ", ".join(map(str, v.shape)),
                ", ".join(map(str, v.stride)),
                SCALAR_READS[str(v.dtype).rsplit(".", 1)[-1]][1],
            )
        )
        lines.append("  const %s* __restrict p_%s = %s;" % (_pointer_type(v), v.name, _pointer_source(v)))
    for v in outputs:
        lines.append(
            "  glassbox::Tensor out_%s = glassbox::empty({%s}, glassbox::ScalarType::%s, glassbox::Device{});"
            % (v.name, ", ".join(map(str, v.shape)), scalar_type)
        )
        lines.append("  %s* __restrict o_%s = out_%s.data<%s>();" % (C, v.name, v.name, C))
    pointers = [("const %s" % _pointer_type(v), "p_" + v.name) for v in inputs] + [(C, "o_" + v.name) for v in outputs]
    lines += ["  " + line for line in _with_restrict_parameters(loop, pointers)]
    if len(outputs) == 1:
        lines.append("  return out_%s;" % outputs[0].name)
    else:
        lines.append("  return {%s};" % ", ".join("out_" + v.name for v in outputs))
    lines.append("}")
    text = "\n".join(lines)
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    name = "fused_%s_%s" % ("_".join(ops_in_name[:5]), digest)
    schema = "%s(%s) -> %s" % (
        name,
        ", ".join("Tensor %s" % v.name for v in inputs),
        "Tensor" if len(outputs) == 1 else "(%s)" % ", ".join(["Tensor"] * len(outputs)),
    )
    text = text.replace("KERNEL", name)
    header = ["// %s: %s kernel over %s, %d operators" % (name, group.kind, list(shape), len(members))]
    if group.reductions:
        header[0] += " (one loop over rows; per row, a pass for each reduction and one writing the results)"
    for m in members:
        header.append("//   %s = %s  %s" % (m.outputs[0].name, call_text(m.op, m.args), _where(m)))
    source = "\n".join(header) + "\n" + text + "\n"
    return Kernel("compiled::" + name, inputs, outputs, source, members, notes), schema


PRELUDE = """// Generated by glassbox.compiler (gb.compile); the comments name each line's graph node and the
// user's Python line. Rebuilt only when this text changes (the library's name is its hash).
#include <cmath>
#include <initializer_list>
#include <limits>
#include <tuple>

#include "engine/core/parallel.h"
#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/pointwise_functors.h"

namespace {
namespace F = glassbox::functors;

// An element-wise functor's value: for float32, the vectorisable form the library's loops use
// (engine/cpu/vec_math.h: exp, tanh, sigmoid, ...) where there is one, else the functor itself.
template <class Fn, class C>
inline C unary(C x) {
  if constexpr (std::is_same_v<C, float> && requires { glassbox::cpu::FloatForm<Fn>::apply(x); })
    return glassbox::cpu::FloatForm<Fn>::apply(x);
  else return Fn{}(x);
}

// The generated loops assume the layout the graph was captured with (the guards check it before a
// call); a direct call with another layout is refused here.
[[maybe_unused]] void check_input(const glassbox::Tensor& t, const char* kernel, const char* name, std::initializer_list<int64_t> sizes,
                 std::initializer_list<int64_t> strides, glassbox::ScalarType dtype) {
  GB_CHECK(t.device() == glassbox::Device{} && t.dtype() == dtype && t.sizes() == glassbox::DimVector(sizes) &&
               t.strides() == glassbox::DimVector(strides),
           "compiled::", kernel, ": input ", name, " must be a ", glassbox::to_string(dtype), " CPU tensor of shape ",
           glassbox::shape_to_string(std::vector<int64_t>(sizes)), " and strides ",
           glassbox::shape_to_string(std::vector<int64_t>(strides)), " (the layout it was generated for), got ",
           glassbox::to_string(t.dtype()), " ", glassbox::shape_to_string(t.sizes().vec()), " strides ",
           glassbox::shape_to_string(t.strides().vec()));
}
"""


def source_file(kernels_and_schemas):
    """The whole C++ file for a graph's kernels: CPU loops, and wrappers launching CUDA kernels."""
    return source_files(kernels_and_schemas, 1)[0]


def source_files(kernels_and_schemas, parts):
    """The kernels as `parts` C++ files (translation units compiled at the same time, each with the
    prelude and the registration blocks of its own kernels), consecutive kernels together."""
    from . import codegen_cuda

    count = len(kernels_and_schemas)
    parts = max(1, min(parts, count))
    bounds = [count * k // parts for k in range(parts + 1)]
    files = []
    for lo, hi in zip(bounds, bounds[1:]):
        chosen = kernels_and_schemas[lo:hi]
        text = [PRELUDE]
        if any(k.device == "cuda" for k, _ in chosen):
            text = [codegen_cuda.HOST_INCLUDES, PRELUDE, codegen_cuda.HOST_PRELUDE]
        text += [kernel.source for kernel, _ in chosen]
        text += ["}  // namespace\n", "GLASSBOX_LIBRARY_FRAGMENT(compiled, m) {"]
        text += ['  m.def("%s");' % schema for _, schema in chosen] + ["}"]
        for key, device in (("CPU", "cpu"), ("CUDA", "cuda")):
            on_device = [k for k, _ in chosen if k.device == device]
            if on_device:
                text.append("GLASSBOX_LIBRARY_IMPL(compiled, %s, m) {" % key)
                text += ['  m.impl("%s", &%s);' % (k.name, k.name) for k in on_device] + ["}"]
        files.append("\n".join(text) + "\n")
    return files
