"""gb.compile: capture -> decompose -> fuse -> generate C++ -> run, with guards and a cache.

    compiled = gb.compile(fn)          # or gb.compile(module), or @gb.compile
    y = compiled(x)                    # first call per input signature compiles
    print(compiled.graph)              # the captured graph as a Python program
    print(compiled.fusion_log)         # why each operator was or was not fused
    print(compiled.code)               # the generated C++
    print(compiled.partition_log)      # with inputs that require grad: saved vs recomputed values
    print(compiled.backward_graph)     # ... and the backward graph loss.backward() runs compiled

Backends: "glassbox" (the default: decompositions, fusion, generated kernels) and "eager" (the
captured graph replayed with library calls only, to check the capture on its own)."""

import functools
import inspect
import os
import warnings

from .. import _C
from ..autograd import is_grad_enabled
from . import codegen_cpp, dead_code, debug, decompositions, kernels, lowering, printer, training
from .capture import CaptureError, capture
from .capture import current as current_capture
from .graph import Value, flatten
from .guards import Guards, named_leaves
from .runtime import ValueGuardFailed

BACKENDS = ("glassbox", "eager")
CACHE_SIZE_LIMIT = 8  # compilations kept per function before it falls back to eager


class Compilation:
    """One input signature's compiled graph and everything that led to it."""

    def __init__(self, captured, example_inputs, guards, backend, debug_dir=None):
        self.captured = captured
        self.example_inputs = example_inputs
        self.guards = guards
        self.backend = backend
        if backend == "eager":
            self.decomposed = captured
            removed = ()
        else:
            # operators the generator computes as one formula (gelu, silu) are not decomposed: their
            # vectorised float forms beat the pieces (erf has none)
            self.decomposed = decompositions.decompose(captured, example_inputs, decomposition_table())
            removed = dead_code.eliminate(self.decomposed)
        self.lowered = lowering.lower(self.decomposed, backend, is_grad_enabled(), removed)
        self.fusion_log = self.lowered.fusion_log
        self.fused = self.lowered.fused
        self.kernels = self.lowered.kernels
        self.cpp_source = self.lowered.cpp_source
        self.library_path = self.lowered.library_path
        self.run = self._make_wrapper(debug_dir)
        self.debug_paths = debug.write(debug_dir, self) if debug_dir else {}

    def wrapper_source(self):
        return lowering.wrapper_source(self.fused)

    def wrapper_runnable(self):
        return lowering.wrapper_runnable(self.lowered)

    def _make_wrapper(self, debug_dir):
        filename = os.path.join(debug_dir, "output_code.py") if debug_dir else "<gb.compile %s>" % self.captured.name
        return lowering.make_program(self.fused, filename)


def decomposition_table():
    """DECOMPOSITIONS less the operators the generator computes as one formula."""
    return {op: fn for op, fn in decompositions.DECOMPOSITIONS.items() if op not in codegen_cpp.POINTWISE}


class CompiledFunction:
    """What gb.compile returns: call it as the function; .graph, .fusion_log, .code, .guards tell
    what the latest compilation did."""

    def __init__(self, fn, backend="glassbox", debug_dir=None, fullgraph=False, cache_size_limit=CACHE_SIZE_LIMIT):
        if backend not in BACKENDS:
            raise ValueError("gb.compile: unknown backend %r; backends: %s" % (backend, ", ".join(BACKENDS)))
        if not callable(fn):
            raise TypeError("gb.compile expects a function or a gb.nn.Module, got %s" % type(fn).__name__)
        self.fn = fn
        self.backend = backend
        self.fullgraph = fullgraph
        self.cache_size_limit = cache_size_limit
        if debug_dir is None and os.environ.get("GLASSBOX_COMPILE_DEBUG") == "1":
            debug_dir = os.path.join(os.getcwd(), "glassbox_compile_debug", self._name())
        self.debug_dir = debug_dir
        self.compilations = []  # newest last
        self.eager_entries = []  # (guards, reason): signatures that run eagerly (capture failed)
        self.recompile_reasons = []  # the guard that failed, for each compilation after the first
        self.fell_back = None  # the reason calls now run eagerly (cache limit reached)
        functools.update_wrapper(
            self, fn if inspect.isfunction(fn) or inspect.ismethod(fn) else type(fn).__call__, updated=()
        )

    def _name(self):
        return getattr(self.fn, "__name__", type(self.fn).__name__)

    def _target(self):
        """The function whose parameters name the inputs (a module's forward)."""
        forward = getattr(self.fn, "forward", None)
        return forward if forward is not None and not inspect.isfunction(self.fn) else self.fn

    def _parameters(self):
        named = getattr(self.fn, "named_parameters", None)
        return list(named()) if callable(named) and not inspect.isfunction(self.fn) else []

    def _source(self):
        target = self._target()
        try:
            return "%s:%d" % (inspect.getsourcefile(target), inspect.getsourcelines(target)[1])
        except (TypeError, OSError):
            return ""

    def __call__(self, *args, **kwargs):
        if current_capture() is not None:  # called while another compiled function captures: inlined
            return self.fn(*args, **kwargs)
        leaves = named_leaves(self._target(), args, kwargs)
        parameters = self._parameters()
        if self.fell_back is not None:
            return self.fn(*args, **kwargs)
        for guards, _ in self.eager_entries:
            if guards.check(leaves, parameters) is None:
                return self.fn(*args, **kwargs)
        failed = None  # the newest compilation's failing guard, which the messages name
        for c in reversed(self.compilations):
            reason = c.guards.check(leaves, parameters)
            if reason is None:
                try:
                    return c.run(*self._inputs(leaves, parameters))
                except ValueGuardFailed as e:  # the program read another value: another path
                    reason = str(e)
            failed = failed or reason
        if failed is not None and len(self.compilations) >= self.cache_size_limit:
            self.fell_back = failed
            warnings.warn(
                "gb.compile: `%s` recompiled %d times (cache_size_limit); running it eagerly from now on. "
                "The guard that failed: %s" % (self._name(), len(self.compilations), failed),
                stacklevel=2,
            )
            return self.fn(*args, **kwargs)
        if failed is not None:
            self.recompile_reasons.append(failed)
        return self._compile_and_run(args, kwargs, leaves, parameters)

    @staticmethod
    def _inputs(leaves, parameters):
        return [x for _, x in leaves if isinstance(x, _C.Tensor)] + [t for _, t in parameters]

    def _eagerly(self, guards, error, args, kwargs):
        """What cannot be captured: raised under fullgraph, else run eagerly for these guards."""
        if self.fullgraph:
            raise error
        warnings.warn("gb.compile: running `%s` eagerly for these inputs: %s" % (self._name(), error), stacklevel=4)
        self.eager_entries.append((guards, str(error)))
        return self.fn(*args, **kwargs)

    def _compile_and_run(self, args, kwargs, leaves, parameters):
        guards = Guards(leaves, parameters)
        named_tensors = [(n, x) for n, x in leaves if isinstance(x, _C.Tensor)]
        if self.backend == "glassbox":  # builds while the function is captured (kernels.py)
            kernels.precompiled_header(any(x.device.type == "cuda" for _, x in named_tensors))
        try:
            graph, _ = capture(
                self.fn, named_tensors, args, kwargs, self._name(), self._source(), parameters, not self.fullgraph
            )
        except CaptureError as e:
            return self._eagerly(guards, e, args, kwargs)
        graph.scalar_inputs = {n: x for n, x in leaves if not isinstance(x, _C.Tensor)}
        inputs = self._inputs(leaves, parameters)
        directory = self.debug_dir
        if directory and self.compilations:
            directory = os.path.join(directory, "recompile_%d" % len(self.compilations))
        compiled = None
        if training.needs_training(inputs):
            try:
                compiled = training.TrainingCompilation(graph, inputs, guards, self.backend, directory)
            except training.NoGradientPath:  # (integer results): the forward-only compilation
                pass
            except CaptureError as e:
                return self._eagerly(guards, e, args, kwargs)
        if compiled is None:
            compiled = Compilation(graph, inputs, guards, self.backend, directory)
        self.compilations.append(compiled)
        return compiled.run(*inputs)

    # --- what the latest compilation did ---------------------------------------------------

    def _latest(self):
        if not self.compilations:
            raise RuntimeError("gb.compile: `%s` has not been called yet, so nothing is compiled" % self._name())
        return self.compilations[-1]

    @property
    def graph(self):
        """The captured graph; print() shows it as a Python program."""
        return _Printable(self._latest().captured)

    @property
    def decomposed_graph(self):
        return _Printable(self._latest().decomposed)

    @property
    def fused_graph(self):
        return _Printable(self._latest().fused)

    @property
    def fusion_log(self):
        return self._latest().fusion_log

    @property
    def code(self):
        """The generated C++ of the latest compilation."""
        return self._latest().cpp_source

    @property
    def kernels(self):
        """The generated operators' names ("compiled::fused_...")."""
        return [k.op_name for k in self._latest().kernels]

    def _training(self):
        latest = self._latest()
        if not isinstance(latest, training.TrainingCompilation):
            raise RuntimeError(
                "gb.compile: `%s`'s latest compilation has no backward: it was called with grad mode off or "
                "with no input that requires grad, or no result depends on one" % self._name()
            )
        return latest

    @property
    def backward_graph(self):
        """The backward graph (autograd's calls, captured; after the partition): a Python program
        whose inputs are the saved forward values and the outputs' gradients."""
        return _Printable(self._training().backward_lowered.graph)

    @property
    def backward_fused_graph(self):
        return _Printable(self._training().backward_lowered.fused)

    @property
    def backward_fusion_log(self):
        return self._training().backward_lowered.fusion_log

    @property
    def backward_code(self):
        return self._training().backward_lowered.cpp_source

    @property
    def backward_kernels(self):
        return [k.op_name for k in self._training().backward_kernels]

    @property
    def partition_log(self):
        """What the forward saves for the backward and what the backward recomputes, with reasons."""
        return self._training().partition

    @property
    def guards(self):
        return self._latest().guards

    @property
    def debug_paths(self):
        return self._latest().debug_paths

    def __repr__(self):
        return "<gb.compile(%s, backend=%r): %d compilations>" % (self._name(), self.backend, len(self.compilations))


class _Printable:
    """A graph whose str() is its program text; .ir is the Graph itself."""

    def __init__(self, graph):
        self.ir = graph

    def __str__(self):
        return printer.readable(self.ir)

    __repr__ = __str__

    def __getattr__(self, name):
        return getattr(self.ir, name)


def compile(fn=None, *, backend="glassbox", debug_dir=None, fullgraph=False, cache_size_limit=CACHE_SIZE_LIMIT):
    """Compiles fn (a function or a gb.nn.Module); usable as @gb.compile or @gb.compile(...)."""
    if fn is None:
        return lambda f: CompiledFunction(f, backend, debug_dir, fullgraph, cache_size_limit)
    return CompiledFunction(fn, backend, debug_dir, fullgraph, cache_size_limit)


__all__ = ["compile", "CompiledFunction", "CaptureError", "Value", "flatten"]
