"""Constant folding: a call that reads no input of the function (only numbers, or tensors the
graph already holds as constants) gives the same tensor at every call, so it runs once, when the
function is compiled, and its result becomes a constant of the graph. A causal mask is the usual
case: ones([T, T]) -> tril -> == 0, three kernels per attention layer at every step, folded to
one boolean tensor.

Not folded: operators that draw random numbers (each call must draw anew), `empty` and its kin
(their memory is filled later), and results the caller receives (the caller may write into what it
gets; a constant would carry that write into the next call)."""

from . import dead_code, decompositions
from .graph import Value

_UNFILLED = ("empty", "empty_like", "empty_strided", "new_empty")


def _foldable(node, constant_ids, visible):
    if node.kind != "call" or node.list_output or dead_code.draws_random_numbers(node):
        return False
    if node.short_op.split(".", 1)[0] in _UNFILLED or any(id(v) in visible for v in node.outputs):
        return False
    return all(id(v) in constant_ids for v in node.input_values())


def fold(graph, visible):
    """Runs the foldable calls of `graph` and makes their results constants (the graph's node list,
    constants and constant values are replaced, not changed: another stage's graph may share them).
    visible: ids of the values the caller receives. Returns lines for the fusion log."""
    constant_ids = {id(v) for v in graph.constant_values}
    env = {id(v): graph.constants[v.name] for v in graph.constant_values}
    constants, constant_values, kept, folded = dict(graph.constants), list(graph.constant_values), [], []
    for n in graph.nodes:
        if not _foldable(n, constant_ids, visible):
            kept.append(n)
            continue

        def resolve(a):
            if isinstance(a, Value):
                return env[id(a)]
            return [resolve(x) for x in a] if isinstance(a, list) else a

        result = decompositions.call_op(n.op, [resolve(a) for a in n.args])
        for v, t in zip(n.outputs, result if isinstance(result, (list, tuple)) else [result]):
            env[id(v)] = constants[v.name] = t
            constant_ids.add(id(v))
            constant_values.append(v)  # the same Value: the nodes reading it are unchanged
        folded.append(n)
    if not folded:
        return []
    # a folded value only other folded calls read (ones under tril) is not kept
    read = {id(v) for n in kept for v in n.input_values()} | {id(v) for v in graph.output_values()}
    made = {id(v) for n in folded for v in n.outputs}
    constant_values = [v for v in constant_values if id(v) not in made or id(v) in read]
    graph.constants = {v.name: constants[v.name] for v in constant_values}
    graph.constant_values, graph.nodes = constant_values, kept
    return [
        "%-14s computed once, when compiled: it reads no input of the function (%s); %s"
        % (
            n.outputs[0].name,
            n.short_op,
            "kept as a constant" if any(id(v) in read for v in n.outputs) else "read only by the folded calls after it",
        )
        for n in folded
    ]
