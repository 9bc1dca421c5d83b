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

    def __init__(self, name, source="", where_override=None):
        self.graph = Graph(name=name, inputs=[], nodes=[], outputs=None, source=source)
        self._by_key = {}
        self._alive = []  # every tensor seen, so that its memory is not reused during capture
        self._names = set()
        self._viewed = set()  # ids of values that views were taken of
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
        recorded_op = op
        target = None
        if schema.writes_argument:
            recorded_op, target = self._functional_form(schema, args, where)
        out = call.redispatch()
        tensors = list(out) if isinstance(out, (list, tuple)) else [out]
        outputs = []
        for t in tensors:
            v = value_of_tensor(t, self.fresh_name(schemas.of(recorded_op).base_name), "node")
            v.is_view = schema.is_view
            outputs.append(v)
            self._remember(t, v)
        node = Node(recorded_op, args, outputs, where, list_output=isinstance(out, list))
        for v in outputs:
            v.producer = node
        if schema.is_view:
            for v in node.input_values():
                self._viewed.add(id(v))
            for v in outputs:
                self._viewed.add(id(v))
        self.graph.nodes.append(node)
        return out

    def _functional_form(self, schema, args, where):
        """An in-place call on an intermediate (that no view shares) is recorded as its functional
        form, and the tensor's later uses read the new value."""
        if not schema.is_inplace or schema.overload == "out":
            raise CaptureError(schema.name, where, "operators that write into an out= argument are not captured")
        target = args[0]
        if not isinstance(target, Value) or target.kind != "node":
            kind = target.kind if isinstance(target, Value) else "argument"
            raise CaptureError(
                schema.name, where, "it writes into the %s %s in place" % (kind, getattr(target, "name", ""))
            )
        if id(target) in self._viewed:
            raise CaptureError(
                schema.name, where, "it writes in place into %s, which shares memory with a view" % target.name
            )
        functional = "glassbox::" + schema.base_name[:-1] + ("." + schema.overload if schema.overload else "")
        if _C._library.schema_arguments(functional)[0] is None:
            raise CaptureError(schema.name, where, "it writes in place and has no functional form %s" % functional)
        return functional, target

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
        _install_value_read_hooks()
        _state.capturer = self
        self._library = Library("_", "IMPL", "Python")
        self._library.fallback(_fallback)
        self._inclusion = include_key("Python")
        self._inclusion.__enter__()
        return self

    def __exit__(self, *exc):
        self._inclusion.__exit__(*exc)
        self._library.close()
        _state.capturer = None
        return False


def _fallback(call):
    capturer = current()
    if capturer is None:  # another thread's capture registered the fallback: not ours to record
        return call.redispatch()
    return capturer.record(call)


_originals = {}


def _install_value_read_hooks():
    """Wraps the Tensor methods that read values once; the wrappers only act while this thread
    captures."""
    if _originals:
        return
    for name in _VALUE_READS:
        original = getattr(_C.Tensor, name, None)
        if original is None:
            continue
        _originals[name] = original

        def hook(self, *args, __name=name, __original=original, **kwargs):
            capturer = current()
            if capturer is not None:
                call = ".%s()" % __name if not __name.startswith("__") else "%s(tensor)" % __name.strip("_")
                raise CaptureError(
                    "the value read %s" % call,
                    capturer.where(),
                    "a tensor's value passed to Python may steer the program (an if, a loop, a shape), "
                    "which a graph cannot record; keep it a tensor (gb.where, masks), or pass fullgraph=False "
                    "to run this function eagerly",
                )
            return __original(self, *args, **kwargs)

        hook.__name__ = name
        hook.__doc__ = getattr(original, "__doc__", None)
        setattr(_C.Tensor, name, hook)


def capture(fn, named_tensors, call_args, call_kwargs, name, source="", parameters=()):
    """Runs fn(*call_args, **call_kwargs) under capture. named_tensors: [(name, tensor)] of the
    tensor inputs in the order the compiled graph takes them; parameters: [(name, tensor)] of a
    module's parameters and buffers, lifted to inputs. Returns (graph, eager result)."""
    with Capturer(name, source) as capturer:
        for input_name, t in named_tensors:
            capturer.add_input(t, input_name)
        for param_name, t in parameters:
            capturer.add_input(t, "p_" + param_name.replace(".", "_"), kind="parameter")
        result = fn(*call_args, **call_kwargs)
    return capturer.finish(result), result
