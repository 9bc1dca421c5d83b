"""C++ for fused groups: one loop per group, registered as an operator compiled::fused_<ops>_<hash>.

Each element formula is the engine's own functor (engine/ops/pointwise_functors.h: Sigmoid, Exp,
GeluErf, ...) where one exists, so a fused kernel computes what the library kernels compute. Shapes
and strides are those the guards hold, written into the code as constants: an input whose layout
differs from the iteration space (broadcast, transposed) is read through index arithmetic on the
flat loop index. Every generated line names the graph node and the user's line it came from. The
loop is split over glassbox's own thread pool (glassbox::parallel_for), as the library kernels are.

A CUDA generator would take the same Kernel plan (inputs, outputs, per-element lines) and print
__global__ code for NVRTC instead; only this file's printing is CPU-specific."""

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
}
for _name, _functor in _UNARY_FUNCTORS.items():
    POINTWISE["glassbox::%s" % _name] = lambda a, C, f=_functor: "unary<F::%s>(%s)" % (f, a[0])

_CTYPE = {"float32": ("float", "Float32"), "float64": ("double", "Float64")}


@dataclass
class Kernel:
    op_name: str  # "compiled::fused_sigmoid_mul_1a2b3c4d"
    inputs: List[Value]
    outputs: List[Value]
    source: str  # the C++ function and its registration
    members: list = field(default_factory=list)

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


def generate(group, graph_users, graph_outputs):
    """The Kernel for a fusion.Group. graph_users: {id(value): [nodes]} of the whole graph;
    graph_outputs: ids of the values the graph returns."""
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
    dtype = str(members[0].outputs[0].dtype).rsplit(".", 1)[-1]
    C, scalar_type = _CTYPE[dtype]
    shape = tuple(group.shape) if group.reduction is None else tuple(group.reduction.args[0].shape)
    numel = math.prod(shape)
    reduction = group.reduction
    inner = shape[-1] if reduction is not None else numel
    rows = numel // inner if reduction is not None else 1

    var = {}
    for v in inputs:
        var[id(v)] = "in_" + v.name  # C++ names carry a prefix: a value may be called `exp` or `i`
    body = []  # the per-element lines
    for v in inputs:
        body.append(
            "const %s %s = p_%s[%s];  // input %s: %s"
            % (C, var[id(v)], v.name, _index_expression(v, shape), v.name, v.type_text())
        )
    for m in members:
        if m is reduction:
            continue
        out = m.outputs[0]
        var[id(out)] = "v_" + out.name
        a = [var[id(x)] if isinstance(x, Value) else x for x in m.args]
        expr = POINTWISE[m.op](a, C)
        body.append(
            "const %s v_%s = %s;  // %s = %s  %s" % (C, out.name, expr, out.name, call_text(m.op, m.args), _where(m))
        )
    full_outputs = [v for v in outputs if reduction is None or v is not reduction.outputs[0]]
    for v in full_outputs:
        body.append("o_%s[i] = %s;" % (v.name, var[id(v)]))

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
                _CTYPE[str(v.dtype).rsplit(".", 1)[-1]][1],
            )
        )
        lines.append("  const %s* __restrict p_%s = t_%s.data<%s>();" % (C, v.name, v.name, C))
    for v in outputs:
        lines.append(
            "  glassbox::Tensor out_%s = glassbox::empty({%s}, glassbox::ScalarType::%s, glassbox::Device{});"
            % (v.name, ", ".join(map(str, v.shape)), scalar_type)
        )
        lines.append("  %s* __restrict o_%s = out_%s.data<%s>();" % (C, v.name, v.name, C))
    if reduction is None:
        lines.append(
            "  glassbox::parallel_for(0, %d, glassbox::kDefaultGrain, [&](int64_t begin, int64_t end) {" % numel
        )
        lines.append("    for (int64_t i = begin; i < end; ++i) {")
        lines += ["      " + b for b in body]
        lines.append("    }")
        lines.append("  });")
    else:
        kind = {"glassbox::sum.dim_IntList": "sum", "glassbox::mean.dim": "mean", "glassbox::amax": "amax"}[
            reduction.op
        ]
        src = var[id(reduction.args[0])]
        red = reduction.outputs[0]
        acc = "double" if kind != "amax" else C
        init = "0.0" if kind != "amax" else "-std::numeric_limits<%s>::infinity()" % C
        step = (
            "acc += %s;" % src
            if kind != "amax"
            else "if (%s > acc || %s != %s) acc = (acc != acc) ? acc : %s;" % (src, src, src, src)
        )
        finish = (
            "static_cast<%s>(acc)" % C
            if kind == "sum"
            else ("static_cast<%s>(acc / %d)" % (C, inner) if kind == "mean" else "acc")
        )
        grain = max(1, 32768 // max(inner, 1))
        lines.append("  glassbox::parallel_for(0, %d, %d, [&](int64_t row_begin, int64_t row_end) {" % (rows, grain))
        lines.append("    for (int64_t row = row_begin; row < row_end; ++row) {")
        lines.append("      %s acc = %s;" % (acc, init))
        lines.append("      for (int64_t j = 0; j < %d; ++j) {" % inner)
        lines.append("        const int64_t i = row * %d + j;" % inner)
        lines += ["        " + b for b in body]
        lines.append(
            "        %s  // %s = %s  %s" % (step, red.name, call_text(reduction.op, reduction.args), _where(reduction))
        )
        lines.append("      }")
        lines.append("      o_%s[row] = %s;" % (red.name, finish))
        lines.append("    }")
        lines.append("  });")
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
    for m in members:
        header.append("//   %s = %s  %s" % (m.outputs[0].name, call_text(m.op, m.args), _where(m)))
    source = "\n".join(header) + "\n" + text + "\n"
    return Kernel("compiled::" + name, inputs, outputs, source, members), schema


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
void check_input(const glassbox::Tensor& t, const char* kernel, const char* name, std::initializer_list<int64_t> sizes,
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
    """The whole C++ file for a graph's kernels."""
    parts = [PRELUDE]
    for kernel, _ in kernels_and_schemas:
        parts.append(kernel.source)
    parts.append("}  // namespace\n")
    parts.append("GLASSBOX_LIBRARY_FRAGMENT(compiled, m) {")
    for _, schema in kernels_and_schemas:
        parts.append('  m.def("%s");' % schema)
    parts.append("}")
    parts.append("GLASSBOX_LIBRARY_IMPL(compiled, CPU, m) {")
    for kernel, _ in kernels_and_schemas:
        parts.append('  m.impl("%s", &%s);' % (kernel.name, kernel.name))
    parts.append("}")
    return "\n".join(parts) + "\n"
