"""Graphs of what a program built at run time, drawn with Graphviz.

    import glassbox as gb
    z = (A @ x).sum()
    g = gb.graphs.autograd_graph(z, names={"A": A, "x": x})
    g                 # drawn inline in Jupyter (SVG)
    print(g.dot())    # the DOT text; g.svg() renders it with Graphviz's `dot` program

The autograd graph is read the way the engine runs it: from a tensor's grad_fn along each node's
next_functions, down to the AccumulateGrad nodes of the leaves. The build's graphs
(gb.introspect.deps, ...) are drawn by the compiled tools; this one needs only `dot`.
"""

from __future__ import annotations

import shutil as _shutil
import subprocess as _subprocess
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

__all__ = ["AutogradGraph", "autograd_graph"]

# The colours of glassbox's other graphs (graphs/styles.cpp): autograd nodes orange, leaves blue,
# the tensors the walk started from green.
_STYLE = {
    "node": 'shape=box, style="rounded,filled", fillcolor="#f9cb9c", color="#e69138"',
    "accumulate": 'shape=box, style=filled, fillcolor="#cfe2f3", color="#3d85c6"',
    "root": 'shape=box, style="filled,bold", fillcolor="#d9ead3", color="#38761d"',
}


@dataclass
class AutogradNode:
    id: str  # "n0", "n1", ... in the order the walk found them
    kind: str  # "root" (a tensor the walk started from), "node", "accumulate"
    label: str  # what the drawing shows
    name: str  # grad_fn name ("SigmoidBackward0", "AccumulateGrad") or the tensor's name
    sequence_nr: Optional[int]  # the node's creation number (None for root tensors)


@dataclass
class AutogradEdge:
    source: str  # node id; gradients flow from source to target
    target: str
    index: int  # position in the source's next_functions
    input_nr: int  # which output of the forward call the target differentiates


class AutogradGraph:
    """The backward graph reachable from some tensors: .nodes, .edges, .dot(), .svg(), inline SVG."""

    def __init__(self, nodes: List[AutogradNode], edges: List[AutogradEdge], title: str = ""):
        self.nodes = nodes
        self.edges = edges
        self.title = title

    def node(self, name: str) -> AutogradNode:
        """The first node with this name (e.g. "MmBackward0", or a name given in names=)."""
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(f"no node named {name!r} in the autograd graph; names: {sorted({n.name for n in self.nodes})}")

    def dot(self, rankdir: str = "TB") -> str:
        """The graph as Graphviz DOT text."""
        lines = [
            "digraph autograd {",
            f"  rankdir={rankdir};",
            '  node [fontname="Helvetica", fontsize=11];',
            '  edge [fontname="Helvetica", fontsize=9];',
        ]
        if self.title:
            lines.append(f'  label="{_escape(self.title)}"; labelloc=t;')
        for n in self.nodes:
            lines.append(f'  {n.id} [label="{_escape(n.label)}", {_STYLE[n.kind]}];')
        fan_out = {}
        for e in self.edges:
            fan_out[e.source] = fan_out.get(e.source, 0) + 1
        for e in self.edges:
            label = f' [label="{e.index}"]' if fan_out[e.source] > 1 else ""
            lines.append(f"  {e.source} -> {e.target}{label};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def svg(self, rankdir: str = "TB") -> str:
        """The graph rendered as SVG by Graphviz's `dot` program."""
        dot = _shutil.which("dot")
        if dot is None:
            raise RuntimeError(
                "drawing an autograd graph needs Graphviz's `dot` program, which is not on PATH "
                "(install graphviz); .dot() gives the DOT text without it"
            )
        run = _subprocess.run([dot, "-Tsvg"], input=self.dot(rankdir).encode(), capture_output=True)
        if run.returncode != 0:
            raise RuntimeError(
                f"dot failed to render the autograd graph: {run.stderr.decode(errors='replace').strip()}"
            )
        return run.stdout.decode("utf-8")

    def save(self, path: str, rankdir: str = "TB") -> str:
        """Writes .svg or .dot/.gv (by extension); returns the path."""
        if path.endswith(".svg"):
            text = self.svg(rankdir)
        elif path.endswith((".dot", ".gv")):
            text = self.dot(rankdir)
        else:
            raise ValueError(f"cannot save an autograd graph as {path!r}: use a .svg, .dot or .gv file")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def _repr_svg_(self):
        # Jupyter draws the SVG; without Graphviz it falls back to the text repr.
        return self.svg() if _shutil.which("dot") else None

    def __repr__(self) -> str:
        names = ", ".join(n.name for n in self.nodes if n.kind != "root")
        return f"<AutogradGraph: {len(self.nodes)} nodes, {len(self.edges)} edges: {names}>"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _shape(t) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def _accumulator_of(leaf):
    """The AccumulateGrad node of a leaf that requires grad. The engine keeps one per leaf while a
    graph uses it; a throwaway operation on the leaf reaches it through its first next edge."""
    from . import autograd

    with autograd.enable_grad():
        probe = leaf * 1.0
    return probe.grad_fn.next_functions[0][0]


def autograd_graph(tensors, names: Optional[Dict[str, object]] = None, title: str = "") -> AutogradGraph:
    """The backward graph of a tensor (or a list of tensors), walked from grad_fn along next_functions.

    names: {"A": A, "x": x, ...} labels the leaves' AccumulateGrad nodes (and, for tensors made by
    an operation, their grad_fn) with those names and shapes, as torchviz's params do."""
    from . import _C

    roots: Sequence = [tensors] if isinstance(tensors, _C.Tensor) else list(tensors)
    if not roots:
        raise ValueError("autograd_graph needs at least one tensor")
    for i, t in enumerate(roots):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"autograd_graph takes tensors, got {type(t).__name__} at position {i}")
        if t.grad_fn is None:
            raise ValueError(
                f"autograd_graph: tensor {i} of shape {_shape(t)} has no grad_fn "
                f"({'it is a leaf' if t.requires_grad else 'it does not require grad'}), "
                "so there is no backward graph to draw"
            )

    # Python wrappers of the nodes stay alive in `seen`, so the same C++ node always comes back as
    # the same Python object and id() identifies it.
    labels: Dict[int, str] = {}
    keep_alive = []
    for label, t in (names or {}).items():
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"names[{label!r}] is a {type(t).__name__}, not a tensor")
        if t.grad_fn is not None:
            node = t.grad_fn
        elif t.requires_grad:
            node = _accumulator_of(t)
        else:
            raise ValueError(f"names[{label!r}] does not require grad, so it is not in any backward graph")
        keep_alive.append(node)
        labels[id(node)] = f"{label} {_shape(t)}"

    nodes: List[AutogradNode] = []
    edges: List[AutogradEdge] = []
    seen: Dict[int, AutogradNode] = {}

    def visit(fn) -> AutogradNode:
        key = id(fn)
        if key in seen:
            return seen[key]
        name = fn.name()
        accumulate = name == "AccumulateGrad"
        label = name if key not in labels else f"{name}\n{labels[key]}"
        if not accumulate:
            label += f"\nsequence_nr={fn.sequence_nr}"
        n = AutogradNode(
            id=f"n{len(nodes)}",
            kind="accumulate" if accumulate else "node",
            label=label,
            name=name,
            sequence_nr=fn.sequence_nr,
        )
        nodes.append(n)
        seen[key] = n
        keep_alive.append(fn)
        return n

    root_nodes = []
    for i, t in enumerate(roots):
        r = AutogradNode(
            id=f"n{len(nodes)}", kind="root", label=f"tensor {_shape(t)}", name=f"output {i}", sequence_nr=None
        )
        nodes.append(r)
        root_nodes.append(r)
    queue = []
    for r, t in zip(root_nodes, roots):
        fn = t.grad_fn
        edges.append(AutogradEdge(r.id, visit(fn).id, 0, t.output_nr))
        queue.append(fn)
    done = set()
    while queue:  # breadth first, so the drawing's ids follow the distance from the outputs
        fn = queue.pop(0)
        if id(fn) in done:
            continue
        done.add(id(fn))
        source = seen[id(fn)]
        for index, (next_fn, input_nr) in enumerate(fn.next_functions):
            if next_fn is None:  # that input did not require grad
                continue
            edges.append(AutogradEdge(source.id, visit(next_fn).id, index, input_nr))
            queue.append(next_fn)
    return AutogradGraph(nodes, edges, title)
