"""Activation modules: each stores its arguments and calls its gb.nn.functional form in forward()."""

from .. import _C
from . import functional as F
from .module import Module, Parameter


class _Activation(Module):
    """A module over one F function; `_keywords` are stored on the module and passed to it."""

    _function = None
    _keywords = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        names = self._keywords
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes at most {len(names)} positional arguments")
        values = dict(self._defaults)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument '{key}'")
            values[key] = value
        for key in names:
            setattr(self, key, values[key])

    def forward(self, x):
        return type(self)._function(x, **{k: getattr(self, k) for k in self._keywords})

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._keywords if k != "inplace" or self.inplace)


def _activation(name, function, **defaults):
    return type(name, (_Activation,), {"_function": function, "_keywords": tuple(defaults), "_defaults": defaults})


ELU = _activation("ELU", F.elu, alpha=1.0, inplace=False)
CELU = _activation("CELU", F.celu, alpha=1.0, inplace=False)
SELU = _activation("SELU", F.selu, inplace=False)
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, negative_slope=0.01, inplace=False)
ReLU6 = _activation("ReLU6", F.relu6, inplace=False)
Hardtanh = _activation("Hardtanh", F.hardtanh, min_val=-1.0, max_val=1.0, inplace=False)
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, inplace=False)
Hardswish = _activation("Hardswish", F.hardswish, inplace=False)
Softplus = _activation("Softplus", F.softplus, beta=1.0, threshold=20.0)
Softsign = _activation("Softsign", F.softsign)
Mish = _activation("Mish", F.mish, inplace=False)
SiLU = _activation("SiLU", F.silu)
LogSigmoid = _activation("LogSigmoid", F.logsigmoid)
Tanhshrink = _activation("Tanhshrink", F.tanhshrink)
GLU = _activation("GLU", F.glu, dim=-1)
LogSoftmax = _activation("LogSoftmax", F.log_softmax, dim=None)
Softmin = _activation("Softmin", F.softmin, dim=None)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(_C._functions.full([num_parameters], init))

    def forward(self, x):
        return F.prelu(x, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Dropout2d(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x):
        return F.dropout2d(x, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}"


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
