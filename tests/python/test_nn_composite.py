"""gb.nn.functional's composite activations, losses and distances, their modules, gradient clipping,
learning-rate schedules and optimizer state dicts: values against NumPy formulas, gradients by
central differences in float64, and, where PyTorch is installed, against PyTorch itself."""

import math

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, from_numpy, to_numpy
from glassbox import nn, optim
from glassbox.nn import functional as F
from gradcheck import gradcheck

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def np_softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(-np.abs(beta * x))) / beta + np.maximum(x, 0))


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name -> (F call, NumPy reference)
ACTIVATIONS = {
    "elu": (lambda x: F.elu(x, alpha=0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(np.minimum(x, 0)))),
    "selu": (F.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
    "celu": (lambda x: F.celu(x, 1.5), lambda x: np.where(x > 0, x, 1.5 * np.expm1(np.minimum(x, 0) / 1.5))),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), lambda x: np_softplus(x, 2.0, 5.0)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "mish": (F.mish, lambda x: x * np.tanh(np_softplus(x))),
    "logsigmoid": (F.logsigmoid, lambda x: -np_softplus(-x)),
}


def sample(shape, seed=0, scale=4.0):
    """Values away from the kinks (0, ±3, 6, the bounds) so finite differences do not straddle one."""
    x = np.random.default_rng(seed).uniform(-scale, scale, shape)
    for kink in (0.0, -3.0, 3.0, 6.0, -0.5, 2.0, 2.5):
        x = np.where(np.abs(x - kink) < 1e-2, x + 0.05, x)
    return x


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_match_numpy(name):
    fn, ref = ACTIVATIONS[name]
    for x in (sample([4, 5]), sample([]), np.zeros([0, 3]), sample([5, 4]).T, np.array([-800.0, 800.0])):
        got = fn(from_numpy(np.array(x, dtype=np.float64)))
        assert got.dtype == gb.float64 and tuple(got.shape) == x.shape
        np.testing.assert_allclose(to_numpy(got), ref(x), rtol=1e-12, atol=1e-12)
    x32 = sample([64], seed=1).astype(np.float32)
    np.testing.assert_allclose(to_numpy(fn(from_numpy(x32))), ref(x32.astype(np.float64)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradients(name):
    fn, _ = ACTIVATIONS[name]
    assert gradcheck(fn, [sample([3, 4], seed=2)]) == 12


def test_large_inputs_give_finite_gradients():
    # The discarded branch of `where` would overflow (exp(800)); the gradient must stay finite.
    x = from_numpy(np.array([-800.0, -1.0, 1.0, 800.0])).requires_grad_(True)
    for fn in (F.elu, F.selu, F.celu, F.softplus, F.logsigmoid, F.mish):
        (g,) = gb.autograd.grad(fn(x).sum(), [x])
        assert np.isfinite(to_numpy(g)).all(), fn.__name__


def test_smooth_functions_have_their_derivative_at_zero():
    x = from_numpy(np.array([0.0])).requires_grad_(True)
    for fn, want in ((F.softplus, 0.5), (F.logsigmoid, 0.5), (F.mish, 0.6), (F.elu, 1.0), (F.softsign, 1.0)):
        (g,) = gb.autograd.grad(fn(x).sum(), [x])
        np.testing.assert_allclose(to_numpy(g), [want], rtol=1e-12, err_msg=fn.__name__)


def test_bound_gradients_are_zero_on_the_bounds_as_pytorch_has_them():
    x = from_numpy(np.array([-1.0, 0.0, 0.5, 1.0, 6.0])).requires_grad_(True)
    (g,) = gb.autograd.grad(F.hardtanh(x).sum(), [x])
    np.testing.assert_array_equal(to_numpy(g), [0, 1, 1, 0, 0])
    (g,) = gb.autograd.grad(F.relu6(x).sum(), [x])
    np.testing.assert_array_equal(to_numpy(g), [0, 0, 1, 1, 0])


def test_glu_prelu_softmin():
    x = sample([2, 6, 3])
    got = F.glu(from_numpy(x), dim=1)
    np.testing.assert_allclose(to_numpy(got), x[:, :3] * np_sigmoid(x[:, 3:]), rtol=1e-12)
    assert gradcheck(lambda t: F.glu(t, 1), [x]) == x.size
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(from_numpy(sample([2, 5])))

    w = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    got = F.prelu(from_numpy(x), from_numpy(w))
    np.testing.assert_allclose(to_numpy(got), np.where(x > 0, x, x * w[None, :, None]), rtol=1e-12)
    assert gradcheck(F.prelu, [x, w]) == x.size + w.size
    with pytest.raises(RuntimeError, match="channel size"):
        F.prelu(from_numpy(x), from_numpy(np.ones(4)))

    e = np.exp(-x)
    np.testing.assert_allclose(to_numpy(F.softmin(from_numpy(x), dim=1)), e / e.sum(1, keepdims=True), rtol=1e-12)


def test_losses_match_numpy():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-2, 2, [4, 5]), rng.uniform(-2, 2, [4, 5])
    d = np.abs(a - b)
    for beta in (0.0, 0.5, 1.0):
        want = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
        got = F.smooth_l1_loss(from_numpy(a), from_numpy(b), reduction="none", beta=beta)
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12)
        np.testing.assert_allclose(F.smooth_l1_loss(from_numpy(a), from_numpy(b), beta=beta).item(), want.mean())
    want = np.where(d < 0.7, 0.5 * d * d, 0.7 * (d - 0.35))
    np.testing.assert_allclose(
        F.huber_loss(from_numpy(a), from_numpy(b), reduction="sum", delta=0.7).item(), want.sum()
    )
    assert gradcheck(lambda x, y: F.huber_loss(x, y, delta=0.7), [a, b]) == 40
    assert gradcheck(lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), [a, b]) == 40

    logp = np.log(rng.dirichlet(np.ones(5), 4))
    target = rng.dirichlet(np.ones(5), 4)
    target[0, 1] = 0.0  # a zero target contributes 0, not NaN
    pointwise = np.where(target > 0, target * (np.log(np.where(target > 0, target, 1)) - logp), 0.0)
    got = F.kl_div(from_numpy(logp), from_numpy(target), reduction="batchmean")
    np.testing.assert_allclose(got.item(), pointwise.sum() / 4, rtol=1e-12)
    got = F.kl_div(from_numpy(logp), from_numpy(np.log(target + 1e-300)), reduction="sum", log_target=True)
    np.testing.assert_allclose(got.item(), pointwise.sum(), rtol=1e-9)
    assert gradcheck(lambda x: F.kl_div(x, from_numpy(target), reduction="batchmean"), [logp]) == 20
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(from_numpy(logp), from_numpy(target))
    with pytest.raises(ValueError, match="reduction"):
        F.huber_loss(from_numpy(a), from_numpy(b), reduction="avg")
    with pytest.warns(UserWarning, match="broadcasts"):
        F.smooth_l1_loss(from_numpy(a), from_numpy(b[0]))


def test_normalize_and_distances_match_numpy():
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal([3, 6]), rng.standard_normal([3, 6])
    np.testing.assert_allclose(
        to_numpy(F.normalize(from_numpy(x), dim=1)), x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-12
    )
    np.testing.assert_allclose(
        to_numpy(F.normalize(from_numpy(x), p=1, dim=0)), x / np.abs(x).sum(0, keepdims=True), rtol=1e-12
    )
    cos = (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)
    np.testing.assert_allclose(to_numpy(F.cosine_similarity(from_numpy(x), from_numpy(y))), cos, rtol=1e-12)
    np.testing.assert_allclose(  # broadcasting one row against three
        to_numpy(F.cosine_similarity(from_numpy(x), from_numpy(y[:1]))),
        (x * y[:1]).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y[0]),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        to_numpy(F.pairwise_distance(from_numpy(x), from_numpy(y))), np.linalg.norm(x - y + 1e-6, axis=1), rtol=1e-12
    )
    assert gradcheck(F.cosine_similarity, [x, y]) == 36
    assert gradcheck(lambda a: F.normalize(a, dim=1), [x]) == 18
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, p=3.0), [x, y]) == 36
    with pytest.raises(RuntimeError, match="must match the size"):
        F.cosine_similarity(from_numpy(x), from_numpy(y[:2]))


def test_modules_call_their_functions():
    x = from_numpy(sample([2, 4, 3, 3], seed=5))
    pairs = [
        (nn.ELU(alpha=0.5), lambda t: F.elu(t, 0.5)),
        (nn.LeakyReLU(0.2), lambda t: F.leaky_relu(t, 0.2)),
        (nn.Hardtanh(-2.0, 2.0), lambda t: F.hardtanh(t, -2.0, 2.0)),
        (nn.Softplus(beta=3.0), lambda t: F.softplus(t, 3.0)),
        (nn.LogSoftmax(dim=1), lambda t: F.log_softmax(t, 1)),
        (nn.Softmin(dim=1), lambda t: F.softmin(t, 1)),
        (nn.GLU(dim=1), lambda t: F.glu(t, 1)),
        (nn.SiLU(), F.silu),
        (nn.Mish(), F.mish),
    ]
    for module, fn in pairs:
        np.testing.assert_array_equal(to_numpy(module(x)), to_numpy(fn(x)))
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.ELU(inplace=True)) == "ELU(alpha=1.0, inplace=True)"
    with pytest.raises(TypeError, match="unexpected keyword argument 'slope'"):
        nn.LeakyReLU(slope=0.2)
    prelu = nn.PReLU(4).to(DEVICE)
    assert [n for n, _ in prelu.named_parameters()] == ["weight"]
    np.testing.assert_allclose(to_numpy(prelu.weight), [0.25] * 4)
    assert tuple(prelu(x).shape) == (2, 4, 3, 3)

    drop = nn.Dropout2d(0.5)
    gb.manual_seed(0)
    y = to_numpy(drop(gb.ones(8, 16, 2, 2, device=DEVICE)))
    per_channel = y.reshape(8, 16, 4)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(2) == per_channel.max(2)).all(), "a channel is dropped or kept as a whole"
    assert 0 < (per_channel[:, :, 0] == 0).mean() < 1
    np.testing.assert_array_equal(to_numpy(drop.eval()(x)), to_numpy(x))


def test_clip_grad_norm_and_value():
    rng = np.random.default_rng(6)
    grads = [rng.standard_normal(s) for s in ([3, 4], [5], [2, 2])]
    params = [from_numpy(np.zeros_like(g)).requires_grad_(True) for g in grads]
    for p, g in zip(params, grads):
        p.grad = from_numpy(g.copy())
    total = math.sqrt(sum((g * g).sum() for g in grads))
    got = nn.utils.clip_grad_norm_(params, 1.0)
    np.testing.assert_allclose(got.item(), total, rtol=1e-12)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(to_numpy(p.grad), g * (1.0 / (total + 1e-6)), rtol=1e-12)
    # Already small enough: unchanged.
    before = [to_numpy(p.grad).copy() for p in params]
    nn.utils.clip_grad_norm_(params, 10.0, norm_type=1)
    for p, b in zip(params, before):
        np.testing.assert_array_equal(to_numpy(p.grad), b)
    inf_norm = nn.utils.clip_grad_norm_(params, 10.0, norm_type="inf")
    np.testing.assert_allclose(inf_norm.item(), max(np.abs(b).max() for b in before))
    nn.utils.clip_grad_value_(params, 0.05)
    for p, b in zip(params, before):
        np.testing.assert_array_equal(to_numpy(p.grad), np.clip(b, -0.05, 0.05))
    params[0].grad = from_numpy(np.array([[np.inf] * 4] * 3))
    with pytest.raises(RuntimeError, match="error_if_nonfinite"):
        nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def lrs(scheduler_of, steps=7, lr=0.1):
    opt = optim.SGD([gb.zeros(1, requires_grad=True)], lr=lr)
    scheduler = scheduler_of(opt)
    out = [opt.param_groups[0]["lr"]]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        out.append(scheduler.get_last_lr()[0])
        assert out[-1] == opt.param_groups[0]["lr"]
    return out


SCHEDULES = {
    "StepLR": (lambda o: optim.lr_scheduler.StepLR(o, 3, gamma=0.5), lambda e: 0.1 * 0.5 ** (e // 3)),
    "MultiStepLR": (lambda o: optim.lr_scheduler.MultiStepLR(o, [2, 5]), lambda e: 0.1 * 0.1 ** ((e >= 2) + (e >= 5))),
    "ExponentialLR": (lambda o: optim.lr_scheduler.ExponentialLR(o, 0.9), lambda e: 0.1 * 0.9**e),
    "CosineAnnealingLR": (
        lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
        lambda e: 0.01 + 0.09 * (1 + math.cos(math.pi * e / 5)) / 2,
    ),
    "LambdaLR": (lambda o: optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)), lambda e: 0.1 / (e + 1)),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_lr_schedules(name):
    make, formula = SCHEDULES[name]
    np.testing.assert_allclose(lrs(make), [formula(e) for e in range(8)], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_lr_schedules_match_pytorch(name):
    torch = pytest.importorskip("torch")
    make, _ = SCHEDULES[name]
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    args = {
        "StepLR": dict(step_size=3, gamma=0.5),
        "MultiStepLR": dict(milestones=[2, 5]),
        "ExponentialLR": dict(gamma=0.9),
        "CosineAnnealingLR": dict(T_max=5, eta_min=0.01),
        "LambdaLR": dict(lr_lambda=lambda e: 1 / (e + 1)),
    }[name]
    scheduler = getattr(torch.optim.lr_scheduler, name)(opt, **args)
    want = [opt.param_groups[0]["lr"]]
    for _ in range(7):
        opt.step()
        scheduler.step()
        want.append(scheduler.get_last_lr()[0])
    np.testing.assert_allclose(lrs(make), want, rtol=1e-12)


def test_scheduler_resumes_from_its_state_dict():
    make, formula = SCHEDULES["StepLR"]
    opt = optim.SGD([gb.zeros(1, requires_grad=True)], lr=0.1)
    first = make(opt)
    for _ in range(4):
        first.step()
    second = make(optim.SGD([gb.zeros(1, requires_grad=True)], lr=0.1))
    second.load_state_dict(first.state_dict())
    second.step()
    assert second.get_last_lr() == [formula(5)]


def test_optimizer_state_dict_resumes_training_exactly():
    def model_and_data():
        gb.manual_seed(7)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        return model, gb.randn(16, 4), gb.randn(16, 1)

    def train(model, opt, x, y, steps):
        for _ in range(steps):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()

    model, x, y = model_and_data()
    opt = optim.Adam(model.parameters(), lr=0.01)
    train(model, opt, x, y, 6)
    straight = [to_numpy(p).copy() for p in model.parameters()]

    model, x, y = model_and_data()
    opt = optim.Adam(model.parameters(), lr=0.01)
    train(model, opt, x, y, 3)
    saved_model, saved_opt = model.state_dict(), opt.state_dict()
    assert sorted(saved_opt["state"]) == [0, 1, 2, 3] and saved_opt["param_groups"][0]["params"] == [0, 1, 2, 3]

    resumed, _, _ = model_and_data()
    resumed.load_state_dict(saved_model)
    opt2 = optim.Adam(resumed.parameters(), lr=0.5)
    opt2.load_state_dict(saved_opt)
    assert opt2.param_groups[0]["lr"] == 0.01
    train(resumed, opt2, x, y, 3)
    for p, want in zip(resumed.parameters(), straight):
        np.testing.assert_array_equal(to_numpy(p), want)
    with pytest.raises(ValueError, match="parameter group"):
        optim.Adam(list(resumed.parameters())[:2]).load_state_dict(saved_opt)


@pytest.mark.parametrize(
    "call",
    [
        lambda: F.elu([1.0, 2.0]),
        lambda: F.cosine_similarity(gb.ones(2, 3), 3),
        lambda: F.scaled_dot_product_attention(gb.ones(2, 3), gb.ones(2, 3), "v"),
        lambda: F.batch_norm(gb.ones(2, 3), None, None, weight=1.0, training=True),
        lambda: F.max_unpool2d(gb.ones(1, 1, 2, 2), [0, 1], 2),
        lambda: F.pad((1, 2), (1, 1)),
    ],
)
def test_composites_name_a_non_tensor_argument_with_type_error(call):
    with pytest.raises(TypeError, match=r"\(\): argument '\w+' must be Tensor, not \w+"):
        call()
