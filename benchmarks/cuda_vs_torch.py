"""glassbox's CUDA backend next to PyTorch's, in one run, on the same GPU (a machine with one):

    python3 benchmarks/cuda_vs_torch.py [--quick]

Prints, for each case, glassbox and PyTorch side by side and their ratio (glassbox / PyTorch for
throughputs, PyTorch / glassbox for times, so that > 1 always means glassbox is faster):
  add of two 256M-element float32 tensors (GB/s, counting 2 reads and 1 write);
  sum of 256M float32 elements (GB/s read); softmax over the rows of 8192 x 8192 float32 (GB/s,
  one read and one write); matmul 8192^3 in float32, TF32 and bfloat16 (TFLOP/s); and the Python
  launch overhead of a + b on 1-element CUDA tensors (microseconds per call, no synchronisation
  between calls). Each figure is the best of several timed repeats after a warm-up; the GPU is
  synchronised before and after every repeat.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import glassbox as gb  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def best_seconds(fn, sync, iterations, repeats=5):
    fn()
    sync()
    best = float("inf")
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        sync()
        best = min(best, (time.perf_counter() - start) / iterations)
    return best


def gb_sync():
    gb.cuda.synchronize()


def torch_sync():
    torch.cuda.synchronize()


def random_pair(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape, dtype=np.float32), rng.standard_normal(shape, dtype=np.float32))


def on_both(array):
    """The same values as a glassbox and a PyTorch CUDA tensor."""
    g = gb.from_numpy(array).cuda()
    t = torch.from_numpy(array).cuda() if torch else None
    return g, t


def case_add(n):
    a_np, b_np = random_pair((n,), 0)
    (ga, ta), (gb_, tb) = on_both(a_np), on_both(b_np)
    del a_np, b_np
    bytes_moved = 3 * 4 * n
    return (
        "add 256M f32",
        "GB/s",
        lambda: ga + gb_,
        (lambda: ta + tb) if torch else None,
        lambda s: bytes_moved / s / 1e9,
        20,
    )


def case_sum(n):
    a_np = np.random.default_rng(1).standard_normal((n,), dtype=np.float32)
    ga, ta = on_both(a_np)
    return (
        "sum 256M f32",
        "GB/s",
        lambda: ga.sum(),
        (lambda: ta.sum()) if torch else None,
        lambda s: 4 * n / s / 1e9,
        20,
    )


def case_softmax(rows, cols):
    a_np = np.random.default_rng(2).standard_normal((rows, cols), dtype=np.float32)
    ga, ta = on_both(a_np)
    return (
        f"softmax {rows}x{cols} f32",
        "GB/s",
        lambda: gb.softmax(ga, 1),
        (lambda: torch.softmax(ta, 1)) if torch else None,
        lambda s: 2 * 4 * rows * cols / s / 1e9,
        20,
    )


def case_matmul(n, kind):
    a_np, b_np = random_pair((n, n), 3)
    (ga, ta), (gb_, tb) = on_both(a_np), on_both(b_np)
    if kind == "bf16":
        ga, gb_ = ga.to(gb.bfloat16), gb_.to(gb.bfloat16)
        if torch:
            ta, tb = ta.to(torch.bfloat16), tb.to(torch.bfloat16)
    flops = 2 * n**3
    return (
        f"matmul {n}^3 {kind}",
        "TFLOP/s",
        lambda: ga @ gb_,
        (lambda: ta @ tb) if torch else None,
        lambda s: flops / s / 1e12,
        5,
    )


def set_tf32(on):
    gb.backends.cuda.matmul.allow_tf32 = on
    if torch:
        torch.backends.cuda.matmul.allow_tf32 = on


def launch_overhead():
    """Microseconds per Python a + b of 1-element CUDA tensors, queued without waiting."""
    ga, gb_ = gb.ones(1, device="cuda"), gb.ones(1, device="cuda")
    g = best_seconds(lambda: ga + gb_, gb_sync, 20000) * 1e6
    t = None
    if torch:
        ta, tb = torch.ones(1, device="cuda"), torch.ones(1, device="cuda")
        t = best_seconds(lambda: ta + tb, torch_sync, 20000) * 1e6
    return g, t


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/16 of the sizes (a smoke test)")
    args = parser.parse_args()
    if not gb.cuda.is_available():
        sys.exit(f"no CUDA device: {gb.cuda.describe()}")
    scale = 16 if args.quick else 1
    n = (256 << 20) // scale
    side = 8192 // (4 if args.quick else 1)
    print(f"glassbox CUDA vs PyTorch {torch.__version__ if torch else '(not installed)'}; {gb.cuda.describe()}")
    print(f"{'case':<26}{'unit':>9}{'glassbox':>12}{'PyTorch':>12}{'ratio':>9}")
    cases = [
        lambda: case_add(n),
        lambda: case_sum(n),
        lambda: case_softmax(side, side),
        lambda: case_matmul(side, "f32"),
        lambda: case_matmul(side, "tf32"),
        lambda: case_matmul(side, "bf16"),
    ]
    for make in cases:
        name, unit, g_fn, t_fn, rate, iterations = make()
        set_tf32(name.endswith("tf32"))
        g = rate(best_seconds(g_fn, gb_sync, iterations))
        t = rate(best_seconds(t_fn, torch_sync, iterations)) if t_fn else None
        ratio = f"{g / t:>8.3f}x" if t else ""
        print(f"{name:<26}{unit:>9}{g:>12.1f}{(t or float('nan')):>12.1f}{ratio}")
        set_tf32(False)
        del g_fn, t_fn
        gb.cuda.empty_cache()
        if torch:
            torch.cuda.empty_cache()
    g, t = launch_overhead()
    ratio = f"{t / g:>8.3f}x" if t else ""
    print(f"{'a + b, 1 element':<26}{'us/call':>9}{g:>12.2f}{(t or float('nan')):>12.2f}{ratio}")


if __name__ == "__main__":
    main()
