"""The GIL is released around kernels and dispatcher calls, so other Python threads run while a
long operation does; Python kernels, hooks and NumPy-backed storage take it back. Each test counts
the ticks of a ticker thread during an operation against the ticks it makes while the main thread
just sleeps as long: with the GIL held throughout, it would make none."""

import subprocess
import sys
import textwrap
import threading
import time

import glassbox as gb


class Ticker:
    """A thread that counts while it gets the GIL (a tick every ~0.5 ms)."""

    def __init__(self):
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.count += 1
            time.sleep(0.0005)

    def __enter__(self):
        self._thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def ticks_during(fn):
    with Ticker() as ticker:
        before, start = ticker.count, time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        during = ticker.count - before
        before = ticker.count
        time.sleep(elapsed)  # the baseline: the same time with the main thread idle
        idle = ticker.count - before
    return during, idle, elapsed


def check_ticker_runs(make_op, at_least=0.1):
    """Runs make_op(scale)'s operation under the ticker, doubling the scale until one call takes
    at_least seconds. Calibrating on the measured call itself keeps a loaded machine (other tests
    running beside this one) from picking a size that later runs too fast to tell."""
    scale = 1
    while True:
        op = make_op(scale)
        op()  # warm-up: allocations, thread pools
        during, idle, elapsed = ticks_during(op)
        if elapsed >= at_least or scale >= 64:
            break
        scale *= 2
    assert elapsed > 0.05, f"the operation took only {elapsed:.3f} s at scale {scale}: too short to tell"
    # Held throughout, the ticker would tick at most at the edges (~2). Released, it ticks about
    # as often as while idle; a loaded machine slows both, hence the wide margin.
    assert during >= max(10, idle // 10), f"{during} ticks during {elapsed:.2f} s of work, {idle} while idle"


def test_sort_releases_the_gil():
    def make(scale):
        x = gb.rand(1_000_000 * scale)
        return lambda: x.sort()

    check_ticker_runs(make)


def test_matmul_releases_the_gil():
    def make(scale):
        a = gb.rand(256 * scale, 1024)
        b = gb.rand(1024, 1024)
        return lambda: a @ b  # one call

    check_ticker_runs(make)


def test_backward_releases_the_gil_and_hooks_take_it_back():
    seen = []

    def make(scale):
        def op():
            seen.clear()
            x = gb.rand(512 * scale, 256, requires_grad=True)
            w = gb.rand(256, 256, requires_grad=True)
            y = x
            for _ in range(6):
                y = (y @ w).tanh()
            y.register_hook(lambda g: seen.append(g.shape) or g)
            y.sum().backward()

        return op

    check_ticker_runs(make)
    assert len(seen) == 1


def test_boxed_calls_release_the_gil():
    def make(scale):
        x = gb.rand(1_000_000 * scale)
        return lambda: gb.ops.glassbox.sort(x)

    check_ticker_runs(make)


def test_threads_with_python_kernels_hooks_and_numpy_memory_do_not_deadlock():
    """Python kernels (gb.library), hooks and NumPy-owned storage all need the GIL from inside
    calls that run without it; several threads at once must finish (in a child, under a timeout)."""
    code = textwrap.dedent("""
        import threading
        import numpy as np
        import glassbox as gb
        from glassbox.library import Library

        lib = Library("gil_test", "DEF")
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x * 2)  # CompositeImplicitAutograd: autograd sees x * 2
        errors = []

        def work(seed):
            try:
                for i in range(200):
                    a = gb.from_numpy(np.full(64, float(seed), dtype=np.float32))
                    x = gb.rand(64, requires_grad=True)
                    x.register_hook(lambda g: g * 1)
                    y = gb.ops.gil_test.twice(x * a)
                    y.sum().backward()
                    del a
                    assert x.grad.tolist() == [2.0 * seed] * 64
            except Exception as e:
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(s,)) for s in range(1, 5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        lib.close()
        print("errors", errors)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "errors []"
