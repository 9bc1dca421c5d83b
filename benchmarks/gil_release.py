"""How much a second Python thread gets done while glassbox computes, side by side with idle.

    .venv/bin/python benchmarks/gil_release.py

A ticker thread counts (sleeping 0.5 ms between counts) first while the main thread sleeps, then
while it runs each operation; printed are the operation's time and the ticker's rate in both
cases. With the GIL held through a kernel the ticker stops (rate near 0); released, it keeps close
to its idle rate. PyTorch is run alongside where it is installed.
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import glassbox as gb  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def rate_during(fn):
    count = [0]
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.0005)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    time.sleep(0.05)
    c0, t0 = count[0], time.perf_counter()
    fn()
    elapsed = time.perf_counter() - t0
    busy = (count[0] - c0) / elapsed
    c0 = count[0]
    time.sleep(elapsed)
    idle = (count[0] - c0) / elapsed
    stop.set()
    thread.join()
    return elapsed, busy, idle


def cases(lib):
    m = gb if lib == "glassbox" else torch
    x = m.rand(4_000_000)
    a, b = m.rand(2048, 1024), m.rand(1024, 1024)

    def backward():
        w = m.rand(1024, 1024, requires_grad=True)
        y = a
        for _ in range(4):
            y = (y @ w).tanh()
        y.sum().backward()

    return [
        ("sort, 4M float32", lambda: x.sort()),
        ("matmul 2048x1024 @ 1024x1024", lambda: a @ b),
        ("4 x (matmul + tanh), backward", backward),
    ]


def main():
    libs = ["glassbox"] + (["torch"] if torch is not None else [])
    print(
        f"{'operation':34s} {'library':9s} {'op s':>7s} {'ticks/s busy':>13s} {'ticks/s idle':>13s} {'busy/idle':>10s}"
    )
    for lib in libs:
        for name, fn in cases(lib):
            fn()  # warm-up
            elapsed, busy, idle = rate_during(fn)
            print(f"{name:34s} {lib:9s} {elapsed:7.3f} {busy:13.0f} {idle:13.0f} {busy / max(idle, 1):10.2f}")


if __name__ == "__main__":
    main()
