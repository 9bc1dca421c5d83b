"""Capture: run the function once, eagerly, with every operator call on this thread passing
through a Python fallback at the Python dispatch key (above Autograd), and record each call into a
Graph. No bytecode is read: what the graph holds is what reached the dispatcher.

Tensors are matched to graph values by what makes them the same data: data pointer, shape,
strides, dtype and device. Every tensor seen stays alive until capture ends, so no freed block
can be reused by a later tensor and taken for an earlier one. A Python read of a tensor's value
(.item(), bool(), float(), .tolist(), .numpy()) cannot be recorded: it raises CaptureError naming
the call and the user's line."""

import os
import sys
import threading

from .. import _C
from ..library import Library, include_key
from . import schema as schemas
from .graph import Graph, Node, Value, map_structure
from .runtime import READ_TEXT

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Operators whose result's shape depends on the values of their inputs: a graph with fixed shapes
# cannot hold them.
DATA_DEPENDENT_SHAPES = {
    "glassbox::masked_select",
    "glassbox::nonzero",
    "glassbox::unique",
    "glassbox::argwhere",
}

# Tensor methods that hand a value to Python (so Python code may branch on it).
# Operators that write into arguments their schema cannot name as written (optional tensors):
# argument positions. Capture keeps their values and puts them back, as for named writes, so that
# the compiled run's call is the one write.
WRITES_UNNAMED = {"glassbox::native_batch_norm": (3, 4)}  # running_mean, running_var (in training)

_VALUE_READS = ("item", "tolist", "numpy", "__bool__", "__float__", "__int__", "__index__", "__array__")


class CaptureError(RuntimeError):
    """What gb.compile cannot put in a graph, naming the operator (or value read) and the line."""

    def __init__(self, what, where, reason):
        self.what, self.where, self.reason = what, where, reason
        super().__init__("gb.compile cannot capture %s at %s: %s" % (what, where or "<unknown line>", reason))


_state = threading.local()


def current():
    """The Capturer active on this thread, or None."""
    return getattr(_state, "capturer", None)


def user_line():
    """ "file:line" of the innermost frame outside the glassbox package (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not os.path.abspath(path).startswith(_PACKAGE_DIR + os.sep):
            return "%s:%d" % (path, frame.f_lineno)
        frame = frame.f_back
    return ""


def tensor_key(t):
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), str(t.dtype), str(t.device))


def value_of_tensor(t, name, kind):
    return Value(
        name=name,
        shape=tuple(t.shape),
        stride=tuple(t.stride()),
        dtype=t.dtype,
        device=str(t.device),
        requires_grad=bool(t.requires_grad),
        kind=kind,
    )


class Capturer:
    """Builds a Graph from the operator calls that reach the Python key on this thread."""

    def __init__(self, name, source="", where_override=None, split_reads=False):
        self.graph = Graph(name=name, inputs=[], nodes=[], outputs=None, source=source)
        # with split_reads, a value read becomes a "read" node checking the value at run time
        self.split_reads = split_reads
        self.reading = False  # inside a value read (whose own reads are not recorded again)
        self._by_key = {}
        self._alive = []  # every tensor seen, so that its memory is not reused during capture
        self._names = set()
        self._viewed = set()  # ids of values that views were taken of
        self._version_of = {}  # id(value) -> the input it is a written version of
        self._saved = {}  # id(input value) -> (its tensor, a copy made before it was first written)
        self.where_override = where_override  # a replay sets the original node's line here

    # --- names and values ----------------------------------------------------------------

    def fresh_name(self, base):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base).strip("_") or "v"
        if base[0].isdigit() or base in ("def", "return", "lambda", "pass", "import", "class", "not", "and", "or"):
            base = "v_" + base
        name, n = base, 0
        while name in self._names:
            n += 1
            name = "%s_%d" % (base, n)
        self._names.add(name)
        return name

    def add_input(self, t, name, kind="input"):
        v = value_of_tensor(t, self.fresh_name(name), kind)
        if kind == "constant":
            self.graph.constants[v.name] = t
            self.graph.constant_values.append(v)
            self._remember(t, v)
            return v
        self._remember(t, v)
        self.graph.inputs.append(v)
        return v

    def _remember(self, t, v):
        self._by_key[tensor_key(t)] = v
        self._alive.append(t)

    def value(self, t):
        """The graph value for a tensor argument; a tensor the graph has not seen (a global, a tensor
        made without the dispatcher) becomes a constant held by reference."""
        v = self._by_key.get(tensor_key(t))
        if v is None:
            v = value_of_tensor(t, self.fresh_name("_tensor_constant%d" % len(self.graph.constants)), "constant")
            self.graph.constants[v.name] = t
            self.graph.constant_values.append(v)
            self._remember(t, v)
        return v

    def _argument(self, a):
        if isinstance(a, _C.Tensor):
            return self.value(a)
        if isinstance(a, (list, tuple)) and any(isinstance(x, _C.Tensor) for x in a):
            return [self._argument(x) for x in a]
        return a

    # --- the fallback -------------------------------------------------------------------------

    def where(self):
        return self.where_override or user_line()

    def record(self, call):
        op = call.op
        schema = schemas.of(op)
        where = self.where()
        if op in DATA_DEPENDENT_SHAPES or (
            op == "glassbox::index.Tensor"
            and any(t is not None and str(t.dtype) in ("glassbox.bool", "glassbox.uint8") for t in call.args[1])
        ):
            raise CaptureError(op, where, "the shape of its result depends on the values of its input")
        if not schema.returns_only_tensors:
            raise CaptureError(
                op, where, "it returns a Python value (%s), which the program may branch on" % ", ".join(schema.returns)
            )
        args = [self._argument(a) for a in call.args]
        if schema.writes_argument:
            return self._record_write(call, schema, args, where)
        if op in WRITES_UNNAMED:
            self._save_originals(call, args, [args[i] for i in WRITES_UNNAMED[op] if isinstance(args[i], Value)])
        out = call.redispatch()
        node = self._add_node(op, args, out, where, schema.is_view)
        if schema.is_view:
            for v in node.input_values() + node.outputs:
                self._viewed.add(id(v))
        return out

    def record_read(self, method, call, tensor, value):
        """A value read as a node: the program checks, when it runs, that it reads the same value."""
        if not isinstance(value, (bool, int, float, list)):
            raise CaptureError("the value read " + call, self.where(), "it gives a %s" % type(value).__name__)
        node = Node("read::" + method, [self.value(tensor), value], [], self.where(), kind="read")
        node.note = "the value read " + call
        self.graph.nodes.append(node)

    def _add_node(self, op, args, out, where, is_view=False):
        tensors = list(out) if isinstance(out, (list, tuple)) else [out]
        outputs = []
        for t in tensors:
            v = value_of_tensor(t, self.fresh_name(schemas.of(op).base_name), "node")
            v.is_view = is_view
            outputs.append(v)
            self._remember(t, v)
        node = Node(op, args, outputs, where, list_output=isinstance(out, list))
        for v in outputs:
            v.producer = node
        self.graph.nodes.append(node)
        return node

    def _record_write(self, call, schema, args, where):
        """Runs the functional form too (not recorded: this fallback runs below the Python key),
        records it, with a conversion where the written tensor's dtype differs from the result's
        (logical_not_ on floats), and then lets the real write happen for the eager run."""
        functional, node_args, targets = self._functional_form(schema, args, where)
        self._save_originals(call, args, targets)
        from .decompositions import call_op

        tensor_args = [a for i, a in enumerate(call.args) if args[i] in node_args or not isinstance(args[i], Value)]
        if len(tensor_args) != len(node_args):
            tensor_args = [call.args[args.index(a)] if isinstance(a, Value) else a for a in node_args]
        result = call_op(functional, tensor_args)
        node = self._add_node(functional, node_args, result, where)
        out = call.redispatch()
        written = list(out) if isinstance(out, (list, tuple)) else [out]
        for target, value, tensor in zip(targets, node.outputs, written):
            if value.dtype != target.dtype:
                converted = call_op("glassbox::to.dtype", [_tensor_of(self, value, result), target.dtype, False])
                value = self._add_node("glassbox::to.dtype", [value, target.dtype, False], converted, where).outputs[0]
            self._remember(tensor, value)
            self._note_write(target, value)
        return out

    def _functional_form(self, schema, args, where):
        """A call that writes into an argument (in place, or out=) is recorded as its functional
        form; the written tensor's later uses read the new value, and an input written so is
        written back when the compiled function ends. Returns (functional op, its arguments, the
        Values written, in result order)."""
        written = [i for i, a in enumerate(schema.arguments) if "!" in a.type]
        if not schema.is_inplace and not written:
            raise CaptureError(schema.name, where, "it writes into an argument it does not name as written")
        targets = [args[i] for i in (written or [0])]
        for target in targets:
            if not isinstance(target, Value):
                raise CaptureError(schema.name, where, "it writes into an argument that is not a tensor")
            if target.is_view or id(target) in self._viewed:
                raise CaptureError(
                    schema.name,
                    where,
                    "it writes in place into %s, which shares memory with a view (views of written tensors "
                    "are not captured yet)" % target.name,
                )
        if schema.name == "glassbox::fill_.Scalar":  # no functional fill: a new tensor full of the value
            t = targets[0]
            return "glassbox::full", [list(t.shape), args[1], t.dtype, t.device], targets
        if schema.is_inplace:
            # the overload taking the same arguments (pow_.Scalar is pow.Tensor_Scalar, not pow.Scalar)
            functional = _overload_taking(schema.base_name[:-1], schema.arguments, prefer=schema.overload)
            node_args = args
        else:
            kept = [a for a in schema.arguments if "!" not in a.type]
            functional = _overload_taking(schema.base_name, kept)
            node_args = [a for i, a in enumerate(args) if i not in written]
        if functional is None:
            raise CaptureError(schema.name, where, "it writes into an argument and has no functional form")
        return functional, node_args, targets

    def _save_originals(self, call, args, targets):
        """Keeps a copy of an input before the eager run writes it, so that capture can put it back:
        the compiled run writes it once more."""
        for target in targets:
            original = self._version_of.get(id(target), target if target.kind != "node" else None)
            if original is not None and id(original) not in self._saved:
                tensor = call.args[args.index(target)]
                self._saved[id(original)] = (tensor, tensor.clone())

    def _note_write(self, target, new):
        original = self._version_of.get(id(target), target if target.kind != "node" else None)
        if original is None:
            return
        self._version_of[id(new)] = original
        self.graph.mutations = [(i, f) for i, f in self.graph.mutations if i is not original] + [(original, new)]

    def restore_inputs(self):
        """Puts back the inputs the eager run wrote in place."""
        from ..autograd import no_grad

        with no_grad():
            for tensor, saved in self._saved.values():
                tensor.copy_(saved)
        self._saved.clear()

    # --- the whole capture ------------------------------------------------------------------

    def finish(self, result):
        def leaf(x):
            if isinstance(x, _C.Tensor):
                return self.value(x)
            return x

        self.graph.outputs = map_structure(leaf, result)
        self._alive.clear()
        return self.graph

    def __enter__(self):
        if current() is not None:
            raise RuntimeError("gb.compile: a capture is already running on this thread (nested compile)")
        _hooks_acquire()
        _state.capturer = self
        self._inclusion = include_key("Python")
        self._inclusion.__enter__()
        return self

    def __exit__(self, *exc):
        self._inclusion.__exit__(*exc)
        _state.capturer = None
        _hooks_release()
        return False


# The Python-key fallback and the value-read wrappers exist only while some thread captures (one
# set for all of them: each records into its own thread's Capturer); outside a capture glassbox's
# Tensor and dispatcher are as they were.
_hooks_lock = threading.Lock()
_hooks = {"users": 0, "library": None}


def _hooks_acquire():
    with _hooks_lock:
        if _hooks["users"] == 0:
            library = Library("_", "IMPL", "Python")
            library.fallback(_fallback)
            _hooks["library"] = library
            _install_value_read_hooks()
        _hooks["users"] += 1


def _hooks_release():
    with _hooks_lock:
        _hooks["users"] -= 1
        if _hooks["users"] == 0:
            _hooks["library"].close()
            _hooks["library"] = None
            _remove_value_read_hooks()


def _fallback(call):
    capturer = current()
    if capturer is None:  # another thread's capture registered the fallback: not ours to record
        return call.redispatch()
    return capturer.record(call)


_originals = {}


def _remove_value_read_hooks():
    for name, (original, own) in _originals.items():
        if own:
            setattr(_C.Tensor, name, original)
        else:  # it was inherited
            delattr(_C.Tensor, name)
    _originals.clear()


def _install_value_read_hooks():
    """Wraps the Tensor methods that read values; the wrappers act only on threads that capture."""
    for name in _VALUE_READS:
        original = getattr(_C.Tensor, name, None)
        if original is None:
            continue
        _originals[name] = (original, name in _C.Tensor.__dict__)

        def hook(self, *args, __name=name, __original=original, **kwargs):
            capturer = current()
            if capturer is not None and not capturer.reading:  # (bool(t) reads through .item())
                call = ".%s()" % __name if not __name.startswith("__") else "%s(tensor)" % __name.strip("_")
                if capturer.split_reads and __name in READ_TEXT:
                    capturer.reading = True
                    try:
                        value = __original(self, *args, **kwargs)
                    finally:
                        capturer.reading = False
                    capturer.record_read(__name, call, self, value)
                    return value
                raise CaptureError(
                    "the value read %s" % call,
                    capturer.where(),
                    "a tensor's value passed to Python may steer the program (an if, a loop, a shape), "
                    "which a graph cannot record; keep it a tensor (gb.where, masks), or pass fullgraph=False "
                    "to check the value at run time instead (a graph per value seen)",
                )
            return __original(self, *args, **kwargs)

        hook.__name__ = name
        hook.__doc__ = getattr(original, "__doc__", None)
        setattr(_C.Tensor, name, hook)


def _tensor_of(capturer, value, result):
    """The tensor a just-recorded value stands for (one of `result`)."""
    for t in result if isinstance(result, (list, tuple)) else [result]:
        if capturer._by_key.get(tensor_key(t)) is value:
            return t
    raise AssertionError("internal: no tensor for %s" % value.name)


def _overload_taking(name, arguments, prefer=None):
    """The overload "glassbox::name.X" whose arguments are these (names and types, aliasing
    marks aside), trying `prefer` first, or None."""

    def plain(args):
        return [(a.name, a.type.replace("(a)", "").replace("(a!)", "")) for a in args]

    overloads = list(_C._ops.overload_names("glassbox::" + name))
    if prefer in overloads:
        overloads.remove(prefer)
        overloads.insert(0, prefer)
    for overload in overloads:
        full = "glassbox::%s%s" % (name, "." + overload if overload else "")
        try:
            candidate = schemas.of(full)
        except RuntimeError:
            continue
        if plain(candidate.arguments) == plain(arguments) and not candidate.writes_argument:
            return full
    return None


def capture(fn, named_tensors, call_args, call_kwargs, name, source="", parameters=(), split_reads=False):
    """Runs fn(*call_args, **call_kwargs) under capture. named_tensors: [(name, tensor)] of the
    tensor inputs in the order the compiled graph takes them; parameters: [(name, tensor)] of a
    module's parameters and buffers, lifted to inputs. Returns (graph, eager result)."""
    capturer = Capturer(name, source, split_reads=split_reads)
    try:
        with capturer:
            for input_name, t in named_tensors:
                capturer.add_input(t, input_name)
            for param_name, t in parameters:
                capturer.add_input(t, "p_" + param_name.replace(".", "_"), kind="parameter")
            result = fn(*call_args, **call_kwargs)
    finally:
        capturer.restore_inputs()  # outside the capture: the copies back are not recorded
    return capturer.finish(result), result
