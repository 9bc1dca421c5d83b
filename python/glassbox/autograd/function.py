"""gb.autograd.Function: an operation whose gradient you write yourself, as torch.autograd.Function.

    class Exp(gb.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)      # y.grad_fn is <ExpBackward>; backward() calls Exp.backward

forward runs with gradient recording off; its outputs get one backward node (a C++ Node that calls
backward with the GIL held, python/csrc/python_function.cpp), whose next edges are the tensor
arguments of apply, in order.
"""

from .. import _C
from .grad_mode import is_grad_enabled, no_grad


class FunctionCtx:
    """What forward hands to backward: saved tensors and flags."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.materialize_grads = True
        self._saved = ()
        self._non_differentiable = set()

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"save_for_backward can only save tensors (or None), got {type(t).__name__}")
        self._saved = tensors

    @property
    def saved_tensors(self):
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        """False: backward gets None (not zeros) for outputs that received no gradient."""
        self.materialize_grads = bool(value)


class Function:
    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a gb.autograd.Function subclass must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a gb.autograd.Function subclass must define backward(ctx, *grads)")

    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"{type(self).__name__} is not instantiated: call {type(self).__name__}.apply(...)")

    @classmethod
    def apply(cls, *args):
        needs = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        ctx = FunctionCtx(needs)
        with no_grad():
            result = cls.forward(ctx, *args)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        if not (is_grad_enabled() and any(needs)):
            return result
        inputs = [id(a) for a in args if isinstance(a, _C.Tensor)]
        # An output that is an input (or the same tensor twice) gets a view of its own: the node
        # becomes its history without rewriting the input's.
        tensors, differentiable, seen = [], [], set()
        for out in outputs:
            if isinstance(out, _C.Tensor):
                if id(out) in inputs or id(out) in seen:
                    with no_grad():
                        out = out.view(list(out.shape))
                seen.add(id(out))
                tensors.append(out)
                differentiable.append(id(out) not in ctx._non_differentiable and out.dtype.is_floating_point)
        metadata = [(list(t.shape), t.dtype, t.device) for t in tensors]

        def backward(*grads):
            if ctx.materialize_grads:
                grads = tuple(
                    _C._functions.zeros(shape, dtype=dtype, device=device) if g is None else g
                    for g, (shape, dtype, device) in zip(grads, metadata)
                )
            got = cls.backward(ctx, *grads)
            got = got if isinstance(got, tuple) else (got,)
            if len(got) != len(args):
                # Trailing Nones for non-tensor arguments may be left out, as PyTorch allows.
                if len(got) < len(args) and all(not isinstance(a, _C.Tensor) for a in args[len(got) :]):
                    got = got + (None,) * (len(args) - len(got))
                else:
                    raise RuntimeError(
                        f"function {cls.__name__}Backward returned an incorrect number of gradients "
                        f"(expected {len(args)}, got {len(got)})"
                    )
            grads_in = []
            for i, (a, g) in enumerate(zip(args, got)):
                if not isinstance(a, _C.Tensor):
                    if g is not None:
                        raise RuntimeError(
                            f"function {cls.__name__}Backward returned a gradient for argument {i}, which is not a tensor"
                        )
                    continue
                if g is not None and not isinstance(g, _C.Tensor):
                    raise TypeError(f"function {cls.__name__}Backward returned {type(g).__name__} for argument {i}")
                if g is not None and tuple(g.shape) != tuple(a.shape):
                    raise RuntimeError(
                        f"function {cls.__name__}Backward returned an invalid gradient at index {i} - got "
                        f"{list(g.shape)} but expected shape compatible with {list(a.shape)}"
                    )
                grads_in.append(g if needs[i] else None)
            return grads_in

        _C._autograd._record_function(
            backward,
            f"{cls.__name__}Backward",
            [a for a in args if isinstance(a, _C.Tensor)],
            tensors,
            differentiable,
        )
        it = iter(tensors)
        outputs = tuple(next(it) if isinstance(o, _C.Tensor) else o for o in outputs)
        return outputs[0] if single else outputs
