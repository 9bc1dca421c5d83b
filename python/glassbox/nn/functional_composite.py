"""Losses, normalisation and distances of gb.nn.functional that compose from glassbox's operators
(smooth L1, Huber, KL divergence, normalize, cosine similarity, pairwise distance)."""

import warnings

from .. import _C
from ._checks import tensor_arguments
from ._reduction import reduction_name

_f = _C._functions


def _reduce(loss, reduction, size_average=None, reduce=None):
    reduction = reduction_name(reduction, size_average, reduce)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _elementwise_difference(what, input, target):
    """|input - target|; a target of another shape broadcasts, with a warning (it is rarely meant)."""
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"{what}: target of shape {list(target.shape)} broadcasts against input of shape "
            f"{list(input.shape)}; the loss is then taken over the broadcast shape",
            UserWarning,
            stacklevel=3,
        )
    return (input - target).abs()


@tensor_arguments("input", "target")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = _elementwise_difference("smooth_l1_loss", input, target)
    loss = d if beta == 0 else _f.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _reduce(loss, reduction, size_average, reduce)


@tensor_arguments("input", "target", "weight")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = _elementwise_difference("huber_loss", input, target)
    loss = _f.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@tensor_arguments("input", "target")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input), pointwise, with 0 where target is 0 (input holds log-probabilities)."""
    if log_target:
        loss = _f.exp(target) * (target - input)
    else:
        positive = target > 0
        safe_log = _f.log(_f.where(positive, target, 1.0))  # log(1) = 0 where the target is 0
        loss = _f.where(positive, target * (safe_log - input), 0.0)
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() > 0 else 1)
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn(
            "kl_div: reduction='mean' averages over every element; 'batchmean' divides the sum by the batch "
            "size only, which is the KL divergence's definition",
            UserWarning,
            stacklevel=2,
        )
    return _reduce(loss, reduction, size_average, reduce)


def _vector_norm(x, p, dim, keepdim):
    if p == 0:  # the count of non-zero elements, as PyTorch's 0-norm
        return (x != 0).sum(dim, keepdim=keepdim).to(x.dtype)
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=keepdim)
    if p == float("inf"):
        return x.abs().amax(dim, keepdim=keepdim)
    return (x.abs() ** p).sum(dim, keepdim=keepdim) ** (1.0 / p)


@tensor_arguments("input", "out")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    result = input / _vector_norm(input, p, dim, True).clamp(min=eps)
    return result if out is None else out.copy_(result)


@tensor_arguments("x1", "x2")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # Each side divided by its own norm (clamped to eps) before the product, as PyTorch computes it,
    # so that large inputs do not overflow the product of the norms.
    x1, x2 = _broadcast(x1, x2)
    n1 = _vector_norm(x1, 2, dim, True).clamp(min=eps)
    n2 = _vector_norm(x2, 2, dim, True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _broadcast(x1, x2):
    shape = _broadcast_shape(tuple(x1.shape), tuple(x2.shape))
    return x1.expand(list(shape)), x2.expand(list(shape))


def _broadcast_shape(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and 1 not in (x, y):
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
            )
        out.append(max(x, y) if 0 not in (x, y) else 0)
    return tuple(out)


@tensor_arguments("x1", "x2")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _vector_norm(x1 - x2 + eps, p, -1, keepdim)
