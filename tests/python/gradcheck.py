"""The shared gradient check: autograd's gradients against central finite differences in float64.

For an op f and float64 inputs x, with a random weighting v of the differentiable outputs, the
analytic d<v, f(x)>/dx from gb.autograd.grad must match (<v, f(x + e)> - <v, f(x - e)>) / 2e,
element by element. Inputs are NumPy arrays (or lists of them); tensors are made with from_numpy,
so a non-contiguous array gives a non-contiguous tensor, and perturbing the array perturbs the
tensor in place (on another device, `pytest --device cuda`, the tensors are copied again after each
perturbation). Outputs marked non-differentiable (indices, saved statistics) are left out of
both sides, and so are inputs the op declares no gradient for (targets, class weights).
"""

import numpy as np

import glassbox as gb
from devices import DEVICE, on_device, to_numpy


def _float_outputs(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [t for t in items if isinstance(t, gb.Tensor) and t.dtype in (gb.float32, gb.float64)]


def _weighted_sum(outputs, weights):
    return sum(float((to_numpy(o) * w).sum()) for o, w in zip(outputs, weights))


def _convert(arg, arrays, leaves):
    """NumPy arrays (also inside lists) become tensors; float64 ones are the inputs checked."""
    if isinstance(arg, np.ndarray):
        t = on_device(gb.from_numpy(arg))
        if arg.dtype == np.float64:
            arrays.append(arg)
            leaves.append(t)
        return t
    if isinstance(arg, (list, tuple)) and arg and all(isinstance(a, np.ndarray) for a in arg):
        return [_convert(a, arrays, leaves) for a in arg]
    if isinstance(arg, gb.Tensor):  # made by the sample itself (class targets)
        return on_device(arg)
    return arg


def gradcheck(fn, args, kwargs=None, eps=1e-6, atol=1e-5, rtol=1e-4, seed=0):
    """Checks fn(*args, **kwargs). Returns the number of input elements checked (0 when the
    forward result holds NaN: there is no gradient to check there)."""
    kwargs = kwargs or {}
    rng = np.random.default_rng(seed)
    arrays, leaves = [], []
    call_args = [_convert(a, arrays, leaves) for a in args]
    for t in leaves:
        t.requires_grad_(True)

    outputs = _float_outputs(fn(*call_args, **kwargs))
    assert outputs, "gradcheck: the op returned no floating-point tensor"
    if any(np.isnan(to_numpy(o)).any() for o in outputs):
        return 0
    chosen = [i for i, o in enumerate(outputs) if o.requires_grad]
    assert chosen, "gradcheck: no output requires grad (is the derivative missing?)"
    weights = [rng.standard_normal(outputs[i].shape) for i in chosen]
    grad_outputs = [on_device(gb.from_numpy(np.require(w, requirements="C"))) for w in weights]
    analytic = gb.autograd.grad([outputs[i] for i in chosen], leaves, grad_outputs, allow_unused=True)
    assert any(g is not None for g in analytic), "gradcheck: no input received a gradient"
    if any(g is not None and not np.isfinite(to_numpy(g)).all() for g in analytic):
        return 0  # a point where the derivative is infinite (std of a constant): nothing to compare

    def numeric_value():
        if DEVICE != "cpu":  # device tensors do not share the arrays' memory: copy the perturbation
            for a, t in zip(arrays, leaves):
                t.copy_(gb.from_numpy(a))
        out = _float_outputs(fn(*call_args, **kwargs))
        return _weighted_sum([out[i] for i in chosen], weights)

    checked = 0
    with gb.no_grad():
        for a, g in zip(arrays, analytic):
            if g is None:
                continue  # an input without a derivative (a target, a class weight)
            got = to_numpy(g)
            assert got.shape == a.shape, f"gradient shape {got.shape}, input shape {a.shape}"
            want = np.zeros(a.shape)
            for index in np.ndindex(a.shape):
                original = a[index]
                a[index] = original + eps
                plus = numeric_value()
                a[index] = original - eps
                minus = numeric_value()
                a[index] = original
                want[index] = (plus - minus) / (2 * eps)
                checked += 1
            np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)
    return checked
