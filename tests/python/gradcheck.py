"""The shared gradient check: autograd's gradients against central finite differences in float64.

For an op f and float64 inputs x, with a random weighting v of the outputs, the analytic
d<v, f(x)>/dx from gb.autograd.grad must match (<v, f(x + e)> - <v, f(x - e)>) / 2e, element by
element. Inputs are NumPy arrays; tensors are made with from_numpy, so a non-contiguous array
gives a non-contiguous tensor, and perturbing the array perturbs the tensor in place.
"""
import numpy as np

import glassbox as gb


def _outputs(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [t for t in items if isinstance(t, gb.Tensor) and t.dtype in (gb.float32, gb.float64)]


def _weighted_sum(outputs, weights):
    return sum(float((np.asarray(o) * w).sum()) for o, w in zip(outputs, weights))


def gradcheck(fn, args, kwargs=None, eps=1e-6, atol=1e-5, rtol=1e-4, seed=0):
    """Checks fn(*args, **kwargs); float64 arrays in args are the differentiable inputs.
    Returns the number of input elements checked."""
    kwargs = kwargs or {}
    rng = np.random.default_rng(seed)
    arrays = [a for a in args if isinstance(a, np.ndarray) and a.dtype == np.float64]
    tensors = {id(a): gb.from_numpy(a) for a in args if isinstance(a, np.ndarray)}
    call_args = [tensors[id(a)] if isinstance(a, np.ndarray) else a for a in args]
    leaves = [tensors[id(a)] for a in arrays]
    for t in leaves:
        t.requires_grad_(True)

    outputs = _outputs(fn(*call_args, **kwargs))
    assert outputs, "gradcheck: the op returned no floating-point tensor"
    weights = [rng.standard_normal(o.shape) for o in outputs]
    differentiable = [o for o in outputs if o.requires_grad]
    assert differentiable, "gradcheck: no output requires grad (is the derivative missing?)"
    grad_outputs = [gb.from_numpy(np.require(w, requirements="C")) for o, w in zip(outputs, weights) if o.requires_grad]
    analytic = gb.autograd.grad(differentiable, leaves, grad_outputs, allow_unused=True)

    checked = 0
    with gb.no_grad():
        for a, t, g in zip(arrays, leaves, analytic):
            got = np.zeros(a.shape) if g is None else np.asarray(g)
            assert got.shape == a.shape, f"gradient shape {got.shape}, input shape {a.shape}"
            want = np.zeros(a.shape)
            for index in np.ndindex(a.shape):
                original = a[index]
                a[index] = original + eps
                plus = _weighted_sum(_outputs(fn(*call_args, **kwargs)), weights)
                a[index] = original - eps
                minus = _weighted_sum(_outputs(fn(*call_args, **kwargs)), weights)
                a[index] = original
                want[index] = (plus - minus) / (2 * eps)
                checked += 1
            np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)
    return checked
