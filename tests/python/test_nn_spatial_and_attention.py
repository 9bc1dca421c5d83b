"""gb.nn.functional's padding, resizing, 1-D and adaptive pooling, normalisation and attention, and
their modules: values against NumPy formulas, gradients by central differences in float64, and
where PyTorch is installed, the modules against PyTorch's from the same state dict."""

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, from_numpy, to_numpy
from glassbox import nn
from glassbox.nn import functional as F
from gradcheck import gradcheck

rng = np.random.default_rng(0)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


@pytest.mark.parametrize(
    "mode,np_mode", [("constant", "constant"), ("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]
)
def test_pad_matches_numpy(mode, np_mode):
    x = rng.standard_normal([2, 3, 4, 5])
    got = F.pad(from_numpy(x), (2, 1, 3, 0), mode=mode)
    np.testing.assert_array_equal(to_numpy(got), np.pad(x, [(0, 0), (0, 0), (3, 0), (2, 1)], mode=np_mode))
    assert gradcheck(lambda t: F.pad(t, (2, 1, 1, 2), mode=mode), [x[0]]) == 60


def test_pad_constant_value_crop_and_errors():
    x = rng.standard_normal([3, 4])
    got = F.pad(from_numpy(x), (-1, 2, 1, -2), value=7.0)
    want = np.pad(x[:-2, 1:], [(1, 0), (0, 2)], constant_values=7.0)
    np.testing.assert_array_equal(to_numpy(got), want)
    with pytest.raises(RuntimeError, match="smaller than the dimension"):
        F.pad(from_numpy(x), (4, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="even number"):
        F.pad(from_numpy(x), (1, 2, 3))
    with pytest.raises(NotImplementedError, match="mode"):
        F.pad(from_numpy(x), (1, 1), mode="mirror")


def test_interpolate_nearest_picks_floor_of_the_scaled_position():
    x = rng.standard_normal([1, 2, 5, 3])
    got = to_numpy(F.interpolate(from_numpy(x), size=(7, 4)))
    rows, cols = (np.arange(7) * 5 / 7).astype(int), (np.arange(4) * 3 / 4).astype(int)
    np.testing.assert_array_equal(got, x[:, :, rows][:, :, :, cols])
    got = to_numpy(F.interpolate(from_numpy(x), scale_factor=2))
    np.testing.assert_array_equal(got, x.repeat(2, 2).repeat(2, 3))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_reproduces_a_linear_ramp(mode):
    # Linear and cubic-convolution interpolation reproduce a linear function exactly where no tap is
    # clamped at the border: with align_corners=True, every output sits on the input's grid lines.
    h, w = 6, 5
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    ramp = (0.5 * ys - 1.25 * xs + 2.0)[None, None].astype(np.float64)
    out = to_numpy(F.interpolate(from_numpy(ramp), size=(11, 9), mode=mode, align_corners=True))
    oy, ox = np.meshgrid(np.arange(11) * (h - 1) / 10, np.arange(9) * (w - 1) / 8, indexing="ij")
    want = 0.5 * oy - 1.25 * ox + 2.0
    inner = (slice(None), slice(None), slice(2, -2), slice(2, -2)) if mode == "bicubic" else (Ellipsis,)
    np.testing.assert_allclose(out[inner], want[None, None][inner], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,align", [("bilinear", False), ("bilinear", True), ("bicubic", False), ("nearest", None)])
def test_interpolate_gradients(mode, align):
    x = rng.standard_normal([1, 1, 3, 4])
    assert gradcheck(lambda t: F.interpolate(t, size=(5, 3), mode=mode, align_corners=align), [x]) == 12


def test_interpolate_errors():
    x = from_numpy(rng.standard_normal([1, 1, 3, 4]))
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="bilinear"):
        F.interpolate(from_numpy(rng.standard_normal([1, 1, 3])), size=4, mode="bilinear")


def np_conv1d(x, w, b, stride, padding, dilation):
    x = np.pad(x, [(0, 0), (0, 0), (padding, padding)])
    k = w.shape[2]
    n_out = (x.shape[2] - dilation * (k - 1) - 1) // stride + 1
    out = np.zeros([x.shape[0], w.shape[0], n_out])
    for i in range(n_out):
        window = x[:, :, i * stride : i * stride + dilation * (k - 1) + 1 : dilation]
        out[:, :, i] = np.einsum("nck,ock->no", window, w)
    return out + b[None, :, None]


def test_conv1d_and_1d_pools_match_numpy():
    x, w, b = rng.standard_normal([2, 3, 11]), rng.standard_normal([4, 3, 3]), rng.standard_normal(4)
    got = F.conv1d(from_numpy(x), from_numpy(w), from_numpy(b), stride=2, padding=1, dilation=2)
    np.testing.assert_allclose(to_numpy(got), np_conv1d(x, w, b, 2, 1, 2), rtol=1e-12)
    assert gradcheck(lambda a, c, d: F.conv1d(a, c, d, padding=1), [x[:1, :, :6], w, b]) == 18 + 36 + 4
    windows = np.stack([x[:, :, i : i + 3] for i in range(0, 9, 2)], 2)
    np.testing.assert_array_equal(to_numpy(F.max_pool1d(from_numpy(x), 3, 2)), windows.max(3))
    np.testing.assert_allclose(to_numpy(F.avg_pool1d(from_numpy(x), 3, 2)), windows.mean(3), rtol=1e-12)
    values, indices = F.max_pool1d(from_numpy(x), 3, 2, return_indices=True)
    np.testing.assert_array_equal(to_numpy(indices), windows.argmax(3) + np.arange(0, 9, 2))


def test_conv_transpose_is_the_adjoint_of_conv():
    # <conv_transpose2d(y, w), x> == <y, conv2d(x, w)> for every x, y: the defining property, checked
    # with random tensors; output_padding restores the rows and columns the stride rounded away.
    for stride, padding, groups, dilation in ((2, 1, 1, 1), (1, 0, 2, 1), (3, 2, 1, 2)):
        x = rng.standard_normal([2, 4, 9, 8])
        w = rng.standard_normal([6, 4 // groups, 3, 3])
        y = to_numpy(F.conv2d(from_numpy(x), from_numpy(w), None, stride, padding, dilation, groups))
        y_probe = rng.standard_normal(y.shape)
        extra = [(n + 2 * padding - dilation * 2 - 1) % stride for n in x.shape[2:]]
        back = F.conv_transpose2d(from_numpy(y_probe), from_numpy(w), None, stride, padding, extra, groups, dilation)
        assert tuple(back.shape) == x.shape
        np.testing.assert_allclose((to_numpy(back) * x).sum(), (y_probe * y).sum(), rtol=1e-10)
    w = rng.standard_normal([2, 3, 2, 2])
    assert (
        gradcheck(
            lambda a, b: F.conv_transpose2d(a, b, stride=2, output_padding=1), [rng.standard_normal([1, 2, 2, 3]), w]
        )
        == 12 + 24
    )
    layer = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1).to(DEVICE)
    assert tuple(layer(gb.randn(1, 4, 5, 5, device=DEVICE)).shape) == (1, 6, 10, 10)
    x1 = rng.standard_normal([2, 3, 5])
    w1 = rng.standard_normal([3, 2, 3])
    got = F.conv_transpose1d(from_numpy(x1), from_numpy(w1), stride=2)
    want = F.conv_transpose2d(from_numpy(x1[:, :, None]), from_numpy(w1[:, :, None]), stride=(1, 2))
    np.testing.assert_allclose(to_numpy(got), to_numpy(want)[:, :, 0], rtol=1e-12)


def np_adaptive(x, out, reduce):
    h, w = x.shape[-2:]
    res = np.zeros(x.shape[:-2] + tuple(out))
    for i in range(out[0]):
        for j in range(out[1]):
            y0, y1 = (i * h) // out[0], -(-(i + 1) * h // out[0])
            x0, x1 = (j * w) // out[1], -(-(j + 1) * w // out[1])
            res[..., i, j] = reduce(x[..., y0:y1, x0:x1], axis=(-2, -1))
    return res


def test_adaptive_pools_match_numpy():
    x = rng.standard_normal([2, 3, 7, 5])
    for out in ([3, 2], [1, 1], [7, 5], [4, 4]):
        np.testing.assert_allclose(
            to_numpy(F.adaptive_avg_pool2d(from_numpy(x), out)), np_adaptive(x, out, np.mean), rtol=1e-12
        )
        np.testing.assert_array_equal(to_numpy(F.adaptive_max_pool2d(from_numpy(x), out)), np_adaptive(x, out, np.max))
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, [3, 2]), [x[:1, :1]]) == 35
    assert gradcheck(lambda t: F.adaptive_max_pool2d(t, [3, 2]), [x[:1, :1]]) == 35
    np.testing.assert_allclose(
        to_numpy(nn.AdaptiveAvgPool2d(1)(from_numpy(x))), x.mean((2, 3), keepdims=True), rtol=1e-12
    )


def test_max_unpool2d_puts_values_back():
    x = rng.standard_normal([2, 3, 4, 6])
    values, indices = F.max_pool2d(from_numpy(x), 2, return_indices=True)
    out = to_numpy(F.max_unpool2d(values, indices, 2))
    assert out.shape == x.shape
    kept = out != 0
    np.testing.assert_array_equal(out[kept], x[kept])
    flat_indices = to_numpy(indices).reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(out.reshape(2, 3, -1), flat_indices, 2), to_numpy(values).reshape(2, 3, -1)
    )
    assert gradcheck(lambda v: F.max_unpool2d(v, indices, 2), [to_numpy(values).copy()]) == values.numel()


def test_batch_norm_training_and_running_statistics():
    x, weight, bias = rng.standard_normal([4, 3, 5]) * 2 + 1, rng.standard_normal(3), rng.standard_normal(3)
    mean, var = np.zeros(3), np.ones(3)
    running_mean, running_var = from_numpy(mean.copy()), from_numpy(var.copy())
    got = F.batch_norm(from_numpy(x), running_mean, running_var, from_numpy(weight), from_numpy(bias), True, 0.1)
    m, v = x.mean((0, 2)), x.var((0, 2))
    want = (x - m[None, :, None]) / np.sqrt(v[None, :, None] + 1e-5) * weight[None, :, None] + bias[None, :, None]
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(running_mean), 0.9 * mean + 0.1 * m, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(running_var), 0.9 * var + 0.1 * v * 20 / 19, rtol=1e-12)
    evaluated = F.batch_norm(from_numpy(x), running_mean, running_var)
    rm, rv = to_numpy(running_mean)[None, :, None], to_numpy(running_var)[None, :, None]
    np.testing.assert_allclose(to_numpy(evaluated), (x - rm) / np.sqrt(rv + 1e-5), rtol=1e-10)
    stats = lambda: (from_numpy(np.zeros(3)), from_numpy(np.ones(3)))  # noqa: E731
    assert gradcheck(lambda a, w, b: F.batch_norm(a, *stats(), w, b, True), [x, weight, bias]) == 66
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(from_numpy(x[:1, :, :1]), None, None, training=True)


def test_batchnorm_module_tracks_and_uses_running_statistics():
    layer = nn.BatchNorm2d(3).to(gb.float64).to(DEVICE)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert list(layer.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    batches = [rng.standard_normal([4, 3, 2, 2]) + 3 for _ in range(3)]
    mean = np.zeros(3)
    for b in batches:
        layer(from_numpy(b))
        mean = 0.9 * mean + 0.1 * b.mean((0, 2, 3))
    np.testing.assert_allclose(to_numpy(layer.running_mean), mean, rtol=1e-12)
    assert layer.num_batches_tracked.item() == 3
    x = rng.standard_normal([2, 3, 2, 2])
    rv = to_numpy(layer.running_var)
    want = (x - mean[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(to_numpy(layer.eval()(from_numpy(x))), want, rtol=1e-10)
    with pytest.raises(ValueError, match="expected 4D input"):
        layer(from_numpy(x[0]))


def test_group_and_rms_norm_match_numpy():
    x, weight, bias = rng.standard_normal([2, 6, 4]), rng.standard_normal(6), rng.standard_normal(6)
    g = x.reshape(2, 3, -1)
    norm = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(x.shape)
    got = F.group_norm(from_numpy(x), 3, from_numpy(weight), from_numpy(bias))
    np.testing.assert_allclose(to_numpy(got), norm * weight[None, :, None] + bias[None, :, None], rtol=1e-10)
    assert gradcheck(lambda a, w, b: F.group_norm(a, 3, w, b), [x, weight, bias]) == 60
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(from_numpy(x), 4)
    w4 = rng.standard_normal(4)
    got = F.rms_norm(from_numpy(x), [4], from_numpy(w4), eps=1e-6)
    np.testing.assert_allclose(to_numpy(got), x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w4, rtol=1e-12)
    assert gradcheck(lambda a, w: F.rms_norm(a, [4], w), [x[0], w4]) == 28
    np.testing.assert_allclose(
        to_numpy(nn.RMSNorm(4).to(DEVICE)(from_numpy(x.astype(np.float32)))),
        x / np.sqrt((x * x).mean(-1, keepdims=True) + 2.0**-23),
        rtol=1e-5,
    )


def np_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + mask
    return np_softmax(scores) @ v


def test_scaled_dot_product_attention_matches_numpy():
    q, k, v = rng.standard_normal([2, 3, 4, 8]), rng.standard_normal([2, 3, 6, 8]), rng.standard_normal([2, 3, 6, 8])
    sdpa = F.scaled_dot_product_attention
    np.testing.assert_allclose(to_numpy(sdpa(*map(from_numpy, (q, k, v)))), np_attention(q, k, v), rtol=1e-10)
    causal = np.where(np.tril(np.ones([4, 6])) > 0, 0.0, -np.inf)
    got = sdpa(*map(from_numpy, (q, k, v)), is_causal=True)
    np.testing.assert_allclose(to_numpy(got), np_attention(q, k, v, causal), rtol=1e-10)
    keep = rng.random([4, 6]) > 0.4
    keep[:, 0] = True
    got = sdpa(*map(from_numpy, (q, k, v)), attn_mask=from_numpy(keep))
    np.testing.assert_allclose(to_numpy(got), np_attention(q, k, v, np.where(keep, 0.0, -np.inf)), rtol=1e-10)
    got = sdpa(from_numpy(q), from_numpy(k[:, :1]), from_numpy(v[:, :1]), enable_gqa=True)
    np.testing.assert_allclose(to_numpy(got), np_attention(q, k[:, :1], v[:, :1]), rtol=1e-10)
    assert gradcheck(lambda a, b, c: sdpa(a, b, c, is_causal=True), [q[:1, :1], k[:1, :1], v[:1, :1]]) == 32 + 48 + 48
    with pytest.raises(RuntimeError, match="either attn_mask or is_causal"):
        sdpa(*map(from_numpy, (q, k, v)), attn_mask=from_numpy(keep), is_causal=True)


def test_multihead_attention_matches_its_formula():
    layer = nn.MultiheadAttention(8, 2, batch_first=True).to(gb.float64).to(DEVICE)
    x, memory = rng.standard_normal([3, 4, 8]), rng.standard_normal([3, 5, 8])
    padding = np.zeros([3, 5], bool)
    padding[1, 3:] = True
    out, weights = layer(from_numpy(x), from_numpy(memory), from_numpy(memory), key_padding_mask=from_numpy(padding))
    w, b = to_numpy(layer.in_proj_weight), to_numpy(layer.in_proj_bias)

    def heads(t, i):
        y = t @ w[8 * i : 8 * (i + 1)].T + b[8 * i : 8 * (i + 1)]
        return y.reshape(y.shape[0], y.shape[1], 2, 4).transpose(0, 2, 1, 3)

    mask = np.where(padding, -np.inf, 0.0)[:, None, None, :]
    scores = heads(x, 0) @ heads(memory, 1).transpose(0, 1, 3, 2) / 2.0 + mask
    probs = np_softmax(scores)
    merged = (probs @ heads(memory, 2)).transpose(0, 2, 1, 3).reshape(3, 4, 8)
    want = merged @ to_numpy(layer.out_proj.weight).T + to_numpy(layer.out_proj.bias)
    np.testing.assert_allclose(to_numpy(out), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(weights), probs.mean(1), rtol=1e-10)
    assert sorted(layer.state_dict()) == ["in_proj_bias", "in_proj_weight", "out_proj.bias", "out_proj.weight"]


def test_transformer_encoder_layer_is_attention_then_feed_forward():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).to(gb.float64).to(DEVICE)
    x = from_numpy(rng.standard_normal([2, 3, 8])).requires_grad_(True)
    out = layer(x)
    attended = layer.norm1(x + layer.self_attn(x, x, x, need_weights=False)[0])
    want = layer.norm2(attended + layer.linear2(F.relu(layer.linear1(attended))))
    np.testing.assert_allclose(to_numpy(out), to_numpy(want), rtol=1e-12)
    out.sum().backward()
    assert x.grad is not None and all(p.grad is not None for p in layer.parameters())


def test_cross_entropy_k_dimensional_and_class_probabilities():
    logits = rng.standard_normal([2, 5, 3, 4])
    target = rng.integers(0, 5, [2, 3, 4])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    picked = -np.take_along_axis(logp, target[:, None], 1)[:, 0]
    got = F.cross_entropy(from_numpy(logits), from_numpy(target), reduction="none")
    np.testing.assert_allclose(to_numpy(got), picked, rtol=1e-12)
    np.testing.assert_allclose(F.nll_loss(from_numpy(logp), from_numpy(target)).item(), picked.mean(), rtol=1e-12)
    probs = np_softmax(rng.standard_normal([2, 5, 3, 4]), 1)
    smoothed = probs * 0.8 + 0.2 / 5
    got = F.cross_entropy(from_numpy(logits), from_numpy(probs), label_smoothing=0.2)
    np.testing.assert_allclose(got.item(), -(smoothed * logp).sum(1).mean(), rtol=1e-12)
    assert gradcheck(lambda a: F.cross_entropy(a, from_numpy(probs)), [logits]) == logits.size
    with pytest.raises(RuntimeError, match="class-probability targets"):
        F.cross_entropy(from_numpy(logits), from_numpy(probs[:, :, 0]))


def test_modules_match_pytorch_from_the_same_state_dict():
    torch = pytest.importorskip("torch")
    pairs = [
        (torch.nn.MultiheadAttention(8, 2, batch_first=True), nn.MultiheadAttention(8, 2, batch_first=True), [3, 4, 8]),
        (
            torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
            [3, 4, 8],
        ),
        (torch.nn.BatchNorm2d(3), nn.BatchNorm2d(3), [4, 3, 2, 2]),
        (torch.nn.GroupNorm(3, 6), nn.GroupNorm(3, 6), [2, 6, 4]),
        (
            torch.nn.Upsample(scale_factor=2, mode="bilinear"),
            nn.Upsample(scale_factor=2, mode="bilinear"),
            [1, 2, 3, 3],
        ),
    ]
    for theirs, ours, shape in pairs:
        theirs = theirs.double()
        ours.to(gb.float64).to(DEVICE).load_state_dict(
            {k: gb.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
        )
        x = rng.standard_normal(shape)
        args = (x, x, x) if isinstance(ours, nn.MultiheadAttention) else (x,)
        want = theirs(*[torch.tensor(a) for a in args])
        got = ours(*[from_numpy(a) for a in args])
        want, got = (want[0], got[0]) if isinstance(want, tuple) else (want, got)
        np.testing.assert_allclose(to_numpy(got), want.detach().numpy(), rtol=1e-10, atol=1e-12)
