"""Reductions, scans, softmax, sorting and losses (and the backward helpers autograd calls)."""

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, make_array, non_contiguous

ops = gb.ops.glassbox
FLOATS = FLOAT + HALF
NUMERIC = FLOAT + HALF + INT


def as_int64(dtype: str) -> str:
    return "int64" if dtype in INT + ("bool",) else dtype


def to_float(dtype: str) -> str:
    return dtype if dtype in FLOATS else "float32"


# ---- samples


def whole_samples(low=-3.0, high=3.0, shapes=((), (0,), (5,), (3, 4), (2, 3, 4))):
    """One tensor per sample (a reduction over everything)."""

    def gen(rng, dtype):
        out = [Sample([make_array(rng, s, dtype, low, high)], name=str(s)) for s in shapes]
        out.append(Sample([non_contiguous(make_array(rng, (4, 3), dtype, low, high))], name="non-contiguous"))
        return out

    return gen


def dims_samples(low=-3.0, high=3.0, allow_empty_dim=True):
    """(tensor, dims, keepdim): single, several, negative, all dims; 0-d, empty, non-contiguous."""

    def gen(rng, dtype):
        a = lambda s: make_array(rng, s, dtype, low, high)  # noqa: E731
        out = [
            Sample([a((3, 4)), [1], False], name="(3,4) dim 1"),
            Sample([a((3, 4)), [0], True], name="(3,4) dim 0 keepdim"),
            Sample([a((2, 3, 4)), [0, 2], False], name="(2,3,4) dims 0,2"),
            Sample([a((2, 3, 4)), [-2], True], name="(2,3,4) dim -2 keepdim"),
            Sample([a((2, 3, 4)), [1, 2], False], name="(2,3,4) dims 1,2"),
            Sample([a(()), [0], False], name="0-d"),
            Sample([a((0, 3)), [1], False], name="(0,3) dim 1"),
            Sample([non_contiguous(a((4, 3))), [0], False], name="non-contiguous dim 0"),
            Sample([non_contiguous(a((4, 3))), [1], True], name="non-contiguous dim 1"),
        ]
        if allow_empty_dim:
            out.append(Sample([a((0, 3)), [0], True], name="(0,3) dim 0"))
        return out

    return gen


def dim_samples(low=-3.0, high=3.0, allow_empty_dim=True, shapes=((3, 4), (2, 3, 4), (5,))):
    """(tensor, dim): every dim of a few shapes, 0-d, empty, non-contiguous."""

    def gen(rng, dtype):
        out = []
        for s in shapes:
            for d in range(-1, len(s)):
                out.append(Sample([make_array(rng, s, dtype, low, high), d], name=f"{s} dim {d}"))
        out.append(Sample([make_array(rng, (), dtype, low, high), 0], name="0-d"))
        out.append(Sample([make_array(rng, (0, 3), dtype, low, high), 1], name="(0,3) dim 1"))
        if allow_empty_dim:
            out.append(Sample([make_array(rng, (0, 3), dtype, low, high), 0], name="(0,3) dim 0"))
        out.append(Sample([non_contiguous(make_array(rng, (4, 3), dtype, low, high)), 0], name="non-contiguous"))
        return out

    return gen


# ---- NumPy references


def axes(a, dim):
    """NumPy's axis for glassbox's dims: None (everything) for none/empty dims and for 0-d arrays."""
    return None if dim is None or not len(dim) or a.ndim == 0 else tuple(dim)


def np_sum(a, dim=None, keepdim=False):
    r = np.sum(a, axis=axes(a, dim), keepdims=keepdim)
    return r.astype(np.int64) if a.dtype.kind in "biu" else r


def np_prod(a, dim=None, keepdim=False):
    r = np.prod(a, axis=dim, keepdims=keepdim)
    return r.astype(np.int64) if a.dtype.kind in "biu" else r


def np_amax(a, dim, keepdim=False):
    return np.max(a, axis=axes(a, dim), keepdims=keepdim)


def np_amin(a, dim, keepdim=False):
    return np.min(a, axis=axes(a, dim), keepdims=keepdim)


def np_extreme_dim(largest):
    def ref(a, dim, keepdim=False):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        pick = np.argmax if largest else np.argmin
        values = (np.max if largest else np.min)(a, axis=dim, keepdims=keepdim)
        return values, pick(a, axis=dim, keepdims=keepdim).astype(np.int64)

    return ref


def np_arg(largest):
    def ref(a, dim=None, keepdim=False):
        pick = np.argmax if largest else np.argmin
        if dim is None:
            r = np.asarray(pick(a), dtype=np.int64)
            return r.reshape((1,) * a.ndim) if keepdim else r
        if a.ndim == 0:
            return np.zeros((), np.int64)
        return pick(a, axis=dim, keepdims=keepdim).astype(np.int64)

    return ref


def np_var(sqrt):
    def ref(a, dim=None, correction=1, keepdim=False):
        axis = axes(a, dim)
        n = a.size if axis is None else int(np.prod([a.shape[d] for d in axis]))
        mean = np.mean(a, axis=axis, keepdims=True) if a.size else np.zeros([1] * a.ndim)
        ss = np.sum((a - mean) ** 2, axis=axis, keepdims=keepdim)
        v = ss / max(0, n - correction)
        return np.sqrt(v) if sqrt else v

    return ref


def np_logsumexp(a, dim, keepdim=False):
    return np.log(np.sum(np.exp(a.astype(np.float64)), axis=axes(a, dim), keepdims=keepdim))


def np_cumsum(a, dim, dtype=None):
    r = np.cumsum(a, axis=dim if a.ndim else None).reshape(a.shape)
    return r.astype(np.int64) if a.dtype.kind in "biu" else r


def np_softmax(a, dim, log=False):
    if a.ndim == 0:
        return np.zeros_like(a) if log else np.ones_like(a)
    if a.size == 0:
        return a.copy()
    shifted = a - np.max(a, axis=dim, keepdims=True)
    total = np.sum(np.exp(shifted), axis=dim, keepdims=True)
    return shifted - np.log(total) if log else np.exp(shifted) / total


def np_sort(a, dim=-1, descending=False):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    key = -a.astype(np.float64) if descending else a.astype(np.float64)
    idx = np.argsort(key, axis=dim, kind="stable")
    return np.take_along_axis(a, idx, axis=dim), idx.astype(np.int64)


def np_topk(a, k, dim=-1, largest=True):
    values, idx = np_sort(a, dim, descending=largest)
    if a.ndim == 0:
        return values, idx
    sl = [slice(None)] * a.ndim
    sl[dim] = slice(0, k)
    return values[tuple(sl)], idx[tuple(sl)]


def reduce_loss(loss, reduction):
    return loss if reduction == 0 else (np.mean(loss) if reduction == 1 else np.sum(loss))


def loss_scale(reduction, n):
    return 1.0 / n if reduction == 1 else 1.0


def np_nll(logp, target, weight=None, reduction=1, ignore_index=-100):
    t = np.asarray(target.numpy()).reshape(-1)
    lp = logp.reshape(-1, logp.shape[-1])
    w = np.ones(lp.shape[1]) if weight is None else weight
    counts = t != ignore_index
    safe = np.where(counts, t, 0)
    wt = np.where(counts, w[safe], 0.0)
    per = -wt * lp[np.arange(len(t)), safe]
    if reduction == 0:
        return per.reshape(np.asarray(target.numpy()).shape)
    return per.sum() / wt.sum() if reduction == 1 else per.sum()


def np_nll_backward(grad, logp, target, weight, reduction, ignore_index):
    t = np.asarray(target.numpy()).reshape(-1)
    lp = logp.reshape(-1, logp.shape[-1])
    w = np.ones(lp.shape[1]) if weight is None else weight
    counts = t != ignore_index
    safe = np.where(counts, t, 0)
    wt = np.where(counts, w[safe], 0.0)
    g = np.broadcast_to(grad.reshape(-1) if reduction == 0 else grad, t.shape)
    scale = 1.0 / wt.sum() if reduction == 1 else 1.0
    out = np.zeros_like(lp)
    out[np.arange(len(t)), safe] = -wt * g * scale
    return out.reshape(logp.shape)


def np_bce(x, y, weight=None, reduction=1):
    loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    return reduce_loss(loss if weight is None else loss * weight, reduction)


def np_bce_backward(g, x, y, weight=None, reduction=1):
    r = g * (x - y) / np.maximum(x * (1 - x), 1e-12) * loss_scale(reduction, x.size)
    return r if weight is None else r * weight


def np_log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def np_bce_logits(x, y, weight=None, pos_weight=None, reduction=1):
    p = 1.0 if pos_weight is None else pos_weight
    loss = -(p * y * np_log_sigmoid(x) + (1 - y) * np_log_sigmoid(-x))
    return reduce_loss(loss if weight is None else loss * weight, reduction)


def np_bce_logits_backward(g, x, y, weight=None, pos_weight=None, reduction=1):
    p = 1.0 if pos_weight is None else pos_weight
    s = 1 / (1 + np.exp(-x))
    r = g * (s * (1 - y + p * y) - p * y) * loss_scale(reduction, x.size)
    return r if weight is None else r * weight


def np_cross_entropy(x, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    logp = np_softmax(x, -1, log=True)
    nll = np_nll(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return nll
    t = np.asarray(target.numpy()).reshape(-1)
    lp = logp.reshape(-1, logp.shape[-1])
    w = np.ones(lp.shape[1]) if weight is None else weight
    counts = t != ignore_index
    smooth = -(lp * w).sum(axis=1) * counts
    if reduction == 0:
        s = smooth.reshape(np.asarray(target.numpy()).shape)
    elif reduction == 2:
        s = smooth.sum()
    else:
        s = smooth.sum() / np.where(counts, w[np.where(counts, t, 0)], 0).sum()
    return (1 - label_smoothing) * nll + label_smoothing / lp.shape[1] * s


# ---- loss samples (class-index targets are glassbox tensors so that no dtype conversion touches them)


def class_targets(rng, n, classes, ignore=None):
    t = rng.integers(0, classes, size=n).astype(np.int64)
    if ignore is not None and n:
        t[0] = ignore
    return gb.from_numpy(t)


def pair_samples(rng, dtype, low=-3.0, high=3.0):
    a = lambda s, lo=low, hi=high: make_array(rng, s, dtype, lo, hi)  # noqa: E731
    out = []
    for reduction in (0, 1, 2):
        out += [
            Sample([a((3, 4)), a((3, 4)), reduction], name=f"(3,4) r{reduction}"),
            Sample([a(()), a(()), reduction], name=f"0-d r{reduction}"),
        ]
    out += [
        Sample([a((2, 3)), a((3,)), 0], name="broadcast"),
        Sample([a((0, 2)), a((0, 2)), 2], name="empty"),
        Sample([non_contiguous(a((4, 3))), non_contiguous(a((4, 3))), 1], name="non-contiguous"),
    ]
    return out


def nll_samples(rng, dtype):
    logp = lambda s: make_array(rng, s, dtype, -4.0, 0.0)  # noqa: E731
    w = make_array(rng, (3,), dtype, 0.5, 2.0)
    out = []
    for reduction in (0, 1, 2):
        out += [
            Sample([logp((5, 3)), class_targets(rng, 5, 3), None, reduction, -100], name=f"(5,3) r{reduction}"),
            Sample(
                [logp((5, 3)), class_targets(rng, 5, 3, ignore=1), w, reduction, 1], name=f"weight ignore r{reduction}"
            ),
        ]
    out += [
        Sample([logp((3,)), gb.from_numpy(np.array(2, np.int64)), None, 0, -100], name="(C) target ()"),
        Sample([non_contiguous(logp((3, 4))), class_targets(rng, 3, 4), None, 1, -100], name="strided"),
        Sample([logp((0, 3)), class_targets(rng, 0, 3), None, 2, -100], name="empty"),
    ]
    return out


def bce_samples(rng, dtype):
    p = lambda s: make_array(rng, s, dtype, 0.05, 0.95)  # noqa: E731
    out = []
    for reduction in (0, 1, 2):
        out += [
            Sample([p((3, 4)), p((3, 4)), None, reduction], name=f"r{reduction}"),
            Sample([p((3, 4)), p((3, 4)), p((4,)), reduction], name=f"weight r{reduction}"),
        ]
    out += [
        Sample([p(()), p(()), None, 1], name="0-d"),
        Sample([p((0,)), p((0,)), None, 2], name="empty"),
        Sample([non_contiguous(p((4, 3))), non_contiguous(p((4, 3))), None, 1], name="non-contiguous"),
    ]
    return out


def bce_logits_samples(rng, dtype):
    x = lambda s: make_array(rng, s, dtype, -6.0, 6.0)  # noqa: E731
    y = lambda s: make_array(rng, s, dtype, 0.0, 1.0)  # noqa: E731
    out = []
    for reduction in (0, 1, 2):
        out += [
            Sample([x((3, 4)), y((3, 4)), None, None, reduction], name=f"r{reduction}"),
            Sample(
                [x((3, 4)), y((3, 4)), y((3, 1)), make_array(rng, (4,), dtype, 0.5, 3.0), reduction],
                name=f"weights r{reduction}",
            ),
        ]
    out += [
        Sample([x(()), y(()), None, None, 1], name="0-d"),
        Sample([x((0,)), y((0,)), None, None, 2], name="empty"),
        Sample([non_contiguous(x((4, 3))), non_contiguous(y((4, 3))), None, None, 1], name="non-contiguous"),
    ]
    return out


def with_grad(samples_fn, grad_shape):
    """Prepends a grad_output to every sample of a loss (0-d for mean/sum, the loss's shape for none)."""

    def gen(rng, dtype):
        out = []
        for s in samples_fn(rng, dtype):
            shape = grad_shape(s)
            out.append(Sample([make_array(rng, shape, dtype, -2.0, 2.0), *s.args], s.kwargs, s.name))
        return out

    return gen


def pointwise_loss_grad_shape(s):
    a, b, reduction = s.args[0], s.args[1], s.args[-1]
    return np.broadcast_shapes(np.shape(a), np.shape(b)) if reduction == 0 else ()


def nll_grad_shape(s):
    return tuple(s.args[1].shape) if s.args[3] == 0 else ()


def softmax_backward_samples(log):
    def gen(rng, dtype):
        out = []
        for s in dim_samples()(rng, dtype):
            x, dim = s.args
            y = np_softmax(x.astype(np.float64), dim, log=log).astype(x.dtype)
            out.append(Sample([make_array(rng, x.shape, dtype), y, dim, dtype], name=s.name))
        return out

    return gen


def np_softmax_backward(g, y, dim, input_dtype, log=False):
    if g.ndim == 0:
        return g - np.exp(y) * g if log else y * (g - g * y)
    if log:
        return g - np.exp(y) * np.sum(g, axis=dim, keepdims=True)
    return y * (g - np.sum(g * y, axis=dim, keepdims=True))


def dtype_arg(fn):
    """Sample args carry the dtype as a name; the call gets glassbox's dtype object."""
    return lambda *args: fn(
        *[getattr(gb, a) if isinstance(a, str) and hasattr(gb, a) and a in FLOATS else a for a in args]
    )


OPS = [
    # sums and means
    OpInfo("sum", lambda a: ops.sum(a), np_sum, whole_samples(), ALL_DTYPES, differentiable=True, ref_dtype=as_int64),
    OpInfo(
        "sum(dtype)",
        lambda a: ops.sum(a, dtype=gb.float64),
        lambda a: np.sum(a, dtype=np.float64),
        whole_samples(),
        NUMERIC,
        differentiable=True,
        ref_dtype=lambda d: "float64",
    ),
    OpInfo(
        "sum.dim_IntList",
        lambda a, d, k: ops.sum(a, d, k),
        np_sum,
        dims_samples(),
        ALL_DTYPES,
        differentiable=True,
        ref_dtype=as_int64,
    ),
    OpInfo(
        "sum.IntList_out",
        lambda a, d, k: ops.sum.IntList_out(
            a,
            d,
            k,
            out=ops.empty(
                list(np_sum(np.zeros(a.shape), d, k).shape),
                dtype=getattr(gb, as_int64(str(a.dtype).split(".")[-1])),
                device=a.device,
            ),
        ),
        np_sum,
        dims_samples(),
        ALL_DTYPES,
        ref_dtype=as_int64,
    ),
    OpInfo("mean", lambda a: ops.mean(a), np.mean, whole_samples(), FLOATS, differentiable=True),
    OpInfo(
        "mean(dtype)",
        lambda a: ops.mean(a, dtype=gb.float64),
        np.mean,
        whole_samples(),
        INT,
        ref_dtype=lambda d: "float64",
    ),
    OpInfo(
        "mean.dim",
        lambda a, d, k: ops.mean(a, d, k),
        lambda a, d, k: np.mean(a, axis=axes(a, d), keepdims=k),
        dims_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "mean.out",
        lambda a, d, k: ops.mean.out(
            a, d, k, out=ops.empty(list(np_sum(np.zeros(a.shape), d, k).shape), dtype=a.dtype, device=a.device)
        ),
        lambda a, d, k: np.mean(a, axis=axes(a, d), keepdims=k),
        dims_samples(),
        FLOATS,
    ),
    OpInfo(
        "prod",
        lambda a: ops.prod(a),
        np_prod,
        whole_samples(-1.5, 1.5),
        ALL_DTYPES,
        differentiable=True,
        ref_dtype=as_int64,
    ),
    OpInfo(
        "prod.dim_int",
        lambda a, d: ops.prod(a, d, True),
        lambda a, d: np_prod(a, d if a.ndim else None, True),
        dim_samples(-1.5, 1.5),
        ALL_DTYPES,
        differentiable=True,
        ref_dtype=as_int64,
    ),
    # extremes
    OpInfo(
        "amax",
        lambda a, d, k: ops.amax(a, d, k),
        np_amax,
        dims_samples(allow_empty_dim=False),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "amax.out",
        lambda a, d, k: ops.amax.out(
            a, d, k, out=ops.empty(list(np_amax(np.zeros(a.shape), d, k).shape), dtype=a.dtype, device=a.device)
        ),
        np_amax,
        dims_samples(allow_empty_dim=False),
        ALL_DTYPES,
    ),
    OpInfo(
        "amin",
        lambda a, d, k: ops.amin(a, d, k),
        np_amin,
        dims_samples(allow_empty_dim=False),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "amin.out",
        lambda a, d, k: ops.amin.out(
            a, d, k, out=ops.empty(list(np_amin(np.zeros(a.shape), d, k).shape), dtype=a.dtype, device=a.device)
        ),
        np_amin,
        dims_samples(allow_empty_dim=False),
        ALL_DTYPES,
    ),
    OpInfo(
        "max",
        lambda a: ops.max(a),
        np.max,
        whole_samples(shapes=((), (5,), (3, 4), (2, 3, 4))),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "min",
        lambda a: ops.min(a),
        np.min,
        whole_samples(shapes=((), (5,), (3, 4), (2, 3, 4))),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "max.dim",
        lambda a, d: ops.max(a, d, True),
        lambda a, d: np_extreme_dim(True)(a, d, True),
        dim_samples(allow_empty_dim=False),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "min.dim",
        lambda a, d: ops.min(a, d),
        np_extreme_dim(False),
        dim_samples(allow_empty_dim=False),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "argmax",
        lambda a: ops.argmax(a),
        np_arg(True),
        whole_samples(shapes=((), (5,), (3, 4))),
        ALL_DTYPES,
        ref_dtype=lambda d: "int64",
    ),
    OpInfo(
        "argmax(dim)",
        lambda a, d: ops.argmax(a, d, True),
        lambda a, d: np_arg(True)(a, d, True),
        dim_samples(allow_empty_dim=False),
        ALL_DTYPES,
        ref_dtype=lambda d: "int64",
    ),
    OpInfo(
        "argmin",
        lambda a, d: ops.argmin(a, d),
        np_arg(False),
        dim_samples(allow_empty_dim=False),
        ALL_DTYPES,
        ref_dtype=lambda d: "int64",
    ),
    # statistics
    OpInfo("var", lambda a: ops.var(a), np_var(False), whole_samples(), FLOATS, differentiable=True),
    OpInfo(
        "var.dim",
        lambda a, d, k: ops.var(a, d, False, k),
        lambda a, d, k: np_var(False)(a, d, 0, k),
        dims_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "var.correction",
        lambda a, d, k: ops.var(a, d, correction=2, keepdim=k),
        lambda a, d, k: np_var(False)(a, d, 2, k),
        dims_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "std",
        lambda a: ops.std(a, False),
        lambda a: np_var(True)(a, None, 0),
        whole_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "std.dim",
        lambda a, d, k: ops.std(a, d, True, k),
        lambda a, d, k: np_var(True)(a, d, 1, k),
        dims_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "std.correction",
        lambda a, d, k: ops.std(a, d, correction=0.5, keepdim=k),
        lambda a, d, k: np_var(True)(a, d, 0.5, k),
        dims_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "logsumexp",
        lambda a, d, k: ops.logsumexp(a, d, k),
        np_logsumexp,
        dims_samples(),
        NUMERIC + ("bool",),
        differentiable=True,
        ref_dtype=to_float,
    ),
    OpInfo(
        "logsumexp.out",
        lambda a, d, k: ops.logsumexp.out(
            a, d, k, out=ops.empty(list(np_logsumexp(np.zeros(a.shape), d, k).shape), dtype=a.dtype, device=a.device)
        ),
        np_logsumexp,
        dims_samples(),
        FLOATS,
    ),
    # scans, softmax, sorting
    OpInfo(
        "cumsum",
        lambda a, d: ops.cumsum(a, d),
        np_cumsum,
        dim_samples(),
        ALL_DTYPES,
        differentiable=True,
        ref_dtype=as_int64,
    ),
    OpInfo(
        "cumsum.out",
        lambda a, d: ops.cumsum.out(
            a, d, dtype=gb.float64, out=ops.empty(list(a.shape), dtype=gb.float64, device=a.device)
        ),
        lambda a, d: np_cumsum(a.astype(np.float64), d),
        dim_samples(),
        NUMERIC,
        ref_dtype=lambda d: "float64",
    ),
    OpInfo("softmax.int", lambda a, d: ops.softmax(a, d), np_softmax, dim_samples(), FLOATS, differentiable=True),
    OpInfo(
        "softmax.int(dtype)",
        lambda a, d: ops.softmax(a, d, gb.float64),
        lambda a, d: np_softmax(a.astype(np.float64), d),
        dim_samples(),
        FLOATS + INT,
        ref_dtype=lambda d: "float64",
    ),
    OpInfo(
        "log_softmax.int",
        lambda a, d: ops.log_softmax(a, d),
        lambda a, d: np_softmax(a, d, log=True),
        dim_samples(),
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "_softmax_backward_data",
        dtype_arg(lambda g, y, d, t: ops._softmax_backward_data(g, y, d, t)),
        lambda g, y, d, t: np_softmax_backward(g, y, d, t),
        softmax_backward_samples(False),
        FLOATS,
    ),
    OpInfo(
        "_log_softmax_backward_data",
        dtype_arg(lambda g, y, d, t: ops._log_softmax_backward_data(g, y, d, t)),
        lambda g, y, d, t: np_softmax_backward(g, y, d, t, log=True),
        softmax_backward_samples(True),
        FLOATS,
    ),
    OpInfo("sort", lambda a, d: ops.sort(a, d), np_sort, dim_samples(), ALL_DTYPES, differentiable=True),
    OpInfo(
        "sort(descending)",
        lambda a, d: ops.sort(a, d, True),
        lambda a, d: np_sort(a, d, True),
        dim_samples(),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "topk",
        lambda a, d: ops.topk(a, min(2, a.shape[d] if a.dim() else 1), d),
        lambda a, d: np_topk(a, min(2, a.shape[d] if a.ndim else 1), d),
        dim_samples(),
        ALL_DTYPES,
        differentiable=True,
    ),
    OpInfo(
        "topk(smallest)",
        lambda a, d: ops.topk(a, 1 if a.dim() == 0 or a.shape[d] else 0, d, False),
        lambda a, d: np_topk(a, 1 if a.ndim == 0 or a.shape[d] else 0, d, False),
        dim_samples(),
        ALL_DTYPES,
    ),
    # losses
    OpInfo(
        "mse_loss",
        lambda a, b, r: ops.mse_loss(a, b, r),
        lambda a, b, r: reduce_loss((a - b) ** 2, r),
        pair_samples,
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "mse_loss_backward",
        lambda g, a, b, r: ops.mse_loss_backward(g, a, b, r),
        lambda g, a, b, r: 2 * (a - b) * g * loss_scale(r, np.broadcast(a, b).size),
        with_grad(pair_samples, pointwise_loss_grad_shape),
        FLOATS,
    ),
    OpInfo(
        "l1_loss",
        lambda a, b, r: ops.l1_loss(a, b, r),
        lambda a, b, r: reduce_loss(np.abs(a - b), r),
        pair_samples,
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "nll_loss", lambda x, t, w, r, i: ops.nll_loss(x, t, w, r, i), np_nll, nll_samples, FLOATS, differentiable=True
    ),
    OpInfo(
        "nll_loss_backward",
        lambda g, x, t, w, r, i: ops.nll_loss_backward(g, x, t, w, r, i),
        np_nll_backward,
        with_grad(nll_samples, nll_grad_shape),
        FLOATS,
    ),
    OpInfo(
        "binary_cross_entropy",
        lambda x, y, w, r: ops.binary_cross_entropy(x, y, w, r),
        np_bce,
        bce_samples,
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "binary_cross_entropy_backward",
        lambda g, x, y, w, r: ops.binary_cross_entropy_backward(g, x, y, w, r),
        np_bce_backward,
        with_grad(bce_samples, lambda s: np.shape(s.args[0]) if s.args[-1] == 0 else ()),
        FLOATS,
    ),
    OpInfo(
        "binary_cross_entropy_with_logits",
        lambda x, y, w, p, r: ops.binary_cross_entropy_with_logits(x, y, w, p, r),
        np_bce_logits,
        bce_logits_samples,
        FLOATS,
        differentiable=True,
    ),
    OpInfo(
        "binary_cross_entropy_with_logits_backward",
        lambda g, x, y, w, p, r: ops.binary_cross_entropy_with_logits_backward(g, x, y, w, p, r),
        np_bce_logits_backward,
        with_grad(bce_logits_samples, lambda s: np.shape(s.args[0]) if s.args[-1] == 0 else ()),
        FLOATS,
    ),
    OpInfo(
        "cross_entropy",
        lambda x, t, w, r, i: ops.cross_entropy(x, t, w, r, i),
        lambda x, t, w, r, i: np_cross_entropy(x, t, w, r, i),
        nll_samples,
        FLOAT,
        differentiable=True,
    ),
    OpInfo(
        "cross_entropy(label_smoothing)",
        lambda x, t, w, r, i: ops.cross_entropy(x, t, w, r, i, 0.1),
        lambda x, t, w, r, i: np_cross_entropy(x, t, w, r, i, 0.1),
        nll_samples,
        FLOAT,
        differentiable=True,
    ),
]
