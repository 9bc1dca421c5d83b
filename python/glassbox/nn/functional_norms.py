"""Batch, group and RMS normalisation, and scaled dot-product attention. Batch normalisation is one
operator (native_batch_norm); the others are composed from glassbox's operators (means, variances,
matmuls, softmax), so autograd and the dispatch trace see each step."""

import math

from .. import _C
from ._checks import tensor_arguments

_f = _C._functions


def _channel_shape(input):
    """[1, C, 1, ...]: a per-channel tensor broadcast over (N, C, *)."""
    return [1, input.shape[1]] + [1] * (input.dim() - 2)


@tensor_arguments("input", "running_mean?", "running_var?", "weight", "bias")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalises each channel of (N, C, *) by the batch's statistics (training) or the running
    ones. In training the running statistics move towards the batch's by `momentum`, the variance
    unbiased, as PyTorch keeps them. One operator, native_batch_norm, does it all: it updates the
    running statistics in place (they are not part of the autograd graph)."""
    if input.dim() < 2:
        raise RuntimeError(f"batch_norm: expected an input of shape (N, C, *), got {list(input.shape)}")
    channels = input.shape[1]
    if training:
        count = input.numel() // max(channels, 1)
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {list(input.shape)}"
            )
    elif running_mean is None or running_var is None:
        raise RuntimeError("batch_norm: running_mean and running_var are needed when not training")
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat.numel() != channels:
            raise RuntimeError(f"batch_norm: {name} should contain {channels} elements not {stat.numel()}")
    return _f.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


@tensor_arguments("input", "weight", "bias")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"group_norm: expected an input of shape (N, C, *), got {list(input.shape)}")
    n, channels = input.shape[0], input.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={num_groups}"
        )
    grouped = input.reshape([n, num_groups, -1])
    mean = grouped.mean([2], keepdim=True)
    var = grouped.var([2], correction=0, keepdim=True)
    out = ((grouped - mean) * (var + eps).rsqrt()).reshape(list(input.shape))
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    return out + bias.reshape(shape) if bias is not None else out


_MACHINE_EPSILON = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}


@tensor_arguments("input", "weight")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input²) + eps) over the last len(normalized_shape) dimensions; eps defaults
    to the dtype's machine epsilon, as PyTorch's does."""
    normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if list(input.shape[input.dim() - len(normalized_shape) :]) != normalized_shape:
        raise RuntimeError(
            f"rms_norm: normalized_shape {normalized_shape} does not end the input's shape {list(input.shape)}"
        )
    if eps is None:
        name = str(input.dtype).removeprefix("glassbox.")
        if name not in _MACHINE_EPSILON:
            raise RuntimeError(f"rms_norm: expected a floating-point input, got {name}")
        eps = _MACHINE_EPSILON[name]
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


@tensor_arguments("query", "key", "value", "attn_mask")
def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """softmax(query @ keyᵀ · scale + mask) @ value over (..., L, E) queries and (..., S, E) keys.
    A boolean mask keeps where True; a float mask is added; is_causal keeps j <= i."""
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value need at least 2 dimensions")
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: pass either attn_mask or is_causal, not both")
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        repeat = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads(key, repeat), _repeat_heads(value, repeat)
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale
    if is_causal:
        keep = _f.ones([length, source], dtype=query.dtype, device=query.device).tril() > 0
        scores = scores.masked_fill(keep.logical_not(), float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype == _C.dtype.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = _f.softmax(scores, -1, None)
    if dropout_p > 0.0:
        weights = _f.dropout(weights, dropout_p, True)
    return weights @ value


def _repeat_heads(t, repeat):
    """(..., H, S, E) -> (..., H * repeat, S, E), each head repeated `repeat` times in a row."""
    shape = list(t.shape)
    expanded = t.unsqueeze(-3).expand(shape[:-3] + [shape[-3], repeat] + shape[-2:])
    return expanded.reshape(shape[:-3] + [shape[-3] * repeat] + shape[-2:])
