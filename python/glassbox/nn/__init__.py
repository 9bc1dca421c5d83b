"""gb.nn: layers with parameters, as torch.nn has them (Module, Linear, Sequential, losses, ...)."""

from . import functional, init, utils  # noqa: F401
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
    ModuleList,
    Sequential,
    Conv2d,
    Conv3d,
    MaxPool2d,
    Flatten,
    Softmax,
)
from .activations import (  # noqa: F401
    CELU,
    ELU,
    GLU,
    SELU,
    CosineSimilarity,
    Dropout2d,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PairwiseDistance,
    PReLU,
    ReLU6,
    SiLU,
    Softmin,
    Softplus,
    Softsign,
    Tanhshrink,
)
from .attention import MultiheadAttention, TransformerEncoderLayer  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, RMSNorm  # noqa: F401
from .pooling import (  # noqa: F401
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    Conv1d,
    ConvTranspose2d,
    MaxPool1d,
    Upsample,
)
from .losses import (  # noqa: F401
    CrossEntropyLoss,
    MSELoss,
    L1Loss,
    BCELoss,
    BCEWithLogitsLoss,
    NLLLoss,
    SmoothL1Loss,
    HuberLoss,
    KLDivLoss,
)
