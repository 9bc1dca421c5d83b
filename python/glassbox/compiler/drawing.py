"""The graph before and after fusion as Graphviz DOT: operators as boxes (library calls grey,
fused kernels as a cluster of their member operators), values on the edges."""

import shutil
import subprocess

_STYLE = {
    "input": 'shape=box, style="rounded,filled", fillcolor="#cfe2f3", color="#3d85c6"',
    "call": 'shape=box, style="rounded,filled", fillcolor="#eeeeee", color="#666666"',
    "member": 'shape=box, style="rounded,filled", fillcolor="#f9cb9c", color="#e69138"',
    "output": 'shape=box, style="filled,bold", fillcolor="#d9ead3", color="#38761d"',
}


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def dot(graph, title=""):
    """DOT text of a graph; a fused node is drawn as a cluster holding its members."""
    lines = [
        "digraph compiled {",
        "  rankdir=TB;",
        '  node [fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8];',
    ]
    if title:
        lines.append('  label="%s"; labelloc=t;' % _escape(title))
    producer = {}
    for v in graph.inputs:
        lines.append('  "%s" [label="%s\\n%s", %s];' % (v.name, v.name, v.type_text(), _STYLE["input"]))
        producer[id(v)] = v.name
    for name in graph.constants:
        lines.append('  "%s" [label="%s", %s];' % (name, name, _STYLE["input"]))
    for i, node in enumerate(graph.nodes):
        if node.kind == "fused":
            lines.append('  subgraph "cluster_%d" {' % i)
            lines.append('    label="%s"; style="rounded,dashed"; color="#e69138";' % _escape(node.short_op))
            for m in node.members:
                out = m.outputs[0]
                lines.append(
                    '    "%s" [label="%s\\n%s", %s];' % (out.name, m.short_op, out.type_text(), _STYLE["member"])
                )
            lines.append("  }")
            inner = {id(v) for m in node.members for v in m.outputs}
            for m in node.members:
                for v in m.input_values():
                    src = v.name if id(v) in inner else producer.get(id(v), v.name)
                    lines.append('  "%s" -> "%s";' % (src, m.outputs[0].name))
                for v in m.outputs:
                    producer[id(v)] = v.name
        else:
            ident = node.outputs[0].name if node.outputs else "node%d" % i
            if node.kind == "read":
                label = "%s\\n(checked at run time)" % _escape(node.note)
            else:
                label = "%s\\n%s" % (_escape(node.short_op), _escape(", ".join(v.type_text() for v in node.outputs)))
            lines.append('  "%s" [label="%s", %s];' % (ident, label, _STYLE["call"]))
            for v in node.input_values():
                lines.append('  "%s" -> "%s";' % (producer.get(id(v), v.name), ident))
            for v in node.outputs:
                producer[id(v)] = ident
    for k, v in enumerate(x for x in graph.output_values()):
        lines.append('  "output_%d" [label="output %d", %s];' % (k, k, _STYLE["output"]))
        lines.append('  "%s" -> "output_%d";' % (producer.get(id(v), v.name), k))
    lines.append("}")
    return "\n".join(lines) + "\n"


def svg(dot_text):
    """SVG from DOT through Graphviz's `dot`, or None when it is not installed."""
    program = shutil.which("dot")
    if program is None:
        return None
    run = subprocess.run([program, "-Tsvg"], input=dot_text.encode(), capture_output=True)
    return run.stdout.decode() if run.returncode == 0 else None


__all__ = ["dot", "svg"]
