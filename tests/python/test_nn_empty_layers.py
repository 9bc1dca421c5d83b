"""Layers with zero-size dimensions construct as in PyTorch (the initialisers leave empty
weights alone instead of dividing by a fan of 0), and bad group counts raise ValueError."""

import warnings

import pytest

import glassbox as gb
from glassbox import nn


@pytest.mark.parametrize(
    "make,weight,bias",
    [
        (lambda: nn.Conv2d(0, 0, 3), (0, 0, 3, 3), (0,)),
        (lambda: nn.Conv2d(3, 0, 3), (0, 3, 3, 3), (0,)),
        (lambda: nn.Conv2d(0, 3, 3), (3, 0, 3, 3), (3,)),
        (lambda: nn.Conv2d(4, 4, 0), (4, 4, 0, 0), (4,)),
        (lambda: nn.Conv2d(3, 3, (0, 3)), (3, 3, 0, 3), (3,)),
        (lambda: nn.Linear(0, 0), (0, 0), (0,)),
        (lambda: nn.Linear(0, 3), (3, 0), (3,)),
        (lambda: nn.Linear(3, 0), (0, 3), (0,)),
    ],
)
def test_zero_size_layers_construct(make, weight, bias):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer = make()
    assert layer.weight.shape == weight and layer.bias.shape == bias
    if layer.bias.numel() and layer.weight.numel() == 0:
        assert layer.bias.tolist() == [0.0] * bias[0]  # no inputs: nothing to scale by


def test_zero_element_init_warns_and_leaves_the_tensor():
    t = gb.empty(0, 3)
    with pytest.warns(UserWarning, match="zero-element"):
        assert nn.init.kaiming_uniform_(t) is t
    with pytest.warns(UserWarning, match="zero-element"):
        nn.init.xavier_uniform_(gb.empty(3, 0))


def test_zero_size_layers_run():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = nn.Linear(0, 3)(gb.ones(2, 0))
    assert out.shape == (2, 3)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(groups=0), "groups must be a positive integer"),
        (dict(groups=-1), "groups must be a positive integer"),
        (dict(groups=3), "in_channels must be divisible by groups"),
    ],
)
def test_conv2d_checks_groups(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nn.Conv2d(4, 4, 3, **kwargs)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 6, 3, groups=4)
