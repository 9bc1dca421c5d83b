"""gb.backends: settings of the backends, as torch.backends spells them."""

from . import cuda  # noqa: F401
