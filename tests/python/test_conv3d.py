"""F.conv3d and nn.Conv3d (composed from conv2d) against a direct NumPy sum, by finite differences,
and against PyTorch where it is installed."""

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, from_numpy, to_numpy
from glassbox import nn
from glassbox.nn import functional as F
from gradcheck import gradcheck

rng = np.random.default_rng(11)


def np_conv3d(x, w, b, stride, padding, dilation, groups):
    """out[n, o, d, h, w] = b[o] + sum over the group's channels and the kernel taps."""
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    k = w.shape[2:]
    reach = [d * (kk - 1) + 1 for d, kk in zip(dilation, k)]
    size = [(x.shape[2 + i] - reach[i]) // stride[i] + 1 for i in range(3)]
    out = np.zeros((n, o) + tuple(size))
    for oc in range(o):
        g = oc // (o // groups)
        for pos in np.ndindex(*size):
            start = [pos[i] * stride[i] for i in range(3)]
            window = x[
                :,
                g * cg : (g + 1) * cg,
                start[0] : start[0] + reach[0] : dilation[0],
                start[1] : start[1] + reach[1] : dilation[1],
                start[2] : start[2] + reach[2] : dilation[2],
            ]
            out[(slice(None), oc) + pos] = (window * w[oc]).sum(axis=(1, 2, 3, 4)) + (0 if b is None else b[oc])
    return out


CASES = [
    ((2, 4, 5, 6, 5), (6, 4, 3, 2, 3), dict(stride=1, padding=0, dilation=1, groups=1)),
    ((1, 4, 7, 5, 6), (4, 2, 2, 3, 2), dict(stride=(2, 1, 2), padding=(1, 2, 0), dilation=(2, 1, 1), groups=2)),
    ((2, 3, 4, 4, 4), (3, 3, 1, 1, 1), dict(stride=3, padding=1, dilation=1, groups=1)),
]


@pytest.mark.parametrize("x_shape,w_shape,options", CASES, ids=["plain", "strided dilated grouped", "pointwise"])
def test_conv3d_matches_a_direct_sum(x_shape, w_shape, options):
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(w_shape[0])
    got = F.conv3d(from_numpy(x), from_numpy(w), from_numpy(b), **options)
    t = lambda v: [v] * 3 if isinstance(v, int) else list(v)  # noqa: E731
    want = np_conv3d(x, w, b, t(options["stride"]), t(options["padding"]), t(options["dilation"]), options["groups"])
    assert got.shape == want.shape and got.dtype == gb.float64
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10, atol=1e-10)


def test_conv3d_gradients_match_finite_differences():
    x, w, b = rng.standard_normal((1, 2, 3, 3, 4)), rng.standard_normal((2, 1, 2, 2, 2)), rng.standard_normal(2)
    checked = gradcheck(lambda a, c, d: F.conv3d(a, c, d, stride=(1, 2, 1), padding=1, groups=2), [x, w, b])
    assert checked == x.size + w.size + b.size


def test_conv3d_unbatched_same_padding_and_module():
    x = from_numpy(rng.standard_normal((2, 3, 4, 5)))
    w = from_numpy(rng.standard_normal((3, 2, 2, 3, 2)))
    assert F.conv3d(x, w, padding="same").shape == (3, 3, 4, 5)
    assert F.conv3d(x, w, padding="valid").shape == (3, 2, 2, 4)
    layer = nn.Conv3d(2, 4, (1, 3, 3), padding=(0, 1, 1)).to(gb.float64).to(DEVICE)
    y = layer(x.unsqueeze(0))
    assert y.shape == (1, 4, 3, 4, 5)
    y.sum().backward()
    assert layer.weight.grad.shape == (4, 2, 1, 3, 3) and layer.bias.grad.shape == (4,)


def test_conv3d_errors():
    x, w = gb.ones(1, 2, 3, 3, 3), gb.ones(2, 2, 2, 2, 2)
    with pytest.raises(RuntimeError, match="channels"):
        F.conv3d(x, gb.ones(2, 3, 2, 2, 2))
    with pytest.raises(RuntimeError, match="5-D weight"):
        F.conv3d(x, gb.ones(2, 2, 2, 2))
    with pytest.raises(RuntimeError, match="depth"):
        F.conv3d(x, gb.ones(2, 2, 4, 1, 1))
    with pytest.raises(RuntimeError, match="strided"):
        F.conv3d(x, w, stride=2, padding="same")
    with pytest.raises(TypeError, match="weight"):
        F.conv3d(x, [1.0])


def test_conv3d_matches_pytorch():
    torch = pytest.importorskip("torch")
    x, w, b = rng.standard_normal((2, 4, 6, 5, 7)), rng.standard_normal((6, 2, 3, 2, 3)), rng.standard_normal(6)
    options = dict(stride=(2, 1, 1), padding=(1, 0, 2), dilation=(1, 2, 1), groups=2)
    ours = [gb.tensor(a, requires_grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    y, t = F.conv3d(*ours, **options), torch.nn.functional.conv3d(*theirs, **options)
    np.testing.assert_allclose(y.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-10)
    weights = rng.standard_normal(tuple(t.shape))
    (y * gb.tensor(weights)).sum().backward()
    (t * torch.tensor(weights)).sum().backward()
    for a, c in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-10, atol=1e-10)
