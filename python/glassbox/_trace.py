"""gb.trace(): the dispatch trace of a block, as data and as text.

    with gb.trace() as t:
        y = A @ x
    t.events[0]    # TraceEvent(kind='call', op='glassbox::matmul', key='AutogradCPU', depth=0, ...)
    print(t)       # the nested lines GLASSBOX_DISPATCH_TRACE=1 prints

A trace sees the calls made on the thread that entered it (other threads are not recorded), and
while it captures, that thread's calls are not printed to stderr even with
GLASSBOX_DISPATCH_TRACE=1. Traces nest (an outer one sees the inner one's calls too) and must end
in the reverse order they began, as `with` blocks do.
"""

from dataclasses import dataclass

from . import _C

__all__ = ["trace", "TraceEvent"]


@dataclass(frozen=True)
class TraceEvent:
    """One dispatcher call or redispatch. `kernel` is the provenance of the table slot that served
    it ("kernel", "math kernel", "backend fallback", ...) and `registered_at` that kernel's
    file:line, both read from the operator's dispatch table when the trace ended."""

    kind: str  # "call" or "redispatch"
    op: str  # "ns::name.overload"
    key: str  # the dispatch key the call went to, e.g. "AutogradCPU"
    depth: int  # 0 for a call made outside any kernel
    kernel: str = ""
    registered_at: str = ""

    def __str__(self):
        return "%s[%s] op=[%s] key=[%s]" % ("  " * self.depth, self.kind, self.op, self.key)


class trace:
    """Context manager capturing the dispatch trace of its block (see the module docstring)."""

    def __init__(self):
        self._capture = _C._trace.Capture()
        self._events = None

    def __enter__(self):
        self._capture.start()
        return self

    def __exit__(self, *exc):
        self._capture.stop()
        self._events = None
        self._events = self.events  # kernel provenance as the tables are now
        return False

    @property
    def events(self):
        """The events so far (while capturing) or of the whole block, in call order."""
        if self._events is not None and not self._capture.active:
            return self._events
        slots = {}

        def slot(op, key):
            if (op, key) not in slots:
                provenance, _, where = _C._trace.slot(op, key)
                slots[op, key] = (provenance, where)
            return slots[op, key]

        events = [TraceEvent(kind, op, key, depth, *slot(op, key)) for kind, op, key, depth in self._capture.events()]
        if not self._capture.active:
            self._events = events
        return events

    def text(self):
        """The trace as the nested lines GLASSBOX_DISPATCH_TRACE=1 prints."""
        return self._capture.text()

    def __str__(self):
        return self.text()

    def __repr__(self):
        state = "capturing" if self._capture.active else "%d events" % len(self._capture.events())
        return "<glassbox.trace %s>" % state
