"""The namespace a compiled program runs in. The program reads as calls of gb.ops
(glassbox.reshape.default(x, [-1, 64])), and runs so; but a call through gb.ops is boxed: its
arguments are matched against the schema by name at every call (about 2 us), where the typed
Python binding of the same operator takes about 0.5 us. A training step's programs make hundreds
of view and matrix-product calls, so for those overloads the namespace binds the typed binding,
which reaches the same operator through the dispatcher (the profiler and the dispatch trace show
the same rows). Any call with arguments outside the typed form goes through gb.ops as printed."""

from .. import _C


def _typed(fast, accepts):
    """fast(*args) when accepts(*args, **kwargs), else the boxed overload."""

    def bind(boxed):
        def call(*args, **kwargs):
            return fast(*args) if accepts(*args, **kwargs) else boxed(*args, **kwargs)

        call.__name__ = getattr(boxed, "_qualified", "typed")
        return call

    return bind


def _always(*args, **kwargs):
    return not kwargs


# "name.overload" -> a binder taking the boxed overload; the typed call takes the schema's arguments
TYPED = {
    "reshape.default": _typed(lambda x, shape: x.reshape(shape), _always),
    "view.default": _typed(lambda x, size: x.view(size), _always),
    "t.default": _typed(lambda x: x.t(), _always),
    "transpose.int": _typed(lambda x, a, b: x.transpose(a, b), _always),
    "unsqueeze.default": _typed(lambda x, d: x.unsqueeze(d), _always),
    "permute.default": _typed(lambda x, dims: x.permute(dims), _always),
    "expand.default": _typed(lambda x, size: x.expand(size), lambda x, size, implicit=False: not implicit),
    "sum.dim_IntList": _typed(
        lambda x, dim, keepdim=False: x.sum(dim, keepdim),
        lambda x, dim, keepdim=False, dtype=None: dim is not None and dtype is None,
    ),
    "mm.default": _typed(lambda a, b: _C._functions.mm(a, b), _always),
    "bmm.default": _typed(lambda a, b: _C._functions.bmm(a, b), _always),
}


class _Packet:
    def __init__(self, packet, name):
        self._packet, self._name = packet, name

    def __getattr__(self, overload):
        boxed = getattr(self._packet, overload)
        binder = TYPED.get("%s.%s" % (self._name, overload))
        found = binder(boxed) if binder else boxed
        setattr(self, overload, found)  # found by plain attribute lookup from now on
        return found


class TypedNamespace:
    """gb.ops.glassbox, with the overloads of TYPED bound to their typed bindings."""

    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        packet = getattr(self._namespace, name)
        found = _Packet(packet, name) if any(k.startswith(name + ".") for k in TYPED) else packet
        setattr(self, name, found)
        return found
