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

--model gpt times the GPT-style training step of benchmarks/models_vs_torch.py instead (its sizes:
the GPU one with --device cuda, the CPU one, or --quick's): forward and loss compiled, loss.backward()
running the compiled backward, Adam's step eager; glassbox eager vs compiled, PyTorch eager vs
torch.compile of the same step, each library's losses over the first 5 steps, the first compile
(an empty kernel cache of its own) and the compile of a new process that finds the cache.

    GLASSBOX_BUILD_DIR=build/dev PYTHONPATH=python .venv/bin/python benchmarks/compile_vs_eager.py \
        [--device cpu|cuda] [--numel 33554432] [--repeat 10] [--model chains|gpt] [--quick]
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
import tempfile
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


# --- the GPT-style training step (--model gpt) ------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))
GPT_STEPS = 5  # losses compared over the first steps


def gpt_size(device, quick):
    sys.path.insert(0, HERE)
    from models_vs_torch import SIZES

    return SIZES["gpt"]["quick" if quick else device]


def gpt_batches(size, device, lib):
    import numpy as np

    batches = []
    for step in range(4):
        x = np.random.default_rng(step).integers(0, size["vocab"], (size["batch"], size["block"])).astype(np.int64)
        batches.append(tuple(lib.from_numpy(a).to(device) for a in (x, np.roll(x, -1, axis=1).copy())))
    return batches


def gpt_model(lib, size, device, seed_weights):
    """The model with the weights of a glassbox build seeded 0 (seed_weights: that build, or None)."""
    sys.path.insert(0, HERE)
    from models import gpt

    model = gpt.build(lib, size["vocab"], size["block"], size["C"], size["heads"], size["layers"])
    if seed_weights is not None:
        gpt.copy_weights(seed_weights, model, lib)
    return model.to(device)


def gpt_step_timer(lib, model, step_fn, batches, sync):
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
    count = [0]

    def step(_=None):
        idx, targets = batches[count[0] % len(batches)]
        count[0] += 1
        optimizer.zero_grad()
        loss = step_fn(idx, targets)
        loss.backward()
        optimizer.step()
        return loss

    losses = [float(step().detach().cpu().numpy()) for _ in range(GPT_STEPS)]
    sync()
    return step, losses


def gpt_glassbox_side(size, repeat, device, weights_path=None):
    import glassbox as gb

    sync = gb.cuda.synchronize if device == "cuda" else lambda: None
    figures = {"threads": os.environ.get("GLASSBOX_NUM_THREADS") or os.cpu_count()}
    if device == "cuda":
        figures["device"] = gb.cuda.describe()
    gb.manual_seed(0)
    reference = gpt_model(gb, size, "cpu", None)
    if weights_path:
        import numpy as np

        np.savez(weights_path, **{"p%d" % i: p.detach().numpy() for i, p in enumerate(reference.parameters())})
    batches = gpt_batches(size, device, gb)
    eager_model = gpt_model(gb, size, device, reference)
    eager_step, figures["glassbox eager losses"] = gpt_step_timer(gb, eager_model, eager_model, batches, sync)
    compiled_model = gpt_model(gb, size, device, reference)
    compiled = gb.compile(compiled_model)
    figures["first_compile_s"] = first_call_s(compiled, batches[0], sync)
    start = time.perf_counter()
    compiled_step, figures["glassbox compiled losses"] = gpt_step_timer(gb, compiled_model, compiled, batches, sync)
    figures["first_steps_s"] = time.perf_counter() - start
    if not compiled.compilations:
        figures["eager fallback"] = "the step ran eagerly (see the warning above)"
    else:
        figures["kernels"] = len(compiled.kernels)
        figures["backward kernels"] = len(compiled.backward_kernels)
    figures["glassbox eager"] = best_ms(eager_step, None, repeat, sync)
    figures["glassbox compiled"] = best_ms(compiled_step, None, repeat, sync)
    return figures


def first_call_s(compiled, batch, sync):
    """Seconds of the first call of a compiled step's forward: capture, the backward's capture,
    partition, fusion, generated code built (or loaded from the cache) and one forward run. Its
    result is dropped before any backward, so the training that follows starts from the same weights."""
    start = time.perf_counter()
    compiled(*batch)
    sync()
    return time.perf_counter() - start


def gpt_cached_compile_side(size, device):
    """A new process: the first compiled call finds every kernel in the cache. As for the first
    compile (timed after the eager steps), one eager step runs before it, so that the libraries'
    own start (the CUDA context's modules, cuBLAS's handle and workspace) is not counted as
    compiling; that step's time is reported beside it."""
    import glassbox as gb

    sync = gb.cuda.synchronize if device == "cuda" else lambda: None
    gb.manual_seed(0)
    model = gpt_model(gb, size, device, gpt_model(gb, size, "cpu", None))
    batch = gpt_batches(size, device, gb)[0]
    start = time.perf_counter()
    model(*batch).backward()
    sync()
    eager_first_step_s = time.perf_counter() - start
    compiled = gb.compile(model)
    cached_compile_s = first_call_s(compiled, batch, sync)
    start = time.perf_counter()
    compiled(*batch).backward()
    sync()
    return {
        "cached_compile_s": cached_compile_s,
        "second_step_s": time.perf_counter() - start,
        "eager_first_step_s": eager_first_step_s,
    }


def gpt_torch_side(size, repeat, device, weights_path=None):
    import numpy as np
    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    sync = torch.cuda.synchronize if device == "cuda" else lambda: None
    figures = {"torch_version": torch.__version__, "torch_threads": torch.get_num_threads()}
    if device == "cuda":
        figures["torch_device"] = torch.cuda.get_device_name()
    torch.manual_seed(0)
    batches = []
    for step in range(4):
        x = np.random.default_rng(step).integers(0, size["vocab"], (size["batch"], size["block"])).astype(np.int64)
        batches.append(tuple(torch.from_numpy(a).to(device) for a in (x, np.roll(x, -1, axis=1).copy())))
    sys.path.insert(0, HERE)
    from models import gpt

    weights = gpt.build(torch, size["vocab"], size["block"], size["C"], size["heads"], size["layers"])
    if weights_path:  # glassbox's weights, so that both libraries train the same model
        saved = np.load(weights_path)
        with torch.no_grad():
            for i, p in enumerate(weights.parameters()):
                p.copy_(torch.from_numpy(saved["p%d" % i]))
    eager_model = gpt_model(torch, size, device, weights)
    eager_step, figures["torch eager losses"] = gpt_step_timer(torch, eager_model, eager_model, batches, sync)
    figures["torch eager"] = best_ms(eager_step, None, repeat, sync)
    try:
        compiled_model = gpt_model(torch, size, device, weights)
        compiled = torch.compile(compiled_model)
        start = time.perf_counter()
        compiled_step, figures["torch.compile losses"] = gpt_step_timer(torch, compiled_model, compiled, batches, sync)
        figures["torch_first_steps_s"] = time.perf_counter() - start
        figures["torch.compile"] = best_ms(compiled_step, None, repeat, sync)
    except Exception as e:  # no C++ toolchain for Inductor, ...
        figures["torch.compile error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
    return figures


def gpt_main(args):
    size = gpt_size(args.device, args.quick)
    # the first compile builds into an empty cache of its own; a second process then finds it there
    cache = tempfile.mkdtemp(prefix="glassbox-compile-gpt-")
    os.environ["GLASSBOX_COMPILE_CACHE"] = cache
    weights_path = os.path.join(cache, "weights.npz")
    figures = gpt_glassbox_side(size, args.repeat, args.device, weights_path)
    common = ["--model", "gpt", "--device", args.device] + (["--quick"] if args.quick else [])
    cached = subprocess.run(
        [sys.executable, __file__, "--gpt-cached-only"] + common, capture_output=True, text=True, env=dict(os.environ)
    )
    if cached.returncode == 0:
        figures.update(json.loads(cached.stdout.strip().splitlines()[-1]))
    else:
        print("cached compile failed:\n" + cached.stderr[-2000:], file=sys.stderr)
    torch_figures = run_torch_child(args, common + ["--repeat", str(args.repeat), "--weights", weights_path])

    shape = "vocab %(vocab)d, block %(block)d, C %(C)d, heads %(heads)d, layers %(layers)d, batch %(batch)d" % size
    print(
        "GPT-style training step (%s; Adam, eager), %s; medians of %d"
        % (shape, describe_machine(args, figures, torch_figures), args.repeat)
    )
    gb_eager = figures["glassbox eager"]
    print("\n  %-20s %10s %14s" % ("", "ms/step", "vs gb eager"))
    for name in ("glassbox eager", "glassbox compiled", "torch eager", "torch.compile"):
        value = figures.get(name, torch_figures.get(name))
        if value is not None:
            print("  %-20s %10.2f %13.2fx" % (name, value, gb_eager / value))
    if "torch.compile" in torch_figures:
        print(
            "  glassbox compiled vs torch.compile: %.2fx"
            % (torch_figures["torch.compile"] / figures["glassbox compiled"])
        )
    if "torch eager" in torch_figures:
        print(
            "  glassbox compiled vs torch eager:   %.2fx"
            % (torch_figures["torch eager"] / figures["glassbox compiled"])
        )
    if "torch.compile error" in torch_figures:
        print("  torch.compile failed: " + torch_figures["torch.compile error"])
    if "eager fallback" in figures:
        print("  glassbox compiled: " + figures["eager fallback"])
    else:
        print("  generated kernels: %d forward, %d backward" % (figures["kernels"], figures["backward kernels"]))
    print(
        "  first compile (first forward call) %.1f s (then %d steps %.1f s); cached compile in a new process %s (then a step %s); goals 10 s / 1 s"
        % (
            figures["first_compile_s"],
            GPT_STEPS,
            figures["first_steps_s"],
            "%.2f s" % figures["cached_compile_s"] if "cached_compile_s" in figures else "-",
            "%.2f s" % figures["second_step_s"] if "second_step_s" in figures else "-",
        )
    )
    if "eager_first_step_s" in figures:
        print(
            "  (the new process ran one eager step first, as the first compile's process had: %.2f s)"
            % figures["eager_first_step_s"]
        )
    if "torch_first_steps_s" in torch_figures:
        print("  torch.compile: first %d steps %.1f s" % (GPT_STEPS, torch_figures["torch_first_steps_s"]))
    print("  losses over %d steps:" % GPT_STEPS)
    for name in ("glassbox eager", "glassbox compiled", "torch eager", "torch.compile"):
        losses = figures.get(name + " losses", torch_figures.get(name + " losses"))
        if losses:
            print("    %-18s %s" % (name, " ".join("%.5f" % v for v in losses)))


def run_torch_child(args, arguments):
    """The PyTorch half's figures, from a process of its own: in one process with glassbox's CUDA
    build, importing torch after glassbox crashed and Inductor's Triton compile failed (their
    pybind11 modules clash). {} when no Python with torch is found."""
    python = sys.executable if importlib.util.find_spec("torch") else args.torch_python
    if not os.path.isfile(python):
        return {}
    run = subprocess.run([python, __file__, "--torch-only"] + arguments, capture_output=True, text=True)
    if run.returncode == 0:
        return json.loads(run.stdout.strip().splitlines()[-1])
    print("PyTorch side failed:\n" + run.stderr[-2000:], file=sys.stderr)
    return {}


def describe_machine(args, figures, torch_figures):
    if args.device == "cuda":
        return "GPU %s (glassbox: %s), PyTorch %s" % (
            torch_figures.get("torch_device", "-"),
            figures["device"],
            torch_figures.get("torch_version", "-"),
        )
    return "CPU (%s, %s cores, load average %.1f), glassbox threads %s, PyTorch %s threads %s" % (
        platform.processor() or platform.machine(),
        os.cpu_count(),
        os.getloadavg()[0],
        figures["threads"],
        torch_figures.get("torch_version", "-"),
        torch_figures.get("torch_threads", "-"),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--numel", type=int, default=1 << 25)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--torch-python", default=DEFAULT_TORCH_PYTHON)
    parser.add_argument("--model", choices=("chains", "gpt"), default="chains")
    parser.add_argument("--quick", action="store_true", help="--model gpt: the small size (a 2-core machine)")
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--gpt-cached-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--weights", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_only and args.model == "gpt":
        print(json.dumps(gpt_torch_side(gpt_size(args.device, args.quick), args.repeat, args.device, args.weights)))
        return
    if args.torch_only:
        print(json.dumps(torch_side(args.numel, args.repeat, args.device)))
        return
    if args.gpt_cached_only:
        print(json.dumps(gpt_cached_compile_side(gpt_size(args.device, args.quick), args.device)))
        return

    if args.device == "cuda":
        import glassbox as gb

        if not gb.cuda.is_available():
            sys.exit("--device cuda: glassbox sees no GPU (%s)" % gb.cuda.describe())
    if args.model == "gpt":
        gpt_main(args)
        return
    figures = glassbox_side(args.numel, args.repeat, args.device)
    torch_figures = run_torch_child(
        args, ["--device", args.device, "--numel", str(args.numel), "--repeat", str(args.repeat)]
    )

    print(
        "6 element-wise ops over %s float32 elements, %s; medians of %d"
        % (f"{args.numel:,}", describe_machine(args, figures, torch_figures), args.repeat)
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
