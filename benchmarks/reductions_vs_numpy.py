#!/usr/bin/env python3
"""Reduction and softmax throughput, glassbox side by side with NumPy (printed figures, not a test).

  sum of 16M float32           GB/s counts one read of 4 bytes per element
  softmax of 4096 x 4096 f32   GB/s counts one read and one write per element (dim=-1)

glassbox runs through its Python bindings in a child process per thread count
(GLASSBOX_NUM_THREADS=1, 2, ...); NumPy is single-threaded for these. NumPy's softmax is the
usual exp(x - max) / sum(...) over rows.

  PYTHONPATH=python GLASSBOX_BUILD_DIR=build/dev .venv/bin/python benchmarks/reductions_vs_numpy.py [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from numpy_side_by_side import best_time, glassbox_figures

SUM_N = 1 << 24
ROWS = COLS = 4096


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    e /= e.sum(axis=1, keepdims=True)
    return e


def measure_numpy() -> dict[str, float]:
    rng = np.random.default_rng(0)
    v = rng.standard_normal(SUM_N, dtype=np.float32)
    m = rng.standard_normal((ROWS, COLS), dtype=np.float32)
    return {
        "sum": 4 * SUM_N / best_time(lambda: v.sum(), min_time=1.0) / 1e9,
        "softmax": 8 * ROWS * COLS / best_time(lambda: numpy_softmax(m), min_time=1.0) / 1e9,
    }


def measure_glassbox() -> dict[str, float]:
    import glassbox as gb

    ops = gb.ops.glassbox
    rng = np.random.default_rng(0)
    v = gb.from_numpy(rng.standard_normal(SUM_N, dtype=np.float32))
    m = gb.from_numpy(rng.standard_normal((ROWS, COLS), dtype=np.float32))
    # Same answers as NumPy before timing anything.
    np.testing.assert_allclose(ops.sum(v).numpy(), v.numpy().sum(dtype=np.float64), rtol=1e-5)
    np.testing.assert_allclose(ops.softmax(m, -1).numpy()[:4], numpy_softmax(m.numpy()[:4]), rtol=1e-5, atol=1e-7)
    return {
        "sum": 4 * SUM_N / best_time(lambda: ops.sum(v), min_time=1.0) / 1e9,
        "softmax": 8 * ROWS * COLS / best_time(lambda: ops.softmax(m, -1), min_time=1.0) / 1e9,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_glassbox()))
        return 0
    reference = measure_numpy()
    print(f"numpy {np.__version__} (single-threaded)")
    print(f"{'case':<22} {'thr':>3} {'glassbox GB/s':>14} {'numpy GB/s':>11} {'ratio':>6}")
    labels = {"sum": "sum 16M float32", "softmax": "softmax 4096x4096 f32"}
    for threads in [int(t) for t in args.threads.split(",")]:
        ours = glassbox_figures(__file__, threads)
        for key, label in labels.items():
            print(
                f"{label:<22} {threads:>3} {ours[key]:>14.2f} {reference[key]:>11.2f} {ours[key] / reference[key]:>6.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
