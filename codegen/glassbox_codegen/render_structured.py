"""The kernels of structured operators (`structured: <Functor>` in ops.yaml), per backend:
StructuredCPU.cpp, StructuredCUDA.cu and StructuredMeta.cpp. Each functional, in-place and out=
kernel is one call of the front end, structured_pointwise<Functor, Compute>(...), which the
Register<Key>.cpp files then register like any hand-written kernel."""

from __future__ import annotations

from .api import Op, Plan
from .render_common import entry_ref, params_decl, render_file, string_literal

# key -> (output file, header of the backend's compute, the compute type)
BACKENDS = {
    "CPU": ("StructuredCPU.cpp", "engine/cpu/pointwise_kernel.h", "cpu::PointwiseCompute"),
    "CUDA": ("StructuredCUDA.cu", "engine/cuda/pointwise_launch.cuh", "cuda::PointwiseCompute"),
    "Meta": ("StructuredMeta.cpp", "engine/ops/pointwise_functors.h", "MetaCompute"),
}


def outputs(plan: Plan) -> list[str]:
    if not structured_ops(plan):
        return []
    return [file for file, _, _ in BACKENDS.values()]


def structured_ops(plan: Plan) -> list[Op]:
    return [op for op in plan.ops if op.entry.structured is not None]


def render_all(plan: Plan) -> dict[str, str]:
    ops = structured_ops(plan)
    if not ops:
        return {}
    bases = list(dict.fromkeys(op.base_name for op in ops))
    files = {}
    for key, (file, header, compute) in BACKENDS.items():
        includes = "\n".join([f'#include "{header}"'] + [f'#include "glassbox/ops/native/{b}.h"' for b in bases])
        kernels = "".join(_kernel(plan, op, key, compute) for op in ops)
        files[file] = render_file(
            "StructuredKernels.cpp", plan, key=key, compute=compute, includes=includes, kernels=kernels
        )
    return files


def _kernel(plan: Plan, op: Op, key: str, compute: str) -> str:
    s = op.entry.structured
    assert s is not None
    name = next(k.name for k in op.kernels if k.key == key)
    out_names = {a.name for a in op.entry.schema.out_arguments}
    inputs = [p.name for p in op.params if p.schema_name not in out_names]
    call = f"structured_pointwise<functors::{s.functor}, {compute}>"
    label = string_literal(s.op_name)
    head = f"\n// {entry_ref(plan, op)}\n{op.ret} {name}({params_decl(op.params)}) {{\n"
    if s.role == "functional":
        body = f"  Tensor out;\n  {call}({label}, out, {', '.join(inputs)});\n  return out;\n"
    else:
        target = "self" if s.role == "inplace" else next(p.name for p in op.params if p.schema_name in out_names)
        body = f"  return {call}({label}, {target}, {', '.join(inputs)});\n"
    return head + body + "}\n"
