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


def test_bad_counts():
    with pytest.raises(RuntimeError, match="positive number of threads"):
        gb.set_num_threads(0)
    with pytest.raises(TypeError):
        gb.set_num_threads("two")
