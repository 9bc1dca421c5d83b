"""Command line: generate the C++ of engine/ops/ops.yaml, or list what it would generate.

python codegen/generate.py --ops-yaml engine/ops/ops.yaml --out-dir build/dev/generated/glassbox/ops
python codegen/generate.py ... --list-outputs outputs.cmake     # dry run for CMake
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from types import ModuleType

from . import (
    render_autograd,
    render_methods,
    render_native,
    render_ops,
    render_python,
    render_register,
    render_structured,
)
from .api import Plan, build_plan
from .derivatives import load_derivatives
from .errors import CodegenError, CodegenErrors
from .ops_yaml import load_ops

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Each renderer has outputs(plan) -> [relative path] (cheap: the dry run calls only this) and
# render_all(plan) -> {relative path: content}. Further outputs (Python bindings, autograd from
# derivatives.yaml) are added as modules with the same two functions.
RENDERERS: list[ModuleType] = [
    render_ops,
    render_native,
    render_register,
    render_methods,
    render_autograd,
    render_python,
    render_structured,
]

# Outputs that hold CUDA kernels' registrations: built with the CUDA library, not the CPU one.
CUDA_OUTPUTS = (render_register.register_file("CUDA"), render_structured.BACKENDS["CUDA"][0])


def display_path(path: str, source_root: str) -> str:
    """The YAML path as messages and `// file:line` comments show it: relative to the repo."""
    full = os.path.abspath(path)
    rel = os.path.relpath(full, os.path.abspath(source_root))
    return (full if rel.startswith("..") else rel).replace(os.sep, "/")


def load_plan(
    ops_yaml: str, source_root: str = REPO_ROOT, yaml_parser: str = "auto", derivatives_yaml: str | None = None
) -> Plan:
    display = display_path(ops_yaml, source_root)
    plan = build_plan(load_ops(ops_yaml, display, yaml_parser), display)
    if derivatives_yaml:
        plan.derivatives_display = display_path(derivatives_yaml, source_root)
        plan.derivatives = load_derivatives(derivatives_yaml, plan.derivatives_display, yaml_parser)
    return plan


def list_outputs(plan: Plan) -> list[str]:
    files: list[str] = []
    for renderer in RENDERERS:
        files += renderer.outputs(plan)
    return files


def render_outputs(plan: Plan) -> dict[str, str]:
    files: dict[str, str] = {}
    for renderer in RENDERERS:
        rendered = renderer.render_all(plan)
        listed = renderer.outputs(plan)
        if sorted(rendered) != sorted(listed):  # the dry run must name exactly what is written
            raise AssertionError(f"{renderer.__name__}: outputs() {sorted(listed)} != rendered {sorted(rendered)}")
        files.update(rendered)
    return files


def split_outputs(files: list[str]) -> tuple[list[str], list[str], list[str], list[str]]:
    """(headers, sources, CUDA sources, Python binding sources)."""
    headers = [f for f in files if not f.endswith((".cpp", ".cu"))]
    python = [f for f in files if f.endswith(".cpp") and f.startswith("python/")]
    sources = [f for f in files if f.endswith(".cpp") and f not in CUDA_OUTPUTS and f not in python]
    cuda = [f for f in files if f in CUDA_OUTPUTS]
    return headers, sources, cuda, python


def generate(
    ops_yaml: str,
    out_dir: str,
    source_root: str = REPO_ROOT,
    yaml_parser: str = "auto",
    derivatives_yaml: str | None = None,
) -> list[str]:
    """Writes every output whose content changed; returns those (relative to out_dir)."""
    from .outputs import remove_stale, write_outputs

    plan = load_plan(ops_yaml, source_root, yaml_parser, derivatives_yaml)
    files = render_outputs(plan)
    written = write_outputs(out_dir, files)
    remove_stale(out_dir, set(files))
    return written


def main(argv: list[str] | None = None) -> int:
    from .outputs import cmake_list_file, remove_stale, write_if_changed, write_outputs

    parser = argparse.ArgumentParser(prog="codegen", description=__doc__.splitlines()[0])
    parser.add_argument("--ops-yaml", required=True, help="engine/ops/ops.yaml")
    parser.add_argument("--derivatives-yaml", help="engine/ops/derivatives.yaml (backward formulas)")
    parser.add_argument(
        "--out-dir", required=True, help="where glassbox/ops/* go, e.g. build/dev/generated/glassbox/ops"
    )
    parser.add_argument("--source-root", default=REPO_ROOT, help="paths in comments are relative to this (the repo)")
    parser.add_argument(
        "--list-outputs",
        metavar="FILE.cmake",
        help="dry run: write the output lists as CMake variables and generate nothing",
    )
    parser.add_argument("--stamp", metavar="FILE", help="touch FILE after a successful run (the build's OUTPUT)")
    parser.add_argument(
        "--yaml-parser",
        choices=("auto", "pyyaml", "builtin"),
        default="auto",
        help="auto: PyYAML when installed, else the built-in parser",
    )
    parser.add_argument("--verbose", action="store_true", help="name every file written")
    args = parser.parse_args(argv)

    try:
        plan = load_plan(args.ops_yaml, args.source_root, args.yaml_parser, args.derivatives_yaml)
        if args.list_outputs:
            headers, sources, cuda, python = split_outputs(list_outputs(plan))
            write_if_changed(args.list_outputs, cmake_list_file(args.out_dir, headers, sources, cuda, python))
            return 0
        files = render_outputs(plan)
    except (CodegenError, CodegenErrors) as e:
        print(e, file=sys.stderr)
        return 1

    written = write_outputs(args.out_dir, files)
    removed = remove_stale(args.out_dir, set(files))
    if args.verbose:
        for rel in written:
            print(f"codegen: wrote {rel}")
        for rel in removed:
            print(f"codegen: removed {rel}")
    print(
        f"codegen: {len(plan.ops)} operators, {len(files)} files, {len(written)} rewritten"
        + (f", {len(removed)} removed" if removed else "")
    )
    if args.stamp:
        os.makedirs(os.path.dirname(os.path.abspath(args.stamp)), exist_ok=True)
        with open(args.stamp, "w", encoding="utf-8") as f:
            f.write(f"{time.time()}\n")
    return 0
