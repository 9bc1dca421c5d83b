"""gb.autograd: reverse-mode differentiation (the engine lives in C++, engine/autograd/)."""

from .. import _C
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .function import Function, FunctionCtx  # noqa: F401

Node = _C.Node


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """Accumulates the gradients of tensors (weighted by grad_tensors) into the leaves' .grad."""
    _C._autograd.backward(tensors, grad_tensors, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """The gradients of outputs with respect to inputs, as a tuple (nothing is accumulated)."""
    return _C._autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


__all__ = [
    "Function",
    "FunctionCtx",
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "Node",
]
