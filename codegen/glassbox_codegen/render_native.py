"""The kernel declarations: glassbox/ops/native/<base>.h per operator, NativeFunctions.h for all."""

from __future__ import annotations

from .api import Op, Plan
from .render_common import entry_ref, params_decl, render_file


def outputs(plan: Plan) -> list[str]:
    return ["NativeFunctions.h"] + [f"native/{base}.h" for base in plan.bases]


def render_all(plan: Plan) -> dict[str, str]:
    files = {
        "NativeFunctions.h": render_file(
            "NativeFunctions.h", plan, includes="\n".join(f'#include "glassbox/ops/native/{b}.h"' for b in plan.bases)
        )
    }
    for base, ops in plan.bases.items():
        files[f"native/{base}.h"] = render_file("native_op.h", plan, base=base, declarations=_declarations(plan, ops))
    return files


def _declarations(plan: Plan, ops: list[Op]) -> str:
    out: list[str] = []
    for op in ops:
        keys_by_kernel: dict[str, list[str]] = {}
        for kernel in op.kernels:
            keys_by_kernel.setdefault(kernel.name, []).append(kernel.key)
        for name, keys in keys_by_kernel.items():
            out.append(f"\n// {entry_ref(plan, op)} ({', '.join(keys)})\n{op.ret} {name}({params_decl(op.params)});\n")
    return "".join(out)
