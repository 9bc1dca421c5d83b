"""gb.profiler: where a program's time and memory go, and why each call went where it did.

Spelled as PyTorch's ``torch.profiler``::

    with gb.profiler.profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with gb.profiler.record_function("step"):
            loss = model(x).sum()
            loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")   # Perfetto / chrome://tracing

Beyond PyTorch's, every operator event keeps each dispatch hop: the key that was picked, the key set
it dispatched on, each tensor argument's key set and the thread's included/excluded keys (why that
key), the kernel's provenance and where it was registered (``event.why()``). CUDA kernels, copies
and memsets come from CUPTI's activity records, each tied to the operator that launched it.
"""

from __future__ import annotations

import enum
import functools
from collections import OrderedDict

from .. import _C

_P = _C._profiler

__all__ = ["ProfilerActivity", "profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList"]


class ProfilerActivity(enum.Enum):
    CPU = "cpu"
    CUDA = "cuda"


def _us(ns):
    return ns / 1000.0


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_bytes(n):
    sign = "-" if n < 0 else ""
    n = abs(n)
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if n >= size:
            return f"{sign}{n / size:.2f} {unit}"
    return f"{sign}{n} b"


class FunctionEvent:
    """One operator call, record_function scope, memory instant or GPU activity."""

    def __init__(self, raw):
        self._raw = raw
        self.kind = raw.kind  # "operator", "user_annotation", "memory", "kernel", "gpu_memcpy", "gpu_memset"
        self.name = raw.name
        self.id = raw.id
        self.parent_id = raw.parent
        self.thread = raw.thread
        self.depth = raw.depth
        self.start_us = _us(raw.start_ns)
        self.end_us = _us(raw.end_ns)
        self.inputs = raw.inputs
        self.hops = raw.hops
        self.tls_included = raw.tls_included
        self.tls_excluded = raw.tls_excluded
        self.bytes_allocated = raw.bytes_allocated
        self.bytes_freed = raw.bytes_freed
        self.stack = raw.stack.split("\n") if raw.stack else []
        self.device_index = raw.device_index
        self.detail = raw.detail
        self.cpu_children: list[FunctionEvent] = []
        self.gpu_events: list[FunctionEvent] = []  # launched by this operator itself
        self.cpu_parent: FunctionEvent | None = None

    @property
    def is_gpu(self):
        return self.kind in ("kernel", "gpu_memcpy", "gpu_memset")

    @property
    def duration_us(self):
        return self.end_us - self.start_us

    @property
    def cpu_time_total(self):
        return 0.0 if self.is_gpu else self.duration_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_device_time_total(self):
        return sum(g.duration_us for g in self.gpu_events) if not self.is_gpu else self.duration_us

    @property
    def device_time_total(self):
        return self.self_device_time_total + sum(c.device_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.bytes_allocated - self.bytes_freed

    @property
    def input_shapes(self):
        return [i["shape"] for i in self.inputs]

    @property
    def key(self):
        """The dispatch key whose kernel did the work: the last hop's."""
        return self.hops[-1]["key"] if self.hops else ""

    @property
    def dispatch_path(self):
        return " -> ".join(h["key"] for h in self.hops)

    @property
    def source(self):
        """Where this event's kernel is defined (file:line, library, CMake target), or None; see
        glassbox.profiler.sources."""
        from .sources import kernel_source

        return kernel_source(self)

    def why(self) -> str:
        """Why each hop went where it did, in words."""
        if not self.hops:
            return f"{self.name}: not an operator call"
        lines = [f"{self.name}"]
        if self.inputs:
            args = ", ".join(f"{i['dtype']}{list(i['shape'])} on {i['device']} keys={i['keys']}" for i in self.inputs)
            lines.append(f"  tensor arguments: {args}")
        lines.append(f"  thread-local keys: included={self.tls_included} excluded={self.tls_excluded}")
        for h in self.hops:
            where = f", registered at {h['registered_at']}" if h["registered_at"] else ""
            lines.append(
                f"  {h['step']}: dispatched on {h['dispatched_on']} -> highest key {h['key']}: "
                f"{h['provenance'] or 'kernel'}{where}"
            )
        return "\n".join(lines)

    def __repr__(self):
        return (
            f"<FunctionEvent {self.kind} {self.name} id={self.id} cpu_time={_format_time(self.cpu_time_total)}"
            f" path={self.dispatch_path}>"
        )


class FunctionEventAvg:
    """The events of one name (and input shapes, when grouped so) added up."""

    def __init__(self, key, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.dispatch_paths: OrderedDict = OrderedDict()
        self.is_gpu = False
        self.sample = None  # one of the events added up

    @property
    def source(self):
        return self.sample.source if self.sample is not None else None

    def add(self, e: FunctionEvent, with_children_memory):
        self.sample = self.sample or e
        self.count += 1
        self.is_gpu = e.is_gpu
        self.cpu_time_total += e.cpu_time_total
        self.self_cpu_time_total += e.self_cpu_time_total
        self.device_time_total += e.device_time_total
        self.self_device_time_total += e.self_device_time_total
        self.self_cpu_memory_usage += e.self_cpu_memory_usage
        self.cpu_memory_usage += with_children_memory(e)
        if e.hops:
            self.dispatch_paths[e.dispatch_path] = None

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return f"<FunctionEventAvg {self.key} count={self.count} self_cpu={_format_time(self.self_cpu_time_total)}>"


_SORT_KEYS = {
    "cpu_time_total",
    "self_cpu_time_total",
    "cpu_time",
    "device_time_total",
    "self_device_time_total",
    "cuda_time_total",
    "self_cuda_time_total",
    "cpu_memory_usage",
    "self_cpu_memory_usage",
    "count",
}


class EventList(list):
    """key_averages()'s rows; .table() prints them as PyTorch's profiler does."""

    def __init__(self, rows, has_gpu=False, has_memory=False, has_shapes=False, total_self_cpu=0.0, total_self_gpu=0.0):
        super().__init__(rows)
        self._has_gpu = has_gpu
        self._has_memory = has_memory
        self._has_shapes = has_shapes
        self._total_self_cpu = total_self_cpu
        self._total_self_gpu = total_self_gpu

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, with_source=False):
        """with_source: a column with where each row's kernel is defined (file:line, library and CMake
        target), joined from the introspection tools when they are built."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"table: sort_by must be one of {sorted(_SORT_KEYS)}, got {sort_by!r}")
            attr = sort_by.replace("cuda_", "device_")
            rows.sort(key=lambda r: getattr(r, attr), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        cpu_total = self._total_self_cpu or 1.0
        gpu_total = self._total_self_gpu or 1.0
        cols = [
            (
                "Name",
                lambda r: r.key if len(r.key) <= max_name_column_width else r.key[: max_name_column_width - 3] + "...",
            ),
            ("Self CPU %", lambda r: f"{100 * r.self_cpu_time_total / cpu_total:.2f}%"),
            ("Self CPU", lambda r: _format_time(r.self_cpu_time_total)),
            ("CPU total %", lambda r: f"{100 * r.cpu_time_total / cpu_total:.2f}%"),
            ("CPU total", lambda r: _format_time(r.cpu_time_total)),
            ("CPU time avg", lambda r: _format_time(r.cpu_time)),
        ]
        if self._has_gpu:
            cols += [
                ("Self CUDA", lambda r: _format_time(r.self_device_time_total)),
                ("Self CUDA %", lambda r: f"{100 * r.self_device_time_total / gpu_total:.2f}%"),
                ("CUDA total", lambda r: _format_time(r.device_time_total)),
            ]
        if self._has_memory:
            cols += [
                ("CPU Mem", lambda r: _format_bytes(r.cpu_memory_usage)),
                ("Self CPU Mem", lambda r: _format_bytes(r.self_cpu_memory_usage)),
            ]
        cols.append(("# of Calls", lambda r: str(r.count)))
        if self._has_shapes:
            cols.append(("Input Shapes", lambda r: str(r.input_shapes) if r.input_shapes is not None else ""))
        cols.append(("Dispatch path", lambda r: " | ".join(r.dispatch_paths)))
        if with_source:
            cols.append(("Kernel source", lambda r: str(r.source or "")))
        cells = [[fn(r) for _, fn in cols] for r in rows]
        widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (h, _) in enumerate(cols)]
        rule = "-" * (sum(widths) + 2 * (len(widths) - 1))

        left = {0} | {i for i, (h, _) in enumerate(cols) if h in ("Dispatch path", "Kernel source", "Input Shapes")}

        def line(values):
            return "  ".join(
                v.ljust(w) if i in left else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths))
            ).rstrip()

        out = [rule, line([h for h, _ in cols]), rule] + [line(c) for c in cells] + [rule]
        out.append(f"Self CPU time total: {_format_time(self._total_self_cpu)}")
        if self._has_gpu:
            out.append(f"Self CUDA time total: {_format_time(self._total_self_gpu)}")
        return "\n".join(out) + "\n"


class profile:
    """A profiling session: a context manager, or start()/stop()."""

    def __init__(self, activities=None, record_shapes=False, profile_memory=False, with_stack=False):
        activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        for a in activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile: activities must be ProfilerActivity values, got {a!r}")
        self.activities = activities
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self._raw = None
        self._events = None
        self._running = False

    def start(self):
        cuda = ProfilerActivity.CUDA in self.activities
        if cuda and _P.cuda_unavailable_reason():
            raise RuntimeError(
                "profile: ProfilerActivity.CUDA cannot be recorded here: " + _P.cuda_unavailable_reason()
            )
        _P.start(self.record_shapes, self.profile_memory, self.with_stack, cuda)
        self._running = True
        return self

    def stop(self):
        if not self._running:
            raise RuntimeError("profile: stop() without start()")
        self._running = False
        self._raw = _P.stop()
        self._events = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _check(self):
        if self._running:
            raise RuntimeError("profile: the session is still running; leave the `with` block (or stop()) first")
        if self._raw is None:
            raise RuntimeError("profile: nothing was recorded; start() and stop() the session first")

    def events(self) -> list[FunctionEvent]:
        """Every event, in order of start time, with cpu_children and gpu_events linked."""
        self._check()
        if self._events is None:
            events = [FunctionEvent(r) for r in self._raw]
            by_id = {e.id: e for e in events}
            for e in events:
                parent = by_id.get(e.parent_id) if e.parent_id else None
                if parent is None:
                    continue
                if e.is_gpu:
                    parent.gpu_events.append(e)
                else:
                    parent.cpu_children.append(e)
                    e.cpu_parent = parent
            self._events = events
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0) -> EventList:
        events = self.events()

        @functools.lru_cache(maxsize=None)
        def memory_with_children(event_id):
            e = by_id[event_id]
            return e.self_cpu_memory_usage + sum(memory_with_children(c.id) for c in e.cpu_children)

        by_id = {e.id: e for e in events}
        groups: OrderedDict = OrderedDict()
        for e in events:
            if e.kind == "memory":
                key = ("[memory]", None, ())
            else:
                shapes = tuple(tuple(s) for s in e.input_shapes) if group_by_input_shape else None
                stack = tuple(e.stack[-group_by_stack_n:]) if group_by_stack_n else ()
                key = (e.name, shapes, stack)
            if key not in groups:
                groups[key] = FunctionEventAvg(key[0], [list(s) for s in key[1]] if key[1] is not None else None)
            groups[key].add(e, lambda ev: memory_with_children(ev.id))
        cpu_events = [e for e in events if not e.is_gpu]
        total_cpu = sum(e.self_cpu_time_total for e in cpu_events)
        total_gpu = sum(e.duration_us for e in events if e.is_gpu)
        return EventList(
            groups.values(),
            has_gpu=any(e.is_gpu for e in events) or ProfilerActivity.CUDA in self.activities,
            has_memory=self.profile_memory,
            has_shapes=group_by_input_shape,
            total_self_cpu=total_cpu,
            total_self_gpu=total_gpu,
        )

    def export_chrome_trace(self, path):
        """Writes Chrome's trace-event JSON (open it in Perfetto or chrome://tracing)."""
        self._check()
        with open(path, "w") as f:
            f.write(_P.chrome_trace(self._raw))

    def table(self, **kwargs):
        return self.key_averages().table(**kwargs)


class record_function:
    """A named range in the profile, as a context manager or a decorator."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"record_function: the name must be a str, got {type(name).__name__}")
        self.name = name
        self._scope = None

    def __enter__(self):
        self._scope = _P.RecordScope(self.name)
        self._scope.enter()
        return self

    def __exit__(self, *exc):
        self._scope.exit()
        self._scope = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapped
