"""Gradient clipping over a set of parameters, in place, as a training loop calls it between
backward() and the optimizer's step()."""

import math

from ... import _C
from ...autograd import no_grad

_f = _C._functions


def _with_grads(parameters):
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales every gradient by max_norm / total_norm when the norm of all gradients together (as
    if concatenated) exceeds max_norm. Returns that total norm as a 0-d tensor."""
    grads = _with_grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return _f.zeros([])
    if norm_type == math.inf:
        norms = [g.abs().amax() if g.numel() else _f.zeros([], device=g.device) for g in grads]
        total = _f.stack([n.to(grads[0].device) for n in norms], 0).amax()
    else:
        norms = [(g.abs() ** norm_type).sum() for g in grads]
        total = _f.stack([n.to(grads[0].device) for n in norms], 0).sum() ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is {total.item()}, which "
            "cannot be clipped; error_if_nonfinite=False scales by it anyway"
        )
    # A factor of at most 1, applied to every gradient (as a tensor, so no value crosses to the host).
    factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(factor.to(g.device))
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for g in _with_grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)
