"""The compiler's IR: a graph of operator calls over values, in the order they ran.

A Value is a tensor the graph knows (an input, a lifted parameter, a tensor constant, or a node's
result) with the metadata capture saw: shape, strides, dtype, device, requires_grad. A Node is one
operator call: the operator's full name, its arguments in schema order (Values, constants, or
lists of both), its result Values, and the user's Python line that made the call. A fused kernel
is a Node too (kind "fused") whose `members` are the nodes it replaced, so every stage prints and
draws the same way. The IR carries requires_grad on each value so that a backward capture and a
forward/backward partition work on the same structures (training.py)."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


@dataclass(eq=False)
class Value:
    name: str
    shape: Tuple[int, ...]
    stride: Tuple[int, ...]
    dtype: Any  # a glassbox dtype
    device: str
    requires_grad: bool = False
    kind: str = "node"  # "input", "parameter", "constant" or "node"
    producer: Optional["Node"] = None
    is_view: bool = False

    @property
    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def type_text(self):
        """ "f32[4, 3]" as the printed program annotates values."""
        return "%s[%s]" % (dtype_short(self.dtype), ", ".join(str(s) for s in self.shape))

    def __repr__(self):
        return "%%%s: %s" % (self.name, self.type_text())


@dataclass(eq=False)
class Node:
    op: str  # "glassbox::add.Tensor", or "compiled::fused_..." for a fused kernel
    args: List[Any]  # schema order: Value, constant, or a list of them
    outputs: List[Value]
    where: str = ""  # "file.py:12", the user's line
    kind: str = "call"  # "call" or "fused"
    members: List["Node"] = field(default_factory=list)  # a fused node's original nodes
    list_output: bool = False  # the operator returns Tensor[] (outputs are its elements)
    note: str = ""  # what a pass wants the printout to say about this node
    # no gradient flows through this node's results (a decomposition's choice, e.g. softmax's shift)
    no_gradient: bool = False
    # (input Value, formula): this node's result is a decomposed operator's whose gradient with
    # respect to `input` formula(result, grad) gives, in place of the per-node formulas of the nodes
    # between them (softmax's, from its result alone: the backward need not read its exp)
    gradient_formula: Any = None

    def input_values(self):
        """The Values among the arguments, in order, without repeats."""
        seen, found = set(), []
        for a in self.args:
            for v in a if isinstance(a, (list, tuple)) else [a]:
                if isinstance(v, Value) and id(v) not in seen:
                    seen.add(id(v))
                    found.append(v)
        return found

    @property
    def short_op(self):
        return self.op.split("::", 1)[1]


@dataclass(eq=False)
class Graph:
    name: str  # the captured function's name
    inputs: List[Value]  # the function's tensor inputs, then lifted parameters
    nodes: List[Node]
    outputs: Any  # the result's structure with Values in place of tensors
    constants: Dict[str, Any] = field(default_factory=dict)  # name -> tensor captured by reference
    constant_values: List[Value] = field(default_factory=list)  # their Values, in constants' order
    scalar_inputs: Dict[str, Any] = field(default_factory=dict)  # Python numbers seen as inputs
    # inputs the function wrote in place: (the input, its final value), written back after the run
    mutations: List[Tuple[Value, Value]] = field(default_factory=list)
    source: str = ""  # "file.py:line" of the function
    stage: str = "captured"  # "captured", "decomposed", "fused"
    decompositions: List[str] = field(default_factory=list)  # the operators a decomposed graph rewrote
    function: str = "forward"  # the name of the printed program's function ("backward" for a backward graph)

    def output_values(self):
        """The values the graph hands back: its outputs and the new values of inputs it wrote."""
        return [v for v in flatten(self.outputs) if isinstance(v, Value)] + [final for _, final in self.mutations]

    def users(self):
        """{id(value): [nodes using it]}"""
        found: Dict[int, List[Node]] = {}
        for n in self.nodes:
            for v in n.input_values():
                found.setdefault(id(v), []).append(n)
        return found

    def values(self):
        seen = list(self.inputs)
        for n in self.nodes:
            seen.extend(n.outputs)
        return seen


def flatten(structure):
    """The leaves of nested tuples, lists and dicts, in order."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in structure for leaf in flatten(structure[key])]
    return [structure]


def map_structure(fn, structure):
    """The same nesting with fn applied to each leaf."""
    if isinstance(structure, tuple):
        return tuple(map_structure(fn, s) for s in structure)
    if isinstance(structure, list):
        return [map_structure(fn, s) for s in structure]
    if isinstance(structure, dict):
        return {k: map_structure(fn, v) for k, v in structure.items()}
    return fn(structure)


_DTYPE_SHORT = {
    "float32": "f32",
    "float64": "f64",
    "float16": "f16",
    "bfloat16": "bf16",
    "int64": "i64",
    "int32": "i32",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "bool": "b8",
}


def dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def dtype_short(dtype):
    name = dtype_name(dtype)
    return _DTYPE_SHORT.get(name, name)
