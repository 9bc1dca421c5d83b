"""gb.set_num_threads / gb.get_num_threads, as torch spells them: the CPU thread pool that the
kernels, OpenBLAS and oneDNN share; results do not depend on it."""

import numpy as np
import pytest

import glassbox as gb


def test_set_and_get_and_results_do_not_change():
    before = gb.get_num_threads()
    x = gb.randn(4, 8, 20, 20)
    w = gb.randn(16, 8, 3, 3)
    a = gb.randn(300, 200)
    try:
        results = []
        for n in (1, 2, 3):
            gb.set_num_threads(n)
            assert gb.get_num_threads() == n
            results.append((gb.nn.functional.conv2d(x, w, padding=1).numpy(), (a @ a.t()).numpy()))
        for conv, mm in results[1:]:
            np.testing.assert_allclose(conv, results[0][0], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(mm, results[0][1], rtol=1e-5, atol=1e-4)
    finally:
        gb.set_num_threads(before)
    assert gb.get_num_threads() == before


def test_layer_norm_gradients_and_column_sums_are_the_same_bits_on_any_thread_count():
    # Their rows are cut into blocks by the shape alone, and the blocks' sums merged in one order.
    rng = np.random.default_rng(5)
    xs, ws, bs, gs = (rng.standard_normal(s, dtype=np.float32) for s in ((517, 384), (384,), (384,), (517, 384)))
    before = gb.get_num_threads()
    try:
        results = []
        for n in (1, 2, 3):
            gb.set_num_threads(n)
            x, w, b = (gb.tensor(v, requires_grad=True) for v in (xs, ws, bs))
            (gb.nn.functional.layer_norm(x, [384], w, b) * gb.tensor(gs)).sum().backward()
            results.append([t.numpy() for t in (x.grad, w.grad, b.grad, gb.tensor(gs).sum(0))])
        for other in results[1:]:
            for got, first in zip(other, results[0]):
                np.testing.assert_array_equal(got, first)
    finally:
        gb.set_num_threads(before)


def test_bad_counts():
    with pytest.raises(RuntimeError, match="positive number of threads"):
        gb.set_num_threads(0)
    with pytest.raises(TypeError):
        gb.set_num_threads("two")
    # A runaway count is refused where it is set, not found later as a region that starts threads
    # until memory runs out.
    before = gb.get_num_threads()
    with pytest.raises(RuntimeError, match="more than glassbox runs on this machine"):
        gb.set_num_threads(2**31 - 1)
    assert gb.get_num_threads() == before


FORK_CHILD = r"""
import os, signal
import numpy as np
import glassbox as gb

gb.set_num_threads(2)
a = gb.randn(256, 256)
x, w = gb.randn(2, 16, 20, 20), gb.randn(16, 16, 3, 3)
v = gb.randn(1 << 20)  # large enough for parallel_for to split it
def compute():
    return (np.asarray(a @ a), np.asarray(gb.nn.functional.conv2d(x, w)), np.asarray(gb.exp(v)), np.asarray(v.sum()))
want = compute()
pid = os.fork()
if pid == 0:  # a data-loader worker: the parent's OpenMP threads are not there
    signal.alarm(60)  # a hang ends as a SIGALRM exit
    got = compute()
    ok = all(np.allclose(g, v, rtol=1e-5, atol=1e-4) for g, v in zip(got, want))
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print("child exit", os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_multiplies_and_convolves_without_hanging():
    """GNU OpenMP's threads do not survive fork(): oneDNN's products and convolutions, and glassbox's
    own kernels (parallel_for runs on the same OpenMP team), run on one thread in a forked child
    instead of waiting forever for the parent's."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-c", FORK_CHILD], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    assert "child exit 0" in run.stdout, run.stdout + run.stderr
