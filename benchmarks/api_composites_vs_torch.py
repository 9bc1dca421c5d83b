"""The Python-written API functions, side by side in one run: each wrapped binding against the raw
compiled call it wraps (what axis= and the named results cost), and the composites (scans, selections,
einsum, conv3d, scatter_reduce) against PyTorch where it is installed.

    .venv/bin/python benchmarks/api_composites_vs_torch.py

Prints microseconds per call (best of several repeats) and the ratios.
"""

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import glassbox as gb  # noqa: E402

try:
    import torch

    torch.set_num_threads(int(os.environ.get("GLASSBOX_NUM_THREADS", "1")))
except ImportError:
    torch = None


def best_us(fn, number):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def wrapper_rows():
    x = gb.ones(4, 4)
    raw = gb._C._functions
    return [
        ("sum(x)", lambda: raw.sum(x), lambda: gb.sum(x)),
        ("x.sum(1)", lambda: raw.sum(x, [1]), lambda: x.sum(1)),
        ("max(x, 1)", lambda: raw.max(x, 1), lambda: gb.max(x, 1)),
        ("sort(x)", lambda: raw.sort(x), lambda: gb.sort(x)),
    ]


def composite_rows():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 1024)).astype(np.float32)
    m = rng.standard_normal((256, 256)).astype(np.float32)
    v = rng.standard_normal((8, 4, 16, 16, 16)).astype(np.float32)
    w = rng.standard_normal((8, 4, 3, 3, 3)).astype(np.float32)
    idx = rng.integers(0, 64, size=(256, 1024))
    return [
        ("cumprod 256x1024 dim 1", lambda lib, t: lib.cumprod(t[0], 1), [a]),
        ("cummax 256x1024 dim 1", lambda lib, t: lib.cummax(t[0], 1), [a]),
        ("logcumsumexp 256x1024", lambda lib, t: lib.logcumsumexp(t[0], 1), [a]),
        ("median 256x1024 dim 1", lambda lib, t: lib.median(t[0], 1), [a]),
        ("mode 256x1024 dim 1", lambda lib, t: lib.mode(t[0].round(), 1), [a]),
        ("einsum ij,jk->ik 256", lambda lib, t: lib.einsum("ij,jk->ik", t[0], t[0]), [m]),
        ("einsum bij->bji + sum", lambda lib, t: lib.einsum("bij->j", t[0].reshape(16, 16, 1024)), [a]),
        ("scatter_reduce amax", lambda lib, t: lib.zeros(256, 64).scatter_reduce(1, t[1], t[0], "amax"), [a, idx]),
        ("conv3d 8x4x16^3, 3^3", lambda lib, t: lib.nn.functional.conv3d(t[0], t[1], padding=1), [v, w]),
        ("unique 256x1024 ints", lambda lib, t: lib.unique(t[0]), [idx]),
    ]


def main():
    print("wrapped binding vs the raw compiled call (4x4 float32, CPU), us per call")
    print(f"{'call':14s} {'raw':>8s} {'wrapped':>8s} {'ratio':>6s}")
    for name, raw, wrapped in wrapper_rows():
        r, w = best_us(raw, 20000), best_us(wrapped, 20000)
        print(f"{name:14s} {r:8.2f} {w:8.2f} {w / r:6.2f}")
    print()
    print("composites vs PyTorch (CPU, %s thread(s)), us per call" % os.environ.get("GLASSBOX_NUM_THREADS", "1"))
    print(f"{'call':26s} {'glassbox':>10s} {'torch':>10s} {'gb/torch':>9s}")
    for name, call, arrays in composite_rows():
        ours = [gb.tensor(x) for x in arrays]
        mine = best_us(lambda: call(gb, ours), 5)
        if torch is None:
            print(f"{name:26s} {mine:10.1f} {'-':>10s}")
            continue
        theirs = [torch.tensor(x) for x in arrays]
        ref = best_us(lambda: call(torch, theirs), 5)
        print(f"{name:26s} {mine:10.1f} {ref:10.1f} {mine / ref:9.2f}")


if __name__ == "__main__":
    main()
