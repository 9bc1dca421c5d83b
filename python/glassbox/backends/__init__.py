"""gb.backends: settings of the backends, as torch.backends spells them."""

from . import cuda, cudnn  # noqa: F401
