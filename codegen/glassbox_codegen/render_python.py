"""Python bindings: every overload of every operator as a typed pybind11 function (gb.add, ...)
and Tensor method (t.add(...)), each calling the operator's typed handle — never the boxed path.
pybind11 tries the overloads of one name in YAML order, so Tensor overloads come before Scalar
ones and out= overloads last.

The families are spread over SHARDS files, python/bindings_<n>.cpp, by a stable hash of the
family's name: pybind11 is heavy to compile, so a file per family would cost more in headers than
in bindings, while a change to one family still rewrites (and rebuilds) only its shard.
"""
from __future__ import annotations

import zlib

from .api import Op, Param, Plan
from .cpp_types import ArrayDefault, default_value
from .render_common import entry_ref, render_file, string_literal


SHARDS = 8


def shard_of(base: str) -> int:
    return zlib.crc32(base.encode()) % SHARDS


def outputs(plan: Plan) -> list[str]:
    return [f"python/bindings_{n}.cpp" for n in range(SHARDS)] + ["python/bind_all.cpp"]


def render_all(plan: Plan) -> dict[str, str]:
    shards: list[list[str]] = [[] for _ in range(SHARDS)]
    includes: list[list[str]] = [[] for _ in range(SHARDS)]
    for base, ops in plan.bases.items():
        ordered = [op for op in ops if not op.entry.schema.is_out] + [op for op in ops if op.entry.schema.is_out]
        functions = [_binding(plan, op, method=False) for op in ordered if "function" in op.entry.variants]
        methods = [_binding(plan, op, method=True) for op in ordered if op.method is not None]
        n = shard_of(base)
        includes[n].append(f'#include "glassbox/ops/{base}.h"')
        shards[n].append(f"  // ---- {base}\n" + "\n".join(functions + methods))
    files = {}
    for n in range(SHARDS):
        files[f"python/bindings_{n}.cpp"] = render_file(
            "python_shard.cpp", plan, shard=str(n), includes="\n".join(includes[n]), bindings="\n".join(shards[n]))
    declarations = "\n".join(f"void bind_shard_{n}(py::module_& m, py::class_<Tensor>& tensor);" for n in range(SHARDS))
    calls = "\n".join(f"  bind_shard_{n}(m, tensor);" for n in range(SHARDS))
    files["python/bind_all.cpp"] = render_file("python_bind_all.cpp", plan, declarations=declarations, calls=calls)
    return files


def _python_default(p: Param, op: Op) -> str:
    arg = next(a for a in op.entry.schema.arguments if a.name == p.schema_name)
    d = default_value(arg)
    if d is None:
        return ""
    if isinstance(d, ArrayDefault):
        return f"std::vector<{d.element_type}>{d.initializer()}"
    if d == "std::nullopt":
        return "py::none()"
    if d == "{}" or d.endswith("()"):
        return "py::list()"
    if p.type == "const Scalar&":
        kind = arg.default.kind if arg.default else ""
        if kind == "Bool":
            return f"Scalar({d})"
        if kind == "Int":
            return f"Scalar(int64_t{{{d}}})"
        return f"Scalar(double({d}))"
    if p.type in ("std::string_view", "std::optional<std::string_view>"):
        return f"std::string({d})"
    if d.startswith("Reduction::"):
        return f"int64_t{{{d}}}"
    return d


def _binding(plan: Plan, op: Op, method: bool) -> str:
    params = op.params
    shown = [p for p in params if not (method and p.schema_name == "self")]
    lambda_params = ", ".join(f"{p.type} {p.name}" for p in params)
    ret = "Tensor" if op.ret == "Tensor&" else op.ret
    call = f"ops::{op.struct}::call({', '.join(p.name for p in params)})"
    body = f"return {call};" if ret != "void" else f"{call};"
    args = []
    kw_only_done = False
    for p in shown:
        if p.kwarg_only and not kw_only_done:
            args.append("py::kw_only()")
            kw_only_done = True
        default = _python_default(p, op)
        name = string_literal(p.schema_name)
        args.append(f"py::arg_v({name}, {default}, {string_literal(_default_text(op, p))})" if default
                    else f"py::arg({name})" + (".none(true)" if "optional" in p.type else ""))
    target = "tensor" if method else "m"
    pyname = op.entry.name
    extra = "".join(f", {a}" for a in args)
    return (f"  // {plan.display}: {op.entry.schema.text}\n"
            f"  {target}.def({string_literal(pyname)}, []({lambda_params}) -> {ret} {{ {body} }}{extra});")


def _default_text(op: Op, p: Param) -> str:
    arg = next(a for a in op.entry.schema.arguments if a.name == p.schema_name)
    return arg.default.text if arg.default else ""
