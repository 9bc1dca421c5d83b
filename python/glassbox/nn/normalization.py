"""Normalisation layers with parameters and running statistics: BatchNorm1d/2d, GroupNorm, RMSNorm."""

from .. import _C
from . import functional as F
from .module import Module, Parameter

_f = _C._functions


class _BatchNorm(Module):
    _dims = ()  # the input ranks this layer takes

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(_f.ones([num_features])) if affine else None
        self.bias = Parameter(_f.zeros([num_features])) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", _f.zeros([num_features]))
            self.register_buffer("running_var", _f.ones([num_features]))
            self.register_buffer("num_batches_tracked", _f.zeros([], dtype=_C.dtype.int64))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def forward(self, x):
        if x.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got {x.dim()}D input)")
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if momentum is None:  # a cumulative average
                momentum = 1.0 / self.num_batches_tracked.item()
        use_batch = self.training or not self.track_running_stats
        return F.batch_norm(
            x,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight,
            self.bias,
            use_batch,
            momentum if momentum is not None else 0.0,
            self.eps,
        )

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = Parameter(_f.ones([num_channels])) if affine else None
        self.bias = Parameter(_f.zeros([num_channels])) if affine else None

    def forward(self, x):
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True):
        super().__init__()
        self.normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self.eps = eps
        self.weight = Parameter(_f.ones(self.normalized_shape)) if elementwise_affine else None

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{tuple(self.normalized_shape)}, eps={self.eps}, elementwise_affine={self.weight is not None}"
