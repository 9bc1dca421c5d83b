"""Decompositions: operators rewritten into a small core set before fusion, declared in one table.

Each entry maps an operator to a function over glassbox operators taking the operator's arguments
in schema order. decompose() replays a captured graph under capture, calling the table's function
instead of the operator, so the new graph holds the core operators each one used (with the
original call's Python line). Operators not in the table pass through unchanged; matmul and the
other library operators are core by definition.

The core set the fusion pass understands: the element-wise operators of codegen_cpp.POINTWISE
(add, sub, mul, div, exp, log, sigmoid, tanh, erf, rsqrt, relu, ...) and the reductions sum, mean
and amax; everything else stays a library call."""

import math

from ..ops import ops
from . import schema as schemas
from .capture import Capturer, current, tensor_key
from .graph import Value, map_structure

G = ops.glassbox


def silu(x):
    return G.mul.Tensor(x, G.sigmoid.default(x))


def gelu(x, approximate="none"):
    if approximate == "tanh":
        cubic = G.mul.Tensor(G.mul.Tensor(x, x), x)
        inner = G.mul.Scalar(G.add.Tensor(x, G.mul.Scalar(cubic, 0.044715)), math.sqrt(2.0 / math.pi))
        return G.mul.Tensor(G.mul.Scalar(x, 0.5), G.add.Scalar(G.tanh.default(inner), 1.0))
    erf = G.erf.default(G.mul.Scalar(x, math.sqrt(0.5)))
    return G.mul.Tensor(G.mul.Scalar(x, 0.5), G.add.Scalar(erf, 1.0))


def _row_max_shifted(x, dim, dtype):
    """x minus its row maximum. The maximum only keeps exp() in range: softmax and log_softmax do
    not change when every element of a row moves by the same amount, so its gradient is zero in
    exact arithmetic. It is declared so (no_gradient), and the compiled backward computes no
    gradient through it, as the engine's softmax backward does not."""
    if dtype is not None:
        x = G.to.dtype(x, dtype)
    shift = G.amax.default(x, [dim], True)
    _declare_no_gradient(shift, "the row maximum subtracted for range only: no gradient flows through it")
    return G.sub.Tensor(x, shift)


def _captured(tensor):
    """The running capture's Value for tensor, or None (no capture running, or not one of its)."""
    capturer = current()
    return None if capturer is None else capturer._by_key.get(tensor_key(tensor))


def _declare_no_gradient(result, note):
    """Marks the node that made `result` in the running capture (if any) as passing no gradient."""
    node = getattr(_captured(result), "producer", None)
    if node is not None:
        node.no_gradient = True
        node.note = note


def _declare_gradient(result, x, formula, note):
    """Marks the node that made `result` in the running capture (if any) as the end of a decomposed
    operator whose gradient with respect to x is formula(result, grad): the compiled backward
    calls it instead of differentiating the nodes between x and result one by one."""
    node, x_value = getattr(_captured(result), "producer", None), _captured(x)
    if node is not None and x_value is not None:
        node.gradient_formula = (x_value, formula)
        node.note = note


def _softmax_gradient(dim):
    def formula(y, grad):
        return G.mul.Tensor(y, G.sub.Tensor(grad, G.sum.dim_IntList(G.mul.Tensor(grad, y), [dim], True)))

    return formula


def softmax(x, dim, dtype=None):
    if dtype is not None:
        x = G.to.dtype(x, dtype)
    e = G.exp.default(_row_max_shifted(x, dim, None))
    y = G.div.Tensor(e, G.sum.dim_IntList(e, [dim], True))
    # Differentiated node by node, the backward would read exp and the row sum, so the forward would
    # store exp beside y; from y alone it stores nothing that it does not write anyway.
    _declare_gradient(y, x, _softmax_gradient(dim), "softmax's result: its gradient is y * (grad - sum(grad * y))")
    return y


def log_softmax(x, dim, dtype=None):
    shifted = _row_max_shifted(x, dim, dtype)
    return G.sub.Tensor(shifted, G.log.default(G.sum.dim_IntList(G.exp.default(shifted), [dim], True)))


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    dims = list(range(-len(normalized_shape), 0))
    centered = G.sub.Tensor(x, G.mean.dim(x, dims, True))
    variance = G.mean.dim(G.mul.Tensor(centered, centered), dims, True)
    y = G.mul.Tensor(centered, G.rsqrt.default(G.add.Scalar(variance, eps)))
    if weight is not None:
        y = G.mul.Tensor(y, weight)
    if bias is not None:
        y = G.add.Tensor(y, bias)
    return y


def linear(x, weight, bias=None):
    y = G.matmul.default(x, G.t.default(weight))
    return y if bias is None else G.add.Tensor(y, bias)


def square(x):
    return G.mul.Tensor(x, x)


# operator -> its decomposition: the table the decomposed graph's printout names.
DECOMPOSITIONS = {
    "glassbox::silu": silu,
    "glassbox::gelu": gelu,
    "glassbox::softmax.int": softmax,
    "glassbox::log_softmax.int": log_softmax,
    "glassbox::layer_norm": layer_norm,
    "glassbox::linear": linear,
    "glassbox::square": square,
}


def pow_scalar(x, exponent):
    """x ** 2 as x * x: the backward is then mul's (grad * x, twice), which fuses, rather than pow's
    (grad * 2 * x ** 1, with the numbers wrapped as 0-d tensors). Other exponents stay pow."""
    if exponent == 2:
        return G.mul.Tensor(x, x)
    return G.pow.Tensor_Scalar(x, exponent)


def cross_entropy(x, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    """Class indices over [N, C] logits as log_softmax, then the target's entry of each row picked by
    a one-hot mask (target == arange(C)) and summed along the row: every step has a backward the
    compiled backward computes (element-wise products and sums), where the engine's composite
    keeps its log_softmax inside a kernel and nll_loss's backward scatters into a zero tensor.
    Other forms (class weights, smoothing, probabilities as targets) stay the library call."""
    if (
        weight is not None
        or label_smoothing != 0.0
        or x.dim() != 2
        or target.dim() != 1
        or target.dtype.is_floating_point
    ):
        return G.cross_entropy.default(x, target, weight, reduction, ignore_index, label_smoothing)
    logp = log_softmax(x, -1)
    classes = G.arange.default(x.shape[-1], dtype=target.dtype, device=x.device)
    one_hot = G.to.dtype(G.eq.Tensor(G.unsqueeze.default(target, 1), classes), x.dtype)
    kept = G.to.dtype(G.ne.Scalar(target, ignore_index), x.dtype)
    picked = G.mul.Tensor(G.sum.dim_IntList(G.mul.Tensor(logp, one_hot), [-1], False), kept)
    if reduction == 0:
        return G.neg.default(picked)
    total = G.neg.default(G.sum.dim_IntList(picked, [0], False))
    return total if reduction == 2 else G.div.Tensor(total, G.sum.dim_IntList(kept, [0], False))


def matmul_as_mm(a, b):
    """matmul of a batch as one mm (b a matrix: the batch dims folded into the rows) or one bmm (the
    same batch dims on both), between reshapes. The engine's matmul does the same inside its kernel,
    so its backward reads the folded operands, which the graph would not have. Other forms (vectors,
    broadcast batch dims) stay matmul."""
    if a.dim() > 2 and b.dim() == 2:  # (two matrices: matmul's backward reads only its operands)
        rows = G.reshape.default(a, [-1, a.shape[-1]])
        return G.reshape.default(G.mm.default(rows, b), list(a.shape[:-1]) + [b.shape[-1]])
    if a.dim() >= 3 and a.dim() == b.dim() and list(a.shape[:-2]) == list(b.shape[:-2]):
        batch = list(a.shape[:-2])
        a3 = G.reshape.default(a, [-1] + list(a.shape[-2:]))
        b3 = G.reshape.default(b, [-1] + list(b.shape[-2:]))
        return G.reshape.default(G.bmm.default(a3, b3), batch + [a.shape[-2], b.shape[-1]])
    return G.matmul.default(a, b)


def linear_as_mm(x, weight, bias=None):
    y = matmul_as_mm(x, G.t.default(weight))
    return y if bias is None else G.add.Tensor(y, bias)


# Applied only to a graph compiled with a backward (the generator computes pow(x, 2) as x * x anyway;
# the library's cross_entropy and matmul need no visible inner values without a backward).
TRAINING_DECOMPOSITIONS = {
    "glassbox::pow.Tensor_Scalar": pow_scalar,
    "glassbox::cross_entropy": cross_entropy,
    "glassbox::matmul": matmul_as_mm,
    "glassbox::linear": linear_as_mm,
}


def op_callable(op):
    """gb.ops.<ns>.<name>.<overload> for "ns::name.overload"."""
    ns, rest = op.split("::", 1)
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(ops, ns), name), overload or "default")


def call_op(op, args):
    """Calls op with its arguments in schema order (keyword-only ones passed by keyword)."""
    arguments = schemas.of(op).arguments
    positional = [a for spec, a in zip(arguments, args) if not spec.kwarg_only]
    keywords = {spec.name: a for spec, a in zip(arguments, args) if spec.kwarg_only}
    return op_callable(op)(*positional, **keywords)


def table_text(applied=None):
    """The table as text: operator -> the function that rewrites it (and whether it was applied)."""
    lines = []
    for op, fn in DECOMPOSITIONS.items():
        note = "" if applied is None or op in applied else "   (not applied: the generator computes it as one formula)"
        lines.append("%-28s -> decompositions.%s%s" % (op, fn.__name__, note))
    for op, fn in TRAINING_DECOMPOSITIONS.items():
        note = "" if applied is not None and op in applied else "   (only in a graph compiled with a backward)"
        lines.append("%-28s -> decompositions.%s%s" % (op, fn.__name__, note))
    return "\n".join(lines)


def interpret(graph, inputs, call, env=None):
    """Runs graph's nodes on real tensors: call(node, resolved_args) gives each node's result.
    env (filled if given): {id(value): tensor}."""
    env = {} if env is None else env
    for v, t in zip(graph.inputs, inputs):
        env[id(v)] = t
    for v in graph.constant_values:
        env[id(v)] = graph.constants[v.name]

    def resolve(a):
        if isinstance(a, Value):
            return env[id(a)]
        if isinstance(a, list):
            return [resolve(x) for x in a]
        return a

    for node in graph.nodes:
        result = call(node, [resolve(a) for a in node.args])
        results = list(result) if isinstance(result, (list, tuple)) else [result]
        for v, t in zip(node.outputs, results):
            env[id(v)] = t
    return map_structure(resolve, graph.outputs)


def decompose(graph, inputs, table=None):
    """The graph with every operator of `table` (default DECOMPOSITIONS) replaced by its
    decomposition; `inputs` are the captured call's tensors (the replay runs on them)."""
    table = DECOMPOSITIONS if table is None else table
    capturer = Capturer(graph.name, graph.source, split_reads=True)

    def call(node, args):
        capturer.where_override = node.where
        if node.kind == "read":  # read the value again, under this capture: it records the check
            getattr(type(args[0]), node.op.split("::", 1)[1])(args[0])
            return []
        fn = table.get(node.op)
        if fn is not None:
            return fn(*args)
        return call_op(node.op, args)

    with capturer:
        for v, t in zip(graph.inputs, inputs):
            capturer.add_input(t, v.name, v.kind)
        for name, t in graph.constants.items():
            capturer.add_input(t, name, "constant")
        env = {}
        result = interpret(graph, inputs, call, env)
    capturer.where_override = None
    decomposed = capturer.finish(result)
    by_name = {v.name: v for v in decomposed.inputs}
    decomposed.mutations = [
        (by_name[original.name], capturer.value(env[id(final)])) for original, final in graph.mutations
    ]
    decomposed.scalar_inputs = dict(graph.scalar_inputs)
    decomposed.stage = "decomposed"
    decomposed.decompositions = sorted(table)
    return decomposed
