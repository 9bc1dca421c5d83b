"""Every differentiable operator of the op table passes the central-difference gradient check in
float64, on the table's samples (0-d, broadcast and non-contiguous inputs included)."""

import zlib

import numpy as np
import pytest

from gradcheck import gradcheck
from optable import ALL

CASES = [pytest.param(info, id=info.name) for info in ALL if info.differentiable]


@pytest.mark.parametrize("info", CASES)
def test_gradient_matches_finite_differences(info):
    rng = np.random.default_rng(zlib.crc32(info.name.encode()))  # str hash() differs per process
    checked = 0
    for sample in info.samples(rng, "float64"):
        flat = [x for a in sample.args for x in (a if isinstance(a, (list, tuple)) else [a])]
        if any(isinstance(a, np.ndarray) and a.size == 0 for a in flat):
            continue  # nothing to differentiate
        for a in flat:
            # Forward samples may hold exactly representable values with ties (max, relu at 0, ...),
            # where the gradient is not defined. A jitter of distinct steps within +-1e-3 moves them
            # off those points and keeps equal values further apart than the finite difference's eps.
            if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.size:
                steps = rng.permutation(a.size).reshape(a.shape)
                a += (steps / a.size - 0.5) * 2e-3
        try:  # perturbs the sample's arrays in place (non-contiguous ones keep their layout)
            checked += gradcheck(info.op, list(sample.args), sample.kwargs)
        except AssertionError as e:
            raise AssertionError(f"{info.name} [{sample.name}]: {e}") from None
    assert checked > 0, f"{info.name}: no sample had an element to check"
