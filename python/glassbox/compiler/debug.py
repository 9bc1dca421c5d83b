"""The debug artifacts of one compilation, written to a folder:

graph_readable.py      the captured graph as a Python program over gb.ops
graph_runnable.py      the same, runnable: loads graph_inputs.gb and prints the result
graph_inputs.gb        the captured call's inputs and constants (gb.save)
graph_decomposed.py    after the decompositions (decompositions.txt lists the table)
fusion_log.txt         every fusion decision with its reason
graph_fused.py         the graph after fusion: generated kernels and library calls
output_code.cpp        the generated C++ (with each line's graph node and Python line)
output_code.cu/.ptx    the generated CUDA kernels and their PTX, for a graph on a GPU
output_code.py         the wrapper the compiled function runs, runnable on its own
graph_pre_fusion.dot / graph_post_fusion.dot (and .svg when Graphviz is installed)
guards.txt             what a call must match to reuse this compilation

A training compilation (inputs that require grad) adds the backward's:
partition.txt                  what the forward saves for the backward, what the backward recomputes
graph_backward_readable.py     the backward graph as captured (autograd's calls), after the partition
fusion_log_backward.txt        the backward's fusion decisions
graph_backward_fused.py        the backward after fusion
output_code_backward.cpp       its generated C++
output_code_backward.py        the wrapper the compiled backward runs
graph_backward_pre_fusion.dot / graph_backward_post_fusion.dot (and .svg)
(graph_fused.py and output_code.py are then the forward's, returning the saved values too.)"""

import os

from .. import save
from . import codegen_cuda, decompositions, drawing, printer


def path_in(directory, name):
    """directory/name, or None without a directory."""
    return os.path.join(directory, name) if directory else None


def write(directory, compiled):
    """Writes the artifacts of `compiled` (a Compilation) into directory; returns {name: path}."""
    os.makedirs(directory, exist_ok=True)
    paths = {}

    def put(name, text):
        if text is None:
            return
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths[name] = path

    put("graph_readable.py", printer.readable(compiled.captured))
    put("graph_runnable.py", printer.runnable(compiled.captured))
    save(printer.saved_tensors(compiled.captured, compiled.example_inputs), os.path.join(directory, "graph_inputs.gb"))
    paths["graph_inputs.gb"] = os.path.join(directory, "graph_inputs.gb")
    put(
        "decompositions.txt",
        decompositions.table_text(compiled.decomposed.decompositions if compiled.backend != "eager" else []) + "\n",
    )
    put("graph_decomposed.py", printer.readable(compiled.decomposed))
    put("fusion_log.txt", str(compiled.fusion_log))
    put("graph_fused.py", printer.readable(compiled.fused))
    put("output_code.cpp", compiled.cpp_source or "// no generated kernels: every operator is a library call\n")
    put("output_code.cu", codegen_cuda.source_text(compiled.kernels))  # CUDA kernels (NVRTC), if any
    put("output_code.ptx", codegen_cuda.ptx_text(compiled.kernels))
    put("output_code.py", compiled.wrapper_runnable())
    pre = drawing.dot(compiled.decomposed, "%s: before fusion" % compiled.captured.name)
    post = drawing.dot(compiled.fused, "%s: after fusion" % compiled.captured.name)
    put("graph_pre_fusion.dot", pre)
    put("graph_post_fusion.dot", post)
    put("graph_pre_fusion.svg", drawing.svg(pre))
    put("graph_post_fusion.svg", drawing.svg(post))
    put("guards.txt", compiled.guards.describe() + "\n")
    if getattr(compiled, "backward_lowered", None) is not None:
        _write_backward(put, compiled)
    return paths


def _write_backward(put, compiled):
    lowered = compiled.backward_lowered
    put("partition.txt", str(compiled.partition))
    put("graph_backward_readable.py", printer.readable(lowered.graph))
    put("fusion_log_backward.txt", str(lowered.fusion_log))
    put("graph_backward_fused.py", printer.readable(lowered.fused))
    put("output_code_backward.cpp", lowered.cpp_source or "// no generated kernels: every operator is a library call\n")
    put("output_code_backward.py", printer.readable(lowered.fused, preamble=_library_line(lowered)))
    name = compiled.captured.name
    pre = drawing.dot(lowered.graph, "%s backward: before fusion" % name)
    post = drawing.dot(lowered.fused, "%s backward: after fusion" % name)
    put("graph_backward_pre_fusion.dot", pre)
    put("graph_backward_post_fusion.dot", post)
    put("graph_backward_pre_fusion.svg", drawing.svg(pre))
    put("graph_backward_post_fusion.svg", drawing.svg(post))


def _library_line(lowered):
    if lowered.library_path and os.path.isfile(lowered.library_path):
        return "gb.utils.cpp_extension.load_library(%r)  # the generated kernels" % lowered.library_path
    return ""
