"""Per operator: glassbox/ops/<base>.h (typed handles + functions) and <base>.cpp; Functions.h."""

from __future__ import annotations

import re

from .api import Op, Plan, Variant
from .render_common import entry_ref, location, params_decl, render, render_file, string_literal


def outputs(plan: Plan) -> list[str]:
    files = ["Types.h", "Functions.h"]
    for base in plan.bases:
        files += [f"{base}.h", f"{base}.cpp"]
    return files


def render_all(plan: Plan) -> dict[str, str]:
    files = {
        "Types.h": render_file("Types.h", plan),
        "Functions.h": render_file(
            "Functions.h", plan, includes="\n".join(f'#include "glassbox/ops/{b}.h"' for b in plan.bases)
        ),
    }
    for base, ops in plan.bases.items():
        files[f"{base}.h"] = _header(plan, base, ops)
        files[f"{base}.cpp"] = _source(plan, base, ops)
    return files


# Inside namespace glassbox::ops the typed handle of an operator named `std` would hide the
# standard library's namespace: the handles spell it ::std.
_STD = re.compile(r"(?<![\w:])std::")


def _global_std(text: str) -> str:
    return _STD.sub("::std::", text)


def _header(plan: Plan, base: str, ops: list[Op]) -> str:
    structs = "".join(_struct(plan, op) for op in ops)
    functions = "".join(_function(plan, op, v) for op in ops for v in op.functions)
    functions_block = render("op_functions.h", functions=functions) if functions else ""
    return render_file("op.h", plan, base=base, structs=structs, functions=functions_block)


def _struct(plan: Plan, op: Op) -> str:
    text = render(
        "op_struct.h",
        location=entry_ref(plan, op),
        struct=op.struct,
        function_type=_global_std(op.function_type),
        qualified_name=op.qualified_name,
        overload=op.entry.overload,
        schema_literal=string_literal(op.entry.schema.text),
        ret=_global_std(op.ret),
        params=_global_std(params_decl(op.params)),
        redispatch_params=_global_std(_redispatch_params(op)),
    )
    arrays = [a for v in op.functions for a in v.arrays]
    if arrays:
        text += f"\n// Storage for the list defaults of {op.entry.full_name}.\n"
        text += "".join(f"inline constexpr {a.element_type} {name}[] = {a.initializer()};\n" for name, a in arrays)
    return text


def _redispatch_params(op: Op) -> str:
    return ", ".join(["DispatchKeySet keys"] + [f"{p.type} {p.name}" for p in op.params])


def _function(plan: Plan, op: Op, v: Variant) -> str:
    return render(
        "op_function.h",
        location=entry_ref(plan, op),
        ret=op.ret,
        name=v.name,
        params=params_decl(v.params, v.defaults),
        struct=op.struct,
        args=", ".join(v.call_args),
    )


def _source(plan: Plan, base: str, ops: list[Op]) -> str:
    definitions = "".join(
        render(
            "op_definition.cpp",
            location=location(plan, op),
            ret=_global_std(op.ret),
            struct=op.struct,
            params=_global_std(params_decl(op.params)),
            qualified_name=op.qualified_name,
            overload=op.entry.overload,
            args=", ".join(p.name for p in op.params),
            redispatch_params=_global_std(_redispatch_params(op)),
            redispatch_args=", ".join(["keys"] + [p.name for p in op.params]),
        )
        for op in ops
    )
    return render_file("op.cpp", plan, base=base, definitions=definitions)
