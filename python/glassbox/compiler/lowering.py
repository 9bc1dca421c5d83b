"""From a decomposed graph to a program that runs: fusion, C++ generation (built and loaded), and
the Python wrapper that calls the generated kernels and the library operators in order. The
forward-only compilation and both graphs of a training compilation go through here."""

import builtins
import dataclasses
import linecache
import os

from ..ops import ops
from . import broadcast_reads, codegen_cpp, constant_folding, fusion, kernels, nvrtc, printer, typed_calls
from .runtime import check_value


class Lowered:
    """One graph lowered: its fusion log, fused graph, generated kernels and C++ source."""

    def __init__(self, graph, fused, fusion_log, kernels=(), cpp_source="", library_path=None):
        self.unbuilt = []  # (kernel, schema) pairs lower(build=False) left to build_libraries
        self.graph = graph
        self.fused = fused
        self.fusion_log = fusion_log
        self.kernels = list(kernels)
        self.cpp_source = cpp_source
        self.library_path = library_path


def lower(graph, backend, grad_enabled, removed=(), build=True, visible=None):
    """Fuses and generates `graph` (backend "glassbox"), or keeps it as library calls ("eager").
    removed: the nodes dead-code elimination dropped, named at the top of the log. build=False
    leaves the library to build_libraries, which builds several graphs' at once. visible: the
    values the caller receives (default: every output), which constant folding leaves alone."""
    if backend == "eager":
        return Lowered(graph, graph, fusion.FusionLog(["backend 'eager': no decomposition or fusion"]))
    graph = dataclasses.replace(graph)  # the passes below replace its lists: the caller's graph stays
    if visible is None:
        visible = graph.output_values()
    folded = constant_folding.fold(graph, {id(v) for v in visible})
    folded += broadcast_reads.fold_expands(graph)
    groups, log = fusion.plan(graph, grad_enabled)
    log.lines[:0] = folded
    for n in reversed(list(removed)):
        log.lines.insert(0, "%-14s removed: its result is never used" % n.outputs[0].name)
    users = graph.users()
    outputs = {id(v) for v in graph.output_values()}
    # GPU kernels compile in the background (nvrtc.py), overlapping each other and the C++ build
    generated = [codegen_cpp.generate(g, users, outputs, background=True) for g in groups]
    made = [k for k, _ in generated]
    fused = fusion.fuse(graph, groups, made)
    cpp_source, library_path, new = "", None, []
    if generated:
        cpp_source = codegen_cpp.source_file(generated)
        new = kernels.missing(generated)
        library_path = None if new else "(already loaded)"
    for k in made:
        log.note("kernel %s: %s" % (k.op_name, ", ".join(m.outputs[0].name for m in k.members)))
        for note in k.notes:
            log.note("  " + note)
    lowered = Lowered(graph, fused, log, made, cpp_source, library_path)
    lowered.unbuilt = new
    if build:
        build_libraries([lowered])
    return lowered


def build_libraries(lowered_graphs):
    """Builds and loads the libraries of kernels that lower(build=False) left; they compile at the
    same time. A kernel two graphs share is built with the first."""
    taken, pending = set(), []
    for lowered in lowered_graphs:
        new = [(k, s) for k, s in lowered.unbuilt if k.op_name not in taken]
        taken.update(k.op_name for k, _ in new)
        lowered.unbuilt = []
        if new:
            pending.append((lowered, codegen_cpp.source_files(new, kernels.parts_for(len(new)))))
        elif lowered.library_path is None and lowered.kernels:
            lowered.library_path = "(already loaded)"
    try:
        paths = kernels.build_and_load_all([source for _, source in pending])
    finally:
        nvrtc.finish()  # every generated CUDA kernel's binary is on disk before a wrapper launches it
    for (lowered, _), path in zip(pending, paths):
        lowered.library_path = path


def wrapper_source(fused):
    lines = [printer.signature(fused, annotate=False)] + printer.body_lines(fused, annotate=False)
    return "\n".join(lines) + "\n"


def wrapper_runnable(lowered):
    preamble = ""
    if lowered.library_path and os.path.isfile(lowered.library_path):
        preamble = "gb.utils.cpp_extension.load_library(%r)  # the generated kernels\n" % lowered.library_path
    return printer.runnable(lowered.fused, preamble)


def make_program(fused, filename):
    """The fused graph as a Python function (its source registered under `filename`, so tracebacks
    and the profiler show the wrapper's lines)."""
    source = wrapper_source(fused)
    namespace = {"gb": __import__("glassbox"), "check_value": check_value}
    namespace["operator"] = __import__("operator")
    for node in fused.nodes:
        ns = node.op.split("::", 1)[0]
        namespace[ns] = getattr(ops, ns)
    namespace["glassbox"] = typed_calls.TypedNamespace(ops.glassbox)
    namespace.update(fused.constants)  # the captured tensors and those folded when compiling
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(builtins.compile(source, filename, "exec"), namespace)
    return namespace[fused.function]
