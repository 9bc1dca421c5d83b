"""Registration: RegisterSchema.cpp (m.def of every schema) and Register<Key>.cpp (m.impl per key)."""

from __future__ import annotations

from .api import Plan
from .render_common import location, render_file, string_literal


def outputs(plan: Plan) -> list[str]:
    return ["RegisterSchema.cpp"] + [register_file(key) for key in plan.keys]


def register_file(key: str) -> str:
    return f"Register{key}.cpp"


def render_all(plan: Plan) -> dict[str, str]:
    files = {"RegisterSchema.cpp": _schema(plan)}
    for key in plan.keys:
        files[register_file(key)] = _key(plan, key)
    return files


def _schema(plan: Plan) -> str:
    lines = []
    for op in plan.ops:
        args = string_literal(op.entry.schema.text)
        if op.entry.tags:
            args += ", {" + ", ".join(string_literal(t) for t in op.entry.tags) + "}"
        lines.append(f"  m.def({args});  // {location(plan, op)}")
    return render_file("RegisterSchema.cpp", plan, definitions="\n".join(lines))


def _key(plan: Plan, key: str) -> str:
    entries = plan.ops_for_key(key)
    bases = list(dict.fromkeys(op.base_name for op, _ in entries))
    lines = []
    for op, kernel in entries:
        fn = f"&native::{kernel.name}"
        if kernel.name in plan.overloaded_kernels:  # pick the overload: the name alone is ambiguous
            fn = f"static_cast<{op.pointer_type}>({fn})"
        lines.append(f"  m.impl({string_literal(op.entry.full_name)}, {fn});  // {location(plan, op)}")
    includes = "\n".join(f'#include "glassbox/ops/native/{b}.h"' for b in bases)
    return render_file("RegisterKey.cpp", plan, key=key, includes=includes, registrations="\n".join(lines))
