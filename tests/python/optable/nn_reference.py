"""NumPy references of conv2d, pooling, layer norm and batch norm, and of their backward helpers. Each computes
its operator another way than the kernels do (shifted strided slices and einsum instead of im2col
and window loops), so the op table checks the kernels independently."""

import numpy as np


def conv2d_ref(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    """Sum over kernel offsets of strided input slices times one weight column each, per group."""
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (s0, s1), (p0, p1), (d0, d1) = stride, padding, dilation
    oh, ow = (h + 2 * p0 - d0 * (kh - 1) - 1) // s0 + 1, (wd + 2 * p1 - d1 * (kw - 1) - 1) // s1 + 1
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p0, p0), (p1, p1)))
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * d0 : i * d0 + s0 * (oh - 1) + 1 : s0, j * d1 : j * d1 + s1 * (ow - 1) + 1 : s1]
            for g in range(groups):
                out[:, g * og : (g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og, :, i, j]
                )
    if b is not None:
        out += b[None, :, None, None]
    return out[0] if unbatched else out


def conv_backward_ref(go, x, w, stride, padding, dilation, groups):
    """The adjoint of conv2d_ref: slices of the padded input gradient collect grad_output times the weight."""
    unbatched = x.ndim == 3
    if unbatched:
        x, go = x[None], go[None]
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (s0, s1), (p0, p1), (d0, d1) = stride, padding, dilation
    oh, ow = go.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p0, p0), (p1, p1)))
    gxp = np.zeros_like(xp)
    gw = np.zeros(w.shape)
    og = o // groups
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * d0, i * d0 + s0 * (oh - 1) + 1, s0)
            cols = slice(j * d1, j * d1 + s1 * (ow - 1) + 1, s1)
            for g in range(groups):
                gs, cs = slice(g * og, (g + 1) * og), slice(g * cg, (g + 1) * cg)
                gxp[:, cs, rows, cols] += np.einsum("nohw,oc->nchw", go[:, gs], w[gs, :, i, j])
                gw[gs, :, i, j] = np.einsum("nohw,nchw->oc", go[:, gs], xp[:, cs, rows, cols])
    gx = gxp[:, :, p0 : p0 + h, p1 : p1 + wd]
    return (gx[0] if unbatched else gx), gw, go.sum(axis=(0, 2, 3))


def pool_out(size, k, s, p, d, ceil):
    room = size + 2 * p - d * (k - 1) - 1
    o = (room + (s - 1 if ceil else 0)) // s + 1
    return o - 1 if ceil and (o - 1) * s >= size + p else o


def pairs(v, default):
    v = default if v is None or (isinstance(v, (list, tuple)) and not v) else v
    return tuple(v) * (2 // len(v)) if isinstance(v, (list, tuple)) else (v, v)


def max_pool_ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, indices=True):
    """Window maxima as the maximum over kernel offsets of strided slices of the -inf padded input."""
    k = pairs(kernel_size, None)
    s, p, d = pairs(stride, k), pairs(padding, 0), pairs(dilation, 1)
    h, w = x.shape[-2:]
    oh, ow = pool_out(h, k[0], s[0], p[0], d[0], ceil_mode), pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    need_h, need_w = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1, (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    pad = [(0, 0)] * (x.ndim - 2) + [(p[0], max(0, need_h - h - p[0])), (p[1], max(0, need_w - w - p[1]))]
    xp = np.pad(x.astype(np.float64), pad, constant_values=-np.inf)
    pos = np.pad(np.arange(h * w).reshape(h, w), pad[-2:], constant_values=-1)
    vals, where = [], []
    for i in range(k[0]):
        for j in range(k[1]):
            rows = slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
            cols = slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
            vals.append(xp[..., rows, cols])
            where.append(np.broadcast_to(pos[rows, cols], vals[-1].shape))
    vals, where = np.stack(vals), np.stack(where)
    best = np.argmax(vals, axis=0)  # the first maximum in window order, as the kernel scans
    out = np.take_along_axis(vals, best[None], 0)[0].astype(x.dtype)
    idx = np.take_along_axis(where, best[None], 0)[0].astype(np.int64)
    return (out, idx) if indices else out


def max_pool_backward_ref(go, x, kernel_size, stride, padding, dilation, ceil_mode):
    _, idx = max_pool_ref(x, kernel_size, stride, padding, dilation, ceil_mode)
    h, w = x.shape[-2:]
    planes = int(np.prod(x.shape[:-2]))
    gi = np.zeros((planes, h * w))
    out_plane = go.shape[-2] * go.shape[-1]
    g, i = go.reshape(planes, out_plane).astype(np.float64), idx.reshape(planes, out_plane)
    for p in range(planes):
        np.add.at(gi[p], i[p], g[p])
    return gi.reshape(x.shape)


def avg_windows(h, w, k, s, p, ceil, include_pad):
    """(output index, row slice, col slice, divisor) of every average-pooling window."""
    oh, ow = pool_out(h, k[0], s[0], p[0], 1, ceil), pool_out(w, k[1], s[1], p[1], 1, ceil)
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * s[0] - p[0], j * s[1] - p[1]
            y1, x1 = min(y0 + k[0], h + p[0]), min(x0 + k[1], w + p[1])
            padded = (y1 - y0) * (x1 - x0)
            y0, x0, y1, x1 = max(y0, 0), max(x0, 0), min(y1, h), min(x1, w)
            yield (i, j), (oh, ow), slice(y0, y1), slice(x0, x1), padded if include_pad else (y1 - y0) * (x1 - x0)


def avg_pool_ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    k = pairs(kernel_size, None)
    s, p = pairs(stride, k), pairs(padding, 0)
    out = None
    for (i, j), shape, rows, cols, div in avg_windows(*x.shape[-2:], k, s, p, ceil_mode, count_include_pad):
        if out is None:
            out = np.zeros(x.shape[:-2] + shape)
        out[..., i, j] = x[..., rows, cols].sum(axis=(-2, -1)) / div
    return out


def avg_pool_backward_ref(go, x, kernel_size, stride, padding, ceil_mode, count_include_pad):
    k = pairs(kernel_size, None)
    s, p = pairs(stride, k), pairs(padding, 0)
    gi = np.zeros(x.shape)
    for (i, j), _, rows, cols, div in avg_windows(*x.shape[-2:], k, s, p, ceil_mode, count_include_pad):
        gi[..., rows, cols] += go[..., i, j][..., None, None] / div
    return gi


def layer_norm_ref(x, normalized_shape, weight=None, bias=None, eps=1e-5, stats=False):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    y = (x - mean) * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return (y, mean, rstd) if stats else y


def layer_norm_backward_ref(go, x, normalized_shape, mean, rstd, weight=None, bias=None):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    xhat = (x - mean) * rstd
    g = go * (1.0 if weight is None else weight)
    gx = rstd * (g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    lead = tuple(range(x.ndim - len(normalized_shape)))
    return gx, (go * xhat).sum(axis=lead), go.sum(axis=lead)


def _per_channel(v, ndim):
    """[C] -> [1, C, 1, ...]: broadcast over (N, C, *)."""
    return np.asarray(v, dtype=np.float64).reshape((1, -1) + (1,) * (ndim - 2))


def batch_norm_ref(x, weight, bias, running_mean, running_var, training, eps=1e-5):
    """(output, save_mean, save_invstd): the batch's statistics over N and the trailing dims in
    training, else the running ones; the running statistics themselves are left alone."""
    x = x.astype(np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    else:
        mean, var = np.asarray(running_mean, dtype=np.float64), np.asarray(running_var, dtype=np.float64)
    invstd = 1.0 / np.sqrt(var + eps)
    y = (x - _per_channel(mean, x.ndim)) * _per_channel(invstd, x.ndim)
    if weight is not None:
        y = y * _per_channel(weight, x.ndim)
    if bias is not None:
        y = y + _per_channel(bias, x.ndim)
    return y, mean, invstd


def batch_norm_backward_ref(go, x, weight, mean, invstd, training):
    """(grad_input, grad_weight, grad_bias) from xhat = (x - mean) * invstd: in training the
    statistics depend on x, which subtracts grad_out's mean and its projection on xhat."""
    axes = (0,) + tuple(range(2, x.ndim))
    xhat = (x - _per_channel(mean, x.ndim)) * _per_channel(invstd, x.ndim)
    grad_bias, grad_weight = go.sum(axis=axes), (go * xhat).sum(axis=axes)
    scale = _per_channel(invstd if weight is None else invstd * weight, x.ndim)
    if not training:
        return go * scale, grad_weight, grad_bias
    n = x.size // x.shape[1]
    gx = scale * (go - _per_channel(grad_bias / n, x.ndim) - xhat * _per_channel(grad_weight / n, x.ndim))
    return gx, grad_weight, grad_bias
