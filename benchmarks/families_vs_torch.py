"""One case per operator family (pooling, convolution, losses, softmax, layer and batch norm, random fills,
indexing, joins, sorting, scans, reductions), forward and backward, timed for glassbox and PyTorch
side by side on one device, in one run:

    python3 benchmarks/families_vs_torch.py [--device cpu|cuda] [--quick] [--only NAME ...]

Each line: the case, glassbox's time, PyTorch's, and PyTorch / glassbox (> 1: glassbox is faster).
A time is the median of several repeats of a few calls after a warm-up, with the device
synchronised around each repeat. Without PyTorch only glassbox's column is printed, which is what a
before/after comparison of two glassbox builds needs (run the script once against each build).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import glassbox as gb  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def cases(quick):
    """(name, shapes, fn(lib, F, tensors) -> output to backprop or None)."""
    n = 8 if quick else 32
    rows = 2048 if quick else 8192
    return [
        ("max_pool2d 3x3/2 fwd+bwd", [(n, 64, 56, 56)], lambda lib, F, x: F.max_pool2d(x, 3, 2, 1)),
        ("avg_pool2d 2x2 fwd+bwd", [(n, 64, 56, 56)], lambda lib, F, x: F.avg_pool2d(x, 2)),
        (
            "conv2d 64->64 3x3 fwd+bwd",
            [(n // 4, 64, 56, 56), (64, 64, 3, 3)],
            lambda lib, F, x, w: F.conv2d(x, w, None, 1, 1),
        ),
        (
            f"conv2d 64->64 3x3 N={n} fwd+bwd",
            [(n, 64, 56, 56), (64, 64, 3, 3)],
            lambda lib, F, x, w: F.conv2d(x, w, None, 1, 1),
        ),
        (
            "cross_entropy 1000 classes fwd+bwd",
            [(rows // 2, 1000)],
            lambda lib, F, x: F.cross_entropy(x, targets(lib, x, rows // 2, 1000)),
        ),
        ("mse_loss fwd+bwd", [(rows, 1024), (rows, 1024)], lambda lib, F, x, y: F.mse_loss(x, y.detach())),
        ("softmax last dim fwd+bwd", [(rows, 1024)], lambda lib, F, x: F.softmax(x, dim=-1)),
        ("log_softmax last dim fwd+bwd", [(rows, 1024)], lambda lib, F, x: F.log_softmax(x, dim=-1)),
        ("layer_norm 1024 fwd+bwd", [(rows, 1024)], lambda lib, F, x: F.layer_norm(x, [1024])),
        (
            "layer_norm 1024 affine fwd",
            [(rows, 1024), (1024,), (1024,)],
            lambda lib, F, x, w, b: discard(F.layer_norm(x, [1024], w, b)),
        ),
        (
            "batch_norm 64 channels train fwd+bwd",
            [(n, 64, 56, 56), (64,), (64,)],
            lambda lib, F, x, w, b: F.batch_norm(x, *running_stats(lib, 64), w, b, True),
        ),
        ("randn 16M", [], lambda lib, F: discard(lib.randn(16 * 1024 * 1024, device=DEVICE))),
        ("sum over dim 1", [(rows, 1024)], lambda lib, F, x: x.sum(1)),
        ("argmax over dim 1", [(rows, 1024)], lambda lib, F, x: discard(x.argmax(1))),
        ("cumsum over dim 1 fwd+bwd", [(rows, 1024)], lambda lib, F, x: x.cumsum(1)),
        ("sort rows of 1024", [(rows, 1024)], lambda lib, F, x: discard(x.sort(1)[0])),
        ("cat of 4 along dim 1 fwd+bwd", [(rows, 256)] * 4, lambda lib, F, *xs: lib.cat(list(xs), 1)),
        ("flip dim 1 fwd+bwd", [(rows, 1024)], lambda lib, F, x: x.flip([1])),
        (
            "index_select rows fwd+bwd",
            [(rows, 1024)],
            lambda lib, F, x: x.index_select(0, indices(lib, x, rows, rows // 2)),
        ),
        (
            "gather dim 1 fwd+bwd",
            [(rows, 1024)],
            lambda lib, F, x: x.gather(1, indices(lib, x, 1024, (rows, 256))),
        ),
        (
            "embedding 50k x 512 fwd+bwd",
            [(50_000, 512)],
            lambda lib, F, w: F.embedding(indices(lib, w, 50_000, (64, 256)), w),
        ),
    ]


def discard(result):
    """For cases with nothing to differentiate (random fills, indices, sort): time the forward only."""
    return None


_INDEX_CACHE = {}


def _random_ints(high, shape):
    key = (high, shape if isinstance(shape, tuple) else (shape,))
    if key not in _INDEX_CACHE:
        _INDEX_CACHE[key] = np.random.default_rng(1).integers(0, high, key[1])
    return _INDEX_CACHE[key]


def indices(lib, like, high, shape):
    data = _random_ints(high, shape)
    return lib.tensor(data, device=DEVICE) if lib is gb else torch.tensor(data, device=DEVICE)


def targets(lib, like, rows, classes):
    return indices(lib, like, classes, rows)


def running_stats(lib, channels):
    """Fresh running mean and variance, as a BatchNorm layer starts with."""
    return lib.zeros(channels, device=DEVICE), lib.ones(channels, device=DEVICE)


def sync(lib):
    if DEVICE == "cuda":
        (gb.cuda if lib is gb else torch.cuda).synchronize()


def time_case(lib, F, shapes, fn, repeats, calls):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    if lib is gb:
        inputs = [gb.tensor(a, device=DEVICE, requires_grad=True) for a in arrays]
    else:
        inputs = [torch.tensor(a, device=DEVICE, requires_grad=True) for a in arrays]

    def once():
        out = fn(lib, F, *inputs)
        if out is not None and out.requires_grad:
            out.sum().backward()
            for t in inputs:
                t.grad = None

    for _ in range(2):
        once()
    times = []
    for _ in range(repeats):
        sync(lib)
        start = time.perf_counter()
        for _ in range(calls):
            once()
        sync(lib)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e3


def main():
    global DEVICE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if gb.cuda.is_available() else "cpu")
    parser.add_argument("--quick", action="store_true", help="smaller shapes, fewer repeats (this 2-core machine)")
    parser.add_argument("--only", nargs="*", help="run only the cases whose name contains one of these")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for both libraries (0: all)")
    parser.add_argument("--torch-tf32", action="store_true", help="let PyTorch's cuDNN use TF32 (its default)")
    parser.add_argument("--no-cudnn", action="store_true", help="glassbox's own CUDA convolutions, not cuDNN's")
    args = parser.parse_args()
    DEVICE = args.device
    gb.backends.cudnn.enabled = not args.no_cudnn
    if args.threads and torch is not None:
        torch.set_num_threads(args.threads)
    # Both libraries in float32 arithmetic unless asked: glassbox's TF32 switches are off by default.
    if torch is not None:
        torch.backends.cudnn.allow_tf32 = args.torch_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
    repeats, calls = (3, 2) if args.quick else (7, 5)
    tf32 = f", cuDNN TF32 {'on' if args.torch_tf32 else 'off'}" if torch is not None and DEVICE == "cuda" else ""
    ours = f" ({'with ' + gb.backends.cudnn.describe() if gb.backends.cudnn.enabled else 'cuDNN off'})"
    if not (DEVICE == "cuda" and gb.backends.cudnn.is_available()):
        ours = ""
    print(
        f"device {DEVICE}; glassbox {gb.__file__}{ours}; PyTorch {torch.__version__ if torch else 'not installed'}{tf32}"
    )
    print(f"{'case':40s} {'glassbox ms':>12s} {'PyTorch ms':>11s} {'ratio':>6s}")
    for name, shapes, fn in cases(args.quick):
        if args.only and not any(o in name for o in args.only):
            continue
        ours = time_case(gb, gb.nn.functional, shapes, fn, repeats, calls)
        line = f"{name:40s} {ours:12.3f}"
        if torch is not None:
            theirs = time_case(torch, torch.nn.functional, shapes, fn, repeats, calls)
            line += f" {theirs:11.3f} {theirs / ours:6.2f}"
        print(line, flush=True)


DEVICE = "cpu"
if __name__ == "__main__":
    main()
