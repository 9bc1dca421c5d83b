"""Guards: what a compiled graph assumed about its call, checked before each reuse.

A call's inputs are flattened (tensors inside tuples, lists and dicts included) into named
leaves. Tensors are guarded on shape, strides, dtype, device and requires_grad; every other leaf
(a Python number, a string, None) on its type and value, since capture baked it into the graph.
Grad mode is guarded too: with it on, values that need gradients stay library calls."""

import inspect

from .. import _C
from ..autograd import is_grad_enabled


def named_leaves(fn, args, kwargs):
    """[(name, leaf)] of a call's arguments, named after fn's parameters ("x", "xs_0", ...)."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        items = list(bound.arguments.items())
    except (TypeError, ValueError):
        items = [("arg%d" % i, a) for i, a in enumerate(args)] + list(kwargs.items())
    leaves = []

    def walk(name, x):
        if isinstance(x, (list, tuple)):
            for i, item in enumerate(x):
                walk("%s_%d" % (name, i), item)
        elif isinstance(x, dict):
            for k, item in x.items():
                walk("%s_%s" % (name, k), item)
        else:
            leaves.append((name, x))

    for name, value in items:
        walk(name, value)
    return leaves


def tensor_facts(t):
    return (tuple(t.shape), tuple(t.stride()), str(t.dtype), str(t.device), bool(t.requires_grad))


_FACTS = ("shape", "stride", "dtype", "device", "requires_grad")


class Guards:
    """The facts one compiled graph depends on; check() returns None or the first one that fails."""

    def __init__(self, leaves, parameters):
        self.entries = []  # (name, kind, expected)
        for name, x in leaves:
            if isinstance(x, _C.Tensor):
                self.entries.append((name, "tensor", tensor_facts(x)))
            else:
                self.entries.append((name, "value", (type(x), x)))
        for name, t in parameters:
            self.entries.append((name, "tensor", tensor_facts(t)))
        self.grad_mode = is_grad_enabled()

    def check(self, leaves, parameters):
        """None when the call fits, else a sentence naming the guard that failed."""
        if is_grad_enabled() != self.grad_mode:
            return "grad mode: expected %s, got %s" % (self.grad_mode, not self.grad_mode)
        actual = list(leaves) + list(parameters)
        if len(actual) != len(self.entries):
            return "number of inputs: expected %d, got %d" % (len(self.entries), len(actual))
        for (name, kind, expected), (_, x) in zip(self.entries, actual):
            if kind == "tensor":
                if not isinstance(x, _C.Tensor):
                    return "%s: expected a tensor, got %s" % (name, type(x).__name__)
                facts = tensor_facts(x)
                for fact, want, got in zip(_FACTS, expected, facts):
                    if want != got:
                        return "%s.%s: expected %s, got %s" % (name, fact, _show(want), _show(got))
            else:
                want_type, want = expected
                if type(x) is not want_type or not _equal(x, want):
                    return "%s: expected %r, got %r" % (name, want, x)
        return None

    def describe(self):
        lines = ["grad mode == %s" % self.grad_mode]
        for name, kind, expected in self.entries:
            if kind == "tensor":
                lines.append("%s: %s" % (name, ", ".join("%s=%s" % (f, _show(v)) for f, v in zip(_FACTS, expected))))
            else:
                lines.append("%s == %r" % (name, expected[1]))
        return "\n".join(lines)


def _show(v):
    return str(list(v)) if isinstance(v, tuple) else str(v)


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return a is b
