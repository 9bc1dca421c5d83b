#!/usr/bin/env python3
"""float32 transcendentals, glassbox side by side with NumPy (printed figures, not a test).

exp, log, sin, cos, tanh, sigmoid and gelu (erf and tanh forms) of 4M float32 values, in
million elements per second. NumPy has no sigmoid or gelu: its column times the expressions
1/(1+exp(-x)) and x*(1+tanh(...))/2 (NumPy has no erf, so gelu's erf form has no NumPy figure).
glassbox runs through its Python bindings in a child process per thread count
(GLASSBOX_NUM_THREADS=1, 2, ...); NumPy's ufuncs are single-threaded.

  PYTHONPATH=python GLASSBOX_BUILD_DIR=build/dev .venv/bin/python benchmarks/transcendentals_vs_numpy.py [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np
from numpy_side_by_side import best_time, glassbox_figures

N = 1 << 22
CASES = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "gelu(erf)", "gelu(tanh)"]


def inputs(case: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if case == "log":
        return rng.uniform(1e-3, 1e3, N).astype(np.float32)
    if case == "exp":
        return rng.uniform(-80, 80, N).astype(np.float32)
    return rng.uniform(-10, 10, N).astype(np.float32)


def numpy_call(case: str):
    k = np.float32(math.sqrt(2 / math.pi))
    return {
        "exp": np.exp,
        "log": np.log,
        "sin": np.sin,
        "cos": np.cos,
        "tanh": np.tanh,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "gelu(tanh)": lambda x: np.float32(0.5) * x * (1 + np.tanh(k * (x + np.float32(0.044715) * x * x * x))),
    }.get(case)


def measure_numpy() -> dict[str, float]:
    out = {}
    for case in CASES:
        fn = numpy_call(case)
        if fn is not None:
            x = inputs(case)
            out[case] = N / best_time(lambda: fn(x)) / 1e6
    return out


def measure_glassbox() -> dict[str, float]:
    import glassbox as gb

    ops = gb.ops.glassbox
    calls = {
        "exp": ops.exp,
        "log": ops.log,
        "sin": ops.sin,
        "cos": ops.cos,
        "tanh": ops.tanh,
        "sigmoid": ops.sigmoid,
        "gelu(erf)": lambda x: ops.gelu(x, approximate="none"),
        "gelu(tanh)": lambda x: ops.gelu(x, approximate="tanh"),
    }
    out = {}
    for case in CASES:
        x = gb.from_numpy(inputs(case))
        out[case] = N / best_time(lambda: calls[case](x)) / 1e6
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_glassbox()))
        return 0
    reference = measure_numpy()
    print(f"numpy {np.__version__} (single-threaded); {N} float32 values")
    print(f"{'case':<12} {'thr':>3} {'glassbox Mel/s':>15} {'numpy Mel/s':>12} {'ratio':>6}")
    for threads in [int(t) for t in args.threads.split(",")]:
        ours = glassbox_figures(__file__, threads)
        for case in CASES:
            theirs = reference.get(case)
            ratio = f"{ours[case] / theirs:>6.2f}" if theirs else f"{'-':>6}"
            numpy_col = f"{theirs:>12.1f}" if theirs else f"{'-':>12}"
            print(f"{case:<12} {threads:>3} {ours[case]:>15.1f} {numpy_col} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
