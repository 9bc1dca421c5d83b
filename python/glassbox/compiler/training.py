"""Training: a compiled function whose inputs need gradients gets a compiled backward too.

    forward capture -> decomposition -> replay with autograd on (fresh leaves)
                    -> autograd.grad of each node's results, in reverse, under capture: the
                       backward graph (each call with its forward node's line)
                    -> partition: what the forward saves, what the backward recomputes
                    -> forward graph (outputs + saved values) and backward graph, each fused and
                       generated like any graph, joined by an autograd Function

The backward is captured through the dispatcher, as the forward is: autograd's backward nodes call
operators (mul, sum, expand, ...) on the thread that runs backward, and those calls reach the
Python key's fallback. The replay runs the *decomposed* forward, so each backward formula reads
values the forward graph has (a composite kernel's inner tensors would be invisible to it). The
backward graph's inputs are named after the forward values it reads (the saved values) and the
gradients of the outputs (grad_<output>).

The partition is printed (partition.txt): each forward value the backward reads is either saved
(kept from the forward run) or recomputed in the backward from values it has anyway, when that
takes at most RECOMPUTE_CHAIN_MAX cheap element-wise operators (add, mul, relu, ...: no
transcendental function, no library call) or views. That is the memory-for-arithmetic trade a
min-cut partitioner makes, restricted to the cases where it is plainly a gain: the recomputed value
is never stored between the passes."""

import numpy as np

from .. import _C
from ..autograd import Function, enable_grad, is_grad_enabled, no_grad
from . import (
    backward_pointwise,  # noqa: F401  (the gradient formulas the generator fuses)
    codegen_cpp,
    dead_code,
    debug,
    decompositions,
    lowering,
)
from . import schema as schemas
from .capture import CaptureError, Capturer
from .graph import Graph, Node, Value, flatten, map_structure

# element-wise operators whose recomputation costs a transcendental function: saved instead
_HEAVY = codegen_cpp.HEAVY
_ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "bool": 1}


def needs_training(inputs):
    """Whether a call with these graph inputs compiles a backward: grad mode on and some floating
    input requiring grad."""
    return is_grad_enabled() and any(t.requires_grad and t.dtype.is_floating_point for t in inputs)


class NoGradientPath(Exception):
    """No output of the function depends on an input that requires grad: nothing to differentiate."""


def _unsupported(graph, what, reason, where=""):
    return CaptureError("the backward of `%s` (%s)" % (graph.name, what), where or graph.source, reason)


def _nbytes(v):
    if v.is_view:
        return 0  # it shares its base's memory
    return v.numel * _ITEMSIZE.get(str(v.dtype).rsplit(".", 1)[-1], 4)


def _size_text(n):
    return "%d B" % n if n < 1024 else ("%.1f KiB" % (n / 1024) if n < 1024 * 1024 else "%.1f MiB" % (n / 2**20))


def _call_or_skip_read(node, args):
    return [] if node.kind == "read" else decompositions.call_op(node.op, args)


def replay_with_autograd(graph, inputs):
    """Runs graph on detached copies of inputs (leaves requiring grad where the input does), with
    grad mode on. Returns (leaves, {id(value): tensor}, output structure with tensors)."""
    leaves = []
    for t in inputs:
        leaf = t.detach()
        if t.requires_grad and t.dtype.is_floating_point:
            leaf.requires_grad_(True)
        leaves.append(leaf)
    env = {}
    with enable_grad():  # a value read (an `if` on a tensor) is checked by the forward program, not here
        result = decompositions.interpret(graph, leaves, _call_or_skip_read, env)
    return leaves, env, result


def _reruns(forward, env):
    """Each forward node that needs a gradient, called again on detached copies of its inputs (the
    same data, so capture names them as the forward values): autograd.grad of these outputs stops at
    the node's own inputs, so one node's backward formula is captured at a time. [(node, [(input
    value, detached tensor)], [output tensors])], in forward order."""
    reruns = []
    # results of nodes declared to pass no gradient (decompositions' no_gradient): constants to their users
    stopped = {id(o) for n in forward.nodes if n.no_gradient for o in n.outputs}
    with enable_grad():
        for n in forward.nodes:
            if n.kind == "read" or n.no_gradient or not any(env[id(o)].requires_grad for o in n.outputs):
                continue
            detached = {}

            def leaf(a, detached=detached):
                if isinstance(a, Value):
                    if id(a) not in detached:
                        t = env[id(a)]
                        d = t.detach()
                        if t.requires_grad and id(a) not in stopped:
                            d.requires_grad_(True)
                        detached[id(a)] = (a, d)
                    return detached[id(a)][1]
                if isinstance(a, list):
                    return [leaf(x) for x in a]
                return a

            result = decompositions.call_op(n.op, [leaf(a) for a in n.args])
            outs = list(result) if isinstance(result, (list, tuple)) else [result]
            reruns.append((n, list(detached.values()), outs))
    return reruns


def _split_backward(node, outs, grads):
    """split's gradient as one cat of the pieces' gradients (zeros for a piece that gets none).
    The engine's formula fills a zero tensor through views of it (slice, copy_), which capture
    refuses (writes into views are not captured); cat computes the same gradient without them."""
    dim = node.args[2] if len(node.args) > 2 else 0
    pieces = [
        g if g is not None else _C._functions.zeros(list(t.shape), dtype=t.dtype, device=t.device)
        for t, g in zip(outs, grads)
    ]
    return [_C._functions.cat(pieces, dim)]


# Forward operators whose backward formula is written here instead of taken from the engine's
# autograd node: [gradient of each tensor input that needs one] from (node, its results again, the
# gradients reaching them, None where none does). Each formula is recorded under capture like the
# engine's, and is checked against eager gradients by the tests.
BACKWARD_FORMULAS = {
    "glassbox::split.Tensor": _split_backward,
    "glassbox::split_with_sizes": _split_backward,
}


def capture_backward(forward, leaves, env):
    """The backward graph of `forward` (a decomposed graph whose replay `env` holds): inputs are
    every forward value (pruned later) then one gradient per differentiable output; outputs are the
    gradients of the inputs that require grad (None where an input gets none).

    The forward nodes are walked in reverse, as the autograd engine does, calling autograd.grad for
    one node at a time under capture, so each backward call carries the Python line of the forward
    call whose formula made it (and a note naming that call's result); gradients reaching a value
    from several users are summed by recorded adds."""
    out_values, seen = [], set()
    for v in flatten(forward.outputs):
        t = env.get(id(v)) if isinstance(v, Value) else None
        if t is not None and t.requires_grad and id(v) not in seen:
            seen.add(id(v))
            out_values.append(v)
    wrt = [i for i, leaf in enumerate(leaves) if leaf.requires_grad]
    if not out_values:
        return None, out_values, wrt
    # On the output's device: a 0-d gradient made on the CPU would be captured as a host scalar, and
    # the CUDA kernel reading it would refuse the CUDA tensor backward() passes.
    grads = [
        _C._functions.ones(list(env[id(v)].shape), dtype=env[id(v)].dtype, device=env[id(v)].device) for v in out_values
    ]
    reruns = _reruns(forward, env)
    capturer = Capturer(forward.name, forward.source)
    with capturer:
        forward_values = list(forward.inputs) + list(forward.constant_values)
        forward_values += [o for n in forward.nodes for o in n.outputs]
        as_input = {id(v): capturer.add_input(env[id(v)], v.name) for v in forward_values}
        grad_of = {}  # id(forward value) -> its gradient so far (a tensor capture knows)
        for v, g in zip(out_values, grads):
            capturer.add_input(g, "grad_" + v.name)
            grad_of[id(v)] = g
        for n, inputs, outs in reversed(reruns):
            for o, t in zip(n.outputs, outs):
                if t.numel() > 0:  # (an empty tensor's key is every empty tensor's: it would rename the gradient)
                    capturer._remember(t, as_input[id(o)])  # the call's result again: the forward value
            reached = [(o, t) for o, t in zip(n.outputs, outs) if id(o) in grad_of and t.requires_grad]
            needing = [(a, d) for a, d in inputs if d.requires_grad]
            if not reached or not needing:
                continue
            capturer.where_override = n.where or None
            first = len(capturer.graph.nodes)
            if n.gradient_formula is not None:  # a decomposed operator's result: its own formula
                x, formula = n.gradient_formula
                needing = [(x, None)] if env[id(x)].requires_grad else []
                got = [formula(outs[0], grad_of[id(n.outputs[0])])] if needing else []
            elif n.op in BACKWARD_FORMULAS:
                got = BACKWARD_FORMULAS[n.op](n, outs, [grad_of.get(id(o)) for o in n.outputs])
            else:
                got = _C._autograd.grad(
                    [t for _, t in reached],
                    [d for _, d in needing],
                    [grad_of[id(o)] for o, _ in reached],
                    None,
                    False,
                    True,
                )
            for (a, _), g in zip(needing, got):
                if g is not None:
                    grad_of[id(a)] = grad_of[id(a)] + g if id(a) in grad_of else g
            for m in capturer.graph.nodes[first:]:
                m.note = m.note or "backward of %s" % n.outputs[0].name
        capturer.where_override = None
        results = [grad_of.get(id(forward.inputs[i])) for i in wrt]
    backward = capturer.finish(results)
    backward.function = "backward"
    backward.stage = "backward"
    _refuse_filled_behind_the_graph(forward, backward)
    return backward, out_values, wrt


def _refuse_filled_behind_the_graph(forward, backward):
    """A backward kernel may make a tensor with `empty` (an operator call) and fill it itself (as_strided's
    backward fills its index tensors): the graph would read uninitialised memory. A write through an
    operator call is recorded as a new value, so an `empty` result that is still read was filled
    behind the graph's back."""
    read = {id(v) for n in backward.nodes for v in n.input_values()}
    read.update(id(v) for v in flatten(backward.outputs) if isinstance(v, Value))
    for n in backward.nodes:
        if n.short_op.split(".", 1)[0] in ("empty", "empty_like", "empty_strided", "new_empty"):
            if any(id(o) in read for o in n.outputs):
                user = next(
                    (m for m in backward.nodes if any(id(v) in {id(o) for o in n.outputs} for v in m.input_values())), n
                )
                raise _unsupported(
                    forward,
                    user.op,
                    "its backward formula fills %s (made by %s) inside a kernel, not by an operator call the graph "
                    "records, so the graph cannot hold its values" % (n.outputs[0].name, n.short_op),
                    user.where,
                )


def check_constants(forward, backward, inputs):
    """A backward formula may make a tensor without an operator call the graph sees (mul.Scalar's
    backward wraps its number as a 0-d tensor): the backward graph holds it as a constant. That is
    right only when it does not depend on the inputs' values, so the backward is captured again on
    other values and every constant must come out the same."""
    if not backward.constants:
        return
    other = [t.detach() * 1.25 + 0.5 if t.dtype.is_floating_point else t for t in inputs]
    for t, o in zip(inputs, other):
        if t.requires_grad and t.dtype.is_floating_point:
            o.requires_grad_(True)
    leaves, env, _ = replay_with_autograd(forward, other)
    again, _, _ = capture_backward(forward, leaves, env)
    for name, t in backward.constants.items():
        u = again.constants.get(name)
        same = u is not None and tuple(u.shape) == tuple(t.shape)
        same = same and bool(np.array_equal(t.detach().numpy(), u.detach().numpy(), equal_nan=True))
        if not same:
            user = next((n for n in backward.nodes if any(v.name == name for v in n.input_values())), None)
            raise _unsupported(
                forward,
                user.op if user else name,
                "its backward formula reads a tensor the forward graph does not have (%s %s, made inside a "
                "kernel, not by an operator call the graph recorded) and whose values depend on the inputs"
                % (name, list(t.shape)),
                user.where if user else "",
            )


RECOMPUTE_CHAIN_MAX = 4  # element-wise operators the backward may run again for one saved value


def _is_view(n):
    try:
        return schemas.of(n.op).is_view
    except RuntimeError:
        return False


def _cheap(n):
    """An element-wise operator without a transcendental function, or a view (sizes and strides)."""
    return (n.op in codegen_cpp.POINTWISE and n.short_op.split(".", 1)[0] not in _HEAVY) or _is_view(n)


def _recompute_chain(n, producer, available, outputs):
    """(nodes to run again in forward order, the reason) when n's value can be recomputed from
    values the backward has by at most RECOMPUTE_CHAIN_MAX cheap element-wise operators, else
    (None, why it is saved)."""
    base = n.short_op.split(".", 1)[0]
    if n.op not in codegen_cpp.POINTWISE and not _is_view(n):
        return None, "made by %s, a library call (recomputing would repeat it)" % n.short_op
    if base in _HEAVY:
        return None, "made by %s, a transcendental function (recomputing costs more than keeping it)" % base
    chain, pending = [], [n]
    while pending:
        m = pending.pop()
        if m in chain:
            continue
        chain.append(m)
        for a in m.input_values():
            if a.name in available:
                continue
            p = producer.get(id(a))
            if p is None or id(a) in outputs or not _cheap(p):
                what = "a library call" if p is not None and p.op not in codegen_cpp.POINTWISE else "not cheap"
                what = "an output the caller may drop" if p is not None and id(a) in outputs else what
                return None, "recomputing %s would need %s (%s), which the backward does not have" % (
                    base,
                    a.name,
                    what,
                )
            pending.append(p)
        if len(chain) > RECOMPUTE_CHAIN_MAX:
            return None, "recomputing %s would take more than %d element-wise operators" % (base, RECOMPUTE_CHAIN_MAX)
    order = {id(p): i for i, p in enumerate(producer.values())}
    chain.sort(key=lambda m: order[id(m)])
    leaves = sorted({a.name for m in chain for a in m.input_values() if a.name in available})
    ops = ", ".join(m.short_op.split(".", 1)[0] for m in chain)
    if all(_is_view(m) for m in chain):
        return chain, "a view (%s) of %s: taking it again is free" % (ops, ", ".join(leaves))
    return chain, "cheap element-wise %s from %s, which the backward has anyway" % (
        ops,
        ", ".join(leaves) or "constants",
    )


def gradients_in_their_layout(backward):
    """matmul's backward gives a weight's gradient as t(mm(a, b)) when the forward multiplied by
    t(weight) (linear): a transposed view, which accumulating into .grad copies element by element.
    mm(t(b), t(a)) is the same product in the weight's own (contiguous) layout; t(t(y)) is y (the
    form addmm's and mm's formulas give it in when they see the transposed weight).
    Rewrites `backward` in place; returns the names of the gradients rewritten."""
    producer = {id(o): n for n in backward.nodes for o in n.outputs}
    users = backward.users()
    names = {v.name for v in backward.values()}
    rewritten = []

    def fresh(base):
        k = 0
        while "%s_%d" % (base, k) in names:
            k += 1
        names.add("%s_%d" % (base, k))
        return "%s_%d" % (base, k)

    for v in [v for v in flatten(backward.outputs) if isinstance(v, Value)]:
        n = producer.get(id(v))
        if n is None or n.op != "glassbox::t" or not isinstance(n.args[0], Value):
            continue
        m = producer.get(id(n.args[0]))
        if m is not None and m.op == "glassbox::t" and len(users.get(id(n.args[0]), [])) == 1:
            # The library's formula already computed the product in the weight's layout and
            # transposed it back for the view: t(t(mm(a, b))) is mm(a, b) itself.
            inner = m.args[0]
            p = producer.get(id(inner)) if isinstance(inner, Value) else None
            if p is not None and p.op == "glassbox::mm" and len(users.get(id(inner), [])) == 1:
                p.outputs = [v]
                v.producer, v.is_view, v.stride = p, False, inner.stride
                backward.nodes = [x for x in backward.nodes if x is not n and x is not m]
                rewritten.append(v.name)
            continue
        if m is None or m.op != "glassbox::mm" or len(users.get(id(n.args[0]), [])) != 1:
            continue
        note = "the gradient in its own layout: t(mm(a, b)) as mm(t(b), t(a))"
        new_nodes, operands = [], []
        for x in (m.args[1], m.args[0]):
            px = producer.get(id(x))
            if px is not None and px.op == "glassbox::t":
                operands.append(px.args[0])
                continue
            tx = Value(fresh("t"), tuple(reversed(x.shape)), tuple(reversed(x.stride)), x.dtype, x.device, is_view=True)
            new_nodes.append(Node("glassbox::t", [x], [tx], n.where, note=note))
            tx.producer = new_nodes[-1]
            operands.append(tx)
        product = Node("glassbox::mm", operands, [v], n.where, note=note)
        v.producer, v.is_view, v.stride = product, False, (v.shape[1], 1)
        at = backward.nodes.index(n)
        backward.nodes[at : at + 1] = new_nodes + [product]
        rewritten.append(v.name)
    if rewritten:
        dead_code.eliminate(backward)  # the transposed products nothing reads now
    return rewritten


class Partition:
    """The forward values the backward reads, each saved or recomputed, with the reason."""

    def __init__(self):
        self.saved = []  # forward Values the forward hands over
        self.recomputed = []  # forward Nodes the backward runs again
        self.lines = []

    def __str__(self):
        return "\n".join(self.lines) + "\n"


def partition(forward, backward, n_forward_inputs, out_values):
    """Decides, for each forward value the backward reads, whether the forward saves it or the
    backward recomputes it; rewrites `backward` (recomputed nodes first, unused inputs dropped).
    Returns a Partition."""
    part = Partition()
    forward_inputs = backward.inputs[:n_forward_inputs]
    grad_inputs = backward.inputs[n_forward_inputs:]
    by_name = {v.name: v for v in forward_inputs}
    producer = {id(o): n for n in forward.nodes for o in n.outputs}
    fw_by_name = {v.name: v for v in forward.values() + list(forward.constant_values)}
    outputs = {id(v) for v in flatten(forward.outputs)}
    used = set()
    for n in backward.nodes:
        used.update(v.name for v in n.input_values())
    used.update(v.name for v in flatten(backward.outputs) if isinstance(v, Value))
    needed = [fw_by_name[v.name] for v in forward_inputs if v.name in used]
    available = {v.name for v in forward.inputs} | {v.name for v in forward.constant_values}
    recomputed_nodes = []
    decisions = {}
    for v in needed:  # forward order: a recomputed value's inputs are decided before it
        n = producer.get(id(v))
        if n is None:
            what = "an input of the function" if v.kind != "constant" else "a tensor the function used"
            decisions[v.name] = ("saved", "%s: the caller holds it, no memory beyond it" % what)
        elif id(v) in outputs:
            decisions[v.name] = ("saved", "an output of the function (the caller gets it anyway)")
        else:
            chain, why = _recompute_chain(n, producer, available, outputs)
            if chain is None:
                decisions[v.name] = ("saved", why)
            else:
                decisions[v.name] = ("recomputed", why)
                for m in chain:
                    if m not in recomputed_nodes:
                        recomputed_nodes.append(m)
                        available.add(m.outputs[0].name)
        available.add(v.name)

    # the backward runs the recomputed nodes first, reading its own inputs
    new_nodes = []
    for n in recomputed_nodes:
        target = by_name[n.outputs[0].name]  # every forward value is a backward input until pruned

        def mapped(a):
            if isinstance(a, Value):
                return by_name[a.name]
            if isinstance(a, list):
                return [mapped(x) for x in a]
            return a

        node = Node(n.op, [mapped(a) for a in n.args], [target], n.where, note="recomputed (not saved by the forward)")
        target.kind, target.producer = "node", node
        new_nodes.append(node)
    backward.nodes[:0] = new_nodes
    recomputed = {n.outputs[0].name for n in recomputed_nodes}
    reads = set()
    for n in backward.nodes:
        reads.update(v.name for v in n.input_values())
    reads.update(v.name for v in flatten(backward.outputs) if isinstance(v, Value))
    kept = [v for v in forward_inputs if v.name in reads and v.name not in recomputed]
    backward.inputs = kept + grad_inputs
    part.saved = [fw_by_name[v.name] for v in kept]
    part.recomputed = recomputed_nodes

    extra = sum(_nbytes(v) for v in part.saved if v.kind == "node")
    spared_values = [v for v in needed if decisions[v.name][0] == "recomputed"]
    spared = sum(_nbytes(v) for v in spared_values)
    part.lines.append(
        "# `%s`: what the forward saves for the backward, and what the backward recomputes" % forward.name
    )
    for v in needed:
        decision, why = decisions[v.name]
        size = _size_text(_nbytes(v)) if decision != "saved" or v.kind == "node" else "0 B"
        part.lines.append("%-10s %-14s %-16s %9s  %s" % (decision, v.name, v.type_text(), size, why))
    for v in part.saved:
        if v.name not in decisions:  # an input only a recomputed value reads
            why = "an input of the function, read by a recomputed value: the caller holds it"
            part.lines.append("%-10s %-14s %-16s %9s  %s" % ("saved", v.name, v.type_text(), "0 B", why))
    part.lines.append("backward inputs: %s" % ", ".join([v.name for v in part.saved] + [g.name for g in grad_inputs]))
    part.lines.append(
        "gradients of: %s" % ", ".join("%s (as %s)" % (v.name, g.name) for v, g in zip(out_values, grad_inputs))
    )
    part.lines.append(
        "saved %d values, %s beyond the inputs; recomputed %d (%s not kept between the passes) by running "
        "%d operators again"
        % (len(part.saved), _size_text(extra), len(spared_values), _size_text(spared), len(recomputed_nodes))
    )
    return part


class TrainingCompilation:
    """A compiled forward and backward for one input signature, joined by an autograd Function
    whose backward node (`Compiled<name>Backward`) runs the compiled backward graph."""

    def __init__(self, captured, example_inputs, guards, backend, debug_dir=None):
        from .api import decomposition_table

        self.captured = captured
        self.example_inputs = example_inputs
        self.guards = guards
        self.backend = backend
        self.backward_calls = 0  # how many times the compiled backward ran
        if captured.mutations:
            raise _unsupported(captured, "in-place writes", "it writes its inputs in place; only pure functions train")
        for name, t in captured.constants.items():
            if t.requires_grad:
                raise _unsupported(
                    captured,
                    name,
                    "it uses a tensor that requires grad without taking it as an input (a global), whose "
                    "gradient the compiled backward would not give; pass it as an argument or make it a parameter",
                )
        table = dict(decomposition_table(), **decompositions.TRAINING_DECOMPOSITIONS) if backend != "eager" else {}
        self.decomposed = decompositions.decompose(captured, example_inputs, table)
        removed = dead_code.eliminate(self.decomposed)
        leaves, env, _ = replay_with_autograd(self.decomposed, example_inputs)
        backward, out_values, self.wrt = capture_backward(self.decomposed, leaves, env)
        if backward is None:
            raise NoGradientPath()
        check_constants(self.decomposed, backward, example_inputs)
        self.backward_captured = backward
        self.relaid_gradients = gradients_in_their_layout(backward)
        # an input that requires grad but gets none (a loss's target) is passed to the autograd Function
        # detached, so that it keeps no gradient edge: its .grad stays None, as eagerly
        self.no_gradient = {i for i, g in zip(self.wrt, backward.outputs) if g is None}
        self.output_grad_positions = self._positions(out_values)
        self.partition = partition(self.decomposed, backward, len(backward.inputs) - len(out_values), out_values)
        forward = Graph(**{k: getattr(self.decomposed, k) for k in self.decomposed.__dataclass_fields__})
        forward.outputs = (self.decomposed.outputs, list(self.partition.saved))
        forward.stage = "forward"
        self.forward_graph = forward
        # the saved values go only to the compiled backward (which writes none): constant folding may
        # take them; the function's own results stay computed at each call
        visible = [v for v in flatten(self.decomposed.outputs) if isinstance(v, Value)]
        self.lowered = lowering.lower(forward, backend, False, removed, build=False, visible=visible)
        self.backward_lowered = lowering.lower(backward, backend, False, dead_code.eliminate(backward), build=False)
        lowering.build_libraries([self.lowered, self.backward_lowered])  # both compile at once
        self.fusion_log = self.lowered.fusion_log
        self.fused = self.lowered.fused
        self.kernels = self.lowered.kernels
        self.cpp_source = self.lowered.cpp_source
        self.library_path = self.lowered.library_path
        self.backward_kernels = self.backward_lowered.kernels
        name = captured.name
        forward_file = debug.path_in(debug_dir, "output_code.py") or "<gb.compile %s>" % name
        backward_file = debug.path_in(debug_dir, "output_code_backward.py") or "<gb.compile %s backward>" % name
        self.forward_program = lowering.make_program(self.fused, forward_file)
        self.backward_program = lowering.make_program(self.backward_lowered.fused, backward_file)
        self.function = self._make_function()
        self.debug_paths = debug.write(debug_dir, self) if debug_dir else {}

    def _positions(self, out_values):
        """For each gradient input of the backward graph, the index of its output among the
        function's tensor outputs (the autograd Function's outputs)."""
        flat = [v for v in flatten(self.decomposed.outputs) if isinstance(v, Value)]
        return [next(i for i, v in enumerate(flat) if v is o) for o in out_values]

    def wrapper_source(self):
        return lowering.wrapper_source(self.fused)

    def wrapper_runnable(self):
        return lowering.wrapper_runnable(self.lowered)

    def _make_function(self):
        compilation = self
        n_inputs = len(self.example_inputs)

        def forward(ctx, *inputs):
            outputs, saved = compilation.forward_program(*inputs)
            ctx.save_for_backward(*saved)
            flat = [t for t in flatten(outputs) if isinstance(t, _C.Tensor)]
            ctx.mark_non_differentiable(*[t for t in flat if not t.dtype.is_floating_point])
            return tuple(flat)

        def backward(ctx, *grads):
            if is_grad_enabled():
                raise RuntimeError(
                    "gb.compile: `%s`'s compiled backward cannot itself be differentiated (backward with "
                    "create_graph=True, or autograd.grad of a gradient); call the function without "
                    "gb.compile for double backward" % compilation.captured.name
                )
            needed = [grads[i].contiguous() for i in compilation.output_grad_positions]
            with no_grad():
                results = compilation.backward_program(*ctx.saved_tensors, *needed)
            compilation.backward_calls += 1
            got = [None] * n_inputs
            for i, g in zip(compilation.wrt, results):
                got[i] = g
            return tuple(got)

        name = "Compiled" + "".join(p[:1].upper() + p[1:] for p in self.captured.name.split("_"))
        return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})

    def run(self, *inputs):
        flat = self.function.apply(*[x.detach() if i in self.no_gradient else x for i, x in enumerate(inputs)])
        flat = flat if isinstance(flat, tuple) else (flat,)
        it = iter(flat)
        return map_structure(lambda v: next(it) if isinstance(v, Value) else v, self.decomposed.outputs)


__all__ = ["TrainingCompilation", "needs_training", "partition", "capture_backward"]
