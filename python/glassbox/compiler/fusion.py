"""Fusion: which operators of a decomposed graph run together in one generated loop, and why.

Greedy, in the order the graph ran:
  * an element-wise operator joins the group(s) that produce its inputs when they iterate over the
    same shape (its result's shape); inputs of a smaller shape are read by broadcasting, as index
    arithmetic in the generated loop; with no such producer, it joins a group over the same shape
    that reads one of its inputs (one pass reads it once);
  * a reduction over the last dimension (sum, mean, amax) joins the group producing its input (or
    starts one): a row group, generated as one loop over rows with a pass per reduction; element-
    wise operators reading its per-row results (kept as [rows, 1], broadcast one value per row)
    join it, as do per-row operators between reductions (softmax, layer_norm: one kernel each);
  * everything else (matmul, views, copies, ...) stays a library call.
A merge is refused when it would make the groups depend on each other in a cycle. A group of one
operator is dissolved: it gains nothing over the library kernel. Every decision goes to the log
with its reason."""

import warnings
from dataclasses import dataclass, field
from typing import List, Tuple

from . import (
    backward_pointwise,  # noqa: F401  (adds the gradient formulas to codegen_cpp.POINTWISE)
    codegen_cpp,
)
from .graph import Graph, Node, Value

FUSIBLE_DTYPES = {"cpu": ("float32", "float64"), "cuda": ("float32", "float64", "float16", "bfloat16")}
REDUCTIONS = {"glassbox::sum.dim_IntList": "sum", "glassbox::mean.dim": "mean", "glassbox::amax": "amax"}


@dataclass(eq=False)
class Group:
    id: int
    members: List[Node] = field(default_factory=list)
    shape: Tuple[int, ...] = ()  # the iteration space (a row group's full shape [..., K])
    reductions: List[Node] = field(default_factory=list)  # last-dim reductions: a row group

    @property
    def kind(self):
        return "row" if self.reductions else "pointwise"

    def label(self):
        return "group %d (%s)" % (self.id, ", ".join(m.outputs[0].name for m in self.members))


def row_shapes(shape):
    """The shapes of a row group's per-row values: its shape with the last dim kept as 1, or dropped."""
    return {tuple(shape[:-1]) + (1,), tuple(shape[:-1])}


def broadcasts_per_row(value_shape, shape):
    """Whether a per-row value of this shape broadcasts over `shape` one value per row."""
    return tuple(value_shape) == tuple(shape[:-1]) + (1,) or (len(shape) == 1 and tuple(value_shape) in ((), (1,)))


@dataclass
class FusionLog:
    lines: List[str] = field(default_factory=list)

    def add(self, node, text):
        where = node.where.rsplit("/", 1)[-1] if node.where else ""
        self.lines.append("%-14s %s%s" % (node.outputs[0].name, text, "  [%s]" % where if where else ""))

    def note(self, text):
        self.lines.append(text)

    def __str__(self):
        return "\n".join(self.lines) + "\n"


def _dtype(v):
    return str(v.dtype).rsplit(".", 1)[-1]


def _device_kind(device):
    return "cpu" if device == "cpu" else "cuda" if device.startswith("cuda") else None


_cuda_warned = []


def _cuda_unavailable():
    """Why CUDA kernels cannot be generated in this process (NVRTC or the driver missing), or None;
    the first time, also a warning: the operators run as library calls."""
    from . import nvrtc

    reason = nvrtc.unavailable_reason()
    if reason and not _cuda_warned:
        _cuda_warned.append(reason)
        warnings.warn("gb.compile: CUDA operators run as library calls, not fused: %s" % reason, stacklevel=2)
    return reason and "no CUDA code generation (%s)" % reason


def group_device(g):
    return g.members[0].outputs[0].device


def why_not_fusible(node, grad_enabled):
    """None when the node can be generated, else the reason it stays a library call."""
    # A 0-d input (a Python number the binding wrapped, a 0-d tensor) of a floating or integer dtype
    # does not decide the result's floating dtype: the loop reads it converted.
    values = [v for v in node.input_values() if not (v.shape == () and _dtype(v) in codegen_cpp.SCALAR_READS)]
    masks = [node.args[k] for k in codegen_cpp.MASK_ARGUMENTS.get(node.op, ())]
    values = [v for v in values if not any(v is m and _dtype(v) == "bool" for m in masks)]
    values += node.outputs
    kind = _device_kind(node.outputs[0].device)
    if kind is None:
        return "device %s (code is generated for the CPU and CUDA)" % node.outputs[0].device
    if kind == "cuda":
        reason = _cuda_unavailable()
        if reason:
            return "device %s: %s" % (node.outputs[0].device, reason)
    for v in node.input_values() + node.outputs:
        # a 0-d CPU input of a CUDA operator (a wrapped Python number) is passed to the kernel by value
        host_number = v.shape == () and v.device == "cpu" and _dtype(v) in codegen_cpp.SCALAR_READS
        if v.device != node.outputs[0].device and not host_number:
            return "it reads %s on %s and writes %s" % (v.name, v.device, node.outputs[0].device)
    for v in values:
        if _dtype(v) not in FUSIBLE_DTYPES[kind]:
            return "dtype %s (the %s generator handles %s)" % (
                _dtype(v),
                "CUDA" if kind == "cuda" else "C++",
                ", ".join(FUSIBLE_DTYPES[kind]),
            )
    if len({_dtype(v) for v in values}) > 1:
        return "mixed dtypes %s (type promotion is not generated yet)" % sorted({_dtype(v) for v in values})
    if any(v.numel == 0 for v in node.outputs):
        return "its result has no elements (nothing to generate)"
    if grad_enabled and any(v.requires_grad for v in node.outputs):
        return "its result requires grad and no input does (a global tensor): autograd records the library call"
    return None


def _reduction_dim(node):
    """True when the node reduces exactly the last dim of its input."""
    x = node.args[0]
    dims = node.args[1] if len(node.args) > 1 else None
    if not isinstance(x, Value) or not x.shape or not isinstance(dims, (list, tuple)) or len(dims) != 1:
        return False
    if node.op == "glassbox::sum.dim_IntList" and len(node.args) > 3 and node.args[3] is not None:
        return False  # a dtype= argument
    if node.op == "glassbox::mean.dim" and len(node.args) > 3 and node.args[3] is not None:
        return False
    return dims[0] in (-1, len(x.shape) - 1) and x.shape[-1] > 0


def _merge_keeps_acyclic(merged, group_of, position, users):
    """Whether contracting the nodes `merged` into one group (every group of group_of contracted
    too) leaves the graph without a cycle: no path leaves the merged nodes and comes back. The
    graph's nodes are in execution order, so a path that comes back only visits nodes up to the
    last merged one; the search stays in that window (a whole-graph check at every merge made
    planning quadratic: 0.3 s of a 0.4 s cached compile of a small GPT)."""
    inside = {id(n) for n in merged}
    limit = max(position[id(n)] for n in merged)
    stack = [u for n in merged for v in n.outputs for u in users.get(id(v), ()) if id(u) not in inside]
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen or position[id(n)] > limit:
            continue
        g = group_of.get(id(n))
        entered = g.members if g is not None else [n]  # a contracted group is entered as a whole
        for m in entered:
            seen.add(id(m))
        for m in entered:
            for v in m.outputs:
                for u in users.get(id(v), ()):
                    if id(u) in inside:
                        return False
                    if id(u) not in seen:
                        stack.append(u)
    return True


def plan(graph: Graph, grad_enabled: bool):
    """The fusion groups of a graph (each with 2 or more members) and the log of decisions."""
    log = FusionLog()
    group_of = {}
    groups: List[Group] = []
    next_id = [0]
    producer = {id(v): n for n in graph.nodes for v in n.outputs}

    def producer_group(v):
        n = producer.get(id(v))
        return group_of.get(id(n)) if n is not None else None

    position = {id(n): i for i, n in enumerate(graph.nodes)}
    users_of = graph.users()

    def try_merge(node, candidates):
        merged = candidates[0]
        if not _merge_keeps_acyclic([m for g in candidates for m in g.members] + [node], group_of, position, users_of):
            return None
        for g in candidates[1:]:
            for m in g.members:
                group_of[id(m)] = merged
            merged.members.extend(g.members)
            groups.remove(g)
        group_of[id(node)] = merged
        merged.members.append(node)
        merged.members.sort(key=lambda m: position[id(m)])
        return merged

    def new_group(node, shape, reductions=()):
        next_id[0] += 1
        g = Group(id=next_id[0] - 1, members=[node], shape=tuple(shape), reductions=list(reductions))
        groups.append(g)
        group_of[id(node)] = g
        return g

    for node in graph.nodes:
        name = node.short_op
        if node.kind == "read":
            log.lines.append(
                "%-14s %s: checked when the program runs; another value compiles another graph"
                % (node.args[0].name, node.note)
            )
        elif node.op in codegen_cpp.POINTWISE:
            reason = why_not_fusible(node, grad_enabled)
            if reason:
                log.add(node, "not fused: %s: %s" % (name, reason))
                continue
            shape = tuple(node.outputs[0].shape)
            candidates, refused = [], []
            for v in node.input_values():
                g = producer_group(v)
                if g is None or g in candidates:
                    continue
                refusal = _join_refusal(g, shape, v)
                if group_device(g) != node.outputs[0].device:
                    refusal = "%s runs on %s, this operator on %s" % (
                        g.label(),
                        group_device(g),
                        node.outputs[0].device,
                    )
                if refusal:
                    refused.append(refusal)
                else:
                    candidates.append(g)
            row_groups = [g for g in candidates if g.reductions]
            for g in row_groups[1:]:
                if g.shape != row_groups[0].shape:
                    candidates.remove(g)
                    refused.append(
                        "%s iterates over %s, %s over %s"
                        % (g.label(), list(g.shape), row_groups[0].label(), list(row_groups[0].shape))
                    )
            for r in refused:
                log.add(node, "not fused with a producer: %s" % r)
            if candidates:
                labels = {id(g): g.label() for g in candidates}
                joined = candidates
                merged = try_merge(node, candidates)
                if merged is None and len(candidates) > 1:
                    # joining them all closes a cycle: join the one made last alone, if that does not
                    for g in sorted(candidates, key=lambda g: max(position[id(m)] for m in g.members), reverse=True):
                        merged = try_merge(node, [g])
                        if merged is not None:
                            joined = [g]
                            break
                if merged is not None:
                    joined_rows = [g for g in joined if g.reductions]
                    merged.shape = joined_rows[0].shape if joined_rows else shape
                    merged.reductions = [m for m in merged.members if m.op in REDUCTIONS]
                    how = " (joins %d groups)" % len(joined) if len(joined) > 1 else ""
                    if joined is not candidates:
                        how += "; joining %s too would make the groups depend on each other in a cycle" % ", ".join(
                            labels[id(g)] for g in candidates if g not in joined
                        )
                    if merged.reductions and shape != merged.shape:
                        why = "a per-row value %s of the row loop over %s" % (list(shape), list(merged.shape))
                    elif merged.reductions and any(
                        producer_group(v) is merged and tuple(v.shape) != merged.shape for v in node.input_values()
                    ):
                        why = "same iteration space %s, reading per-row values broadcast along the last dim" % list(
                            shape
                        )
                    else:
                        why = "same iteration space %s" % list(shape)
                    log.add(node, "fused into %s: %s%s" % (merged.label(), why, how))
                    continue
                log.add(
                    node,
                    "not fused: joining %s would make the groups depend on each other in a cycle"
                    % candidates[0].label(),
                )
            if not candidates:  # no producer to join: a group over the same space reading the same input
                sibling = _sibling(groups, node, shape)
                if sibling is not None and try_merge(node, [sibling]) is not None:
                    log.add(
                        node,
                        "fused into %s: it reads %s as the group does, over the same iteration space "
                        "(one pass reads it once)" % (sibling.label(), _shared_input(sibling, node).name),
                    )
                    continue
            g = new_group(node, shape)
            log.add(node, "starts %s: element-wise over %s" % (g.label(), list(shape)))
        elif node.op in REDUCTIONS:
            reason = why_not_fusible(node, grad_enabled)
            x = node.args[0]
            g = producer_group(x) if isinstance(x, Value) else None
            if reason:
                log.add(node, "not fused: %s: %s" % (name, reason))
            elif not _reduction_dim(node):
                log.add(
                    node,
                    "not fused: %s reduces %s of %s; only a reduction over the last dim is generated"
                    % (name, node.args[1] if len(node.args) > 1 else "every dim", x.type_text()),
                )
            elif g is not None and g.shape == tuple(x.shape):
                merged = try_merge(node, [g])
                if merged is None:
                    log.add(node, "not fused: joining %s would make a cycle" % g.label())
                    g = new_group(node, x.shape, [node])
                    log.add(node, "starts %s: %s over the last dim of %s" % (g.label(), REDUCTIONS[node.op], x.name))
                else:
                    merged.reductions.append(node)
                    log.add(
                        node,
                        "fused into %s: %s over the last dim consumes the chain in the same row loop "
                        "(one more pass over each row)" % (merged.label(), REDUCTIONS[node.op]),
                    )
            else:
                if g is not None:
                    log.add(
                        node,
                        "not fused with a producer: %s iterates over %s, the reduction over %s"
                        % (g.label(), list(g.shape), list(x.shape)),
                    )
                g = new_group(node, x.shape, [node])
                log.add(node, "starts %s: %s over the last dim of %s" % (g.label(), REDUCTIONS[node.op], x.name))
        else:
            log.add(node, "not fused: %s is a library call (%s)" % (name, _library_reason(node)))

    kept = []
    for g in groups:
        if len(g.members) < 2:
            for m in g.members:
                del group_of[id(m)]
            log.note("dissolved %s: a single operator gains nothing over its library kernel" % g.label())
        else:
            kept.append(g)
    for i, g in enumerate(kept):
        g.id = i
    return kept, log


def _shared_input(g, node):
    produced = {id(v) for m in g.members for v in m.outputs}
    read = {id(v) for m in g.members for v in m.input_values() if id(v) not in produced}
    for v in node.input_values():
        if id(v) in read and v.shape != ():
            return v
    return None


def _sibling(groups, node, shape):
    """An element-wise group over `shape` that reads one of node's (non-scalar) inputs too."""
    for g in groups:
        if (
            not g.reductions
            and g.shape == shape
            and group_device(g) == node.outputs[0].device
            and _shared_input(g, node) is not None
        ):
            return g
    return None


def _join_refusal(g, shape, v):
    """Why an element-wise operator with result shape `shape` reading v (made in group g) cannot
    join g, or None."""
    if not g.reductions:
        if g.shape == shape:
            return None
        return "its iteration space %s differs from %s's %s" % (list(shape), g.label(), list(g.shape))
    if shape == g.shape:
        if tuple(v.shape) == g.shape or broadcasts_per_row(v.shape, g.shape):
            return None
        return (
            "it reads %s %s over %s: a per-row value without keepdim broadcasts along the last dim, "
            "not one value per row" % (v.name, list(v.shape), list(shape))
        )
    if shape in row_shapes(g.shape):
        return None  # a per-row operator on per-row values
    return "its iteration space %s differs from %s's %s" % (list(shape), g.label(), list(g.shape))


def _library_reason(node):
    from . import schema as schemas

    s = schemas.of(node.op) if "::" in node.op else None
    if s is not None and s.is_view:
        return "a view: it only changes sizes and strides"
    if node.op in ("glassbox::matmul", "glassbox::mm", "glassbox::bmm", "glassbox::addmm", "glassbox::linear"):
        return "matrix products stay BLAS calls"
    return "not an element-wise operator the generator knows"


def fuse(graph: Graph, groups, kernels):
    """A new graph where each group is one node calling its generated operator. kernels: the
    codegen_cpp.Kernel of each group (same order)."""
    group_of = {id(m): (g, k) for g, k in zip(groups, kernels) for m in g.members}
    order = _schedule(graph, group_of)
    nodes = []
    for item in order:
        if isinstance(item, Node):
            nodes.append(item)
        else:
            g, k = item
            nodes.append(
                Node(
                    op=k.op_name,
                    args=list(k.inputs),
                    outputs=list(k.outputs),
                    where=g.members[-1].where,
                    kind="fused",
                    members=list(g.members),
                )
            )
    return Graph(
        name=graph.name,
        inputs=graph.inputs,
        nodes=nodes,
        outputs=graph.outputs,
        constants=graph.constants,
        constant_values=graph.constant_values,
        mutations=graph.mutations,
        scalar_inputs=graph.scalar_inputs,
        source=graph.source,
        stage="fused",
        function=graph.function,
    )


def _schedule(graph, group_of):
    """Nodes and groups in an order that respects every dependency, each group where its first
    member can run (Kahn's algorithm, ties broken by the original order)."""
    import heapq

    units, unit_of = [], {}
    for n in graph.nodes:
        gk = group_of.get(id(n))
        key = id(gk[0]) if gk else id(n)
        if key not in unit_of:
            unit_of[key] = len(units)
            units.append(gk if gk else n)
        unit_of[id(n)] = unit_of[key]
    producer_unit = {id(v): unit_of[id(n)] for n in graph.nodes for v in n.outputs}
    deps = [set() for _ in units]
    for n in graph.nodes:
        u = unit_of[id(n)]
        for v in n.input_values():
            p = producer_unit.get(id(v))
            if p is not None and p != u:
                deps[u].add(p)
    users = [set() for _ in units]
    for u, ds in enumerate(deps):
        for d in ds:
            users[d].add(u)
    remaining = [len(d) for d in deps]
    ready = [u for u in range(len(units)) if remaining[u] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(units[u])
        for w in users[u]:
            remaining[w] -= 1
            if remaining[w] == 0:
                heapq.heappush(ready, w)
    assert len(order) == len(units), "fusion made a cycle"
    return order
