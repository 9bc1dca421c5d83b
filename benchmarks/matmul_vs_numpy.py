#!/usr/bin/env python3
"""float32 matmul throughput, glassbox side by side with NumPy (which also calls OpenBLAS's sgemm).

For each thread count, glassbox and NumPy are timed in separate child processes, each started
with GLASSBOX_NUM_THREADS, OPENBLAS_NUM_THREADS and OMP_NUM_THREADS set to that count (NumPy's
bundled OpenBLAS and the system OpenBLAS glassbox links both read OPENBLAS_NUM_THREADS when they
load). Separate processes matter: each OpenBLAS keeps its idle workers busy-waiting for a while
after a call, so with both libraries in one process every product would run against the other
library's spinning threads and neither figure would mean anything at 2 threads or more.

The children alternate for --rounds rounds (the machine's load changes slowly; alternating spreads
it over both), each timing --reps products; the best time counts. GFLOP/s counts 2*n^3 flops per
product. glassbox's result is checked against a float64 product after the timings. Printed
figures, not a test.

  PYTHONPATH=python .venv/bin/python benchmarks/matmul_vs_numpy.py [--sizes 1024,2048] [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def operands(n: int):
    import numpy as np

    rng = np.random.default_rng(n)
    return rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)


def best_seconds(fn, reps: int) -> float:
    fn()  # warm up (thread pools, page faults)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(library: str, sizes: list[int], reps: int) -> list[dict]:
    import numpy as np

    rows = []
    for n in sizes:
        a, b = operands(n)
        row = {"n": n}
        if library == "numpy":
            row["seconds"] = best_seconds(lambda: a @ b, reps)
        else:
            import glassbox as gb

            ga, gb_ = gb.from_numpy(a), gb.from_numpy(b)
            mm = gb.ops.glassbox.mm
            row["seconds"] = best_seconds(lambda: mm(ga, gb_), reps)
            # After the timings: NumPy's own BLAS threads must not run beside ours while we time.
            ours = mm(ga, gb_).numpy()[:64]
            exact = a[:64].astype(np.float64) @ b.astype(np.float64)
            row["rel_err"] = float(np.max(np.abs(ours - exact)) / np.max(np.abs(exact)))
        rows.append(row)
    return rows


def run_child(library: str, threads: int, args) -> list[dict]:
    env = dict(
        os.environ, GLASSBOX_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads)
    )
    out = subprocess.run(
        [sys.executable, __file__, "--child", library, "--sizes", args.sizes, "--reps", str(args.reps)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1024,2048")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", choices=["glassbox", "numpy"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        print(json.dumps(measure(args.child, sizes, args.reps)))
        return
    print(
        f"{'matmul float32':<16}{'threads':>8}{'glassbox GFLOP/s':>18}{'NumPy GFLOP/s':>15}{'ours/NumPy':>12}"
        f"{'max rel err':>13}"
    )
    for threads in [int(t) for t in args.threads.split(",")]:
        best: dict[tuple[str, int], float] = {}
        rel_err: dict[int, float] = {}
        for _ in range(args.rounds):
            for library in ("numpy", "glassbox"):
                for row in run_child(library, threads, args):
                    key = (library, row["n"])
                    best[key] = min(best.get(key, float("inf")), row["seconds"])
                    if "rel_err" in row:
                        rel_err[row["n"]] = max(rel_err.get(row["n"], 0.0), row["rel_err"])
        for n in sizes:
            flops = 2.0 * n**3
            ours, theirs = flops / best[("glassbox", n)] / 1e9, flops / best[("numpy", n)] / 1e9
            print(
                f"{f'{n}x{n}x{n}':<16}{threads:>8}{ours:>18.1f}{theirs:>15.1f}{ours / theirs:>11.2f}x"
                f"{rel_err[n]:>13.1e}"
            )


if __name__ == "__main__":
    main()
