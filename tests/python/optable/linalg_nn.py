"""Matrix products (mm, bmm, addmm, dot, matmul, outer, linear and the out= forms), conv2d, pooling,
layer norm and batch norm, with their backward helpers (NumPy references of the latter in nn_reference.py).

Floating-point samples are multiples of 1/8: every product and sum of them is exact in float32,
so sums of products match the float64 reference whatever order the kernel adds them in."""

import numpy as np

import glassbox as gb

from .common import ALL_DTYPES, FLOAT, HALF, INT, OpInfo, Sample, make_array, non_contiguous
from .nn_reference import (
    avg_pool_backward_ref,
    avg_pool_ref,
    batch_norm_backward_ref,
    batch_norm_ref,
    conv2d_ref,
    conv_backward_ref,
    layer_norm_backward_ref,
    layer_norm_ref,
    max_pool_backward_ref,
    max_pool_ref,
)

ops = gb.ops.glassbox
NUMERIC = FLOAT + HALF + INT


def exact(rng, shape, dtype):
    """make_array's values, floats rounded to multiples of 1/8."""
    a = make_array(rng, shape, dtype)
    return np.asarray(np.round(a * 8) / 8, dtype=a.dtype) if a.dtype.kind == "f" else a


def arrays(rng, dtype, *shapes):
    return [exact(rng, s, dtype) for s in shapes]


def out_of(fn, a_shape):
    """Calls an out= overload with a fresh output of the result's shape and the first input's dtype."""

    def call(*args, **kwargs):
        out = ops.empty(list(a_shape(*args)), dtype=args[0].dtype, device=args[0].device)
        result = fn(*args, out=out, **kwargs)
        assert result is not None
        return out

    return call


# ---- matrix products
def mm_samples(rng, dtype):
    out = [
        Sample(arrays(rng, dtype, s, t), name=f"{s}x{t}")
        for s, t in [((3, 4), (4, 5)), ((1, 1), (1, 1)), ((0, 3), (3, 4)), ((2, 0), (0, 3)), ((5, 2), (2, 0))]
    ]
    a, b = arrays(rng, dtype, (4, 3), (3, 5))
    out.append(Sample([non_contiguous(a), non_contiguous(b)], name="non-contiguous"))
    return out


def bmm_samples(rng, dtype):
    out = [
        Sample(arrays(rng, dtype, s, t), name=f"{s}x{t}")
        for s, t in [((2, 3, 4), (2, 4, 5)), ((0, 2, 3), (0, 3, 1)), ((3, 1, 0), (3, 0, 2))]
    ]
    a, b = arrays(rng, dtype, (2, 4, 3), (2, 3, 5))
    out.append(Sample([non_contiguous(a), non_contiguous(b)], name="non-contiguous"))
    return out


def addmm_samples(rng, dtype):
    out = [Sample(arrays(rng, dtype, s, (3, 4), (4, 5)), name=f"self{s}") for s in [(3, 5), (5,), (1, 5), (3, 1), ()]]
    out.append(Sample(arrays(rng, dtype, (3, 5), (3, 4), (4, 5)), {"beta": 2, "alpha": 3}, name="beta=2,alpha=3"))
    out.append(Sample(arrays(rng, dtype, (0, 2), (0, 3), (3, 2)), name="empty"))
    return out


def addmm_ref(s, a, b, beta=1, alpha=1):
    return (beta * s + alpha * (a @ b)).astype(np.result_type(s, a))


def dot_samples(rng, dtype):
    out = [Sample(arrays(rng, dtype, (n,), (n,)), name=f"n={n}") for n in (0, 1, 7)]
    a, b = arrays(rng, dtype, (5,), (5,))
    out.append(Sample([non_contiguous(a), non_contiguous(b)], name="non-contiguous"))
    return out


MATMUL_SHAPES = [
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 2)),
    ((3, 4), (4, 2)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((0, 3, 4), (4, 2)),
    ((2, 0), (0, 3)),
]


def matmul_samples(rng, dtype):
    out = [Sample(arrays(rng, dtype, s, t), name=f"{s}@{t}") for s, t in MATMUL_SHAPES]
    a, b = arrays(rng, dtype, (2, 4, 3), (2, 3, 5))
    out.append(Sample([non_contiguous(a), non_contiguous(b)], name="non-contiguous"))
    return out


def outer_samples(rng, dtype):
    out = [Sample(arrays(rng, dtype, (m,), (n,)), name=f"{m}x{n}") for m, n in [(3, 4), (1, 1), (0, 3)]]
    a, b = arrays(rng, dtype, (3,), (2,))
    out.append(Sample([non_contiguous(a), b], name="non-contiguous"))
    return out


def linear_samples(rng, dtype):
    out = [
        Sample(arrays(rng, dtype, x, (5, 4), (5,)), name=f"{x} with bias") for x in [(3, 4), (2, 3, 4), (4,), (0, 4)]
    ]
    out.append(Sample(arrays(rng, dtype, (2, 3, 4), (5, 4)), name="no bias"))
    x, w = arrays(rng, dtype, (4, 3), (3, 5))
    out.append(Sample([non_contiguous(x), non_contiguous(w).T], name="non-contiguous"))
    return out


def linear_ref(x, w, b=None):
    y = x @ w.T
    return y if b is None else (y + b).astype(y.dtype)


# ---- convolution
CONV_CASES = [  # (input, weight, stride, padding, dilation, groups)
    ((2, 4, 7, 6), (6, 2, 3, 2), (2, 1), (1, 0), (1, 2), 2),
    ((1, 3, 5, 5), (2, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 3, 4, 4), (5, 3, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ((6, 5, 6), (4, 3, 2, 2), (2, 2), (0, 1), (1, 1), 2),
    ((0, 2, 5, 5), (3, 2, 3, 3), (1, 1), (0, 0), (1, 1), 1),
]


def conv_args(stride, padding, dilation, groups):
    return {"stride": list(stride), "padding": list(padding), "dilation": list(dilation), "groups": groups}


def conv2d_samples(rng, dtype):
    out = []
    for xs, ws, *geom in CONV_CASES:
        x, w, b = arrays(rng, dtype, xs, ws, (ws[0],))
        out.append(Sample([x, w, b], conv_args(*geom), name=f"{xs}*{ws}"))
    x, w = arrays(rng, dtype, (2, 3, 6, 5), (4, 3, 3, 3))
    out.append(
        Sample([non_contiguous(x), w, None], conv_args((1, 1), (1, 1), (1, 1), 1), name="non-contiguous, no bias")
    )
    return out


def conv_backward_samples(rng, dtype):
    out = []
    for xs, ws, *geom in CONV_CASES:
        x, w = arrays(rng, dtype, xs, ws)
        go = exact(rng, conv2d_ref(x.astype(np.float64), w.astype(np.float64), None, *geom).shape, dtype)
        out.append(Sample([go, x, w], conv_args(*geom), name=f"{xs}*{ws}"))
    return out


# ---- pooling
MAX_POOL_CASES = [  # (input, kernel, stride, padding, dilation, ceil_mode)
    ((2, 3, 6, 7), [2], [], [0], [1], False),
    ((2, 2, 7, 6), [3, 2], [2, 2], [1, 1], [1, 2], True),
    ((3, 5, 5), [3], [2], [1], [1], False),
    ((0, 2, 4, 4), [2], [2], [0], [1], False),
    ((1, 1, 5, 5), [2], [3], [1], [2], True),
]
AVG_POOL_CASES = [  # (input, kernel, stride, padding, ceil_mode, count_include_pad)
    ((2, 3, 6, 7), [2], [], [0], False, True),
    ((2, 2, 7, 6), [3, 2], [2, 2], [1, 1], True, True),
    ((2, 2, 7, 6), [3, 2], [2, 2], [1, 1], True, False),
    ((3, 5, 5), [3], [2], [1], False, False),
    ((0, 2, 4, 4), [2], [2], [0], False, True),
]


def max_pool_kwargs(k, s, p, d, c):
    return {"kernel_size": k, "stride": s, "padding": p, "dilation": d, "ceil_mode": c}


def avg_pool_kwargs(k, s, p, c, inc):
    return {"kernel_size": k, "stride": s, "padding": p, "ceil_mode": c, "count_include_pad": inc}


def pool_samples(cases, kwargs_of, grad):
    def gen(rng, dtype):
        out = []
        for shape, *opts in cases:
            x = exact(rng, shape, dtype)
            kw = kwargs_of(*opts)
            if grad:
                x64 = x.astype(np.float64)
                y = max_pool_ref(x64, indices=False, **kw) if kwargs_of is max_pool_kwargs else avg_pool_ref(x64, **kw)
                out.append(Sample([exact(rng, y.shape, dtype), x], kw, name=str(shape)))
            else:
                out.append(Sample([x], kw, name=str(shape)))
        if not grad:
            x = exact(rng, (2, 3, 5, 6), dtype)
            out.append(Sample([non_contiguous(x)], kwargs_of(*cases[0][1:]), name="non-contiguous"))
        return out

    return gen


# ---- layer norm
# Rows of 64 or more take the CPU's AVX2 loops (131: with a tail; (2, 67): the column sums too).
LN_CASES = [
    ((2, 3, 4), [4]),
    ((2, 3, 4), [3, 4]),
    ((5,), [5]),
    ((0, 3), [3]),
    ((3, 1), [1]),
    ((3, 131), [131]),  # CUDA: rows read again for each pass, a warp per row up to 512 columns
    ((2, 2, 67), [2, 67]),
    ((3, 300), [300]),  # CUDA: rows in registers from 256 columns in whole 16-byte packs (not float16's 300)
    ((2, 520), [520]),
    ((9, 1024), [1024]),  # a warp per row, a block of warps partly past the last row
    ((2, 1030), [1030]),  # not whole packs: a block per row, read again for each pass
    ((2, 2048), [2048]),  # in registers, several warps a row
]


def layer_norm_samples(with_grad):
    """[x, normalized_shape, weight, bias]; for the backward [grad_out, x, normalized_shape, mean, rstd,
    weight, bias], mean and rstd given in the sample's dtype so the reference sees the same rounded
    statistics the kernel does."""

    def sample(rng, dtype, x, norm, w, b, name):
        if not with_grad:
            return Sample([x, norm, w, b], name=name)
        _, mean, rstd = layer_norm_ref(x, norm, stats=True)
        stat_dtype = x.dtype
        return Sample(
            [exact(rng, x.shape, dtype), x, norm, mean.astype(stat_dtype), rstd.astype(stat_dtype), w, b], name=name
        )

    def gen(rng, dtype):
        out = []
        for shape, norm in LN_CASES:
            x, w, b = arrays(rng, dtype, shape, tuple(norm), tuple(norm))
            out.append(sample(rng, dtype, x, norm, w, b, f"{shape} over {norm}"))
        x = non_contiguous(exact(rng, (3, 4), dtype))
        out.append(sample(rng, dtype, x, [4], None, None, "non-contiguous, no affine"))
        x = non_contiguous(exact(rng, (5, 96), dtype))
        out.append(sample(rng, dtype, x, [96], None, None, "non-contiguous long rows, no affine"))
        return out

    return gen


def native_layer_norm_ref(x, normalized_shape, weight, bias):
    return layer_norm_ref(x, normalized_shape, weight, bias, stats=True)


# (N, C, *) inputs of 2 to 5 dims, and an empty batch (eval only: training needs two values a channel).
BN_CASES = [((4, 3), True), ((2, 3, 5), True), ((2, 3, 2, 2), False), ((2, 2, 2, 1, 3), True), ((0, 3), False)]


def batch_norm_samples(with_grad):
    """[x, weight, bias, running_mean, running_var, training]; for the backward [grad_out, x, weight,
    save_mean, save_invstd, training], the statistics given in the sample's dtype so the reference
    sees the same rounded ones the kernel does."""

    def sample(rng, dtype, x, w, b, rm, rv, training, name):
        if not with_grad:
            return Sample([x, w, b, rm, rv, training], name=name)
        _, mean, invstd = batch_norm_ref(x, w, b, rm, rv, training)
        return Sample(
            [exact(rng, x.shape, dtype), x, w, mean.astype(x.dtype), invstd.astype(x.dtype), training], name=name
        )

    def gen(rng, dtype):
        out = []
        for shape, training in BN_CASES:
            c = shape[1]
            x, w, b, rm = arrays(rng, dtype, shape, (c,), (c,), (c,))
            rv = (np.abs(exact(rng, (c,), dtype)) + 0.5).astype(x.dtype)
            out.append(sample(rng, dtype, x, w, b, rm, rv, training, f"{shape} {'training' if training else 'eval'}"))
        x = non_contiguous(exact(rng, (5, 4), dtype))
        out.append(sample(rng, dtype, x, None, None, None, None, True, "non-contiguous, no affine, no running stats"))
        return out

    return gen


def max_pool_backward_op(go, x, **kw):
    _, idx = ops.max_pool2d_with_indices(x, **kw)
    return ops.max_pool2d_with_indices_backward(
        go, x, kw["kernel_size"], kw["stride"], kw["padding"], kw["dilation"], kw["ceil_mode"], idx
    )


OPS = [
    OpInfo("mm", lambda a, b: ops.mm(a, b), np.matmul, mm_samples, NUMERIC, differentiable=True),
    OpInfo(
        "mm.out",
        out_of(lambda a, b, out: ops.mm.out(a, b, out=out), lambda a, b: (a.shape[0], b.shape[1])),
        np.matmul,
        mm_samples,
        NUMERIC,
    ),
    OpInfo("bmm", lambda a, b: ops.bmm(a, b), np.matmul, bmm_samples, NUMERIC, differentiable=True),
    OpInfo(
        "bmm.out",
        out_of(lambda a, b, out: ops.bmm.out(a, b, out=out), lambda a, b: a.shape[:2] + b.shape[2:]),
        np.matmul,
        bmm_samples,
        NUMERIC,
    ),
    OpInfo(
        "addmm", lambda s, a, b, **kw: ops.addmm(s, a, b, **kw), addmm_ref, addmm_samples, NUMERIC, differentiable=True
    ),
    OpInfo(
        "addmm.out",
        out_of(
            lambda s, a, b, out, **kw: ops.addmm.out(s, a, b, out=out, **kw), lambda s, a, b: (a.shape[0], b.shape[1])
        ),
        addmm_ref,
        addmm_samples,
        NUMERIC,
    ),
    OpInfo("dot", lambda a, b: ops.dot(a, b), np.dot, dot_samples, NUMERIC, differentiable=True),
    OpInfo("matmul", lambda a, b: ops.matmul(a, b), np.matmul, matmul_samples, NUMERIC, differentiable=True),
    OpInfo("outer", lambda a, b: ops.outer(a, b), np.outer, outer_samples, ALL_DTYPES, differentiable=True),
    OpInfo(
        "linear", lambda x, w, b=None: ops.linear(x, w, b), linear_ref, linear_samples, NUMERIC, differentiable=True
    ),
    OpInfo(
        "conv2d",
        lambda x, w, b, **kw: ops.conv2d(x, w, b, **kw),
        conv2d_ref,
        conv2d_samples,
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo(
        "convolution_backward",
        lambda go, x, w, **kw: ops.convolution_backward(go, x, w, **kw),
        conv_backward_ref,
        conv_backward_samples,
        FLOAT + HALF,
    ),
    OpInfo(
        "max_pool2d",
        lambda x, **kw: ops.max_pool2d(x, **kw),
        lambda x, **kw: max_pool_ref(x, indices=False, **kw),
        pool_samples(MAX_POOL_CASES, max_pool_kwargs, False),
        NUMERIC,
        differentiable=True,
    ),
    OpInfo(
        "max_pool2d_with_indices",
        lambda x, **kw: ops.max_pool2d_with_indices(x, **kw),
        max_pool_ref,
        pool_samples(MAX_POOL_CASES, max_pool_kwargs, False),
        NUMERIC,
        differentiable=True,
    ),
    OpInfo(
        "max_pool2d_with_indices_backward",
        max_pool_backward_op,
        lambda go, x, **kw: max_pool_backward_ref(go, x, **kw),
        pool_samples(MAX_POOL_CASES, max_pool_kwargs, True),
        FLOAT + HALF,
    ),
    OpInfo(
        "avg_pool2d",
        lambda x, **kw: ops.avg_pool2d(x, **kw),
        avg_pool_ref,
        pool_samples(AVG_POOL_CASES, avg_pool_kwargs, False),
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo(
        "avg_pool2d_backward",
        lambda go, x, **kw: ops.avg_pool2d_backward(
            go, x, kw["kernel_size"], kw["stride"], kw["padding"], kw["ceil_mode"], kw["count_include_pad"]
        ),
        lambda go, x, **kw: avg_pool_backward_ref(go, x, **kw),
        pool_samples(AVG_POOL_CASES, avg_pool_kwargs, True),
        FLOAT + HALF,
    ),
    OpInfo(
        "native_layer_norm",
        lambda x, n, w, b: ops.native_layer_norm(x, n, w, b, 1e-5),
        native_layer_norm_ref,
        layer_norm_samples(False),
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo(
        "native_layer_norm_backward",
        lambda go, x, n, m, r, w, b: ops.native_layer_norm_backward(go, x, n, m, r, w, b),
        layer_norm_backward_ref,
        layer_norm_samples(True),
        FLOAT + HALF,
    ),
    OpInfo(
        "native_batch_norm",
        lambda x, w, b, rm, rv, training: ops.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5),
        batch_norm_ref,
        batch_norm_samples(False),
        FLOAT + HALF,
        differentiable=True,
    ),
    OpInfo(
        "native_batch_norm_backward",
        lambda go, x, w, m, s, training: ops.native_batch_norm_backward(go, x, w, m, s, training),
        batch_norm_backward_ref,
        batch_norm_samples(True),
        FLOAT + HALF,
    ),
    OpInfo(
        "layer_norm",
        lambda x, n, w, b: ops.layer_norm(x, n, w, b),
        layer_norm_ref,
        layer_norm_samples(False),
        FLOAT + HALF,
        differentiable=True,
    ),
]
