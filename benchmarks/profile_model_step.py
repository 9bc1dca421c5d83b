#!/usr/bin/env python3
"""The profile of one model's training step, glassbox's and PyTorch's side by side: the operators
that take the most device (or CPU) time, from gb.profiler and torch.profiler over the same steps
of the same model (benchmarks/models_vs_torch.py's sizes, weights and data).

    python3 benchmarks/profile_model_step.py --model gpt --device cuda [--steps 5] [--rows 15]
        [--sort device|cpu] [--phases] [--compiled] [--tf32]

--phases prints, instead of the tables, how long the host takes to issue a step (no synchronisation)
against the whole step, and the forward, backward and optimizer each synchronised alone: a library
whose host issues a step in about the step's time is bound by its host (or waits on the device
inside the step), one that issues it much faster is bound by the device.

--compiled profiles the step of gb.compile(model) against that of torch.compile(model): the
generated kernels appear as compiled::fused_* (glassbox) and triton_* (PyTorch) rows.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import models_vs_torch as bench  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gpt", choices=sorted(bench.SIZES))
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rows", type=int, default=15)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--phases", action="store_true", help="host issue time and phase times, not the profile")
    parser.add_argument("--compiled", action="store_true", help="gb.compile and torch.compile of the model")
    parser.add_argument("--tf32", action="store_true", help="both libraries convolve float32 in TF32 on the GPU")
    parser.add_argument(
        "--sort",
        choices=["device", "cpu"],
        default="device",
        help="rank by self time on the device (the default) or on the host",
    )
    args = parser.parse_args()

    import numpy as np
    import torch

    import glassbox as gb

    if args.tf32:  # as in models_vs_torch.py: the same arithmetic in both, float32 unless asked
        gb.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    else:
        bench.torch_without_tf32(torch)
    size = bench.SIZES[args.model]["quick" if args.quick else args.device]
    batches = [bench.make_batch(args.model, size, i, np) for i in range(4)]
    torch.manual_seed(0)
    theirs = bench.make_model(torch, args.model, size)
    ours = bench.make_model(gb, args.model, size)
    bench.copy_state(theirs, ours, gb)
    on_device = args.device == "cuda" and args.sort == "device"
    sort_key = "self_cuda_time_total" if on_device else "self_cpu_time_total"
    for lib, model in ((gb, ours), (torch, theirs)):
        runner = bench.Runner(lib, model, args.device, batches)
        if args.compiled:  # the optimizer keeps the module's parameters; the step calls the compiled one
            runner.model = lib.compile(runner.model)
        for i in range(3):  # warm-up: allocator, algorithm choices
            runner.step(i)
        runner.sync()
        if args.phases:
            print_phases(lib.__name__, runner, max(args.steps, 10))
            continue
        activities = [lib.profiler.ProfilerActivity.CPU]
        if args.device == "cuda":
            activities.append(lib.profiler.ProfilerActivity.CUDA)
        with lib.profiler.profile(activities=activities) as prof:
            for i in range(args.steps):
                runner.step(i)
            runner.sync()
        print(
            f"== {lib.__name__} {lib.__version__ if hasattr(lib, '__version__') else ''}: {args.model} on "
            f"{args.device}{', compiled' if args.compiled else ''}, {args.steps} steps, sorted by {sort_key}",
            flush=True,
        )
        print(prof.key_averages().table(sort_by=sort_key, row_limit=args.rows), flush=True)


def print_phases(name, runner, repeats):
    """Medians over `repeats` steps, in ms: issue (step() returns) and whole (after a synchronise),
    then each phase synchronised alone."""
    issue, whole, phases = [], [], {"forward": [], "backward": [], "optimizer": []}
    for i in range(repeats):
        runner.sync()
        start = time.perf_counter()
        runner.step(i)
        issued = time.perf_counter()
        runner.sync()
        issue.append((issued - start) * 1e3)
        whole.append((time.perf_counter() - start) * 1e3)
    for i in range(repeats):
        x, y = runner.batches[i % len(runner.batches)]
        marks = [time.perf_counter()]
        runner.optimizer.zero_grad()
        loss = runner.model(x, y)
        runner.sync()
        marks.append(time.perf_counter())
        loss.backward()
        runner.sync()
        marks.append(time.perf_counter())
        runner.optimizer.step()
        runner.sync()
        marks.append(time.perf_counter())
        for k, key in enumerate(phases):
            phases[key].append((marks[k + 1] - marks[k]) * 1e3)
    m = statistics.median
    print(
        f"{name:9s} host issues a step in {m(issue):7.2f} ms, the step takes {m(whole):7.2f} ms | "
        + "  ".join(f"{k} {m(v):7.2f}" for k, v in phases.items()),
        flush=True,
    )


if __name__ == "__main__":
    main()
