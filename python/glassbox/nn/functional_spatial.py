"""Padding, resizing and the pooling/convolution variants of gb.nn.functional that reduce to
glassbox's 2-D operators, index_select, cat and matmul (so each is differentiable through them):
pad, interpolate, conv1d, avg/max_pool1d, adaptive pools, max_unpool2d."""

import math

from .. import _C
from ._checks import tensor_arguments

_f = _C._functions


def _as_index(values, device):
    from .._tensor_factory import tensor

    return tensor(values, dtype=_C.dtype.int64, device=device)


# ---- pad


def _source_index(i, size, mode):
    """Which input element the padded position i (may be < 0 or >= size) repeats."""
    if mode == "reflect":
        period = 2 * (size - 1)
        i = abs(i) % period if period else 0
        return period - i if i >= size else i
    if mode == "replicate":
        return min(max(i, 0), size - 1)
    return i % size  # circular


@tensor_arguments("input")
def pad(input, pad, mode="constant", value=None):
    """pad = (left, right) pairs from the last dimension backwards, as PyTorch takes them."""
    pad = list(pad)
    if len(pad) % 2 or len(pad) // 2 > input.dim():
        raise RuntimeError(f"pad: expected an even number of sizes for at most {input.dim()} dimensions, got {pad}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: mode {mode!r} is not one of constant, reflect, replicate, circular")
    if mode != "constant" and value not in (None, 0, 0.0):
        raise RuntimeError(f"pad: padding mode {mode!r} does not take a value")
    out = input
    for k in range(len(pad) // 2):
        dim, left, right = input.dim() - 1 - k, pad[2 * k], pad[2 * k + 1]
        size = out.shape[dim]
        if mode == "constant":
            out = _pad_constant(out, dim, left, right, 0.0 if value is None else value)
            continue
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(
                f"pad: reflect padding ({left}, {right}) must be smaller than the dimension's size {size}"
            )
        if mode == "circular" and (left > size or right > size):
            raise RuntimeError(f"pad: circular padding ({left}, {right}) may wrap at most once around size {size}")
        if size == 0 and left + right > 0:
            raise RuntimeError(f"pad: {mode} padding of an empty dimension {dim}")
        positions = [_source_index(i, size, mode) for i in range(-left, size + right)]
        out = out.index_select(dim, _as_index(positions, out.device))
    return out


def _pad_constant(x, dim, left, right, value):
    if left < 0:
        x, left = x.narrow(dim, -left, x.shape[dim] + left), 0
    if right < 0:
        x, right = x.narrow(dim, 0, x.shape[dim] + right), 0
    parts = []
    for width in (left, None, right):
        if width is None:
            parts.append(x)
        elif width:
            shape = list(x.shape)
            shape[dim] = width
            parts.append(_f.full(shape, value, dtype=x.dtype, device=x.device))
    return _f.cat(parts, dim) if len(parts) > 1 else x


# ---- interpolate


def _output_sizes(input, size, scale_factor, spatial):
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: either size or scale_factor should be defined, not both")
    if size is not None:
        sizes = [size] * spatial if isinstance(size, int) else list(size)
        if len(sizes) != spatial:
            raise ValueError(f"interpolate: size {size} does not match the {spatial} spatial dimensions of the input")
        return sizes, [None] * spatial
    scales = [scale_factor] * spatial if isinstance(scale_factor, (int, float)) else list(scale_factor)
    if len(scales) != spatial:
        raise ValueError(f"interpolate: scale_factor {scale_factor} does not match the {spatial} spatial dimensions")
    return [int(math.floor(input.shape[2 + i] * s)) for i, s in enumerate(scales)], scales


def _source_coordinate(dst, in_size, out_size, scale, align_corners, clamp):
    """The input coordinate output position `dst` samples (pixel centres at k + 0.5 unless align_corners)."""
    if align_corners:
        return dst * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    ratio = 1.0 / scale if scale else in_size / out_size
    src = (dst + 0.5) * ratio - 0.5
    return max(src, 0.0) if clamp else src


def _cubic_weights(t, a=-0.75):
    """The four cubic-convolution weights of taps at floor-1 .. floor+2 for a fraction t."""

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _resample(x, dim, out_size, scale, mode, align_corners):
    """x resampled along one dimension: every mode here is separable, so n-D is this per dimension."""
    in_size = x.shape[dim]
    if mode == "nearest":
        ratio = 1.0 / scale if scale else in_size / out_size
        picks = [min(int(math.floor(d * ratio)), in_size - 1) for d in range(out_size)]
        return x.index_select(dim, _as_index(picks, x.device))
    taps, weights = [], []
    for d in range(out_size):
        src = _source_coordinate(d, in_size, out_size, scale, align_corners, clamp=mode != "bicubic")
        base = int(math.floor(src))
        t = src - base
        if mode == "bicubic":
            taps.append([min(max(base + k, 0), in_size - 1) for k in (-1, 0, 1, 2)])
            weights.append(_cubic_weights(t))
        else:
            taps.append([base, min(base + 1, in_size - 1)])
            weights.append([1.0 - t, t])
    shape = [1] * x.dim()
    shape[dim] = out_size
    out = None
    for k in range(len(taps[0])):
        picked = x.index_select(dim, _as_index([tap[k] for tap in taps], x.device))
        term = picked * _weights_tensor([w[k] for w in weights], x).reshape(shape)
        out = term if out is None else out + term
    return out


def _weights_tensor(values, like):
    from .._tensor_factory import tensor

    return tensor(values, dtype=like.dtype, device=like.device)


_MODES = {"nearest": (1, 2, 3), "linear": (1,), "bilinear": (2,), "bicubic": (2,), "trilinear": (3,)}


@tensor_arguments("input")
def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not one of {', '.join(_MODES)}")
    spatial = input.dim() - 2
    if spatial not in _MODES[mode]:
        raise NotImplementedError(f"interpolate: mode {mode!r} takes {_MODES[mode]}-D spatial input, got {spatial}-D")
    if mode == "nearest" and align_corners is not None:
        raise ValueError("interpolate: align_corners applies to the linear, bilinear, bicubic and trilinear modes")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented")
    sizes, scales = _output_sizes(input, size, scale_factor, spatial)
    if recompute_scale_factor:
        scales = [None] * spatial
    out = input
    for i, (n, s) in enumerate(zip(sizes, scales)):
        out = _resample(out, 2 + i, n, s, "linear" if mode in ("bilinear", "trilinear") else mode, bool(align_corners))
    return out


# ---- 1-D convolution and pooling through the 2-D operators (a height of 1)


def _single(v):
    return v[0] if isinstance(v, (list, tuple)) else v


@tensor_arguments("input", "weight", "bias")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"conv1d: expected a 2-D or 3-D input (C, L) or (N, C, L), got {input.dim()}-D")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    out = _f.conv2d(
        x.unsqueeze(2),
        weight.unsqueeze(2),
        bias,
        [1, _single(stride)],
        [0, _single(padding)],
        [1, _single(dilation)],
        groups,
    ).squeeze(2)
    return out if batched else out.squeeze(0)


@tensor_arguments("input")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    stride = [] if stride is None else [1, _single(stride)]
    out = _f.avg_pool2d(
        input.unsqueeze(-2), [1, _single(kernel_size)], stride, [0, _single(padding)], ceil_mode, count_include_pad
    )
    return out.squeeze(-2)


@tensor_arguments("input")
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = [] if stride is None else [1, _single(stride)]
    values, indices = _f.max_pool2d_with_indices(
        input.unsqueeze(-2), [1, _single(kernel_size)], stride, [0, _single(padding)], [1, _single(dilation)], ceil_mode
    )
    return (values.squeeze(-2), indices.squeeze(-2)) if return_indices else values.squeeze(-2)


# ---- transposed convolution: zeros between the input's elements (stride), padding of
# dilation·(k-1) - padding (+ output_padding at the end), then a stride-1 convolution with the
# kernel flipped and its in/out channels swapped. conv2d's gradient carries it through autograd.


def _spread(x, dim, stride):
    """stride - 1 zeros between consecutive elements along dim (through cat and reshape, so it differentiates)."""
    if stride == 1 or x.shape[dim] == 0:
        return x
    shape = list(x.shape)
    zeros = _f.zeros(shape[: dim + 1] + [stride - 1] + shape[dim + 1 :], dtype=x.dtype, device=x.device)
    woven = _f.cat([x.unsqueeze(dim + 1), zeros], dim + 1)
    merged = woven.reshape(shape[:dim] + [shape[dim] * stride] + shape[dim + 1 :])
    return merged.narrow(dim, 0, (shape[dim] - 1) * stride + 1)


@tensor_arguments("input", "weight", "bias")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    from .functional import _pair

    stride, padding, output_padding, dilation = map(_pair, (stride, padding, output_padding, dilation))
    if input.dim() not in (3, 4) or weight.dim() != 4:
        raise RuntimeError(
            f"conv_transpose2d: expected a 3-D or 4-D input and a 4-D weight, got {input.dim()}-D and {weight.dim()}-D"
        )
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    in_channels, out_per_group, kh, kw = weight.shape
    if x.shape[1] != in_channels or in_channels % groups:
        raise RuntimeError(
            f"conv_transpose2d: input has {x.shape[1]} channels, the weight expects {in_channels} (groups={groups})"
        )
    for i in range(2):
        if output_padding[i] >= max(stride[i], dilation[i]):
            raise RuntimeError("conv_transpose2d: output padding must be smaller than either stride or dilation")
    for dim, s in ((2, stride[0]), (3, stride[1])):
        x = _spread(x, dim, s)
    pads = []
    for i, k in ((1, kw), (0, kh)):  # F.pad order: last dimension first
        edge = dilation[i] * (k - 1) - padding[i]
        pads += [edge, edge + output_padding[i]]
    x = pad(x, pads)
    # (C_in, C_out/g, kh, kw) -> (C_out, C_in/g, kh, kw), flipped in both spatial dimensions.
    w = weight.reshape([groups, in_channels // groups, out_per_group, kh, kw]).transpose(1, 2)
    w = w.reshape([groups * out_per_group, in_channels // groups, kh, kw]).flip([2, 3])
    out = _f.conv2d(x, w, bias, [1, 1], [0, 0], dilation, groups)
    return out if batched else out.squeeze(0)


@tensor_arguments("input", "weight", "bias")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    out = conv_transpose2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        [1, _single(stride)],
        [0, _single(padding)],
        [0, _single(output_padding)],
        groups,
        [1, _single(dilation)],
    )
    return out.squeeze(-2)


# ---- adaptive pooling: output cell i covers [floor(i * in / out), ceil((i + 1) * in / out))


def _adaptive_windows(in_size, out_size):
    return [((i * in_size) // out_size, -((-(i + 1) * in_size) // out_size)) for i in range(out_size)]


def _adaptive_sizes(input, output_size, spatial):
    sizes = [output_size] * spatial if isinstance(output_size, int) else list(output_size)
    if len(sizes) != spatial or input.dim() < spatial + 1:
        raise RuntimeError(f"adaptive pooling: output_size {output_size} for an input of shape {list(input.shape)}")
    return [input.shape[input.dim() - spatial + i] if s is None else s for i, s in enumerate(sizes)]


def _averaging_matrix(in_size, out_size, like):
    """(out, in) with 1/len on each output cell's window: pooling along a dimension is a matmul."""
    rows = []
    for start, end in _adaptive_windows(in_size, out_size):
        rows += [1.0 / (end - start) if start <= j < end else 0.0 for j in range(in_size)]
    return _weights_tensor(rows, like).reshape([out_size, in_size])


def _adaptive_avg_pool(input, output_size, spatial):
    sizes = _adaptive_sizes(input, output_size, spatial)
    out = input
    for i, n in enumerate(sizes):
        dim = input.dim() - spatial + i
        # Bring `dim` last, multiply by the averaging matrix's transpose, put it back.
        moved = out.transpose(dim, -1)
        moved = moved @ _averaging_matrix(moved.shape[-1], n, moved).t()
        out = moved.transpose(dim, -1)
    return out


@tensor_arguments("input")
def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 1)


@tensor_arguments("input")
def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 2)


def _adaptive_max_pool(input, output_size, spatial):
    sizes = _adaptive_sizes(input, output_size, spatial)
    out = input
    for i, n in enumerate(sizes):
        dim = input.dim() - spatial + i
        # The maximum over a box is the maximum over rows of the maxima over columns.
        cells = [out.narrow(dim, s, e - s).amax(dim, keepdim=True) for s, e in _adaptive_windows(out.shape[dim], n)]
        out = _f.cat(cells, dim)
    return out


@tensor_arguments("input")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    if return_indices:
        raise NotImplementedError("adaptive_max_pool1d: return_indices=True is not implemented")
    return _adaptive_max_pool(input, output_size, 1)


@tensor_arguments("input")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    if return_indices:
        raise NotImplementedError("adaptive_max_pool2d: return_indices=True is not implemented")
    return _adaptive_max_pool(input, output_size, 2)


@tensor_arguments("input", "indices")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value back at the flat (h * W + w) position max_pool2d took it from; zeros elsewhere."""
    k = [kernel_size] * 2 if isinstance(kernel_size, int) else list(kernel_size)
    s = k if stride is None else ([stride] * 2 if isinstance(stride, int) else list(stride))
    p = [padding] * 2 if isinstance(padding, int) else list(padding)
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"max_unpool2d: indices of shape {list(indices.shape)} for input {list(input.shape)}")
    if output_size is None:
        out_hw = [(input.shape[-2 + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(2)]
    else:
        out_hw = list(output_size)[-2:]
    lead = list(input.shape[:-2])
    flat = _f.zeros(lead + [out_hw[0] * out_hw[1]], dtype=input.dtype, device=input.device)
    plane = input.dim() - 2
    out = flat.scatter(plane, indices.flatten(plane), input.flatten(plane))
    return out.reshape(lead + out_hw)
