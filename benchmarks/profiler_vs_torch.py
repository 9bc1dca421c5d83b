#!/usr/bin/env python3
"""gb.profiler next to torch.profiler on the same GPT-style training step, in one run:

    python3 benchmarks/profiler_vs_torch.py [--device cuda] [--quick]

Prints
  1. the step time with each library's profiler off and on (forward, backward, Adam step), and
     the slowdown the profiler causes, glassbox and PyTorch side by side;
  2. on the GPU: the GPU time gb.profiler attributes to operators over one glassbox step, against
     the GPU busy time torch.profiler measures independently (its own CUPTI session) over the same
     glassbox step, and the slowest kernel each names;
  3. the top of gb.profiler's table for the glassbox step, and for the CUDA build the layer-norm
     backward (the weight/bias gradient) of both libraries at the step's size.
Sizes: on the GPU B=16 T=256 C=512, 8 heads, 4 layers; on the CPU (and --quick) B=8 T=64 C=128,
4 heads, 2 layers. Each time is the median of --steps steps after two warm-up steps.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, os.path.join(HERE, "models"))
import gpt  # noqa: E402

import glassbox as gb  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def make(lib, device, size, seed_model=None):
    model = gpt.build(lib, **size["model"]).to(device)
    if seed_model is not None:
        gpt.copy_weights(seed_model, model, lib)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    shape = (size["B"], size["model"]["block"])
    idx = lib.from_numpy(rng.integers(0, size["model"]["vocab"], shape)).to(device)
    tgt = lib.from_numpy(rng.integers(0, size["model"]["vocab"], shape)).to(device)

    def step():
        loss = model(idx, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def timed(step, sync, steps):
    for _ in range(2):
        step()
    sync()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def ms(s):
    return f"{s * 1e3:8.2f} ms"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda" if gb.cuda.is_available() else "cpu")
    p.add_argument("--quick", action="store_true", help="the small size on any device")
    p.add_argument("--steps", type=int, default=10)
    a = p.parse_args()
    cuda = a.device == "cuda"
    big = cuda and not a.quick
    size = {
        "B": 16 if big else 8,
        "model": dict(
            vocab=256, block=256 if big else 64, C=512 if big else 128, heads=8 if big else 4, layers=4 if big else 2
        ),
    }
    print(f"device {a.device}; B={size['B']} {size['model']}; median of {a.steps} steps")
    gb_sync = gb.cuda.synchronize if cuda else (lambda: None)
    gb_acts = [gb.profiler.ProfilerActivity.CPU] + ([gb.profiler.ProfilerActivity.CUDA] if cuda else [])
    gb.manual_seed(0)
    gb_step = make(gb, a.device, size)

    rows = []
    off = timed(gb_step, gb_sync, a.steps)
    with gb.profiler.profile(activities=gb_acts, record_shapes=True):
        on = timed(gb_step, gb_sync, a.steps)
    rows.append(("glassbox", off, on))
    if torch is not None:
        torch.manual_seed(0)
        t_sync = torch.cuda.synchronize if cuda else (lambda: None)
        t_acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
        t_step = make(torch, a.device, size)
        t_off = timed(t_step, t_sync, a.steps)
        with torch.profiler.profile(activities=t_acts, record_shapes=True):
            t_on = timed(t_step, t_sync, a.steps)
        rows.append(("PyTorch", t_off, t_on))
    print("\n1. step time, profiler off and on")
    print(f"   {'':10} {'off':>11} {'on':>11} {'on/off':>7}")
    for name, o, n in rows:
        print(f"   {name:10} {ms(o)} {ms(n)} {n / o:6.2f}x")
    if len(rows) == 2:
        print(
            f"   glassbox's speed relative to PyTorch, profiler off: {rows[1][1] / rows[0][1]:.2f}x "
            "(> 1: glassbox is faster)"
        )

    with gb.profiler.profile(activities=gb_acts, record_shapes=True) as prof:
        gb_step()
        gb_sync()
    events = prof.events()
    if cuda:
        gpu = [e for e in events if e.is_gpu]
        by_id = {e.id: e for e in events}
        attributed = sum(e.duration_us for e in gpu if by_id.get(e.parent_id) is not None)
        total = sum(e.duration_us for e in gpu)
        kernels = {}
        for e in gpu:
            if e.kind == "kernel":
                kernels[e.name] = kernels.get(e.name, 0.0) + e.duration_us
        slowest = max(kernels, key=kernels.get) if kernels else "-"
        print("\n2. GPU time over one glassbox step")
        print(
            f"   gb.profiler: {total / 1e3:.3f} ms of GPU activity, {attributed / 1e3:.3f} ms "
            f"({100 * attributed / max(total, 1e-9):.1f}%) attributed to an operator"
        )
        print(f"   gb.profiler's slowest kernel: {slowest} ({kernels.get(slowest, 0) / 1e3:.3f} ms)")
        if torch is not None:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as tp:
                gb_step()
                gb_sync()
            t_kernels = {}
            busy = 0.0
            for e in tp.events():
                if e.device_type == torch.autograd.DeviceType.CUDA:
                    d = e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
                    busy += d
                    t_kernels[e.name] = t_kernels.get(e.name, 0.0) + d
            t_slowest = max(t_kernels, key=t_kernels.get) if t_kernels else "-"
            print(
                f"   torch.profiler on the same glassbox step: {busy / 1e3:.3f} ms GPU busy; "
                f"gb.profiler attributes {attributed / max(busy, 1e-9):.3f}x of it"
            )
            print(f"   torch.profiler's slowest kernel: {t_slowest} ({t_kernels.get(t_slowest, 0) / 1e3:.3f} ms)")
    print("\n3. gb.profiler's table, one glassbox step")
    sort = "self_cuda_time_total" if cuda else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by=sort, row_limit=12))
    if cuda and torch is not None:
        rows_, cols = size["B"] * size["model"]["block"], size["model"]["C"]
        x = np.random.default_rng(1).standard_normal((rows_, cols)).astype(np.float32)
        res = []
        for lib, sync in ((gb, gb_sync), (torch, torch.cuda.synchronize)):
            xt = lib.from_numpy(x).to("cuda").requires_grad_()
            ln = lib.nn.LayerNorm(cols).to("cuda")
            y = ln(xt)
            g = lib.ones_like(y) if hasattr(lib, "ones_like") else lib.ones(rows_, cols, device="cuda")

            def back():
                lib.autograd.grad([y], [xt, ln.weight, ln.bias], [g], retain_graph=True)

            res.append(timed(back, sync, 20))
        print(
            f"layer_norm backward {rows_}x{cols} float32: glassbox {ms(res[0])}, PyTorch {ms(res[1])}, "
            f"PyTorch/glassbox {res[1] / res[0]:.2f}x"
        )


if __name__ == "__main__":
    main()
