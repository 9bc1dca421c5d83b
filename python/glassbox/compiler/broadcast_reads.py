"""Expands read as broadcasts. An element-wise operator broadcasts its inputs itself, so
add(a, expand(s, a.shape)) computes what add(a, s) computes. Reading s directly lets fusion put the
add into the row loop that made s (a per-row value, read once per row) instead of leaving the
expand, a library view, between two kernels. Autograd's backward of a keepdim sum is such an
expand: softmax's backward is one kernel instead of two because of this pass."""

import dataclasses

from . import codegen_cpp
from .graph import Value


def fold_expands(graph):
    """Replaces each element-wise use of an expand's result whose operator would broadcast the
    expand's input to the same shape anyway (another of its inputs has the full shape) by a call
    reading the input, and removes the expands nothing reads any more. The graph's node list is
    replaced, its nodes are not changed (another stage's graph may share them). Returns lines for
    the fusion log."""
    users = graph.users()
    replaced = {}  # id(node) -> its copy reading the expand's input
    kept = {id(v) for v in graph.output_values()}
    lines, removed = [], set()
    for n in graph.nodes:
        if n.op != "glassbox::expand" or not isinstance(n.args[0], Value):
            continue
        source, expanded = n.args[0], n.outputs[0]
        full = tuple(expanded.shape)
        readers = users.get(id(expanded), [])
        rewired = []
        for u in readers:
            if u.op not in codegen_cpp.POINTWISE or tuple(u.outputs[0].shape) != full:
                continue
            if not any(v is not expanded and tuple(v.shape) == full for v in u.input_values()):
                continue
            current = replaced.get(id(u), u)
            replaced[id(u)] = dataclasses.replace(current, args=[source if a is expanded else a for a in current.args])
            rewired.append(u)
        if not rewired:
            continue
        gone = len(rewired) == len(readers) and id(expanded) not in kept
        if gone:
            removed.add(id(n))
        lines.append(
            "%-14s read as %s broadcast by %s (an element-wise operator broadcasts its inputs)%s"
            % (
                expanded.name,
                source.name,
                ", ".join(u.outputs[0].name for u in rewired),
                "; the expand is removed" if gone else "",
            )
        )
    graph.nodes = [replaced.get(id(n), n) for n in graph.nodes if id(n) not in removed]
    return lines
