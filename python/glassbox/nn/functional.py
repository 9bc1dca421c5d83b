"""gb.nn.functional (F): the stateless forms of the layers, calling glassbox's operators."""

from .. import _C

_f = _C._functions
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    """The reduction code of a loss; size_average/reduce are PyTorch's older spelling of it."""
    if size_average is not None or reduce is not None:
        import warnings

        warnings.warn(
            "size_average and reduce are deprecated; use reduction='none'|'mean'|'sum'", UserWarning, stacklevel=3
        )
        if reduce is False:
            reduction = "none"
        else:
            reduction = "sum" if size_average is False else "mean"
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction (none, mean, sum)")
    return _REDUCTIONS[reduction]


def linear(input, weight, bias=None):
    return _f.linear(input, weight, bias)


def relu(input, inplace=False):
    return _f.relu_(input) if inplace else _f.relu(input)


def gelu(input, *, approximate="none"):
    return _f.gelu(input, approximate=approximate)


def silu(input):
    return _f.silu(input)


def sigmoid(input):
    return _f.sigmoid(input)


def tanh(input):
    return _f.tanh(input)


def softmax(input, dim, dtype=None):
    return _f.softmax(input, dim, dtype)


def log_softmax(input, dim, dtype=None):
    return _f.log_softmax(input, dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout: the probability has to be between 0 and 1, but got {p}")
    out = _f.dropout(input, p, training)
    return input.copy_(out) if inplace else out


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _f.mse_loss(input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _f.l1_loss(input, target, _reduction(reduction, size_average, reduce))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _f.nll_loss(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    code = _reduction(reduction, size_average, reduce)
    if label_smoothing:
        return _f.cross_entropy(input, target, weight, code, ignore_index, label_smoothing)
    return _f.cross_entropy(input, target, weight, code, ignore_index)


def _same_size(what, input, target):
    # PyTorch checks this in Python, so a mismatch is a ValueError (the operator itself raises RuntimeError).
    if isinstance(input, _C.Tensor) and isinstance(target, _C.Tensor) and list(target.shape) != list(input.shape):
        raise ValueError(
            f"{what}: target of shape {list(target.shape)} must have the shape of input {list(input.shape)}"
        )


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    code = _reduction(reduction, size_average, reduce)
    _same_size("binary_cross_entropy", input, target)
    return _f.binary_cross_entropy(input, target, weight, code)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    code = _reduction(reduction, size_average, reduce)
    _same_size("binary_cross_entropy_with_logits", input, target)
    return _f.binary_cross_entropy_with_logits(input, target, weight, pos_weight, code)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return _f.layer_norm(input, list(normalized_shape), weight, bias, eps)


def embedding(input, weight, padding_idx=None):
    return _f.embedding(weight, input, -1 if padding_idx is None else padding_idx)


def _pair(v):
    return [v, v] if isinstance(v, int) else list(v)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _f.conv2d(input, weight, bias, _pair(stride), _pair(padding), _pair(dilation), groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    return _f.max_pool2d(
        input, _pair(kernel_size), [] if stride is None else _pair(stride), _pair(padding), _pair(dilation), ceil_mode
    )


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _f.avg_pool2d(
        input, _pair(kernel_size), [] if stride is None else _pair(stride), _pair(padding), ceil_mode, count_include_pad
    )


def one_hot(tensor, num_classes=-1):
    return _f.one_hot(tensor, num_classes)
