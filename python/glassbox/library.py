"""Defining operators and registering kernels from Python, as GLASSBOX_LIBRARY blocks do in C++.

    lib = gb.library.Library("myops", "DEF")
    lib.define("scale(Tensor x, float factor) -> Tensor")

    @lib.impl("scale", key="CPU")
    def scale(x, factor):
        return x * factor

    gb.ops.myops.scale(gb.ones(3), 2.0)      # tensor([2., 2., 2.])
    print(gb.registry.dump("myops::scale"))  # the def and the kernel, at this file's lines
    lib.close()                              # or `with Library(...) as lib:`, or dropping lib

Every registration records the file:line of the Python code that made it, conflicts raise the
same errors as in C++ (naming both places), and closing the library (explicitly, at the end of a
`with` block, or when it is garbage-collected) removes all of its registrations, newest first.

A Python kernel is called with the operator's positional arguments positionally and its
keyword-only arguments by keyword, and returns what the schema returns (a tuple for several
results). It serves the dispatch key it names (key="CPU", "Meta", "AutogradCPU", "Autograd", ...),
else the library's key, else CompositeImplicitAutograd (so it runs for every backend and its calls
are recorded by autograd), as impl() in a C++ DEF block. The Python dispatch key is never chosen
implicitly: no tensor carries it, so its kernels and fallback run only inside
`with include_key("Python"):`, where they see every call on the thread before autograd does.
They run with the Python key excluded, so the operators they call dispatch as usual.
"""

import inspect
import sys

from . import _C
from .ops import ops as _ops

__all__ = ["Library", "fallthrough_kernel", "include_key"]


class _Fallthrough:
    def __repr__(self):
        return "glassbox.library.fallthrough_kernel"


# Registered with impl(op, fallthrough_kernel, key=K): calls of op skip K and go on below it.
fallthrough_kernel = _Fallthrough()

# Python kernels by operator, for checking them against a def that comes later: {op: [(fn, where)]}.
_kernels = {}


def _caller(depth=2):
    """ "file:line" of the code `depth` frames up (1: the caller of the function calling this)."""
    frame = sys._getframe(depth)
    return "%s:%d" % (frame.f_code.co_filename, frame.f_lineno)


def _check_signature(op, fn, where):
    """Raises when fn cannot take op's arguments as a Python kernel is given them."""
    schema, arguments, defined_at = _C._library.schema_arguments(op)
    if schema is None or fn is fallthrough_kernel:
        return
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: checked when called
        return
    positional = [None for _, kwarg_only in arguments if not kwarg_only]
    keywords = {name: None for name, kwarg_only in arguments if kwarg_only}
    try:
        sig.bind(*positional, **keywords)
    except TypeError as e:
        name = getattr(fn, "__qualname__", repr(fn))
        raise RuntimeError(
            "the Python kernel %s%s registered at %s does not fit the schema %s defined at %s: %s"
            % (name, sig, where, schema, defined_at, e)
        ) from None


def include_key(key):
    """`with include_key("Python"):` every call made on this thread inside the block also
    dispatches on `key` (a runtime key), so that key's kernels and fallback see it first."""
    return _C._library.KeyInclusion(key)


class Library:
    """Library(ns, kind, key=None): kind "DEF" (defines namespace ns; one per namespace),
    "FRAGMENT" (more operators for ns) or "IMPL" (kernels for key; ns "_" with fallback())."""

    def __init__(self, ns, kind, key=None):
        self._lib = _C._library.Library(kind, ns, key, _caller())
        self._kernels = []

    # --- registration ---------------------------------------------------------------------

    def define(self, schema, tags=()):
        """Defines an operator, "name.overload(args) -> returns" in this library's namespace;
        returns its full name "ns::name.overload"."""
        where = _caller()
        name = self._lib.define(schema, list(tags), where)
        _ops._clear_cache()
        for fn, at in _kernels.get(name, []):
            _check_signature(name, fn, at)
        return name

    def impl(self, op, fn=None, key=None):
        """Registers fn as op's kernel for `key`; without fn, a decorator that does so. fn may be
        fallthrough_kernel. Returns fn (so decorated functions stay usable)."""
        where = _caller()
        if fn is None:

            def register(f):
                self._impl(op, f, key, where)
                return f

            return register
        self._impl(op, fn, key, where)
        return fn

    def fallthrough(self, op=None, key=None):
        """Makes the library's key (or `key`) transparent for op: calls go on to the keys below.
        Without op (IMPL libraries only), for every operator: a fallthrough fallback."""
        where = _caller()
        if op is None:
            self._lib.fallback(None, where)
        else:
            self._impl(op, fallthrough_kernel, key, where)

    def fallback(self, fn=None):
        """Registers fn(call) as the boxed kernel of the library's key for every operator (IMPL
        libraries only). `call` has .op, .schema, .key, .args and .redispatch(), which runs the
        call on the keys below and returns its result; fn returns the operator's result."""
        where = _caller()
        if fn is None:

            def register(f):
                self._lib.fallback(f, where)
                return f

            return register
        self._lib.fallback(fn, where)
        return fn

    def _impl(self, op, fn, key, where):
        if fn is not fallthrough_kernel and not callable(fn):
            raise TypeError("impl(%r) at %s: the kernel is not callable (got %s)" % (op, where, type(fn).__name__))
        full = self._qualified(op)
        if fn is not fallthrough_kernel:
            _check_signature(full, fn, where)
        self._lib.impl(op, None if fn is fallthrough_kernel else fn, key, where)
        _ops._clear_cache()
        if fn is not fallthrough_kernel:
            _kernels.setdefault(full, []).append((fn, where))
            self._kernels.append((full, fn, where))

    def _qualified(self, op):
        return op if "::" in op else "%s::%s" % (self._lib.ns, op)

    # --- lifetime -------------------------------------------------------------------------

    def close(self):
        """Removes every registration of this library (newest first); idempotent."""
        if self._lib.closed:
            return
        self._lib.close()
        _ops._clear_cache()
        for full, fn, where in self._kernels:
            kept = _kernels.get(full, [])
            if (fn, where) in kept:
                kept.remove((fn, where))
            if not kept:
                _kernels.pop(full, None)
        self._kernels = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is not None and not lib.closed:
            try:
                self.close()
            except Exception:  # at interpreter exit the modules it uses may already be gone
                lib.close()

    @property
    def ns(self):
        return self._lib.ns

    @property
    def kind(self):
        return self._lib.kind

    @property
    def key(self):
        return self._lib.key

    @property
    def closed(self):
        return self._lib.closed

    @property
    def registered_at(self):
        """ "file:line" where the library was made."""
        return self._lib.debug

    def __repr__(self):
        state = " (closed)" if self.closed else ""
        return "<%s at %s%s>" % (self._lib.name, self._lib.debug, state)
