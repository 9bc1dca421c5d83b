"""The MLP of the autograd tests trained on a GPU by glassbox and by PyTorch, in one run:

    python3 benchmarks/mlp_cuda_vs_torch.py [--device cuda|cpu]

Both start from the same weights (glassbox's initialisation, copied into PyTorch) and train with
Adam on the same synthetic classification set; the script prints each one's final loss and
training accuracy, and the time per training step (forward, backward, optimizer), for the small
MLP of the tests (600 x 2 -> 32 -> 32 -> 3) and for a wider one (4096 x 784 -> 1024 -> 1024 -> 10),
where the GPU's arithmetic rather than the launch overhead sets the pace. Step times are the best
of several timed runs of many steps, the device synchronised before and after each run.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import glassbox as gb  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def blobs(n, classes, dim, seed=0, spread=0.7):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-4, 4, size=(classes, dim))
    per = n // classes
    x = np.concatenate([rng.normal(c, spread, size=(per, dim)) for c in centers]).astype(np.float32)
    y = np.repeat(np.arange(classes), per).astype(np.int64)
    return x, y


def glassbox_model(widths, device):
    gb.manual_seed(0)
    layers = []
    for i in range(len(widths) - 1):
        layers.append(gb.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(gb.nn.ReLU())
    return gb.nn.Sequential(*layers).to(device)


def torch_copy(model, device):
    """A PyTorch Sequential with the glassbox model's weights."""
    layers = []
    for m in model._modules.values():
        if isinstance(m, gb.nn.Linear):
            lin = torch.nn.Linear(m.weight.shape[1], m.weight.shape[0])
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(np.asarray(m.weight.detach().cpu())))
                lin.bias.copy_(torch.from_numpy(np.asarray(m.bias.detach().cpu())))
            layers.append(lin)
        else:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers).to(device)


def trainer(lib, model, x, y, lr):
    m = torch if lib == "torch" else gb
    opt = m.optim.Adam(model.parameters(), lr=lr)
    loss_fn = m.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def accuracy(lib, model, x, y_np):
    m = torch if lib == "torch" else gb
    with m.no_grad():
        logits = model(x)
    return float((np.asarray(logits.detach().cpu()).argmax(1) == y_np).mean())


def best_step_seconds(step, sync, steps, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        best = min(best, (time.perf_counter() - start) / steps)
    return best


def run(name, widths, n, train_steps, timed_steps, lr, device):
    x_np, y_np = blobs(n, widths[-1], widths[0])
    libs = ["glassbox"] + (["torch"] if torch else [])
    results = {}
    g_model = glassbox_model(widths, device)
    for lib in libs:
        if lib == "glassbox":
            model, x, y, sync = (
                g_model,
                gb.tensor(x_np).to(device),
                gb.tensor(y_np).to(device),
                (gb.cuda.synchronize if device.startswith("cuda") else (lambda: None)),
            )
        else:
            model, x, y = (
                torch_copy(g_model, device),
                torch.from_numpy(x_np).to(device),
                torch.from_numpy(y_np).to(device),
            )
            sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        step = trainer(lib, model, x, y, lr)
        for _ in range(train_steps):
            loss = step()
        sync()
        final_loss, acc = float(loss.item()), accuracy(lib, model, x, y_np)
        results[lib] = (final_loss, acc, best_step_seconds(step, sync, timed_steps) * 1e3)
    print(f"{name}: {train_steps} Adam steps, lr {lr}, on {device}")
    for lib, (loss, acc, ms) in results.items():
        print(f"  {lib:<9} final loss {loss:8.4f}   training accuracy {acc * 100:6.2f}%   step {ms:8.3f} ms")
    if "torch" in results:
        ratio = results["torch"][2] / results["glassbox"][2]
        print(f"  step time PyTorch / glassbox: {ratio:.2f}x (> 1: glassbox faster)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    if args.device.startswith("cuda") and not gb.cuda.is_available():
        sys.exit(f"no CUDA device: {gb.cuda.describe()}")
    print(
        f"glassbox vs PyTorch {torch.__version__ if torch else '(not installed)'}"
        + (f"; {gb.cuda.describe()}" if args.device.startswith("cuda") else "")
    )
    run("MLP of the tests, 600 x 2 -> 32 -> 32 -> 3", [2, 32, 32, 3], 600, 200, 200, 1e-2, args.device)
    run("wide MLP, 4096 x 784 -> 1024 -> 1024 -> 10", [784, 1024, 1024, 10], 4096, 50, 50, 1e-3, args.device)


if __name__ == "__main__":
    main()
