"""Python-level overheads, side by side in one run: glassbox vs NumPy vs PyTorch (where installed).

    .venv/bin/python benchmarks/python_overhead.py

Prints microseconds per iteration (best of several repeats) and glassbox/other ratios for:
  a + b on 1-element CPU tensors; (x*2).sigmoid().sum().backward() with x of 4 elements;
  one training step of a 2-layer MLP (64 -> 128 -> 10, batch 256, Adam).
Then the three ways to call glassbox's add from Python side by side, 1-element tensors: the
generated typed binding gb.add(a, b), the operator a + b, and the boxed gb.ops.glassbox.add.Tensor
(and gb.ops.glassbox.add, which tries the overloads in turn).
"""

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import glassbox as gb  # noqa: E402

try:
    import torch

    torch.set_num_threads(int(os.environ.get("GLASSBOX_NUM_THREADS", "1")))
except ImportError:
    torch = None


def best_us(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def add_case(lib):
    if lib == "numpy":
        a, b = np.ones(1, np.float32), np.ones(1, np.float32)
    elif lib == "torch":
        a, b = torch.ones(1), torch.ones(1)
    else:
        a, b = gb.ones(1), gb.ones(1)
    return lambda: a + b


def tiny_backward_case(lib):
    if lib == "torch":
        x = torch.ones(4, requires_grad=True)
    else:
        x = gb.ones(4, requires_grad=True)
    return lambda: (x * 2).sigmoid().sum().backward()


def mlp_case(lib):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((256, 64)).astype(np.float32)
    ys = rng.integers(0, 10, 256)
    m = torch if lib == "torch" else gb
    model = m.nn.Sequential(m.nn.Linear(64, 128), m.nn.ReLU(), m.nn.Linear(128, 10))
    opt = m.optim.Adam(model.parameters(), lr=1e-3)
    x, y = m.tensor(xs), m.tensor(ys)
    loss_fn = m.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return step


def main():
    libs = ["glassbox", "numpy"] + (["torch"] if torch else [])
    rows = [
        ("a + b, 1 element", add_case, 20000, libs),
        ("(x*2).sigmoid().sum().backward(), x of 4", tiny_backward_case, 2000, [l for l in libs if l != "numpy"]),
        ("MLP training step (256x64 -> 128 -> 10, Adam)", mlp_case, 20, [l for l in libs if l != "numpy"]),
    ]
    print(f"threads: GLASSBOX_NUM_THREADS={os.environ.get('GLASSBOX_NUM_THREADS', 'default')}")
    print(f"{'case':48} " + " ".join(f"{l + ' us':>12}" for l in libs) + "   glassbox/other")
    for name, make, number, present in rows:
        times = {lib: best_us(make(lib), number) for lib in present}
        cells = " ".join(f"{times[l]:12.2f}" if l in times else f"{'-':>12}" for l in libs)
        ratios = ", ".join(f"{times['glassbox'] / times[l]:.2f}x {l}" for l in present if l != "glassbox")
        print(f"{name:48} {cells}   {ratios}")


def typed_vs_boxed():
    a, b = gb.ones(1), gb.ones(1)
    add_tensor = gb.ops.glassbox.add.Tensor  # resolved once: the call is what is timed
    add_any = gb.ops.glassbox.add
    rows = [
        ("gb.add(a, b)  (typed binding)", lambda: gb.add(a, b)),
        ("a + b  (typed operator)", lambda: a + b),
        ("gb.ops.glassbox.add.Tensor(a, b)  (boxed)", lambda: add_tensor(a, b)),
        ("gb.ops.glassbox.add(a, b)  (boxed, overloads tried)", lambda: add_any(a, b)),
    ]
    times = [(name, best_us(fn, 20000)) for name, fn in rows]
    typed = times[0][1]
    print()
    print(f"{'add of two 1-element tensors':54} {'us/call':>10}   vs gb.add")
    for name, us in times:
        print(f"{name:54} {us:10.3f}   {us / typed:.2f}x")


if __name__ == "__main__":
    main()
    typed_vs_boxed()
