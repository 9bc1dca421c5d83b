"""gb.nn.functional (F): the stateless forms of the layers, calling glassbox's operators."""

from .. import _C
from ._checks import tensor_arguments as _tensor_arguments
from ._reduction import REDUCTION_CODES as _REDUCTION_CODES
from ._reduction import reduction_name as _reduction_name
from .functional_activations import (  # noqa: F401
    celu,
    elu,
    glu,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    logsigmoid,
    mish,
    prelu,
    relu6,
    selu,
    softmin,
    softplus,
    softsign,
    tanhshrink,
)
from .functional_composite import (  # noqa: F401
    cosine_similarity,
    huber_loss,
    kl_div,
    normalize,
    pairwise_distance,
    smooth_l1_loss,
)
from .functional_conv3d import conv3d  # noqa: F401
from .functional_norms import batch_norm, group_norm, rms_norm, scaled_dot_product_attention  # noqa: F401
from .functional_spatial import (  # noqa: F401
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    conv1d,
    conv_transpose1d,
    conv_transpose2d,
    interpolate,
    max_pool1d,
    max_unpool2d,
    pad,
)

_f = _C._functions


def _reduction(reduction, size_average=None, reduce=None):
    """The reduction code of a loss (the kernels' enum)."""
    return _REDUCTION_CODES[_reduction_name(reduction, size_average, reduce)]


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


def _implicit_dim(name, input, dim):
    """PyTorch's old rule for a softmax without `dim`: 0 for 0-, 1- and 3-D inputs, else 1, with a warning."""
    if dim is not None:
        return dim
    import warnings

    warnings.warn(f"{name} without dim= picks a dimension for you; pass dim=", UserWarning, stacklevel=3)
    return 0 if input.dim() in (0, 1, 3) else 1


@_tensor_arguments("input")
def softmax(input, dim=None, dtype=None):
    return _f.softmax(input, _implicit_dim("softmax", input, dim), dtype)


@_tensor_arguments("input")
def log_softmax(input, dim=None, dtype=None):
    return _f.log_softmax(input, _implicit_dim("log_softmax", input, dim), dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout: the probability has to be between 0 and 1, but got {p}")
    out = _f.dropout(input, p, training)
    return input.copy_(out) if inplace else out


@_tensor_arguments("input")
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: input (N, C, H, W) or (C, H, W), one draw per channel."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout2d: the probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (3, 4):
        raise RuntimeError(f"dropout2d: expected a 3-D or 4-D input (C, H, W) or (N, C, H, W), got {input.dim()}-D")
    if not training or p == 0.0:
        return input
    mask_shape = list(input.shape[:-2]) + [1, 1]
    keep = _f.rand(mask_shape, dtype=input.dtype, device=input.device) >= p
    out = input * keep * (0.0 if p == 1.0 else 1.0 / (1.0 - p))
    return input.copy_(out) if inplace else out


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _f.mse_loss(input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _f.l1_loss(input, target, _reduction(reduction, size_average, reduce))


def _classes_last(input, target):
    """(N, C, d1, ...) inputs with (N, d1, ...) targets as (N·d1·..., C) rows and their targets, and
    the shape an unreduced loss takes back."""
    if input.dim() <= 2:
        return input, target, None
    order = [0] + list(range(2, input.dim())) + [1]
    rows = input.permute(order).reshape([-1, input.shape[1]])
    return rows, target.reshape([-1]), list(target.shape)


@_tensor_arguments("input", "target", "weight")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    code = _reduction(reduction, size_average, reduce)
    rows, flat_target, shape = _classes_last(input, target)
    if shape is not None and list(input.shape[:1]) + list(input.shape[2:]) != shape:
        raise RuntimeError(
            f"nll_loss: expected target of shape {[input.shape[0]] + list(input.shape[2:])}, got {shape}"
        )
    out = _f.nll_loss(rows, flat_target, weight, code, ignore_index)
    return out.reshape(shape) if shape is not None and code == 0 else out


def _cross_entropy_with_probabilities(input, target, weight, reduction, label_smoothing):
    """-Σ_c target_c · log_softmax(input)_c per sample; 'mean' divides by the number of samples."""
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(
            f"cross_entropy: class-probability targets must have the input's shape {list(input.shape)}, "
            f"got {list(target.shape)}"
        )
    classes = input.shape[1] if input.dim() > 1 else input.shape[0]
    class_dim = 1 if input.dim() > 1 else 0
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = target * _f.log_softmax(input, class_dim, None)
    if weight is not None:
        terms = terms * weight.reshape([classes] + [1] * (input.dim() - class_dim - 1))
    loss = -terms.sum(class_dim)
    if reduction == 1:
        return loss.sum() / (loss.numel() if loss.dim() else 1)
    return loss.sum() if reduction == 2 else loss


@_tensor_arguments("input", "target", "weight")
def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    code = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    if target.dtype.is_floating_point:
        return _cross_entropy_with_probabilities(input, target, weight, code, label_smoothing)
    rows, flat_target, shape = _classes_last(input, target)
    extra = (label_smoothing,) if label_smoothing else ()
    out = _f.cross_entropy(rows, flat_target, weight, code, ignore_index, *extra)
    return out.reshape(shape) if shape is not None and code == 0 else out


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


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    pool = _f.max_pool2d_with_indices if return_indices else _f.max_pool2d
    return pool(
        input, _pair(kernel_size), [] if stride is None else _pair(stride), _pair(padding), _pair(dilation), ceil_mode
    )


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _f.avg_pool2d(
        input, _pair(kernel_size), [] if stride is None else _pair(stride), _pair(padding), ceil_mode, count_include_pad
    )


def one_hot(tensor, num_classes=-1):
    return _f.one_hot(tensor, num_classes)
