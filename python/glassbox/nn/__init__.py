"""gb.nn: layers with parameters, as torch.nn has them (Module, Linear, Sequential, losses, ...)."""

from . import functional, init  # noqa: F401
from .module import Module, Parameter  # noqa: F401
from .layers import (  # noqa: F401
    GELU,
    ReLU,
    Sigmoid,
    Tanh,
    Dropout,
    Embedding,
    Identity,
    LayerNorm,
    Linear,
    Sequential,
    Conv2d,
    MaxPool2d,
    Flatten,
    Softmax,
)
from .losses import CrossEntropyLoss, MSELoss, L1Loss, BCELoss, BCEWithLogitsLoss, NLLLoss  # noqa: F401
