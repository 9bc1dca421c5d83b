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
from .render_common import render_file, string_literal

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
        # Tried last, so that a list, a dtype or any typed overload wins when it fits.
        methods += [_varargs_binding(plan, op) for op in ordered if _takes_varargs(op)]
        # And after every form, the one that explains in one line why none took the arguments.
        # (one per Python name: a base's in-place forms, such as add_, are named apart from it.)
        functions += [_refusal(name, forms, method=False) for name, forms in _by_name(ordered, function=True)]
        methods += [_refusal(name, forms, method=True) for name, forms in _by_name(ordered, function=False)]
        n = shard_of(base)
        includes[n].append(f'#include "glassbox/ops/{base}.h"')
        shards[n].append(f"  // ---- {base}\n" + "\n".join(functions + methods))
    files = {}
    for n in range(SHARDS):
        files[f"python/bindings_{n}.cpp"] = render_file(
            "python_shard.cpp", plan, shard=str(n), includes="\n".join(includes[n]), bindings="\n".join(shards[n])
        )
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


# How a typed binding takes a C++ parameter type from Python, where that differs from the C++ API:
# type_casters.h's argument types raise PyTorch's exception classes for ints past int64.
_PYTHON_ARG_TYPES = {
    "int64_t": "python::IntArg",
    "std::optional<int64_t>": "std::optional<python::IntArg>",
}
_PYTHON_FIXED_LIST_TYPES = {
    "IntArrayRef": "python::DimListArg",
    "std::optional<IntArrayRef>": "std::optional<python::DimListArg>",
}

# Every call runs with the GIL released (kernels never touch Python objects; Python kernels,
# hooks and storage deleters take it back), so other Python threads run meanwhile.
RELEASE_GIL = "py::call_guard<python::ReleaseGil>()"


def _python_type(op: Op, p: Param) -> str:
    arg = next((a for a in op.entry.schema.arguments if a.name == p.schema_name), None)
    if arg is not None and arg.type.fixed_size and p.type in _PYTHON_FIXED_LIST_TYPES:
        return _PYTHON_FIXED_LIST_TYPES[p.type]
    return _PYTHON_ARG_TYPES.get(p.type, p.type)


def _binding(plan: Plan, op: Op, method: bool) -> str:
    params = op.params
    shown = [p for p in params if not (method and p.schema_name == "self")]
    lambda_params = ", ".join(f"{_python_type(op, p)} {p.name}" for p in params)
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
        args.append(
            f"py::arg_v({name}, {default}, {string_literal(_default_text(op, p))})"
            if default
            else f"py::arg({name})" + (".none(true)" if "optional" in p.type else "")
        )
    target = "tensor" if method else "m"
    pyname = op.entry.name
    extra = "".join(f", {a}" for a in args + [RELEASE_GIL])
    return (
        f"  // {plan.display}: {op.entry.schema.text}\n"
        f"  {target}.def({string_literal(pyname)}, []({lambda_params}) -> {ret} {{ {body} }}{extra});"
    )


def _takes_varargs(op: Op) -> bool:
    """t.view(2, 3), t.permute(1, 0), t.expand(4, -1): as in PyTorch, a method whose only positional
    argument (besides self) is a list of ints also takes the ints one by one."""
    if op.method is None or op.entry.schema.is_out:
        return False
    positional = [p for p in op.params if p.schema_name != "self" and not p.kwarg_only]
    return len(positional) == 1 and positional[0].type == "IntArrayRef" and not _python_default(positional[0], op)


def _varargs_binding(plan: Plan, op: Op) -> str:
    listed = next(p for p in op.params if p.schema_name != "self" and not p.kwarg_only)
    keywords = [p for p in op.params if p.kwarg_only]
    lambda_params = ", ".join(
        ["const Tensor& self", "py::args items"] + [f"{_python_type(op, p)} {p.name}" for p in keywords]
    )
    ret = "Tensor" if op.ret == "Tensor&" else op.ret
    call = f"ops::{op.struct}::call({', '.join(p.name if p is not listed else 'ints' for p in op.params)})"
    message = string_literal(f"{op.entry.name}(): {listed.schema_name} must be ints, got ")
    convert = (
        "std::vector<int64_t> ints; ints.reserve(items.size()); "
        "for (const py::handle item : items) { if (!is_python_int(item)) throw py::type_error("
        f'{message} + std::string(py::str(py::type::of(item).attr("__name__")))); '
        f"ints.push_back(int64_from_python(item, IntOverflow::TypeError, {string_literal(op.entry.name + '()')})); }} "
        "python::ReleaseGil nogil; "
    )
    args = []
    for p in keywords:
        default = _python_default(p, op)
        name = string_literal(p.schema_name)
        args.append(
            f"py::arg_v({name}, {default}, {string_literal(_default_text(op, p))})"
            if default
            else f"py::arg({name})" + (".none(true)" if "optional" in p.type else "")
        )
    extra = "".join(f", {a}" for a in args)
    return (
        f"  // {plan.display}: {op.entry.schema.text} (ints one by one)\n"
        f"  tensor.def({string_literal(op.entry.name)}, []({lambda_params}) -> {ret} {{ {convert}return {call}; }}{extra});"
    )


def _by_name(ops: list[Op], function: bool) -> list[tuple[str, list[Op]]]:
    """The function (or method) forms of `ops` grouped by the Python name each is bound as."""
    groups: dict[str, list[Op]] = {}
    for op in ops:
        if ("function" in op.entry.variants) if function else (op.method is not None):
            groups.setdefault(op.entry.name, []).append(op)
    return list(groups.items())


def _refusal(name: str, ops: list[Op], method: bool) -> str:
    """The last overload of `name`: python::AnyArg matches only in pybind11's converting pass, so it
    runs after every typed form has failed, and raises one TypeError saying why."""
    schemas = ", ".join(string_literal(op.entry.schema.text) for op in ops)
    if method:
        # pybind11 retries a method with conversions only for an argument after self, so there is one
        # (absent from the call: python::missing()).
        return (
            f"  tensor.def({string_literal(name)}, [](const Tensor& self, python::AnyArg first, py::args rest, "
            f"py::kwargs kwargs) -> py::object {{ python::refuse_method_call({string_literal(name)}, {{{schemas}}}, "
            f'self, first.value, rest, kwargs); }}, py::arg("_glassbox_first") = python::missing());'
        )
    return (
        f"  m.def({string_literal(name)}, [](python::AnyArg first, py::args rest, py::kwargs kwargs) "
        f"-> py::object {{ python::refuse_call({string_literal(name)}, false, "
        f"{{{schemas}}}, first.value, rest, kwargs); }});"
    )


def _default_text(op: Op, p: Param) -> str:
    arg = next(a for a in op.entry.schema.arguments if a.name == p.schema_name)
    return arg.default.text if arg.default else ""
