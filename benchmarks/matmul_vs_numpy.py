#!/usr/bin/env python3
"""float32 matmul throughput, glassbox side by side with NumPy (which also calls OpenBLAS's sgemm).

Each thread count runs in a fresh process with GLASSBOX_NUM_THREADS and OPENBLAS_NUM_THREADS set,
so both libraries start with that many threads. The two are timed alternately, best of --reps,
and GFLOP/s counts 2*n^3 flops per product. Printed figures, not a test.

  PYTHONPATH=python .venv/bin/python benchmarks/matmul_vs_numpy.py [--sizes 1024,2048] [--threads 1,2]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def measure(sizes: list[int], reps: int) -> list[dict]:
    import numpy as np

    import glassbox as gb

    ops = gb.ops.glassbox
    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        ga, gb_ = gb.from_numpy(a), gb.from_numpy(b)
        ours_c = ops.mm(ga, gb_)  # warm up both (thread pools, page faults)
        theirs_c = a @ b
        err = float(np.max(np.abs(ours_c.numpy() - theirs_c)) / np.max(np.abs(theirs_c)))
        best_ours = best_numpy = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            ops.mm(ga, gb_)
            best_ours = min(best_ours, time.perf_counter() - t0)
            t0 = time.perf_counter()
            a @ b
            best_numpy = min(best_numpy, time.perf_counter() - t0)
        flops = 2.0 * n ** 3
        rows.append({"n": n, "ours": flops / best_ours / 1e9, "numpy": flops / best_numpy / 1e9, "rel_err": err})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1024,2048")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        print(json.dumps(measure(sizes, args.reps)))
        return
    print(f"{'matmul float32':<16}{'threads':>8}{'glassbox GFLOP/s':>18}{'NumPy GFLOP/s':>15}{'ours/NumPy':>12}"
          f"{'max rel diff':>14}")
    for threads in [int(t) for t in args.threads.split(",")]:
        env = dict(os.environ, GLASSBOX_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                   OMP_NUM_THREADS=str(threads))
        out = subprocess.run([sys.executable, __file__, "--child", "--sizes", args.sizes, "--reps", str(args.reps)],
                             env=env, check=True, capture_output=True, text=True).stdout
        for row in json.loads(out.strip().splitlines()[-1]):
            n = row["n"]
            print(f"{f'{n}x{n}x{n}':<16}{threads:>8}{row['ours']:>18.1f}{row['numpy']:>15.1f}"
                  f"{row['ours'] / row['numpy']:>11.2f}x{row['rel_err']:>14.1e}")


if __name__ == "__main__":
    main()
