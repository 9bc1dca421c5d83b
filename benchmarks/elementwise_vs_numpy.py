#!/usr/bin/env python3
"""Element-wise float32 throughput, glassbox (C++ ops_benchmark) side by side with NumPy.

Both run on this machine in one go, at 1 and 2 threads, in two styles:
  alloc: out = a + b           (an output allocated by each call: NumPy's 64 MB ones are mapped
                                afresh and page-fault on first touch; glassbox reuses the block
                                the previous call freed)
  out=:  np.add(a, b, out=c)   (preallocated output; glassbox's add_out)
GB/s counts two reads and one write of float32 per element. Printed figures, not a test.

  .venv/bin/python benchmarks/elementwise_vs_numpy.py [--bin build/dev/bin/ops_benchmark] [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SIZES = [1 << 10, 1 << 20, 1 << 24]
# (label, glassbox benchmark, numpy call)
CASES = [
    ("add alloc", "BM_AddFloat32", lambda a, b, c: np.add(a, b)),
    ("add out=", "BM_AddOutFloat32", lambda a, b, c: np.add(a, b, out=c)),
    ("mul alloc", "BM_MulFloat32", lambda a, b, c: np.multiply(a, b)),
]


def numpy_gbps(fn, n: int, min_time: float = 0.5) -> float:
    a = np.ones(n, dtype=np.float32)
    b = np.ones(n, dtype=np.float32)
    c = np.zeros(n, dtype=np.float32)
    fn(a, b, c)  # warm up
    best = float("inf")
    deadline = time.perf_counter() + min_time
    reps = max(1, int(2e7 // max(n, 1)))
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn(a, b, c)
        best = min(best, (time.perf_counter() - t0) / reps)
        if time.perf_counter() > deadline:
            break
    return 12 * n / best / 1e9


def glassbox_gbps(binary: Path, threads: int) -> dict[tuple[str, int], float]:
    env = dict(os.environ, GLASSBOX_NUM_THREADS=str(threads))
    out = subprocess.run(
        [
            str(binary),
            "--benchmark_format=json",
            "--benchmark_filter=Float32",
            "--benchmark_min_time=0.5",
            "--benchmark_repetitions=3",
            "--benchmark_report_aggregates_only=false",
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[tuple[str, int], float] = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name, arg = b["run_name"].split("/")[:2]
        key = (name, int(arg))
        result[key] = max(result.get(key, 0.0), b["bytes_per_second"] / 1e9)  # best of the repetitions
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "build/dev/bin/ops_benchmark")
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    if not args.bin.exists():
        print(f"{args.bin} not found: build it first (cmake --build build/dev)", file=sys.stderr)
        return 1
    print(f"numpy {np.__version__}; glassbox {args.bin}")
    print(f"{'case':<10} {'n':>9} {'thr':>3} {'glassbox GB/s':>14} {'numpy GB/s':>11} {'ratio':>6}")
    for threads in [int(t) for t in args.threads.split(",")]:
        # NumPy's element-wise loops are single-threaded whatever the setting; it runs once per row.
        gb = glassbox_gbps(args.bin, threads)
        for label, bench, fn in CASES:
            for n in SIZES:
                if (bench, n) not in gb:
                    continue
                ours, theirs = gb[(bench, n)], numpy_gbps(fn, n)
                print(f"{label:<10} {n:>9} {threads:>3} {ours:>14.2f} {theirs:>11.2f} {ours / theirs:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
