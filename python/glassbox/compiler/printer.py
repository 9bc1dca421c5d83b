"""A Graph printed as a short Python program over gb.ops: one line per operator call, each value
annotated with its dtype and shape and each line with the user's file:line. The readable form is
what print(compiled.graph) shows; the runnable form adds the saved inputs and a __main__ block."""

import math
import os

from . import schema as schemas
from .graph import Value, flatten
from .runtime import read_text


def constant_text(c):
    if isinstance(c, Value):
        return c.name
    if isinstance(c, (list, tuple)):
        inner = ", ".join(constant_text(x) for x in c)
        return "[%s]" % inner if isinstance(c, list) else "(%s%s)" % (inner, "," if len(c) == 1 else "")
    if isinstance(c, float) and not math.isfinite(c):
        return "float(%r)" % str(c)
    if type(c).__name__ == "dtype":
        return "gb." + str(c).rsplit(".", 1)[-1]
    if type(c).__name__ == "device":
        return repr(str(c))
    return repr(c)


def _same(value, default):
    """value equals the schema default (True is not 1, a list equals a tuple)."""
    if isinstance(value, Value):
        return False
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(value) == list(default)
    if isinstance(value, (int, float)) and isinstance(default, (int, float)):
        return value == default
    return type(value) is type(default) and value == default


def call_text(op, args):
    """ "glassbox.add.Tensor(x, y)" with arguments equal to their defaults left out."""
    ns, rest = op.split("::", 1)
    name, _, overload = rest.partition(".")
    target = "%s.%s.%s" % (ns, name, overload or "default")
    try:
        arguments = schemas.of(op).arguments
    except RuntimeError:
        arguments = ()
    if len(arguments) != len(args):
        return "%s(%s)" % (target, ", ".join(constant_text(a) for a in args))
    positional, keywords = [], []
    for a, value in zip(arguments, args):
        is_default = a.has_default and _same(value, a.default)
        if a.kwarg_only:
            if not is_default:
                keywords.append("%s=%s" % (a.name, constant_text(value)))
        else:
            positional.append((is_default, constant_text(value)))
    while positional and positional[-1][0]:
        positional.pop()
    return "%s(%s)" % (target, ", ".join([text for _, text in positional] + keywords))


def _short_where(where):
    if not where:
        return ""
    path, _, line = where.rpartition(":")
    return "%s:%s" % (os.path.basename(path), line)


def _outputs_text(structure):
    if isinstance(structure, Value):
        return structure.name
    if isinstance(structure, (list, tuple)):
        inner = ", ".join(_outputs_text(s) for s in structure)
        return "[%s]" % inner if isinstance(structure, list) else "(%s%s)" % (inner, "," if len(structure) == 1 else "")
    if isinstance(structure, dict):
        return "{%s}" % ", ".join("%r: %s" % (k, _outputs_text(v)) for k, v in structure.items())
    return constant_text(structure)


def body_lines(graph, annotate=True):
    lines = []
    for node in graph.nodes:
        if node.kind == "read":
            method = node.op.split("::", 1)[1]
            lines.append(
                "    check_value(%s, %s, %r, %r)"
                % (
                    read_text(method, node.args[0].name),
                    constant_text(node.args[1]),
                    node.note,
                    _short_where(node.where),
                )
            )
            continue
        call = call_text(node.op, node.args)
        if len(node.outputs) == 1 and not node.list_output:
            target = node.outputs[0].name
            if annotate:
                target += ': "%s"' % node.outputs[0].type_text()
        else:
            target = ", ".join(v.name for v in node.outputs) + ("," if len(node.outputs) == 1 else "")
        comment = []
        if annotate and node.kind == "fused":
            comment.append("fuses " + ", ".join(m.outputs[0].name for m in node.members))
        if annotate and node.note:
            comment.append(node.note)
        if annotate and node.where:
            comment.append(_short_where(node.where))
        if annotate and len(node.outputs) > 1:
            comment.insert(0, ", ".join('%s: "%s"' % (v.name, v.type_text()) for v in node.outputs))
        lines.append("    %s = %s%s" % (target, call, "  # " + "; ".join(comment) if comment else ""))
    for original, final in graph.mutations:
        lines.append(
            "    glassbox.copy_.default(%s, %s)%s"
            % (original.name, final.name, "  # the function wrote %s in place" % original.name if annotate else "")
        )
    lines.append("    return %s" % _outputs_text(graph.outputs))
    return lines


def header(graph):
    ops = sum(len(n.members) if n.kind == "fused" else 1 for n in graph.nodes if n.kind != "read")
    kernels = sum(1 for n in graph.nodes if n.kind == "fused")
    what = "%d operator calls" % ops + (
        ", %d of them in %d generated kernels"
        % (sum(len(n.members) for n in graph.nodes if n.kind == "fused"), kernels)
        if kernels
        else ""
    )
    return "# gb.compile: `%s` (%s), %s graph: %s" % (graph.name, _short_where(graph.source), graph.stage, what)


def signature(graph, annotate=True):
    params = []
    for v in graph.inputs:
        params.append('%s: "%s"' % (v.name, v.type_text()) if annotate else v.name)
    return "def %s(%s):" % (graph.function, ", ".join(params))


def readable(graph, runnable_imports=False, preamble=""):
    """The graph as a Python program (the text print(compiled.graph) shows)."""
    reads = any(n.kind == "read" for n in graph.nodes)
    stdlib = (["import operator"] if reads else []) + (["import os"] if runnable_imports else [])
    lines = [header(graph)] + stdlib + ([""] if stdlib else []) + ["import glassbox as gb"]
    if reads:
        lines.append("from glassbox.compiler.runtime import check_value")
    lines.append("")
    if preamble:
        lines += [preamble.rstrip("\n"), ""]
    namespaces = sorted(
        {n.op.split("::", 1)[0] for n in graph.nodes if n.kind != "read"} | ({"glassbox"} if graph.mutations else set())
    )
    for ns in namespaces:
        lines.append("%s = gb.ops.%s" % (ns, ns))
    if graph.constants:
        lines.append("# tensors the function used without taking them as inputs: " + ", ".join(graph.constants))
    lines += ["", "", signature(graph)] + body_lines(graph)
    return "\n".join(lines) + "\n"


RUNNABLE_MAIN = '''

_HERE = os.path.dirname(os.path.abspath(__file__))


def load_inputs():
    """The inputs of the call that was captured, and the tensors it used as constants."""
    saved = gb.load(os.path.join(_HERE, "graph_inputs.gb"))
    globals().update({name: saved[name] for name in %(constants)r})
    return [saved[name] for name in %(inputs)r]


if __name__ == "__main__":
    print(%(function)s(*load_inputs()))
'''


def runnable(graph, preamble=""):
    """A program that runs on its own: the graph, the saved inputs (graph_inputs.gb next to it)
    and a __main__ block that prints the result. preamble: lines to run first (loading a library of
    generated kernels)."""
    text = readable(graph, runnable_imports=True, preamble=preamble)
    names = {"constants": list(graph.constants), "inputs": [v.name for v in graph.inputs], "function": graph.function}
    return text + RUNNABLE_MAIN % names


def saved_tensors(graph, inputs):
    """{name: tensor} for graph_inputs.gb: the call's inputs and the graph's constants."""
    saved = {v.name: t for v, t in zip(graph.inputs, inputs)}
    saved.update(graph.constants)
    return saved


def value_names(structure):
    return [v.name for v in flatten(structure) if isinstance(v, Value)]
