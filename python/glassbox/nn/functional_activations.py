"""The activation functions of gb.nn.functional that compose from glassbox's operators.

Each is a few operator calls, so autograd differentiates it through those operators and the
dispatch trace shows them. Where a textbook formula would overflow in a branch that `where` then
discards (exp of a large input), the input is clamped first: `where` passes a zero gradient to the
unused branch, and 0 * inf would still make NaN there.
"""

from .. import _C
from ._checks import tensor_arguments

_f = _C._functions


def _inplace(input, result, inplace):
    """The in-place form writes the result back into `input`, as PyTorch's `inplace=True` does."""
    return input.copy_(result) if inplace else result


def _softplus(x):
    """log(1 + exp(x)) without overflow: each branch exponentiates only a non-positive number, and the
    clamps meet at 0 so that the gradient there is sigmoid(0) = 0.5."""
    negative = _f.log1p(_f.exp(x.clamp(max=0)))
    positive = x + _f.log1p(_f.exp(-x.clamp(min=0)))
    return _f.where(x > 0, positive, negative)


@tensor_arguments("input")
def softplus(input, beta=1.0, threshold=20.0):
    scaled = input * beta
    return _f.where(scaled > threshold, input, _softplus(scaled) / beta)


@tensor_arguments("input")
def logsigmoid(input):
    return -_softplus(-input)


@tensor_arguments("input")
def elu(input, alpha=1.0, inplace=False):
    result = _f.where(input > 0, input, _f.expm1(input.clamp(max=0)) * alpha)
    return _inplace(input, result, inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@tensor_arguments("input")
def selu(input, inplace=False):
    return _inplace(input, elu(input, _SELU_ALPHA) * _SELU_SCALE, inplace)


@tensor_arguments("input")
def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu's alpha must not be 0")
    result = _f.where(input > 0, input, _f.expm1(input.clamp(max=0) / alpha) * alpha)
    return _inplace(input, result, inplace)


@tensor_arguments("input")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _inplace(input, _f.where(input > 0, input, input * negative_slope), inplace)


@tensor_arguments("input")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not input.dtype.is_floating_point:  # the result keeps an integer dtype: bounds as integers
        min_val, max_val = int(min_val), int(max_val)
    # Inside (min, max) the gradient is 1; on the bounds and outside it is 0, as PyTorch's is.
    inside = (input > min_val).logical_and(input < max_val)
    return _inplace(input, _f.where(inside, input, input.clamp(min=min_val, max=max_val).detach()), inplace)


@tensor_arguments("input")
def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


@tensor_arguments("input")
def hardsigmoid(input, inplace=False):
    return _inplace(input, hardtanh(input + 3.0, 0.0, 6.0) / 6.0, inplace)


@tensor_arguments("input")
def hardswish(input, inplace=False):
    return _inplace(input, input * hardtanh(input + 3.0, 0.0, 6.0) / 6.0, inplace)


@tensor_arguments("input")
def softsign(input):
    return input / (input.abs() + 1.0)


@tensor_arguments("input")
def tanhshrink(input):
    return input - _f.tanh(input)


@tensor_arguments("input")
def mish(input, inplace=False):
    return _inplace(input, input * _f.tanh(softplus(input)), inplace)


@tensor_arguments("input")
def softmin(input, dim=None, dtype=None):
    from .functional import softmax

    return softmax(-input, dim, dtype)


@tensor_arguments("input")
def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.chunk(2, dim)
    return a * _f.sigmoid(b)


@tensor_arguments("input", "weight")
def prelu(input, weight):
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: weight must be 0-d or 1-d, got {weight.dim()} dimensions")
    channels = weight.numel()
    if channels != 1:
        if input.dim() < 2 or input.shape[1] != channels:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {channels} "
                f"and channel size = {input.shape[1] if input.dim() >= 2 else 1}."
            )
        weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _f.where(input > 0, input, input * weight)
