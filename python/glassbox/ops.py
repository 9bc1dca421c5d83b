"""gb.ops.<namespace>.<operator>(...) calls any registered operator (glassbox's own, or one
defined from C++ or Python): gb.ops.glassbox.add(x, y), or one overload,
gb.ops.glassbox.add.Tensor(x, y, alpha=2).

Finding an operator's overloads means a scan of the registry, so gb.ops keeps what it found:
namespaces and packets are cached, and a packet remembers its overloads. gb.library clears the
cache whenever it registers or removes something; a call that fails on a remembered list asks
the registry again before it gives up (for libraries loaded some other way)."""

from . import _C


class OpOverloadPacket:
    """All overloads of ns::name; calling it picks the first whose schema accepts the arguments."""

    def __init__(self, qualified, overload_names=None):
        self._qualified = qualified
        self._names = _C._ops.overload_names(qualified) if overload_names is None else overload_names

    def __call__(self, *args, **kwargs):
        try:
            return _C._ops.call(self._qualified, args, kwargs, self._names)
        except (RuntimeError, AttributeError):  # perhaps an overload registered since
            fresh = _C._ops.overload_names(self._qualified)
            if fresh == self._names:
                raise
            self._names = fresh
            return _C._ops.call(self._qualified, args, kwargs, fresh)

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        # The overload with no name is spelled `default`, as in torch.ops.aten.relu.default.
        key = "" if overload == "default" else overload
        if key not in self._names:
            self._names = _C._ops.overload_names(self._qualified)  # perhaps registered since
            if key not in self._names:
                raise AttributeError(
                    "%s has no overload %r; overloads: %s"
                    % (self._qualified, overload, ", ".join(repr(o) for o in self.overloads()))
                )
        op = OpOverload(self._qualified, key)
        setattr(self, overload, op)  # found by plain attribute lookup from now on
        return op

    def overloads(self):
        return [o or "default" for o in _C._ops.overload_names(self._qualified)]

    def __repr__(self):
        return "<OpOverloadPacket %s>" % self._qualified


class OpOverload:
    """One overload, ns::name.overload; a call looks it up by name (no scan of the registry)."""

    def __init__(self, packet, overload=None):
        if overload is None:  # one name, "ns::name.overload" ("ns::name" for the default)
            packet, _, overload = packet.partition(".")
        self._packet, self._overload = packet, [overload]
        self._qualified = packet + ("." + overload if overload else "")

    def __call__(self, *args, **kwargs):
        return _C._ops.call(self._packet, args, kwargs, self._overload)

    def __repr__(self):
        return "<OpOverload %s>" % self._qualified


class _Namespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        qualified = "%s::%s" % (self._ns, name)
        names = _C._ops.overload_names(qualified)
        if not names:
            raise AttributeError("no operator %s is registered" % qualified)
        packet = OpOverloadPacket(qualified, names)
        setattr(self, name, packet)  # found by plain attribute lookup from now on
        return packet


class _Ops:
    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        namespace = _Namespace(ns)
        setattr(self, ns, namespace)
        return namespace

    def _clear_cache(self):
        """Forgets the namespaces, packets and overload lists found so far."""
        self.__dict__.clear()


ops = _Ops()
