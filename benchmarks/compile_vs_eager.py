#!/usr/bin/env python3
"""A chain of 6 element-wise operators over a large float32 tensor, side by side:
glassbox eager (6 library kernels, 6 results allocated), glassbox compiled (gb.compile: 1 generated
kernel), PyTorch eager and torch.compile (when torch can be imported here, or by the Python named
with --torch-python, which runs the PyTorch half in a child process). Printed figures, not a test.

    f(x) = tanh(sigmoid(x * 2 + 1) * x) - x      (mul, add, sigmoid, mul, tanh, sub)

    GLASSBOX_BUILD_DIR=build/dev PYTHONPATH=python .venv/bin/python benchmarks/compile_vs_eager.py \
        [--numel 33554432] [--repeat 10] [--torch-python ~/.cache/glassbox/torch-venv-cp311/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

DEFAULT_TORCH_PYTHON = os.path.expanduser("~/.cache/glassbox/torch-venv-cp311/bin/python")


def chain(x):
    return ((x * 2 + 1).sigmoid() * x).tanh() - x


def best_ms(fn, x, repeat):
    fn(x)  # warm up (and compile)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3  # the median


def glassbox_side(numel, repeat):
    import numpy as np

    import glassbox as gb

    x = gb.from_numpy(np.random.default_rng(0).standard_normal(numel).astype(np.float32))
    compiled = gb.compile(chain)
    start = time.perf_counter()
    compiled(x)
    first_call_s = time.perf_counter() - start
    np.testing.assert_allclose(np.asarray(compiled(x)), np.asarray(chain(x)), rtol=1e-5, atol=1e-6)
    return {
        "glassbox eager": best_ms(chain, x, repeat),
        "glassbox compiled": best_ms(compiled, x, repeat),
        "kernels": compiled.kernels,
        "first_call_s": first_call_s,
        "threads": os.environ.get("GLASSBOX_NUM_THREADS") or os.cpu_count(),  # the pool's default size
    }


def torch_side(numel, repeat):
    import numpy as np
    import torch

    x = torch.from_numpy(np.random.default_rng(0).standard_normal(numel).astype(np.float32))
    result = {"torch eager": best_ms(chain, x, repeat), "torch_version": torch.__version__}
    try:
        compiled = torch.compile(chain)
        start = time.perf_counter()
        compiled(x)
        result["torch_first_call_s"] = time.perf_counter() - start
        result["torch.compile"] = best_ms(compiled, x, repeat)
    except Exception as e:  # no C++ toolchain for Inductor, ...
        result["torch.compile error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
    result["torch_threads"] = torch.get_num_threads()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--numel", type=int, default=1 << 25)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--torch-python", default=DEFAULT_TORCH_PYTHON)
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_only:
        print(json.dumps(torch_side(args.numel, args.repeat)))
        return

    figures = glassbox_side(args.numel, args.repeat)
    try:
        import torch  # noqa: F401

        figures.update(torch_side(args.numel, args.repeat))
    except ImportError:
        if os.path.isfile(args.torch_python):
            run = subprocess.run(
                [args.torch_python, __file__, "--torch-only", "--numel", str(args.numel), "--repeat", str(args.repeat)],
                capture_output=True,
                text=True,
            )
            if run.returncode == 0:
                figures.update(json.loads(run.stdout.strip().splitlines()[-1]))
            else:
                print("PyTorch side failed:\n" + run.stderr[-2000:], file=sys.stderr)

    gb_eager = figures["glassbox eager"]
    print(
        "6 element-wise ops (mul, add, sigmoid, mul, tanh, sub) over %s float32 elements, CPU (%s, %s cores), "
        "glassbox threads %s, torch threads %s"
        % (
            f"{args.numel:,}",
            platform.processor() or platform.machine(),
            os.cpu_count(),
            figures.get("threads"),
            figures.get("torch_threads", "-"),
        )
    )
    print("%-20s %10s %12s %14s" % ("", "ms", "GB/s", "vs gb eager"))
    moved = 2 * 4 * args.numel  # one read, one write per element: the fused minimum
    for name in ("glassbox eager", "glassbox compiled", "torch eager", "torch.compile"):
        if name not in figures:
            continue
        ms = figures[name]
        print("%-20s %10.2f %12.1f %13.2fx" % (name, ms, moved / ms / 1e6, gb_eager / ms))
    if "torch.compile" in figures:
        print("glassbox compiled vs torch.compile: %.2fx" % (figures["torch.compile"] / figures["glassbox compiled"]))
    if "torch.compile error" in figures:
        print("torch.compile failed: " + figures["torch.compile error"])
    print(
        "generated kernels: %d (%s); first compiled call %.1f s (capture, compile or cache load, run)"
        % (len(figures["kernels"]), ", ".join(figures["kernels"]), figures["first_call_s"])
    )
    if "torch_first_call_s" in figures:
        print("torch.compile first call %.1f s" % figures["torch_first_call_s"])


if __name__ == "__main__":
    main()
