"""Whole training steps, glassbox beside PyTorch: a GPT-style language model, a ResNet-style CNN and
an MLP (benchmarks/models/), each written once against the PyTorch-shaped API, built by both
libraries from the same weights and trained on the same data with Adam, in one process:

    python3 benchmarks/models_vs_torch.py                 # every device: CPU at 1 thread and at all, and the GPU
    python3 benchmarks/models_vs_torch.py --device cuda   # one device
    python3 benchmarks/models_vs_torch.py --quick         # small sizes (a 2-core machine)

For each model it prints the time of one step (forward, backward, optimizer; median of timed runs,
the device synchronised around each), PyTorch / glassbox (> 1: glassbox is faster), the peak GPU
memory of each, and the loss of both after each of the first 5 steps with their largest relative
difference. CPU thread counts are set before either library starts (GLASSBOX_NUM_THREADS and
torch.set_num_threads), so each CPU configuration runs in a process of its own.

--float64 runs both libraries in float64: where float32 losses part over the steps (a CNN's training
amplifies rounding), equal float64 losses show that the two compute the same thing.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (module, constructor arguments, batch shape maker) per size: (GPU, CPU, quick)
SIZES = {
    "gpt": {
        "cuda": dict(vocab=256, block=256, C=512, heads=8, layers=4, batch=16),
        "cpu": dict(vocab=256, block=64, C=128, heads=4, layers=2, batch=8),
        "quick": dict(vocab=64, block=32, C=64, heads=4, layers=2, batch=4),
    },
    "resnet": {
        "cuda": dict(widths=(64, 128, 256, 512), batch=32, image=64),
        "cpu": dict(widths=(16, 32, 64, 128), batch=8, image=32),
        "quick": dict(widths=(8, 16), batch=4, image=16),
    },
    "mlp": {
        "cuda": dict(widths=(784, 1024, 1024, 10), batch=256),
        "cpu": dict(widths=(784, 1024, 1024, 10), batch=256),
        "quick": dict(widths=(784, 256, 10), batch=64),
    },
}


def make_model(lib, name, size):
    sys.path.insert(0, HERE)
    from models import gpt, mlp, resnet

    if name == "gpt":
        return gpt.build(lib, size["vocab"], size["block"], size["C"], size["heads"], size["layers"])
    if name == "resnet":
        return resnet.build(lib, widths=size["widths"])
    return mlp.build(lib, widths=size["widths"])


def make_batch(name, size, step, np):
    rng = np.random.default_rng(step)
    if name == "gpt":
        x = rng.integers(0, size["vocab"], (size["batch"], size["block"]))
        return x.astype(np.int64), np.roll(x, -1, axis=1).astype(np.int64)
    if name == "resnet":
        x = rng.standard_normal((size["batch"], 3, size["image"], size["image"])).astype(np.float32)
        return x, rng.integers(0, 10, size["batch"]).astype(np.int64)
    x = rng.standard_normal((size["batch"], size["widths"][0])).astype(np.float32)
    return x, rng.integers(0, size["widths"][-1], size["batch"]).astype(np.int64)


def copy_state(src, dst, dst_lib):
    """src's parameters and buffers (running statistics) into dst, by name."""
    dst.load_state_dict({k: dst_lib.from_numpy(v.detach().cpu().numpy().copy()) for k, v in src.state_dict().items()})


class Runner:
    def __init__(self, lib, model, device, batches, float64=False):
        self.lib, self.device = lib, device
        self.model = model.to(device)
        if float64:  # parameters and floating inputs in float64 (labels and token ids stay integers)
            self.model = self.model.to(lib.float64)
            batches = [tuple(a.astype("float64") if a.dtype.kind == "f" else a for a in b) for b in batches]
        self.model.train()
        self.optimizer = lib.optim.Adam(self.model.parameters(), lr=1e-3)
        self.batches = [tuple(lib.from_numpy(a).to(device) for a in b) for b in batches]

    def step(self, i):
        x, y = self.batches[i % len(self.batches)]
        self.optimizer.zero_grad()
        loss = self.model(x, y)
        loss.backward()
        self.optimizer.step()
        return loss

    def sync(self):
        if self.device == "cuda":
            (self.lib.cuda.synchronize)()

    def peak_memory_mib(self):
        if self.device != "cuda":
            return None
        return self.lib.cuda.max_memory_allocated() / 2**20


def time_steps(runner, repeats, steps):
    times = []
    for _ in range(repeats):
        runner.sync()
        start = time.perf_counter()
        for i in range(steps):
            runner.step(i)
        runner.sync()
        times.append((time.perf_counter() - start) / steps * 1e3)
    return statistics.median(times)


def torch_without_tf32(torch):
    """PyTorch's float32 convolutions in float32, not TF32: the setting of PyTorch 2.9 and later, and
    the older flag for the versions before it."""
    torch.backends.cudnn.allow_tf32 = False
    conv = getattr(torch.backends.cudnn, "conv", None)
    if conv is not None and hasattr(conv, "fp32_precision"):
        conv.fp32_precision = "ieee"


def run_device(args):
    """This process's configuration: one device (and CPU thread count), every model."""
    if args.threads:
        os.environ["GLASSBOX_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    import glassbox as gb

    if args.threads:
        torch.set_num_threads(args.threads)
    device = args.device
    threads = f", {args.threads or os.cpu_count()} threads" if device == "cpu" else ""
    # PyTorch's default lets cuDNN convolve in TF32 on the GPU, glassbox's computes in float32. Both
    # run the same arithmetic: float32 by default (the losses then agree), TF32 with --tf32.
    if args.tf32:
        gb.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    else:
        torch_without_tf32(torch)
    gb.backends.cudnn.enabled = not args.no_cudnn
    gb.backends.cudnn.benchmark = not args.cudnn_heuristics
    tf32 = f", cuDNN TF32 {'on' if args.tf32 else 'off'} in both" if device == "cuda" else ""
    ours = ""
    if device == "cuda" and gb.backends.cudnn.is_available():
        ours = f"; glassbox {'with ' + gb.backends.cudnn.describe() if gb.backends.cudnn.enabled else 'cuDNN off'}"
    dtype = ", float64" if args.float64 else ""
    print(f"== {device}{threads}{dtype}; torch {torch.__version__}{tf32}{ours}", flush=True)
    print(
        f"{'model':8s} {'glassbox ms':>12s} {'torch ms':>9s} {'ratio':>6s} {'gb MiB':>8s} {'torch MiB':>9s}  losses (5 steps) glassbox / torch"
    )
    for name in args.models:
        size = SIZES[name]["quick" if args.quick else device]
        batches = [make_batch(name, size, i, np) for i in range(4)]
        torch.manual_seed(0)
        theirs = make_model(torch, name, size)
        ours = make_model(gb, name, size)
        copy_state(theirs, ours, gb)
        runners = {
            "glassbox": Runner(gb, ours, device, batches, args.float64),
            "torch": Runner(torch, theirs, device, batches, args.float64),
        }
        losses = {k: [r.step(i).item() for i in range(5)] for k, r in runners.items()}
        for lib in (gb, torch):
            if device == "cuda":
                lib.cuda.reset_peak_memory_stats()
        repeats, steps = (5, 5)
        ms = {}
        for _ in range(2):  # alternate the libraries, keep each one's better round
            for k, r in runners.items():
                ms[k] = min(ms.get(k, float("inf")), time_steps(r, repeats, steps))
        peak = {k: r.peak_memory_mib() for k, r in runners.items()}
        worst = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(losses["glassbox"], losses["torch"]))
        mem = "".join(f" {v:8.0f}" if v is not None else f" {'-':>8s}" for v in (peak["glassbox"], peak["torch"]))
        print(
            f"{name:8s} {ms['glassbox']:12.2f} {ms['torch']:9.2f} {ms['torch'] / ms['glassbox']:6.2f}{mem}  "
            + " ".join(f"{v:.4f}" for v in losses["glassbox"])
            + " / "
            + " ".join(f"{v:.4f}" for v in losses["torch"])
            + f"  (max rel diff {worst:.1e})",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], help="one device (default: each there is)")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    parser.add_argument("--models", nargs="*", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tf32", action="store_true", help="both libraries convolve float32 in TF32 on the GPU")
    parser.add_argument(
        "--float64",
        action="store_true",
        help="both libraries in float64: losses that part in float32 agree here when the arithmetic is the same",
    )
    parser.add_argument(
        "--cudnn-heuristics",
        action="store_true",
        help="glassbox takes cuDNN's heuristics' algorithms unmeasured (gb.backends.cudnn.benchmark off)",
    )
    parser.add_argument("--no-cudnn", action="store_true", help="glassbox's own CUDA convolutions, not cuDNN's")
    args = parser.parse_args()
    if args.device:
        return run_device(args)
    # Every configuration in a process of its own (thread counts are fixed when a library starts).
    configs = [["--device", "cpu", "--threads", "1"], ["--device", "cpu"]]
    probe = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.cuda.is_available())"], capture_output=True, text=True
    )
    if probe.stdout.strip() == "True":
        configs.append(["--device", "cuda"])
    extra = (["--quick"] if args.quick else []) + (["--tf32"] if args.tf32 else [])
    extra += ["--cudnn-heuristics"] if args.cudnn_heuristics else []
    extra += ["--float64"] if args.float64 else []
    extra += ["--no-cudnn"] if args.no_cudnn else []
    extra += ["--models", *args.models]
    for config in configs:
        subprocess.run([sys.executable, os.path.abspath(__file__), *config, *extra], check=False)


if __name__ == "__main__":
    main()
