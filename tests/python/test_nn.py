"""gb.nn and gb.optim: modules, parameters, state dicts, and a small MLP trained with Adam on a
synthetic classification set to >= 95% training accuracy."""

import time

import numpy as np
import pytest

import glassbox as gb
from devices import DEVICE, to_numpy
from glassbox import nn
from glassbox.nn import functional as F


def test_module_bookkeeping():
    gb.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    names = [n for n, _ in model.named_parameters()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(p.requires_grad for p in model.parameters())
    assert isinstance(model[0].weight, nn.Parameter)
    assert model[0].weight.shape == (8, 4)
    state = model.state_dict()
    assert list(state) == names
    other = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    other.load_state_dict(state)
    x = gb.randn([5, 4])
    assert np.allclose(np.asarray(model(x).detach()), np.asarray(other(x).detach()))
    with pytest.raises(RuntimeError, match="missing keys"):
        other.load_state_dict({})
    assert model.train().training and not model.eval()[0].training
    assert "Linear(in_features=4, out_features=8, bias=True)" in repr(model)


def test_a_submodule_assigned_after_none_is_registered():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.shortcut = None
            self.shortcut = nn.Linear(2, 2)
            self.scale = None
            self.scale = nn.Parameter(gb.ones(2))

    block = Block()
    assert isinstance(block.shortcut, nn.Linear) and [n for n, _ in block.named_parameters()] == [
        "scale",
        "shortcut.weight",
        "shortcut.bias",
    ]


def test_losses_match_numpy():
    x = gb.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]])
    y = gb.tensor([2, 0])
    logits = np.asarray(x)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    assert np.isclose(F.cross_entropy(x, y).item(), -(logp[0, 2] + logp[1, 0]) / 2)
    a, b = gb.tensor([1.0, 2.0]), gb.tensor([0.0, 4.0])
    assert np.isclose(nn.MSELoss()(a, b).item(), 2.5)
    assert np.isclose(nn.MSELoss(reduction="sum")(a, b).item(), 5.0)


def make_blobs(n_per_class=200, classes=3, dim=2, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-4, 4, size=(classes, dim))
    x = np.concatenate([rng.normal(c, 0.7, size=(n_per_class, dim)) for c in centers]).astype(np.float32)
    y = np.repeat(np.arange(classes), n_per_class).astype(np.int64)
    return x, y


def test_mlp_trains_with_adam():
    gb.manual_seed(0)
    x_np, y_np = make_blobs()
    x, y = gb.tensor(x_np).to(DEVICE), gb.tensor(y_np).to(DEVICE)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3)).to(DEVICE)
    assert all(str(p.device).startswith(DEVICE) for p in model.parameters())
    opt = gb.optim.Adam(model.parameters(), lr=1e-2)
    start = time.perf_counter()
    losses = []
    for _ in range(200):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    elapsed = time.perf_counter() - start
    with gb.no_grad():
        predicted = to_numpy(model(x)).argmax(1)
    accuracy = (predicted == y_np).mean()
    assert losses[-1] < losses[0]
    assert accuracy >= 0.95, f"training accuracy {accuracy:.3f}"
    assert elapsed < 30, f"training took {elapsed:.1f} s"


def test_zero_grad_drops_gradients_or_zeroes_them_in_place():
    model = nn.Linear(3, 2)
    opt = gb.optim.SGD(model.parameters(), lr=0.1)
    model(gb.ones(4, 3)).sum().backward()
    held = model.weight.grad
    opt.zero_grad(set_to_none=False)  # the same tensors, now zeros: a reference sees them
    assert not to_numpy(held).any() and not to_numpy(model.weight.grad).any() and not to_numpy(model.bias.grad).any()
    model(gb.ones(4, 3)).sum().backward()  # accumulates into the zeroed tensors
    np.testing.assert_array_equal(to_numpy(model.weight.grad), np.full((2, 3), 4.0))
    model.zero_grad(set_to_none=False)
    assert not to_numpy(model.weight.grad).any()
    opt.zero_grad()
    assert model.weight.grad is None and model.bias.grad is None


def test_module_to_moves_parameters_and_buffers():
    model = nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3))
    model.register_buffer("scale", gb.ones(3))
    weight = model[0].weight if hasattr(model, "__getitem__") else model._modules["0"].weight
    assert model.to(gb.float64) is model
    assert all(p.dtype == gb.float64 and p.requires_grad for p in model.parameters())
    assert model.scale.dtype == gb.float64
    moved = model._modules["0"].weight
    assert moved is not weight and np.array_equal(to_numpy(moved), to_numpy(weight).astype(np.float64))
    assert model.cpu() is model and all(str(p.device) == "cpu" for p in model.parameters())


def test_sgd_momentum_and_weight_decay_step():
    p = nn.Parameter(gb.tensor([1.0, 2.0]))
    opt = gb.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.5)
    (p * p).sum().backward()
    opt.step()
    # g = 2p + 0.5p = 2.5p; first step: buffer = g
    assert np.allclose(np.asarray(p.detach()), [1 - 0.25, 2 - 0.5])
