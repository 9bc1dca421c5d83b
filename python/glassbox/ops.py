"""gb.ops.<namespace>.<operator>(...) calls any registered operator (glassbox's own, or one
defined from C++ or Python): gb.ops.glassbox.add(x, y), or one overload,
gb.ops.glassbox.add.Tensor(x, y, alpha=2)."""
from . import _C


class OpOverloadPacket:
    """All overloads of ns::name; calling it picks the first whose schema accepts the arguments."""

    def __init__(self, qualified):
        self._qualified = qualified

    def __call__(self, *args, **kwargs):
        return _C._ops.call(self._qualified, args, kwargs)

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        name = self._qualified + "." + overload
        if overload not in _C._ops.overload_names(self._qualified):
            raise AttributeError("%s has no overload %r; overloads: %s" % (
                self._qualified, overload, ", ".join(repr(o) for o in self.overloads())))
        return OpOverload(name)

    def overloads(self):
        return [o or "default" for o in _C._ops.overload_names(self._qualified)]

    def __repr__(self):
        return "<OpOverloadPacket %s>" % self._qualified


class OpOverload:
    def __init__(self, qualified):
        self._qualified = qualified

    def __call__(self, *args, **kwargs):
        return _C._ops.call(self._qualified, args, kwargs)

    def __repr__(self):
        return "<OpOverload %s>" % self._qualified


class _Namespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        qualified = "%s::%s" % (self._ns, name)
        if not _C._ops.overload_names(qualified):
            raise AttributeError("no operator %s is registered" % qualified)
        return OpOverloadPacket(qualified)


class _Ops:
    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        return _Namespace(ns)


ops = _Ops()
