"""Tensor's method variants: TensorMethods.inc (declarations inside class Tensor) and TensorMethods.cpp."""

from __future__ import annotations

from .api import Op, Plan
from .render_common import entry_ref, indent, location, params_decl, render_file


def outputs(plan: Plan) -> list[str]:
    return ["TensorMethods.inc", "TensorMethods.cpp"]


def render_all(plan: Plan) -> dict[str, str]:
    ops = plan.method_ops()
    members = "".join(_member(plan, op) for op in ops)
    definitions = "".join(_definition(plan, op) for op in ops)
    bases = list(dict.fromkeys(op.base_name for op in ops))
    includes = "\n".join(f'#include "glassbox/ops/{b}.h"' for b in bases)
    return {
        "TensorMethods.inc": render_file("TensorMethods.inc", plan, members=members),
        "TensorMethods.cpp": render_file("TensorMethods.cpp", plan, includes=includes, definitions=definitions),
    }


def _member(plan: Plan, op: Op) -> str:
    m = op.method
    assert m is not None
    text = f"\n// {entry_ref(plan, op)}\n"
    # List defaults need storage that exists before any header of the operator: a static member.
    text += "".join(f"static constexpr {a.element_type} {name}[] = {a.initializer()};\n" for name, a in m.arrays)
    text += f"{op.ret} {m.name}({params_decl(m.params, m.defaults)}) const;\n"
    return indent(text)


def _definition(plan: Plan, op: Op) -> str:
    m = op.method
    assert m is not None
    return (
        f"\n// {location(plan, op)}\n"
        f"{op.ret} Tensor::{m.name}({params_decl(m.params)}) const {{\n"
        f"  return ops::{op.struct}::call({', '.join(m.call_args)});\n"
        "}\n"
    )
