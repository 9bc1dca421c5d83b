#!/usr/bin/env python3
"""Chains of 6 element-wise operators over a large float32 tensor, side by side: glassbox eager
(6 library kernels, 6 results allocated), glassbox compiled (gb.compile: 1 generated kernel),
PyTorch eager and torch.compile (when torch can be imported here, or by the Python named with
--torch-python, which runs the PyTorch half in a child process). Printed figures, not a test.
--device cuda runs all four on the GPU (glassbox compiled: one CUDA kernel generated with NVRTC;
torch.compile: Inductor's Triton kernel), each call timed from a synchronised start to its end.

    transcendental: tanh(sigmoid(x * 2 + 1) * x) - x      (mul, add, sigmoid, mul, tanh, sub)
    arithmetic:     ((x * 2 + 1) * x - 3) * x + x         (mul, add, mul, sub, mul, add)

The first is bound by the arithmetic of sigmoid and tanh (fusion saves the memory traffic, not the
math); the second by memory, where one pass instead of six shows.

    GLASSBOX_BUILD_DIR=build/dev PYTHONPATH=python .venv/bin/python benchmarks/compile_vs_eager.py \
        [--device cpu|cuda] [--numel 33554432] [--repeat 10]
        [--torch-python ~/.cache/glassbox/torch-venv-cp311/bin/python]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time

DEFAULT_TORCH_PYTHON = os.path.expanduser("~/.cache/glassbox/torch-venv-cp311/bin/python")


def chain(x):
    return ((x * 2 + 1).sigmoid() * x).tanh() - x


def arithmetic(x):
    return ((x * 2 + 1) * x - 3) * x + x


CHAINS = {"transcendental": chain, "arithmetic": arithmetic}


def best_ms(fn, x, repeat, synchronize=lambda: None):
    fn(x)  # warm up (and compile)
    times = []
    for _ in range(repeat):
        synchronize()
        start = time.perf_counter()
        fn(x)
        synchronize()  # a GPU call is done when its kernels are
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3  # the median


def glassbox_side(numel, repeat, device):
    import numpy as np

    import glassbox as gb

    x = gb.from_numpy(np.random.default_rng(0).standard_normal(numel).astype(np.float32)).to(device)
    sync = gb.cuda.synchronize if device == "cuda" else lambda: None
    figures = {"threads": os.environ.get("GLASSBOX_NUM_THREADS") or os.cpu_count()}  # the pool's default
    if device == "cuda":
        figures["device"] = gb.cuda.describe()
    for label, fn in CHAINS.items():
        compiled = gb.compile(fn)
        start = time.perf_counter()
        compiled(x)
        sync()
        first_call_s = time.perf_counter() - start
        np.testing.assert_allclose(np.asarray(compiled(x).cpu()), np.asarray(fn(x).cpu()), rtol=1e-5, atol=1e-5)
        figures[label] = {
            "glassbox eager": best_ms(fn, x, repeat, sync),
            "glassbox compiled": best_ms(compiled, x, repeat, sync),
            "kernels": compiled.kernels,
            "first_call_s": first_call_s,
        }
    return figures


def torch_side(numel, repeat, device):
    import numpy as np
    import torch

    x = torch.from_numpy(np.random.default_rng(0).standard_normal(numel).astype(np.float32)).to(device)
    sync = torch.cuda.synchronize if device == "cuda" else lambda: None
    figures = {"torch_version": torch.__version__, "torch_threads": torch.get_num_threads()}
    if device == "cuda":
        figures["torch_device"] = torch.cuda.get_device_name()
    for label, fn in CHAINS.items():
        result = {"torch eager": best_ms(fn, x, repeat, sync)}
        try:
            compiled = torch.compile(fn)
            start = time.perf_counter()
            compiled(x)
            sync()
            result["torch_first_call_s"] = time.perf_counter() - start
            result["torch.compile"] = best_ms(compiled, x, repeat, sync)
        except Exception as e:  # no C++ toolchain for Inductor, ...
            result["torch.compile error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
        figures[label] = result
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--numel", type=int, default=1 << 25)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--torch-python", default=DEFAULT_TORCH_PYTHON)
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_only:
        print(json.dumps(torch_side(args.numel, args.repeat, args.device)))
        return

    if args.device == "cuda":
        import glassbox as gb

        if not gb.cuda.is_available():
            sys.exit("--device cuda: glassbox sees no GPU (%s)" % gb.cuda.describe())
    figures = glassbox_side(args.numel, args.repeat, args.device)
    # PyTorch runs in a process of its own: in one process with glassbox's CUDA build, importing
    # torch after glassbox crashed and Inductor's Triton compile failed (their pybind11 modules clash).
    python = sys.executable if importlib.util.find_spec("torch") else args.torch_python
    torch_figures = {}
    if os.path.isfile(python):
        run = subprocess.run(
            [python, __file__, "--torch-only", "--device", args.device]
            + ["--numel", str(args.numel), "--repeat", str(args.repeat)],
            capture_output=True,
            text=True,
        )
        if run.returncode == 0:
            torch_figures = json.loads(run.stdout.strip().splitlines()[-1])
        else:
            print("PyTorch side failed:\n" + run.stderr[-2000:], file=sys.stderr)

    if args.device == "cuda":
        print(
            "6 element-wise ops over %s float32 elements, GPU %s (glassbox: %s), PyTorch %s; medians of %d"
            % (
                f"{args.numel:,}",
                torch_figures.get("torch_device", "-"),
                figures["device"],
                torch_figures.get("torch_version", "-"),
                args.repeat,
            )
        )
    else:
        print(
            "6 element-wise ops over %s float32 elements, CPU (%s, %s cores, load average %.1f), glassbox threads %s, "
            "PyTorch %s threads %s; medians of %d"
            % (
                f"{args.numel:,}",
                platform.processor() or platform.machine(),
                os.cpu_count(),
                os.getloadavg()[0],
                figures["threads"],
                torch_figures.get("torch_version", "-"),
                torch_figures.get("torch_threads", "-"),
                args.repeat,
            )
        )
    moved = 2 * 4 * args.numel  # one read, one write per element: the fused minimum
    for label in CHAINS:
        row = dict(figures[label], **torch_figures.get(label, {}))
        gb_eager = row["glassbox eager"]
        print("\n%s chain: %-20s %10s %12s %14s" % (label, "", "ms", "GB/s", "vs gb eager"))
        for name in ("glassbox eager", "glassbox compiled", "torch eager", "torch.compile"):
            if name in row:
                ms = row[name]
                print("  %-20s %10.2f %12.1f %13.2fx" % (name, ms, moved / ms / 1e6, gb_eager / ms))
        if "torch.compile" in row:
            print("  glassbox compiled vs torch.compile: %.2fx" % (row["torch.compile"] / row["glassbox compiled"]))
        if "torch.compile error" in row:
            print("  torch.compile failed: " + row["torch.compile error"])
        print(
            "  generated kernels: %d (%s); first compiled call %.1f s%s"
            % (
                len(row["kernels"]),
                ", ".join(row["kernels"]),
                row["first_call_s"],
                "; torch.compile first call %.1f s" % row["torch_first_call_s"] if "torch_first_call_s" in row else "",
            )
        )


if __name__ == "__main__":
    main()
